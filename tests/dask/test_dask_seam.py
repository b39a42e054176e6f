"""Local = one shard: the engine's learners and schemes run as the Dask layer runs them
(``collective.run_round`` on each shard, the client's scheme of no rows reading the
round's log through ``ClusterReducer``), with the shards held in this process (no
cluster). One shard gives the local model bit for bit (every allreduce of one rank is the
identity); three shards, their ranks in threads over the collective's sockets, give it to
rounding. Stumps on a table (with a text column: the term learner), trimmed stumps, trees,
Hamming trees and products, under MH, MO and MR.
"""

import dataclasses
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from sklearn.datasets import make_classification

pytest.importorskip("distributed")
from confboost.dask.cluster_fit import ClusterCover  # noqa: E402
from confboost.dask.collective import CollectiveReducer, run_round, shard_listen  # noqa: E402
from confboost.dask.link import Link, children  # noqa: E402
from confboost.dask.round_learner import RoundSpec  # noqa: E402
from confboost.dask.shards import ClusterReducer, Shard, _add  # noqa: E402
from confboost.data.columns import FrameEncoder  # noqa: E402
from confboost.data.dataset import TextColumn  # noqa: E402
from confboost.engine.boosting import BoostingRun  # noqa: E402
from confboost.engine.learners import make_learner  # noqa: E402
from confboost.engine.reduction import slices  # noqa: E402
from confboost.engine.schemes.mh import MHScheme  # noqa: E402
from confboost.engine.schemes.mo import MOScheme, build_code  # noqa: E402
from confboost.engine.schemes.mr import MRScheme  # noqa: E402
from confboost.explain.contributions import record_cover  # noqa: E402
from confboost.kernels.criterion_numpy import MODES  # noqa: E402
from confboost.training.calibration import dataset_rows  # noqa: E402

TREE = {"max_leaves": 6, "max_depth": None, "min_leaf_weight": 0.02}


class InProcessShards:
    """``Shards``' ``round`` and ``reduce`` over shards held in this process: each round
    runs every rank's ``run_round`` in a thread of its own, over the collective's sockets."""

    def __init__(self, shards):
        self.shards = shards
        self.token = os.urandom(16)
        self.addresses = [shard_listen(shard, 30.0) if children(rank, len(shards)) else None
                          for rank, shard in enumerate(shards)]
        self.rounds = 0

    def round(self, spec, left=None):
        size = len(self.shards)
        with ThreadPoolExecutor(size) as pool:
            results = list(pool.map(
                lambda rank: run_round(self.shards[rank], rank, size, self.addresses,
                                       self.token, spec, self.rounds, 30.0), range(size)))
        self.rounds += 1
        return results[0][0]

    def drop_ahead(self):
        """No trip runs ahead of the client here."""

    def reduce(self, function, *args):
        return _add(*[function(shard, *args) for shard in self.shards])


def _table(n_classes, with_values, with_text=False):
    """A table of 300 rows: five continuous columns, a categorical one (``with_values``) and
    a text one (``with_text``)."""
    X, y = make_classification(300, 5, n_informative=4, n_redundant=0, n_classes=n_classes,
                               random_state=3)
    X[::7, 2] = np.nan
    # a city that tells the class four times in five, missing on every eleventh row
    noisy = np.where(np.random.default_rng(0).random(300) < 0.8, y, (y + 1) % n_classes)
    city = np.array(["paris", "oslo", "rome", "lima"], dtype=object)[noisy]
    city[::11] = None
    columns = {f"x{j}": X[:, j] for j in range(5)} | ({"city": city} if with_values else {})
    kinds = {"city": "categorical"} if with_values else {}
    if with_text:  # words that tell the class, others, and pairs of words met once
        rng = np.random.default_rng(1)
        note = np.array([" ".join([f"c{label}"] * (rng.random() < 0.7)
                                  + [f"w{word}" for word in rng.integers(0, 40, 3)]
                                  + [f"once{row} also{row}"] * (row % 5 == 0))
                         for row, label in enumerate(y)], dtype=object)
        note[::13] = None
        columns["note"], kinds["note"] = note, "text"
    dataset = FrameEncoder.from_table(columns, kinds or None).fit_dataset(columns, 64)
    return dataset, y


