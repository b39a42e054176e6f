"""Benchmark data sets with their official train/test splits, as numpy arrays.

This package owns the loaders for the real benchmark data used to test and benchmark
confboost: the UCI / StatLog multiclass sets, Fashion-MNIST and skin-segmentation (large
sets for speed), and the Mulan multi-label sets.  It reads the offline copies described,
one folder per set, by ``<data dir>/<name>/PROVENANCE.md`` (source, licence, counts and
the official split), and a bundled copy of the small sets shipped inside the package
(``confboost/datasets/data/<name>/``, see the README there) so that examples and tests
run without the full data folder.

It does not own Reuters-21578 (raw text; see the text module) nor any preprocessing
beyond decoding: numeric features are returned as they are in the files, nominal
features as integer codes, missing values as NaN.

Public API
----------
``load(name, ...) -> Split``
    One data set with its train/test split (official where there is one, otherwise a
    seeded stratified k-fold).
``available(data_dir=None) -> list[str]``
    The names loadable from a data folder (or the default / bundled one).
``default_data_dir() -> Path | None``
    Where the full copies are read from (``$CONFBOOST_DATA`` or ``<repo>/../shared/data``).
``DATASETS``
    ``name -> DatasetInfo`` short metadata (task, number of classes, split, size class).
``Split``, ``DatasetInfo``, ``DATA_DIR_ENV``, ``BUNDLED``.

Only numpy, scikit-learn (for the k-fold splitters) and the standard library are used.
"""

from __future__ import annotations

import csv
import gzip
import os
import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

__all__ = [
    "BUNDLED",
    "DATA_DIR_ENV",
    "DATASETS",
    "DatasetInfo",
    "Split",
    "available",
    "bundled_data_dir",
    "default_data_dir",
    "load",
]

DATA_DIR_ENV = "CONFBOOST_DATA"
"""Environment variable naming the folder that holds one sub-folder per data set."""

BUNDLED = "bundled"
"""Pass ``data_dir=BUNDLED`` to read the copy shipped inside the package."""

_BUNDLE_DIR = Path(__file__).resolve().parent / "data"

