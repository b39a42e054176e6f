"""The local fit's options on Dask (``dask/cluster_fit.py``): each gives the local model.

``DaskBoostClassifier`` runs ``training.fit_runs.Fit``, the local fit path, with the rows on
the workers: ``eval_set`` (dask collections or arrays) with early stopping and the
evaluation history, ``class_weight``, ``warm_start`` and calibration on the eval set give
``BoostClassifier``'s model, scores and probabilities on the gathered data (to 1e-9). One
two-worker cluster serves the module.
"""

import numpy as np
import pytest

from confboost import BoostClassifier

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
from confboost.dask import DaskBoostClassifier  # noqa: E402
from tests.dask.test_dask import _assert_same_model, _cluster, _dask, _data  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with _cluster(2) as cluster, distributed.Client(cluster) as client:
        yield client


def _split(kind, held_out=100):
    X, y = _data(kind)
    return X[held_out:], y[held_out:], X[:held_out], y[:held_out]


def _dask_pair(X, y, chunk=40):
    return (da.from_array(X, chunks=(chunk, X.shape[1])),
            da.from_array(y, chunks=(chunk,) + y.shape[1:]))


def _assert_same_scores(mine, theirs):
    """The fit's scores and probabilities as well as its model."""
    _assert_same_model(mine, theirs, 1e-9)
    assert mine.best_iteration_ == theirs.best_iteration_
    for key in ("validation_score_", "train_score_"):
        np.testing.assert_allclose(getattr(mine, key), getattr(theirs, key), rtol=1e-9)
    assert mine.evals_result_.keys() == theirs.evals_result_.keys()
    for name, metrics in theirs.evals_result_.items():
        for metric, values in metrics.items():
            np.testing.assert_allclose(mine.evals_result_[name][metric], values, rtol=1e-9)


@pytest.mark.parametrize("kind, params", [
    ("multiclass", {"early_stopping": True, "n_iter_no_change": 2}),
    pytest.param("binary", {"scoring": "roc_auc", "weak_learner": "tree", "max_leaves": 4,
                            "min_leaf_weight": 0.02}, marks=pytest.mark.slow),
    pytest.param("multilabel", {"early_stopping": True, "n_iter_no_change": 2},
                 marks=pytest.mark.slow),
])
def test_eval_set_and_early_stopping_give_the_local_fit(client, kind, params):
    """A dask eval_set and an in-memory one: the same rounds kept, the same validation and
    training scores, the same calibrated probabilities as the local fit."""
    X, y, Xv, yv = _split(kind)
    params = {"n_estimators": 60, **params}
    theirs = BoostClassifier(**params).fit(X, y, eval_set=[(Xv, yv)])
    Xd, yd = _dask_pair(X, y)
    mine = DaskBoostClassifier(client=client, **params).fit(Xd, yd,
                                                            eval_set=[_dask_pair(Xv, yv)])
    _assert_same_scores(mine, theirs)
    assert mine.calibrator_ is not None
    np.testing.assert_allclose(mine.predict_proba(Xv), theirs.predict_proba(Xv), rtol=1e-9)
    if params.get("early_stopping"):  # the pair in memory: the same fit
        again = DaskBoostClassifier(client=client, **params).fit(Xd, yd, eval_set=(Xv, yv))
        _assert_same_scores(again, theirs)


@pytest.mark.parametrize("kind", ["multiclass",
                                  pytest.param("multilabel", marks=pytest.mark.slow)])
def test_early_stopping_on_held_out_training_rows(client, kind):
    """``early_stopping=True`` without an eval_set: the local fit's validation rows held
    out (the main run trains on shards of the other rows, binned on them), the same rounds,
    scores and calibrated probabilities."""
    X, y = _data(kind)
    params = {"n_estimators": 60, "early_stopping": True, "n_iter_no_change": 2}
    theirs = BoostClassifier(**params).fit(X, y)
    assert theirs.n_estimators_ < params["n_estimators"]
    mine = DaskBoostClassifier(client=client, **params).fit(*_dask(X, y)[:2])
    _assert_same_scores(mine, theirs)
    np.testing.assert_allclose(mine.predict_proba(X), theirs.predict_proba(X), rtol=1e-9)


@pytest.mark.parametrize("class_weight", ["balanced",
                                          pytest.param({0: 3.0, 2: 0.5},
                                                       marks=pytest.mark.slow)])
def test_class_weight_gives_the_local_fit(client, class_weight):
    X, y = _data("multiclass")
    y = np.where((y == 1) & (np.arange(y.size) % 3 > 0), 0, y)  # unbalanced classes
    params = {"n_estimators": 6, "class_weight": class_weight, "calibration": None}
    theirs = BoostClassifier(**params).fit(X, y)
    mine = DaskBoostClassifier(client=client, **params).fit(*_dask(X, y)[:2])
    _assert_same_model(mine, theirs, 1e-9)
    np.testing.assert_allclose(mine.smoothing_, theirs.smoothing_, rtol=1e-12)


