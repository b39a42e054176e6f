"""Normalized margins and their cumulative distribution (paper §5).

This module owns the margin of an example under a combined hypothesis
``f = Σ_t α_t h_t`` and the cumulative margin distribution, the diagnostic of Schapire,
Freund, Bartlett & Lee (1998). Plotting lives in ``plot/``.

Labels follow :mod:`evaluation.metrics`: 0/1 indicators or ±1 signs, label present where the
value is 1.
"""

from numbers import Real

import numpy as np
from numpy.typing import ArrayLike

from confboost.evaluation.metrics import _label_mask

__all__ = ["margin_distribution", "normalized_margins"]


def normalized_margins(scores: ArrayLike, Y: ArrayLike, alphas_abs_sum: float,
                       per_pair: bool = False) -> np.ndarray:
    """Margins ``y f(x) / Σ_t |α_t|`` and their multiclass and multi-label forms (§5).

    The normaliser must bound ``|f|``: with every ``h_t`` scaled into [−1, 1] it is
    ``Σ_t |α_t|``; for hypotheses with a larger range pass ``Σ_t |α_t| · max|h_t|``. Then
    every margin lies in [−1, 1].

    - Binary, ``scores`` of shape (n,): ``y_i f(x_i) / Σ|α|``.
    - Multiclass and multi-label, ``scores`` of shape (n, k), by default one margin per
      example: ``(min_{l ∈ Y_i} f(x_i, l) − max_{l ∉ Y_i} f(x_i, l)) / (2 Σ|α|)``. For
      single-label data this is the multiclass margin of Schapire et al. (1998),
      ``f(x, y) − max_{l ≠ y} f(x, l)``, halved because each ``f(x, l)/Σ|α|`` lies in
      [−1, 1]. For multi-label data it is positive exactly when every crucial pair of the
      example is ranked correctly (ranking loss 0, §9).
    - With ``per_pair=True``, one margin per (example, label) pair:
      ``Y_i[l] f(x_i, l) / Σ|α|``, the binary margins of the ``n·k`` problems that
      AdaBoost.MH boosts together (§7).

    Parameters
    ----------
    scores : array-like, shape (n,) or (n, k)
        ``f(x)`` or ``f(x, l)``, finite.
    Y : array-like, same shape as ``scores``
        Labels, 0/1 indicator or ±1 signs.
    alphas_abs_sum : float
        ``Σ_t |α_t|`` (times ``max|h_t|`` if that exceeds 1); positive.
    per_pair : bool, default False
        For 2-d ``scores``, return the (n, k) pair margins instead of one per example.

    Returns
    -------
    margins : ndarray of float64, shape (n,), or (n, k) when ``per_pair``

    Raises
    ------
    ValueError
        For mismatched shapes or bad labels, a non-positive normaliser, or (per example
        margins) a row with no true label or no false label, whose margin is undefined.
    """
    scores = np.asarray(scores, dtype=np.float64)
    mask = _label_mask(Y, "Y")
    if scores.ndim not in (1, 2):
        raise ValueError(f"scores must be 1-d (n,) or 2-d (n, k), got shape {scores.shape}")
    if mask.shape != scores.shape:
        raise ValueError(f"Y must have the shape of scores {scores.shape}, got {mask.shape}")
    if not np.all(np.isfinite(scores)):
        raise ValueError("scores contains NaN or infinite values")
    if not isinstance(alphas_abs_sum, Real) or not 0 < alphas_abs_sum < np.inf:
        raise ValueError(f"alphas_abs_sum must be a positive finite number, got {alphas_abs_sum!r}")
    signs = np.where(mask, 1.0, -1.0)
    if scores.ndim == 1 or per_pair:
        return signs * scores / alphas_abs_sum
    n_true = mask.sum(axis=1)
    no_pair = np.flatnonzero((n_true == 0) | (n_true == mask.shape[1]))
    if no_pair.size:
        raise ValueError(
            f"the margin is undefined for examples with no true label or no false label: "
            f"rows {no_pair[:10].tolist()}{' ...' if no_pair.size > 10 else ''}; "
            f"use per_pair=True or drop them"
        )
    lowest_true = np.where(mask, scores, np.inf).min(axis=1)
    highest_false = np.where(mask, -np.inf, scores).max(axis=1)
    return (lowest_true - highest_false) / (2 * alphas_abs_sum)


def margin_distribution(margins: ArrayLike, grid: ArrayLike) -> np.ndarray:
    """The cumulative margin distribution: the fraction of margins ``<= θ`` for each θ.

    Parameters
    ----------
    margins : array-like, any shape
        Margins, e.g. from :func:`normalized_margins`; flattened.
    grid : array-like, shape (g,)
        The thresholds θ.

    Returns
    -------
    fractions : ndarray of float64, shape (g,)
        ``|{i : margin_i <= θ_j}| / n`` for each ``θ_j``; non-decreasing in θ.
    """
    margins = np.asarray(margins, dtype=np.float64).ravel()
    grid = np.asarray(grid, dtype=np.float64)
    if margins.size == 0:
        raise ValueError("margins is empty")
    if not np.all(np.isfinite(margins)):
        raise ValueError("margins contains NaN or infinite values")
    if grid.ndim != 1:
        raise ValueError(f"grid must be a 1-d array of thresholds, got shape {grid.shape}")
    if np.any(np.isnan(grid)):
        raise ValueError("grid contains NaN")
    counts = np.searchsorted(np.sort(margins), grid, side="right")
    return counts / margins.size