def _shard_rows(dataset, rows):
    """The shard of ``dataset``'s consecutive ``rows``: a text column's postings over every
    term of the vocabulary, each term scored on its own (``dask/text.ColumnVocabulary``)."""
    if not dataset.text:
        return dataset_rows(dataset, rows)
    text = []
    for column in dataset.text:
        lists = [column.postings(term) for term in range(column.n_terms)]
        lists = [held[(held >= rows[0]) & (held <= rows[-1])] - rows[0] for held in lists]
        indptr = np.concatenate([[0], np.cumsum([held.shape[0] for held in lists])])
        text.append(TextColumn(column.column, column.terms, indptr.astype(np.int64),
                               np.concatenate(lists).astype(np.int64), per_term=True))
    return dataclasses.replace(dataset_rows(dataclasses.replace(dataset, text=[]), rows),
                               text=text)


def _header(dataset):
    """The dataset's bins and vocabularies without its rows."""
    return dataclasses.replace(
        dataset, codes=dataset.codes[:, :0],
        categorical=[dataclasses.replace(c, codes=c.codes[:0]) for c in dataset.categorical])


def _schemes(name, y, weight, total=None):
    """The local scheme of the rows (their share of ``total``, the whole set's weight)."""
    k = 3
    if name == "mo":
        return MOScheme(y, build_code("random", k, random_state=0), "loss", weight, total)
    signs = np.where(y[:, None] == np.arange(k), 1, -1).astype(np.int8)
    if name == "mr":
        return MRScheme(signs, weight, total_weight=total)
    return MHScheme(signs, weight, True, "balanced", total)


def _header_scheme(name, weight, reducer):
    """The client's scheme of no rows over ``reducer``."""
    if name == "mo":
        return MOScheme(np.empty(0, dtype=np.intp), build_code("random", 3, random_state=0),
                        "loss", np.empty(0), weight.sum(), reducer)
    signs = np.empty((0, 3), dtype=np.int8)
    if name == "mr":
        return MRScheme(signs, np.empty(0), total_weight=weight.sum(), reducer=reducer)
    return MHScheme(signs, np.empty(0), True, "balanced", weight.sum(), reducer)


def _runs(learner, scheme, confidence, n_shards, trim=0.0, with_text=False):
    """(the local run, the run over ``n_shards`` shards), 12 rounds each; stumps on a table
    with a categorical column unless trimmed (``trim``: β, numeric columns only), and a
    text column (``with_text``)."""
    dataset, y = _table(3, learner == "stump" and not trim, with_text)
    weight = np.linspace(0.5, 2.0, y.size)
    mode = MODES[confidence]
    tree = TREE if "tree" in learner else {}
    local = BoostingRun(dataset, _schemes(scheme, y, weight), make_learner(
        learner, dataset, mode, 0.01, trim=trim, **tree), "auto", mode, 0.01)
    parts = np.array_split(np.arange(y.size), n_shards)
    total = weight.sum() if n_shards > 1 else None  # one shard: the local scheme's own
    shards = InProcessShards([
        Shard(_shard_rows(dataset, rows), _schemes(scheme, y[rows], weight[rows], total),
              weight[rows])
        for rows in parts])
    reducer = ClusterReducer(shards)
    spec = RoundSpec(learner, mode, 0.01, "auto", 1.0, {"n_terms": 3, "trim": trim, **tree})
    header = _header(dataset)
    sharded = BoostingRun(header, _header_scheme(scheme, weight, reducer),
                          reducer.learner(spec), "auto", mode, 0.01)
    local.run(12, [lambda env: record_cover(env.record["fit"], weight)])
    sharded.run(12, [ClusterCover(reducer)])
    return local, sharded


def _assert_same_run(shard_run, local_run):
    """The shard's run has the local run's hypotheses (their records, confidences and
    covers) and history, bit for bit."""
    for mine, theirs in zip(shard_run.hypotheses, local_run.hypotheses, strict=True):
        assert mine.to_dict() == theirs.to_dict()
        assert np.array_equal(mine.values, theirs.values)
        assert np.array_equal(mine.cover, theirs.cover)
    for key, values in local_run.history.items():
        assert np.array_equal(shard_run.history[key], values), key


LEARNERS = ["stump", "product", "tree", "hamming_tree"]


