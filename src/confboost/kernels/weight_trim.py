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

The rule is three steps, so that a learner can take its one sum through a reducer
(``engine/learners/stump.py``): the mass of each bucket and the total over a set of rows
(``bucket_masses``: bucket masses of disjoint row sets add up), the cut from the buckets
summed over every row (``cut_bucket``), and each set's rows at or above the cut
(``kept_rows``). Every sum is added in row order, then in bucket order.
"""

import numpy as np

from confboost.utils.lazy_numba import njit

#: Buckets of the order-preserving key (top 16 bits of a float64).
N_KEY_BUCKETS = 1 << 16
KEY_SHIFT = 48


@njit(cache=True, nogil=True)
def bucket_masses(mass, keys, bucket_mass):
    """The weight mass of each key bucket and the total, each added in row order.

    Parameters
    ----------
    mass : ndarray of shape (n_samples,), float64
        Weight mass per example (Σ_l W[i, l]), non-negative.
    keys : ndarray of shape (n_samples,), uint64
        ``mass.view(np.uint64)``: the bit patterns.
    bucket_mass : ndarray of shape (N_KEY_BUCKETS,), float64
        Output: the mass of the examples whose key's top 16 bits are each bucket.

    Returns
    -------
    total : float
        Σ_i m_i.
    """
    bucket_mass[:] = 0.0
    total = 0.0
    for i in range(mass.shape[0]):
        bucket_mass[keys[i] >> KEY_SHIFT] += mass[i]
        total += mass[i]
    return total


@njit(cache=True, nogil=True)
def cut_bucket(bucket_mass, total, beta):
    """The lowest bucket whose cumulative mass (added in bucket order) passes ``beta`` of
    ``total``; 0 (keep every example) when none does.

    Parameters
    ----------
    bucket_mass : ndarray of shape (N_KEY_BUCKETS,), float64
        ``bucket_masses``' output, summed over every row.
    total : float
        The total mass, summed the same way.
    beta : float
        Share of the mass that may be trimmed, in [0, 1).

    Returns
    -------
    cut : int
    """
    budget = beta * total
    cumulative = 0.0
    for bucket in range(bucket_mass.shape[0]):
        if cumulative + bucket_mass[bucket] > budget:
            return bucket
        cumulative += bucket_mass[bucket]
    return 0


@njit(cache=True, nogil=True)
def kept_rows(keys, cut, rows):
    """The examples whose bucket is ``cut`` or above.

    Parameters
    ----------
    keys : ndarray of shape (n_samples,), uint64
        The masses' bit patterns.
    cut : int
        ``cut_bucket``'s output.
    rows : ndarray of shape (n_samples,), uint32
        Output: the kept example indices, increasing, in ``rows[:count]``.

    Returns
    -------
    count : int
    """
    count = 0
    for i in range(keys.shape[0]):
        if (keys[i] >> KEY_SHIFT) >= cut:
            rows[count] = i
            count += 1
    return count


def _buckets(keys):
    return (keys >> np.uint64(KEY_SHIFT)).astype(np.intp)


def bucket_masses_naive(mass):
    """Twin of ``bucket_masses`` with NumPy: (bucket masses, total); ``bincount`` and
    ``cumsum`` add in row order too."""
    bucket_mass = np.bincount(_buckets(mass.view(np.uint64)), weights=mass,
                              minlength=N_KEY_BUCKETS).astype(np.float64)
    return bucket_mass, float(np.cumsum(mass)[-1]) if mass.size else 0.0


def cut_bucket_naive(bucket_mass, total, beta):
    """Twin of ``cut_bucket`` with NumPy (``cumsum``)."""
    over = np.flatnonzero(np.cumsum(bucket_mass) > beta * total)
    return int(over[0]) if over.size else 0


def kept_rows_naive(keys, cut):
    """Twin of ``kept_rows`` with NumPy; returns the kept rows."""
    return np.flatnonzero(_buckets(keys) >= cut).astype(np.uint32)
