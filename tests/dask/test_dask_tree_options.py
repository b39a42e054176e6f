"""Trees on the cluster with every option: a tree per label (``weak_learner="label_trees"``,
``dask/cluster_label_trees.py``), and trees and Hamming trees on tables with text columns
(a node's term masses and a Hamming tree's term margins allreduced per term of the common
vocabulary by the local splitter and learner).

Without a cluster (local = one shard, ``test_dask_seam``'s shards in this process): one
shard gives the local model bit for bit, three shards whose ranks run in threads over the
collective's sockets give it to rounding. On a two-worker ``LocalCluster``:
``DaskBoostClassifier`` gives ``BoostClassifier``'s model (f within 1e-9), ``"auto"``
chooses a tree per label where the local fit does, and a round of k trees is one trip.
"""

import dataclasses

import numpy as np
import pytest

from confboost import BoostClassifier
from confboost.data.columns import FrameEncoder
from confboost.data.dataset import LabelSigns
from confboost.training.checkpoint import Checkpoint

distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")
dd = pytest.importorskip("dask.dataframe")
from confboost.dask.cluster_fit import ClusterCover  # noqa: E402
from confboost.dask.cluster_label_trees import (  # noqa: E402
    label_tree_blocks,
    label_trees_recipe,
)
from confboost.dask.collective import CollectiveReducer  # noqa: E402
from confboost.dask.dask_classifier import DaskBoostClassifier  # noqa: E402
from confboost.dask.link import Link  # noqa: E402
from confboost.dask.round_learner import RoundSpec  # noqa: E402
from confboost.dask.shards import ClusterReducer, Shard  # noqa: E402
from confboost.dask.text import ColumnVocabulary  # noqa: E402
from confboost.engine.boosting import BoostingRun  # noqa: E402
from confboost.engine.learners import make_learner  # noqa: E402
from confboost.explain.contributions import record_cover  # noqa: E402
from confboost.kernels.criterion_numpy import MODES  # noqa: E402
from tests.dask.test_dask import _cluster, _dask, _data  # noqa: E402
from tests.dask.test_dask_checkpoint import Rounds  # noqa: E402
from tests.dask.test_dask_seam import (  # noqa: E402
    InProcessShards,
    _header_scheme,
    _schemes,
)
from tests.dask.test_dask_seam import _table as _numeric_table  # noqa: E402
from tests.dask.test_dask_trips import shards_made  # noqa: E402

TREE = {"max_leaves": 6, "max_depth": None, "min_leaf_weight": 0.02}
WORDS = np.array("alpha beta gamma delta eps zeta eta theta".split())


def _text_table(n=300, seed=0):
    """A numeric and a text column (every 13th text missing), three classes that depend on
    both, a fifth of the labels drawn at random (no node is pure: no split of a tree wins
    by rounding alone)."""
    rng = np.random.default_rng(seed)
    docs = np.array([" ".join(rng.choice(WORDS, rng.integers(1, 5))) for _ in range(n)],
                    dtype=object)
    docs[::13] = None
    x = rng.normal(size=n)
    y = ((x > 0.3).astype(int) + np.array([doc is not None and "beta" in doc
                                           for doc in docs])) % 3
    flip = rng.random(n) < 0.2
    y[flip] = rng.integers(0, 3, flip.sum())
    return {"x": x, "note": docs}, y


def _shard_rows(dataset, rows, documents, experts):
    """A shard's Dataset of ``rows``: the codes, value codes and the text columns' postings
    over the common vocabulary (``ColumnVocabulary.of_rows``, as ``shards.make_shard``)."""
    return dataclasses.replace(
        dataset, codes=np.ascontiguousarray(dataset.codes[:, rows]), n_samples=rows.size,
        categorical=[dataclasses.replace(c, codes=c.codes[rows]) for c in dataset.categorical],
        text=[ColumnVocabulary(c.column, c.terms, experts[c.column]).of_rows(
            documents[c.column][rows]) for c in dataset.text])


