"""The distributed fit (``confboost.dask``) against the local one, on LocalClusters.

The same bins give the same hypotheses (features and thresholds exactly, values to 1e-12)
as ``BoostClassifier`` on the gathered data, for 1, 2 and 3 workers and unevenly sized
partitions, with stumps, trees and Hamming trees; a worker killed in the middle of training
does not change the model.

The tree cases keep clear of exact ties between splits (``min_leaf_weight``, the balanced
start for multiclass Hamming trees, whose first vote under the uniform start makes every
split's gain zero): where two splits of a node have the same gain, the partitions' sums,
added in another order, may pick the other one (the same rows go left, another test).
"""

import os
import signal
import threading

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_multilabel_classification

from confboost import BoostClassifier, load

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
from confboost.dask import DaskBoostClassifier, shards  # noqa: E402
from confboost.dask.collective import tree_code_blocks  # noqa: E402

CHUNKS = (37, 150, 13, 200)  # uneven partitions, 400 rows


def _cluster(n_workers, processes=False):
    return distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                    processes=processes, dashboard_address=None)


# Two workers in make test; one (the local case) and three (an odd split) in the slow tier.
@pytest.fixture(scope="module", params=[pytest.param(1, marks=pytest.mark.slow), 2,
                                        pytest.param(3, marks=pytest.mark.slow)],
                ids=lambda n: f"{n}-workers")
def client(request):
    with _cluster(request.param) as cluster, distributed.Client(cluster) as client:
        yield client


def _data(kind):
    if kind == "multilabel":
        X, y = make_multilabel_classification(400, 6, n_classes=4, random_state=1)
        X = X.astype(np.float64)
    else:
        X, y = make_classification(400, 6, n_informative=4, n_redundant=0,
                                   n_classes=2 if kind == "binary" else 4, random_state=2)
    X[::9, 1] = np.nan  # the missing-value block
    return X, y


def _dask(X, y, sample_weight=None):
    Xd = da.from_array(X, chunks=(CHUNKS, X.shape[1]))
    yd = da.from_array(y, chunks=(CHUNKS,) + ((y.shape[1],) if y.ndim == 2 else ()))
    wd = None if sample_weight is None else da.from_array(sample_weight, chunks=(CHUNKS,))
    return Xd, yd, wd


def _tests(hypothesis):
    """What a hypothesis tests: a stump's column and threshold or value, a tree's nodes and
    a Hamming tree's vote (its saved form, less the confidences)."""
    return {key: value for key, value in hypothesis.to_dict().items()
            if key not in ("values", "leaf_values")}


def _tolerance(params):
    """1e-12; 1e-8 for AdaBoost.MR's real confidences, which a Newton solve stops at a
    relative gradient of 1e-13 (``schemes/mr.pair_confidences``): sums that differ in the
    last bits can take one more step (seen on 2 workers: 6e-11, 9e-10)."""
    real_mr = (params.get("scheme") == "mr" and params.get("alpha", "auto") == "auto"
               and params.get("confidence", "real") in ("real", "real-abstain"))
    return 1e-8 if real_mr else 1e-12


def _assert_same_model(distributed_fit, local_fit, atol=1e-12):
    assert distributed_fit.n_estimators_ == local_fit.n_estimators_
    for mine, theirs in zip(distributed_fit.model_.hypotheses, local_fit.model_.hypotheses,
                            strict=True):
        assert type(mine) is type(theirs)
        assert _tests(mine) == _tests(theirs)
        np.testing.assert_allclose(mine.values, theirs.values, rtol=0, atol=atol)
        np.testing.assert_allclose(mine.cover, theirs.cover, rtol=1e-12)
        if getattr(theirs, "pattern_cover", None) is not None:  # a product's sign patterns
            np.testing.assert_array_equal(mine.pattern_cover[0], theirs.pattern_cover[0])
            np.testing.assert_allclose(mine.pattern_cover[1], theirs.pattern_cover[1],
                                       rtol=1e-12)
    for key in ("alpha", "z", "train_loss", "bound"):  # real MR's to its values' tolerance
        np.testing.assert_allclose(distributed_fit.history_[key], local_fit.history_[key],
                                   rtol=max(atol, 1e-12), atol=1e-12)


