"""The weak learner of mixed data: the best hypothesis over every feature kind.

(This is ``weak_learner="stump"`` on a mixed table; the trees on mixed tables are in
``learners/mixed_tree.py``.)

Each round it asks the stump learner (continuous columns), the categorical learner and the
term learner (text columns) for their least-Z hypothesis under the same weights, and keeps the
one of least Z (first in that order on ties). All three use the same confidence rule
(``confidence.block_confidences``), so the scheme's α (``alpha.py``) treats them alike.
"""

from confboost.learners.categorical import CategoricalLearner
from confboost.learners.stump import StumpLearner
from confboost.learners.term import TermLearner


class MixedLearner:
    """Best of the stump, categorical and term learners on a ``MixedDataset``.

    Parameters
    ----------
    mode : int
        Confidence mode code.
    smoothing : float
    """

    def __init__(self, mode, smoothing):
        self.stump = StumpLearner(mode, smoothing)
        self.categorical = CategoricalLearner(mode, smoothing)
        self.term = TermLearner(mode, smoothing)

    def fit(self, dataset, weights, labels):
        """The least-Z ``PartitionFit`` over every kind of feature of ``dataset``."""
        fits = []
        if dataset.numeric is not None:
            fits.append(self.stump.fit(dataset.numeric, weights, labels))
        fits.append(self.categorical.fit(dataset, weights, labels))
        fits.append(self.term.fit(dataset, weights, labels))
        fits = [fit for fit in fits if fit is not None]
        if not fits:
            raise ValueError("the data has no usable feature (every column is ignored or empty)")
        return min(fits, key=lambda fit: fit.criterion)
