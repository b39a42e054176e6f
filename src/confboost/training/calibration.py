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

Where no held-out data comes with the fit (no ``eval_set``, no early stopping), the held-out
f comes from short calibration runs, so that a default fit costs little more than one with
``calibration=None``: each trains ``calibration_rounds(T, K)`` rounds (not T): ⌈T/10⌉ for
the one held-out split of a large set, ⌈T/20⌉ for each of the K = 3 cross-fitted runs of a
small one (whose rounds cost what the main run's do: on a few hundred examples a round's
price is its fixed work, not its rows), on its
training part of the main run's binned data (``dataset_rows``: no second binning), and the
slope a' fitted on their held-out f is carried to the main run's T rounds by the growth of
f's scale between the two (``carry_slope``): a = a' · (s(g_T') / s(g_T))^β, s the root
mean square of the main run's logits on the same examples. Past its first rounds a run's
calibrated logits a·g keep about the same scale while g itself grows with every round (the
margins of §5), which is what the ratio follows. s is measured on examples the main run
trains on. With stumps their margins grow faster than those of examples the run does not
see (held-out f grows less, in the right direction, than training f), so the whole ratio
carries too small a slope: β = ``CARRY_EXPONENTS["stump"]`` < 1 is the held-out share of
the growth. A tree of many leaves also fits its training examples' noise, and held-out f
grows about as fast as training f, partly in the wrong direction: β = 1 for every other
learner. Both were measured once (``benchmarks/probabilities.py --carry``). How this
compares with full-length runs, in log loss and in cost, is measured by
``benchmarks/probabilities.py --calibration`` (the tables in ``benchmarks/results.md``).
"""

from dataclasses import replace

import numpy as np

#: Smallest and largest slope a (a > 0 keeps every ranking).
SLOPE_BOUNDS = (1e-4, 1e3)
#: The one calibration run of a held-out split trains this share of the fit's rounds
#: (``calibration_rounds``)...
ROUNDS_SHARE = 0.1
#: ...and each of the cross-fitted runs this share.
FOLD_ROUNDS_SHARE = 0.05
#: β of ``carry_slope`` by weak learner (``carry_exponent``): the share of the training
#: logits' growth that held-out f follows.
CARRY_EXPONENTS = {"stump": 0.8}


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
        from scipy.special import expit, softmax  # reading a model needs no SciPy

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
    from scipy.special import expit, softmax

    # logits of ±inf (a label never seen) would make every slope infinitely wrong
    logits = np.clip(np.asarray(logits, dtype=np.float64), -1e6, 1e6)
    n = logits.shape[0]
    weight = np.ones(n) if sample_weight is None else np.asarray(sample_weight, np.float64)
    weight = weight / weight.sum()
    if kind == "softmax":
        true = logits[np.arange(n), np.asarray(targets)]

        def derivatives(slope):
            # L(a) = -Σ w (a g_y - log Σ_c e^{a g_c}): L' = -Σ w (g_y - E_p g), L'' = Σ w Var_p g
            p = softmax(slope * logits, axis=1)
            mean = np.einsum("ij,ij->i", p, logits)
            spread = np.einsum("ij,ij->i", p, logits * logits) - mean * mean
            return float(weight @ (mean - true)), float(weight @ np.maximum(spread, 0.0))
    else:
        signed = np.where(np.asarray(targets) > 0, logits, -logits)

        def derivatives(slope):
            # L(a) = -Σ w Σ_c log σ(a s): L' = -Σ w Σ_c s σ(-a s), L'' = Σ w Σ_c s² σ σ(-·)
            wrong = expit(-slope * signed)
            return (-float(weight @ (signed * wrong).sum(axis=1)),
                    float(weight @ (signed * signed * wrong * (1.0 - wrong)).sum(axis=1)))
    slope = _convex_minimum(derivatives, 1.0 / max(logit_scale(logits, kind), 1e-12))
    return Calibrator(kind, float(slope))


def _convex_minimum(derivatives, start, tolerance=1e-7, max_steps=200):
    """The minimiser over ``SLOPE_BOUNDS`` of a convex L(a), from ``derivatives(a)`` =
    (L'(a), L''(a)): Newton's steps from ``start`` inside a bracket of the sign change of
    L', a bisection (in log a, the bounds span seven decades) where a step would leave it."""
    low, high = SLOPE_BOUNDS
    if derivatives(low)[0] >= 0:
        return low
    if derivatives(high)[0] <= 0:
        return high
    slope = float(np.clip(start, low, high))
    for _ in range(max_steps):
        first, second = derivatives(slope)
        if first == 0:
            return slope
        if first > 0:
            high = slope
        else:
            low = slope
        step = slope - first / second if second > 0 else np.nan
        if not low < step < high:
            step = np.sqrt(low * high)
        if abs(step - slope) <= tolerance * slope:
            return step
        slope = step
    return slope


def calibration_rounds(n_rounds, n_runs=1):
    """Rounds each calibration run trains for a fit of ``n_rounds``: ⌈n_rounds ×
    ``ROUNDS_SHARE``⌉ for one run, ⌈n_rounds × ``FOLD_ROUNDS_SHARE``⌉ for each of
    ``n_runs`` > 1 cross-fitted runs (at least 1).

    Parameters
    ----------
    n_rounds : int
    n_runs : int, default=1
    """
    share = ROUNDS_SHARE if n_runs <= 1 else FOLD_ROUNDS_SHARE
    return max(1, int(np.ceil(share * n_rounds)))


def logit_scale(logits, kind):
    """s(g): the root mean square of the logits, each row centred first under a softmax
    (which reads a row only up to a shift).

    Parameters
    ----------
    logits : ndarray of shape (n_samples, n_columns)
    kind : {"sigmoid", "softmax"}
    """
    g = np.clip(np.asarray(logits, dtype=np.float64), -1e6, 1e6)
    if kind == "softmax":
        g = g - g.mean(axis=1, keepdims=True)
    return float(np.sqrt(np.mean(g * g))) if g.size else 0.0


def carry_exponent(weak_learner):
    """β of ``carry_slope`` for a fit of ``weak_learner`` (``CARRY_EXPONENTS``, 1 where
    none is given)."""
    return CARRY_EXPONENTS.get(weak_learner, 1.0)


def carry_slope(calibrator, short_logits, long_logits, exponent=1.0):
    """The slope a' fitted after T' rounds, carried to the same run after T rounds.

    a = a' · (s(g_T') / s(g_T))^β (``logit_scale``, β = ``exponent``), clipped to
    ``SLOPE_BOUNDS``: the calibrated logits a·g keep the scale they had after T' rounds, as
    far as held-out f follows the growth of the training logits (module docstring). Without
    a scale to compare (every logit 0) the slope is kept as it is.

    Parameters
    ----------
    calibrator : Calibrator
        Fitted on held-out f of runs of T' rounds.
    short_logits, long_logits : ndarray of shape (n_samples, n_columns)
        The main run's logits after T' and after T rounds, on the same examples.
    exponent : float, default=1.0
        β (``carry_exponent``).

    Returns
    -------
    Calibrator
    """
    short = logit_scale(short_logits, calibrator.kind)
    long = logit_scale(long_logits, calibrator.kind)
    if not (short > 0 and long > 0):
        return calibrator
    slope = float(np.clip(calibrator.slope * (short / long) ** float(exponent),
                          *SLOPE_BOUNDS))
    return Calibrator(calibrator.kind, slope)


def dataset_rows(dataset, rows):
    """The calibration run's rows of the main run's binned ``dataset`` (bins read no label,
    so sharing them leaks none), or None where the rows must be binned afresh: data with
    text columns, whose postings hold document numbers.

    Parameters
    ----------
    dataset : Dataset
        The main run's, on every training example.
    rows : ndarray of shape (n_rows,), intp

    Returns
    -------
    Dataset or None
    """
    if dataset.text:
        return None
    rows = np.asarray(rows)
    return replace(dataset, codes=np.ascontiguousarray(dataset.codes[:, rows]),
                   categorical=[replace(column, codes=column.codes[rows])
                                for column in dataset.categorical],
                   n_samples=int(rows.shape[0]))
