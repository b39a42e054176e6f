"""AdaBoost.MR (paper §9) in the O(mk) form of Figure 5: a ranking of the labels.

The scheme owns the pair weights v (n_samples × k) with the invariant of Eq. 29,
D_t(i, l0, l1) = v_t(i, l0) v_t(i, l1) on every crucial pair (l0 ∉ Y_i, l1 ∈ Y_i), so the
m × k × k triple weights of Figure 4 are never stored. Each round:

- the weak learner gets d(i, l) = ½ v(i, l) Σ_{l': Y_i[l'] ≠ Y_i[l]} v(i, l') (Eq. 30) and
  the label signs Y: then r = Σ d Y h is MR's r of Eq. 27, so the same stump that serves
  AdaBoost.MH serves MR (its real confidences minimise the MH-form Z under d, and α rescales
  them for the pair objective);
- real confidences (``"real"``, ``"real-abstain"``; ``alpha="auto"``): α is folded into h
  as §9 does for Eq. 25. The stump or tree only chooses the partition; its block values
  are then replaced by the minimisers of the pair objective on each block,
  F_j(c) = Σ_{l0, l1} (M[j, l0, l1] + ε) exp(½ (c_l0 - c_l1)), M the (block, l0, l1) table
  of crucial-pair masses (``pair_confidences``), and α = 1. F_j is convex (Appendix A);
  smoothing every ordered label pair by ε (§4.2's device) gives it a finite minimum even
  when a block's pairs all point one way, where the unsmoothed objective has none (the
  cause of the huge α of scaling the MH-form values exactly: 27.8 in iris' first round).
  F_j ignores a constant added to a block's values, so that constant is chosen to minimise
  the MH-form bound Σ d e^{-Y h} under the learner's weights (by AM-GM, Z_t <= that bound),
  which makes f comparable across examples for the Hamming cut. The default ε of MR's real
  confidences is larger than MH's (``pair_smoothing``);
- α (§3) otherwise: ``"discrete"`` hypotheses take Eq. 28, α = ½ ln((1 + r)/(1 - r))
  (smoothed by ε); abstaining ones, and ``alpha="exact"``, take the exact minimiser of the
  pair objective Z(α) = Σ_i [Σ_{l ∉ Y_i} v e^{½αh}] [Σ_{l ∈ Y_i} v e^{-½αh}], convex in α
  (Appendix A): on a partition it is a sum over the (block, l0, l1) table of pair masses,
  built in one pass, so each Newton step (``alpha.exact_alpha``) costs O(blocks · k²);
  ``"freund-schapire"`` is Eq. 28 with h scaled into [-1, 1];
- v ← v exp(-½ α Y h) / √Z_t (``kernels.weight_update.update_pair_weights``), in two steps
  through the scheme's reducer (``engine/reduction.py``): v' and Z_t's share of the rows,
  then v' / √Z_t once Z_t is summed;
- on multi-label data, the cut θ_t on f that ``predict`` uses, from histograms of the
  scores taken through the same reducer (``schemes/mr_cut.py``).

Theorem 6: the ranking loss on the training set (weighted by the sample weights) is at most
Π Z_t. Examples whose label set is empty or full have no crucial pair: they get zero weight
and take no part in MR's training (it is an error if no example has a crucial pair).

Single-label data is the case |Y_i| = 1, where discrete MR is Freund & Schapire's
AdaBoost.M2. Binary data never comes here: it is the k = 1 path of ``schemes/mh.py``.
"""

import numpy as np

from confboost.data.dataset import LabelSigns
from confboost.engine.alpha import choose_alpha, exact_alpha
from confboost.engine.reduction import LOCAL
from confboost.engine.schemes.mh import MHOutputs
from confboost.engine.schemes.mr_cut import cut_threshold
from confboost.kernels.criterion_numpy import DISCRETE, REAL, REAL_ABSTAIN
from confboost.kernels.weight_update import (
    example_ranking_losses,
    pair_block_masses,
    pair_learner_weights,
    update_pair_weights,
)


