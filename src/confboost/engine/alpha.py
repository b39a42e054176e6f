"""Choice of α, the weight of a weak hypothesis (paper §3).

Every method works on the *block form* of Z: a weak hypothesis that is constant on blocks
(value v[j, l] on block j for label l) has

    Z(α) = Σ_{j,l} W+[j,l] exp(-α v[j,l]) + W-[j,l] exp(+α v[j,l])

so α needs only the (n_blocks, k) block statistics, never a pass over the examples. The
general entry point ``exact_alpha`` takes any finite set of (mass, margin) pairs
Z(α) = Σ mass_i exp(-α u_i), so real-valued hypotheses that are not partitions use it too.

Methods (the ``alpha`` parameter of the estimators):

- ``"exact"`` (§3.2): the root of Z'(α) by safeguarded Newton/bisection. When every margin
  with mass has one sign Z has no minimum (α → ±∞): α is capped, and the cap is reported.
- ``"freund-schapire"`` (§3.1): α = ½ ln((1+r)/(1-r)), r = Σ D u, with h scaled into
  [-1, 1] by its largest |value|; for abstaining hypotheses the conservative variant of §3.3,
  α = ½ ln((W+ + ½W0)/(W- + ½W0)).
- ``"auto"``: the exact closed form where one exists. Discrete and abstaining hypotheses
  (values in {-1, 0, +1}): α = ½ ln((W+ + ε)/(W- + ε)) (§3.1 is exact for ±1; §3.3 for
  {-1, 0, +1}), smoothed by the same ε as the confidences so a perfect hypothesis gets a
  finite α. Real-valued partition hypotheses: α = 1, since Eq. 9 already minimises Z on
  every block (§4.1).
"""

import numpy as np

from confboost.kernels.criterion_numpy import DISCRETE, REAL, REAL_ABSTAIN, SIGN_MODES

METHODS = ("auto", "exact", "freund-schapire")

_NEWTON_TOLERANCE = 1e-12
_MAX_ITERATIONS = 200


def alpha_cap(smoothing, largest_margin):
    """The largest |α| used when Z has no minimum: |α u| <= ½ ln(1 + 1/ε) (§4.2's bound)."""
    return 0.5 * np.log1p(1.0 / smoothing) / largest_margin


def z_of_alpha(alpha, mass, margins):
    """Z(α) = Σ mass_i exp(-α u_i)  (§3, Eq. 3)."""
    return float(np.sum(mass * np.exp(-alpha * margins)))


def exact_alpha(mass, margins, smoothing):
    """α minimising Z(α) = Σ mass_i exp(-α u_i), by safeguarded Newton (§3.2).

    Z is strictly convex and Z'(α) = -Σ mass_i u_i exp(-α u_i) is increasing, so when the
    margins carrying mass have both signs there is one root; Newton steps are kept inside a
    bracket [lo, hi] with Z'(lo) < 0 < Z'(hi), and fall back to bisection when they leave it.

    Parameters
    ----------
    mass : ndarray of shape (n,)
        Non-negative weights.
    margins : ndarray of shape (n,)
        u_i = y_i h(x_i).
    smoothing : float
        ε; sets the cap when Z has no minimum.

    Returns
    -------
    alpha : float
    capped : bool
        True when every margin with mass had one sign and α is the cap.
    """
    mass = np.asarray(mass, dtype=np.float64).ravel()
    margins = np.asarray(margins, dtype=np.float64).ravel()
    keep = (mass > 0) & (margins != 0)
    mass, margins = mass[keep], margins[keep]
    if mass.size == 0:
        return 0.0, False
    has_pos = bool(np.any(margins > 0))
    has_neg = bool(np.any(margins < 0))
    if not (has_pos and has_neg):
        cap = alpha_cap(smoothing, float(np.max(np.abs(margins))))
        return (cap if has_pos else -cap), True

    def derivatives(alpha):
        # shift exponents by their maximum so that large α cannot overflow; the shift
        # scales Z' and Z'' alike, which moves neither the root nor the Newton step
        exponents = -alpha * margins
        terms = mass * np.exp(exponents - exponents.max())
        return -np.sum(terms * margins), np.sum(terms * margins * margins)

    return minimise_convex(derivatives), False


