"""AdaBoost.MR: Figure 5 (O(mk)) against the naive Figure 4 over crucial triples; Theorem 6."""

import numpy as np
import pytest

from confboost.data.dataset import Dataset, LabelSigns
from confboost.engine.alpha import choose_alpha, exact_alpha
from confboost.engine.boosting import run_boosting
from confboost.engine.learners import StumpLearner
from confboost.engine.schemes.mr import (
    MRScheme,
    bound_offsets,
    pair_confidences,
)
from confboost.engine.schemes.mr_cut import hamming_threshold_naive
from confboost.evaluation.metrics import ranking_loss
from confboost.kernels.criterion_numpy import DISCRETE, REAL
from confboost.kernels.weight_update import (
    example_ranking_losses,
    example_ranking_losses_naive,
    pair_block_masses,
    pair_block_masses_naive,
    pair_learner_weights,
    pair_learner_weights_naive,
    update_pair_weights,
    update_pair_weights_naive,
)
from tests.conftest import random_problem


class NaiveMR:
    """Figure 4 as written: weights D(i, l0, l1) over every crucial triple (the oracle)."""

    def __init__(self, signs, sample_weight):
        self.labels = LabelSigns.from_signs(signs)
        positive = signs > 0
        crucial = ~positive[:, :, None] & positive[:, None, :]  # l0 ∉ Y, l1 ∈ Y
        n_pairs = crucial.sum(axis=(1, 2))
        w = np.where(n_pairs > 0, sample_weight, 0.0)
        w = w / w.sum()
        self.D = np.where(crucial, (w / np.maximum(n_pairs, 1))[:, None, None], 0.0)
        self.crucial = crucial
        self.scores = np.zeros(signs.shape)

    @property
    def learner_weights(self):
        # r = ½ Σ D (h(l1) - h(l0)) = Σ_l d(l) Y[l] h(l) with d from the triples directly
        positive = self.labels.signs > 0
        as_true = 0.5 * self.D.sum(axis=1)
        as_false = 0.5 * self.D.sum(axis=2)
        return np.ascontiguousarray(np.where(positive, as_true, as_false))

    def choose_alpha(self, fit, method, mode, smoothing):
        if mode == DISCRETE and method == "auto":
            return choose_alpha(method, mode, fit.weight_pos, fit.weight_neg,
                                fit.hypothesis.values, smoothing)
        if mode == REAL and method == "auto":
            # §9 Eq. 25 folded: the pair table summed straight from the triples
            n_blocks = fit.hypothesis.values.shape[0]
            masses = np.zeros((n_blocks,) + self.D.shape[1:])
            np.add.at(masses, fit.train_blocks, self.D)
            folded = pair_confidences(masses, smoothing)
            offsets = bound_offsets(folded, fit.weight_pos, fit.weight_neg)
            fit.hypothesis.values[:] = folded + offsets[:, None]
            return 1.0, False
        h = fit.hypothesis.values[fit.train_blocks]
        margins = 0.5 * (h[:, None, :] - h[:, :, None])  # ½(h(l1) - h(l0))
        return exact_alpha(self.D[self.crucial], margins[self.crucial], smoothing)

    def update(self, fit, alpha):
        h = fit.hypothesis.values[fit.train_blocks]
        self.scores += alpha * h
        new = self.D * np.exp(0.5 * alpha * (h[:, :, None] - h[:, None, :]))
        z = float(new.sum())
        self.D = new / z
        return z


def multilabel_problem(rng, n_samples=150, k=5):
    X, _, _ = random_problem(rng, n_samples=n_samples, n_features=6, k=1)
    signs = np.where(rng.random((n_samples, k)) < 0.4, 1, -1).astype(np.int8)
    # a signal the stumps can find, plus a few rows without a crucial pair
    signs[:, 0] = np.where(np.nan_to_num(X[:, 0]) > 0, 1, -1)
    signs[:3] = 1
    signs[3:6] = -1
    return X, signs


@pytest.mark.parametrize("confidence, method", [(DISCRETE, "auto"), (REAL, "auto"),
                                                (REAL, "exact")],
                         ids=["discrete", "real", "real-exact"])