def initial_pair_weights(signs, sample_weight, total_weight=None):
    """v_1 of Figure 5: v_1(i, l) = (w_i / (|L - Y_i| |Y_i|))^½, w the normalised weights.

    Parameters
    ----------
    signs : ndarray of shape (n_samples, k), int8
    sample_weight : ndarray of shape (n_samples,)
    total_weight : float, optional
        Σ w over the examples with a crucial pair of the whole training set, when these
        examples are a part of it (a Dask shard: its w then sum to its share); default:
        their own sum.

    Returns
    -------
    v : ndarray of shape (n_samples, k)
        Zero on the rows without a crucial pair.
    example_weights : ndarray of shape (n_samples,)
        w_i, summing to 1 over the examples with a crucial pair, 0 elsewhere.

    Raises
    ------
    ValueError
        If no example with positive weight has both a true and a false label.
    """
    n_true = (signs > 0).sum(axis=1)
    n_false = signs.shape[1] - n_true
    has_pair = (n_true > 0) & (n_false > 0) & (sample_weight > 0)
    if not has_pair.any() and total_weight is None:
        raise ValueError(
            "AdaBoost.MR ranks a true label above a false one, and no example (with positive "
            "weight) has both: every label set is empty or full, so there is no crucial pair "
            "and the ranking loss is undefined")
    example_weights = np.where(has_pair, sample_weight, 0.0)
    example_weights /= example_weights.sum() if total_weight is None else total_weight
    pairs = np.maximum(n_true * n_false, 1)
    v = np.sqrt(example_weights / pairs)[:, None] * np.ones(signs.shape[1])
    return np.ascontiguousarray(v, dtype=np.float64), example_weights


#: MR's real confidences smooth each (block, l0, l1) cell by this many times MH's ε.
PAIR_SMOOTHING_SCALE = 100.0

_NEWTON_TOLERANCE = 1e-13
_MAX_NEWTON_STEPS = 100
_MAX_HALVINGS = 40


def pair_smoothing(mh_smoothing):
    """The default ε of MR's real confidences: ``PAIR_SMOOTHING_SCALE`` times MH's 1/(2mk).

    The paper leaves ε open (§4.2: "of order 1/m"). Each block of an MR hypothesis has
    k(k - 1) label-pair cells against MH's k label cells, and at MH's ε the folded pair
    confidences overfit the Mulan sets far more than discrete MR (yeast-ml ranking loss
    .195 against .177 at 300 rounds). 100/(2mk) starts every (block, l0, l1) cell with the
    mass of 50/k examples: a pseudo-count, so it weighs less as m grows, but on a few
    hundred examples it slows the fit. The scale 100 was chosen among 1, 10, 30, 100 and
    300 on validation parts of the yeast-ml, scene and emotions training sets
    (``benchmarks/mr_real.py --validation 0.25``).
    """
    return PAIR_SMOOTHING_SCALE * mh_smoothing


def pair_confidences(masses, smoothing, fixed=None):
    """Each block's values minimising MR's pair objective with α folded in (§9, Eq. 25).

    F_j(c) = Σ_{l0 != l1} (M[j, l0, l1] + ε) exp(½ (c_l0 - c_l1)) is convex (Appendix A),
    and strictly so across the labels once every cell holds ε: its gradient
    ½ (row sums - column sums) of E[l0, l1] = (M + ε) e^{½ (c_l0 - c_l1)} and its Hessian
    ¼ (diag(row + column sums) - E - Eᵀ), a graph Laplacian whose only null direction is
    the constant vector (a constant added to c_j leaves F_j unchanged). Newton steps orthogonal
    to it, halved until F_j does not increase, run on every block at once; the result is
    centred (Σ_l c_jl = 0). With k = 2 it is the closed form c_1 - c_0 =
    ln((M[0, 1] + ε) / (M[1, 0] + ε)).

    Parameters
    ----------
    masses : ndarray of shape (n_blocks, k, k)
        M[j, l0, l1], the crucial-pair mass of block j with l0 false and l1 true
        (``kernels.weight_update.pair_block_masses``).
    smoothing : float
        ε > 0, added to every ordered pair of distinct labels.
    fixed : ndarray of shape (n_blocks,), bool, optional
        Blocks whose values stay 0 (the abstaining block of ``"real-abstain"``).

    Returns
    -------
    values : ndarray of shape (n_blocks, k)
    """
    n_blocks, k, _ = masses.shape
    cells = masses + smoothing * (1.0 - np.eye(k))
    values = np.zeros((n_blocks, k))
    free = np.ones(n_blocks, dtype=bool) if fixed is None else ~np.asarray(fixed, dtype=bool)

    def terms(c):
        return cells[free] * np.exp(0.5 * (c[:, :, None] - c[:, None, :]))

    c = values[free]
    table = terms(c)
    objective = table.sum(axis=(1, 2))
    constant = np.full((k, k), 1.0 / k)  # fills the Laplacian's null direction
    for _ in range(_MAX_NEWTON_STEPS):
        rows, columns = table.sum(axis=2), table.sum(axis=1)
        gradient = 0.5 * (rows - columns)
        if not np.any(np.abs(gradient) > _NEWTON_TOLERANCE * objective[:, None]):
            break
        symmetric = table + np.swapaxes(table, 1, 2)
        hessian = 0.25 * (np.eye(k) * (rows + columns)[:, :, None] - symmetric) + constant
        try:
            step = np.linalg.solve(hessian, -gradient[:, :, None])[:, :, 0]
        except np.linalg.LinAlgError:  # a tiny ε leaves label pairs all but untied: the
            # Laplacian has more null directions than the constant; take the least step
            step = np.stack([np.linalg.lstsq(h, -g, rcond=None)[0]
                             for h, g in zip(hessian, gradient, strict=True)])
        scale = np.ones(len(c))
        for _ in range(_MAX_HALVINGS):
            trial = c + scale[:, None] * step
            trial_table = terms(trial)
            trial_objective = trial_table.sum(axis=(1, 2))
            worse = trial_objective > objective
            if not worse.any():
                break
            scale = np.where(worse, 0.5 * scale, scale)
        if worse.all():
            break  # at the rounding floor: no block can still go down
        c = np.where(worse[:, None], c, trial)
        table = np.where(worse[:, None, None], table, trial_table)
        objective = np.where(worse, objective, trial_objective)
    values[free] = c - c.mean(axis=1, keepdims=True)
    return values


