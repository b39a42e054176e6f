"""The ``Booster`` the training commands run: icsiboost's arithmetic and threshold test.

``confboost train`` and ``confboost icsiboost`` promise icsiboost's rounds and ``.shyp``
files. The rounds' choices follow icsiboost's rules already; two things more make its
numbers and its predictions the same:

- its arithmetic: AdaBoost.MH normalises D as icsiboost does (``MHScheme``'s
  ``normalisation="in_order"``: D_1 = 1/(mk), the C library's exp, a division by the sum
  taken in example order), and the confidences use the C library's log (as every fit does,
  ``engine.confidence``). Otherwise a confidence near a rounding boundary prints one digit
  off after a few rounds of different last bits;
- its threshold test: icsiboost sends ``x < t`` below a continuous threshold t (the
  midpoint of two training values), confboost's stumps ``x <= θ``; the stumps trained here
  take θ = the largest float below t, so a value exactly at t (an integer column's
  midpoint, on a test line) goes above, as in icsiboost. The ``.shyp`` writer prints t;
- a stump's block masses in icsiboost's order (``icsiboost_stump_masses``): it sorts the
  examples by value (glibc's merge sort: equal values in example order, missing values
  last), sums the known ones into the upper block, then moves them one at a time below,
  adding to one sum and subtracting from the other. The stump chosen is the learner's;
  its W+ and W- (and so its confidences) are recomputed in that order.

Imported only by the training command (it imports the estimator).
"""

import dataclasses

import numpy as np

from confboost.engine.confidence import block_confidences
from confboost.engine.learners.stump import STUMP_ABSTAINING, StumpHypothesis
from confboost.estimators.booster import Booster
from confboost.training.fit_runs import Fit


class IcsiboostBooster(Booster):
    """``Booster`` training as icsiboost does (see the module docstring).

    The parameters are ``Booster``'s. MR and MO runs normalise as ``Booster``'s do
    (icsiboost has neither).
    """

    def _new_fit(self, mode):
        return IcsiboostFit(self, mode, "in_order" if self.scheme == "mh" else "predicted")


class IcsiboostFit(Fit):
    """``Fit`` whose learner's stumps test ``x < t`` (``ThresholdBelow``)."""

    def _learner(self, dataset, smoothing, k):
        return IcsiboostStumps(super()._learner(dataset, smoothing, k), self.mode, smoothing)


class IcsiboostStumps:
    """A weak learner whose stumps are icsiboost's: the threshold moved to the largest
    float below it, the block masses and confidences in icsiboost's order.

    The training examples' blocks are unchanged: the thresholds are midpoints of two
    training values read as icsiboost reads them (float32, ``read_data(single=True)``),
    whose neighbours below are still above the lower value.

    Parameters
    ----------
    learner : weak learner
        What the fit would use (``learners.make_learner``).
    mode : int
        The confidence mode code.
    smoothing : float
    """

    def __init__(self, learner, mode, smoothing):
        self.learner = learner
        self.mode = mode
        self.smoothing = smoothing
        self._orders = {}  # table position -> (known examples sorted, missing ones in order)

    def fit(self, dataset, weights, labels):
        """The learner's fit, a stump's threshold t replaced by nextafter(t, -inf) and its
        masses and confidences recomputed in icsiboost's order."""
        fit = self.learner.fit(dataset, weights, labels)
        stump = None if fit is None else fit.hypothesis
        if not isinstance(stump, StumpHypothesis):
            return fit
        known, missing = self._order(dataset, stump.feature, fit.train_blocks)
        n_below = int(np.count_nonzero(fit.train_blocks == 0))
        weight_pos, weight_neg = icsiboost_stump_masses(known, missing, n_below, weights,
                                                        labels.signs)
        values = block_confidences(weight_pos, weight_neg, STUMP_ABSTAINING, self.mode,
                                   self.smoothing)
        threshold = stump.threshold
        if np.isfinite(threshold):
            threshold = float(np.nextafter(threshold, -np.inf))
        return dataclasses.replace(
            fit, hypothesis=StumpHypothesis(stump.feature, threshold, values),
            weight_pos=weight_pos, weight_neg=weight_neg)

    def _order(self, dataset, feature, train_blocks):
        """The examples as icsiboost sorts column ``feature`` (``glibc_order``), kept."""
        if feature not in self._orders:
            exact = [column for column in dataset.exact if column.column == feature]
            if exact:
                keys = exact[0].ranks
            else:
                keys = dataset.codes[int(np.flatnonzero(dataset.numeric_columns == feature)[0])]
            self._orders[feature] = glibc_order(keys, train_blocks == 2)
        return self._orders[feature]

    def release_work(self):
        """Drop the learner's work arrays (``boosting``'s end of a run), if it keeps any."""
        release = getattr(self.learner, "release_work", None)
        if release is not None:
            release()


