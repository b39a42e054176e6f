"""AdaBoost.MR (paper §9) in the O(mk) form of Figure 5: a ranking of the labels.

The scheme owns the pair weights v (n_samples × k) with the invariant of Eq. 29,
D_t(i, l0, l1) = v_t(i, l0) v_t(i, l1) on every crucial pair (l0 ∉ Y_i, l1 ∈ Y_i), so the
m × k × k triple weights of Figure 4 are never stored. Each round:

- the weak learner gets d(i, l) = ½ v(i, l) Σ_{l': Y_i[l'] ≠ Y_i[l]} v(i, l') (Eq. 30) and
  the label signs Y: then r = Σ d Y h is MR's r of Eq. 27, so the same stump that serves
  AdaBoost.MH serves MR (its real confidences minimise the MH-form Z under d, and α rescales
  them for the pair objective);
- α (§3): ``"discrete"`` hypotheses take Eq. 28, α = ½ ln((1 + r)/(1 - r)) (smoothed by ε);
  real and abstaining ones, and ``alpha="exact"``, take the exact minimiser of the pair
  objective Z(α) = Σ_i [Σ_{l ∉ Y_i} v e^{½αh}] [Σ_{l ∈ Y_i} v e^{-½αh}], convex in α
  (Appendix A): on a partition it is a sum over the (block, l0, l1) table of pair masses,
  built in one pass, so each Newton step (``alpha.exact_alpha``) costs O(blocks · k²);
  ``"freund-schapire"`` is Eq. 28 with h scaled into [-1, 1];
- v ← v exp(-½ α Y h) / √Z_t (``kernels.update.update_pair_weights``).

Theorem 6: the ranking loss on the training set (weighted by the sample weights) is at most
Π Z_t. Examples whose label set is empty or full have no crucial pair: they get zero weight
and take no part in MR's training (it is an error if no example has a crucial pair).

Single-label data is the case |Y_i| = 1, where discrete MR is Freund & Schapire's
AdaBoost.M2. Binary data never comes here: it is the k = 1 path of ``schemes/mh.py``.
"""

import numpy as np

from confboost.alpha import choose_alpha, exact_alpha
from confboost.criterion import DISCRETE
from confboost.data.dataset import LabelSigns
from confboost.kernels.update import (
    example_ranking_losses,
    pair_block_masses,
    pair_learner_weights,
    update_pair_weights,
)


