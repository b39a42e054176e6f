"""The boosting loop: rounds, history, progress (paper Figure 1; Figures 2, 3 and 5 alike).

Each round: the scheme hands its weights to the weak learner, which returns a partition
hypothesis; the scheme chooses α (§3) and applies α h_t, returning Z_t; the history records
α_t, Z_t, Π Z_t, the theorem's bound and the scheme's training loss. The loop knows neither
the scheme's nor the learner's internals.

The loop stops early when a round's hypothesis has no edge (Z_t = 1 to within 1e-12): the
weights then do not change, so every later round would pick the same hypothesis again.

A ``BoostingRun`` keeps the state of one run (the scheme's weights, Π Z_t, the rounds so
far), so a later call continues it exactly where it stopped: ``warm_start`` is one run
called twice, bit-identical to one long run. ``ValidationRecord`` is the callback that
follows f on held-out data round by round, records a score per round and stops the loop
when the score has not improved for ``n_iter_no_change`` rounds (early stopping, and the
command line's ``--optimal-iterations``); ``best_round`` picks the round to keep.
"""

import sys
import time

import numpy as np

from confboost.data.frame import as_frame

HISTORY_KEYS = ("alpha", "z", "bound", "train_loss", "criterion", "alpha_capped")


class ProgressPrinter:
    """Per-round table and a progress bar on stderr (``verbose`` of the estimators).

    Parameters
    ----------
    n_rounds : int
    verbose : int
        1: a progress bar; 2 or more: one line per round as well.
    stream : file, default sys.stderr
    """

    def __init__(self, n_rounds, verbose, stream=None):
        self.n_rounds = n_rounds
        self.verbose = verbose
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.perf_counter()
        self.last_draw = 0.0

    def __call__(self, round_index, record):
        now = time.perf_counter()
        if self.verbose >= 2:
            print(f"rnd {round_index + 1:5d}: Z={record['z']:.6f} bound={record['bound']:.6f} "
                  f"train_loss={record['train_loss']:.6f} alpha={record['alpha']:.4f}",
                  file=self.stream)
        elif now - self.last_draw > 0.2 or round_index + 1 == self.n_rounds:
            self.last_draw = now
            done = round_index + 1
            width = 30
            filled = int(width * done / self.n_rounds)
            elapsed = now - self.start
            remaining = elapsed / done * (self.n_rounds - done)
            print(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{self.n_rounds} rounds "
                  f"{elapsed:.1f}s elapsed, ~{remaining:.1f}s left", end="", file=self.stream)
            if done == self.n_rounds:
                print(file=self.stream)