Task = Literal["binary", "multiclass", "multilabel"]


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, eq=False, repr=False)
class Split:
    """One data set divided into a training and a test part.

    Attributes
    ----------
    X_train : ndarray of float64, shape (n_train, n_features)
        Training features.  Missing values are NaN; nominal features are integer codes
        ``0 .. n_categories-1`` stored as floats (see ``categorical_features`` and
        ``categories``).
    y_train : ndarray, shape (n_train,) or (n_train, n_labels)
        Single-label tasks: the labels as in the file (int64 when every label is an
        integer, e.g. satimage ``1..7``; otherwise a numpy ``str`` array, e.g. letter
        ``'A'..'Z'``).  Multi-label tasks: a 0/1 ``int8`` indicator matrix whose columns
        follow ``label_names``.
    X_test : ndarray of float64, shape (n_test, n_features)
        Test features, encoded like ``X_train`` (same category codes).
    y_test : ndarray, shape (n_test,) or (n_test, n_labels)
        Test labels, like ``y_train``.
    name : str
        Data set name (a key of ``DATASETS``).
    task : {"binary", "multiclass", "multilabel"}
    feature_names : list of str, length n_features
        Column names from the file header (identifier columns such as ``sample_id`` are
        dropped).
    classes : ndarray, shape (n_classes,)
        Single-label: the sorted distinct labels over train and test (some may be absent
        from one part).  Multi-label: the label names, i.e. the columns of ``y``.
    label_names : list of str, length n_classes
        Human-readable name of each entry of ``classes`` (e.g. Fashion-MNIST ``3`` ->
        ``'Dress'``); ``str(c)`` where the file has no better name.
    categorical_features : list of int
        Column indices of nominal features (integer codes in ``X``).
    categories : dict of int -> list of str
        For each categorical column, the category names: code ``i`` means
        ``categories[col][i]`` (sorted names, computed over all rows of the set).
    split_description : str
        How the split was made, e.g. ``"official 4,435 / 2,000 (StatLog sat.trn /
        sat.tst)"`` or ``"seeded stratified 5-fold CV, fold 0, random_state=0 ..."``.
    source : str
        The folder the files were read from.
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    name: str
    task: Task
    feature_names: list[str]
    classes: np.ndarray
    label_names: list[str]
    categorical_features: list[int]
    categories: dict[int, list[str]]
    split_description: str
    source: str

    @property
    def n_classes(self) -> int:
        """Number of classes (single-label) or labels (multi-label)."""
        return len(self.classes)

    @property
    def n_features(self) -> int:
        """Number of feature columns."""
        return self.X_train.shape[1]

    @property
    def n_train(self) -> int:
        """Number of training rows."""
        return self.X_train.shape[0]

    @property
    def n_test(self) -> int:
        """Number of test rows."""
        return self.X_test.shape[0]

    def __repr__(self) -> str:
        return (
            f"Split(name={self.name!r}, task={self.task!r}, "
            f"X_train={self.X_train.shape}, X_test={self.X_test.shape}, "
            f"n_classes={self.n_classes}, n_categorical={len(self.categorical_features)}, "
            f"split={self.split_description!r})"
        )


@dataclass(frozen=True)
class DatasetInfo:
    """Short metadata about one loadable data set (the values of ``DATASETS``).

    Attributes
    ----------
    name : str
    task : {"binary", "multiclass", "multilabel"}
    n_classes : int
        Classes (single-label) or labels (multi-label).
    n_features : int
        Feature columns returned by ``load``.
    n_rows : int
        Rows in the whole set (train + test).
    official_split : bool
        Whether ``load`` uses a predefined train/test split by default (otherwise a
        seeded stratified k-fold).
    default_split : str
        The split ``load`` uses when ``split`` is not given.
    splits : tuple of str
        All accepted values of ``load(..., split=...)``; ``"cv"`` is always accepted.
    n_train, n_test : int or None
        Sizes of the default predefined split (None when the default is CV).
    size : {"small", "large"}
        ``"large"`` for the sets of 15,000 rows or more (slow tests).
    bundled : bool
        Whether a copy ships inside the package.
    has_missing : bool
        Whether some feature values are missing (NaN in ``X``).
    description : str
        One line on what the set is.
    """

    name: str
    task: Task
    n_classes: int
    n_features: int
    n_rows: int
    official_split: bool
    default_split: str
    splits: tuple[str, ...]
    n_train: int | None
    n_test: int | None
    size: Literal["small", "large"]
    bundled: bool
    has_missing: bool
    description: str


# --------------------------------------------------------------------------- specs


@dataclass(frozen=True)
class _Spec:
    """How to read one set (private).  Sizes are checked against PROVENANCE.md."""

    task: Task
    n_classes: int
    n_features: int
    description: str
    # predefined splits: name -> ((train files), (test files), (n_train, n_test), note)
    predefined: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[int, int], str]]
    # files whose rows (concatenated in this order) form the pool for "cv"
    pool: tuple[str, ...]
    n_rows: int
    default_split: str
    cv_note: str = ""
    reader: Literal["csv", "idx"] = "csv"
    drop: tuple[str, ...] = ()
    all_categorical: bool = False
    has_missing: bool = False
    bundled: bool = False
    class_names: dict[object, str] = field(default_factory=dict)

    def files(self) -> tuple[str, ...]:
        out: list[str] = list(self.pool)
        for tr, te, _, _ in self.predefined.values():
            out += [f for f in tr + te if f not in out]
        return tuple(out)

    def needed(self, split: str) -> tuple[str, ...]:
        """Files ``load`` reads for ``split`` (multi-label sets also need labels.txt)."""
        if split == "cv":
            files = self.pool
        else:
            tr, te, _, _ = self.predefined[split]
            files = tr + te
        return files + (("labels.txt",) if self.task == "multilabel" else ())


_TT = ("train.csv.gz", "test.csv.gz")


def _official(n_train: int, n_test: int, note: str, files: tuple[str, str] = _TT) -> dict:
    return {"official": ((files[0],), (files[1],), (n_train, n_test), note)}


def _mulan(
    name: str, n_tr: int, n_te: int, n_feat: int, n_lab: int, desc: str, bundled: bool = False
) -> _Spec:
    return _Spec(
        task="multilabel",
        n_classes=n_lab,
        n_features=n_feat,
        description=desc,
        predefined=_official(
            n_tr, n_te, f"the standard Mulan split, {name}-train.arff / {name}-test.arff"
        ),
        pool=_TT,
        n_rows=n_tr + n_te,
        default_split="official",
        bundled=bundled,
    )


_FASHION_NAMES = [
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
    "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
]  # fmt: skip

_SPECS: dict[str, _Spec] = {
    "letter": _Spec(
        task="multiclass", n_classes=26, n_features=16,
        description="UCI Letter Recognition (Frey & Slate 1991), 16 integer features",
        predefined=_official(
            16000, 4000,
            "Frey & Slate: first 16,000 rows train, last 4,000 test, as in Freund & Schapire"
            " 1996 and Schapire & Singer 1999",
        ),
        pool=_TT, n_rows=20000, default_split="official",
    ),
    "satimage": _Spec(
        task="multiclass", n_classes=6, n_features=36,
        description="StatLog Landsat Satellite, 36 integer features, classes 1-5,7",
        predefined=_official(4435, 2000, "StatLog sat.trn / sat.tst"),
        pool=_TT, n_rows=6435, default_split="official", bundled=True,
        class_names={1: "red soil", 2: "cotton crop", 3: "grey soil", 4: "damp grey soil",
                     5: "soil with vegetation stubble", 7: "very damp grey soil"},
    ),
    "segment": _Spec(
        task="multiclass", n_classes=7, n_features=19,
        description="StatLog / UCI Image Segmentation, 19 numeric features, 330 rows per class",
        predefined={
            "uci": (("uci_train.csv.gz",), ("uci_test.csv.gz",), (210, 2100),
                    "segmentation.data / segmentation.test"),
        },
        pool=("data.csv.gz",), n_rows=2310, default_split="cv",
        cv_note=(
            "over the 2,310 StatLog rows (StatLog itself used 10-fold CV; the UCI 210 / 2,100"
            " split, split='uci', trains on only 30 rows per class)"
        ),
        bundled=True,
    ),
    "vowel": _Spec(
        task="multiclass", n_classes=11, n_features=10,
        description="Deterding vowel recognition, 10 LPC features (speaker and sex dropped)",
        predefined=_official(
            528, 462, "speaker-independent: 8 training speakers, 7 other test speakers"
        ),
        pool=_TT, n_rows=990, default_split="official", drop=("speaker", "sex"), bundled=True,
    ),
    "soybean-large": _Spec(
        task="multiclass", n_classes=19, n_features=35,
        description="UCI Soybean (Large), 35 nominal features with missing values",
        predefined=_official(307, 376, "UCI soybean-large.data / soybean-large.test"),
        pool=_TT, n_rows=683, default_split="official", all_categorical=True,
        has_missing=True, bundled=True,
    ),
    "splice": _Spec(
        task="multiclass", n_classes=3, n_features=180,
        description="StatLog DNA splice junctions, 60 nucleotides as 180 binary indicators",
        predefined=_official(
            2000, 1186, "StatLog DNA train / test = LIBSVM dna.scale / dna.scale.t",
            ("statlog_train.csv.gz", "statlog_test.csv.gz"),
        ),
        pool=("statlog_train.csv.gz", "statlog_test.csv.gz"), n_rows=3186,
        default_split="official", bundled=True,
        class_names={"ei": "exon-intron (donor)", "ie": "intron-exon (acceptor)",
                     "n": "neither"},
    ),
    "glass": _Spec(
        task="multiclass", n_classes=6, n_features=9,
        description="UCI Glass Identification, 9 numeric features, classes 1-3,5-7",
        predefined={}, pool=("data.csv.gz",), n_rows=214, default_split="cv", bundled=True,
        class_names={1: "building windows float", 2: "building windows non-float",
                     3: "vehicle windows float", 5: "containers", 6: "tableware",
                     7: "headlamps"},
    ),
    "vehicle": _Spec(
        task="multiclass", n_classes=4, n_features=18,
        description="StatLog Vehicle Silhouettes, 18 integer shape features",
        predefined={}, pool=("data.csv.gz",), n_rows=846, default_split="cv", bundled=True,
    ),
    "waveform": _Spec(
        task="multiclass", n_classes=3, n_features=21,
        description="Breiman's waveform (version 1, 21 features), fixed 5,000-row file",
        predefined={}, pool=("data.csv.gz",), n_rows=5000, default_split="cv", bundled=True,
    ),
    "pendigits": _Spec(
        task="multiclass", n_classes=10, n_features=16,
        description="UCI Pen-Based Handwritten Digits, 16 integer features",
        predefined=_official(
            7494, 3498, "pendigits.tra / pendigits.tes, writer-independent"
        ),
        pool=_TT, n_rows=10992, default_split="official", bundled=True,
    ),
    "optdigits": _Spec(
        task="multiclass", n_classes=10, n_features=64,
        description="UCI Optical Handwritten Digits, 64 integer features (8x8 counts)",
        predefined=_official(
            3823, 1797, "optdigits.tra / optdigits.tes, writer-independent"
        ),
        pool=_TT, n_rows=5620, default_split="official", bundled=True,
    ),
    "car": _Spec(
        task="multiclass", n_classes=4, n_features=6,
        description="UCI Car Evaluation, 6 nominal features (complete factorial design)",
        predefined={}, pool=("data.csv.gz",), n_rows=1728, default_split="cv",
        all_categorical=True, bundled=True,
    ),
    "yeast-multiclass": _Spec(
        task="multiclass", n_classes=10, n_features=8,
        description="UCI Yeast protein localisation, 8 numeric features (not yeast-ml)",
        predefined={}, pool=("data.csv.gz",), n_rows=1484, default_split="cv",
        drop=("sequence_name",), bundled=True,
    ),
    "breast-cancer-wisconsin": _Spec(
        task="binary", n_classes=2, n_features=9,
        description="UCI Breast Cancer Wisconsin (Original), 9 ordinal features, 16 missing",
        predefined={}, pool=("data.csv.gz",), n_rows=699, default_split="cv",
        drop=("sample_id",), has_missing=True, bundled=True,
    ),
    "skin-segmentation": _Spec(
        task="binary", n_classes=2, n_features=3,
        description="UCI Skin Segmentation, 245,057 pixels x (B, G, R); 1 = skin, 2 = non-skin",
        predefined={}, pool=("data.csv.gz",), n_rows=245057, default_split="cv",
        class_names={1: "skin", 2: "non-skin"},
    ),
    "fashion-mnist": _Spec(
        task="multiclass", n_classes=10, n_features=784,
        description="Zalando Fashion-MNIST, 28x28 grey-level pixels (uint8 values as floats)",
        predefined={"official": (
            ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
            ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
            (60000, 10000), "train / t10k IDX files",
        )},
        pool=("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
              "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
        n_rows=70000, default_split="official", reader="idx",
        class_names=dict(enumerate(_FASHION_NAMES)),
    ),
    "yeast-ml": _mulan("yeast", 1500, 917, 103, 14,
                       "Elisseeff & Weston yeast gene functional classes (multi-label)"),
    "scene": _mulan("scene", 1211, 1196, 294, 6, "Boutell et al. scene classification"),
    "emotions": _mulan("emotions", 391, 202, 72, 6, "Trohidis et al. music emotions",
                       bundled=True),
    "enron": _mulan("enron", 1123, 579, 1001, 53,
                    "Enron e-mail topics, 1,001 binary bag-of-words features"),
    "medical": _mulan("medical", 333, 645, 1449, 45,
                      "CMC 2007 radiology reports (ICD-9 codes), 1,449 binary word features"),
}  # fmt: skip


def _info(name: str, s: _Spec) -> DatasetInfo:
    predefined = s.predefined.get(s.default_split)
    n_train, n_test = predefined[2] if predefined else (None, None)
    return DatasetInfo(
        name=name,
        task=s.task,
        n_classes=s.n_classes,
        n_features=s.n_features,
        n_rows=s.n_rows,
        official_split=s.default_split != "cv",
        default_split=s.default_split,
        splits=(*s.predefined, "cv"),
        n_train=n_train,
        n_test=n_test,
        size="large" if s.n_rows >= 15000 else "small",
        bundled=s.bundled,
        has_missing=s.has_missing,
        description=s.description,
    )


DATASETS: dict[str, DatasetInfo] = {name: _info(name, s) for name, s in _SPECS.items()}
"""Metadata of every set ``load`` knows, keyed by name."""


# --------------------------------------------------------------------------- locations


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
    """The folder the full data copies are read from.

    Returns
    -------
    Path or None
        ``$CONFBOOST_DATA`` when that variable is set (returned even if it does not
        exist, so that loading then fails naming it); otherwise the first existing folder
        of ``<repo>/../shared/data`` and ``<repo>/shared/data``, where ``<repo>`` is the
        source checkout holding ``src/confboost``; otherwise None.
    """
    env = os.environ.get(DATA_DIR_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    here = Path(__file__).resolve()
    repo = here.parents[3]  # <repo>/src/confboost/datasets/__init__.py
    for candidate in (repo.parent / "shared" / "data", repo / "shared" / "data"):
        if candidate.is_dir():
            return candidate
    return None


def _normalise(name: str) -> str:
    key = str(name).strip().lower().replace("_", "-")
    if key not in _SPECS:
        hint = (
            " (Reuters-21578 is raw text and is not loaded by confboost.datasets)"
            if key.startswith("reuters")
            else ""
        )
        raise ValueError(
            f"unknown data set {name!r}{hint}; valid names: {', '.join(sorted(_SPECS))}"
        )
    return key


def _has_files(folder: Path, files: Sequence[str]) -> bool:
    return all((folder / f).is_file() for f in files)


def _resolve(name: str, data_dir: str | os.PathLike | None, files: Sequence[str]) -> Path:
    """Return the folder holding ``files`` of set ``name`` or raise FileNotFoundError."""
    spec = _SPECS[name]
    how = f"set the environment variable {DATA_DIR_ENV} to the folder holding one sub-folder "
    how += "per data set (e.g. .../shared/data), or pass data_dir="
    if isinstance(data_dir, str) and data_dir == BUNDLED:
        if not spec.bundled:
            bundled = [n for n, s in _SPECS.items() if s.bundled]
            raise FileNotFoundError(
                f"{name!r} is not bundled with confboost (bundled: {', '.join(bundled)}); "
                f"{how}<folder>"
            )
        root = _BUNDLE_DIR
    elif data_dir is None:
        root = default_data_dir()
        if root is None or not _has_files(root / name, files):
            if spec.bundled and _has_files(_BUNDLE_DIR / name, files):
                return _BUNDLE_DIR / name
            if root is None:
                raise FileNotFoundError(
                    f"no data folder found for {name!r}: ${DATA_DIR_ENV} is not set and "
                    f"<repo>/../shared/data does not exist; {how}<folder>"
                )
    else:
        root = Path(data_dir).expanduser()
    if not root.is_dir():
        raise FileNotFoundError(f"data folder {root} does not exist; {how}<folder>")
    folder = root / name
    for f in files:
        if not (folder / f).is_file():
            raise FileNotFoundError(
                f"data file {folder / f} not found (data set {name!r}); {how}<folder>"
            )
    return folder


def available(data_dir: str | os.PathLike | None = None) -> list[str]:
    """Names of the sets that ``load(name, data_dir)`` can read with their default split.

    Parameters
    ----------
    data_dir : str, path, ``"bundled"`` or None
        As in ``load``: None looks in ``default_data_dir()`` and falls back to the
        bundled copy.

    Returns
    -------
    list of str
        Sorted names.
    """
    out = []
    for name, spec in _SPECS.items():
        try:
            _resolve(name, data_dir, spec.needed(spec.default_split))
        except FileNotFoundError:
            continue
        out.append(name)
    return sorted(out)


# --------------------------------------------------------------------------- readers


_INT_RE = re.compile(r"[+-]?\d+\Z")


def _read_csv(path: Path) -> tuple[list[str], np.ndarray]:
    """Header and cells (2-D str array) of one gzip CSV."""
    with gzip.open(path, "rt", encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        rows = [r for r in reader if r]
    for i, r in enumerate(rows):
        if len(r) != len(header):
            raise ValueError(
                f"{path}: data row {i + 1} has {len(r)} fields, the header has {len(header)}"
            )
    cells = np.array(rows, dtype=str) if rows else np.empty((0, len(header)), dtype=str)
    return header, cells.reshape(len(rows), len(header))


def _parse_float(cells: np.ndarray, dtype) -> np.ndarray:
    missing = cells == ""
    if missing.any():
        cells = np.where(missing, "nan", cells)
    return cells.astype(dtype)


def _to_float(cells: np.ndarray, names: Sequence[str], where: str, dtype) -> np.ndarray:
    """Numeric cells -> float array, empty cells -> NaN."""
    try:
        sample = cells[:256]
        if sample.size and np.unique(sample).size * 20 < sample.size:
            # few distinct strings (binary / small-integer data): parse each once
            uniq, inverse = np.unique(cells, return_inverse=True)
            return _parse_float(uniq, dtype)[inverse].reshape(cells.shape)
        return _parse_float(cells, dtype)
    except ValueError:
        for j in range(cells.shape[1]):
            try:
                cells[:, j].astype(dtype)
            except ValueError as exc:
                raise ValueError(f"{where}: non-numeric value in column {names[j]!r}") from exc
        raise


def _encode_categorical(col: np.ndarray, dtype) -> tuple[np.ndarray, list[str]]:
    present = col != ""
    cats = np.unique(col[present])
    out = np.full(col.shape[0], np.nan, dtype=dtype)
    out[present] = np.searchsorted(cats, col[present])
    return out, [str(c) for c in cats]


def _labels(cells: np.ndarray, where: str) -> np.ndarray:
    if (cells == "").any():
        raise ValueError(f"{where}: empty class label")
    uniq = np.unique(cells)
    if all(_INT_RE.match(str(u)) for u in uniq):
        return cells.astype(np.int64)
    return cells.astype(str)


@dataclass
class _Table:
    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    categorical: list[int]
    categories: dict[int, list[str]]
    label_names: list[str] | None  # multi-label only
    part_rows: list[int]  # rows read from each file (IDX: each images/labels pair)


def _read_csv_parts(spec: _Spec, folder: Path, files: Sequence[str], dtype) -> _Table:
    """Read and concatenate CSV files (one header, same columns) into one table."""
    header: list[str] | None = None
    blocks = []
    for f in files:
        h, cells = _read_csv(folder / f)
        if header is None:
            header = h
        elif h != header:
            raise ValueError(f"{folder / f}: header differs from {folder / files[0]}")
        blocks.append(cells)
    assert header is not None
    cells = np.concatenate(blocks, axis=0)
    where = str(folder)

    label_names = None
    if spec.task == "multilabel":
        label_names = (folder / "labels.txt").read_text(encoding="utf-8").split("\n")
        label_names = [s.strip() for s in label_names if s.strip()]
        k = len(label_names)
        if header[-k:] != label_names:
            raise ValueError(f"{where}: the last {k} columns are not labels.txt in order")
        lab = cells[:, -k:]
        if not np.isin(lab, ("0", "1")).all():
            raise ValueError(f"{where}: label columns hold values other than 0/1")
        y = (lab == "1").astype(np.int8)
        feat_cols = list(range(len(header) - k))
    else:
        if header[-1] != "class":
            raise ValueError(f"{where}: last column is {header[-1]!r}, expected 'class'")
        y = _labels(cells[:, -1], where)
        feat_cols = list(range(len(header) - 1))

    for d in spec.drop:
        if d not in header:
            raise ValueError(f"{where}: expected an identifier column {d!r} to drop")
    feat_cols = [j for j in feat_cols if header[j] not in spec.drop]
    names = [header[j] for j in feat_cols]
    cells = cells[:, feat_cols]

    categories: dict[int, list[str]] = {}
    if spec.all_categorical:
        X = np.empty(cells.shape, dtype=dtype)
        for j in range(cells.shape[1]):
            X[:, j], categories[j] = _encode_categorical(cells[:, j], dtype)
    else:
        X = _to_float(cells, names, where, dtype)
    return _Table(
        X=np.ascontiguousarray(X),
        y=y,
        feature_names=names,
        categorical=sorted(categories),
        categories=categories,
        label_names=label_names,
        part_rows=[b.shape[0] for b in blocks],
    )


def _read_idx(path: Path) -> np.ndarray:
    """One gzip IDX file (uint8 payload) as an array of its declared shape."""
    with gzip.open(path, "rb") as fh:
        buf = fh.read()
    (magic,) = struct.unpack_from(">I", buf, 0)
    ndim, type_code = magic & 0xFF, (magic >> 8) & 0xFF
    if magic >> 16 != 0 or type_code != 0x08 or ndim == 0:
        raise ValueError(f"{path}: not a uint8 IDX file (magic {magic})")
    dims = struct.unpack_from(f">{ndim}I", buf, 4)
    data = np.frombuffer(buf, dtype=np.uint8, offset=4 + 4 * ndim)
    if data.size != int(np.prod(dims)):
        raise ValueError(f"{path}: {data.size} bytes of data, header says {dims}")
    return data.reshape(dims)


def _read_idx_parts(folder: Path, files: Sequence[str], dtype) -> _Table:
    """Read (images, labels) IDX file pairs and concatenate them."""
    Xs, ys = [], []
    for img, lab in zip(files[0::2], files[1::2], strict=True):
        images = _read_idx(folder / img)
        labels = _read_idx(folder / lab)
        if images.shape[0] != labels.shape[0] or labels.ndim != 1:
            raise ValueError(f"{folder}: {img} and {lab} disagree on the number of rows")
        Xs.append(images.reshape(images.shape[0], -1))
        ys.append(labels.astype(np.int64))
    X = np.concatenate(Xs).astype(dtype)
    rows, cols = images.shape[1:] if images.ndim == 3 else (1, X.shape[1])
    names = [f"pixel_{r}_{c}" for r in range(rows) for c in range(cols)]
    return _Table(
        X=X,
        y=np.concatenate(ys),
        feature_names=names,
        categorical=[],
        categories={},
        label_names=None,
        part_rows=[len(part) for part in ys],
    )


# --------------------------------------------------------------------------- load


def load(
    name: str,
    data_dir: str | os.PathLike | None = None,
    fold: int = 0,
    n_folds: int = 5,
    random_state: int | None = 0,
    *,
    split: str | None = None,
    dtype=np.float64,
) -> Split:
    """Load one benchmark data set with its train/test split.

    Parameters
    ----------
    name : str
        A key of ``DATASETS`` (case-insensitive, ``_`` accepted for ``-``): letter,
        satimage, segment, vowel, soybean-large, splice, glass, vehicle, waveform,
        pendigits, optdigits, car, yeast-multiclass, breast-cancer-wisconsin,
        skin-segmentation, fashion-mnist, yeast-ml, scene, emotions, enron, medical.
    data_dir : str, path, ``"bundled"`` or None, default None
        Folder holding one sub-folder per set (the layout of ``shared/data``).  None:
        ``default_data_dir()``, falling back to the bundled copy for bundled sets.
        ``"bundled"``: the copy shipped inside the package.
    fold : int, default 0
        Which fold is the test part when the split is a k-fold (``0 <= fold < n_folds``).
        Ignored for predefined splits.
    n_folds : int, default 5
        Number of folds (>= 2) for k-fold splits.  Ignored for predefined splits.
    random_state : int or None, default 0
        Seed of the k-fold shuffle.  Ignored for predefined splits.
    split : str or None, default None
        None: the set's default (``DATASETS[name].default_split``: the official split
        where PROVENANCE.md names one, else ``"cv"``).  ``"official"`` (or ``"uci"`` for
        segment): that predefined split.  ``"cv"``: pool all rows (train then test file)
        and take fold ``fold`` of a shuffled ``StratifiedKFold`` (plain ``KFold`` for
        multi-label sets) as the test part.
    dtype : numpy float dtype, default float64
        dtype of ``X`` (float32 halves the memory of fashion-mnist).

    Returns
    -------
    Split
        ``X_train`` (n_train, n_features), ``y_train`` (n_train,) or (n_train, n_labels),
        ``X_test``, ``y_test``, and the metadata described in ``Split``.

    Raises
    ------
    ValueError
        Unknown name (the message lists the valid ones), unknown split, bad
        ``fold``/``n_folds``, or files whose row / class / feature counts differ from
        PROVENANCE.md.
    FileNotFoundError
        The data folder or a file is missing; the message names the path and says to
        set ``CONFBOOST_DATA``.
    """
    key = _normalise(name)
    spec = _SPECS[key]
    split_name = spec.default_split if split is None else str(split).lower()
    if split_name != "cv" and split_name not in spec.predefined:
        raise ValueError(
            f"{key!r} has no split {split!r}; choose one of {(*spec.predefined, 'cv')}"
        )
    if split_name == "cv":
        n_folds = int(n_folds)
        if n_folds < 2:
            raise ValueError(f"n_folds must be at least 2, got {n_folds}")
        fold = int(fold)
        if not 0 <= fold < n_folds:
            raise ValueError(f"fold must be in [0, {n_folds}), got {fold}")
        files: tuple[str, ...] = spec.pool
    else:
        train_files, test_files, (n_tr, n_te), note = spec.predefined[split_name]
        files = train_files + test_files
    folder = _resolve(key, data_dir, spec.needed(split_name))

    if spec.reader == "idx":
        table = _read_idx_parts(folder, files, dtype)
    else:
        table = _read_csv_parts(spec, folder, files, dtype)
    X, y = table.X, table.y
    where = f"{key} ({folder})"

    # checks against PROVENANCE.md
    if X.shape[1] != spec.n_features:
        raise ValueError(f"{where}: {X.shape[1]} features, expected {spec.n_features}")
    if spec.task == "multilabel":
        classes = np.asarray(table.label_names)
        label_names = list(table.label_names or [])
    else:
        classes = np.unique(y)
        label_names = [spec.class_names.get(c.item(), str(c)) for c in classes]
    if len(classes) != spec.n_classes:
        raise ValueError(f"{where}: {len(classes)} classes, expected {spec.n_classes}")
    if not spec.has_missing and spec.reader == "csv" and np.isnan(X).any():
        raise ValueError(f"{where}: unexpected missing values")

    if split_name == "cv":
        if X.shape[0] != spec.n_rows:
            raise ValueError(f"{where}: {X.shape[0]} rows, expected {spec.n_rows}")
        from sklearn.model_selection import KFold, StratifiedKFold

        if spec.task == "multilabel":
            splitter = KFold(n_splits=n_folds, shuffle=True, random_state=random_state)
            kind = "seeded"
        else:
            splitter = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=random_state)
            kind = "seeded stratified"
        train_idx, test_idx = list(splitter.split(X, y))[fold]
        note = spec.cv_note or f"over all {X.shape[0]:,} rows"
        if spec.predefined and not spec.cv_note:
            note += " (train and test files pooled)"
        description = (
            f"{kind} {n_folds}-fold CV, fold {fold}, random_state={random_state}, {note}: "
            f"{len(train_idx):,} / {len(test_idx):,}"
        )
    else:
        n_train_parts = len(train_files) if spec.reader == "csv" else len(train_files) // 2
        got = (sum(table.part_rows[:n_train_parts]), sum(table.part_rows[n_train_parts:]))
        if got != (n_tr, n_te):
            raise ValueError(f"{where}: {got[0]} + {got[1]} rows, expected {n_tr} + {n_te}")
        # rows are train files then test files: slices (views, no copy)
        train_idx, test_idx = slice(0, n_tr), slice(n_tr, n_tr + n_te)
        kind = "official" if split_name == "official" else f"{split_name.upper()} predefined"
        description = f"{kind} {n_tr:,} / {n_te:,} ({note})"

    return Split(
        X_train=X[train_idx],
        y_train=y[train_idx],
        X_test=X[test_idx],
        y_test=y[test_idx],
        name=key,
        task=spec.task,
        feature_names=table.feature_names,
        classes=classes,
        label_names=label_names,
        categorical_features=table.categorical,
        categories=table.categories,
        split_description=description,
        source=str(folder),
    )
