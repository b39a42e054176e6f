"""Trees and Hamming trees: kernels against naive twins, Z by brute force, the stump as the
two-leaf tree, the training-loss bounds with shrinkage, and save/load."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris

from confboost import BoostClassifier
from confboost.data.dataset import Dataset, LabelSigns
from confboost.engine.learners import HYPOTHESIS_TYPES
from confboost.engine.learners.base import label_masses
from confboost.engine.learners.stump import StumpLearner
from confboost.engine.learners.tree import HammingTreeLearner, TreeLearner
from confboost.estimators import load
from confboost.kernels.criterion_numpy import DISCRETE, REAL, REAL_ABSTAIN
from confboost.kernels.histogram import N_HIST_BINS, build_histogram_rows
from confboost.kernels.node_split import best_node_splits, best_node_splits_naive
from confboost.kernels.tree_nodes import (
    PARTITION_CHUNK,
    best_factorized_splits,
    best_factorized_splits_naive,
    code_goes_left,
    node_histogram,
    node_histogram_naive,
    partition_rows,
    partition_rows_naive,
    subtract_sibling,
    threshold_goes_left,
    tree_blocks,
    tree_blocks_naive,
)
from confboost.utils.dtypes import NODE_TERM, NODE_THRESHOLD, NODE_VALUE
from tests.conftest import random_problem


def _problem(rng, k, missing=0.1, n_samples=300, n_features=4, distinct=5):
    X, signs, weights = random_problem(rng, n_samples=n_samples, n_features=n_features, k=k,
                                       missing=missing, distinct=distinct)
    dataset = Dataset.from_array(X, 255)
    labels = LabelSigns.from_signs(signs)
    pos, neg = label_masses(weights, labels)
    return X, dataset, labels, weights, pos, neg


# --- kernels against their naive twins -------------------------------------------------

@pytest.mark.parametrize("k", [1, 3])
def test_node_histogram_equals_naive_in_any_order(rng, k):
    _, dataset, _, _, pos, neg = _problem(rng, k)
    rows = np.sort(rng.choice(300, 170, replace=False)).astype(np.intp)
    expected = node_histogram_naive(dataset.codes, rows, pos, neg)
    hist = np.empty((4, N_HIST_BINS, k, 2))
    node_histogram(dataset.codes, rows, pos, neg, hist)
    np.testing.assert_allclose(hist, expected, rtol=1e-12, atol=1e-15)
    node_histogram(dataset.codes, rng.permutation(rows), pos, neg, hist)
    np.testing.assert_allclose(hist, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("k", [1, 3])
def test_subtracted_histogram_equals_direct(rng, k):
    """Larger child = parent - smaller child, as the growth does it."""
    _, dataset, _, _, pos, neg = _problem(rng, k)
    rows = rng.permutation(300).astype(np.intp)
    parent = np.empty((4, N_HIST_BINS, k, 2))
    node_histogram(dataset.codes, rows, pos, neg, parent)
    n_left = partition_rows(dataset.codes[2], rows, 0, 300, 2, True, np.empty((2, 300), np.intp))
    small = np.empty_like(parent)
    node_histogram(dataset.codes, rows[:n_left], pos, neg, small)
    subtract_sibling(parent, small)
    np.testing.assert_allclose(parent,
                               node_histogram_naive(dataset.codes, rows[n_left:], pos, neg),
                               rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("mode", [REAL, DISCRETE])
@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("min_leaf_weight", [0.0, 0.2])
def test_best_node_splits_equal_brute_force(rng, mode, k, min_leaf_weight):
    _, dataset, _, _, pos, neg = _problem(rng, k, n_samples=150, distinct=3)
    rows = np.sort(rng.choice(150, 100, replace=False)).astype(np.intp)
    hist = np.empty((4, N_HIST_BINS, k, 2))
    gains = []
    for order in (rows, rng.permutation(rows)):
        node_histogram(dataset.codes, order, pos, neg, hist)
        gain = np.empty(4)
        split_bin = np.empty(4, dtype=np.intp)
        missing_left = np.empty(4, dtype=bool)
        best_node_splits(hist, dataset.n_bins, mode, min_leaf_weight, gain, split_bin,
                         missing_left)
        gains.append(gain)
    naive_gain, _, _ = best_node_splits_naive(
        dataset.codes, rows, pos, neg, dataset.n_bins, mode, min_leaf_weight)
    for gain in gains:
        np.testing.assert_allclose(gain, naive_gain, rtol=1e-9, atol=1e-14)
    # the chosen split reaches the best gain (bins empty in the node tie with their
    # neighbours, and rounding may pick another of equal gain)
    for feature in range(4):
        codes = dataset.codes[feature, rows]
        is_missing = codes == 255
        goes_left = ((codes <= split_bin[feature]) & ~is_missing) | (
            is_missing & missing_left[feature])
        score = [(2 * np.sqrt(pos[r].sum(0) * neg[r].sum(0))).sum() if mode == REAL
                 else -np.abs(pos[r].sum(0) - neg[r].sum(0)).sum()
                 for r in (rows, rows[goes_left], rows[~goes_left])]
        assert score[0] - score[1] - score[2] == pytest.approx(naive_gain[feature], rel=1e-9,
                                                               abs=1e-14)


@pytest.mark.parametrize("k", [1, 3, 40])
def test_children_splits_equal_naive_bit_for_bit_on_any_thread_count(rng, k):
    """One call subtracts the smaller child from the parent and scans both children: the
    larger child's histogram, and each child's gains, bins and missing sides, are the twin's
    (subtract_sibling, then best_node_splits twice) to the bit, and each child's chosen
    split choose_split_naive's, on 1 and 2 threads, in every mode, with the tasks of 1, 2
    and 3 threads: 9 features make one task a child, or tasks of 4, 4 and 1; at 40 labels
    (164 kB a feature) a task of 9 subtracts and scans blocks of 4, 4 and 1. With one child
    (a tree's root) it is the smaller child's search alone."""
    import numba

    from confboost.engine.learners.splitter import numeric_split
    from confboost.kernels.node_split import (
        children_splits,
        children_splits_naive,
        choose_split_naive,
    )

    X, dataset, _, _, pos, neg = _problem(rng, k, n_samples=800, n_features=9, distinct=60)
    rows = rng.permutation(800).astype(np.intp)
    n_left = partition_rows(dataset.codes[1], rows, 0, 800, 20, True, np.empty((2, 800), np.intp))
    parent = np.empty((9, N_HIST_BINS, k, 2))
    node_histogram(dataset.codes, rows, pos, neg, parent)
    small = np.empty_like(parent)
    node_histogram(dataset.codes, rows[:n_left], pos, neg, small)
    previous = numba.get_num_threads()
    try:
        for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
            numba.set_num_threads(threads)
            for mode in range(4):  # real, discrete, abstain, real-abstain
                expected_large = parent.copy()
                expected = children_splits_naive(small, expected_large, dataset.n_bins, mode,
                                                 0.01)
                for share in (1, 2, 3):
                    large = parent.copy()
                    out = (np.empty((2, 9)), np.empty((2, 9), dtype=np.intp),
                           np.empty((2, 9), dtype=bool))
                    choice = np.empty((2, 3), dtype=np.intp)
                    children_splits(small, large, dataset.n_bins, mode, 0.01, *out, choice,
                                    share, 2)
                    np.testing.assert_array_equal(large, expected_large)
                    for got, want in zip(out, expected, strict=True):
                        np.testing.assert_array_equal(got, want)
                    # one child (a root): the smaller's search alone, row 1 and the
                    # parent's histogram untouched
                    alone = tuple(np.zeros_like(part) for part in out)
                    alone_choice = np.full((2, 3), -7, dtype=np.intp)
                    untouched = parent.copy()
                    children_splits(small, untouched, dataset.n_bins, mode, 0.01, *alone,
                                    alone_choice, share, 1)
                    np.testing.assert_array_equal(untouched, parent)
                    np.testing.assert_array_equal(alone_choice[0], choice[0])
                    assert (alone_choice[1] == -7).all()
                    for got, want in zip(alone, expected, strict=True):
                        np.testing.assert_array_equal(got[0], want[0])
                        assert not got[1].any()
                assert np.isfinite(out[0]).any()
                for child, hist in enumerate((small, large)):
                    want = choose_split_naive(hist, dataset.n_bins, *(a[child] for a in out))
                    got = numeric_split(hist, dataset.n_bins, out[0][child], out[1][child],
                                        choice[child])
                    assert (None if got is None else (got[1][1], got[1][3])) == want
    finally:
        numba.set_num_threads(previous)


def test_choose_split_is_argmax_and_the_heavier_side(rng):
    """choose_split picks np.argmax's feature (the first of equal gains, a NaN first, none
    when no gain is above 0) and sends a missing value the node never saw to the heavier
    side; where the two sides' sums are too close to call it says so, and numeric_split
    then takes NumPy's side, as choose_split_naive does."""
    from confboost.engine.learners.splitter import numeric_split
    from confboost.kernels.node_split import choose_split, choose_split_naive

    hist = rng.random((3, 6, 2, 2))
    hist[:, -1] = 0.0  # no missing value seen
    n_bins = np.array([5, 5, 5], dtype=np.intp)
    split_bin = np.array([1, 2, 3], dtype=np.intp)
    missing_left = np.array([False, True, False])
    choice = np.empty(3, dtype=np.intp)
    cases = [[0.5, 2.0, 2.0], [np.nan, 1.0, np.nan], [0.1, np.nan, 3.0], [-np.inf] * 3,
             [0.0, -1.0, 0.0]]
    for gain in map(np.array, cases):
        choose_split(hist, n_bins, gain, split_bin, missing_left, choice)
        first = int(np.argmax(gain))
        assert choice[0] == (first if gain[first] > 0 else -1)
        got = numeric_split(hist, n_bins, gain, split_bin, choice)
        want = choose_split_naive(hist, n_bins, gain, split_bin, missing_left)
        assert (None if got is None else (got[1][1], got[1][3])) == want
    gain = np.array([0.0, 1.0, 0.0])
    hist[1, 3:5] = 0.0
    hist[1, 3] = hist[1, :3].sum(axis=0) * (1 + 1e-12)  # the two sides equal to rounding
    for side_first in (True, False):
        hist[1, -1, 0, 0] = 0.0 if side_first else 0.25  # a seen missing value keeps its side
        choose_split(hist, n_bins, gain, split_bin, missing_left, choice)
        assert choice[0] == 1 and choice[2] == side_first
        assert numeric_split(hist, n_bins, gain, split_bin, choice)[1][3] == (
            choose_split_naive(hist, n_bins, gain, split_bin, missing_left)[1])
    hist[1, -1] = 0.0
    hist[1, 2] *= 3.0  # clearly heavier up to the threshold: left, decided
    choose_split(hist, n_bins, gain, split_bin, missing_left, choice)
    assert list(choice) == [1, 1, 0]