def test_figure_5_equals_figure_4_over_crucial_triples(rng, confidence, method):
    X, signs = multilabel_problem(rng)
    sample_weight = rng.random(len(X)) + 0.5
    dataset = Dataset.from_array(X, 32)
    fast, naive = MRScheme(signs, sample_weight), NaiveMR(signs, sample_weight)
    smoothing = 1e-3
    learner = StumpLearner(confidence, smoothing)
    for _ in range(20):
        np.testing.assert_allclose(fast.learner_weights, naive.learner_weights, atol=1e-12)
        fit_fast = learner.fit(dataset, fast.learner_weights, fast.labels)
        fit_naive = learner.fit(dataset, naive.learner_weights, naive.labels)
        h_fast, h_naive = fit_fast.hypothesis, fit_naive.hypothesis
        assert (h_fast.feature, h_fast.threshold) == (h_naive.feature, h_naive.threshold)
        np.testing.assert_allclose(h_fast.values, h_naive.values, rtol=1e-10, atol=1e-10)
        alpha_fast, capped_fast = fast.choose_alpha(fit_fast, method, confidence, smoothing)
        alpha_naive, capped_naive = naive.choose_alpha(fit_naive, method, confidence, smoothing)
        # MR's folded real values are a Newton minimiser: the last bits of the pair masses
        # (their summation order, one thread or several) move them by up to ~1e-6
        np.testing.assert_allclose(h_fast.values, h_naive.values, rtol=1e-5, atol=1e-9)
        h_naive.values[:] = h_fast.values  # both schemes go on with the same hypothesis
        assert alpha_fast == pytest.approx(alpha_naive, rel=1e-10, abs=1e-12)
        assert capped_fast == capped_naive
        z_fast, z_naive = fast.update(fit_fast, alpha_fast), naive.update(fit_naive, alpha_naive)
        assert z_fast == pytest.approx(z_naive, rel=1e-10)
        # Eq. 29: D(i, l0, l1) = v(i, l0) v(i, l1) on the crucial triples, 0 elsewhere
        outer = fast.v[:, :, None] * fast.v[:, None, :]
        np.testing.assert_allclose(np.where(naive.crucial, outer, 0.0), naive.D,
                                   rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(fast.scores, naive.scores, rtol=1e-10, atol=1e-10)


def test_real_alpha_minimises_the_pair_objective(rng):
    X, signs = multilabel_problem(rng)
    scheme = MRScheme(signs, np.ones(len(X)))
    fit = StumpLearner(REAL, 1e-3).fit(Dataset.from_array(X, 32), scheme.learner_weights,
                                        scheme.labels)
    h = fit.hypothesis.values[fit.train_blocks]
    alpha, capped = scheme.exact_alpha(fit.train_blocks, fit.hypothesis.values, 1e-3)
    assert not capped

    def z(a):
        below = np.where(signs < 0, scheme.v * np.exp(0.5 * a * h), 0).sum(axis=1)
        above = np.where(signs > 0, scheme.v * np.exp(-0.5 * a * h), 0).sum(axis=1)
        return float(np.sum(below * above))

    assert z(alpha) <= min(z(alpha - 1e-4), z(alpha + 1e-4))
    assert z(alpha) <= z(1.0)  # never worse than the learner's own scale


@pytest.mark.parametrize("k", [2, 5])
def test_pair_kernels_equal_naive(rng, k):
    _, signs, _ = random_problem(rng, n_samples=97, k=k)
    v = rng.random((97, k))
    np.testing.assert_allclose(pair_learner_weights_naive(v, signs),
                               _fill(pair_learner_weights, v, signs), rtol=1e-13)
    blocks = rng.integers(0, 3, 97).astype(np.uint8)
    values = rng.normal(size=(3, k))
    kept = {}
    for normalise in (True, False):  # a shard's step leaves v unnormalised
        v_fast, v_slow = v.copy(), v.copy()
        s_fast, s_slow = np.zeros((97, k)), np.zeros((97, k))
        z_fast = update_pair_weights(v_fast, signs, blocks, values, 0.7, s_fast, normalise)
        z_slow = update_pair_weights_naive(v_slow, signs, blocks, values, 0.7, s_slow,
                                           normalise)
        assert z_fast == pytest.approx(z_slow, rel=1e-12)
        np.testing.assert_allclose(v_fast, v_slow, rtol=1e-12)
        np.testing.assert_allclose(s_fast, s_slow, rtol=1e-12)
        kept[normalise] = v_fast, z_fast
    (normalised, z), (left, _) = kept[True], kept[False]
    np.testing.assert_allclose(left / np.sqrt(z), normalised, rtol=1e-12)
    assert not np.allclose(left, normalised)
    masses = np.empty((3, k, k))
    pair_block_masses(v, signs, blocks, 3, masses)
    np.testing.assert_allclose(masses, pair_block_masses_naive(v, signs, blocks, 3),
                               rtol=1e-13, atol=1e-15)
    scores = np.round(rng.normal(size=(97, k)), 1)  # ties count as wrong
    losses = np.empty(97)
    example_ranking_losses(signs, scores, losses)
    np.testing.assert_allclose(losses, example_ranking_losses_naive(signs, scores), rtol=1e-14)
    # the table carries the whole pair objective: Σ over it = Σ_i (false v)(true v)
    below = np.where(signs < 0, v, 0).sum(axis=1)
    above = np.where(signs > 0, v, 0).sum(axis=1)
    assert masses.sum() == pytest.approx(float(np.dot(below, above)), rel=1e-12)


def _fill(kernel, v, signs):
    d = np.empty_like(v)
    kernel(v, signs, d)
    return d


@pytest.mark.parametrize("confidence", [DISCRETE, REAL], ids=["discrete", "real"])
def test_ranking_loss_below_product_of_z_on_random_data(rng, confidence):
    X, signs = multilabel_problem(rng)
    scheme = MRScheme(signs, np.ones(len(X)))
    _, _, history = run_boosting(Dataset.from_array(X, 32), scheme,
                                 StumpLearner(confidence, 1e-3), 30, "auto", confidence, 1e-3)
    assert np.all(history["train_loss"] <= history["bound"] + 1e-12)
    # the scheme's loss is the paper's ranking loss over the rows with a crucial pair
    assert history["train_loss"][-1] == pytest.approx(ranking_loss(signs[6:], scheme.scores[6:]))


def test_rows_without_crucial_pairs_get_zero_weight_and_none_is_an_error():
    signs = np.array([[1, 1], [-1, -1], [1, -1]], dtype=np.int8)
    scheme = MRScheme(signs, np.ones(3))
    assert np.all(scheme.v[:2] == 0) and np.all(scheme.learner_weights[:2] == 0)
    with pytest.raises(ValueError, match="no crucial pair"):
        MRScheme(signs[:2], np.ones(2))


def test_hamming_threshold_separates_when_it_can():
    signs = np.array([[1, -1, -1], [1, 1, -1]], dtype=np.int8)
    scores = np.array([[2.0, -1.0, 0.0], [0.5, 0.7, 0.3]])
    threshold = hamming_threshold_naive(signs, scores, np.ones(2))
    np.testing.assert_array_equal(scores > threshold, signs > 0)
    assert 0.3 < threshold < 0.5


def pair_objective(masses, smoothing, c):
    """F(c) = Σ_{l0 != l1} (M[l0, l1] + ε) exp(½ (c_l0 - c_l1)) of one block (§9 Eq. 25)."""
    k = len(c)
    cells = masses + smoothing * (1 - np.eye(k))
    return float(np.sum(cells * np.exp(0.5 * (c[:, None] - c[None, :]))))


def test_pair_confidences_closed_form_for_two_labels():
    masses = np.array([[[0, 0.3], [0.05, 0]], [[0, 0.0], [0.2, 0]], [[0, 0], [0, 0]]])
    values = pair_confidences(masses, 1e-3)
    expected = np.log((masses[:, 0, 1] + 1e-3) / (masses[:, 1, 0] + 1e-3))
    np.testing.assert_allclose(values[:, 1] - values[:, 0], expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(values.sum(axis=1), 0, atol=1e-12)


def test_pair_confidences_minimise_the_block_objective_against_brute_force(rng):
    from scipy.optimize import minimize

    k, smoothing = 4, 1e-3
    masses = rng.random((3, k, k)) * (rng.random((3, k, k)) < 0.6)
    masses[:, np.arange(k), np.arange(k)] = 0
    masses[1] = np.triu(masses[1], 1)  # every pair points one way: no unsmoothed minimum
    masses[2] = 0
    masses[2, 0, 1] = 0.4  # one pair only
    fixed = np.array([False, False, False])
    values = pair_confidences(masses, smoothing, fixed)
    for j in range(3):
        best = minimize(lambda c, j=j: pair_objective(masses[j], smoothing, c), np.zeros(k),
                        method="BFGS", options={"gtol": 1e-12})
        assert pair_objective(masses[j], smoothing, values[j]) <= best.fun * (1 + 1e-9)
        assert values[j].sum() == pytest.approx(0, abs=1e-10)
    # the smoothed minimum is finite: |c_l0 - c_l1| <= 2 ln(F(0) / ε)
    bound = 2 * np.log((masses[1].sum() + k * (k - 1) * smoothing) / smoothing)
    assert np.ptp(values[1]) <= bound
    # blocks held at zero (real-abstain's abstaining block) stay zero, the others unchanged
    held = pair_confidences(masses, smoothing, np.array([False, True, False]))
    np.testing.assert_array_equal(held[1], 0)
    np.testing.assert_allclose(held[[0, 2]], values[[0, 2]], rtol=1e-9, atol=1e-12)


def test_bound_offsets_minimise_the_mh_form_bound(rng):
    from scipy.optimize import minimize_scalar

    values = rng.normal(size=(4, 3))
    pos, neg = rng.random((4, 3)), rng.random((4, 3))
    pos[3] = 0  # a block without a true label: no finite minimiser, offset 0
    offsets = bound_offsets(values, pos, neg)
    for j in range(3):
        def bound(t, j=j):
            return float(np.sum(pos[j] * np.exp(-(values[j] + t))
                                + neg[j] * np.exp(values[j] + t)))
        best = minimize_scalar(bound, bracket=(-5, 5), tol=1e-12)
        assert offsets[j] == pytest.approx(best.x, abs=1e-6)
    assert offsets[3] == 0


def test_real_mr_folds_alpha_into_bounded_values_on_iris():
    """Scaling the MH-form values exactly gave α = 27.8 in iris' first round (no minimum
    in reach); the folded confidences are bounded by the smoothing and Z_t <= 1."""
    from sklearn.datasets import load_iris

    from confboost import BoostClassifier

    X, y = load_iris(return_X_y=True)
    clf = BoostClassifier(20, scheme="mr", confidence="real").fit(X, y)
    assert np.all(clf.history_["alpha"] == 1.0)
    assert np.all(clf.history_["z"] <= 1.0 + 1e-12)
    assert np.all(clf.history_["train_loss"] <= clf.history_["bound"] + 1e-12)
    first = clf.model_.hypotheses[0].values
    assert np.ptp(first, axis=1).max() <= 2 * np.log((1 + 6 * clf.smoothing_) / clf.smoothing_)
    assert clf.score(X, y) > 0.9


def test_hamming_tree_leaves_take_eq_22_on_the_pairs_ordered_by_the_vote(rng):
    from confboost.engine.learners.tree import HammingTreeLearner

    X, signs = multilabel_problem(rng)
    scheme = MRScheme(signs, np.ones(len(X)))
    smoothing = 1e-3
    fit = HammingTreeLearner(REAL, smoothing, max_leaves=4).fit(
        Dataset.from_array(X, 32), scheme.learner_weights, scheme.labels)
    vote = fit.hypothesis.vote
    alpha, _ = scheme.choose_alpha(fit, "auto", REAL, smoothing)
    assert alpha == 1.0
    np.testing.assert_allclose(fit.hypothesis.values,
                               np.outer(fit.hypothesis.leaf_values, vote))
    D = scheme.v[:, :, None] * scheme.v[:, None, :]
    crucial = (signs[:, :, None] < 0) & (signs[:, None, :] > 0)
    kinds = smoothing * (vote > 0).sum() * (vote < 0).sum()
    for j, c in enumerate(fit.hypothesis.leaf_values):
        in_leaf = (fit.train_blocks == j)[:, None, None] & crucial
        # pairs the vote orders rightly (v_l1 > v_l0) and wrongly, brute force over triples
        order = 0.5 * (vote[None, :] - vote[:, None])
        right = D[in_leaf & (order > 0)[None]].sum() + kinds
        wrong = D[in_leaf & (order < 0)[None]].sum() + kinds
        assert c == pytest.approx(0.5 * np.log(right / wrong), rel=1e-10)


def test_parts_with_the_whole_sets_weight_are_shares_of_the_whole():
    """MRScheme on parts of a training set with ``total_weight`` (the Dask shards): each
    part's v is the whole's v on its rows, and the parts' d (Eq. 30) sum to 1 as the
    whole's do."""
    rng = np.random.default_rng(4)
    classes = rng.integers(0, 4, 60)
    signs = np.where(classes[:, None] == np.arange(4), 1, -1).astype(np.int8)
    weights = rng.uniform(0.5, 2.0, 60)
    weights[5] = 0.0
    whole = MRScheme(signs, weights)
    parts = [MRScheme(signs[rows], weights[rows], total_weight=weights.sum())
             for rows in (slice(0, 17), slice(17, 60))]
    np.testing.assert_allclose(np.vstack([part.v for part in parts]), whole.v, rtol=1e-14)
    np.testing.assert_allclose(np.vstack([part.learner_weights for part in parts]),
                               whole.learner_weights, rtol=1e-13)
    assert sum(part.learner_weights.sum() for part in parts) == pytest.approx(1.0, abs=1e-14)