def bound_offsets(values, weight_pos, weight_neg):
    """Per block, the constant t_j minimising Σ_l W+[j, l] e^{-(c_jl + t)} + W-[j, l] e^{c_jl + t}.

    The pair objective cannot see a constant added to a block's values; this one is the
    minimiser of the MH-form bound Σ d e^{-Y h} of Z_t under the learner's weights d
    (Eq. 30; Z_t <= it by e^{(a + b)/2} <= (e^a + e^b)/2 on every crucial pair), in
    closed form t_j = ½ ln(Σ_l W+ e^{-c} / Σ_l W- e^{c}); 0 where a side has no mass.

    Parameters
    ----------
    values : ndarray of shape (n_blocks, k)
    weight_pos, weight_neg : ndarray of shape (n_blocks, k)

    Returns
    -------
    offsets : ndarray of shape (n_blocks,)
    """
    agree = np.sum(weight_pos * np.exp(-values), axis=1)
    disagree = np.sum(weight_neg * np.exp(values), axis=1)
    both = (agree > 0) & (disagree > 0)
    return np.where(both, 0.5 * np.log(np.where(both, agree, 1.0) / np.where(both, disagree, 1.0)),
                    0.0)


class MRScheme:
    """AdaBoost.MR state over one training set (Figure 5).

    Parameters
    ----------
    signs : ndarray of shape (n_samples, k), int8
        Y_i[l] in {-1, +1}, k >= 2.
    sample_weight : ndarray of shape (n_samples,)
    multilabel : bool, default=False
        Multi-label data: after each round the scheme also learns the cut θ_t on f that
        ``predict`` uses (``mr_cut.cut_threshold``, through the reducer), kept in
        ``thresholds``.
    total_weight : float, optional
        The whole training set's Σ w when these examples are a part of it (a Dask shard):
        v, d and the loss are then this part's share of the whole set's (see
        ``initial_pair_weights``).
    reducer : Reducer, default=LOCAL
        Where the pair masses and the update are taken (``engine/reduction.py``): these
        rows, or every shard's scheme (this one then has no rows).
    """

    name = "mr"
    #: The arrays ``update`` changes (a copy of the scheme with copies of them is a new
    #: state).
    state_arrays = ("v", "scores", "_d")

    def __init__(self, signs, sample_weight, multilabel=False, total_weight=None,
                 reducer=LOCAL):
        self.reducer = reducer
        self.labels = LabelSigns.from_signs(signs)
        self.multilabel = multilabel
        self.thresholds = []
        self._sample_weight = sample_weight
        self._part = total_weight is not None
        self.v, self.example_weights = initial_pair_weights(self.labels.signs, sample_weight,
                                                            total_weight)
        self.scores = np.zeros(self.v.shape, dtype=np.float64)
        self._d = np.empty_like(self.v)
        self._loss = None
        self._refresh_learner_weights()

    def _refresh_learner_weights(self):
        # Σ d = Σ D = 1 by Eq. 29; dividing by it removes the rounding drift (over the whole
        # set: a part's d sum to its share)
        total = pair_learner_weights(self.v, self.labels.signs, self._d)
        if not self._part:
            self._d /= total

    @property
    def learner_weights(self):
        """The (n_samples, k) weights d of Eq. 30 handed to the weak learner (sum 1)."""
        return self._d

    def choose_alpha(self, fit, method, mode, smoothing):
        """α for the round's hypothesis (§3, §9; see the module doc).

        With real confidences and ``method="auto"`` the hypothesis' block values are
        replaced in place by MR's own (``fold_alpha``) and α is 1.
        """
        if method == "auto" and mode in (REAL, REAL_ABSTAIN):
            self.fold_alpha(fit, mode, smoothing)
            return 1.0, False
        if method == "exact" or method == "auto" and mode != DISCRETE:
            return self.exact_alpha(fit.train_blocks, fit.hypothesis.values, smoothing)
        return choose_alpha(method, mode, fit.weight_pos, fit.weight_neg,
                            fit.hypothesis.values, smoothing)

    def pair_masses(self, train_blocks, n_blocks):
        """The (n_blocks, k, k) table M[j, l0, l1] of crucial-pair masses per block (a sum
        over the examples, through the reducer)."""
        return self.reducer.apply(block_pair_masses, self, train_blocks, n_blocks)

    def fold_alpha(self, fit, mode, smoothing):
        """Set the block values of ``fit.hypothesis`` to MR's real confidences (§9, Eq. 25).

        ``pair_confidences`` on the round's pair-mass table, shifted per block by
        ``bound_offsets``. Under ``"real-abstain"`` the blocks the learner set to 0 on every
        label (its abstaining block) stay 0. A hypothesis with one label vote v (its
        ``vote``: a Hamming tree) keeps v and gets per block the c_j of Eq. 22,
        ½ ln((W+ + n ε)/(W- + n ε)), with W+ (W-) the block's mass on pairs with
        v_l1 > v_l0 (v_l1 < v_l0), of which there are n = n+ n- kinds (``set_leaf_values``).
        """
        hypothesis = fit.hypothesis
        values = hypothesis.values
        masses = self.pair_masses(fit.train_blocks, values.shape[0])
        if hypothesis.vote is not None:
            up = hypothesis.vote > 0
            rightly = masses[:, ~up][:, :, up].sum(axis=(1, 2))
            wrongly = masses[:, up][:, :, ~up].sum(axis=(1, 2))
            kinds = smoothing * up.sum() * (~up).sum()
            # a vote of one sign orders no pair: the tree then has no edge (c = 0)
            hypothesis.set_leaf_values(0.5 * np.log((rightly + kinds) / (wrongly + kinds))
                                       if kinds > 0 else 0.0)
            return
        fixed = np.all(values == 0, axis=1) if mode == REAL_ABSTAIN else None
        folded = pair_confidences(masses, smoothing, fixed)
        offsets = bound_offsets(folded, fit.weight_pos, fit.weight_neg)
        if fixed is not None:
            offsets[fixed] = 0.0
        values[:] = folded + offsets[:, None]

    def exact_alpha(self, train_blocks, values, smoothing):
        """α minimising the pair objective Z(α) of Figure 5 for a partition hypothesis.

        Z(α) = Σ_{crucial (i, l0, l1)} D(i, l0, l1) exp(-α u), u = ½(h(x_i, l1) - h(x_i, l0)).
        On a partition u depends only on the block and the two labels, so Z is a sum over
        the (block, l0, l1) table of pair masses (``kernels/weight_update.pair_block_masses``, one
        pass) and the safeguarded Newton of ``alpha.exact_alpha`` runs on that table.

        Parameters
        ----------
        train_blocks : ndarray of shape (n_samples,), uint8
            Block of each training example.
        values : ndarray of shape (n_blocks, k)
            h_t on each block and label.
        smoothing : float
            ε; sets the cap when Z has no minimum.

        Returns
        -------
        alpha : float
        capped : bool
            True when every crucial pair with weight had u of one sign (α is the cap).
        """
        masses = self.pair_masses(train_blocks, values.shape[0])
        margins = 0.5 * (values[:, None, :] - values[:, :, None])  # [j, l0, l1]
        return exact_alpha(masses, margins, smoothing)

    def update(self, fit, alpha):
        """Apply α h_t to v and f (Figure 5); returns Z_t. Two steps through the reducer:
        v' = v e^{-½ α Y h} and the rows' share of Z_t, then v' / √Z_t with d and the
        ranking loss; on multi-label data the cut θ_t on the new f from histograms of the
        scores summed through it too (``mr_cut.cut_threshold``)."""
        z = float(self.reducer.apply(pair_round, self, fit.train_blocks,
                                     fit.hypothesis.values, alpha))
        self._loss = float(self.reducer.apply(pair_normalise, self, z))
        if self.multilabel:
            self.thresholds.append(cut_threshold(self.reducer, self))
        return z

    def train_loss(self):
        """Ranking loss of f on the training set, weighted by the sample weights (Thm 6),
        after the last ``update``."""
        return self._loss

    def loss_of(self, scores):
        """The ranking loss of f = ``scores`` (n_samples, k) on this scheme's examples (on
        held-out examples: early stopping's default score)."""
        losses = np.empty(scores.shape[0], dtype=np.float64)
        example_ranking_losses(self.labels.signs, scores, losses)
        return float(np.dot(self.example_weights, losses))

    def exponential_loss(self, signs, scores, sample_weight):
        """The loss MR minimises on other data: Σ over crucial pairs of
        D_1(i, l0, l1) exp(½ (f(x_i, l0) - f(x_i, l1))) (Figure 4; Π Z_t on the training
        set, Theorem 6's proof), with D_1 from the given sample weights.

        Parameters
        ----------
        signs : ndarray of shape (n_samples, k), int8
        scores : ndarray of shape (n_samples, k)
        sample_weight : ndarray of shape (n_samples,)
        """
        v, _ = initial_pair_weights(signs, sample_weight)
        with np.errstate(over="ignore"):
            wrong = np.where(signs < 0, v * np.exp(0.5 * scores), 0.0).sum(axis=1)
            right = np.where(signs > 0, v * np.exp(-0.5 * scores), 0.0).sum(axis=1)
        return float(np.dot(wrong, right))

    def bound(self, product_z):
        """Theorem 6: ranking loss <= Π Z_t."""
        return product_z