def initial_pair_weights(signs, sample_weight):
    """v_1 of Figure 5: v_1(i, l) = (w_i / (|L - Y_i| |Y_i|))^½, w the normalised weights.

    Parameters
    ----------
    signs : ndarray of shape (n_samples, k), int8
    sample_weight : ndarray of shape (n_samples,)

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
    if not has_pair.any():
        raise ValueError(
            "AdaBoost.MR ranks a true label above a false one, and no example (with positive "
            "weight) has both: every label set is empty or full, so there is no crucial pair "
            "and the ranking loss is undefined")
    example_weights = np.where(has_pair, sample_weight, 0.0)
    example_weights /= example_weights.sum()
    pairs = np.maximum(n_true * n_false, 1)
    v = np.sqrt(example_weights / pairs)[:, None] * np.ones(signs.shape[1])
    return np.ascontiguousarray(v, dtype=np.float64), example_weights


def hamming_threshold(signs, scores, sample_weight):
    """The θ for which {l : f(x, l) > θ} has the least weighted Hamming loss on (signs, f).

    AdaBoost.MR learns a ranking, and f has no natural zero (adding c(x) to every f(x, l)
    leaves every Z_t unchanged); a multi-label prediction needs a cut. One global θ is
    chosen on the training scores, halfway between two consecutive distinct scores.

    Parameters
    ----------
    signs : ndarray of shape (n_samples, k)
    scores : ndarray of shape (n_samples, k)
    sample_weight : ndarray of shape (n_samples,)

    Returns
    -------
    threshold : float
    """
    flat = scores.ravel()
    order = np.argsort(flat, kind="stable")
    sorted_scores = flat[order]
    weight = np.repeat(sample_weight, scores.shape[1])[order]
    positive = signs.ravel()[order] > 0
    # cutting before position j predicts the labels at j, j+1, ... : the errors are the
    # positives before j and the negatives from j on
    missed = np.concatenate([[0.0], np.cumsum(np.where(positive, weight, 0.0))])
    false_alarms = np.concatenate([np.cumsum(np.where(positive, 0.0, weight)[::-1])[::-1],
                                   [0.0]])
    cut_allowed = np.ones(flat.size + 1, dtype=bool)
    cut_allowed[1:-1] = sorted_scores[:-1] < sorted_scores[1:]
    errors = np.where(cut_allowed, missed + false_alarms, np.inf)
    j = int(np.argmin(errors))
    if j == 0:
        return float(sorted_scores[0] - 1.0)
    if j == flat.size:
        return float(sorted_scores[-1] + 1.0)
    return float(0.5 * (sorted_scores[j - 1] + sorted_scores[j]))


class MRScheme:
    """AdaBoost.MR state over one training set (Figure 5).

    Parameters
    ----------
    signs : ndarray of shape (n_samples, k), int8
        Y_i[l] in {-1, +1}, k >= 2.
    sample_weight : ndarray of shape (n_samples,)
    """

    name = "mr"

    def __init__(self, signs, sample_weight):
        self.labels = LabelSigns.from_signs(signs)
        self.v, self.example_weights = initial_pair_weights(self.labels.signs, sample_weight)
        self.scores = np.zeros(self.v.shape, dtype=np.float64)
        self._d = np.empty_like(self.v)
        self._refresh_learner_weights()

    def _refresh_learner_weights(self):
        # Σ d = Σ D = 1 by Eq. 29; dividing by it removes the rounding drift
        total = pair_learner_weights(self.v, self.labels.signs, self._d)
        self._d /= total

    @property
    def learner_weights(self):
        """The (n_samples, k) weights d of Eq. 30 handed to the weak learner (sum 1)."""
        return self._d

    def choose_alpha(self, fit, method, mode, smoothing):
        """α for the round's hypothesis (§3, §9; see the module doc)."""
        if method == "exact" or (method == "auto" and mode != DISCRETE):
            return self.exact_alpha(fit.train_blocks, fit.hypothesis.values, smoothing)
        return choose_alpha(method, mode, fit.weight_pos, fit.weight_neg,
                            fit.hypothesis.values, smoothing)

    def exact_alpha(self, train_blocks, values, smoothing):
        """α minimising the pair objective Z(α) of Figure 5 for a partition hypothesis.

        Z(α) = Σ_{crucial (i, l0, l1)} D(i, l0, l1) exp(-α u), u = ½(h(x_i, l1) - h(x_i, l0)).
        On a partition u depends only on the block and the two labels, so Z is a sum over
        the (block, l0, l1) table of pair masses (``kernels/update.pair_block_masses``, one
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
        n_blocks = values.shape[0]
        masses = np.empty((n_blocks, values.shape[1], values.shape[1]), dtype=np.float64)
        pair_block_masses(self.v, self.labels.signs, train_blocks, n_blocks, masses)
        margins = 0.5 * (values[:, None, :] - values[:, :, None])  # [j, l0, l1]
        return exact_alpha(masses, margins, smoothing)

    def update(self, fit, alpha):
        """Apply α h_t to v and f (Figure 5); returns Z_t."""
        z = update_pair_weights(self.v, self.labels.signs, fit.train_blocks,
                                fit.hypothesis.values, alpha, self.scores)
        self._refresh_learner_weights()
        return z

    def train_loss(self):
        """Ranking loss of f on the training set, weighted by the sample weights (Thm 6)."""
        losses = np.empty(self.scores.shape[0], dtype=np.float64)
        example_ranking_losses(self.labels.signs, self.scores, losses)
        return float(np.dot(self.example_weights, losses))

    def bound(self, product_z):
        """Theorem 6: ranking loss <= Π Z_t."""
        return product_z