@pytest.mark.parametrize("mode", [REAL, DISCRETE])
def test_best_node_splits_over_empty_bins_equal_brute_force(rng, mode):
    """A node missing a middle value of a feature: the skipped empty bin changes nothing."""
    _, dataset, _, _, pos, neg = _problem(rng, 2, n_samples=200, distinct=4)
    rows = np.flatnonzero(dataset.codes[0] != 1).astype(np.intp)
    hist = np.empty((4, N_HIST_BINS, 2, 2))
    node_histogram(dataset.codes, rows, pos, neg, hist)
    gain = np.empty(4)
    split_bin = np.empty(4, dtype=np.intp)
    missing_left = np.empty(4, dtype=bool)
    best_node_splits(hist, dataset.n_bins, mode, 0.0, gain, split_bin, missing_left)
    naive_gain, _, _ = best_node_splits_naive(dataset.codes, rows, pos, neg, dataset.n_bins,
                                              mode, 0.0)
    np.testing.assert_allclose(gain, naive_gain, rtol=1e-9, atol=1e-14)
    assert split_bin[0] != 1


@pytest.mark.parametrize("k", [1, 3])
def test_label_tree_node_histogram_equals_naive_in_any_order(rng, k):
    """A label tree's nodes use the stump's kernel over intp rows in any order."""
    _, dataset, labels, weights, pos, neg = _problem(rng, k)
    rows = np.sort(rng.choice(300, 170, replace=False)).astype(np.intp)
    expected = node_histogram_naive(dataset.codes, rows, pos, neg)
    hist = np.empty((4, N_HIST_BINS, k, 2))
    for order in (rows, rng.permutation(rows)):
        build_histogram_rows(dataset.codes, order, weights[order], labels.sign_index[order],
                             hist)
        np.testing.assert_allclose(hist, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("k", [1, 4])
def test_best_factorized_splits_equal_brute_force(rng, k):
    _, dataset, _, _, pos, neg = _problem(rng, k, n_samples=150, distinct=3)
    hist = np.empty((4, N_HIST_BINS, k, 2))
    node_histogram(dataset.codes, rng.permutation(150).astype(np.intp), pos, neg, hist)
    edge = np.empty(4)
    split_bin = np.empty(4, dtype=np.intp)
    missing_left = np.empty(4, dtype=bool)
    best_factorized_splits(hist, dataset.n_bins, edge, split_bin, missing_left)
    naive = best_factorized_splits_naive(dataset.codes, pos, neg, dataset.n_bins)
    np.testing.assert_allclose(edge, naive[0], rtol=1e-9)
    np.testing.assert_array_equal(split_bin, naive[1])
    np.testing.assert_array_equal(missing_left, naive[2])


@pytest.mark.parametrize("threshold", [0, 100, 254])  # the codes' table at both ends
@pytest.mark.parametrize("missing_left", [True, False])
@pytest.mark.parametrize("n", [400, 3 * PARTITION_CHUNK + 123])  # one chunk, several
def test_partition_rows_equals_naive(rng, missing_left, n, threshold):
    codes = rng.integers(0, 256, size=n).astype(np.uint8)
    codes[rng.random(n) < 0.2] = 255
    rows = rng.permutation(n).astype(np.intp)
    start, stop = 50, n - 50
    expected_left, expected_right = partition_rows_naive(codes, rows[start:stop], threshold,
                                                         missing_left)
    before = rows.copy()
    n_left = partition_rows(codes, rows, start, stop, threshold, missing_left,
                            np.empty((2, n), np.intp))
    assert n_left == expected_left.size
    np.testing.assert_array_equal(rows[start:start + n_left], expected_left)
    np.testing.assert_array_equal(rows[start + n_left:stop], expected_right)
    np.testing.assert_array_equal(rows[:start], before[:start])
    np.testing.assert_array_equal(rows[stop:], before[stop:])


def test_tree_blocks_equal_naive(rng):
    # root 0 -> (node 1, leaf 2); node 1 -> (leaf 0, node 2); node 2 -> (leaf 1, leaf 3)
    feature = np.array([0, 2, 1], dtype=np.intp)
    threshold = np.array([0.3, -0.2, np.inf])
    missing_left = np.array([True, False, False])
    left = np.array([1, -1, -2], dtype=np.intp)
    right = np.array([-3, 2, -4], dtype=np.intp)
    X = rng.normal(size=(500, 3))
    X[rng.random(X.shape) < 0.15] = np.nan
    out = np.empty(500, dtype=np.uint8)
    tree_blocks(X, feature, threshold, missing_left, left, right, out)
    np.testing.assert_array_equal(out, tree_blocks_naive(X, feature, threshold, missing_left,
                                                         left, right))
    assert set(out.tolist()) == {0, 1, 2, 3}
    empty = np.empty(0, dtype=np.intp)
    tree_blocks(X, empty, np.empty(0), np.empty(0, dtype=bool), empty, empty, out)
    assert not out.any()


@pytest.mark.parametrize("missing_left", [True, False])
def test_threshold_rule_on_values_and_on_codes_agree(rng, missing_left):
    """A value and its bin code go the same way at every threshold of every feature:
    ``threshold_goes_left`` at the raw threshold (``Dataset.raw_threshold``) is
    ``code_goes_left`` at its bin, NaN and the missing bin included; and numba's walk
    (``tree_blocks``) sends every example where the rule says."""
    X, dataset, *_ = _problem(rng, 1, missing=0.15, n_samples=400, distinct=6)
    for feature in range(X.shape[1]):
        for threshold_bin in range(dataset.n_bins[feature]):
            threshold = dataset.raw_threshold(feature, threshold_bin)
            on_values = threshold_goes_left.py_func(X[:, feature], threshold, missing_left)
            on_codes = code_goes_left.py_func(dataset.codes[feature], threshold_bin,
                                              missing_left)
            np.testing.assert_array_equal(on_values, on_codes)
            out = np.empty(X.shape[0], dtype=np.uint8)
            tree_blocks(X, np.array([feature]), np.array([threshold]),
                        np.array([missing_left]), np.array([-1]), np.array([-2]), out)
            np.testing.assert_array_equal(out == 0, on_values)


@pytest.mark.parametrize("mode", [REAL, REAL_ABSTAIN, DISCRETE])
@pytest.mark.parametrize("weak_learner", [TreeLearner, HammingTreeLearner])
def test_one_column_trees_are_the_trees_of_children_splits(rng, monkeypatch, mode,
                                                           weak_learner):
    """A binary tree and a Hamming tree (histograms of one column) grow the same tree to
    the bit whether the grower searches the children with the one-column kernel
    (``label_split.label_children_splits``, real confidences) or ``children_splits``."""
    from confboost.engine.learners import grower

    children_splits = grower.children_splits  # the grower's (lazy) kernel
    X, signs, weights = random_problem(rng, n_samples=3000, n_features=6, k=1, missing=0.05,
                                       distinct=90)
    if weak_learner is HammingTreeLearner:
        X, signs, weights = random_problem(rng, n_samples=3000, n_features=6, k=3,
                                           missing=0.05, distinct=90)
    dataset, labels = Dataset.from_array(X, 255), LabelSigns.from_signs(signs)
    expected = (grower._one_column_children_splits if mode != DISCRETE else children_splits)
    assert grower._children_search(1, mode) is expected
    assert grower._children_search(3, mode) is children_splits
    fits = [weak_learner(mode, 1e-3, max_leaves=12).fit(dataset, weights, labels)]
    monkeypatch.setattr(grower, "_children_search", lambda n_columns, mode: children_splits)
    fits.append(weak_learner(mode, 1e-3, max_leaves=12).fit(dataset, weights, labels))
    assert np.unique(fits[0].train_blocks).size == 12
    np.testing.assert_array_equal(fits[0].train_blocks, fits[1].train_blocks)
    for name in ("column", "threshold", "missing_left", "left", "right"):
        np.testing.assert_array_equal(getattr(fits[0].hypothesis, name),
                                      getattr(fits[1].hypothesis, name))
    np.testing.assert_array_equal(fits[0].weight_pos, fits[1].weight_pos)


@pytest.mark.parametrize("weak_learner", [TreeLearner, HammingTreeLearner])
@pytest.mark.parametrize("text", [True, False])  # the shards' trees have no term nodes
def test_training_prediction_and_shards_send_rows_to_the_same_leaves(rng, weak_learner, text):
    """The one go-left rule per node kind: the leaves growth gives the training rows (its
    row partition), the hypothesis' walk on the raw table, the distributed fit's leaves of
    a shard (``tree_code_blocks``) and, for threshold nodes, numba's walk, all agree, on a
    table of continuous (with NaN), categorical (with missing) and text columns."""
    from confboost.dask.collective import tree_code_blocks
    from tests.helpers import mixed_frame
    from tests.helpers import table_fit_parts as _fitted

    frame, Y = mixed_frame(rng)
    types = {"row": "ignore"} if text else {"row": "ignore", "text": "ignore"}
    encoder, dataset, prepared, labels, weights = _fitted(frame, Y, rng, types)
    learner = weak_learner(REAL, 1e-3, max_leaves=12)
    grown = {}
    grow = learner._grow

    def keep(*args, **kwargs):
        grown["tree"] = grow(*args, **kwargs)
        return grown["tree"]

    learner._grow = keep
    fit = learner.fit(dataset, weights, labels)
    tree, hypothesis = grown["tree"], fit.hypothesis
    kinds = set(tree.kind.tolist())
    assert kinds == ({NODE_THRESHOLD, NODE_VALUE, NODE_TERM} if text
                     else {NODE_THRESHOLD, NODE_VALUE})  # every rule is used
    np.testing.assert_array_equal(hypothesis.blocks(prepared), fit.train_blocks)
    if not text:  # the shards' leaves
        np.testing.assert_array_equal(
            tree_code_blocks(dataset, tree.kind, tree.feature, tree.threshold_bin,
                             tree.missing_left, tree.left, tree.right), fit.train_blocks)
    numeric = tree.kind == NODE_THRESHOLD
    goes_left = hypothesis.goes_left(prepared)
    for node in np.flatnonzero(numeric):
        column = int(hypothesis.column[node])
        out = np.empty(prepared.n_samples, dtype=np.uint8)
        tree_blocks(np.ascontiguousarray(prepared.numeric, dtype=np.float64),
                    np.array([column]), np.array([hypothesis.threshold[node]]),
                    np.array([hypothesis.missing_left[node]]), np.array([-1]), np.array([-2]),
                    out)
        np.testing.assert_array_equal(out == 0, goes_left[node])


def test_binary_tree_is_the_same_on_any_thread_count_over_several_row_chunks(rng,
                                                                           monkeypatch):
    """A one-label tree whose node histograms sum over several row chunks (a small
    ``ROW_CHUNK``) and whose partitions take several chunks is the same tree, with the
    same leaf masses to the bit, on 1 and 2 threads."""
    import numba

    import confboost.engine.learners.tree as tree_module

    monkeypatch.setattr(tree_module, "ROW_CHUNK", 61)
    _, dataset, labels, weights, *_ = _problem(rng, 1, n_samples=3 * PARTITION_CHUNK // 2,
                                               distinct=20)
    fits = []
    previous = numba.get_num_threads()
    try:
        for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
            numba.set_num_threads(threads)
            fits.append(TreeLearner(REAL, 1e-6, max_leaves=10).fit(dataset, weights, labels))
    finally:
        numba.set_num_threads(previous)
    for fit in fits[1:]:
        np.testing.assert_array_equal(fit.train_blocks, fits[0].train_blocks)
        np.testing.assert_array_equal(fit.weight_pos, fits[0].weight_pos)
        np.testing.assert_array_equal(fit.hypothesis.values, fits[0].hypothesis.values)
    assert fits[0].hypothesis.values.shape[0] == 10


# --- the learners ----------------------------------------------------------------------

@pytest.mark.parametrize("mode", [REAL, DISCRETE])
@pytest.mark.parametrize("k", [1, 3])
def test_two_leaf_tree_is_the_stump(rng, mode, k):
    """On data without missing values: same partition, values and Z."""
    _, dataset, labels, weights, _, _ = _problem(rng, k, missing=0.0)
    stump = StumpLearner(mode, 1e-3).fit(dataset, weights, labels)
    tree = TreeLearner(mode, 1e-3, max_leaves=2).fit(dataset, weights, labels)
    np.testing.assert_array_equal(tree.train_blocks, stump.train_blocks)
    np.testing.assert_allclose(tree.hypothesis.values, stump.hypothesis.values[:2], rtol=1e-9)
    assert tree.criterion == pytest.approx(stump.criterion, rel=1e-10)
    assert tree.hypothesis.column.tolist() == [stump.hypothesis.feature]
    assert tree.hypothesis.threshold[0] == stump.hypothesis.threshold


def _brute_force_z(blocks, weights, signs, n_blocks):
    z = 0.0
    for j in range(n_blocks):
        for l in range(signs.shape[1]):
            w_plus = weights[(blocks == j) & (signs[:, l] > 0), l].sum()
            w_minus = weights[(blocks == j) & (signs[:, l] < 0), l].sum()
            z += 2 * np.sqrt(w_plus * w_minus)
    return z


@pytest.mark.parametrize("k", [1, 3])
def test_grown_tree_z_is_two_sum_sqrt_over_its_leaves(rng, k):
    X, dataset, labels, weights, _, _ = _problem(rng, k, n_samples=400)
    fit = TreeLearner(REAL, 1e-3, max_leaves=7).fit(dataset, weights, labels)
    n_leaves = fit.hypothesis.values.shape[0]
    assert n_leaves == 7
    # the raw-feature walk (missing values included) gives the training partition
    np.testing.assert_array_equal(fit.hypothesis.blocks(X), fit.train_blocks)
    by_hand = _brute_force_z(fit.train_blocks, weights, labels.signs, n_leaves)
    assert fit.criterion == pytest.approx(by_hand, rel=1e-10)


@pytest.mark.parametrize("learner", [TreeLearner, HammingTreeLearner])
@pytest.mark.parametrize("mode", [REAL, DISCRETE])
def test_z_falls_as_the_tree_grows(rng, learner, mode):
    _, dataset, labels, weights, _, _ = _problem(rng, 3, n_samples=400)
    criteria = [learner(mode, 1e-3, max_leaves=n).fit(dataset, weights, labels).criterion
                for n in (2, 4, 8, 16)]
    assert all(a >= b - 1e-12 for a, b in zip(criteria, criteria[1:], strict=False))
    assert criteria[-1] < criteria[0]


def test_depth_and_leaf_weight_limits(rng):
    _, dataset, labels, weights, _, _ = _problem(rng, 2, n_samples=400)
    shallow = TreeLearner(REAL, 1e-3, max_leaves=16, max_depth=2).fit(dataset, weights, labels)
    assert shallow.hypothesis.values.shape[0] <= 4
    heavy = TreeLearner(REAL, 1e-3, max_leaves=16, min_leaf_weight=0.1).fit(dataset, weights,
                                                                           labels)
    leaf_mass = heavy.weight_pos.sum(axis=1) + heavy.weight_neg.sum(axis=1)
    assert np.all(leaf_mass >= 0.1 - 1e-12)


@pytest.mark.parametrize("mode", [REAL, DISCRETE])
def test_hamming_tree_is_a_vote_times_a_leaf_confidence(rng, mode):
    X, dataset, labels, weights, _, _ = _problem(rng, 4, n_samples=400)
    fit = HammingTreeLearner(mode, 1e-3, max_leaves=6).fit(dataset, weights, labels)
    h = fit.hypothesis
    assert set(np.abs(h.vote).tolist()) == {1.0}
    np.testing.assert_allclose(h.values, np.outer(h.leaf_values, h.vote))
    np.testing.assert_array_equal(h.blocks(X), fit.train_blocks)
    # the agreeing / disagreeing mass of each leaf under v, from the examples
    agrees = labels.signs * h.vote[None, :] > 0
    agree = np.array([weights[(fit.train_blocks == j)[:, None] & agrees].sum()
                      for j in range(len(h.leaf_values))])
    disagree = np.array([weights[(fit.train_blocks == j)[:, None] & ~agrees].sum()
                         for j in range(len(h.leaf_values))])
    if mode == REAL:
        assert fit.criterion == pytest.approx(2 * np.sqrt(agree * disagree).sum(), rel=1e-10)
    else:
        r = np.abs(agree - disagree).sum()
        assert fit.criterion == pytest.approx(np.sqrt(1 - r * r), rel=1e-10)
        np.testing.assert_array_equal(h.leaf_values, np.where(agree >= disagree, 1.0, -1.0))


# --- the estimator -----------------------------------------------------------------------

def _multilabel():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 6))
    Y = np.column_stack([X[:, 0] + X[:, 1] > 0, X[:, 2] > 0.5, X[:, 0] * X[:, 3] > 0,
                         rng.random(300) < 0.3]).astype(int)
    return X, Y