def block_pair_masses(scheme, train_blocks, n_blocks):
    """The crucial-pair masses of ``scheme``'s rows per block, shape (n_blocks, k, k)
    (``kernels/weight_update.pair_block_masses``)."""
    k = scheme.v.shape[1]
    masses = np.empty((n_blocks, k, k), dtype=np.float64)
    pair_block_masses(scheme.v, scheme.labels.signs, train_blocks, n_blocks, masses)
    return masses


def pair_round(scheme, train_blocks, values, alpha):
    """f ← f + α h and v ← v e^{-½ α Y h} on ``scheme``'s rows, in place; their share of
    Z_t (``MRScheme.update``'s first step)."""
    return update_pair_weights(scheme.v, scheme.labels.signs, train_blocks, values, alpha,
                               scheme.scores, False)


def pair_normalise(scheme, z):
    """v ← v / √Z_t (Eq. 29 holds again) and d of ``scheme``'s rows, in place; their share
    of the ranking loss (``MRScheme.update``'s second step)."""
    if z > 0.0:
        scheme.v *= 1.0 / np.sqrt(z)
    scheme._refresh_learner_weights()
    return scheme.loss_of(scheme.scores)


class MROutputs(MHOutputs):
    """What f means under AdaBoost.MR (beyond binary data, which is ``MHOutputs``).

    f(x, l) ranks the labels: ``decision_function`` is f, shape (n, k). Single-label data:
    ``predict`` argmax_l f(x, l), ``predict_proba`` the softmax of f (the minimiser of MR's
    pair loss has f(x, y) = ln P(y | x) + c(x)). Multi-label data: the labels with
    f(x, l) > θ, one global cut learned on the training set after each round (the θ of
    least training Hamming loss: f has no natural zero), and σ(2 (f - θ)) per label.

    Parameters
    ----------
    classes : ndarray of shape (n_classes,)
    multilabel : bool
    thresholds : ndarray of shape (n_rounds,) or None
        θ after each round (multi-label data).
    """

    def __init__(self, classes, multilabel, thresholds=None):
        super().__init__(classes, multilabel)
        self.thresholds = thresholds

    def threshold(self, round_index=None):
        if self.thresholds is None:
            return 0.0
        return self.thresholds[-1 if round_index is None else round_index]

    def _single_label_proba(self, scores):
        from scipy.special import softmax

        return softmax(scores, axis=1)

    def _single_label_logits(self, scores):
        return scores
