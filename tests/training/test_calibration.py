"""Probabilities: the temperature of calibration.py, and class_weight."""

import numpy as np
import pytest
from scipy.special import softmax
from sklearn.datasets import load_wine
from sklearn.metrics import log_loss
from sklearn.utils.class_weight import compute_sample_weight

from confboost import BoostClassifier, load
from confboost.data.dataset import Dataset
from confboost.datasets import load as load_dataset
from confboost.training import calibration, run_callbacks
from confboost.training.calibration import (
    SLOPE_BOUNDS,
    Calibrator,
    calibration_rounds,
    carry_exponent,
    carry_slope,
    dataset_rows,
    fit_calibrator,
)
from confboost.training.holdout import calibration_folds


@pytest.mark.parametrize("kind", ["softmax", "sigmoid"])
def test_the_fitted_slope_recovers_a_known_temperature(kind):
    rng = np.random.default_rng(0)
    logits = 5.0 * rng.normal(size=(20000, 3))
    true = 0.3
    if kind == "softmax":
        p = softmax(true * logits, axis=1)
        targets = (rng.random(20000)[:, None] > p.cumsum(axis=1)).sum(axis=1)
    else:
        targets = rng.random((20000, 3)) < 1 / (1 + np.exp(-true * logits))
    calibrator = fit_calibrator(logits, targets, kind)
    assert calibrator.slope == pytest.approx(true, rel=0.05)
    # and it is the minimum: a nearby slope does no better
    def loss(slope):
        probs = Calibrator(kind, slope)(logits)
        if kind == "softmax":
            return -np.log(probs[np.arange(20000), targets]).mean()
        return -np.log(np.where(targets, probs, 1 - probs)).sum(axis=1).mean()
    assert loss(calibrator.slope) <= min(loss(calibrator.slope * 0.9),
                                          loss(calibrator.slope * 1.1))


def test_calibration_keeps_predictions_and_lowers_held_out_log_loss():
    X, y = load_wine(return_X_y=True)
    train, test = np.arange(len(y)) % 3 != 0, np.arange(len(y)) % 3 == 0
    raw = BoostClassifier(calibration=None).fit(X[train], y[train])
    calibrated = BoostClassifier(random_state=0).fit(X[train], y[train])
    np.testing.assert_array_equal(calibrated.decision_function(X), raw.decision_function(X))
    proba = calibrated.predict_proba(X[test])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(calibrated.classes_[proba.argmax(axis=1)],
                                  calibrated.predict(X[test]))
    assert log_loss(y[test], proba) < 0.5 * log_loss(y[test], raw.predict_proba(X[test]))
    assert 0 < calibrated.calibrator_.slope < 1  # real AdaBoost's f is too large (§7)


@pytest.mark.parametrize("scheme", ["mh", "mr"])
def test_multilabel_probabilities_agree_with_predict(scheme):
    data = load_dataset("emotions")
    clf = BoostClassifier(30, scheme=scheme, random_state=0).fit(data.X_train, data.y_train)
    proba = clf.predict_proba(data.X_test)
    assert clf.calibrator_.kind == "sigmoid"
    np.testing.assert_array_equal((proba > 0.5).astype(int), clf.predict(data.X_test))


def test_the_temperature_survives_save_and_load(tmp_path):
    X, y = load_wine(return_X_y=True)
    clf = BoostClassifier(20, random_state=0).fit(X, y)
    clf.save(tmp_path / "m.json")
    again = load(tmp_path / "m.json")
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))
    with pytest.raises(ValueError, match="slope must be finite and > 0"):
        Calibrator.from_dict({"kind": "softmax", "slope": -1.0})


def test_too_little_data_for_calibration_leaves_the_raw_link():
    X = np.arange(8.0)[:, None]
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    clf = BoostClassifier(5).fit(X, y)
    assert clf.calibrator_ is None
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1],
                               1 / (1 + np.exp(-2 * clf.decision_function(X))))


