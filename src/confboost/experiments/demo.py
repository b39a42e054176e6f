"""The main job of ``make run``: boost on a bundled real data set and show the bound at work.

Trains ``BoostClassifier`` on a data set bundled with the package (by default the
Wisconsin breast-cancer data, with its missing values, binary), and prints per round the
weak hypothesis' Z_t, the bound Π Z_t, the training error (which Theorem 1 keeps below the
bound) and the test error, then a summary.
"""

import time

import numpy as np

from confboost.datasets import load
from confboost.estimators.classifier import BoostClassifier


def report_rounds(n_rounds):
    """Rounds to print: 1-10, then 1-2-5 steps per decade, and the last one."""
    rounds = set(range(1, min(n_rounds, 10) + 1))
    decade = 10
    while decade <= n_rounds:
        rounds.update(r for r in (decade, 2 * decade, 5 * decade) if r <= n_rounds)
        decade *= 10
    rounds.add(n_rounds)
    return sorted(rounds)


def run_demo(dataset="breast-cancer-wisconsin", n_rounds=200, confidence="real",
             data_dir=None, print_fn=print):
    """Train, print the per-round table and the summary; return the fitted classifier.

    Parameters
    ----------
    dataset : str
        A name known to ``confboost.datasets.load`` (bundled sets need no data folder).
    n_rounds : int
    confidence : str
        ``BoostClassifier``'s ``confidence``.
    data_dir : str or None
        Where to read the data set (None: the shared data folder, else the bundled copy).
    print_fn : callable
        Where lines go.
    """
    split = load(dataset, data_dir=data_dir)
    print_fn(f"data set {split.name}: {split.X_train.shape[0]} training and "
             f"{split.X_test.shape[0]} test examples, {split.X_train.shape[1]} features, "
             f"{len(np.unique(split.y_train))} classes ({split.split_description})")
    print_fn(f"confidence={confidence}, {n_rounds} rounds")
    started = time.perf_counter()
    clf = BoostClassifier(n_estimators=n_rounds, confidence=confidence, weak_learner="stump",
                          verbose=1 if n_rounds >= 500 else 0)
    clf.fit(split.X_train, split.y_train)
    seconds = time.perf_counter() - started
    history = clf.history_
    wanted = set(report_rounds(clf.n_estimators_))
    print_fn(f"{'round':>6} {'Z_t':>9} {'prod Z_t':>10} {'train err':>10} {'test err':>9}")
    for round_index, predicted in enumerate(clf.staged_predict(split.X_test)):
        if round_index + 1 in wanted:
            test_error = float(np.mean(predicted != split.y_test))
            print_fn(f"{round_index + 1:>6} {history['z'][round_index]:>9.5f} "
                     f"{history['bound'][round_index]:>10.5f} "
                     f"{history['train_loss'][round_index]:>10.4f} {test_error:>9.4f}")
    test_error = 1.0 - clf.score(split.X_test, split.y_test)
    holds = bool(np.all(history["train_loss"] <= history["bound"]))
    print_fn(f"after {clf.n_estimators_} rounds: training error "
             f"{history['train_loss'][-1]:.4f} <= bound {history['bound'][-1]:.5f} on every "
             f"round: {holds}; test error {test_error:.4f}; fit {seconds:.2f} s")
    return clf
