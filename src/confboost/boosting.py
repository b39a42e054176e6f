"""The boosting loop: rounds, history, progress (paper Figure 1; Figures 2, 3 and 5 alike).

Each round: the scheme hands its weights to the weak learner, which returns a partition
hypothesis; the scheme chooses α (§3) and applies α h_t, returning Z_t; the history records
α_t, Z_t, Π Z_t, the theorem's bound and the scheme's training loss. The loop knows neither
the scheme's nor the learner's internals.

The loop stops early when a round's hypothesis has no edge (Z_t = 1 to within 1e-12): the
weights then do not change, so every later round would pick the same hypothesis again.
"""

import sys
import time

import numpy as np

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


def run_boosting(dataset, scheme, learner, n_rounds, alpha_method, mode, smoothing,
                 callbacks=(), learning_rate=1.0, checkpoint=None):
    """Boost for ``n_rounds`` rounds.

    Parameters
    ----------
    dataset : Dataset
    scheme : object
        ``learner_weights``, ``labels``, ``choose_alpha(fit, method, mode, smoothing)``,
        ``update(fit, alpha) -> Z``, ``train_loss()``, ``bound(product_z)``.
    learner : object
        ``fit(dataset, weights, labels) -> PartitionFit``.
    n_rounds : int
    alpha_method : str
    mode : int
    smoothing : float
    callbacks : sequence of callables
        Each is called as ``callback(round_index, record)`` after every round; a callback
        that returns True stops the loop. ``record`` holds the history keys of the round and
        ``"fit"``, the round's ``PartitionFit`` (hypothesis, training blocks).
    learning_rate : float, default=1.0
        Shrinkage ν in (0, 1]: the round's α is ν times the chosen one, and Z_t is the
        normaliser of the update with that α, so Π Z_t still bounds the training loss
        (Theorem 1 holds for any α). 1.0 is the paper's algorithm.
    checkpoint : Checkpoint or None
        Saves the loop's state every ``checkpoint.every`` rounds; the loop starts from the
        state it holds, if any (``checkpoint.py``). Callbacks see the rounds run here only.

    Returns
    -------
    hypotheses : list of PartitionHypothesis
    alphas : ndarray of shape (n_rounds_done,)
    history : dict of str to ndarray of shape (n_rounds_done,)
    """
    hypotheses = []
    records = {key: [] for key in HISTORY_KEYS}
    product_z = 1.0
    start = 0
    resumed = None if checkpoint is None else checkpoint.restore(scheme, n_rounds)
    if resumed is not None:
        hypotheses, saved, product_z, start = resumed
        if set(saved) != set(HISTORY_KEYS):
            raise ValueError(f"{checkpoint.path}: history: must have the keys {HISTORY_KEYS}")
        records = {key: saved[key] for key in HISTORY_KEYS}
    for round_index in range(start, n_rounds):
        fit = learner.fit(dataset, scheme.learner_weights, scheme.labels)
        alpha, capped = scheme.choose_alpha(fit, alpha_method, mode, smoothing)
        alpha *= learning_rate
        z = scheme.update(fit, alpha)
        product_z *= z
        hypotheses.append(fit.hypothesis)
        record = {"alpha": alpha, "z": z, "bound": scheme.bound(product_z),
                  "train_loss": scheme.train_loss(), "criterion": fit.criterion,
                  "alpha_capped": capped}
        for key in HISTORY_KEYS:
            records[key].append(record[key])
        record["fit"] = fit  # for callbacks that follow the model (not kept in the history)
        stop = False
        for callback in callbacks:
            stop = bool(callback(round_index, record)) or stop
        if checkpoint is not None and (round_index + 1) % checkpoint.every == 0:
            checkpoint.save(round_index + 1, hypotheses, records, product_z, scheme)
        if stop or abs(1.0 - z) <= 1e-12 or z == 0.0:
            break
    alphas = np.asarray(records["alpha"], dtype=np.float64)
    history = {key: np.asarray(values) for key, values in records.items()}
    return hypotheses, alphas, history