@pytest.mark.parametrize("kind, params", [
    ("binary", {}),
    ("binary", {"confidence": "discrete"}),
    ("multiclass", {}),
    ("multiclass", {"init": "balanced", "confidence": "abstain"}),
    ("multilabel", {"learning_rate": 0.5}),
    ("binary", {"scheme": "mo"}),
    ("multiclass", {"scheme": "mo", "random_state": 3}),
    ("multiclass", {"scheme": "mo", "code": "exhaustive", "decoding": "hamming"}),
    ("multiclass", {"scheme": "mr"}),
    ("multiclass", {"scheme": "mr", "confidence": "discrete"}),
    ("multiclass", {"scheme": "mr", "alpha": "exact", "confidence": "real-abstain"}),
    ("binary", {"scheme": "mr"}),
    ("binary", {"weak_learner": "product"}),
    pytest.param("multiclass", {"weak_learner": "product", "product_terms": 2,
                                "confidence": "discrete"}, marks=pytest.mark.slow),
    pytest.param("multiclass", {"weak_learner": "product", "scheme": "mr"},
                 marks=pytest.mark.slow),
])
def test_same_hypotheses_as_one_machine(client, kind, params):
    X, y = _data(kind)
    weights = np.random.default_rng(0).uniform(0.5, 2.0, X.shape[0])
    Xd, yd, wd = _dask(X, y, weights)
    params = {"weak_learner": "stump", **params}  # explicit, whatever the default
    mine = DaskBoostClassifier(n_estimators=15, client=client, **params).fit(Xd, yd, wd)
    # calibrated as locally: the held-out runs on shards of their own
    theirs = BoostClassifier(n_estimators=15, **params).fit(
        X, y, sample_weight=weights)
    _assert_same_model(mine, theirs, _tolerance(params))
    if params.get("scheme") == "mo":
        np.testing.assert_array_equal(mine.code_, theirs.code_)
        assert mine.code_distance_ == theirs.code_distance_
    predicted = mine.predict(Xd)
    assert isinstance(predicted, da.Array)
    np.testing.assert_array_equal(predicted.compute(), theirs.predict(X))
    np.testing.assert_allclose(mine.predict_proba(Xd).compute(), theirs.predict_proba(X),
                               atol=10 * _tolerance(params))
    np.testing.assert_allclose(mine.decision_function(Xd).compute(),
                               theirs.decision_function(X), atol=10 * _tolerance(params))


@pytest.mark.parametrize("kind, params", [
    ("binary", {"weak_learner": "tree", "max_leaves": 8, "min_leaf_weight": 0.02}),
    ("multiclass", {"weak_learner": "tree", "max_depth": 2, "confidence": "discrete"}),
    ("multilabel", {"weak_learner": "tree", "max_leaves": 4, "min_leaf_weight": 0.02}),
    ("multiclass", {"weak_learner": "hamming_tree", "init": "balanced", "max_leaves": 4,
                    "min_leaf_weight": 0.02}),
    ("multilabel", {"weak_learner": "hamming_tree", "max_leaves": 4,
                    "min_leaf_weight": 0.02}),
    ("multiclass", {"weak_learner": "tree", "scheme": "mo", "random_state": 0,
                    "max_leaves": 4, "min_leaf_weight": 0.02}),
    ("multiclass", {"weak_learner": "tree", "scheme": "mr", "max_leaves": 4,
                    "min_leaf_weight": 0.02}),
    ("multiclass", {"weak_learner": "hamming_tree", "scheme": "mr", "init": "balanced",
                    "max_leaves": 4, "min_leaf_weight": 0.02}),
])
def test_same_trees_as_one_machine(client, kind, params):
    """Every node (column, threshold, missing side, children) and vote equal, leaf values,
    covers, α, Z and the losses to 1e-12."""
    X, y = _data(kind)
    weights = np.random.default_rng(1).uniform(0.5, 2.0, X.shape[0])
    Xd, yd, wd = _dask(X, y, weights)
    mine = DaskBoostClassifier(n_estimators=5, client=client, calibration=None,
                               **params).fit(Xd, yd, wd)
    theirs = BoostClassifier(n_estimators=5, **params).fit(X, y, sample_weight=weights)
    _assert_same_model(mine, theirs, _tolerance(params))
    assert max(h.values.shape[0] for h in mine.model_.hypotheses) > 2  # trees, not stumps
    np.testing.assert_allclose(mine.decision_function(Xd).compute(),
                               theirs.decision_function(X), atol=10 * _tolerance(params))


