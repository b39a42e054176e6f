"""A tree per label (``learners/label_trees.py``): the update kernel against its naive twin,
each label's tree against the one-label tree learner, Z of the chosen partition and the MH
update against direct computations, and the predict, save, pickle, explain and print round
trips."""

import json
import pickle

import numpy as np
import pytest
from sklearn.datasets import load_digits

from confboost import BoostClassifier
from confboost.data.dataset import Dataset, LabelSigns
from confboost.engine.learners import HYPOTHESIS_TYPES, label_trees
from confboost.engine.learners.base import label_masses
from confboost.engine.learners.label_trees import (
    LABEL_BLOCK_DTYPE,
    LabelTreesHypothesis,
    LabelTreesLearner,
)
from confboost.engine.learners.tree import TreeLearner
from confboost.engine.schemes.mh import MHScheme
from confboost.estimators import load
from confboost.kernels.criterion_numpy import REAL
from confboost.kernels.label_update import apply_label_partition, apply_label_partition_naive
from confboost.utils.threads import concurrent_calls_safe, numba_threads
from tests.conftest import random_problem
from tests.helpers import mixed_frame, table_fit_parts

SMOOTHING = 1e-6


def _problem(rng, k=3, n_samples=300, distinct=7):
    X, signs, weights = random_problem(rng, n_samples=n_samples, n_features=4, k=k,
                                       missing=0.1, distinct=distinct)
    return X, Dataset.from_array(X, 255), LabelSigns.from_signs(signs), weights


@pytest.mark.parametrize("loss_kind", [0, 1])
@pytest.mark.parametrize("one_column", [True, False])
def test_apply_label_partition_equals_naive(rng, loss_kind, one_column):
    k, n = 4, 200
    _, signs, weights = random_problem(rng, n_samples=n, k=k)
    if loss_kind == 1:  # single-label signs
        signs = -np.ones((n, k), dtype=np.int8)
        signs[np.arange(n), rng.integers(0, k, n)] = 1
    sign_index = (signs < 0).astype(np.uint8)
    blocks = rng.integers(0, 9, size=(n, k)).astype(np.uint16)
    steps = rng.normal(size=(9, k))
    steps[2, 1] = 0.0  # a score of exactly 0 counts as an error
    factors = np.stack([np.exp(-steps), np.exp(steps)], axis=-1) / 1.3
    scores = np.round(rng.normal(size=(n, k)), 1)
    loss_weights = rng.random((n, 1 if one_column else k))
    fast = [weights.copy(), scores.copy()]
    naive = [weights.copy(), scores.copy()]
    got = apply_label_partition(fast[0], sign_index, blocks, steps, factors, fast[1],
                                loss_kind, loss_weights)
    want = apply_label_partition_naive(naive[0], sign_index, blocks, steps, factors,
                                       naive[1], loss_kind, loss_weights)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(fast[0], naive[0], rtol=1e-12)
    np.testing.assert_allclose(fast[1], naive[1], rtol=1e-12)


