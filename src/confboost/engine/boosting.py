"""The boosting loop: rounds, history, progress (paper Figure 1; Figures 2, 3 and 5 alike).

Each round: the scheme hands its weights to the weak learner, which returns a partition
hypothesis; the scheme chooses α (§3) and applies α h_t, returning Z_t; the history records
α_t, Z_t, Π Z_t, the theorem's bound and the scheme's training loss. The loop knows neither
the scheme's nor the learner's internals, nor what its callbacks do: it calls them through
the protocol of ``callbacks.py`` (before training, after each round, after training).

The loop stops early when a round's hypothesis has no edge (Z_t = 1 to within 1e-12): the
weights then do not change, so every later round would pick the same hypothesis again.

A ``BoostingRun`` keeps the state of one run (the scheme's weights, Π Z_t, the rounds so
far), so a later call continues it exactly where it stopped: ``warm_start`` is one run
called twice, bit-identical to one long run, and a checkpoint (a callback) puts a saved
state back with ``restore`` before the first round. ``best_round`` picks the round to keep
from per-round scores.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

import numpy as np

from confboost.engine.callbacks import CallbackEnv, CallbackList, TrainingCallback
from confboost.engine.model import BoostedModel
from confboost.utils.lazy_numba import kernels_compiled

if TYPE_CHECKING:  # annotations only
    from confboost.engine.protocols import Scheme, WeakLearner

HISTORY_KEYS = ("alpha", "z", "bound", "train_loss", "criterion", "alpha_capped")


#: Seconds past which a round is asked whether it compiled kernels (``kernels_compiled``):
#: a compilation takes a third of a second or more, and the question costs a pass over
#: the kernels' dispatchers, which no fast round pays.
COMPILE_CHECK_SECONDS = 0.1


class ProgressPrinter(TrainingCallback):
    """Per-round table and a progress bar on stderr (``verbose`` of the estimators).

    One printer follows every run of a fit: it counts the rounds it is called for, whichever
    run they belong to, against ``n_rounds``, the rounds of all of them, so the bar reaches
    its end when the fit's work does. The main run takes the printer itself; each further
    run takes ``labelled(name)``, whose lines carry the run's name. The bar is drawn when
    the first run starts (0 rounds), so a first round that takes long shows the fit began.

    A round in which numba compiled kernels (``utils/lazy_numba.kernels_compiled`` grew: the
    first fit after an install, 7-19 s of CPU for a tree fit) is said on a line of its own,
    once, with its seconds, and the estimate of the time left counts only the other rounds:
    from all of them, one compiling round of 15 s in a fit of 100 rounds of 5 ms would
    promise some 1,500 s after it and 15 s at halfway.

    Parameters
    ----------
    n_rounds : int
        Rounds of all the runs the printer follows.
    verbose : int
        0: nothing; 1: a progress bar; 2 or more: one line per round as well.
    stream : file, default sys.stderr
    """

    order = -10  # before the callbacks that may stop the loop: the last round is printed

    def __init__(self, n_rounds, verbose, stream=None, name=None, shared=None):
        self.n_rounds = max(int(n_rounds), 1)
        self.verbose = verbose
        self.stream = stream if stream is not None else sys.stderr
        self.name = name
        # the count, the clock, the compiling rounds and the bar's state, shared with the
        # labelled printers
        if shared is None:
            now = time.perf_counter()
            shared = {"start": now, "round_end": now, "last_draw": 0.0, "done": 0,
                      "open_line": False, "compiled": kernels_compiled() if verbose else 0,
                      "compile_rounds": 0, "compile_seconds": 0.0}
        self.state = shared

    def labelled(self, name):
        """The printer of a further run: the same count and bar, lines headed by ``name``."""
        return ProgressPrinter(self.n_rounds, self.verbose, self.stream, name, self.state)

    def before_training(self, env):
        state = self.state
        if self.verbose == 1 and state["done"] == 0 and not state["open_line"]:
            self._draw(time.perf_counter())
        return False

    def after_iteration(self, env):
        if not self.verbose:
            return False
        state = self.state
        state["done"] += 1
        round_index, record, now = env.round_index, env.record, time.perf_counter()
        seconds, state["round_end"] = now - state["round_end"], now
        if seconds > COMPILE_CHECK_SECONDS:
            self._count_compiles(round_index, seconds)
        if self.verbose >= 2:
            where = (f"rnd {round_index + 1:5d}" if self.name is None
                     else f"{self.name} round {round_index + 1:5d}")
            print(f"{where}: Z={record['z']:.6f} bound={record['bound']:.6f} "
                  f"train_loss={record['train_loss']:.6f} alpha={record['alpha']:.4f}",
                  file=self.stream)
        elif now - state["last_draw"] > 0.2 or state["done"] >= self.n_rounds:
            state["last_draw"] = now
            self._draw(now)
        return False

    def close(self):
        """End the bar (runs may stop before their last round: no edge left, early
        stopping)."""
        if self.verbose == 1 and self.state["open_line"]:
            self._draw(time.perf_counter(), final=True)

    def _count_compiles(self, round_index, seconds):
        """Take a round of ``seconds`` that compiled kernels out of the estimate, and say
        the first such round."""
        state = self.state
        compiled = kernels_compiled()
        if compiled <= state["compiled"]:
            return
        state["compiled"] = compiled
        state["compile_rounds"] += 1
        state["compile_seconds"] += seconds
        if state["compile_rounds"] > 1:  # said at the first
            return
        if state["open_line"]:
            print(file=self.stream)
            state["open_line"] = False
        where = "" if self.name is None else f" of {self.name}"
        print(f"round {round_index + 1}{where} compiled numba's kernels ({seconds:.1f} s); "
              f"later fits load them from numba's cache (`confboost compile` compiles them "
              f"ahead)", file=self.stream)

    def _draw(self, now, final=False):
        state = self.state
        done = min(state["done"], self.n_rounds)
        width = 30
        filled = int(width * done / self.n_rounds)
        elapsed = now - state["start"]
        # the rate of the rounds that compiled nothing
        steady = done - state["compile_rounds"]
        left = ""
        if final or done >= self.n_rounds:
            left = ", ~0.0s left"
        elif done and steady > 0:
            rate = max(elapsed - state["compile_seconds"], 0.0) / steady
            left = f", ~{rate * (self.n_rounds - done):.1f}s left"
        print(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{self.n_rounds} rounds "
              f"{elapsed:.1f}s elapsed{left}", end="", file=self.stream)
        state["open_line"] = not (final or done >= self.n_rounds)
        if not state["open_line"]:
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
    identity : tuple, default=()
        What else defines the run besides its binned data and labels (the starting weights,
        the parameters): a checkpoint's fingerprint reads it.

    Attributes
    ----------
    hypotheses : list of PartitionHypothesis
        One per round run so far.
    exhausted : bool
        True once a round had no edge (Z_t = 1) or Z_t = 0: no later round can change f.
    evals_result : dict of str to dict of str to list of float
        Scores per evaluation set and metric, kept by the held-out records (``CallbackEnv``).
    estimator : object or None
        What callbacks see as ``env.estimator`` (set by the fit that owns the run).
    """

    def __init__(self, dataset, scheme: Scheme, learner: WeakLearner, alpha_method, mode,
                 smoothing, learning_rate=1.0, identity=()):
        self.dataset = dataset
        self.scheme = scheme
        self.learner = learner
        self.alpha_method = alpha_method
        self.mode = mode
        self.smoothing = smoothing
        self.learning_rate = learning_rate
        self.identity = identity
        self.hypotheses = []
        self.records = {key: [] for key in HISTORY_KEYS}
        self.product_z = 1.0
        self.exhausted = False
        self.evals_result = {}
        self.estimator = None

    def _env(self, round_index, begin, n_rounds, record=None):
        return CallbackEnv(self, round_index, begin, n_rounds, record, self.evals_result,
                           self.estimator)

    def run(self, n_rounds, callbacks=()):
        """Boost until ``n_rounds`` rounds in all have run, no edge is left or a callback
        stops the loop.

        Parameters
        ----------
        n_rounds : int
            Rounds in all, those of earlier calls included.
        callbacks : iterable or CallbackList
            Callbacks of the protocol (``callbacks.py``) or plain functions
            ``f(round_index, record)`` / ``f(env)``; one whose ``after_iteration`` returns
            True stops the loop after the round.

        Returns
        -------
        self
        """
        if not isinstance(callbacks, CallbackList):
            callbacks = CallbackList(callbacks)
        scheme = self.scheme
        begin = len(self.hypotheses)
        done = callbacks.before_training(self._env(begin, begin, n_rounds))
        while not done and len(self.hypotheses) < n_rounds and not self.exhausted:
            round_index = len(self.hypotheses)
            fit = self.learner.fit(self.dataset, scheme.learner_weights, scheme.labels)
            alpha, capped, z = round_step(scheme, fit, self.alpha_method, self.mode,
                                          self.smoothing, self.learning_rate)
            self.product_z *= z
            self.hypotheses.append(fit.hypothesis)
            record = {"alpha": alpha, "z": z, "bound": scheme.bound(self.product_z),
                      "train_loss": scheme.train_loss(), "criterion": fit.criterion,
                      "alpha_capped": capped}
            for key in HISTORY_KEYS:
                self.records[key].append(record[key])
            record["fit"] = fit  # for callbacks that follow the model (not kept in the history)
            self.exhausted = no_edge(z)
            done = callbacks.after_iteration(self._env(round_index, begin, n_rounds, record))
        release = getattr(self.learner, "release_work", None)
        if release is not None:  # the arrays a learner kept across rounds: not held between
            release()            # calls (the fit's other runs, a warm start's state)
        callbacks.after_training(self._env(len(self.hypotheses), begin, n_rounds))
        return self

    def restore(self, hypotheses, records, product_z):
        """Put back the rounds of a saved run that has not started (a checkpoint's work;
        the scheme's state arrays are restored by the caller).

        Parameters
        ----------
        hypotheses : list of PartitionHypothesis
        records : dict of str to list
            The history keys of ``HISTORY_KEYS``, one entry per hypothesis.
        product_z : float
        """
        if self.hypotheses:
            raise ValueError("a run restores only before its first round")
        if set(records) != set(HISTORY_KEYS):
            raise ValueError(f"history: must have the keys {HISTORY_KEYS}")
        self.hypotheses = list(hypotheses)
        self.records = {key: list(records[key]) for key in HISTORY_KEYS}
        self.product_z = float(product_z)
        z = self.records["z"][-1] if self.records["z"] else 0.5
        self.exhausted = no_edge(z)

    def model(self, n_rounds=None):
        """The model of the first ``n_rounds`` rounds (all run when None): a
        ``BoostedModel``."""
        n_rounds = len(self.hypotheses) if n_rounds is None else n_rounds
        return BoostedModel(self.hypotheses[:n_rounds], self.alphas[:n_rounds],
                            self.scheme.labels.n_labels)

    @property
    def alphas(self):
        """α_t of every round run, shape (n_rounds_done,)."""
        return np.asarray(self.records["alpha"], dtype=np.float64)

    @property
    def history(self):
        """The history keys, each an ndarray of shape (n_rounds_done,)."""
        return {key: np.asarray(values) for key, values in self.records.items()}


