"""Tests of confboost.datasets: shapes, counts against PROVENANCE.md, splits, bundle, errors.

Tests reading the full data folder skip when ``default_data_dir()`` finds none; the ones
on the bundled copy always run.  The large sets (letter, skin-segmentation,
fashion-mnist) are marked ``slow``.
"""

from __future__ import annotations

import ast
import filecmp
import re
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

from confboost import datasets
from confboost.datasets import (
    BUNDLED,
    CACHE_DIR_ENV,
    DATA_DIR_ENV,
    DATASETS,
    Split,
    available,
    bundled_data_dir,
    default_data_dir,
    load,
)


class Exp(NamedTuple):
    n_rows: int
    n_train: int | None  # None: no official split, default is 5-fold CV
    n_test: int | None
    n_features: int
    n_classes: int
    missing: bool


# numbers from each PROVENANCE.md (and shared/data/README.md)
EXPECTED: dict[str, Exp] = {
    "letter": Exp(20000, 16000, 4000, 16, 26, False),
    "satimage": Exp(6435, 4435, 2000, 36, 6, False),
    "segment": Exp(2310, None, None, 19, 7, False),
    "vowel": Exp(990, 528, 462, 10, 11, False),
    "soybean-large": Exp(683, 307, 376, 35, 19, True),
    "splice": Exp(3186, 2000, 1186, 180, 3, False),
    "glass": Exp(214, None, None, 9, 6, False),
    "vehicle": Exp(846, None, None, 18, 4, False),
    "waveform": Exp(5000, None, None, 21, 3, False),
    "pendigits": Exp(10992, 7494, 3498, 16, 10, False),
    "optdigits": Exp(5620, 3823, 1797, 64, 10, False),
    "car": Exp(1728, None, None, 6, 4, False),
    "yeast-multiclass": Exp(1484, None, None, 8, 10, False),
    "breast-cancer-wisconsin": Exp(699, None, None, 9, 2, True),
    "skin-segmentation": Exp(245057, None, None, 3, 2, False),
    "fashion-mnist": Exp(70000, 60000, 10000, 784, 10, False),
    "yeast-ml": Exp(2417, 1500, 917, 103, 14, False),
    "scene": Exp(2407, 1211, 1196, 294, 6, False),
    "emotions": Exp(593, 391, 202, 72, 6, False),
    "enron": Exp(1702, 1123, 579, 1001, 53, False),
    "medical": Exp(978, 333, 645, 1449, 45, False),
}

# class counts PROVENANCE.md states in prose rather than as a "Class counts" dict
PROSE_COUNTS: dict[str, dict[str, dict[str, int]]] = {
    "vowel": {
        "train": dict.fromkeys(
            ["hid", "hId", "hEd", "hAd", "hYd", "had", "hOd", "hod", "hUd", "hud", "hed"], 48
        ),
        "test": dict.fromkeys(
            ["hid", "hId", "hEd", "hAd", "hYd", "had", "hOd", "hod", "hUd", "hud", "hed"], 42
        ),
    },
    "segment": {
        "all": dict.fromkeys(
            ["brickface", "sky", "foliage", "cement", "window", "path", "grass"], 330
        )
    },
    "breast-cancer-wisconsin": {"all": {"benign": 458, "malignant": 241}},
    "skin-segmentation": {"all": {"1": 50859, "2": 194198}},
    "fashion-mnist": {
        "train": {str(c): 6000 for c in range(10)},
        "test": {str(c): 1000 for c in range(10)},
    },
}

LARGE = {"letter", "skin-segmentation", "fashion-mnist"}
BUNDLED_NAMES = sorted(n for n, info in DATASETS.items() if info.bundled)
REQUIRED_BUNDLED = {
    "vowel", "glass", "soybean-large", "car", "vehicle", "yeast-multiclass",
    "breast-cancer-wisconsin", "segment", "satimage", "emotions",
}  # fmt: skip


def _params(names):
    return [pytest.param(n, marks=pytest.mark.slow) if n in LARGE else n for n in names]


