"""Where the data files are: the data folder, the download cache and the bundled copy.

This module owns the search order of ``load(name)`` when no ``data_dir`` is given:

1. the data folder: ``$CONFBOOST_DATA`` when set, else ``../shared/data`` (beside <repo>) (or
   ``<repo>/shared/data``) when confboost runs from a source checkout that has one;
2. the download cache that ``fetch`` fills: ``$CONFBOOST_CACHE``, else
   ``$XDG_CACHE_HOME/confboost``, else ``~/.cache/confboost``;
3. the copy of the small sets bundled inside the package (``datasets/data/``).

The first folder holding every file of the requested split wins.  When none does, the
error lists where it looked and says where the set comes from and how to fetch it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from confboost.datasets.registry import SPECS
from confboost.datasets.sources import how_to_get

DATA_DIR_ENV = "CONFBOOST_DATA"
"""Environment variable naming the folder that holds one sub-folder per data set."""

CACHE_DIR_ENV = "CONFBOOST_CACHE"
"""Environment variable naming the folder ``fetch`` downloads into by default."""

BUNDLED = "bundled"
"""Pass ``data_dir=BUNDLED`` to read the copy shipped inside the package."""

_BUNDLE_DIR = Path(__file__).resolve().parent / "data"


def bundled_data_dir() -> Path:
    """The folder holding the copy shipped inside the package.

    Returns
    -------
    Path
        ``<package>/datasets/data``; it holds a sub-folder for each set whose
        ``DATASETS[name].bundled`` is true.
    """
    return _BUNDLE_DIR


def default_data_dir() -> Path | None:
    """The data folder: the first place ``load`` looks for a set.

    Returns
    -------
    Path or None
        ``$CONFBOOST_DATA`` when that variable is set (returned even if it does not
        exist, so that loading then fails naming it); otherwise the first existing folder
        of ``../shared/data`` (beside <repo>) and ``<repo>/shared/data``, where ``<repo>`` is the
        source checkout holding ``src/confboost``; otherwise None.
    """
    env = os.environ.get(DATA_DIR_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    repo = Path(__file__).resolve().parents[3]  # <repo>/src/confboost/datasets/locations.py
    for candidate in (repo.parent / "shared" / "data", repo / "shared" / "data"):
        if candidate.is_dir():
            return candidate
    return None


def default_cache_dir() -> Path:
    """The folder ``fetch`` downloads into by default, and ``load``'s second place to look.

    Returns
    -------
    Path
        ``$CONFBOOST_CACHE`` when set, else ``$XDG_CACHE_HOME/confboost``, else
        ``~/.cache/confboost`` (it need not exist yet).
    """
    env = os.environ.get(CACHE_DIR_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "confboost"


def has_files(folder: Path, files: Sequence[str]) -> bool:
    """Whether ``folder`` holds every one of ``files``."""
    return all((folder / f).is_file() for f in files)


def search_path() -> list[tuple[str, Path]]:
    """The folders ``load(name)`` searches, in order, each with what it is.

    Returns
    -------
    list of (str, Path)
        ``("data folder", ...)`` when there is one, ``("cache", ...)`` and
        ``("bundled", ...)``.
    """
    out = []
    data = default_data_dir()
    if data is not None:
        out.append((f"data folder (${DATA_DIR_ENV})" if os.environ.get(DATA_DIR_ENV, "").strip()
                    else "data folder", data))
    out.append((f"cache (${CACHE_DIR_ENV})" if os.environ.get(CACHE_DIR_ENV, "").strip()
                else "cache", default_cache_dir()))
    out.append(("bundled", _BUNDLE_DIR))
    return out


def _missing(folder: Path, files: Sequence[str]) -> str:
    if not folder.parent.is_dir():
        return f"{folder.parent} does not exist"
    absent = [f for f in files if not (folder / f).is_file()]
    return f"{folder} lacks {', '.join(absent)}"


def resolve(name: str, data_dir: str | os.PathLike | None, files: Sequence[str]) -> Path:
    """The folder holding ``files`` of set ``name``.

    Parameters
    ----------
    name : str
        A normalised set name (a key of ``registry.SPECS``).
    data_dir : str, path, ``"bundled"`` or None
        As in ``load``: None searches ``search_path()`` in order.
    files : sequence of str
        The files the requested split needs.

    Returns
    -------
    Path
        ``<root>/<name>`` for the first root that has them all.

    Raises
    ------
    FileNotFoundError
        Naming every place looked at and, for a large set, where it comes from and the
        ``fetch`` call that downloads it.
    """
    spec = SPECS[name]
    get = how_to_get(name)
    if isinstance(data_dir, str) and data_dir == BUNDLED:
        if not spec.bundled:
            bundled = [n for n, s in SPECS.items() if s.bundled]
            raise FileNotFoundError(
                f"{name!r} is not bundled with confboost (bundled: {', '.join(bundled)}). {get}"
            )
        return _BUNDLE_DIR / name
    if data_dir is not None:
        folder = Path(data_dir).expanduser() / name
        if not has_files(folder, files):
            if spec.bundled:
                get = (f"{name!r} is bundled with confboost: leave data_dir out (or pass "
                       f"data_dir='bundled') to read that copy")
            raise FileNotFoundError(
                f"data set {name!r} not found: {_missing(folder, files)} (data_dir, like "
                f"${DATA_DIR_ENV}, names a folder with one sub-folder per set). {get}"
            )
        return folder
    looked = []
    for what, root in search_path():
        if what == "bundled" and not spec.bundled:
            continue
        if has_files(root / name, files):
            return root / name
        looked.append(f"{what}: {_missing(root / name, files)}")
    raise FileNotFoundError(f"data set {name!r} not found ({'; '.join(looked)}). {get}")


def available(data_dir: str | os.PathLike | None = None) -> list[str]:
    """Names of the sets that ``load(name, data_dir)`` can read with their default split.

    Parameters
    ----------
    data_dir : str, path, ``"bundled"`` or None
        As in ``load``: None searches the data folder, the cache and the bundled copy.

    Returns
    -------
    list of str
        Sorted names.
    """
    out = []
    for name, spec in SPECS.items():
        try:
            resolve(name, data_dir, spec.needed(spec.default_split))
        except FileNotFoundError:
            continue
        out.append(name)
    return sorted(out)