def test_auto_learner_is_resolved_as_on_one_machine(client, monkeypatch):
    """weak_learner="auto" on the total row count: trees above the size, stumps up to it
    (the size lowered to 399 so that the 400 rows take trees)."""
    X, y = _data("multiclass")
    Xd, yd, _ = _dask(X, y)
    assert DaskBoostClassifier().weak_learner == "stump"  # trees need one trip a node
    auto = DaskBoostClassifier(n_estimators=2, client=client, weak_learner="auto")
    assert auto.fit(Xd, yd).weak_learner_ == "stump"
    monkeypatch.setattr("confboost.engine.learners.TREES_ABOVE", X.shape[0] - 1)
    mine = DaskBoostClassifier(n_estimators=3, client=client, weak_learner="auto",
                               max_leaves=4).fit(Xd, yd)
    theirs = BoostClassifier(n_estimators=3, max_leaves=4, calibration=None).fit(X, y)
    assert mine.weak_learner_ == theirs.weak_learner_ == "tree"
    _assert_same_model(mine, theirs)


def test_to_local_save_and_load(client, tmp_path):
    X, y = _data("multiclass")
    Xd, yd, _ = _dask(X, y)
    model = DaskBoostClassifier(n_estimators=5, client=client).fit(Xd, yd)
    local = model.to_local()
    assert type(local) is BoostClassifier
    np.testing.assert_array_equal(local.predict(X), model.predict(Xd).compute())
    model.save(tmp_path / "model.json")
    np.testing.assert_array_equal(load(tmp_path / "model.json").predict(X), local.predict(X))
    again = DaskBoostClassifier.load(tmp_path / "model.json")
    np.testing.assert_array_equal(again.predict(Xd).compute(), local.predict(X))


def test_dataframe_columns_by_name(client):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y = _data("binary")
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    Xd = dd.from_pandas(frame, npartitions=3)
    yd = dd.from_pandas(pd.Series(y), npartitions=3)
    model = DaskBoostClassifier(n_estimators=5, client=client).fit(Xd, yd)
    assert list(model.feature_names_in_) == list(frame.columns)
    np.testing.assert_array_equal(
        model.predict(Xd).compute(), BoostClassifier(n_estimators=5).fit(frame, y).predict(X))


def test_mo_refuses_multilabel_data(client):
    X, y = _data("multilabel")
    Xd, yd, _ = _dask(X, y)
    with pytest.raises(ValueError, match="single-label"):
        DaskBoostClassifier(client=client, scheme="mo").fit(Xd, yd)


def test_bad_input_is_refused_clearly(client):
    X, y = _data("binary")
    with pytest.raises(ValueError, match="dask array"):
        DaskBoostClassifier(client=client).fit(X, y)
    X[3, 2] = np.inf
    Xd, yd, _ = _dask(X, y)
    with pytest.raises(ValueError, match="infinite"):
        DaskBoostClassifier(client=client).fit(Xd, yd)


@pytest.mark.parametrize("params", [{"weak_learner": "stump"},
                                    pytest.param({"weak_learner": "tree", "max_leaves": 4,
                                                  "min_leaf_weight": 0.02},
                                                 marks=pytest.mark.slow),
                                    pytest.param({"weak_learner": "stump", "scheme": "mr"},
                                                 marks=pytest.mark.slow),
                                    pytest.param({"weak_learner": "stump", "trim": 0.2},
                                                 marks=pytest.mark.slow)])
def test_a_lost_worker_does_not_change_the_model(params, monkeypatch):
    """SIGKILL one of two worker processes at round 4: the fit finishes with the model of
    an undisturbed fit (Dask recomputes the lost shards, or they are rebuilt and the rounds
    replayed; a tree is grown again), within the round timeout. A trip a round
    (``TRIP_SECONDS`` 0), so that round 5 is still to run; ``test_dask_batches.py`` kills
    one inside a trip."""
    monkeypatch.setattr(shards, "TRIP_SECONDS", 0.0)
    X, y = _data("multiclass")
    theirs = BoostClassifier(n_estimators=8, **params).fit(X, y)
    with _cluster(2, processes=True) as cluster, distributed.Client(cluster) as client:
        Xd, yd, _ = _dask(X, y)

        def kill_one_worker(round_index, record):
            if round_index == 3:
                pids = sorted(client.run(os.getpid).values())
                os.kill(pids[0], signal.SIGKILL)

        mine = DaskBoostClassifier(n_estimators=8, client=client, timeout=120, **params).fit(
            Xd, yd, callbacks=[kill_one_worker])
    # trimmed real confidences take α by a line search (to rounding: 1e-9, as unkilled)
    _assert_same_model(mine, theirs, 1e-9 if "trim" in params else _tolerance(params))