@pytest.mark.parametrize("learner", LEARNERS)
@pytest.mark.parametrize("scheme", ["mh", "mo", "mr"])
@pytest.mark.parametrize("confidence", ["real", "discrete"])
def test_local_and_one_shard_give_the_same_model_bit_for_bit(learner, scheme, confidence):
    local_run, shard_run = _runs(learner, scheme, confidence, 1)
    assert len(local_run.hypotheses) == len(shard_run.hypotheses) == 12
    _assert_same_run(shard_run, local_run)
    if learner == "product":
        for mine, theirs in zip(shard_run.hypotheses, local_run.hypotheses, strict=True):
            assert all(np.array_equal(a, b)
                       for a, b in zip(mine.pattern_cover, theirs.pattern_cover, strict=True))
    kinds = {type(h).__name__ for h in local_run.hypotheses}
    assert kinds == {"stump": {"StumpHypothesis", "CategoricalHypothesis"},
                     "product": {"ProductHypothesis"}, "tree": {"TreeHypothesis"},
                     "hamming_tree": {"HammingTreeHypothesis"}}[learner]


def _assert_trimmed(local_run):
    """Some rounds read fewer than every row, and some fell back to every row."""
    kept = local_run.learner.kept_
    assert len(kept) == 12 and min(kept) < 300 and max(kept) == 300


@pytest.mark.parametrize("scheme", ["mh", "mo", "mr"])
@pytest.mark.parametrize("confidence", ["real", "discrete"])
def test_trimmed_stumps_on_one_shard_give_the_local_model_bit_for_bit(scheme, confidence):
    """The engine's trimmed stump over the collective's reducer: the cut from the summed
    weight-mass buckets, the kept rows' histogram, the block statistics of every row and
    the fall-back to every row are the local learner's."""
    local_run, shard_run = _runs("stump", scheme, confidence, 1, trim=0.5)
    _assert_trimmed(local_run)
    _assert_same_run(shard_run, local_run)


@pytest.mark.parametrize("scheme", ["mh", "mo", "mr"])
@pytest.mark.parametrize("confidence", ["real", "discrete", "abstain", "real-abstain"])
def test_text_local_and_one_shard_give_the_same_model_bit_for_bit(scheme, confidence):
    """The term learner on one shard, every term scored on its own, is the local one that
    scores each distinct posting list once: a term's Z is its list's, to the bit."""
    local_run, shard_run = _runs("stump", scheme, confidence, 1, with_text=True)
    assert "TermHypothesis" in {type(h).__name__ for h in local_run.hypotheses}
    _assert_same_run(shard_run, local_run)


@pytest.mark.parametrize("scheme", ["mh", "mr"])
def test_trimmed_stumps_on_three_shards_give_the_local_model(scheme):
    """Three ranks in threads: each keeps its own rows at or above the cut of the summed
    buckets; the same stumps, f and the history to rounding."""
    local_run, shard_run = _runs("stump", scheme, "real", 3, trim=0.5)
    _assert_trimmed(local_run)
    atol = 1e-8 if scheme == "mr" else 1e-9
    for mine, theirs in zip(shard_run.hypotheses, local_run.hypotheses, strict=True):
        assert {key: value for key, value in mine.to_dict().items() if key != "values"} == \
            {key: value for key, value in theirs.to_dict().items() if key != "values"}
        np.testing.assert_allclose(mine.values, theirs.values, rtol=0, atol=atol)
    for key, values in local_run.history.items():
        np.testing.assert_allclose(shard_run.history[key], values, rtol=atol, atol=1e-12)