@pytest.mark.parametrize("data", ["binary", "multiclass", "multilabel"])
@pytest.mark.parametrize("weak_learner", ["tree", "hamming_tree"])
@pytest.mark.parametrize("learning_rate", [1.0, 0.3])
def test_training_loss_below_bound_every_round(data, weak_learner, learning_rate):
    X, y = {"binary": lambda: load_breast_cancer(return_X_y=True),
            "multiclass": lambda: load_iris(return_X_y=True), "multilabel": _multilabel}[data]()
    for confidence in ("real", "discrete"):
        clf = BoostClassifier(25, weak_learner=weak_learner, max_leaves=5,
                              confidence=confidence, learning_rate=learning_rate).fit(X, y)
        history = clf.history_
        assert np.all(history["train_loss"] <= history["bound"] + 1e-12)
        assert np.all(history["z"] <= 1.0 + 1e-12)


@pytest.mark.parametrize("weak_learner", ["stump", "tree", "hamming_tree"])
def test_shrunk_alpha_and_the_recorded_z_is_the_true_normaliser(weak_learner):
    X, y = load_iris(return_X_y=True)
    full = BoostClassifier(3, weak_learner=weak_learner, confidence="discrete").fit(X, y)
    shrunk = BoostClassifier(3, weak_learner=weak_learner, confidence="discrete",
                             learning_rate=0.4).fit(X, y)
    # the first round sees the same weights, so it picks the same hypothesis
    assert shrunk.history_["alpha"][0] == pytest.approx(0.4 * full.history_["alpha"][0])
    signs = np.where(y[:, None] == np.arange(3)[None, :], 1, -1)
    step = shrunk.model_.alphas[0] * shrunk.model_.hypotheses[0].values[
        shrunk.model_.hypotheses[0].blocks(X)]
    z = (np.exp(-signs * step) / signs.size).sum()
    assert shrunk.history_["z"][0] == pytest.approx(z, rel=1e-12)
    assert z > full.history_["z"][0]


