"""Each round's score on a set of examples: the records early stopping reads.

Owns the held-out sets of a fit (``EvalSet``), what a score is (``measure``: minus the
scheme's bounded loss, minus its exponential loss, or a scikit-learn scorer) and
``ScoreRecord``, the training callback that follows f on one set round by round. A record
updates f from the last round's hypothesis alone (f_t = f_{t-1} + α_t h_t on the set's rows),
so a round costs one prediction of one hypothesis, whatever the scorer: a scikit-learn
scorer is handed an estimator view whose f is the record's (``Fit.scoring_view``), not a
model to run again from the first round. A record that finds the run ahead of it (a
checkpoint restored it, or a warm start continues it) replays the rounds it missed, so the
scores, the stopping round and the best round are those of an uninterrupted run.

The stopping rule is scikit-learn's HistGradientBoosting's: stop when none of the last
``n_iter_no_change`` scores beats the one before them by more than ``tol``.
``held_out_scores`` is f on held-out rows (an eval set, calibration's folds), and
``scores_with_initial`` a record's scores in HistGradientBoosting's layout.
"""

from dataclasses import dataclass

import numpy as np

from confboost.data.frame import as_frame
from confboost.engine.boosting import best_round
from confboost.engine.callbacks import TrainingCallback
from confboost.utils.threads import serial_below


@dataclass
class EvalSet:
    """Examples a fit scores every round, and does not train on.

    Attributes
    ----------
    name : str
        Its key in ``evals_result_`` ("training", "validation" for the held-out split, or
        the ``eval_names`` of the ``eval_set`` pairs).
    X : ndarray or Frame
        The rows as the model reads them (the input adapter's ``prepare``).
    raw : object
        The rows as given (what a scikit-learn scorer reads).
    y : ndarray
        The labels as given (a scorer's ``y_true``).
    signs : ndarray of shape (n, k), int8
    encoded : ndarray of shape (n,) or None
    weight : ndarray of shape (n,)
    """

    name: str
    X: object
    raw: object
    y: object
    signs: np.ndarray
    encoded: object
    weight: np.ndarray


class LossMeasure:
    """Minus the scheme's bounded loss (error, Hamming or ranking loss) of f on a set.

    Parameters
    ----------
    judge : scheme
        A scheme built on the set's labels and weights (``loss_of``).
    weight : ndarray of shape (n,)
        The set's example weights (the exponential loss's D_1).
    exponential : bool, default=False
        Minus the loss the scheme minimises instead (Σ D_1 exp(-Y f), MR's pair sum).
    """

    def __init__(self, judge, weight, exponential=False):
        self.judge = judge
        self.weight = weight
        self.exponential = exponential
        self.metric = "exponential" if exponential else "loss"

    def __call__(self, scores, round_index):
        """The metric (a loss, lower is better) of f = ``scores`` on the set."""
        judge = self.judge
        if self.exponential:
            return float(judge.exponential_loss(judge.labels.signs, scores, self.weight))
        return float(judge.loss_of(scores))

    def score(self, value):
        """The score (higher is better) of a metric value."""
        return -value


class EstimatorMeasure:
    """A scikit-learn scorer of the model after a round, read from f on the set.

    Parameters
    ----------
    scorer : callable
        ``scorer(estimator, X, y)`` (``sklearn.metrics.check_scoring``).
    view : callable
        ``view(scores, n_rounds)``: an estimator whose outputs on the set's rows are those
        of f = ``scores`` after ``n_rounds`` rounds (``Fit.scoring_view``).
    eval_set : EvalSet
    name : str
        The metric's name in ``evals_result_``.
    """

    def __init__(self, scorer, view, eval_set, name):
        self.scorer = scorer
        self.view = view
        self.eval_set = eval_set
        self.metric = name

    def __call__(self, scores, round_index):
        view = self.view(scores, round_index + 1)
        return float(self.scorer(view, self.eval_set.raw, self.eval_set.y))

    def score(self, value):
        return value


class ScoreRecord(TrainingCallback):
    """A training callback: f on one set after each round, a score per round, and the
    early-stopping rule.

    Parameters
    ----------
    eval_set : EvalSet
    n_labels : int
        k, the columns of f.
    measure : LossMeasure or EstimatorMeasure
    n_iter_no_change : int or None, default=None
        Stop when none of the last ``n_iter_no_change`` scores beats the one before them
        by more than ``tol``; None: never stop, only record.
    tol : float, default=1e-7

    Attributes
    ----------
    scores : ndarray of shape (n, k)
        f on the set after the last round recorded.
    initial : float
        The score of f = 0, before the first round.
    values : list of float
        The score after each round (higher is better).
    metric_values : list of float
        The measure's own value after each round (a loss for "loss" and "exponential").
    """

    #: After the checkpoint (order -100), whose restore the record replays; before the
    #: user's callbacks (order 0), which then read this round's scores in
    #: ``env.evals_result``, as LightGBM's do.
    order = -50

    def __init__(self, eval_set, n_labels, measure, n_iter_no_change=None, tol=1e-7):
        self.eval_set = eval_set
        self.frame = as_frame(eval_set.X)
        self.measure = measure
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.scores = np.zeros((self.frame.n_samples, n_labels), dtype=np.float64)
        self.initial = measure.score(measure(self.scores, -1))
        self.values = []
        self.metric_values = []

    def _add(self, env, hypothesis, alpha, round_index):
        self.scores += alpha * hypothesis.block_outputs(hypothesis.blocks(self.frame))
        value = self.measure(self.scores, round_index)
        self.metric_values.append(value)
        self.values.append(self.measure.score(value))
        results = env.evals_result.setdefault(self.eval_set.name, {})
        results[self.measure.metric] = self.metric_values

    def before_training(self, env):
        """Replay the rounds the run holds that this record has not seen (a restored or
        continued run); True when the replayed scores already stop the run."""
        run = env.run
        alphas = run.alphas
        for round_index in range(len(self.values), len(run.hypotheses)):
            self._add(env, run.hypotheses[round_index], alphas[round_index], round_index)
        return bool(self.values) and self.should_stop()

    def after_iteration(self, env):
        self._add(env, env.record["fit"].hypothesis, env.record["alpha"], env.round_index)
        return self.should_stop()

    def should_stop(self):
        """True when the last ``n_iter_no_change`` scores all fall short of the score
        before them plus ``tol`` (HistGradientBoosting's ``_should_stop``)."""
        n = self.n_iter_no_change
        if n is None or len(self.values) <= n:
            return False
        reference = self.values[-n - 1] + self.tol
        return not any(value > reference for value in self.values[-n:])

    def best_round(self):
        """The number of rounds to keep: 1 + the first round of the best score."""
        return best_round(self.values)


def held_out_scores(model, X):
    """f of ``model`` on held-out rows ``X`` (an array or a Frame), on one thread when the
    work is small (``threads.serial_below``: calibration scores a few hundred rows, where
    waking the kernel's threads would cost more than the rows)."""
    n_rows = X.shape[0] if hasattr(X, "shape") else X.n_samples
    with serial_below(n_rows * model.n_labels * max(len(model), 1)):
        return model.decision_function(X)


def scores_with_initial(record):
    """HistGradientBoosting's layout: the score of f = 0, then one per round; empty
    without a record."""
    if record is None:
        return np.empty(0, dtype=np.float64)
    return np.asarray([record.initial, *record.values], dtype=np.float64)