def test_balanced_class_weight_is_sklearns_sample_weight():
    X, y = load_wine(return_X_y=True)
    keep = (y != 2) | (np.arange(len(y)) % 4 == 0)  # make the classes unbalanced
    X, y = X[keep], y[keep]
    weighted = BoostClassifier(10, class_weight="balanced", calibration=None).fit(X, y)
    by_hand = BoostClassifier(10, calibration=None).fit(
        X, y, sample_weight=compute_sample_weight("balanced", y))
    np.testing.assert_array_equal(weighted.decision_function(X), by_hand.decision_function(X))
    unweighted = BoostClassifier(10, calibration=None).fit(X, y)
    assert not np.array_equal(weighted.decision_function(X), unweighted.decision_function(X))

    labels = np.array(["a", "b", "c"])[y]
    as_dict = BoostClassifier(10, class_weight={"c": 3.0}, calibration=None).fit(
        X, labels, sample_weight=np.full(len(y), 2.0))
    by_hand = BoostClassifier(10, calibration=None).fit(
        X, labels, sample_weight=np.where(labels == "c", 6.0, 2.0))
    np.testing.assert_array_equal(as_dict.decision_function(X), by_hand.decision_function(X))


def test_class_weight_is_refused_for_multilabel_y():
    Y = np.array([[0, 1], [1, 0], [1, 1], [0, 0]] * 5)
    with pytest.raises(ValueError, match="class_weight is for single-label data"):
        BoostClassifier(class_weight="balanced").fit(np.arange(20.0)[:, None], Y)


@pytest.mark.parametrize("kind", ["softmax", "sigmoid"])
def test_the_slope_is_the_minimum_of_a_fine_scan(kind):
    rng = np.random.default_rng(1)
    logits = 20.0 * rng.normal(size=(500, 4))
    weight = rng.random(500)
    targets = (rng.integers(0, 4, 500) if kind == "softmax"
               else rng.random((500, 4)) < 1 / (1 + np.exp(-logits / 20)))

    def loss(slope):
        probs = np.clip(Calibrator(kind, slope)(logits), 1e-300, 1)
        if kind == "softmax":
            return -np.dot(weight, np.log(probs[np.arange(500), targets]))
        return -np.dot(weight, np.log(np.where(targets, probs, 1 - probs)).sum(axis=1))
    slope = fit_calibrator(logits, targets, kind, weight).slope
    scan = np.geomspace(slope / 3, slope * 3, 2001)
    assert loss(slope) <= min(loss(a) for a in scan) + 1e-9
    # a slope outside the bounds' reach stops at the bound
    assert fit_calibrator(np.full((4, 1), 1e-9), np.array([[1], [1], [1], [1]]),
                          "sigmoid").slope == SLOPE_BOUNDS[1]


def test_a_carried_slope_keeps_the_calibrated_scale():
    rng = np.random.default_rng(2)
    short = rng.normal(size=(300, 3))
    for kind in ("sigmoid", "softmax"):
        carried = carry_slope(Calibrator(kind, 0.6), short, 4.0 * short)
        assert carried.kind == kind and carried.slope == pytest.approx(0.15)
        # a softmax reads a row up to a shift: shifting the long logits changes nothing
        shifted = carry_slope(Calibrator(kind, 0.6), short, 4.0 * short + 7.0)
        assert (shifted.slope == pytest.approx(0.15)) == (kind == "softmax")
    # no scale to compare: the slope stays as it was
    assert carry_slope(Calibrator("sigmoid", 0.6), short, 0 * short).slope == 0.6
    # β carries that power of the growth: (1/4)^0.5 = 1/2
    assert carry_slope(Calibrator("sigmoid", 0.6), short, 4.0 * short,
                       0.5).slope == pytest.approx(0.3)
    assert 0 < carry_exponent("stump") < 1 and carry_exponent("tree") == 1.0


def test_a_stump_fit_carries_its_slope_with_the_stumps_exponent(monkeypatch):
    X, y = load_wine(return_X_y=True)
    stump = carry_exponent("stump")
    slopes = {}
    for beta in (1.0, 0.5, stump):
        monkeypatch.setattr(calibration, "CARRY_EXPONENTS", {"stump": beta})
        slopes[beta] = BoostClassifier(40, random_state=0).fit(X, y).calibrator_.slope
    # a_β = a' r^β with one r: log(a_β / a_1) is proportional to β - 1
    ratio = np.log(slopes[stump] / slopes[1.0]) / np.log(slopes[0.5] / slopes[1.0])
    assert slopes[0.5] > slopes[1.0]
    assert ratio == pytest.approx((1 - stump) / 0.5, rel=1e-9)