def test_its_own_parameters_are_validated(client):
    X, y = _data("binary")
    Xd, yd, _ = _dask(X, y)
    with pytest.raises(ValueError, match="timeout"):
        DaskBoostClassifier(client=client, timeout=-1).fit(Xd, yd)


def test_tree_code_blocks_are_the_growths_leaves():
    """The walk on bin and value codes (how every partition finds its rows' leaves) puts
    each row in the leaf the local growth put it in, missing values included, on a table
    whose tree splits on thresholds and on values."""
    from confboost.data.columns import FrameEncoder
    from confboost.data.dataset import LabelSigns
    from confboost.engine.learners.base import label_masses
    from confboost.engine.learners.grower import HistogramPool, LocalRows, WorkArrays, grow_tree
    from confboost.engine.learners.splitter import NodeSplits
    from confboost.engine.learners.tree import label_histograms
    from confboost.kernels.criterion_numpy import REAL
    from confboost.utils.dtypes import NODE_THRESHOLD, NODE_VALUE
    from confboost.utils.threads import numba_threads

    frame, y = _table("multiclass")
    dataset = FrameEncoder.from_table(frame).fit_dataset(frame, 255)
    signs = np.where(y[:, None] == np.arange(4), 1, -1).astype(np.int8)
    labels = LabelSigns.from_signs(signs)
    weights = np.random.default_rng(3).uniform(0.1, 1.0, signs.shape)
    weights /= weights.sum()
    pos, neg = label_masses(weights, labels)
    rows = LocalRows(dataset, label_histograms(dataset, weights, labels, pos, neg),
                     NodeSplits(dataset, pos, neg, REAL, 0.0, WorkArrays()))
    with numba_threads(1):  # a small fit's serial builds, which other tests compile too
        tree = grow_tree(rows, dataset.n_bins, 4, REAL, 16, None, 0.0, HistogramPool())
    assert tree.n_leaves == 16
    assert {NODE_THRESHOLD, NODE_VALUE} <= set(tree.kind.tolist())
    blocks = tree_code_blocks(dataset, tree.kind, tree.feature, tree.threshold_bin,
                              tree.missing_left, tree.left, tree.right)
    np.testing.assert_array_equal(blocks, tree.train_blocks)


# --- tables: numeric and categorical columns --------------------------------------------

DIVISIONS = (0, 37, 187, 200, 399)  # the row index bounds of CHUNKS' partitions