class BoostingRun:
    """The state of one boosting run, which later calls continue (paper Figure 1).

    Parameters
    ----------
    dataset : Dataset
    scheme : object
        ``learner_weights``, ``labels``, ``choose_alpha(fit, method, mode, smoothing)``,
        ``update(fit, alpha) -> Z``, ``train_loss()``, ``bound(product_z)``.
    learner : object
        ``fit(dataset, weights, labels) -> PartitionFit``.
    alpha_method : str
    mode : int
    smoothing : float
    learning_rate : float, default=1.0
        Shrinkage ν in (0, 1]: the round's α is ν times the chosen one, and Z_t is the
        normaliser of the update with that α, so Π Z_t still bounds the training loss
        (Theorem 1 holds for any α). 1.0 is the paper's algorithm.

    Attributes
    ----------
    hypotheses : list of PartitionHypothesis
        One per round run so far.
    exhausted : bool
        True once a round had no edge (Z_t = 1) or Z_t = 0: no later round can change f.
    """

    def __init__(self, dataset, scheme, learner, alpha_method, mode, smoothing,
                 learning_rate=1.0):
        self.dataset = dataset
        self.scheme = scheme
        self.learner = learner
        self.alpha_method = alpha_method
        self.mode = mode
        self.smoothing = smoothing
        self.learning_rate = learning_rate
        self.hypotheses = []
        self.records = {key: [] for key in HISTORY_KEYS}
        self.product_z = 1.0
        self.exhausted = False

    def run(self, n_rounds, callbacks=(), checkpoint=None):
        """Boost until ``n_rounds`` rounds in all have run, no edge is left or a callback
        stops the loop.

        Parameters
        ----------
        n_rounds : int
            Rounds in all, those of earlier calls included.
        callbacks : sequence of callables
            Each is called as ``callback(round_index, record)`` after every round; a
            callback that returns True stops the loop. ``record`` holds the history keys of
            the round and ``"fit"``, the round's ``PartitionFit`` (hypothesis, training
            blocks).
        checkpoint : Checkpoint or None
            Saves the loop's state every ``checkpoint.every`` rounds; a run that has not
            started yet starts from the state it holds, if any (``checkpoint.py``).

        Returns
        -------
        self
        """
        scheme = self.scheme
        resumed = (None if checkpoint is None or self.hypotheses
                   else checkpoint.restore(scheme, n_rounds, self.dataset))
        if resumed is not None:
            hypotheses, saved, self.product_z, _ = resumed
            if set(saved) != set(HISTORY_KEYS):
                raise ValueError(f"{checkpoint.path}: history: must have the keys "
                                 f"{HISTORY_KEYS}")
            self.hypotheses = list(hypotheses)
            self.records = {key: list(saved[key]) for key in HISTORY_KEYS}
        while len(self.hypotheses) < n_rounds and not self.exhausted:
            round_index = len(self.hypotheses)
            fit = self.learner.fit(self.dataset, scheme.learner_weights, scheme.labels)
            alpha, capped = scheme.choose_alpha(fit, self.alpha_method, self.mode,
                                                self.smoothing)
            alpha *= self.learning_rate
            z = scheme.update(fit, alpha)
            self.product_z *= z
            self.hypotheses.append(fit.hypothesis)
            record = {"alpha": alpha, "z": z, "bound": scheme.bound(self.product_z),
                      "train_loss": scheme.train_loss(), "criterion": fit.criterion,
                      "alpha_capped": capped}
            for key in HISTORY_KEYS:
                self.records[key].append(record[key])
            record["fit"] = fit  # for callbacks that follow the model (not kept in the history)
            stop = False
            for callback in callbacks:
                stop = bool(callback(round_index, record)) or stop
            if checkpoint is not None and (round_index + 1) % checkpoint.every == 0:
                checkpoint.save(round_index + 1, self.hypotheses, self.records,
                                self.product_z, scheme)
            self.exhausted = abs(1.0 - z) <= 1e-12 or z == 0.0
            if stop:
                break
        return self

    @property
    def alphas(self):
        """α_t of every round run, shape (n_rounds_done,)."""
        return np.asarray(self.records["alpha"], dtype=np.float64)

    @property
    def history(self):
        """The history keys, each an ndarray of shape (n_rounds_done,)."""
        return {key: np.asarray(values) for key, values in self.records.items()}


def run_boosting(dataset, scheme, learner, n_rounds, alpha_method, mode, smoothing,
                 callbacks=(), learning_rate=1.0, checkpoint=None):
    """Boost for ``n_rounds`` rounds: one ``BoostingRun`` called once (with an optional
    ``checkpoint``, see ``BoostingRun.run``).

    Returns
    -------
    hypotheses : list of PartitionHypothesis
    alphas : ndarray of shape (n_rounds_done,)
    history : dict of str to ndarray of shape (n_rounds_done,)
    """
    run = BoostingRun(dataset, scheme, learner, alpha_method, mode, smoothing, learning_rate)
    run.run(n_rounds, callbacks, checkpoint)
    return run.hypotheses, run.alphas, run.history


class ValidationRecord:
    """A loop callback: f on held-out data after each round, a score per round, and the
    early-stopping rule of scikit-learn's HistGradientBoosting.

    Parameters
    ----------
    X : ndarray of shape (n_val, n_features) or Frame
        The held-out examples, prepared as the model reads them (``data/frame.py``).
    n_labels : int
        k, the columns of f.
    score : callable
        ``score(scores, round_index) -> float``, higher is better; ``scores`` is f on X
        after the round, shape (n_val, k).
    n_iter_no_change : int or None, default=None
        Stop when none of the last ``n_iter_no_change`` scores beats the one before them
        by more than ``tol``; None: never stop, only record.
    tol : float, default=1e-7

    Attributes
    ----------
    scores : ndarray of shape (n_val, k)
        f on X after the last round recorded.
    values : list of float
        The score after each round.
    """

    def __init__(self, X, n_labels, score, n_iter_no_change=None, tol=1e-7):
        self.frame = as_frame(X)
        self.score = score
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.scores = np.zeros((self.frame.n_samples, n_labels), dtype=np.float64)
        self.values = []

    def __call__(self, round_index, record):
        hypothesis = record["fit"].hypothesis
        self.scores += record["alpha"] * hypothesis.values[hypothesis.blocks(self.frame)]
        self.values.append(float(self.score(self.scores, round_index)))
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


def best_round(values, greater_is_better=True):
    """1 + the index of the first best value: the number of rounds to keep.

    Parameters
    ----------
    values : sequence of float, length n_rounds >= 1
    greater_is_better : bool, default=True
    """
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        raise ValueError("no round was recorded")
    if not greater_is_better:
        values = -values
    values = np.where(np.isnan(values), -np.inf, values)
    return int(np.argmax(values)) + 1