def test_warm_start_continues_the_fit_on_the_cluster(client):
    """3 rounds then 7, with the shards kept between the fits: the local 7-round model;
    other data is refused by name."""
    X, y = _data("binary")
    Xd, yd, _ = _dask(X, y)
    params = {"calibration": None, "weak_learner": "tree", "max_leaves": 4,
              "min_leaf_weight": 0.02}
    theirs = BoostClassifier(7, **params).fit(X, y)
    mine = DaskBoostClassifier(3, client=client, warm_start=True, **params).fit(Xd, yd)
    mine.set_params(n_estimators=7).fit(Xd, yd)
    _assert_same_model(mine, theirs, 1e-9)
    with pytest.raises(ValueError, match="warm_start continues the previous fit.*differ"):
        mine.fit(*_dask(X, 1 - y)[:2])


def test_bin_rows_none_bins_every_row(client):
    """``bin_rows=None``: the quantiles of every row (here the local fit's bins, which
    are every row's below 200,000 rows); a smaller sample is honoured and bins otherwise."""
    X, y = _data("binary")
    Xd, yd, _ = _dask(X, y)
    params = {"n_estimators": 5, "calibration": None}
    theirs = BoostClassifier(max_bins=16, **params).fit(X, y)
    exact = DaskBoostClassifier(client=client, bin_rows=None, max_bins=16, **params)
    _assert_same_model(exact.fit(Xd, yd), theirs, 1e-9)
    sampled = DaskBoostClassifier(client=client, bin_rows=60, max_bins=16, **params)
    thresholds = [h.to_dict().get("threshold") for h in sampled.fit(Xd, yd).model_.hypotheses]
    assert thresholds != [h.to_dict().get("threshold") for h in theirs.model_.hypotheses]


@pytest.mark.slow
@pytest.mark.parametrize("given", [True, False], ids=["eval_set", "validation_fraction"])
def test_a_table_with_eval_set_early_stopping_and_class_weight(client, given):
    """A dask DataFrame with categorical columns, a dask DataFrame eval_set (or held-out
    training rows), balanced class weights: the local fit's rounds, scores (the training
    score's rows gathered from the table's partitions) and probabilities."""
    dd = pytest.importorskip("dask.dataframe")
    from tests.dask.test_dask import _dask_table, _table

    frame, y = _table("multiclass")
    held = frame.iloc[::3].reset_index(drop=True)
    params = {"n_estimators": 40, "early_stopping": True, "n_iter_no_change": 2,
              "class_weight": "balanced"}
    theirs = BoostClassifier(**params).fit(
        frame, y, eval_set=[(held, y[::3])] if given else None)
    Xd, yd, _ = _dask_table(frame, y)
    mine = DaskBoostClassifier(client=client, **params).fit(
        Xd, yd, eval_set=[(dd.from_pandas(held, npartitions=2), y[::3])] if given else None)
    _assert_same_scores(mine, theirs)
    np.testing.assert_allclose(mine.predict_proba(held), theirs.predict_proba(held),
                               rtol=1e-9)


@pytest.mark.parametrize("kind, n_rows, params", [
    ("binary", 400, {}),  # cross-fitted: 3 short runs, every training row held out once
    ("multiclass", 3000, {}),  # one held-out tenth (above 2,500 rows)
    pytest.param("multilabel", 400, {"weak_learner": "tree", "max_leaves": 4,
                                     "min_leaf_weight": 0.02}, marks=pytest.mark.slow),
    pytest.param("multiclass", 3000, {"scheme": "mo", "class_weight": "balanced",
                                   "random_state": 3},
                 marks=pytest.mark.slow),
])
def test_the_default_fit_is_calibrated_as_the_local_one(client, kind, n_rows, params):
    """Without an eval_set: the calibration runs on the held-out rows that the local fit
    holds out, each on shards of its own and the main run's bins; the same temperature and
    probabilities."""
    from sklearn.datasets import make_classification, make_multilabel_classification

    if kind == "multilabel":
        X, y = make_multilabel_classification(n_rows, 6, n_classes=3, random_state=1)
    else:
        X, y = make_classification(n_rows, 6, n_informative=4, n_redundant=0,
                                   n_classes=2 if kind == "binary" else 3, random_state=2)
    params = {"n_estimators": 20, "weak_learner": "stump", **params}
    theirs = BoostClassifier(**params).fit(X, y)
    Xd, yd = _dask_pair(X.astype(np.float64), y, chunk=n_rows // 3 + 1)
    mine = DaskBoostClassifier(client=client, **params).fit(Xd, yd)
    _assert_same_model(mine, theirs, 1e-9)
    assert mine.calibrator_ is not None
    assert mine.calibrator_.slope == pytest.approx(theirs.calibrator_.slope, rel=1e-9)
    np.testing.assert_allclose(mine.predict_proba(X), theirs.predict_proba(X), rtol=1e-9)
    uncalibrated = BoostClassifier(**params, calibration=None).fit(X, y).predict_proba(X)
    assert np.abs(mine.predict_proba(X) - uncalibrated).max() > 1e-3