def _assert_same_fit(got, want):
    """Two ``PartitionFit``s of a tree per label equal to the bit."""
    for tree, other in zip(got.hypothesis.trees, want.hypothesis.trees, strict=True):
        np.testing.assert_array_equal(tree.column, other.column)
        np.testing.assert_array_equal(tree.threshold, other.threshold)
        np.testing.assert_array_equal(tree.values, other.values)
    for name in ("train_blocks", "weight_pos", "weight_neg"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
    assert got.criterion == want.criterion


def _two_threads():
    numba = pytest.importorskip("numba")
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one numba thread")
    return numba


@pytest.mark.parametrize(("k", "leaves"), [(10, 16), (10, 28), (3, 8)])
def test_trees_grown_at_once_are_the_serial_trees(rng, k, leaves):
    """On two kernel threads the round's trees grow on two threads at once, each on its
    own tree learner; trees, blocks, statistics and Z are those grown one after the other
    on one thread, round after round, and the caller's thread count is restored."""
    numba = _two_threads()
    X, signs, _ = random_problem(rng, n_samples=1500, n_features=12, k=k, distinct=40)
    dataset, labels = Dataset.from_array(X, 255), LabelSigns.from_signs(signs)
    serial = LabelTreesLearner(REAL, SMOOTHING, max_leaves=leaves)
    concurrent = LabelTreesLearner(REAL, SMOOTHING, max_leaves=leaves)
    for _ in range(3):
        weights = rng.random(signs.shape)
        weights /= weights.sum()
        with numba_threads(1):
            want = serial.fit(dataset, weights, labels)
        with numba_threads(2):
            got = concurrent.fit(dataset, weights, labels)
            assert numba.get_num_threads() == 2
        _assert_same_fit(got, want)
    assert len(concurrent._more_trees) == 1 and not serial._more_trees


def test_trees_grown_in_order_past_the_histogram_memory(rng, monkeypatch):
    """Where two trees' histograms at once would pass the grower's memory limit, the trees
    grow one after the other (the same trees)."""
    _two_threads()
    X, signs, weights = random_problem(rng, n_samples=500, n_features=6, k=4, distinct=40)
    dataset, labels = Dataset.from_array(X, 255), LabelSigns.from_signs(signs)
    with numba_threads(1):
        want = LabelTreesLearner(REAL, SMOOTHING, max_leaves=8).fit(dataset, weights, labels)
    n_hist_bins = int(dataset.n_bins.max()) + 1
    monkeypatch.setattr(label_trees, "HISTOGRAM_MEMORY", 8 * 6 * n_hist_bins * 2 * 8)
    learner = LabelTreesLearner(REAL, SMOOTHING, max_leaves=8)
    with numba_threads(2):
        got = learner.fit(dataset, weights, labels)
    _assert_same_fit(got, want)
    assert not learner._more_trees


def test_trees_grown_in_order_on_a_layer_that_is_not_thread_safe(rng, monkeypatch):
    """numba's ``workqueue`` layer aborts the process on parallel regions started from two
    threads at once: under it the trees grow one after the other (the same trees)."""
    numba = _two_threads()
    X, signs, weights = random_problem(rng, n_samples=500, n_features=6, k=4, distinct=40)
    dataset, labels = Dataset.from_array(X, 255), LabelSigns.from_signs(signs)
    with numba_threads(2):
        want = LabelTreesLearner(REAL, SMOOTHING, max_leaves=8).fit(dataset, weights, labels)
    monkeypatch.setattr(numba, "threading_layer", lambda: "workqueue")
    assert not concurrent_calls_safe()
    learner = LabelTreesLearner(REAL, SMOOTHING, max_leaves=8)
    with numba_threads(2):
        got = learner.fit(dataset, weights, labels)
    _assert_same_fit(got, want)
    assert not learner._more_trees


def test_trees_grown_at_once_on_a_mixed_table(rng):
    """Numeric, categorical and text columns: the same trees at once as in order."""
    _two_threads()
    frame, Y = mixed_frame(rng, n=300)
    _, dataset, _, labels, weights = table_fit_parts(frame, Y, rng)
    with numba_threads(1):
        want = LabelTreesLearner(REAL, SMOOTHING, max_leaves=6).fit(dataset, weights, labels)
    learner = LabelTreesLearner(REAL, SMOOTHING, max_leaves=6)
    with numba_threads(2):
        got = learner.fit(dataset, weights, labels)
    _assert_same_fit(got, want)
    assert learner._more_trees


def test_trees_with_value_and_term_nodes_walk_one_by_one(rng):
    """A round with categorical or text tests (not a forest of thresholds) finds its
    blocks tree by tree, as before: the training blocks, and scores as the default sum."""
    from confboost.engine.learners.base import PartitionHypothesis

    frame, Y = mixed_frame(rng, n=300)
    _, dataset, predict_frame, labels, weights = table_fit_parts(frame, Y, rng)
    fit = LabelTreesLearner(REAL, SMOOTHING, max_leaves=6).fit(dataset, weights, labels)
    hypothesis = fit.hypothesis
    assert not label_trees._threshold_trees([hypothesis])
    np.testing.assert_array_equal(hypothesis.blocks(predict_frame), fit.train_blocks)
    scores, expected = np.zeros(Y.shape), np.zeros(Y.shape)
    LabelTreesHypothesis.add_scores([hypothesis], [0.7], predict_frame, scores)
    PartitionHypothesis.add_scores.__func__(LabelTreesHypothesis, [hypothesis], [0.7],
                                            predict_frame, expected)
    np.testing.assert_array_equal(scores, expected)


@pytest.mark.parametrize(("distinct", "leaves"), [(7, 5), (200, 16)])
def test_each_label_tree_is_the_one_label_tree(rng, distinct, leaves):
    """Tree l is the one-label ``TreeLearner``'s on label l's masses, to the bit, on
    features of few bins and of many."""
    _, dataset, labels, weights = _problem(rng, distinct=distinct)
    fit = LabelTreesLearner(REAL, SMOOTHING, max_leaves=leaves).fit(dataset, weights, labels)
    hypothesis = fit.hypothesis
    for label in range(3):
        alone = TreeLearner(REAL, SMOOTHING, max_leaves=leaves).fit(
            dataset, np.ascontiguousarray(weights[:, [label]]),
            LabelSigns.from_signs(labels.signs[:, [label]]))
        tree = hypothesis.trees[label]
        np.testing.assert_array_equal(tree.column, alone.hypothesis.column)
        np.testing.assert_array_equal(tree.threshold, alone.hypothesis.threshold)
        np.testing.assert_array_equal(tree.values, alone.hypothesis.values)
        np.testing.assert_array_equal(fit.train_blocks[:, label],
                                      alone.train_blocks + hypothesis.offsets[label])


def test_z_of_the_chosen_partition_by_brute_force(rng):
    """Z_t = Σ_l Σ_j 2 √(W+_jl W-_jl) over the blocks X_j^l × {l} (Eq. 10), each block's
    masses summed directly over the examples the hypothesis sends there."""
    X, dataset, labels, weights = _problem(rng)
    weights = weights / weights.sum()
    fit = LabelTreesLearner(REAL, SMOOTHING, max_leaves=6).fit(dataset, weights, labels)
    blocks = fit.hypothesis.blocks(X)
    np.testing.assert_array_equal(blocks, fit.train_blocks)
    z = 0.0
    for label in range(3):
        for block in np.unique(blocks[:, label]):
            here = blocks[:, label] == block
            plus = weights[here & (labels.signs[:, label] > 0), label].sum()
            minus = weights[here & (labels.signs[:, label] < 0), label].sum()
            z += 2.0 * np.sqrt(plus * minus)
            assert fit.weight_pos[block, label] == pytest.approx(plus, rel=1e-12, abs=1e-15)
            assert fit.weight_neg[block, label] == pytest.approx(minus, rel=1e-12, abs=1e-15)
            assert not np.any(fit.hypothesis.values[block, np.arange(3) != label])
    assert fit.criterion == pytest.approx(z, rel=1e-10)


def test_mh_update_with_a_block_per_label(rng):
    """D_{t+1}(i, l) = D_t(i, l) exp(-α Y h(x_i, l)) / Z_t, f += α h, computed directly."""
    X, dataset, labels, weights = _problem(rng)
    scheme = MHScheme(labels.signs, np.ones(X.shape[0]), single_label=False)
    before = scheme.weights.copy()
    fit = LabelTreesLearner(REAL, SMOOTHING, max_leaves=4).fit(
        dataset, scheme.learner_weights, scheme.labels)
    alpha = 0.7
    outputs = fit.hypothesis.block_outputs(fit.hypothesis.blocks(X))
    unnormalised = before * np.exp(-alpha * labels.signs * outputs)
    z = scheme.update(fit, alpha)
    assert z == pytest.approx(unnormalised.sum(), rel=1e-12)
    np.testing.assert_allclose(scheme.weights, unnormalised / unnormalised.sum(), rtol=1e-10)
    np.testing.assert_allclose(scheme.scores, alpha * outputs, rtol=1e-12)


def test_label_masses_split_per_label(rng):
    _, dataset, labels, weights = _problem(rng)
    fit = LabelTreesLearner(REAL, SMOOTHING, max_leaves=3).fit(dataset, weights, labels)
    pos, neg = label_masses(weights, labels)
    np.testing.assert_allclose(fit.weight_pos.sum(axis=0), pos.sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(fit.weight_neg.sum(axis=0), neg.sum(axis=0), rtol=1e-12)


@pytest.fixture(scope="module")
def digits_model():
    X, y = load_digits(return_X_y=True)
    model = BoostClassifier(6, weak_learner="label_trees", max_leaves=4,
                            calibration=None).fit(X[:600], y[:600])
    return model, X[600:700]


def test_predict_save_and_pickle_round_trips(digits_model, tmp_path):
    model, X = digits_model
    assert isinstance(model.model_.hypotheses[0], LabelTreesHypothesis)
    scores = model.decision_function(X)
    np.testing.assert_allclose(list(model.staged_decision_function(X))[-1], scores)
    path = tmp_path / "model.json"
    model.save(path)
    np.testing.assert_array_equal(load(path).decision_function(X), scores)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).decision_function(X),
                                  scores)