def test_text_three_shards_give_the_local_model():
    """Three ranks: the term learner's sums added term by term over shards whose distinct
    posting lists differ, the same tests in every round."""
    local_run, shard_run = _runs("stump", "mh", "real", 3, with_text=True)
    assert "TermHypothesis" in {type(h).__name__ for h in local_run.hypotheses}
    for mine, theirs in zip(shard_run.hypotheses, local_run.hypotheses, strict=True):
        assert {key: value for key, value in mine.to_dict().items() if key != "values"} == \
            {key: value for key, value in theirs.to_dict().items() if key != "values"}
        np.testing.assert_allclose(mine.values, theirs.values, rtol=0, atol=1e-9)
    for key, values in local_run.history.items():
        np.testing.assert_allclose(shard_run.history[key], values, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("learner", ["stump", "tree", "hamming_tree"])
def test_text_in_tiny_slices_on_one_shard_gives_the_local_model_bit_for_bit(monkeypatch,
                                                                             learner):
    """The shard scores every term a slice at a time, each slice one allreduce inside the
    round's task: with slices of a few terms, the local model (one slice) to the bit."""
    monkeypatch.setattr(CollectiveReducer, "slice_cells", 7)
    local_run, shard_run = _runs(learner, "mh", "real", 1, with_text=True)
    assert any("term" in str(h.to_dict()) for h in local_run.hypotheses)
    _assert_same_run(shard_run, local_run)


def test_text_in_tiny_slices_takes_an_allreduce_a_slice(monkeypatch):
    """Three ranks, the term learner: a round's allreduces are those of one slice, and one
    more for each slice more; the same tests as one slice's in every round."""
    calls = []
    method = Link.allreduce
    monkeypatch.setattr(Link, "allreduce", lambda self, value: (
        calls.append(self.rank), method(self, value))[1])
    one_slice = _runs("stump", "mh", "real", 3, with_text=True)[1]
    counted = calls.count(0)
    calls.clear()
    monkeypatch.setattr(CollectiveReducer, "slice_cells", 7)
    sliced = _runs("stump", "mh", "real", 3, with_text=True)[1]
    n_terms = _table(3, True, True)[0].text[0].n_terms
    assert calls.count(0) == counted + 12 * (len(slices([n_terms], 3, 7)) - 1)
    for mine, theirs in zip(sliced.hypotheses, one_slice.hypotheses, strict=True):
        assert mine.to_dict() == theirs.to_dict()
        assert np.array_equal(mine.values, theirs.values)


# not products under real MR: a term's search there meets a near tie that the last bits of
# the Newton-solved confidences decide (another feature for a term; one shard: the same bits)
@pytest.mark.parametrize("learner, scheme", [(learner, "mh") for learner in LEARNERS]
                         + [("stump", "mr"), ("tree", "mr"), ("hamming_tree", "mr")])
def test_three_shards_over_the_collective_give_the_local_model(learner, scheme):
    """Three ranks in threads: the same tests in every round, f and the history to
    rounding (the sums are added in another order; real MR's confidences to 1e-8, where a
    Newton solve stops, ``tests/dask/test_dask._tolerance``)."""
    local_run, shard_run = _runs(learner, scheme, "real", 3)
    atol = 1e-8 if scheme == "mr" else 1e-9
    for mine, theirs in zip(shard_run.hypotheses, local_run.hypotheses, strict=True):
        assert {key: value for key, value in mine.to_dict().items()
                if key not in ("values", "leaf_values")} == \
            {key: value for key, value in theirs.to_dict().items()
             if key not in ("values", "leaf_values")}
        np.testing.assert_allclose(mine.values, theirs.values, rtol=0, atol=atol)
        np.testing.assert_allclose(mine.cover, theirs.cover, rtol=1e-12)
    for key, values in local_run.history.items():
        np.testing.assert_allclose(shard_run.history[key], values, rtol=atol, atol=1e-12)


def test_a_tree_round_takes_two_allreduces_a_split_but_the_last(monkeypatch):
    """Three ranks growing trees of 6 leaves: a round's allreduces are the root's
    histogram, each split's smaller child's histogram and row count but the last split's
    when the tree is full (its children are leaves, neither searched nor picked by size),
    the leaves' statistics with the round's cover, and Z_t (the rows' total once); the
    model is the local one (``test_three_shards_over_the_collective_give_the_local_model``)."""
    calls = []  # every allreduce sums its buffer through ``allreduce_into``
    method = Link.allreduce_into
    monkeypatch.setattr(Link, "allreduce_into", lambda self, value: (
        calls.append(self.rank), method(self, value))[1])
    local_run, shard_run = _runs("tree", "mh", "real", 3)
    splits = [hypothesis.left.size for hypothesis in shard_run.hypotheses]
    assert [h.left.size for h in local_run.hypotheses] == splits
    full = [n_splits + 1 == TREE["max_leaves"] for n_splits in splits]
    assert any(full)
    assert calls.count(0) == 1 + sum(3 + 2 * (n_splits - last)
                                     for n_splits, last in zip(splits, full, strict=True))