def _runs(learner, scheme, table, n_shards, rounds=10):
    """(the local run, the run over ``n_shards`` shards) of ``learner`` on ``table``
    ("text": ``_text_table``; "values": ``test_dask_seam``'s numeric and categorical)."""
    if table == "text":
        columns, y = _text_table()
        encoder = FrameEncoder.from_table(columns, {"note": "text"})
        dataset = encoder.fit_dataset(columns, 64)
        experts, documents = encoder.experts, {1: columns["note"]}
    else:
        dataset, y = _numeric_table(3, True)
        experts, documents = {}, {}
    weight = np.linspace(0.5, 2.0, y.size)
    mode = MODES["real"]
    local = BoostingRun(dataset, _schemes(scheme, y, weight),
                        make_learner(learner, dataset, mode, 0.01, **TREE), "auto", mode, 0.01)
    total = weight.sum() if n_shards > 1 else None
    shards = InProcessShards([
        Shard(_shard_rows(dataset, rows, documents, experts),
              _schemes(scheme, y[rows], weight[rows], total), weight[rows])
        for rows in np.array_split(np.arange(y.size), n_shards)])
    reducer = ClusterReducer(shards)
    header = dataclasses.replace(
        dataset, codes=dataset.codes[:, :0],
        categorical=[dataclasses.replace(c, codes=c.codes[:0]) for c in dataset.categorical],
        text=[ColumnVocabulary(c.column, c.terms, experts[c.column]) for c in dataset.text])
    sharded = BoostingRun(header, _header_scheme(scheme, weight, reducer), reducer.learner(
        RoundSpec(learner, mode, 0.01, "auto", 1.0, {"n_terms": 3, **TREE})), "auto", mode,
        0.01)
    local.run(rounds, [lambda env: record_cover(env.record["fit"], weight)])
    sharded.run(rounds, [ClusterCover(reducer)])
    return local, sharded


def _structure(hypothesis):
    """A hypothesis' saved form less its confidences (each label tree's too)."""
    data = hypothesis.to_dict()
    if "trees" in data:
        data["trees"] = [_structure_of(tree) for tree in data["trees"]]
    return _structure_of(data)


def _structure_of(data):
    return {key: value for key, value in data.items() if key not in ("values", "leaf_values")}


CASES = [("label_trees", "mh", "values"), ("label_trees", "mo", "values"),
         ("tree", "mh", "text"), ("tree", "mr", "text"), ("hamming_tree", "mh", "text"),
         ("hamming_tree", "mr", "text"), ("label_trees", "mh", "text")]

#: The three-shard cases of the quick tier (the others in the slow one).
QUICK = CASES[0], CASES[2], CASES[4]


@pytest.mark.parametrize("learner, scheme, table", [
    case if case != CASES[1] else pytest.param(*case, marks=pytest.mark.slow)
    for case in CASES])
def test_local_and_one_shard_give_the_same_model_bit_for_bit(learner, scheme, table):
    local_run, shard_run = _runs(learner, scheme, table, 1)
    for mine, theirs in zip(shard_run.hypotheses, local_run.hypotheses, strict=True):
        assert mine.to_dict() == theirs.to_dict()
        assert np.array_equal(mine.values, theirs.values)
        assert np.array_equal(mine.cover, theirs.cover)
    for key, values in local_run.history.items():
        assert np.array_equal(shard_run.history[key], values), key
    saved = [h.to_dict() for h in local_run.hypotheses]
    if table == "text":  # the trees split on the text column's terms
        assert any("term" in str(each) for each in saved)
    else:
        assert {each["type"] for each in saved} == {"label_trees"}


@pytest.mark.parametrize("learner, scheme, table", [
    case if case in QUICK else pytest.param(*case, marks=pytest.mark.slow) for case in CASES])
