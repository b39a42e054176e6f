"""A tree learner's work arrays: kept across rounds, they change no tree, and a warm round
takes no new array of a row each (whose pages the C library's allocator may hand back to
the system and fault in again every round)."""

import tracemalloc

import numpy as np
import pytest

from confboost.data.dataset import Dataset
from confboost.engine.learners.grower import WorkArrays
from confboost.engine.learners.tree import HammingTreeLearner, TreeLearner
from confboost.engine.schemes.mh import MHScheme
from confboost.kernels.criterion_numpy import REAL
from tests.conftest import random_problem

#: (learner, k): one label column (build_node_histogram_binary), 3 labels
#: (build_node_histogram), 10 (the interleaved masses), and a Hamming tree.
CASES = [(TreeLearner, 1), (TreeLearner, 3), (TreeLearner, 10), (HammingTreeLearner, 4)]


def _problem(k, n_samples=700, seed=3):
    rng = np.random.default_rng(seed)
    X, signs, _ = random_problem(rng, n_samples=n_samples, n_features=5, k=k,
                                 distinct=8)
    if k > 1:  # single-label rows, as a multiclass fit's
        signs = np.where(rng.integers(0, k, n_samples)[:, None] == np.arange(k), 1, -1)
    return Dataset.from_array(X, 255), signs.astype(np.int8)


def _fits(dataset, signs, learner_of_round, n_rounds=4):
    """The round fits of an MH run whose round t's tree is ``learner_of_round(t)``'s."""
    scheme = MHScheme(signs, np.ones(signs.shape[0]), signs.shape[1] > 1)
    fits = []
    for t in range(n_rounds):
        fit = learner_of_round(t).fit(dataset, scheme.learner_weights, scheme.labels)
        scheme.update(fit, 0.5)
        fits.append(fit)
    return fits


@pytest.mark.parametrize(("learner_class", "k"), CASES)
def test_a_learner_kept_across_rounds_grows_the_trees_of_fresh_ones(monkeypatch,
                                                                    learner_class, k):
    """The same trees, leaf masses and training leaves to the bit as a new learner each
    round, its node histograms over several chunks of rows (their work space too)."""
    import confboost.engine.learners.tree as tree_module

    monkeypatch.setattr(tree_module, "ROW_CHUNK", 97)
    dataset, signs = _problem(k)
    kept = learner_class(REAL, 1e-4, max_leaves=12)
    for one, fresh in zip(_fits(dataset, signs, lambda t: kept),
                          _fits(dataset, signs,
                                lambda t: learner_class(REAL, 1e-4, max_leaves=12)),
                          strict=True):
        assert one.hypothesis.to_dict() == fresh.hypothesis.to_dict()
        np.testing.assert_array_equal(one.train_blocks, fresh.train_blocks)
        np.testing.assert_array_equal(one.weight_pos, fresh.weight_pos)
        np.testing.assert_array_equal(one.weight_neg, fresh.weight_neg)
        assert one.criterion == fresh.criterion
    assert kept._work.arrays  # it did keep some


@pytest.mark.parametrize(("learner_class", "k"), CASES[:3])
def test_a_warm_round_takes_no_new_array_of_a_row_each(learner_class, k):
    """After its first rounds a learner's round allocates (NumPy's arrays, as tracemalloc
    sees them) less than one (n, k) array of weights: the masses, the interleaved masses and
    the row order come from its work arrays."""
    n_samples = 20_000 // k
    dataset, signs = _problem(k, n_samples)
    learner = learner_class(REAL, 1e-4, max_leaves=12)
    scheme = MHScheme(signs, np.ones(n_samples), k > 1)
    for _ in range(2):
        scheme.update(learner.fit(dataset, scheme.learner_weights, scheme.labels), 0.5)
    tracemalloc.start()
    try:
        learner.fit(dataset, scheme.learner_weights, scheme.labels)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < scheme.learner_weights.nbytes


def test_work_arrays_are_kept_while_their_shape_and_type_are():
    work = WorkArrays()
    first = work.get("a", (5, 2))
    assert work.get("a", (5, 2)) is first
    assert work.get("a", (5, 3)) is not first
    assert work.get("a", (5, 3), np.intp).dtype == np.intp
    rows = work.row_order("rows", 6)
    rows[:] = -1
    np.testing.assert_array_equal(work.row_order("rows", 6), np.arange(6))
    made = work.made("b", (1, 2), lambda: [np.zeros(3)])
    assert work.made("b", (1, 2), lambda: None) is made
    assert work.made("b", (1, 3), lambda: None) is None


def test_a_run_releases_its_learners_work_arrays_when_its_rounds_are_done():
    """A fit's runs run one after the other: the arrays one kept across its rounds are not
    held while the next runs, nor in a warm start's state; a later call makes them again and
    continues the run as one long call would."""
    from confboost.engine.boosting import BoostingRun

    dataset, signs = _problem(3)

    def run():
        scheme = MHScheme(signs, np.ones(signs.shape[0]), True)
        return BoostingRun(dataset, scheme, TreeLearner(REAL, 1e-4, max_leaves=6), "auto",
                           REAL, 1e-4)

    split, whole = run(), run()
    split.run(2)
    assert split.learner._work.arrays == {}
    split.run(4)
    whole.run(4)
    assert ([h.to_dict() for h in split.hypotheses]
            == [h.to_dict() for h in whole.hypotheses])
