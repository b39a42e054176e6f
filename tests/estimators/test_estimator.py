"""BoostClassifier: behaviour, persistence, bad input."""

import json

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris

import confboost
from confboost import BoostClassifier
from confboost.formats.model_json import save_document


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X, y


def test_binary_fit_predict_and_staged(cancer):
    X, y = cancer
    clf = BoostClassifier(40).fit(X, y)
    assert clf.n_estimators_ == 40 and clf.history_["alpha"].shape == (40,)
    assert clf.score(X, y) > 0.97
    decision = clf.decision_function(X)
    assert decision.shape == (len(y),)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[(decision > 0).astype(int)])
    staged = list(clf.staged_decision_function(X))
    assert len(staged) == 40
    np.testing.assert_allclose(staged[-1], decision, atol=1e-10)
    staged_predictions = list(clf.staged_predict(X))
    np.testing.assert_array_equal(staged_predictions[-1], clf.predict(X))
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    slope = clf.calibrator_.slope  # the temperature fitted out of fold (calibration.py)
    np.testing.assert_allclose(proba[:, 1], 1 / (1 + np.exp(-2 * slope * decision)))
    raw = BoostClassifier(40, calibration=None).fit(X, y)
    np.testing.assert_array_equal(raw.decision_function(X), decision)
    np.testing.assert_allclose(raw.predict_proba(X)[:, 1], 1 / (1 + np.exp(-2 * decision)))


def test_training_error_below_product_of_z_every_round(cancer):
    X, y = cancer
    for confidence in ("real", "discrete", "abstain", "real-abstain"):
        history = BoostClassifier(60, confidence=confidence).fit(X, y).history_
        assert np.all(history["train_loss"] <= history["bound"])
        np.testing.assert_allclose(history["bound"], np.cumprod(history["z"]))


def test_train_loss_is_the_training_error(cancer):
    X, y = cancer
    clf = BoostClassifier(15).fit(X, y)
    for round_index, predicted in enumerate(clf.staged_predict(X)):
        assert clf.history_["train_loss"][round_index] == pytest.approx(np.mean(predicted != y))


def test_string_labels_and_multiclass():
    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    clf = BoostClassifier(30).fit(X, names)
    assert list(clf.classes_) == ["setosa", "versicolor", "virginica"]
    assert clf.decision_function(X).shape == (150, 3)
    assert clf.score(X, names) > 0.95
    assert np.all(clf.history_["train_loss"] <= clf.history_["bound"])


def test_missing_values_get_their_own_block(rng):
    X = rng.normal(size=(400, 2))
    y = (X[:, 0] > 0).astype(int)
    X[y == 1, 1] = np.nan  # missingness itself tells the class
    X[:, 0] = rng.normal(size=400)  # and the first feature is noise
    clf = BoostClassifier(1).fit(X, y)
    stump = clf.model_.hypotheses[0]
    assert stump.feature == 1
    assert stump.values[2, 0] > 0  # the missing block votes for class 1
    assert clf.score(X, y) == 1.0


def test_sample_weight_equals_repetition_without_ties(rng):
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    weight = rng.integers(0, 3, size=60).astype(float)
    weighted = BoostClassifier(10).fit(X, y, sample_weight=weight)
    repeated = BoostClassifier(10).fit(np.repeat(X, weight.astype(int), axis=0),
                                       np.repeat(y, weight.astype(int)))
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X),
                               rtol=1e-9, atol=1e-12)


def test_save_load_round_trip(tmp_path, cancer):
    X, y = cancer
    X = X.copy()
    X[::5, 2] = np.nan
    clf = BoostClassifier(25, confidence="abstain").fit(X, y)
    path = tmp_path / "model.json"
    clf.save(path)
    loaded = confboost.load(path)
    np.testing.assert_array_equal(loaded.decision_function(X), clf.decision_function(X))
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))
    np.testing.assert_array_equal(loaded.history_["z"], clf.history_["z"])
    assert loaded.get_params() == clf.get_params()
    document = json.loads(path.read_text())
    assert document["format"] == "confboost-model" and document["version"] == 4


def test_load_rejects_unknown_hypothesis_types_and_versions(tmp_path, cancer):
    X, y = cancer
    path = tmp_path / "model.json"
    BoostClassifier(2).fit(X, y).save(path)
    document = json.loads(path.read_text())
    document["model"]["hypotheses"][0]["type"] = "os.system"
    path.write_text(json.dumps(document))
    with pytest.raises(ValueError, match="checksum"):
        confboost.load(path)
    del document["checksum"]
    save_document(path, {key: value for key, value in document.items()
                         if key not in ("format", "version")})
    with pytest.raises(ValueError, match=r"model\.hypotheses\[0\]\.type: must be one of"):
        confboost.load(path)
    document["version"] = 99
    path.write_text(json.dumps(document))
    with pytest.raises(ValueError, match="version 99"):
        confboost.load(path)
    path.write_text("not json")
    with pytest.raises(ValueError, match="not a confboost model file"):
        confboost.load(path)


def test_pandas_dataframe_with_nan():
    pd = pytest.importorskip("pandas")
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = X.copy()
    X.iloc[::4, 0] = np.nan
    clf = BoostClassifier(10).fit(X, y)
    assert list(clf.feature_names_in_) == list(X.columns)
    assert clf.predict(X).shape == (len(y),)
    assert isinstance(X, pd.DataFrame)


def test_feature_importances(rng):
    X = rng.normal(size=(300, 4))
    y = (X[:, 2] > 0).astype(int)
    clf = BoostClassifier(10).fit(X, y)
    importances = clf.feature_importances_
    assert importances.sum() == pytest.approx(1.0)
    assert np.argmax(importances) == 2


