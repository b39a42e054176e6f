"""The registry of benchmark data sets: what each one is and how ``load`` reads it.

This module owns the result types (``Split``, ``DatasetInfo``), the private reading recipe
of every set (``Spec``: task, counts from its PROVENANCE.md, files per split, reader) and
``DATASETS``, the public metadata derived from it.  Where each set comes from and how to
fetch it is in ``sources.py``; reading files is ``readers.py``; finding them is
``locations.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

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
class Spec:
    """How to read one set (internal to the package).  Sizes are checked against PROVENANCE.md."""

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
) -> Spec:
    return Spec(
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

SPECS: dict[str, Spec] = {
    "letter": Spec(
        task="multiclass", n_classes=26, n_features=16,
        description="UCI Letter Recognition (Frey & Slate 1991), 16 integer features",
        predefined=_official(
            16000, 4000,
            "Frey & Slate: first 16,000 rows train, last 4,000 test, as in Freund & Schapire"
            " 1996 and Schapire & Singer 1999",
        ),
        pool=_TT, n_rows=20000, default_split="official",
    ),
    "satimage": Spec(
        task="multiclass", n_classes=6, n_features=36,
        description="StatLog Landsat Satellite, 36 integer features, classes 1-5,7",
        predefined=_official(4435, 2000, "StatLog sat.trn / sat.tst"),
        pool=_TT, n_rows=6435, default_split="official", bundled=True,
        class_names={1: "red soil", 2: "cotton crop", 3: "grey soil", 4: "damp grey soil",
                     5: "soil with vegetation stubble", 7: "very damp grey soil"},
    ),
    "segment": Spec(
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
    "vowel": Spec(
        task="multiclass", n_classes=11, n_features=10,
        description="Deterding vowel recognition, 10 LPC features (speaker and sex dropped)",
        predefined=_official(
            528, 462, "speaker-independent: 8 training speakers, 7 other test speakers"
        ),
        pool=_TT, n_rows=990, default_split="official", drop=("speaker", "sex"), bundled=True,
    ),
    "soybean-large": Spec(
        task="multiclass", n_classes=19, n_features=35,
        description="UCI Soybean (Large), 35 nominal features with missing values",
        predefined=_official(307, 376, "UCI soybean-large.data / soybean-large.test"),
        pool=_TT, n_rows=683, default_split="official", all_categorical=True,
        has_missing=True, bundled=True,
    ),
    "splice": Spec(
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
    "glass": Spec(
        task="multiclass", n_classes=6, n_features=9,
        description="UCI Glass Identification, 9 numeric features, classes 1-3,5-7",
        predefined={}, pool=("data.csv.gz",), n_rows=214, default_split="cv", bundled=True,
        class_names={1: "building windows float", 2: "building windows non-float",
                     3: "vehicle windows float", 5: "containers", 6: "tableware",
                     7: "headlamps"},
    ),
    "vehicle": Spec(
        task="multiclass", n_classes=4, n_features=18,
        description="StatLog Vehicle Silhouettes, 18 integer shape features",
        predefined={}, pool=("data.csv.gz",), n_rows=846, default_split="cv", bundled=True,
    ),
    "waveform": Spec(
        task="multiclass", n_classes=3, n_features=21,
        description="Breiman's waveform (version 1, 21 features), fixed 5,000-row file",
        predefined={}, pool=("data.csv.gz",), n_rows=5000, default_split="cv", bundled=True,
    ),
    "pendigits": Spec(
        task="multiclass", n_classes=10, n_features=16,
        description="UCI Pen-Based Handwritten Digits, 16 integer features",
        predefined=_official(
            7494, 3498, "pendigits.tra / pendigits.tes, writer-independent"
        ),
        pool=_TT, n_rows=10992, default_split="official", bundled=True,
    ),
    "optdigits": Spec(
        task="multiclass", n_classes=10, n_features=64,
        description="UCI Optical Handwritten Digits, 64 integer features (8x8 counts)",
        predefined=_official(
            3823, 1797, "optdigits.tra / optdigits.tes, writer-independent"
        ),
        pool=_TT, n_rows=5620, default_split="official", bundled=True,
    ),
    "car": Spec(
        task="multiclass", n_classes=4, n_features=6,
        description="UCI Car Evaluation, 6 nominal features (complete factorial design)",
        predefined={}, pool=("data.csv.gz",), n_rows=1728, default_split="cv",
        all_categorical=True, bundled=True,
    ),
    "yeast-multiclass": Spec(
        task="multiclass", n_classes=10, n_features=8,
        description="UCI Yeast protein localisation, 8 numeric features (not yeast-ml)",
        predefined={}, pool=("data.csv.gz",), n_rows=1484, default_split="cv",
        drop=("sequence_name",), bundled=True,
    ),
    "breast-cancer-wisconsin": Spec(
        task="binary", n_classes=2, n_features=9,
        description="UCI Breast Cancer Wisconsin (Original), 9 ordinal features, 16 missing",
        predefined={}, pool=("data.csv.gz",), n_rows=699, default_split="cv",
        drop=("sample_id",), has_missing=True, bundled=True,
    ),
    "skin-segmentation": Spec(
        task="binary", n_classes=2, n_features=3,
        description="UCI Skin Segmentation, 245,057 pixels x (B, G, R); 1 = skin, 2 = non-skin",
        predefined={}, pool=("data.csv.gz",), n_rows=245057, default_split="cv",
        class_names={1: "skin", 2: "non-skin"},
    ),
    "fashion-mnist": Spec(
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


def _info(name: str, s: Spec) -> DatasetInfo:
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


DATASETS: dict[str, DatasetInfo] = {name: _info(name, s) for name, s in SPECS.items()}
"""Metadata of every set ``load`` knows, keyed by name."""


def normalise(name: str) -> str:
    """The registry key of ``name`` (case-insensitive, ``_`` for ``-``) or a ValueError."""
    key = str(name).strip().lower().replace("_", "-")
    if key not in SPECS:
        hint = (
            " (Reuters-21578 is raw text: confboost.datasets.load_reuters21578 reads it)"
            if key.startswith("reuters")
            else ""
        )
        raise ValueError(
            f"unknown data set {name!r}{hint}; valid names: {', '.join(sorted(SPECS))}"
        )
    return key

