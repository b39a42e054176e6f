"""The fit's own callbacks on its runs: each round's training cover, and the run's f on its
training rows after a chosen round (``fit_runs.Fit`` adds them to the runs it builds)."""

import numpy as np

from confboost.engine.callbacks import TrainingCallback
from confboost.explain.contributions import record_cover


class CoverRecord(TrainingCallback):
    """A training callback: each round's training cover, which the explanations average
    over (``explain.contributions.record_cover``).

    Parameters
    ----------
    sample_weight : ndarray of shape (n_samples,)
        The run's starting weights.
    """

    #: Before the checkpoint (order -100), which saves the covers with the round.
    order = -200

    def __init__(self, sample_weight):
        self.weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
        self.unit = bool((self.weight == 1.0).all())

    def after_iteration(self, env):
        record_cover(env.record["fit"], self.weight, self.unit)
        return False


class ScoresAt(TrainingCallback):
    """A training callback: a copy of the run's f on its training rows (``scheme.scores``)
    after round ``rounds``, the main run's logits after T' rounds that the carried
    calibration reads (``Fit.carried_calibration``) without scoring the rows again.

    Attributes
    ----------
    rounds : int or None
        The round to copy f after (set by ``Fit.run``).
    taken : int or None
        The round ``scores`` were copied after.
    scores : ndarray of shape (n_samples, k) or None
    """

    def __init__(self):
        self.rounds = self.taken = self.scores = None

    def after_iteration(self, env):
        if env.round_index + 1 == self.rounds:
            self.scores, self.taken = env.run.scheme.scores.copy(), self.rounds
        return False