def test_n_jobs_gives_the_same_model(cancer):
    X, y = cancer
    one = BoostClassifier(10, n_jobs=1).fit(X, y).decision_function(X)
    two = BoostClassifier(10, n_jobs=2).fit(X, y).decision_function(X)
    np.testing.assert_allclose(one, two, rtol=1e-9, atol=1e-12)


def test_verbose_prints_rounds(cancer, capsys):
    X, y = cancer
    BoostClassifier(3, verbose=2).fit(X, y)
    err = capsys.readouterr().err
    assert err.count("rnd ") == 3 and "Z=" in err


# ---- bad input: a clear error that names the problem, and nothing half-fitted ----

BAD_INPUTS = [
    ("nan label", lambda X, y: (X, np.where(np.arange(len(y)) == 3, np.nan, y)), "NaN"),
    ("inf label", lambda X, y: (X, np.where(np.arange(len(y)) == 3, np.inf, y)), "infinity"),
    ("inf feature", lambda X, y: (np.where(np.arange(X.size).reshape(X.shape) == 7, np.inf, X),
                                  y), "infinity"),
    ("lengths", lambda X, y: (X, y[:-1]), "inconsistent numbers of samples"),
    ("one class", lambda X, y: (X, np.zeros_like(y)), "only one class"),
    ("empty X", lambda X, y: (X[:0], y[:0]), "0 sample"),
    ("strings in X", lambda X, y: (np.array([["a", "b"]] * len(y), dtype=object), y),
     "could not convert string to float"),
]


@pytest.mark.parametrize("name, make, message", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_input_is_refused_with_a_clear_message(cancer, name, make, message):
    X, y = cancer
    X_bad, y_bad = make(X.copy(), y.astype(float))
    clf = BoostClassifier(3)
    with pytest.raises(ValueError, match=message):
        clf.fit(X_bad, y_bad)
    assert not hasattr(clf, "model_") and not hasattr(clf, "history_")


@pytest.mark.parametrize("weights, message", [
    (lambda n: -np.ones(n), "Negative values in data passed to `sample_weight`"),
    (lambda n: np.zeros(n), "at least one non-zero"),
])
def test_bad_sample_weights(cancer, weights, message):
    X, y = cancer
    with pytest.raises(ValueError, match=message):
        BoostClassifier(3).fit(X, y, sample_weight=weights(len(y)))


@pytest.mark.parametrize("param, value", [
    ("n_estimators", 0), ("confidence", "sure"), ("alpha", "newton"), ("smoothing", -1.0),
    ("max_bins", 300), ("init", "random"), ("scheme", "xx"), ("n_jobs", 0),
])
def test_unknown_parameter_values(cancer, param, value):
    X, y = cancer
    with pytest.raises(ValueError, match=param):
        BoostClassifier(**{param: value}).fit(X, y)


def test_predict_with_wrong_number_of_features(cancer):
    X, y = cancer
    clf = BoostClassifier(3).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :5])


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_sparse_and_dense_inputs_give_identical_models(rng, fmt, n_classes):
    import scipy.sparse as sp

    from confboost import BoostClassifier

    X = rng.normal(size=(600, 8))
    X[rng.random(X.shape) < 0.6] = 0.0
    X[:, 3] = np.round(X[:, 3] * 2)
    X[::11, 4] = np.nan
    y = (X[:, 0] + X[:, 1] > 0).astype(int) + (n_classes > 2) * (X[:, 2] > 0.5)
    sparse = sp.csr_matrix(X) if fmt == "csr" else sp.csc_matrix(X)
    dense_clf = BoostClassifier(n_estimators=25).fit(X, y)
    sparse_clf = BoostClassifier(n_estimators=25).fit(sparse, y)
    assert dense_clf.model_.to_dict() == sparse_clf.model_.to_dict()
    np.testing.assert_array_equal(dense_clf.decision_function(X),
                                  sparse_clf.decision_function(sparse))
    np.testing.assert_array_equal(dense_clf.predict(X), sparse_clf.predict(sparse))
    for a, b in zip(dense_clf.staged_decision_function(X),
                    sparse_clf.staged_decision_function(sparse), strict=False):
        np.testing.assert_array_equal(a, b)


def test_float32_input_gives_the_float64_model(rng):
    from confboost import BoostClassifier

    X = rng.normal(size=(500, 5)).astype(np.float32)
    y = (X[:, 0] > 0.2).astype(int)
    a = BoostClassifier(n_estimators=15).fit(X, y)
    b = BoostClassifier(n_estimators=15).fit(X.astype(np.float64), y)
    assert a.model_.to_dict() == b.model_.to_dict()
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


@pytest.mark.parametrize("n_classes", [2, 4])
def test_trimming_keeps_the_bound_and_is_off_by_default(rng, n_classes):
    from confboost import BoostClassifier

    X = rng.normal(size=(1500, 6))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=1500),
                    np.linspace(-1, 1, n_classes - 1))
    plain = BoostClassifier(n_estimators=40).fit(X, y)
    zero = BoostClassifier(n_estimators=40, trim=0.0).fit(X, y)
    assert plain.model_.to_dict() == zero.model_.to_dict()
    trimmed = BoostClassifier(n_estimators=40, trim=0.1).fit(X, y)
    history = trimmed.history_
    assert np.all(history["train_loss"] <= history["bound"] + 1e-12)
    # Z_t is over every example: the product of the recorded Z equals the weight algebra
    assert np.all((history["z"] > 0) & (history["z"] <= 1 + 1e-12))
    assert trimmed.score(X, y) > plain.score(X, y) - 0.05


def test_bad_trim():
    from confboost import BoostClassifier

    with pytest.raises(ValueError, match="trim"):
        BoostClassifier(trim=0.9).fit(np.zeros((4, 1)), [0, 1, 0, 1])
