"""AdaBoost.MR's multi-label cut θ_t: the cut on f of least weighted training Hamming loss,
from histograms of the scores summed through the scheme's reducer.

AdaBoost.MR learns a ranking (§9): f has no natural zero (adding c(x) to every f(x, l)
leaves every Z_t unchanged), so a multi-label prediction needs a cut. After each round
``MRScheme.update`` chooses one global θ on the training scores f(x, l): the cut between
two consecutive distinct scores of least weighted Hamming loss (the positive pairs below
it and the negative ones above), the first such, halfway between the two scores (below the
least or above the greatest when every pair is predicted one way). The sort of every score
that finds it (``hamming_threshold_naive``) is the oracle of this module's ``cut_threshold``.

The loss of a cut only needs the weight of the positive pairs below it and of the negative
ones above it, so a histogram of the scores over a fixed grid gives the loss of every cut
between two of its non-empty cells, and a histogram of a cell's scores over a finer grid
the cuts inside it. The grid is the scores' order-preserving 64-bit keys
(``kernels/score_cells.score_keys``) read 8 bits at a time, 8 levels down to single values,
and a cell is refined only where a cut inside it could beat (or tie, earlier) the best cut
found so far, or where it holds a neighbour of that cut (whose value θ needs): a sum a
level (8 in every case measured; a best cut that moves to a coarser cell can add some), of
256 entries a cell asked (16 bits a level made 4 sums, but of 65,536 entries a cell: on
yeast-ml a cut's 27 cells held 40 MB, longer to clear and scan than the sort of its 34,000
scores, and as much to allreduce on Dask). Every histogram is a sum over examples taken
through the reducer (``Reducer.apply(cut_histograms, ...)``): on one machine the scheme's
own rows, on a Dask cluster every shard's summed, so no score leaves its worker and the
client's scheme of no rows reads the same histograms, hence the same θ, from the round's
log. The cut is the sort's exactly where the weights' sums are exact (no sample weights, or
integer ones); otherwise two cuts whose losses differ by rounding may swap.
"""

import numpy as np

from confboost.kernels.score_cells import key_value, score_cell_histograms

#: Bits of a key read per level, and the cells of a level.
BITS = 8
CELLS = 1 << BITS
#: Levels down to one value (64-bit keys).
LEVELS = 64 // BITS


def cut_histograms(scheme, levels, prefixes):
    """Per asked cell: W+ (positive pairs), W- and the count of the scheme's scores in each
    of its CELLS sub-cells (a sum over examples: ``MRScheme.update`` takes it through the
    reducer; ``kernels/score_cells.score_cell_histograms``, one pass). A cell of level L
    holds the keys whose top BITS·L bits are its prefix; the asked cells are disjoint.

    Parameters
    ----------
    scheme : MRScheme
        Its ``scores``, ``labels.signs`` and sample weights are read, nothing changed.
    levels : ndarray of shape (n_cells,), int64
    prefixes : ndarray of shape (n_cells,), uint64

    Returns
    -------
    histograms : ndarray of shape (n_cells, CELLS, 3)
    """
    order = np.lexsort((prefixes, levels))
    level_of, first = np.unique(levels[order], return_index=True)
    out = np.zeros((len(levels), CELLS, 3))
    score_cell_histograms(np.ascontiguousarray(scheme.scores, dtype=np.float64).view(np.uint64),
                          np.ascontiguousarray(scheme.labels.signs, dtype=np.int8),
                          np.asarray(scheme._sample_weight, dtype=np.float64),
                          level_of.astype(np.int64),
                          np.append(first, len(levels)).astype(np.int64),
                          np.ascontiguousarray(prefixes[order], dtype=np.uint64),
                          order.astype(np.int64), BITS, out)
    return out


class _Cells:
    """The non-empty cells of a refinement, in key order: level, prefix, W+, W-, count."""

    def __init__(self, level, prefix, stats):
        self.level, self.prefix, self.stats = level, prefix, stats

    @classmethod
    def of(cls, histograms, levels, prefixes):
        """The non-empty sub-cells of the asked cells, from their summed histograms."""
        parent, sub = np.nonzero(histograms[:, :, 2] > 0)
        return cls(levels[parent] + 1,
                   (prefixes[parent] << np.uint64(BITS)) | sub.astype(np.uint64),
                   histograms[parent, sub])

    def replaced(self, todo, children, parent):
        """These cells with cells ``todo`` replaced by ``children`` (``parent``: the index
        in ``todo`` of each child's cell)."""
        kept = np.ones(len(self.level), dtype=bool)
        kept[todo] = False
        where = np.concatenate([np.flatnonzero(kept), todo[parent]])
        order = np.lexsort((np.concatenate([np.zeros(kept.sum(), dtype=np.uint64),
                                            children.prefix]), where))
        return _Cells(np.concatenate([self.level[kept], children.level])[order],
                      np.concatenate([self.prefix[kept], children.prefix])[order],
                      np.concatenate([self.stats[kept], children.stats])[order])


def cut_threshold(reducer, scheme):
    """The cut θ of least weighted Hamming loss on the training scores of ``scheme`` (the
    module docstring), from ``cut_histograms`` summed through ``reducer``.

    Parameters
    ----------
    reducer : Reducer
    scheme : MRScheme

    Returns
    -------
    threshold : float
    """
    levels, prefixes = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.uint64)
    cells = _Cells.of(reducer.apply(cut_histograms, scheme, levels, prefixes), levels,
                      prefixes)
    while True:
        before = np.concatenate([[0.0], np.cumsum(cells.stats[:, 0])])  # W+ below each boundary
        after = np.concatenate([np.cumsum(cells.stats[::-1, 1])[::-1], [0.0]])  # W- above it
        errors = before + after  # the cut at boundary c: below cell c
        best = int(np.argmin(errors))
        inside = before[:-1] + after[1:]  # the least loss of a cut inside each cell
        index = np.arange(len(cells.level))
        todo = (cells.stats[:, 2] > 1) & ((inside < errors[best])
                                          | ((inside == errors[best]) & (index < best)))
        todo[max(best - 1, 0):best + 1] = True  # θ's neighbours
        todo = np.flatnonzero(todo & (cells.level < LEVELS))
        if todo.size == 0:
            break
        levels, prefixes = cells.level[todo], cells.prefix[todo]
        histograms = reducer.apply(cut_histograms, scheme, levels, prefixes)
        children = _Cells.of(histograms, levels, prefixes)
        cells = cells.replaced(todo, children, np.nonzero(histograms[:, :, 2] > 0)[0])
    if best == 0:
        return key_value(cells.prefix[0]) - 1.0
    if best == len(cells.level):
        return key_value(cells.prefix[-1]) + 1.0
    return 0.5 * (key_value(cells.prefix[best - 1]) + key_value(cells.prefix[best]))


def hamming_threshold_naive(signs, scores, sample_weight):
    """Twin of ``cut_threshold`` on one machine's rows, by a sort of every score.

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