def test_a_float32_frame_is_converted_once_for_all_trees(digits_model, monkeypatch):
    # every tree walks float64 values; a float32 X is converted once per model (and per
    # round's blocks), every round's trees walked together, and the blocks are those of the
    # float64 X
    model, X = digits_model
    expected = model.decision_function(X.astype(np.float64))
    walked = []
    original = label_trees.forest_leaves
    monkeypatch.setattr(label_trees, "forest_leaves", lambda X, *rest: (
        walked.append((X, rest[-1].shape[1])), original(X, *rest))[1])
    scores = model.decision_function(X.astype(np.float32))
    np.testing.assert_array_equal(scores, expected)
    assert [n_trees for _, n_trees in walked] == [10 * len(model.model_.hypotheses)]
    assert walked[0][0].dtype == np.float64
    hypothesis = model.model_.hypotheses[0]
    walked.clear()
    np.testing.assert_array_equal(hypothesis.blocks(X.astype(np.float32)),
                                  hypothesis.blocks(X.astype(np.float64)))
    assert [(each.dtype, n_trees) for each, n_trees in walked] == [(np.float64, 10)] * 2


def test_trees_walked_together_give_each_trees_blocks_and_scores(digits_model, monkeypatch):
    """A round's blocks and the model's scores from every tree walked together
    (``forest_walk.forest_leaves``, in slices of rows) are those of each tree's own walk
    (``TreeHypothesis.blocks``, one hypothesis after the other), bit for bit, with missing
    values."""
    from confboost.engine.learners.base import PartitionHypothesis

    model, X = digits_model
    X = X.astype(np.float64)
    X[np.random.default_rng(0).random(X.shape) < 0.2] = np.nan
    hypotheses = model.model_.hypotheses
    alphas = np.linspace(0.3, 1.1, len(hypotheses))
    for hypothesis in hypotheses:
        expected = np.stack([tree.blocks(X) + hypothesis.offsets[label]
                             for label, tree in enumerate(hypothesis.trees)], axis=1)
        np.testing.assert_array_equal(hypothesis.blocks(X), expected)
        assert hypothesis.blocks(X).dtype == LABEL_BLOCK_DTYPE
    start = np.random.default_rng(1).normal(size=(X.shape[0], 10))
    expected = start.copy()
    for hypothesis, alpha in zip(hypotheses, alphas, strict=True):
        trees_blocks = np.stack([tree.blocks(X) + hypothesis.offsets[label]
                                 for label, tree in enumerate(hypothesis.trees)], axis=1)
        expected += alpha * hypothesis.block_outputs(trees_blocks)
    monkeypatch.setattr(label_trees, "WALK_BYTES", 7 * 10 * len(hypotheses))  # slices of 7
    scores = start.copy()
    LabelTreesHypothesis.add_scores(hypotheses, alphas, X, scores)
    np.testing.assert_array_equal(scores, expected)
    scores = start.copy()
    PartitionHypothesis.add_scores.__func__(LabelTreesHypothesis, hypotheses, alphas, X,
                                            scores)
    np.testing.assert_array_equal(scores, expected)