def _table(kind):
    """A table of 400 rows: continuous columns (one with NaN), a string column of 6 values
    with missing ones, one of them ("rare") only in the third partition, and a category
    column; labels that depend on both kinds."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    n = 400
    city = rng.choice(["oslo", "rome", "lima", "kyiv", "pune"], n).astype(object)
    city[190:198] = "rare"
    city[rng.random(n) < 0.1] = None
    frame = pd.DataFrame({
        "size": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
        "city": city,
        "grade": pd.Categorical(rng.choice(["lo", "mid", "hi"], n)),
        "count": rng.integers(0, 5, n),
    })
    signal = (frame["size"].fillna(0).to_numpy() + 1.2 * (city == "rome")
              - 0.8 * (frame["grade"] == "lo").to_numpy() + rng.normal(0, 0.6, n))
    if kind == "binary":
        return frame, (signal > 0).astype(int)
    if kind == "multiclass":
        return frame, np.digitize(signal, np.quantile(signal, [0.25, 0.5, 0.75]))
    labels = np.stack([signal > 0, (city == "lima") | (frame["count"] > 2),
                       rng.random(n) < 0.3 + 0.4 * (frame["grade"] == "hi")], axis=1)
    return frame, labels.astype(int)


def _dask_table(frame, y, sample_weight=None):
    dd = pytest.importorskip("dask.dataframe")
    Xd = dd.from_pandas(frame, npartitions=1).repartition(divisions=list(DIVISIONS))
    assert tuple(Xd.map_partitions(len).compute()) == CHUNKS
    _, yd, wd = _dask(np.empty((len(frame), 1)), y, sample_weight)
    return Xd, yd, wd


@pytest.mark.parametrize("kind, params", [
    ("binary", {}),
    ("multiclass", {"confidence": "abstain", "init": "balanced"}),
    ("multilabel", {"learning_rate": 0.5}),
    ("multiclass", {"scheme": "mo", "random_state": 3}),
    ("binary", {"feature_types": {"count": "categorical", "size": "ignore"}}),
    ("binary", {"weak_learner": "tree", "max_leaves": 8, "min_leaf_weight": 0.02}),
    ("multiclass", {"weak_learner": "tree", "max_depth": 2, "confidence": "discrete"}),
    ("multilabel", {"weak_learner": "tree", "max_leaves": 4, "min_leaf_weight": 0.02}),
    ("multiclass", {"weak_learner": "hamming_tree", "init": "balanced", "max_leaves": 4,
                    "min_leaf_weight": 0.02}),
    ("binary", {"weak_learner": "tree", "max_leaves": 4, "min_leaf_weight": 0.02,
                "feature_types": {"size": "ignore", "count": "ignore"}}),
])
def test_same_model_on_a_table(client, kind, params):
    """A dask DataFrame with categorical columns: the same stumps, value tests and trees as
    ``BoostClassifier`` on the pandas table, equal predictions, also on rows with values
    unseen in training and missing ones."""
    pd = pytest.importorskip("pandas")
    rounds = 5 if "weak_learner" in params else 12
    params = {"weak_learner": "stump", **params}  # explicit, whatever the default
    frame, y = _table(kind)
    weights = np.random.default_rng(2).uniform(0.5, 2.0, len(frame))
    Xd, yd, wd = _dask_table(frame, y, weights)
    mine = DaskBoostClassifier(n_estimators=rounds, client=client, calibration=None,
                               **params).fit(Xd, yd, wd)
    theirs = BoostClassifier(n_estimators=rounds, calibration=None, **params).fit(
        frame, y, sample_weight=weights)
    _assert_same_model(mine, theirs)
    types = {h.to_dict()["type"] for h in mine.model_.hypotheses}
    kinds = {kind for h in mine.model_.hypotheses for kind in h.to_dict().get("kind", [])}
    assert "categorical" in types or "value" in kinds  # a value test was chosen
    assert mine.feature_kinds_.tolist() == theirs.feature_kinds_.tolist()
    assert mine.feature_names_in_.tolist() == list(frame.columns)
    new = pd.DataFrame({"size": [0.3, np.nan, -1.0], "city": ["atlantis", None, "rome"],
                        "grade": pd.Categorical(["mid", "lo", None]), "count": [1, 9, 2]})
    dd = pytest.importorskip("dask.dataframe")
    for rows, rows_dask in ((frame, Xd), (new, dd.from_pandas(new, npartitions=2))):
        predicted = mine.predict(rows_dask)
        assert isinstance(predicted, da.Array)
        np.testing.assert_array_equal(predicted.compute(), theirs.predict(rows))
        np.testing.assert_allclose(mine.decision_function(rows_dask).compute(),
                                   theirs.decision_function(rows), atol=1e-12)


def test_categorical_values_compare_by_the_local_rule(client):
    """202, 202.0 and "202" in one object column, spread over the partitions, are one value
    on the cluster as on one machine (``category_values.value_text``), and the fitted
    encoder reads values at prediction as the local one does."""
    pd = pytest.importorskip("pandas")
    dask = pytest.importorskip("dask")
    from confboost.dask.partitions import table_columns

    frame, y = _table("binary")
    rows = np.arange(len(frame))
    code = np.array([202, 202.0, "202", 7, 7.5, "x"], dtype=object)[rows % 6]
    y = np.where(rows % 6 < 3, 1, y)  # the class of every 202, however spelled
    frame = frame.assign(code=code)
    with dask.config.set({"dataframe.convert-string": False}):  # keep the objects
        Xd, yd, _ = _dask_table(frame, y)
    params = {"n_estimators": 8, "weak_learner": "stump",
              "feature_types": {"code": "categorical"}}
    encoder, vocabularies = table_columns(client, Xd, params["feature_types"])
    assert vocabularies[4] == ["202", "7", "7.5", "x"]
    mine = DaskBoostClassifier(client=client, calibration=None, **params).fit(Xd, yd)
    theirs = BoostClassifier(calibration=None, **params).fit(frame, y)
    assert encoder.values == theirs.encoder_.values == mine.encoder_.values
    _assert_same_model(mine, theirs)
    assert "202" in {h.to_dict().get("value") for h in mine.model_.hypotheses}
    new = pd.DataFrame({"size": [0.1, 0.1], "city": ["rome", "rome"],
                        "grade": pd.Categorical(["lo", "lo"]), "count": [1, 1],
                        "code": ["202", 202.0]})
    np.testing.assert_allclose(mine.to_local().decision_function(new),
                               theirs.decision_function(new), atol=1e-12)


def test_table_to_local_save_and_load(client, tmp_path):
    frame, y = _table("multiclass")
    Xd, yd, _ = _dask_table(frame, y)
    model = DaskBoostClassifier(n_estimators=6, client=client, calibration=None,
                                weak_learner="tree", max_leaves=4).fit(Xd, yd)
    local = model.to_local()
    assert type(local) is BoostClassifier
    assert local.feature_kinds_.tolist() == ["continuous", "categorical", "categorical",
                                             "continuous"]
    np.testing.assert_array_equal(local.predict(frame), model.predict(Xd).compute())
    model.save(tmp_path / "model.json")
    np.testing.assert_array_equal(load(tmp_path / "model.json").predict(frame),
                                  local.predict(frame))
    again = DaskBoostClassifier.load(tmp_path / "model.json")
    np.testing.assert_array_equal(again.predict(Xd).compute(), local.predict(frame))


def test_table_input_is_refused_clearly(client):
    frame, y = _table("binary")
    Xd, yd, _ = _dask_table(frame, y)
    with pytest.raises(ValueError, match="feature_types names columns.*'nope'"):
        DaskBoostClassifier(client=client, feature_types={"nope": "categorical"}).fit(Xd, yd)
    with pytest.raises(ValueError, match="text_expert names columns that are not text"):
        DaskBoostClassifier(client=client, text_expert={"city": None}).fit(Xd, yd)
    with pytest.raises(ValueError, match="feature_types needs X to be a dask DataFrame"):
        DaskBoostClassifier(client=client, feature_types={"a": "ignore"}).fit(
            *_dask(*_data("binary"))[:2])



def test_a_worker_without_partitions_changes_nothing():
    """Three workers, two partitions: one worker holds no rows, and the model is the local
    one (LightGBM-Dask users meet a hang or an error here)."""
    X, y = _data("binary")
    theirs = BoostClassifier(n_estimators=8).fit(X, y)
    with _cluster(3) as cluster, distributed.Client(cluster) as client:
        Xd = da.from_array(X, chunks=(X.shape[0] // 2, X.shape[1]))
        yd = da.from_array(y, chunks=(X.shape[0] // 2,))
        assert Xd.npartitions == 2
        mine = DaskBoostClassifier(n_estimators=8, client=client, calibration=None).fit(Xd, yd)
    _assert_same_model(mine, theirs)


def test_two_fits_at_once_on_one_cluster_give_their_own_models(client):
    """Two fits from two threads share the cluster; each gets the model of its own data."""
    problems = {"binary": _data("binary"), "multiclass": _data("multiclass")}
    params = {"n_estimators": 6, "weak_learner": "tree", "max_leaves": 4}
    fitted, errors = {}, []

    def fit(kind):
        try:
            Xd, yd, _ = _dask(*problems[kind])
            fitted[kind] = DaskBoostClassifier(client=client, calibration=None,
                                               **params).fit(Xd, yd)
        except Exception as error:  # reported below, in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=fit, args=(kind,)) for kind in problems]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors and not any(thread.is_alive() for thread in threads)
    for kind, (X, y) in problems.items():
        _assert_same_model(fitted[kind], BoostClassifier(**params).fit(X, y))