def no_edge(z):
    """Whether a round of normaliser ``z`` leaves no edge (module docstring): Z_t = 1 to
    within 1e-12, or 0 (the weights then do not change, or none is left); the loop ends
    there."""
    return abs(1.0 - z) <= 1e-12 or z == 0.0


def round_step(scheme, fit, alpha_method, mode, smoothing, learning_rate=1.0):
    """Figure 1's round after the weak learner: α_t chosen by ``alpha_method`` (§3) times
    the shrinkage ``learning_rate``, then the scheme's update of D by that α_t, on the rows
    the scheme holds (all of them, or a worker's shard: ``dask.round_learner``).

    Returns
    -------
    alpha : float
    capped : bool
        Whether the chosen α hit its cap.
    z : float
        Z_t, the update's normaliser.
    """
    alpha, capped = scheme.choose_alpha(fit, alpha_method, mode, smoothing)
    alpha *= learning_rate
    return alpha, capped, scheme.update(fit, alpha)


def run_boosting(dataset, scheme, learner, n_rounds, alpha_method, mode, smoothing,
                 callbacks=(), learning_rate=1.0):
    """Boost for ``n_rounds`` rounds: one ``BoostingRun`` called once.

    Returns
    -------
    hypotheses : list of PartitionHypothesis
    alphas : ndarray of shape (n_rounds_done,)
    history : dict of str to ndarray of shape (n_rounds_done,)
    """
    run = BoostingRun(dataset, scheme, learner, alpha_method, mode, smoothing, learning_rate)
    run.run(n_rounds, callbacks)
    return run.hypotheses, run.alphas, run.history


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