@pytest.fixture(scope="module")
def shared() -> Path:
    root = default_data_dir()
    if root is None or not root.is_dir():
        why = "default_data_dir() is None" if root is None else f"{root} does not exist"
        pytest.skip(f"no benchmark data folder ({why}); these tests compare against the "
                    f"project's full copy: set {DATA_DIR_ENV} to it to run them")
    return root


_SHARED_CACHE: dict[str, Split] = {}


def _load_shared(shared: Path, name: str) -> Split:
    """load(name, data_dir=shared), cached for the small sets (tests never modify it)."""
    if name in LARGE:
        return load(name, data_dir=shared)
    if name not in _SHARED_CACHE:
        _SHARED_CACHE[name] = load(name, data_dir=shared)
    return _SHARED_CACHE[name]


def _provenance_counts(text: str) -> dict[str, dict[str, int]]:
    """Class counts stated in PROVENANCE.md: {'all'|'train'|'test': {label: count}}."""
    out: dict[str, dict[str, int]] = {}
    pat = r"Class counts(?: \([^)]*\))?(?: (train|test))?: (\{[^}]*\})(?:; test: (\{[^}]*\}))?"
    for m in re.finditer(pat, text):
        out[m.group(1) or "all"] = ast.literal_eval(m.group(2))
        if m.group(3):
            out["test"] = ast.literal_eval(m.group(3))
    return out


def _provenance_label_table(text: str) -> dict[str, tuple[int, int]]:
    """Multi-label PROVENANCE table: {label: (train positives, test positives)}."""
    return {
        m.group(1): (int(m.group(2)), int(m.group(3)))
        for m in re.finditer(r"^\| ([^|`]+?) \| (\d+) \| (\d+) \|$", text, re.M)
    }


def _counts(y) -> dict[str, int]:
    return {str(k): v for k, v in Counter(y.tolist()).items()}


def _check_split(s: Split, name: str) -> None:
    e = EXPECTED[name]
    assert isinstance(s, Split) and s.name == name
    assert s.task == DATASETS[name].task
    assert s.X_train.dtype == np.float64 and s.X_test.dtype == np.float64
    assert s.X_train.ndim == 2 and s.X_train.shape[1] == s.X_test.shape[1] == e.n_features
    assert len(s.feature_names) == e.n_features == s.n_features
    assert s.n_train + s.n_test == e.n_rows
    assert s.y_train.shape[0] == s.n_train and s.y_test.shape[0] == s.n_test
    if e.n_train is not None:
        assert (s.n_train, s.n_test) == (e.n_train, e.n_test)
        assert s.split_description.startswith("official")
        assert f"{e.n_train:,} / {e.n_test:,}" in s.split_description
    else:
        assert abs(s.n_test - e.n_rows / 5) <= e.n_classes
        assert s.split_description.startswith("seeded stratified 5-fold CV, fold 0")
    assert s.n_classes == len(s.label_names) == e.n_classes == DATASETS[name].n_classes
    X = np.vstack([s.X_train, s.X_test])
    assert np.isnan(X).any() == e.missing
    assert not np.isinf(X).any()
    assert all(isinstance(c, int) for c in s.categorical_features)
    assert sorted(s.categories) == s.categorical_features
    for j in s.categorical_features:
        codes = X[:, j][~np.isnan(X[:, j])]
        assert np.array_equal(codes, np.round(codes))
        assert codes.min() >= 0 and codes.max() < len(s.categories[j])
    if s.task == "multilabel":
        assert s.y_train.dtype == np.int8 and s.y_train.shape[1] == e.n_classes
        assert set(np.unique(s.y_train)) | set(np.unique(s.y_test)) <= {0, 1}
        assert list(s.classes) == s.label_names
    else:
        assert s.y_train.ndim == 1
        y = np.concatenate([s.y_train, s.y_test])
        assert np.array_equal(s.classes, np.unique(y))