def test_three_shards_over_the_collective_give_the_local_model(learner, scheme, table):
    """The same tests in every round, f, the covers and the history to rounding (real MR's
    confidences to 1e-8, where its Newton solve stops)."""
    local_run, shard_run = _runs(learner, scheme, table, 3)
    atol = 1e-8 if scheme == "mr" else 1e-9
    for mine, theirs in zip(shard_run.hypotheses, local_run.hypotheses, strict=True):
        assert _structure(mine) == _structure(theirs)
        np.testing.assert_allclose(mine.values, theirs.values, rtol=0, atol=atol)
        np.testing.assert_allclose(mine.cover, theirs.cover, rtol=1e-12)
    for key, values in local_run.history.items():
        np.testing.assert_allclose(shard_run.history[key], values, rtol=atol, atol=1e-12)


def test_label_tree_blocks_are_the_learners_blocks():
    """A round's blocks made again from its trees' node arrays (a replay, a checkpoint's
    resume, the covers) are the ones the learner gave its scheme."""
    columns, y = _text_table()
    encoder = FrameEncoder.from_table(columns, {"note": "text"})
    dataset = encoder.fit_dataset(columns, 64)
    weights = np.full((y.size, 3), 1.0 / (3 * y.size))
    signs = np.where(y[:, None] == np.arange(3), 1, -1).astype(np.int8)
    reducer = CollectiveReducer(Link(0, 1))
    learner = make_learner("label_trees", dataset, MODES["real"], 0.01, reducer=reducer,
                           **TREE)
    fit = learner.fit(dataset, weights, LabelSigns.from_signs(signs))
    recipe = label_trees_recipe(learner.grown)
    assert recipe.function is label_tree_blocks
    assert fit.train_blocks.shape == (y.size, 3)
    assert np.array_equal(recipe.on(dataset), fit.train_blocks)
    assert np.array_equal(fit.hypothesis.blocks(encoder.transform(columns)), fit.train_blocks)


# -- on a LocalCluster ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def client():
    with _cluster(2) as cluster, distributed.Client(cluster) as client:
        yield client


def _counted_fit(client, monkeypatch, n_estimators, X, y, **params):
    """(the client's waits for rounds, the model) of a fit on one set of shards: its waits
    less the set-up's (the shards' placement, and rank 0's listening socket where the
    partitions landed on more than one worker)."""
    made = shards_made(monkeypatch)
    model = DaskBoostClassifier(n_estimators=n_estimators, client=client, calibration=None,
                                **params).fit(X, y)
    assert len(made) == 1
    return made[0].trips - 1 - (len(made[0].workers) > 1), model


def _assert_same(mine, theirs, atol=1e-9):
    assert mine.n_estimators_ == theirs.n_estimators_
    for a, b in zip(mine.model_.hypotheses, theirs.model_.hypotheses, strict=True):
        assert _structure(a) == _structure(b)
        np.testing.assert_allclose(a.values, b.values, rtol=0, atol=atol)
        np.testing.assert_allclose(a.cover, b.cover, rtol=1e-12)
    for key in ("alpha", "z", "train_loss"):
        np.testing.assert_allclose(mine.history_[key], theirs.history_[key], rtol=atol)


def test_a_tree_per_label_gives_the_local_model_in_one_trip_a_round(client, monkeypatch):
    X, y = _data("multiclass")
    Xd, yd, _ = _dask(X, y)
    params = {"weak_learner": "label_trees", "max_leaves": 4}
    trips, mine = _counted_fit(client, monkeypatch, 3, Xd, yd, **params)
    assert trips == 3  # a round of four trees: one trip
    theirs = BoostClassifier(n_estimators=3, calibration=None, **params).fit(X, y)
    assert mine.weak_learner_ == "label_trees" and mine.learning_rate_ == 0.5
    _assert_same(mine, theirs)
    np.testing.assert_allclose(mine.decision_function(Xd).compute(),
                               theirs.decision_function(X), rtol=0, atol=1e-9)