def test_explanations_sum_to_the_scores(digits_model):
    model, X = digits_model
    contributions = model.explain(X[:20])
    np.testing.assert_allclose(contributions.sum(axis=-1), model.decision_function(X[:20]),
                               atol=1e-10)


def test_printed_with_a_tree_per_class(digits_model):
    model, _ = digits_model
    text = model.model_.hypotheses[0].describe(classes=[f"c{i}" for i in range(10)])
    assert all(f"c{i}:" in text for i in range(10))
    assert text.count("->") == model.model_.hypotheses[0].values.shape[0]


def test_saved_record_is_checked(digits_model):
    model, _ = digits_model
    data = json.loads(json.dumps(model.model_.hypotheses[0].to_dict()))
    read = HYPOTHESIS_TYPES["label_trees"].from_dict(data, n_labels=10)
    np.testing.assert_array_equal(read.values, model.model_.hypotheses[0].values)
    with pytest.raises(ValueError, match="trees"):
        HYPOTHESIS_TYPES["label_trees"].from_dict(data, n_labels=9)
    wrong = json.loads(json.dumps(data))
    wrong["trees"][2]["type"] = "stump"
    with pytest.raises(ValueError, match=r"trees\[2\]\.type"):
        LabelTreesHypothesis.from_dict(wrong, n_labels=10)
    wrong = json.loads(json.dumps(data))
    wrong["trees"][1]["values"] = [[1.0, 2.0]] * len(wrong["trees"][1]["values"])
    with pytest.raises(ValueError, match=r"trees\[1\]\.values"):
        LabelTreesHypothesis.from_dict(wrong, n_labels=10)
    with pytest.raises(ValueError, match="trees"):
        LabelTreesHypothesis.from_dict({"type": "label_trees"}, n_labels=10)


def test_not_under_mr():
    X, y = load_digits(return_X_y=True)
    with pytest.raises(ValueError, match="label_trees.*mh"):
        BoostClassifier(2, scheme="mr", weak_learner="label_trees").fit(X[:100], y[:100])