@pytest.mark.parametrize("name", _params(sorted(EXPECTED)))
def test_load_full_copy_matches_provenance(shared, name):
    s = _load_shared(shared, name)
    _check_split(s, name)
    assert Path(s.source) == shared / name
    text = (shared / name / "PROVENANCE.md").read_text(encoding="utf-8")
    if s.task == "multilabel":
        table = _provenance_label_table(text)
        assert list(table) == s.label_names
        assert [v[0] for v in table.values()] == s.y_train.sum(axis=0).tolist()
        assert [v[1] for v in table.values()] == s.y_test.sum(axis=0).tolist()
        assert f"**labels** {s.n_classes}" in text
        return
    counts = _provenance_counts(text) or PROSE_COUNTS[name]
    parts = {"train": s.y_train, "test": s.y_test}
    for part, expected in counts.items():
        if part == "all" or EXPECTED[name].n_train is None:
            y = np.concatenate([s.y_train, s.y_test])
            expected = counts.get("all") or {
                k: counts["train"].get(k, 0) + counts["test"].get(k, 0)
                for k in counts["train"].keys() | counts["test"].keys()
            }
        else:
            y = parts[part]
        assert _counts(y) == expected, part
    assert sorted(str(c) for c in s.classes) == sorted(
        set(counts.get("all", {})) | set(counts.get("train", {}))
    )


def test_registry():
    assert sorted(DATASETS) == sorted(EXPECTED)
    for name, info in DATASETS.items():
        e = EXPECTED[name]
        assert info.name == name
        assert (info.n_rows, info.n_features, info.n_classes) == (
            e.n_rows,
            e.n_features,
            e.n_classes,
        )
        assert info.official_split == (e.n_train is not None)
        assert (info.n_train, info.n_test) == (e.n_train, e.n_test)
        assert info.size == ("large" if name in LARGE else "small")
        assert info.has_missing == e.missing
        assert "cv" in info.splits and info.default_split in info.splits
    assert DATASETS["breast-cancer-wisconsin"].task == "binary"
    assert DATASETS["scene"].task == "multilabel"
    assert REQUIRED_BUNDLED <= set(BUNDLED_NAMES)


# ----------------------------------------------------------------- bundled copy


def test_bundle_layout():
    root = bundled_data_dir()
    assert (root / "README.md").is_file()
    folders = sorted(p.name for p in root.iterdir() if p.is_dir())
    assert folders == BUNDLED_NAMES
    total = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    assert total < 2_000_000
    for name in BUNDLED_NAMES:
        files = {p.name for p in (root / name).iterdir()}
        assert "PROVENANCE.md" in files
        assert all(f == "PROVENANCE.md" or f == "labels.txt" or f.endswith(".csv.gz")
                   for f in files)  # fmt: skip
    assert available(BUNDLED) == BUNDLED_NAMES


@pytest.mark.parametrize("name", BUNDLED_NAMES)
def test_bundled_loads(name):
    s = load(name, data_dir=BUNDLED)
    _check_split(s, name)
    assert Path(s.source) == bundled_data_dir() / name


@pytest.mark.parametrize("name", BUNDLED_NAMES)
def test_bundled_equals_full_copy(shared, name):
    root = bundled_data_dir() / name
    for f in sorted(root.iterdir()):
        assert filecmp.cmp(f, shared / name / f.name, shallow=False), f.name
    a = load(name, data_dir=BUNDLED)
    b = _load_shared(shared, name)
    for attr in ("X_train", "y_train", "X_test", "y_test", "classes"):
        np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr))
    assert a.feature_names == b.feature_names and a.categories == b.categories
    assert a.split_description == b.split_description