@pytest.mark.parametrize("weak_learner", ["tree", "hamming_tree"])
def test_save_load_round_trip_predicts_the_same(tmp_path, weak_learner):
    X, y = load_iris(return_X_y=True)
    X = X.copy()
    X[::7, 2] = np.nan
    clf = BoostClassifier(20, weak_learner=weak_learner, max_leaves=6).fit(X, y)
    path = tmp_path / "model.json"
    clf.save(path)
    loaded = load(path)
    np.testing.assert_array_equal(loaded.decision_function(X), clf.decision_function(X))
    assert loaded.get_params() == clf.get_params()
    staged = list(clf.staged_decision_function(X))
    np.testing.assert_allclose(staged[-1], clf.decision_function(X), atol=1e-10)
    assert clf.feature_importances_.sum() == pytest.approx(1.0)


def test_malformed_tree_data_is_a_value_error():
    good = {"type": "tree", "kind": ["threshold"], "column": [0], "threshold": [0.5],
            "value": [None], "missing_left": [True], "left": [-1], "right": [-2],
            "values": [[0.1], [-0.1]]}
    HYPOTHESIS_TYPES["tree"].from_dict(good)
    one_leaf = HYPOTHESIS_TYPES["tree"].from_dict(
        {"type": "tree", "kind": [], "column": [], "threshold": [], "value": [],
         "missing_left": [], "left": [], "right": [], "values": [[0.3, -0.2]]})
    np.testing.assert_array_equal(one_leaf.blocks(np.zeros((3, 2))), 0)
    for bad in ({**good, "left": [-2]}, {**good, "values": [[0.1]]},
                {**good, "threshold": ["x"]}, {**good, "column": [0, 1]}):
        with pytest.raises(ValueError):
            HYPOTHESIS_TYPES["tree"].from_dict(bad)
    with pytest.raises(ValueError):
        HYPOTHESIS_TYPES["hamming_tree"].from_dict(
            {**good, "type": "hamming_tree", "vote": [0.5], "leaf_values": [1.0, -1.0]})


