"""The fit object (training/fit_runs.py), stage by stage, each on the previous stage's output,
and the input adapter it chooses once (training/inputs.py)."""

import numpy as np
import pytest
from scipy.sparse import csr_matrix

from confboost import BoostClassifier
from confboost.engine.boosting import BoostingRun
from confboost.estimators.booster import Booster
from confboost.kernels.criterion_numpy import MODES
from confboost.training.fit_runs import Fit
from confboost.training.fit_state import FitResult, FitState, Split
from confboost.training.holdout import CALIBRATION_FOLDS
from confboost.training.inputs import ArrayInput, TableInput, fitted_input
from confboost.training.round_scores import ScoreRecord
from confboost.training.run_callbacks import CoverRecord

RNG = np.random.default_rng(11)
X = RNG.normal(size=(200, 4))
Y = np.digitize(X[:, 0] + 0.4 * RNG.normal(size=200), [-0.4, 0.4])


def _fit(**params):
    return Fit(BoostClassifier(**params), MODES["real"])


def test_read_inputs_decides_the_kind_once_and_reads_y_and_weights():
    inputs = _fit().read_inputs(X, Y, np.full(200, 2.0))
    assert isinstance(inputs.adapter, ArrayInput) and inputs.adapter.kind == "array"
    assert inputs.signs.shape == (200, 3) and set(np.unique(inputs.signs)) == {-1, 1}
    assert list(inputs.classes) == [0, 1, 2] and not inputs.multilabel
    np.testing.assert_array_equal(inputs.sample_weight, 2.0)
    assert inputs.attributes["n_features_in_"] == 4 and inputs.work == 200 * 4 * 3
    assert _fit().read_inputs(csr_matrix(X), Y).adapter.kind == "sparse"
    binary = _fit(class_weight={0: 3.0}).read_inputs(X, Y > 0)
    assert binary.signs.shape == (200, 1)
    np.testing.assert_array_equal(binary.sample_weight, np.where(Y > 0, 1.0, 3.0))


def test_read_inputs_of_a_table_keeps_its_encoder_for_predict():
    table = {"colour": np.where(Y > 0, "red", "blue").astype(object), "size": X[:, 0]}
    fit = Fit(Booster(feature_types={"colour": "categorical"}), MODES["real"])
    inputs = fit.read_inputs(table, Y)
    assert isinstance(inputs.adapter, TableInput)
    assert inputs.attributes["encoder_"] is inputs.adapter.encoder
    clf = Booster(5, feature_types={"colour": "categorical"}).fit(table, Y)
    assert fitted_input(clf).kind == "table"
    with pytest.raises(ValueError, match="X must be a DataFrame"):
        clf.predict(X)
    with pytest.raises(TypeError, match="use BoostClassifier for arrays"):
        Fit(Booster(), MODES["real"]).read_inputs(X, Y)


def test_hold_out_names_the_sets_and_says_when_to_stop():
    fit = _fit()
    inputs = fit.read_inputs(X, Y)
    split = fit.hold_out(inputs, [(X[:50], Y[:50]), (X[50:90], Y[50:90])], ["a", "b"])
    assert isinstance(split, Split) and split.train_rows is None and split.stopping
    assert [s.name for s in split.eval_sets] == ["a", "b"]
    assert split.eval_sets[1].signs.shape == (40, 3)
    no_stop = _fit(early_stopping=False).hold_out(inputs, [(X[:50], Y[:50])])
    assert not no_stop.stopping and no_stop.eval_sets[0].name == "valid_0"
    held = _fit(early_stopping=True, random_state=0).hold_out(inputs)
    assert held.eval_sets[0].name == "validation" and held.stopping
    n_held = held.eval_sets[0].signs.shape[0]
    assert n_held == 20 and len(held.train_rows) == 180
    folds = fit.hold_out(inputs)  # calibration without held-out data: cross-fitted folds
    assert not folds.eval_sets and len(folds.folds) == CALIBRATION_FOLDS
    assert sum(len(s.weight) for _, s in folds.folds) == 200
    uncalibrated = _fit(calibration=None)
    assert uncalibrated.hold_out(uncalibrated.read_inputs(X, Y)).folds == []


def test_build_makes_runs_that_have_not_started():
    fit = _fit(early_stopping=True, random_state=0)
    inputs = fit.read_inputs(X, Y)
    state = fit.build(inputs, fit.hold_out(inputs))
    assert isinstance(state, FitState) and isinstance(state.main.run, BoostingRun)
    assert state.main.run.hypotheses == [] and state.main.run.dataset.n_samples == 180
    kinds = [type(c) for c in state.main.callbacks]
    assert kinds == [CoverRecord, ScoreRecord, ScoreRecord]  # cover, validation, training
    assert state.training_record.eval_set.name == "training"
    assert state.folds == []
    assert fit.known["smoothing_"] == state.main.run.smoothing


def test_run_then_result_gives_every_attribute_and_never_touches_the_estimator():
    clf = BoostClassifier(12, early_stopping=True, n_iter_no_change=3, random_state=0)
    before = dict(clf.__dict__)
    fit = Fit(clf, MODES["real"])
    inputs = fit.read_inputs(X, Y)
    state = fit.build(inputs, fit.hold_out(inputs))
    fit.run(state)
    result = fit.result(state)
    assert clf.__dict__ == before  # the fit object changed nothing
    assert isinstance(result, FitResult) and result.state is state
    attributes = result.attributes
    assert len(attributes["model_"]) == attributes["n_estimators_"] == attributes[
        "best_iteration_"]
    assert attributes["n_iter_"] == len(state.main.run.hypotheses)
    for name in ("classes_", "n_features_in_", "feature_kinds_", "history_", "calibrator_",
                 "weak_learner_", "smoothing_", "train_score_", "validation_score_",
                 "evals_result_", "best_score_", "_input", "_multilabel"):
        assert name in attributes, name
    # the estimator adopts them in one store, and predicts as the whole fit does
    clf._adopt(result)
    whole = BoostClassifier(12, early_stopping=True, n_iter_no_change=3,
                            random_state=0).fit(X, Y)
    np.testing.assert_array_equal(clf.predict_proba(X), whole.predict_proba(X))


def test_the_model_is_built_by_the_run():
    clf = BoostClassifier(6, calibration=None, warm_start=True).fit(X, Y)
    run = clf._warm.main.run
    assert clf.model_.to_dict() == run.model().to_dict()
    assert run.model(2).to_dict()["alphas"] == clf.model_.to_dict()["alphas"][:2]


def test_the_kind_of_x_is_decided_once_per_fit_and_never_at_predict(monkeypatch):
    import confboost.training.inputs as inputs

    calls = []
    decide = inputs.is_mixed
    monkeypatch.setattr(inputs, "is_mixed", lambda *a, **k: calls.append(1) or decide(*a, **k))
    clf = BoostClassifier(4, early_stopping=True, random_state=0).fit(X, Y)
    assert len(calls) == 1
    clf.predict(X), clf.predict_proba(X), clf.decision_function(X)
    assert len(calls) == 1


def test_fit_params_are_the_parameter_table():
    from dataclasses import fields

    from confboost.training.fit_state import FitParams
    from confboost.training.params import PARAMETERS

    assert [f.name for f in fields(FitParams)] == list(PARAMETERS)
    params = FitParams.of(BoostClassifier(7, scheme="mr"))
    assert params.n_estimators == 7 and params.scheme == "mr"
    assert params.as_dict() == BoostClassifier(7, scheme="mr").get_params()
