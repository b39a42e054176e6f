"""Multi-label metrics of AdaBoost.MH and MR on Mulan sets, next to scikit-learn's one-vs-rest.

Data: yeast-ml, scene and emotions on the standard Mulan train/test splits
(``confboost.datasets.load``). Methods: real and discrete AdaBoost.MH, discrete and real
AdaBoost.MR; scikit-learn's OneVsRestClassifier(AdaBoostClassifier(depth-1 trees)). Each
is fitted once for the largest round count and read at each count from staged outputs.
Metrics (``confboost.evaluation.metrics``): Hamming loss of ``predict``; one-error, ranking loss,
coverage and average precision of the scores (``decision_function``).

    python benchmarks/accuracy_multilabel.py [--rounds 100 1000] [--n-jobs 1] [--sets scene]
"""

import argparse
import time

import numpy as np
from sklearn.ensemble import AdaBoostClassifier
from sklearn.multiclass import OneVsRestClassifier
from sklearn.tree import DecisionTreeClassifier

from confboost import BoostClassifier
from confboost.datasets import load
from confboost.evaluation.metrics import (
    average_precision,
    coverage,
    hamming_loss,
    one_error,
    ranking_loss,
)

METHODS = {
    "MH real": {"scheme": "mh", "confidence": "real"},
    "MH discrete": {"scheme": "mh", "confidence": "discrete"},
    "MR discrete": {"scheme": "mr", "confidence": "discrete"},
    "MR real": {"scheme": "mr", "confidence": "real"},
}
METRICS = ("hamming", "one-error", "ranking", "coverage", "avg-prec")


def measures(Y, predicted, scores):
    """The five metrics, in the order of ``METRICS``."""
    return (hamming_loss(Y, predicted), one_error(Y, scores), ranking_loss(Y, scores),
            coverage(Y, scores), average_precision(Y, scores))


def sklearn_scores(ovr, X, rounds):
    """Scores of a fitted one-vs-rest AdaBoost after each of ``rounds``, shape (n, k) each.

    A label's booster that stopped early keeps its last stage; a label constant in
    training (scikit-learn's constant predictor) scores ±½ throughout.
    """
    columns = {r: [] for r in rounds}
    for estimator in ovr.estimators_:
        if not hasattr(estimator, "staged_decision_function"):
            constant = estimator.decision_function(X) - 0.5
            for r in rounds:
                columns[r].append(constant)
            continue
        kept = {}
        for round_index, scores in enumerate(estimator.staged_decision_function(X), start=1):
            if round_index in rounds:
                kept[round_index] = scores
            last = scores
        for r in rounds:
            columns[r].append(kept.get(r, last))
    return {r: np.column_stack(columns[r]) for r in rounds}


def table_rows(name, method, outputs, Y):
    """One table row per round count from ``{rounds: (predicted, scores)}``."""
    for r, (predicted, scores) in sorted(outputs.items()):
        cells = " | ".join(f"{v:.4f}" for v in measures(Y, predicted, scores))
        yield f"| {name} | {r} | {method} | {cells} |"


def confboost_outputs(clf, X, rounds):
    """``{rounds: (predicted, scores)}`` of a fitted BoostClassifier (last stage if early)."""
    outputs = {}
    stages = zip(clf.staged_predict(X), clf.staged_decision_function(X), strict=True)
    for round_index, stage in enumerate(stages, start=1):
        if round_index in rounds:
            outputs[round_index] = stage
        last = stage
    return {r: outputs.get(r, last) for r in rounds}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--sets", nargs="+", default=["yeast-ml", "scene", "emotions"])
    parser.add_argument("--n-jobs", type=int, default=1,
                        help="kernel threads per fit (default 1: on these small sets the "
                             "thread pool costs more than it gives on a 2-core machine)")
    arguments = parser.parse_args()
    rounds = sorted(arguments.rounds)
    print(f"| data set | T | method | {' | '.join(METRICS)} |")
    print("|---|---|---|" + "---|" * len(METRICS))
    for name in arguments.sets:
        split = load(name)
        for method, params in METHODS.items():
            started = time.perf_counter()
            clf = BoostClassifier(rounds[-1], n_jobs=arguments.n_jobs, weak_learner="stump",
                                  **params)
            clf.fit(split.X_train, split.y_train)
            seconds = time.perf_counter() - started
            for line in table_rows(name, f"confboost {method} ({seconds:.0f} s)",
                                   confboost_outputs(clf, split.X_test, rounds), split.y_test):
                print(line, flush=True)
        started = time.perf_counter()
        ovr = OneVsRestClassifier(AdaBoostClassifier(DecisionTreeClassifier(max_depth=1),
                                                     n_estimators=rounds[-1], random_state=0))
        ovr.fit(split.X_train, split.y_train)
        seconds = time.perf_counter() - started
        outputs = {r: ((scores > 0).astype(int), scores)
                   for r, scores in sklearn_scores(ovr, split.X_test, rounds).items()}
        for line in table_rows(name, f"sklearn OvR AdaBoost stumps ({seconds:.0f} s)",
                               outputs, split.y_test):
            print(line, flush=True)


if __name__ == "__main__":
    main()