@pytest.mark.parametrize("params", [
    {"weak_learner": "forest"}, {"max_leaves": 1}, {"max_leaves": 256}, {"max_leaves": 2.5},
    {"max_depth": 0}, {"min_leaf_weight": -0.1}, {"min_leaf_weight": 0.6},
    {"learning_rate": 0.0}, {"learning_rate": 1.5}, {"learning_rate": "fast"},
])
def test_bad_tree_parameters_are_value_errors(params):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=next(iter(params))):
        BoostClassifier(2, weak_learner=params.get("weak_learner", "tree"),
                        **{key: value for key, value in params.items()
                           if key != "weak_learner"}).fit(X, y)


@pytest.mark.parametrize("weak_learner", ["tree", "hamming_tree"])
def test_histogram_memory_cap_grows_the_same_tree(monkeypatch, weak_learner):
    """With room for one node histogram the dropped ones are rebuilt: the same model."""
    import confboost.engine.learners.grower as grower_module

    X, y = load_iris(return_X_y=True)
    free = BoostClassifier(5, weak_learner=weak_learner, max_leaves=12).fit(X, y)
    monkeypatch.setattr(grower_module, "HISTOGRAM_MEMORY", 1)
    capped = BoostClassifier(5, weak_learner=weak_learner, max_leaves=12).fit(X, y)
    for a, b in zip(free.model_.hypotheses, capped.model_.hypotheses, strict=True):
        np.testing.assert_array_equal(a.column, b.column)
        np.testing.assert_array_equal(a.threshold, b.threshold)
        np.testing.assert_allclose(a.values, b.values, rtol=1e-12)
    np.testing.assert_allclose(free.history_["z"], capped.history_["z"], rtol=1e-12)


