"""Probabilities from f: the link of each scheme and a temperature fitted on held-out data.

Theory (paper §7; Friedman, Hastie & Tibshirani 2000, "Additive logistic regression"):
real AdaBoost minimises E exp(-y f), whose population minimiser is
f(x) = ½ ln(P(y=+1 | x) / P(y=-1 | x)), so P(y=+1 | x) = σ(2 f(x)); AdaBoost.MH does the same
for each label, so σ(2 f(x, l)) estimates P(l ∈ Y | x). On a finite sample f is not that
minimiser: every round adds α_t h_t, the training margins y f keep growing after the training
error is zero (that is what drives the exponential loss, Π Z_t, towards 0, §5), and f(x)
ends many times larger than the half log-odds. σ(2 f) is then far too sure of itself
(probabilities of 1e-11 on misclassified test points, log loss 4-10 times
HistGradientBoosting's). The direction of f ranks well; its scale does not.

The remedy is one scale a > 0 (a temperature 1/a, Guo et al. 2017; Platt's sigmoid 1999
without its offset) fitted by least log loss on examples the model was not trained on:

- binary and multi-label: P(y_l = 1 | x) = σ(a g_l(x)), one a shared by the labels;
- single-label multiclass: P(y = c | x) = softmax_c(a g(x));

where g is the logit of the uncalibrated probabilities: 2 f (binary, MH), 2 (f - θ) (MR
multi-label), f (MR single-label, whose pair loss is minimised by f(x, y) = ln P(y | x) + c(x))
and the decoder's class scores (MO). a > 0 leaves every ranking and every side of ½ as it
was, hence ``predict`` agrees with the argmax of the probabilities (and with p > ½ per
label) exactly as before. No offset: it would move the ½ cut away from the predictions.
One number fitted on a tenth of the data cannot overfit the way a per-class or isotonic
map would.
"""

import numpy as np

#: Smallest and largest slope a (a > 0 keeps every ranking).
SLOPE_BOUNDS = (1e-4, 1e3)


class Calibrator:
    """P from logits g: σ(a g) per column (``kind="sigmoid"``) or softmax(a g)
    (``kind="softmax"``).

    Parameters
    ----------
    kind : {"sigmoid", "softmax"}
    slope : float, default=1.0
        a > 0 (1 is the uncalibrated link).
    """

    def __init__(self, kind, slope=1.0):
        if kind not in ("sigmoid", "softmax"):
            raise ValueError(f"kind must be 'sigmoid' or 'softmax', got {kind!r}")
        if not (np.isfinite(slope) and slope > 0):
            raise ValueError(f"slope must be finite and > 0, got {slope!r}")
        self.kind = kind
        self.slope = float(slope)

    def __call__(self, logits):
        """Probabilities, shape as ``logits`` (n_samples, n_columns)."""
        from scipy.special import expit, softmax  # read models need no SciPy (issue 18)

        if self.kind == "softmax":
            return softmax(self.slope * logits, axis=1)
        return expit(self.slope * logits)

    def to_dict(self):
        return {"kind": self.kind, "slope": self.slope}

    @classmethod
    def from_dict(cls, data):
        """Inverse of ``to_dict``; ValueError on a malformed entry."""
        try:
            return cls(data["kind"], float(data["slope"]))
        except (KeyError, TypeError) as error:
            raise ValueError(f"malformed calibration data: {error!r}") from None


def fit_calibrator(logits, targets, kind, sample_weight=None):
    """The slope a of least weighted log loss on held-out data.

    Parameters
    ----------
    logits : ndarray of shape (n_samples, n_columns)
        g on examples the model was not trained on.
    targets : ndarray
        ``kind="softmax"``: class index per example, shape (n_samples,);
        ``kind="sigmoid"``: 0/1 per example and column, shape (n_samples, n_columns).
    kind : {"sigmoid", "softmax"}
    sample_weight : ndarray of shape (n_samples,) or None

    Returns
    -------
    Calibrator
    """
    from scipy.optimize import minimize_scalar
    from scipy.special import log_expit, log_softmax

    # logits of ±inf (a label never seen) would make every slope infinitely wrong
    logits = np.clip(np.asarray(logits, dtype=np.float64), -1e6, 1e6)
    n = logits.shape[0]
    weight = np.ones(n) if sample_weight is None else np.asarray(sample_weight, np.float64)
    weight = weight / weight.sum()
    if kind == "softmax":
        rows = np.arange(n)

        def loss(slope):
            return -float(np.dot(weight, log_softmax(slope * logits, axis=1)[rows, targets]))
    else:
        signed = np.where(np.asarray(targets) > 0, logits, -logits)

        def loss(slope):
            return -float(np.dot(weight, log_expit(slope * signed).sum(axis=1)))
    # the log loss is convex in a: a log-spaced scan, then a bounded scalar search
    # around the best grid point
    grid = np.logspace(np.log10(SLOPE_BOUNDS[0]), np.log10(SLOPE_BOUNDS[1]), 29)
    best = int(np.argmin([loss(a) for a in grid]))
    low, high = grid[max(best - 1, 0)], grid[min(best + 1, grid.size - 1)]
    result = minimize_scalar(loss, bounds=(low, high), method="bounded",
                             options={"xatol": 1e-6 * grid[best]})
    slope = result.x if loss(result.x) <= loss(grid[best]) else grid[best]
    return Calibrator(kind, float(slope))