@pytest.mark.parametrize("seed", [0, 7, np.random.RandomState(3)])
def test_calibration_folds_hold_out_each_example_once_stratified(seed):
    rng = np.random.default_rng(5)
    encoded = rng.integers(0, 4, 500)
    encoded[:7] = 3  # every class present, the rarest with at least 3 examples
    folds = calibration_folds(500, encoded, 0.1, seed)
    assert len(folds) == 3
    held = np.concatenate([rows for _, rows in folds])
    np.testing.assert_array_equal(np.sort(held), np.arange(500))
    for train, rows in folds:
        np.testing.assert_array_equal(np.sort(np.concatenate([train, rows])), np.arange(500))
        assert np.all(np.diff(rows) > 0) and np.all(np.diff(train) > 0)
    for label in range(4):  # each class spread over the folds within one example
        counts = [np.sum(encoded[rows] == label) for _, rows in folds]
        assert max(counts) - min(counts) <= 1
    # fewer folds when the rarest class is rarer; none with a class of one example
    encoded[encoded == 2] = 0
    encoded[:2] = 2
    assert len(calibration_folds(500, encoded, 0.1, 0)) == 2
    encoded[1] = 0
    assert calibration_folds(500, encoded, 0.1, 0) is None


def test_calibration_folds_are_drawn_from_the_seed():
    first = calibration_folds(300, None, 0.1, 0)
    again = calibration_folds(300, None, 0.1, 0)
    other = calibration_folds(300, None, 0.1, 1)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(first, again, strict=True))
    assert not all(np.array_equal(a[1], b[1]) for a, b in zip(first, other, strict=True))
    assert sorted(rows.size for _, rows in first) == [100, 100, 100]


def test_calibration_runs_train_a_tenth_of_the_rounds_on_the_main_runs_bins(capsys):
    X, y = load_wine(return_X_y=True)
    clf = BoostClassifier(25, verbose=2, random_state=0).fit(X, y)
    err = capsys.readouterr().err
    short = calibration_rounds(25, 3)
    assert short == 2 and calibration_rounds(25) == 3 and err.count("rnd ") == 25
    for number in (1, 2, 3):
        assert err.count(f"calibration {number}/3 round") == short
    assert 0 < clf.calibrator_.slope < 1
    # the runs read their rows of the binned data, binned once
    main = Dataset.from_array(X, 255, 0, np.ones(len(y)))
    rows = np.arange(0, len(y), 3)
    part = dataset_rows(main, rows)
    np.testing.assert_array_equal(part.codes, main.codes[:, rows])
    assert part.n_samples == rows.size and part.bin_mapper is main.bin_mapper


def test_the_progress_bar_ends_with_the_whole_fit(capsys):
    X, y = load_wine(return_X_y=True)
    BoostClassifier(20, verbose=1).fit(X, y)
    err = capsys.readouterr().err
    total = 20 + 3 * calibration_rounds(20, 3)
    assert f"{total}/{total} rounds" in err and err.endswith("\n")
    assert f"{total - 1}/{total}" not in err.splitlines()[-1].split("\r")[-1]
    # a run that stops early (no edge left) still ends the bar's line
    Xs = np.repeat(np.arange(20.0)[:, None], 2, axis=0)
    ys = (Xs[:, 0] >= 10).astype(int)
    BoostClassifier(50, verbose=1, calibration=None).fit(Xs, ys)
    err = capsys.readouterr().err
    assert err.endswith("\n") and "/50 rounds" in err


def test_warm_start_continues_the_calibration_runs():
    X, y = load_wine(return_X_y=True)
    once = BoostClassifier(40, random_state=0).fit(X, y)
    twice = BoostClassifier(20, random_state=0, warm_start=True).fit(X, y)
    twice.set_params(n_estimators=40).fit(X, y)
    assert twice.calibrator_.slope == pytest.approx(once.calibrator_.slope, rel=1e-12)


def test_the_kept_training_f_gives_the_slope_scoring_the_rows_again(monkeypatch):
    X, y = load_wine(return_X_y=True)
    kept = BoostClassifier(40, random_state=0).fit(X, y).calibrator_.slope
    # without the copy after T' rounds the main run's model scores the held-out rows
    monkeypatch.setattr(run_callbacks.ScoresAt, "after_iteration", lambda self, env: False)
    scored = BoostClassifier(40, random_state=0).fit(X, y).calibrator_.slope
    assert scored == pytest.approx(kept, rel=1e-12)
