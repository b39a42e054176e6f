"""AdaBoost.MR's multi-label cut on the cluster: ``schemes/mr.hamming_threshold`` from
sums the reducer takes, exactly.

On one machine the cut θ_t is chosen on the sorted training scores f(x, l): the cut between
two consecutive distinct scores of least weighted Hamming loss (the positive pairs below
it and the negative ones above), the first such, halfway between the two scores (below the
least or above the greatest when every pair is predicted one way). The loss of a cut only
needs the weight of the positive pairs below it and of the negative ones above it, so a
histogram of the scores over a fixed grid gives the loss of every cut between two of its
non-empty cells, and a histogram of a cell's scores over a finer grid the cuts inside it.
The grid is the scores' order-preserving 64-bit keys (``score_keys``) read 16 bits at a
time, 4 levels down to single values, and a cell is refined only where a cut inside it
could beat (or tie, earlier) the best cut found so far, or where it holds a neighbour of
that cut (whose value θ needs). Every histogram is each shard's summed through the
reducer (``cut_histograms``): no score leaves its worker, and the cut is the local one (its
losses equal the local ones where the weights' sums are exact, as integer sample weights
are; otherwise to rounding).
"""

import numpy as np

from confboost.engine.callbacks import TrainingCallback

#: Bits of a key read per level, and the cells of a level.
BITS = 16
CELLS = 1 << BITS
#: Levels down to one value (64-bit keys).
LEVELS = 64 // BITS
_SIGN = np.uint64(1 << 63)


def score_keys(scores):
    """Order-preserving uint64 keys of the scores (flattened), -0.0 read as 0.0."""
    bits = (np.asarray(scores, dtype=np.float64).ravel() + 0.0).view(np.uint64)
    return np.where(bits & _SIGN, ~bits, bits | _SIGN)


def key_value(key):
    """The score of an order-preserving key (``score_keys``' inverse)."""
    key = np.uint64(key)
    bits = key & ~_SIGN if key & _SIGN else ~key
    return float(np.array([bits], dtype=np.uint64).view(np.float64)[0])


def cut_histograms(scheme, cells):
    """Per cell (level, prefix) of ``cells``: W+ (positive pairs), W- and the count of the
    scheme's scores in each of its CELLS sub-cells, shape (n_cells, CELLS, 3); a cell of
    level L holds the keys whose top BITS·L bits are ``prefix``."""
    keys = score_keys(scheme.scores)
    k = scheme.scores.shape[1]
    weight = np.repeat(np.asarray(scheme._sample_weight, dtype=np.float64), k)
    positive = scheme.labels.signs.ravel() > 0
    out = np.zeros((len(cells), CELLS, 3))
    for index, (level, prefix) in enumerate(cells):
        inside = (np.ones(keys.shape[0], dtype=bool) if level == 0
                  else (keys >> np.uint64(64 - BITS * level)) == np.uint64(prefix))
        sub = ((keys[inside] >> np.uint64(64 - BITS * (level + 1)))
               & np.uint64(CELLS - 1)).astype(np.intp)
        w, pos = weight[inside], positive[inside]
        out[index, :, 0] = np.bincount(sub, weights=np.where(pos, w, 0.0), minlength=CELLS)
        out[index, :, 1] = np.bincount(sub, weights=np.where(pos, 0.0, w), minlength=CELLS)
        out[index, :, 2] = np.bincount(sub, minlength=CELLS)
    return out


def _refined(histograms, cells):
    """The non-empty sub-cells of ``cells`` from their histograms, in key order:
    (level, prefix, W+, W-, count) each."""
    out = []
    for (level, prefix), hist in zip(cells, histograms, strict=True):
        for sub in np.flatnonzero(hist[:, 2] > 0).tolist():
            out.append((level + 1, (prefix << BITS) | sub, *hist[sub].tolist()))
    return out


def cluster_threshold(reducer, scheme):
    """``hamming_threshold`` of the scores on every shard of ``reducer``: θ (float)."""
    cells = _refined(reducer.apply(cut_histograms, scheme, [(0, 0)]), [(0, 0)])
    while True:
        positive = np.array([cell[2] for cell in cells])
        negative = np.array([cell[3] for cell in cells])
        before = np.concatenate([[0.0], np.cumsum(positive)])  # W+ below each boundary
        after = np.concatenate([np.cumsum(negative[::-1])[::-1], [0.0]])  # W- above it
        errors = before + after  # the cut at boundary c: below cell c
        best = int(np.argmin(errors))
        todo = {c for c in (best - 1, best) if 0 <= c < len(cells)}  # θ's neighbours
        for c, cell in enumerate(cells):
            if cell[0] < LEVELS and cell[4] > 1:
                inside = before[c] + after[c + 1]  # the least loss of a cut inside cell c
                if inside < errors[best] or (inside == errors[best] and c < best):
                    todo.add(c)
        todo = sorted(c for c in todo if cells[c][0] < LEVELS)
        if not todo:
            break
        asked = [cells[c][:2] for c in todo]
        pieces = dict(zip(todo, _split(_refined(reducer.apply(cut_histograms, scheme, asked),
                                                asked), asked), strict=True))
        cells = [each for c, cell in enumerate(cells)
                 for each in (pieces[c] if c in pieces else [cell])]
    if best == 0:
        return key_value(cells[0][1]) - 1.0
    if best == len(cells):
        return key_value(cells[-1][1]) + 1.0
    return 0.5 * (key_value(cells[best - 1][1]) + key_value(cells[best][1]))


def _split(refined, asked):
    """``_refined``'s list cut back into one list per asked cell."""
    out = [[] for _ in asked]
    parents = {cell: index for index, cell in enumerate(asked)}
    for cell in refined:
        out[parents[(cell[0] - 1, cell[1] >> BITS)]].append(cell)
    return out


class ClusterCut(TrainingCallback):
    """MR's multi-label cut of each round (``MRScheme.thresholds``): ``cluster_threshold``
    over the client's reducer, which answers from the round's log (the workers took the
    same cut after their update, ``round_learner.RoundSpec.cut``); the run's scheme has no
    rows, so its own cut is turned off.

    Parameters
    ----------
    reducer : Reducer
    """

    #: Before every callback that reads the round's cut (score records, checkpoints).
    order = -300

    def __init__(self, reducer):
        self.reducer = reducer

    def before_training(self, env):
        env.run.scheme.multilabel = False  # ``update`` would sort the client's no scores
        return False

    def after_iteration(self, env):
        scheme = env.run.scheme
        scheme.thresholds.append(cluster_threshold(self.reducer, scheme))
        return False
