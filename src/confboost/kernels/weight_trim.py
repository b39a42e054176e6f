"""Weight trimming (Friedman, Hastie & Tibshirani 2000, §9): which examples a round's
histograms may skip.

The examples of least weight mass that together hold at most a share β of the total are
left out of the weak learner's histograms for that round (they barely move a split's Z); the
weight update still runs over every example, so Z_t and the bound Π Z_t stay exact.

The cut is found without a sort: an example's mass m_i > 0 is bucketed by the top 16 bits of
its IEEE-754 pattern (sign, exponent and 4 mantissa bits: an order-preserving key for
non-negative floats); the cut is the lowest bucket whose cumulative mass would pass β.
Everything below it is trimmed, so the trimmed mass never exceeds β (it may fall short of it
by at most one bucket, a factor 2^(-4) in weight).
"""

import numpy as np

from confboost.utils.lazy_numba import njit

#: Buckets of the order-preserving key (top 16 bits of a float64).
N_KEY_BUCKETS = 1 << 16
KEY_SHIFT = 48


@njit(cache=True, nogil=True)
def trim_rows(mass, keys, beta, rows):
    """Rows kept after trimming the lightest examples holding at most ``beta`` of the mass.

    Parameters
    ----------
    mass : ndarray of shape (n_samples,), float64
        Weight mass per example (Σ_l W[i, l]), non-negative.
    keys : ndarray of shape (n_samples,), uint64
        ``mass.view(np.uint64)``: the bit patterns.
    beta : float
        Share of the mass that may be trimmed, in [0, 1).
    rows : ndarray of shape (n_samples,), uint32
        Output: the kept example indices, increasing, in ``rows[:count]``.

    Returns
    -------
    count : int
    """
    n_samples = mass.shape[0]
    bucket_mass = np.zeros(N_KEY_BUCKETS, dtype=np.float64)
    total = 0.0
    for i in range(n_samples):
        bucket_mass[keys[i] >> KEY_SHIFT] += mass[i]
        total += mass[i]
    budget = beta * total
    cumulative = 0.0
    cutoff = 0
    for bucket in range(N_KEY_BUCKETS):
        if cumulative + bucket_mass[bucket] > budget:
            cutoff = bucket
            break
        cumulative += bucket_mass[bucket]
    count = 0
    for i in range(n_samples):
        if (keys[i] >> KEY_SHIFT) >= cutoff:
            rows[count] = i
            count += 1
    return count


def trim_rows_naive(mass, beta):
    """Twin of ``trim_rows`` with NumPy (bincount, cumsum); returns the kept rows."""
    buckets = (mass.view(np.uint64) >> np.uint64(KEY_SHIFT)).astype(np.int64)
    bucket_mass = np.bincount(buckets, weights=mass, minlength=N_KEY_BUCKETS)
    cumulative = np.cumsum(bucket_mass)
    over = np.flatnonzero(cumulative > beta * mass.sum())
    cutoff = over[0] if over.size else 0
    return np.flatnonzero(buckets >= cutoff).astype(np.uint32)
