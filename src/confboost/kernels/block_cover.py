"""The training cover of a round's blocks: the sample weight of the examples in each block.

The explanations average a hypothesis' block values over it (``contributions.record_cover``, a
callback of every round). ``block_cover`` is ``np.bincount(blocks, weights=sample_weight)``
to the last bit, at a fraction of its cost (no conversion of the blocks to intp, no pass to
find their range): weighted examples are added in example order, as ``np.bincount`` adds
them; unit weights are counted, in ``LANES`` interleaved counters, since integer counts are
exact in any order and one counter per block makes each add wait for the one before.
"""

import numpy as np

from confboost.utils.lazy_numba import njit

#: Counters per block of the unit-weight count.
LANES = 4


@njit(cache=True, nogil=True)
def block_cover(blocks, sample_weight, unit, cover):
    """Σ of the sample weights of each block's examples.

    Parameters
    ----------
    blocks : ndarray of shape (n_samples,), uint8
        Block of each training example, each below ``cover.shape[0]``.
    sample_weight : ndarray of shape (n_samples,), float64
    unit : bool
        Every sample weight is 1: count the examples (``sample_weight`` is not read).
    cover : ndarray of shape (n_blocks,), float64
        Output.
    """
    n_samples = blocks.shape[0]
    n_blocks = cover.shape[0]
    if unit:
        counts = np.empty((LANES, n_blocks), dtype=np.int64)
        counts[:] = 0  # not np.zeros: one NumPy overload less to compile
        end = n_samples - n_samples % LANES
        for start in range(0, end, LANES):
            for lane in range(LANES):
                counts[lane, blocks[start + lane]] += 1
        for i in range(end, n_samples):
            counts[0, blocks[i]] += 1
        for j in range(n_blocks):
            total = 0
            for lane in range(LANES):
                total += counts[lane, j]
            cover[j] = total
    else:
        cover[:] = 0.0
        for i in range(n_samples):  # serial, in example order: np.bincount's sum
            cover[blocks[i]] += sample_weight[i]


def block_cover_naive(blocks, sample_weight, n_blocks):
    """Twin of ``block_cover``: ``np.bincount``; returns the cover, shape (n_blocks,)."""
    return np.bincount(blocks, weights=sample_weight, minlength=n_blocks).astype(np.float64)