# --- compact node histograms ---------------------------------------------------------

@pytest.mark.parametrize("k", [1, 3])
def test_compact_histograms_hold_the_cells_of_the_full_ones(rng, k):
    """On codes of few bins (compact_codes) the kernels fill, subtract and split histograms
    of n_bins + 1 bins whose cells are those of the 256-bin ones, bit for bit."""
    from confboost.engine.learners.tree import compact_codes
    from confboost.kernels.histogram import build_histogram, build_histogram_naive

    _, dataset, labels, weights, pos, neg = _problem(rng, k, distinct=5)
    codes, n_hist_bins = compact_codes(dataset)
    assert n_hist_bins == dataset.n_bins.max() + 1 < N_HIST_BINS
    assert (codes == n_hist_bins - 1).sum() == (dataset.codes == 255).sum() > 0

    def kept(hist):  # the value bins and the missing bin of a 256-bin histogram
        return np.concatenate([hist[:, : n_hist_bins - 1], hist[:, 255:]], axis=1)

    full = np.empty((4, N_HIST_BINS, k, 2))
    compact = np.empty((4, n_hist_bins, k, 2))
    build_histogram(dataset.codes, weights, labels.sign_index, full)
    build_histogram(codes, weights, labels.sign_index, compact)
    np.testing.assert_array_equal(compact, kept(full))
    np.testing.assert_allclose(
        compact, build_histogram_naive(codes, weights, labels.sign_index, n_hist_bins),
        rtol=1e-12, atol=1e-15)
    rows = np.sort(rng.choice(300, 120, replace=False)).astype(np.intp)
    small_full, small_compact = np.empty_like(full), np.empty_like(compact)
    build_histogram_rows(dataset.codes, rows, weights[rows], labels.sign_index[rows],
                         small_full)
    build_histogram_rows(codes, rows, weights[rows], labels.sign_index[rows], small_compact)
    np.testing.assert_array_equal(small_compact, kept(small_full))
    subtract_sibling(full, small_full)
    subtract_sibling(compact, small_compact)
    np.testing.assert_array_equal(compact, kept(full))
    for mode in (REAL, DISCRETE):
        found = []
        for hist in (full, compact):
            out = np.empty(4), np.empty(4, dtype=np.intp), np.empty(4, dtype=bool)
            best_node_splits(hist, dataset.n_bins, mode, 0.0, *out)
            found.append(out)
        for a, b in zip(*found, strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("params", [{"max_leaves": 8}, {"max_leaves": 5, "confidence": "discrete"},
                                    {"max_leaves": 12, "scheme": "mr"}])
def test_compact_histograms_grow_the_same_trees(monkeypatch, params):
    """A label tree on compacted codes is the tree of the 256-bin histograms, bit for bit."""
    import confboost.engine.learners.tree as tree_module

    rng = np.random.default_rng(5)
    X = rng.poisson(2.0, size=(200, 12)).astype(np.float64)  # counts: a few bins each
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (X[:, 0] + np.nan_to_num(X[:, 1]) + rng.normal(size=200) > 4).astype(int)
    y = y + (np.nan_to_num(X[:, 2]) > 2)
    compact = BoostClassifier(6, weak_learner="tree", calibration=None, **params).fit(X, y)
    monkeypatch.setattr(tree_module, "compact_codes",
                        lambda dataset: (dataset.codes, N_HIST_BINS))
    full = BoostClassifier(6, weak_learner="tree", calibration=None, **params).fit(X, y)
    assert compact.model_.to_dict() == full.model_.to_dict()
    np.testing.assert_array_equal(compact.history_["z"], full.history_["z"])


def test_mass_histograms_grow_the_same_trees(monkeypatch):
    """A label tree of 10 labels (node histograms from row masses, build_histogram_masses,
    W+ and W- views of them) is the tree of the weight and sign-index kernels, bit for
    bit, missing values and all: below MASS_MIN_LABELS labels, and from
    GROUPED_MIN_FEATURES features on (one chunk of rows however small ROW_CHUNK is)."""
    import confboost.engine.learners.tree as tree_module

    rng = np.random.default_rng(7)
    X = rng.normal(size=(900, 6))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = np.digitize(np.nan_to_num(X[:, 0]) + X[:, 1] + rng.normal(size=900) / 2,
                    np.linspace(-2, 2, 9))
    assert len(np.unique(y)) == 10 >= tree_module.MASS_MIN_LABELS
    masses = BoostClassifier(4, weak_learner="tree", calibration=None).fit(X, y)
    assert X.shape[1] < tree_module.GROUPED_MIN_FEATURES
    with monkeypatch.context() as patch:
        patch.setattr(tree_module, "MASS_MIN_LABELS", 11)
        weights = BoostClassifier(4, weak_learner="tree", calibration=None).fit(X, y)
    with monkeypatch.context() as patch:
        patch.setattr(tree_module, "GROUPED_MIN_FEATURES", 6)
        patch.setattr(tree_module, "ROW_CHUNK", 97)
        grouped = BoostClassifier(4, weak_learner="tree", calibration=None).fit(X, y)
    for model in (weights, grouped):
        assert masses.model_.to_dict() == model.model_.to_dict()
        for key in ("z", "criterion"):  # the leaves' sums of the masses, and their total
            np.testing.assert_array_equal(masses.history_[key], model.history_[key])
    # the node histograms themselves, to the bit
    dataset = Dataset.from_array(X, 255)
    labels = LabelSigns.from_signs(np.where(y[:, None] == np.arange(10), 1.0, -1.0))
    row_weights = rng.random((900, 10))
    pos, neg = label_masses(row_weights, labels)
    node = np.flatnonzero(rng.random(900) < 0.7).astype(np.intp)
    hists = []
    for min_features in (tree_module.GROUPED_MIN_FEATURES, 6):
        with monkeypatch.context() as patch:
            patch.setattr(tree_module, "GROUPED_MIN_FEATURES", min_features)
            patch.setattr(tree_module, "ROW_CHUNK", 97)
            fill = tree_module.label_histograms(dataset, row_weights, labels, pos, neg)
        for rows in (None, node):
            hists.append(np.empty((6, N_HIST_BINS, 10, 2)))
            fill(rows, hists[-1])
    for got, want in zip(hists[2:], hists[:2], strict=True):
        np.testing.assert_array_equal(got, want)


def _scalar_split_reference(hist, n_bins, mode, min_leaf_weight):
    """The split search as one scalar loop per (bin, label), in Python: the arithmetic, in
    its order, that best_node_splits must reproduce to the bit."""
    import math

    from confboost.utils.dtypes import REAL_ABSTAIN

    def score(pos, neg):
        return 2.0 * math.sqrt(pos * neg) if mode in (REAL, REAL_ABSTAIN) else -abs(pos - neg)

    found = []
    for feature_hist, n_value_bins in zip(hist.tolist(), n_bins.tolist(), strict=True):
        k = len(feature_hist[0])
        all_pos, all_neg = [0.0] * k, [0.0] * k
        for b in range(n_value_bins):
            for l in range(k):
                all_pos[l] += feature_hist[b][l][0]
                all_neg[l] += feature_hist[b][l][1]
        miss = feature_hist[-1]
        node, missing_mass, value_mass = 0.0, 0.0, 0.0
        for l in range(k):
            node += score(all_pos[l] + miss[l][0], all_neg[l] + miss[l][1])
            missing_mass += miss[l][0] + miss[l][1]
            value_mass += all_pos[l] + all_neg[l]
        least = max(min_leaf_weight, 1e-12 * (value_mass + missing_mass))
        left_pos, left_neg, left_mass = [0.0] * k, [0.0] * k, 0.0
        best = (-np.inf, -1, True)
        for b in range(n_value_bins):
            cells = feature_hist[b]
            if b > 0 and sum_in_order(cells) == 0.0:
                continue
            sl = sr = slm = srm = 0.0
            for l in range(k):
                left_pos[l] += cells[l][0]
                left_neg[l] += cells[l][1]
                left_mass += cells[l][0] + cells[l][1]
                right_pos = max(all_pos[l] - left_pos[l], 0.0)
                right_neg = max(all_neg[l] - left_neg[l], 0.0)
                sr += score(right_pos, right_neg)
                sl += score(left_pos[l], left_neg[l])
                slm += score(left_pos[l] + miss[l][0], left_neg[l] + miss[l][1])
                srm += score(right_pos + miss[l][0], right_neg + miss[l][1])
            if missing_mass == 0.0:
                slm, srm = sl, sr
            right_mass = max(value_mass - left_mass, 0.0)
            if left_mass + missing_mass >= least and right_mass >= least:
                if node - slm - sr > best[0]:
                    best = (node - slm - sr, b, True)
            if left_mass >= least and right_mass + missing_mass >= least:
                if node - sl - srm > best[0]:
                    best = (node - sl - srm, b, False)
        found.append(best)
    return found


def sum_in_order(cells):
    """Σ (W+ + W-) of a bin's cells, in label order."""
    total = 0.0
    for pos, neg in cells:
        total += pos + neg
    return total


@pytest.mark.parametrize("k", [1, 3, 10, 20])
@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_node_splits_equal_the_scalar_loop_bit_for_bit(rng, k, missing):
    """best_node_splits (real modes on features of many (bin, label) cells: candidates laid
    out side by side, in one block or several, scores vectorised across candidates) finds
    each feature's gain, bin and missing side of one scalar loop per (bin, label), to the
    bit: a feature of 255 bins (several blocks at 20 labels), empty bins, bins of one
    non-empty cell (the last label's), missing values, a feature of one value, of few
    bins, of 12 bins (vectorised with 10 and 20 labels, by the scalar loop with fewer),
    every mode, two least masses."""
    from confboost.kernels.node_split import _SCAN_FEW_BINS, _SCAN_MIN_CELLS, _SIDE_BYTES

    X, _, _, _, pos, neg = _problem(rng, k, missing=missing, n_samples=600, n_features=5,
                                    distinct=40)
    X[:, 0] = np.where(np.isnan(X[:, 0]), np.nan, rng.normal(size=600))
    X[:, 4] = 1.0
    X[:, 3] = np.round(X[:, 3] / 3)
    X[:, 2] = rng.integers(0, 12, 600)
    dataset = Dataset.from_array(X, 255)
    assert dataset.n_bins[0] > max(_SCAN_MIN_CELLS, _SIDE_BYTES // (16 * 20))
    assert 12 * 10 >= _SCAN_MIN_CELLS > 12 * 3 and dataset.n_bins[2] == 12 >= _SCAN_FEW_BINS
    assert _SCAN_FEW_BINS > dataset.n_bins[3]
    rows = np.sort(rng.choice(600, 400, replace=False)).astype(np.intp)
    hist = np.empty((5, N_HIST_BINS, k, 2))
    node_histogram(dataset.codes, rows, pos, neg, hist)
    hist[1, 3:60:2] = 0.0  # empty bins inside a run of candidates
    hist[1, 61:64] = 0.0  # bins whose only mass is one cell: the last label's W-, its W+
    hist[1, 61, k - 1, 1] = 0.25
    hist[1, 63, k - 1, 0] = 0.125
    for mode in range(4):  # real, discrete, abstain, real-abstain
        for least in (0.0, 0.05):
            out = np.empty(5), np.empty(5, dtype=np.intp), np.empty(5, dtype=bool)
            best_node_splits(hist, dataset.n_bins, mode, least, *out)
            assert list(zip(*(a.tolist() for a in out), strict=True)) == (
                _scalar_split_reference(hist, dataset.n_bins, mode, least))


@pytest.mark.parametrize("n", [400, 3 * PARTITION_CHUNK + 123])  # one chunk, several
def test_partition_rows_in_order_reads_no_rows(rng, n):
    """``in_order``: the rows are taken as 0, 1, ..., whatever the array holds (a tree's
    root, its row order not written)."""
    codes = rng.integers(0, 256, size=n).astype(np.uint8)
    expected_left, expected_right = partition_rows_naive(codes, np.arange(n), 100, True)
    rows = np.full(n, -7, dtype=np.intp)
    n_left = partition_rows(codes, rows, 0, n, 100, True, np.empty((2, n), np.intp), True)
    np.testing.assert_array_equal(rows, np.concatenate([expected_left, expected_right]))
    assert n_left == expected_left.size


@pytest.mark.parametrize("n", [300, 3 * PARTITION_CHUNK + 123])  # one chunk, several
def test_range_blocks_equal_naive_on_any_thread_count(rng, n):
    """Each example gets its range's value, empty ranges included (one before a range
    starting where it does, one at the end)."""
    import numba

    from confboost.kernels.tree_nodes import range_blocks, range_blocks_naive

    rows = rng.permutation(n).astype(np.intp)
    cuts = np.sort(rng.choice(np.arange(1, n), 6, replace=False))
    starts = np.concatenate([[0], cuts[:3], cuts[3:4], cuts[3:], [n, n]]).astype(np.intp)
    values = rng.permutation(starts.size - 1).astype(np.uint8)
    expected = np.full(n, 255, dtype=np.uint8)
    range_blocks_naive(rows, starts, values, expected)
    assert (expected != 255).all()
    previous = numba.get_num_threads()
    try:
        for threads in (1, 2):
            numba.set_num_threads(threads)
            out = np.full(n, 255, dtype=np.uint8)
            range_blocks(rows, starts, values, out)
            np.testing.assert_array_equal(out, expected)
    finally:
        numba.set_num_threads(previous)


def test_local_rows_write_their_order_only_when_read(rng):
    """A tree's row order is 0, 1, ... until the root splits, whatever the kept array holds
    from the last tree: a root's threshold partition, a leaf of the whole set and a read of
    ``rows`` each see that order."""
    from confboost.engine.learners.grower import LocalRows, WorkArrays

    _, dataset, _, _, _, _ = _problem(rng, 1, n_samples=500)
    work = WorkArrays()
    work.get("rows", (500,), np.intp).fill(-3)  # what the last tree left
    leaf = LocalRows(dataset, None, work=work).leaf_blocks({0: 0})
    np.testing.assert_array_equal(leaf, np.zeros(500, dtype=np.uint8))
    np.testing.assert_array_equal(LocalRows(dataset, None, work=work).rows, np.arange(500))
    work.get("rows", (500,), np.intp).fill(-3)
    row_sets = LocalRows(dataset, None, work=work)
    n_left = row_sets.partition(0, (NODE_THRESHOLD, 1, 2, True), 1, 2)
    left, right = partition_rows_naive(dataset.codes[1], np.arange(500), 2, True)
    np.testing.assert_array_equal(row_sets.rows, np.concatenate([left, right]))
    blocks = row_sets.leaf_blocks({1: 0, 2: 1})
    assert n_left == left.size
    np.testing.assert_array_equal(blocks[left], 0)
    np.testing.assert_array_equal(blocks[right], 1)

@pytest.mark.parametrize("k", [3, 10])
def test_node_splits_at_a_least_mass_equal_to_a_child_mass_equal_the_scalar_loop(rng, k):
    """Where the least child mass is exactly a candidate's left or right mass (the scalar
    loop's sums), the vectorised scan's own sum of that mass cannot decide the test, and it
    takes the scalar loop's: gain, bin and missing side to the bit, with and without
    missing values, at each candidate's child masses."""
    X, _, _, _, pos, neg = _problem(rng, k, missing=0.1, n_samples=500, n_features=1,
                                    distinct=20)
    dataset = Dataset.from_array(X, 255)
    hist = np.empty((1, N_HIST_BINS, k, 2))
    node_histogram(dataset.codes, np.arange(500, dtype=np.intp), pos, neg, hist)
    n_bins = dataset.n_bins
    assert n_bins[0] * k >= 60
    for missing_cells in (hist[0, -1].copy(), np.zeros_like(hist[0, -1])):
        hist[0, -1] = missing_cells
        cells = hist[0, : n_bins[0]].tolist()
        value_mass = sum_in_order([[sum(c[l][0] for c in cells), sum(c[l][1] for c in cells)]
                                   for l in range(k)])
        left, leasts = 0.0, []
        for bin_cells in cells:
            left += sum_in_order(bin_cells)
            leasts += [left, max(value_mass - left, 0.0)]
        for least in leasts:
            out = np.empty(1), np.empty(1, dtype=np.intp), np.empty(1, dtype=bool)
            best_node_splits(hist, n_bins, REAL, least, *out)
            assert list(zip(*(a.tolist() for a in out), strict=True)) == (
                _scalar_split_reference(hist, n_bins, REAL, least))
