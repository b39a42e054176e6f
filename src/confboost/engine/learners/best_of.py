"""The best hypothesis over every column kind: ``weak_learner="stump"`` on a table.

Each round it asks the stump learner (continuous columns), the categorical learner and the
term learner (text columns) for their least-Z hypothesis under the same weights, and keeps
the one of least Z; between hypotheses on different columns whose Z differ by no more than
``TIE_TOLERANCE`` (rounding, not information), the one on the earlier column of the table, as
icsiboost decides (it scans the columns in ``.names`` order and switches only for a Z lower
by more than 1e-11). All three use the same confidence rule
(``confidence.block_confidences``) and Z (``kernels/criterion_numpy.py``), so the scheme's α
(``alpha.py``) treats them alike. On a Dataset with a numeric part only it is the stump
learner (``learners.make_learner`` then builds the stump learner itself).
"""


#: Z differences up to this are ties, decided by the column order (icsiboost's 1e-11).
TIE_TOLERANCE = 1e-11


class BestOfLearner:
    """Least-Z hypothesis of several learners on the same ``Dataset``.

    Parameters
    ----------
    learners : list
        Weak learners whose ``fit`` returns a ``PartitionFit``, or None when the Dataset
        has no column of their kind.
    """

    def __init__(self, learners):
        self.learners = list(learners)

    def fit(self, dataset, weights, labels):
        """The least-Z ``PartitionFit`` over the learners."""
        fits = [learner.fit(dataset, weights, labels) for learner in self.learners]
        fits = [fit for fit in fits if fit is not None]
        if not fits:
            raise ValueError("the data has no usable feature (every column is ignored or empty)")
        fits.sort(key=lambda fit: min(fit.hypothesis.features()))
        best = fits[0]
        for fit in fits[1:]:
            if fit.criterion < best.criterion - TIE_TOLERANCE:
                best = fit
        return best