def test_auto_grows_a_tree_per_label_where_the_local_fit_does(client, monkeypatch):
    """``"auto"`` on many features × classes (the bounds lowered to this data's size):
    a tree per label on the cluster as locally."""
    X, y = _data("multiclass")
    monkeypatch.setattr("confboost.engine.learners.TREES_ABOVE", X.shape[0] - 1)
    monkeypatch.setattr("confboost.training.params.LARGE_CELLS", 6 * 4 - 1)
    params = {"weak_learner": "auto", "max_leaves": 3, "calibration": None}
    Xd, yd, _ = _dask(X, y)
    mine = DaskBoostClassifier(n_estimators=3, client=client, **params).fit(Xd, yd)
    theirs = BoostClassifier(n_estimators=3, **params).fit(X, y)
    assert mine.weak_learner_ == theirs.weak_learner_ == "label_trees"
    _assert_same(mine, theirs)


def _dask_table(columns, y, npartitions=3):
    frame = pd.DataFrame(columns)
    return (dd.from_pandas(frame, npartitions=npartitions),
            dd.from_pandas(pd.Series(y), npartitions=npartitions)), frame


@pytest.mark.parametrize("params", [
    {"weak_learner": "tree"},
    pytest.param({"weak_learner": "tree", "scheme": "mr"}, marks=pytest.mark.slow),
    pytest.param({"weak_learner": "hamming_tree"}, marks=pytest.mark.slow),
    pytest.param({"weak_learner": "label_trees"}, marks=pytest.mark.slow),
], ids=["tree-mh", "tree-mr", "hamming-mh", "label-trees-mh"])
def test_trees_on_a_text_column_give_the_local_model(client, params):
    columns, y = _text_table(400, seed=1)
    (Xd, yd), frame = _dask_table(columns, y)
    params = {"n_estimators": 6, "calibration": None, "max_leaves": 5,
              "min_leaf_weight": 0.02, "feature_types": {"note": "text"}, **params}
    theirs = BoostClassifier(**params).fit(frame, y)
    assert "term" in str([h.to_dict() for h in theirs.model_.hypotheses])
    mine = DaskBoostClassifier(client=client, **params).fit(Xd, yd)
    _assert_same(mine, theirs, 1e-8 if params.get("scheme") == "mr" else 1e-9)
    np.testing.assert_allclose(mine.decision_function(frame), theirs.decision_function(frame),
                               rtol=0, atol=1e-8)


@pytest.mark.slow
def test_products_on_text_columns_are_refused_as_locally(client):
    columns, y = _text_table(100)
    (Xd, yd), frame = _dask_table(columns, y)
    params = {"weak_learner": "product", "n_estimators": 2, "feature_types": {"note": "text"}}
    with pytest.raises(ValueError, match="product.*numeric features") as local:
        BoostClassifier(**params).fit(frame, y)
    with pytest.raises(ValueError, match="product.*numeric features") as cluster:
        DaskBoostClassifier(client=client, **params).fit(Xd, yd)
    assert str(cluster.value) == str(local.value)


@pytest.mark.slow
def test_a_resumed_tree_per_label_is_the_uninterrupted_one(client, tmp_path):
    """A checkpoint saves each round's trees' node arrays (``label_tree_blocks``, a function
    a file may name); a resume makes the blocks again on its shards: the local model, the
    restored rounds' covers included."""
    X, y = _data("multiclass")
    Xd, yd, _ = _dask(X, y)
    params = {"calibration": None, "weak_learner": "label_trees", "max_leaves": 4}
    path = tmp_path / "run.ckpt"
    DaskBoostClassifier(3, client=client, **params).fit(
        Xd, yd, callbacks=[Checkpoint(path, every=3)])
    rounds = Rounds()
    resumed = DaskBoostClassifier(5, client=client, **params).fit(
        Xd, yd, callbacks=[Checkpoint(path, every=3), rounds])
    assert rounds.run == [3, 4]  # the first three restored
    _assert_same(resumed, BoostClassifier(5, **params).fit(X, y))
