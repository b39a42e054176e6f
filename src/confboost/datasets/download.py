"""Download a large data set from its public source into a cache folder: ``fetch``.

This module owns getting a set that is not bundled with confboost onto the machine:
downloading each original file (``sources.SOURCES``), checking its SHA-256 against the
set's PROVENANCE.md, keeping it gzip-compressed in ``<cache>/<name>/`` (the layout of the
project's data folder), and converting it to the normalised files ``load`` reads (CSV with
one header row and the label last; Mulan ARFF -> CSV with the label columns last in the
XML's order; Reuters-21578's SGML archive -> one row per story), whose SHA-256 is checked
too.  A second call finds the files and downloads
nothing.  Files appear atomically (written to a temporary name, then renamed), so an
interrupted fetch leaves no half file behind.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import os
import re
import tarfile
import tempfile
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

from confboost.datasets.locations import (
    BUNDLED,
    bundled_data_dir,
    default_cache_dir,
    has_files,
    search_path,
)
from confboost.datasets.registry import SPECS, normalise
from confboost.datasets.reuters import sgml_to_csv
from confboost.datasets.sources import SOURCES, Source

__all__ = ["fetch"]

_TIMEOUT_S = 60.0


def fetch(
    name: str,
    cache_dir: str | os.PathLike | None = None,
    *,
    mirror: str | None = None,
    verify: bool = True,
) -> Path:
    """Download set ``name`` from its public source into a cache folder, once.

    Parameters
    ----------
    name : str
        A key of ``DATASETS`` or ``"reuters21578"``.
    cache_dir : str, path or None, default None
        Folder that receives ``<cache_dir>/<name>/``; None: nothing is done when ``load``
        already finds the set in the data folder or the cache, else the set goes to
        ``default_cache_dir()`` (``$CONFBOOST_CACHE``, else ``$XDG_CACHE_HOME/confboost``,
        else ``~/.cache/confboost``), which ``load`` searches after the data folder.
    mirror : str or None, default None
        Base URL (``https://...``, ``file:///...``) of a copy laid out like the project's
        data folder: the originals are read from ``<mirror>/<name>/<stored name>``
        instead of the publishers' URLs.
    verify : bool, default True
        Check the SHA-256 of every original and converted file against the set's
        PROVENANCE.md.  Turn off only for a copy known to differ (e.g. a test subset).

    Returns
    -------
    Path
        The folder holding the files ``load`` reads; pass its parent as ``data_dir`` or
        rely on ``load``'s default search, which includes the data folder and the default
        cache.  For a set bundled with confboost, the bundled folder (nothing is
        downloaded).

    Raises
    ------
    ValueError
        Unknown name; a checksum that differs from PROVENANCE.md (the file is not kept).
    OSError
        Every URL of a file failed (the message lists each URL and its error).
    """
    key = normalise(name) if name != "reuters21578" else name
    source = SOURCES.get(key)
    if source is None:
        return bundled_data_dir() / key  # bundled with the package: nothing to fetch
    if cache_dir is None:  # already in the data folder or the cache: nothing to do
        for _, root in search_path()[:-1]:
            if has_files(root / key, tuple(source.outputs)):
                return root / key
    root = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    if str(root) == BUNDLED:
        raise ValueError("cache_dir='bundled' names the read-only bundled copy")
    folder = root / key
    if has_files(folder, tuple(source.outputs)):
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    for original in source.originals:
        target = folder / original.stored
        if target.is_file():
            continue
        if mirror is None:
            urls = original.urls
        else:
            urls = (f"{mirror.rstrip('/')}/{key}/{original.stored}",)
        raw = _download(urls)
        compressed = raw[:2] == b"\x1f\x8b"
        if verify:
            content = gzip.decompress(raw) if compressed else raw
            where = f"{urls[0]} (stored as {target})"
            if original.sha256:
                _check(content, original.sha256, where)
            for member, digest in original.members.items():
                _check(_member(content, member, where), digest, f"{member} of {where}")
        if compressed and target.suffix == ".gz":
            _write(target, raw, compress=False)  # keep the publisher's gzip as it is
        else:
            _write(target, gzip.decompress(raw) if compressed else raw)
    _CONVERTERS[source.convert](folder, source)
    for output, digest in source.outputs.items() if verify else ():
        path = folder / output
        try:
            _check(_read(path), digest, str(path))
        except ValueError:
            path.unlink()
            raise
    return folder


# --------------------------------------------------------------------------- files


def _download(urls: tuple[str, ...]) -> bytes:
    """Bytes of the first URL that answers."""
    errors = []
    for url in urls:
        try:
            with urllib.request.urlopen(url, timeout=_TIMEOUT_S) as response:
                raw = response.read()
        except (OSError, ValueError) as exc:  # URLError is an OSError
            errors.append(f"{url}: {exc}")
            continue
        return raw
    raise OSError("could not download; " + "; ".join(errors))


def _check(content: bytes, expected: str, where: str) -> None:
    got = hashlib.sha256(content).hexdigest()
    if not got.startswith(expected):
        raise ValueError(
            f"{where}: SHA-256 {got[:16]}... differs from {expected}... given by the set's "
            "PROVENANCE.md (a changed or truncated file); nothing was kept"
        )


def _read(path: Path) -> bytes:
    """Decompressed content of a stored file (``.gz`` or plain)."""
    return gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()


def _write(path: Path, content: bytes, compress: bool = True) -> None:
    """Write ``content`` to ``path`` atomically, gzip-compressed when the name ends in .gz."""
    data = gzip.compress(content, mtime=0) if compress and path.suffix == ".gz" else content
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(tmp, 0o644)  # mkstemp makes it 0600; a cache is read by anyone
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _member(tar: bytes, name: str, where: str) -> bytes:
    """Content of the file called ``name`` (at any depth) in an uncompressed tar archive."""
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        for info in archive.getmembers():
            if info.isfile() and info.name.rsplit("/", 1)[-1] == name:
                return archive.extractfile(info).read()
    raise ValueError(f"{where}: the archive holds no {name}")


def _text(path: Path) -> str:
    return _read(path).decode("utf-8")


def _csv_bytes(header: list[str], rows: Iterator[list[str]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


# --------------------------------------------------------------------------- converters

_LETTER_HEADER = [
    "x-box", "y-box", "width", "high", "onpix", "x-bar", "y-bar", "x2bar", "y2bar",
    "xybar", "x2ybar", "xy2bar", "x-ege", "xegvy", "y-ege", "yegvx", "class",
]  # fmt: skip


def _convert_letter(folder: Path, source: Source) -> None:
    """letter-recognition.data (label first) -> train/test CSV (label last), 16,000 / rest."""
    rows = [line.split(",") for line in _text(folder / "letter-recognition.data.gz").split()]
    for i, row in enumerate(rows):
        if len(row) != 17:
            raise ValueError(f"letter-recognition.data line {i + 1}: {len(row)} fields, not 17")
    n_train = SPECS["letter"].predefined["official"][2][0]
    for output, part in (("train.csv.gz", rows[:n_train]), ("test.csv.gz", rows[n_train:])):
        _write(folder / output, _csv_bytes(_LETTER_HEADER, (r[1:] + r[:1] for r in part)))


def _convert_skin(folder: Path, source: Source) -> None:
    """Skin_NonSkin.txt (B G R class, whitespace-separated) -> data.csv.gz."""
    lines = _text(folder / "Skin_NonSkin.txt.gz").splitlines()
    rows = [line.split() for line in lines if line.strip()]
    for i, row in enumerate(rows):
        if len(row) != 4:
            raise ValueError(f"Skin_NonSkin.txt line {i + 1}: {len(row)} fields, not 4")
    _write(folder / "data.csv.gz", _csv_bytes(["B", "G", "R", "class"], iter(rows)))


_XML_LABEL = re.compile(r"<label\s+name=\"([^\"]*)\"")


def _arff_name(text: str, where: str) -> tuple[str, str]:
    """Split ``@attribute <name> <type>`` (name maybe quoted) into (name, type)."""
    rest = text[len("@attribute"):].strip()
    if rest[:1] in ("'", '"'):
        end = rest.find(rest[0], 1)
        if end < 0:
            raise ValueError(f"{where}: unterminated quoted attribute name")
        return rest[1:end], rest[end + 1:].strip()
    name, _, kind = rest.partition(" ")
    return name, kind.strip()


def read_arff(text: str, where: str) -> tuple[list[str], list[bool], list[list[str]]]:
    """Attribute names, numeric flags and rows (as strings) of a dense or sparse ARFF file.

    Parameters
    ----------
    text : str
        The whole file.
    where : str
        File name for error messages.

    Returns
    -------
    names : list of str, length n_attributes
    numeric : list of bool, length n_attributes
        Whether each attribute is declared ``numeric``, ``real`` or ``integer``.
    rows : list of list of str, shape (n_rows, n_attributes)
        Sparse rows (``{index value, ...}``) are expanded with ``"0"`` for absent entries.
    """
    names: list[str] = []
    numeric: list[bool] = []
    rows: list[list[str]] = []
    in_data = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        lower = line.lower()
        if not in_data:
            if lower.startswith("@attribute"):
                name, kind = _arff_name(line, f"{where} line {number}")
                names.append(name)
                numeric.append(kind.lower() in ("numeric", "real", "integer"))
            elif lower.startswith("@data"):
                in_data = True
            continue
        if line.startswith("{"):
            row = ["0"] * len(names)
            body = line.strip("{}").strip()
            for item in body.split(",") if body else ():
                index, _, value = item.strip().partition(" ")
                if not index.isdigit() or int(index) >= len(names):
                    raise ValueError(f"{where} line {number}: bad sparse entry {item!r}")
                row[int(index)] = value.strip()
        else:
            row = [cell.strip() for cell in line.split(",")]
        if len(row) != len(names):
            raise ValueError(
                f"{where} line {number}: {len(row)} values, {len(names)} attributes"
            )
        rows.append(row)
    if not in_data:
        raise ValueError(f"{where}: no @data section")
    return names, numeric, rows


def _number(cell: str) -> str:
    """A numeric ARFF cell as the project's CSVs write it: ``0``, ``0.5``, ``-1.7e-05``."""
    if cell in ("", "?"):
        return ""
    value = float(cell)
    return str(int(value)) if value.is_integer() else repr(value)


def _convert_mulan(folder: Path, source: Source) -> None:
    """Mulan ARFF + label XML -> train/test CSV (features, then labels in XML order)."""
    stored = [o.stored for o in source.originals]
    train_arff, test_arff, xml = stored
    labels = _XML_LABEL.findall(_text(folder / xml))
    if not labels:
        raise ValueError(f"{folder / xml}: no <label name=...> entries")
    for output, arff in (("train.csv.gz", train_arff), ("test.csv.gz", test_arff)):
        names, numeric, rows = read_arff(_text(folder / arff), str(folder / arff))
        missing = [label for label in labels if label not in names]
        if missing:
            raise ValueError(f"{folder / arff}: labels {missing} of {xml} are not attributes")
        label_set = set(labels)
        order = [j for j, n in enumerate(names) if n not in label_set]
        order += [names.index(label) for label in labels]
        header = [names[j] for j in order]
        cells = ([_number(r[j]) if numeric[j] else r[j] for j in order] for r in rows)
        _write(folder / output, _csv_bytes(header, cells))
    _write(folder / "labels.txt", "".join(label + "\n" for label in labels).encode("utf-8"))


def _convert_reuters(folder: Path, source: Source) -> None:
    """reuters21578.tar.gz (the SGML distribution) -> reuters21578.csv.gz."""
    archive = folder / source.originals[0].stored
    tar = _read(archive)
    names = sorted(source.originals[0].members)
    texts = (_member(tar, name, str(archive)).decode("latin-1") for name in names)
    _write(folder / "reuters21578.csv.gz", sgml_to_csv(texts))


def _convert_copy(folder: Path, source: Source) -> None:
    """The originals are the files ``load`` reads (Fashion-MNIST's IDX files)."""


_CONVERTERS: dict[str, Callable[[Path, Source], None]] = {
    "copy": _convert_copy,
    "letter": _convert_letter,
    "skin": _convert_skin,
    "mulan": _convert_mulan,
    "reuters": _convert_reuters,
}