def minimise_convex(derivatives):
    """The minimiser of a strictly convex Z(α) whose derivative changes sign (§3.2, App. A).

    A bracket [lo, hi] with Z'(lo) < 0 < Z'(hi) is widened from [-1, 1] by doubling, then
    Newton steps are kept inside it and fall back to bisection when they leave it. Any Z
    of the form Σ (positive) exp(linear in α) qualifies: the block form of ``exact_alpha``
    and the pair objective of AdaBoost.MR (``schemes/mr.py``) alike.

    Parameters
    ----------
    derivatives : callable
        ``derivatives(alpha) -> (Z'(α), Z''(α))``, both possibly scaled by one positive
        factor per call. The caller guarantees that Z' takes both signs.

    Returns
    -------
    alpha : float
    """
    lo, hi = -1.0, 1.0
    while derivatives(lo)[0] >= 0:
        lo *= 2.0
    while derivatives(hi)[0] <= 0:
        hi *= 2.0
    alpha = 0.0
    for _ in range(_MAX_ITERATIONS):
        first, second = derivatives(alpha)
        if first < 0:
            lo = alpha
        else:
            hi = alpha
        step = first / second if second > 0 else np.inf
        candidate = alpha - step
        if not lo < candidate < hi:
            candidate = 0.5 * (lo + hi)
        if abs(candidate - alpha) <= _NEWTON_TOLERANCE * max(1.0, abs(alpha)):
            return float(candidate)
        alpha = candidate
    return float(alpha)


def block_margins(weight_pos, weight_neg, values):
    """The (mass, margin) pairs of a partition hypothesis, for ``exact_alpha``.

    Parameters
    ----------
    weight_pos, weight_neg, values : ndarray of shape (n_blocks, k)

    Returns
    -------
    mass, margins : ndarray of shape (2 * n_blocks * k,)
    """
    values = np.asarray(values, dtype=np.float64).ravel()
    mass = np.concatenate([np.ravel(weight_pos), np.ravel(weight_neg)])
    return mass, np.concatenate([values, -values])


def sign_masses(weight_pos, weight_neg, values):
    """W+ (agreeing), W- (disagreeing) and W0 (abstained) mass of a {-1, 0, +1} hypothesis."""
    values = np.asarray(values)
    agree = np.sum(np.where(values > 0, weight_pos, 0) + np.where(values < 0, weight_neg, 0))
    disagree = np.sum(np.where(values > 0, weight_neg, 0) + np.where(values < 0, weight_pos, 0))
    abstained = np.sum(np.where(values == 0, weight_pos + weight_neg, 0))
    return float(agree), float(disagree), float(abstained)


def choose_alpha(method, mode, weight_pos, weight_neg, values, smoothing):
    """α for a partition hypothesis by the named method.

    Parameters
    ----------
    method : {"auto", "exact", "freund-schapire"}
    mode : int
        Confidence mode code (see ``confidence.py``).
    weight_pos, weight_neg : ndarray of shape (n_blocks, k)
        Block statistics under the weights the hypothesis was chosen with (sum 1).
    values : ndarray of shape (n_blocks, k)
        The hypothesis' value on each block and label.
    smoothing : float
        ε.

    Returns
    -------
    alpha : float
    capped : bool
        Whether α hit the cap of a one-sided Z.
    """
    if method == "exact":
        mass, margins = block_margins(weight_pos, weight_neg, values)
        return exact_alpha(mass, margins, smoothing)
    if method == "auto":
        if mode in (REAL, REAL_ABSTAIN):
            return 1.0, False
        agree, disagree, _ = sign_masses(weight_pos, weight_neg, values)
        return 0.5 * float(np.log((agree + smoothing) / (disagree + smoothing))), False
    if method == "freund-schapire":
        if mode in SIGN_MODES and mode != DISCRETE:
            agree, disagree, abstained = sign_masses(weight_pos, weight_neg, values)
            return 0.5 * float(np.log((agree + 0.5 * abstained + smoothing)
                                      / (disagree + 0.5 * abstained + smoothing))), False
        largest = float(np.max(np.abs(values)))
        if largest == 0:
            return 0.0, False
        total = float(np.sum(weight_pos) + np.sum(weight_neg))
        r = float(np.sum((weight_pos - weight_neg) * values)) / (largest * total)
        cap = alpha_cap(smoothing, 1.0)
        if abs(r) >= 1.0:
            return float(np.sign(r) * cap) / largest, True
        return float(np.clip(0.5 * np.log((1 + r) / (1 - r)), -cap, cap)) / largest, False
    raise ValueError(f"alpha must be one of {METHODS}, got {method!r}")