def test_falls_back_to_bundle_without_full_copy(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    assert default_data_dir() == tmp_path
    assert available() == BUNDLED_NAMES
    s = load("glass")
    assert Path(s.source) == bundled_data_dir() / "glass"
    with pytest.raises(FileNotFoundError, match=DATA_DIR_ENV) as err:
        load("medical")
    assert str(tmp_path / "medical") in str(err.value)
    assert available(tmp_path) == []


# ----------------------------------------------------------------- splits


def test_cv_folds_partition_and_are_reproducible():
    n = EXPECTED["glass"].n_rows
    full = load("glass", data_dir=BUNDLED, split="cv", n_folds=2)
    rows = np.vstack([full.X_train, full.X_test])
    key = np.lexsort(rows.T)
    tests = []
    for fold in range(3):
        s = load("glass", data_dir=BUNDLED, fold=fold, n_folds=3, random_state=7)
        assert s.n_train + s.n_test == n
        assert f"3-fold CV, fold {fold}, random_state=7" in s.split_description
        both = np.vstack([s.X_train, s.X_test])
        np.testing.assert_array_equal(both[np.lexsort(both.T)], rows[key])
        tests.append(s.X_test)
        # stratified: every class keeps about a third of its rows in the test part
        for c in s.classes:
            total = int((s.y_train == c).sum() + (s.y_test == c).sum())
            assert abs(int((s.y_test == c).sum()) - total / 3) <= 1
    allt = np.vstack(tests)
    np.testing.assert_array_equal(allt[np.lexsort(allt.T)], rows[key])  # disjoint cover
    again = load("glass", data_dir=BUNDLED, fold=1, n_folds=3, random_state=7)
    np.testing.assert_array_equal(again.X_test, tests[1])
    other = load("glass", data_dir=BUNDLED, fold=1, n_folds=3, random_state=8)
    assert not np.array_equal(other.X_test, tests[1])


def test_predefined_ignores_fold_and_cv_pools_official_sets():
    a = load("vowel", data_dir=BUNDLED)
    b = load("vowel", data_dir=BUNDLED, fold=3, n_folds=4, random_state=5)
    np.testing.assert_array_equal(a.X_train, b.X_train)
    cv = load("vowel", data_dir=BUNDLED, split="cv", fold=1)
    assert cv.n_train + cv.n_test == 990
    assert "pooled" in cv.split_description
    ml = load("emotions", data_dir=BUNDLED, split="cv", n_folds=4, fold=3)
    assert ml.n_train + ml.n_test == 593 and ml.split_description.startswith("seeded 4-fold")


def test_segment_uci_split():
    s = load("segment", data_dir=BUNDLED, split="uci")
    assert (s.n_train, s.n_test) == (210, 2100)
    assert _counts(s.y_train) == dict.fromkeys(s.classes.tolist(), 30)
    assert _counts(s.y_test) == dict.fromkeys(s.classes.tolist(), 300)
    assert DATASETS["segment"].default_split == "cv"


# ----------------------------------------------------------------- decoding details


def test_categorical_and_missing_encoding():
    car = load("car", data_dir=BUNDLED)
    assert car.categorical_features == list(range(6))
    assert car.categories[0] == ["high", "low", "med", "vhigh"]
    assert car.feature_names[0] == "buying"
    soy = load("soybean-large", data_dir=BUNDLED)
    assert soy.categorical_features == list(range(35))
    assert int(np.isnan(soy.X_train).sum() + np.isnan(soy.X_test).sum()) > 0
    assert "october" in soy.categories[soy.feature_names.index("date")]
    bcw = load("breast-cancer-wisconsin", data_dir=BUNDLED)
    X = np.vstack([bcw.X_train, bcw.X_test])
    assert "sample_id" not in bcw.feature_names
    assert np.isnan(X).sum(axis=0).tolist() == [
        16 if f == "bare_nuclei" else 0 for f in bcw.feature_names
    ]
    assert bcw.categorical_features == [] and bcw.classes.tolist() == ["benign", "malignant"]


def test_labels_identifiers_and_names():
    assert load("satimage", data_dir=BUNDLED).classes.tolist() == [1, 2, 3, 4, 5, 7]
    assert load("glass", data_dir=BUNDLED).classes.dtype == np.int64
    vowel = load("vowel", data_dir=BUNDLED)
    assert vowel.feature_names == [f"f{i}" for i in range(10)]
    yeast = load("yeast_multiclass", data_dir=BUNDLED)  # "_" accepted for "-"
    assert "sequence_name" not in yeast.feature_names and yeast.name == "yeast-multiclass"
    assert load("splice", data_dir=BUNDLED).label_names[2] == "neither"
    em = load("emotions", data_dir=BUNDLED)
    assert em.label_names[0] == "amazed-suprised" and em.y_train.shape == (391, 6)


def test_float32_and_repr():
    s = load("vehicle", data_dir=BUNDLED, dtype=np.float32)
    assert s.X_train.dtype == np.float32
    assert "vehicle" in repr(s) and "676" in repr(s)


@pytest.mark.slow
def test_fashion_mnist_pixels(shared):
    s = load("fashion-mnist", data_dir=shared, dtype=np.float32)
    assert s.X_train.shape == (60000, 784) and s.X_test.shape == (10000, 784)
    assert s.X_train.min() == 0 and s.X_train.max() == 255
    assert np.array_equal(s.X_test, np.round(s.X_test))
    assert s.label_names[9] == "Ankle boot" and s.y_train.dtype == np.int64


# ----------------------------------------------------------------- errors


def test_unknown_name_lists_valid_names():
    with pytest.raises(ValueError, match="valid names: .*breast-cancer-wisconsin.*vowel"):
        load("iris")
    with pytest.raises(ValueError, match="Reuters"):
        load("reuters21578")


def test_bad_split_arguments():
    with pytest.raises(ValueError, match="no split"):
        load("glass", data_dir=BUNDLED, split="official")
    with pytest.raises(ValueError, match="fold"):
        load("glass", data_dir=BUNDLED, fold=5, n_folds=5)
    with pytest.raises(ValueError, match="n_folds"):
        load("glass", data_dir=BUNDLED, n_folds=1)


def test_missing_folder_or_file(tmp_path):
    missing = tmp_path / "nowhere"
    with pytest.raises(FileNotFoundError, match=DATA_DIR_ENV) as err:
        load("glass", data_dir=missing)
    assert str(missing) in str(err.value)
    (tmp_path / "letter").mkdir()
    with pytest.raises(FileNotFoundError, match="train.csv.gz"):
        load("letter", data_dir=tmp_path)
    with pytest.raises(FileNotFoundError, match="not bundled"):
        load("letter", data_dir=BUNDLED)


def test_default_data_dir(monkeypatch, tmp_path):
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    assert default_data_dir() == tmp_path
    monkeypatch.delenv(DATA_DIR_ENV)
    found = default_data_dir()
    repo = Path(datasets.__file__).resolve().parents[3]
    candidates = [repo.parent / "shared" / "data", repo / "shared" / "data"]
    assert found == next((c for c in candidates if c.is_dir()), None)


def test_corrupt_copy_is_detected(tmp_path):
    import gzip

    (tmp_path / "glass").mkdir()
    src = bundled_data_dir() / "glass" / "data.csv.gz"
    lines = gzip.open(src, "rt").read().splitlines()
    with gzip.open(tmp_path / "glass" / "data.csv.gz", "wt") as fh:
        fh.write("\n".join(lines[:-1]) + "\n")  # one row short
    with pytest.raises(ValueError, match="213 rows, expected 214"):
        load("glass", data_dir=tmp_path)


def test_wrong_official_split_is_detected(tmp_path):
    import gzip
    import shutil

    (tmp_path / "vowel").mkdir()
    src = bundled_data_dir() / "vowel"
    train = gzip.open(src / "train.csv.gz", "rt").read().splitlines()
    test = gzip.open(src / "test.csv.gz", "rt").read().splitlines()
    with gzip.open(tmp_path / "vowel" / "train.csv.gz", "wt") as fh:  # move one row over
        fh.write("\n".join(train[:-1]) + "\n")
    with gzip.open(tmp_path / "vowel" / "test.csv.gz", "wt") as fh:
        fh.write("\n".join([test[0], train[-1], *test[1:]]) + "\n")
    with pytest.raises(ValueError, match="527 \\+ 463 rows, expected 528 \\+ 462"):
        load("vowel", data_dir=tmp_path)
    (tmp_path / "emotions").mkdir()
    for f in ("train.csv.gz", "test.csv.gz"):
        shutil.copy(bundled_data_dir() / "emotions" / f, tmp_path / "emotions" / f)
    with pytest.raises(FileNotFoundError, match="labels.txt"):
        load("emotions", data_dir=tmp_path)