def glibc_order(keys, missing):
    """The order in which glibc's ``qsort_r`` (a merge sort) leaves icsiboost's examples,
    sorted by ``local_comparator2``: by value, equal values in example order (the merge
    takes the left run's first on a tie), missing values last. The comparator says a
    missing value is greater than any other, itself included, so a merge puts the right
    run's missing examples before the left run's: their order is the halving order of
    ``_missing_order``.

    Parameters
    ----------
    keys : ndarray of shape (n_samples,)
        Any key increasing with the value (bin codes of an exact bin per value, ranks).
    missing : ndarray of shape (n_samples,), bool

    Returns
    -------
    known : ndarray of shape (n_known,), intp
        The examples with a value, sorted.
    missing_order : ndarray of shape (n_missing,), intp
    """
    present = np.flatnonzero(~missing)
    known = present[np.argsort(keys[present], kind="stable")]
    return known, _missing_order(np.flatnonzero(missing), 0, missing.shape[0])


def _missing_order(missing, start, stop):
    """The order of the missing examples in [start, stop) after glibc's ``msort``: the
    second half's (it splits n into n // 2 and the rest), then the first half's."""
    inside = missing[(missing >= start) & (missing < stop)]
    if inside.shape[0] <= 1:
        return inside
    middle = start + (stop - start) // 2
    return np.concatenate([_missing_order(inside, middle, stop),
                           _missing_order(inside, start, middle)])


def icsiboost_stump_masses(known, missing, n_below, weights, signs):
    """W+ and W- of a stump's blocks (below, above, missing), added as icsiboost adds them.

    icsiboost (``threshold_classifier``) sums every known example into the upper block in
    sorted order, then moves the sorted examples below the threshold one at a time: the
    lower block's sum adds each, the upper block's subtracts each. Running sums in NumPy
    (``cumsum``) add in that order too; adding 0.0 for an example of the other sign leaves
    a sum's bits as skipping it would.

    Parameters
    ----------
    known : ndarray of shape (n_known,), intp
        The examples with a value, in icsiboost's order (``glibc_order``).
    missing : ndarray of shape (n_missing,), intp
    n_below : int
        How many of ``known`` lie below the threshold (the first ones).
    weights : ndarray of shape (n_samples, k), float64
    signs : ndarray of shape (n_samples, k), int8

    Returns
    -------
    weight_pos, weight_neg : ndarray of shape (3, k)
    """
    masses = []
    for sign in (1, -1):
        upper = _running_sum(known, weights, signs, sign)
        masses.append(np.stack([_running_sum(known[:n_below], weights, signs, sign),
                                _running_sum(known[:n_below], weights, signs, sign, upper),
                                _running_sum(missing, weights, signs, sign)]))
    return masses[0], masses[1]


def _running_sum(rows, weights, signs, sign, start=None):
    """Per label, the weights of ``rows`` whose label sign is ``sign``, one at a time in
    the order of ``rows``: added from 0, or (``start`` given, shape (k,)) subtracted from
    ``start``; shape (k,)."""
    taken = np.where(signs[rows] == sign, weights[rows], 0.0)
    if start is not None:
        taken = np.vstack([start, -taken])
    return np.cumsum(taken, axis=0)[-1] if taken.shape[0] else np.zeros(weights.shape[1])
