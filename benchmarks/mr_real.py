"""AdaBoost.MR with real confidences against discrete MR on the Mulan multi-label sets.

Ranking loss (MR's own loss, Theorem 6) and Hamming loss (``predict``, MR's cut on f) after
each requested round count, for discrete MR (Eq. 28) and real MR (the folded pair
confidences of §9, ``confboost.engine.schemes.mr``) at the default ε and, with ``--scales``, at
ε = s/(2mk) for each s (MR's default is s = 100, ``schemes.mr.PAIR_SMOOTHING_SCALE``).

``--validation F`` scores a random part F of each training set (seed 0) after fitting on
the rest, never touching the test set: that is how the default scale was chosen.

    python benchmarks/mr_real.py [--rounds 300 1000] [--sets yeast-ml scene emotions]
                                 [--scales 1 10 30 100 300] [--validation 0.25]
"""

import argparse
import time

import numpy as np

from confboost import BoostClassifier
from confboost.datasets import load
from confboost.evaluation.metrics import hamming_loss, ranking_loss


def parts(name, validation):
    """(X_fit, Y_fit, X_score, Y_score): the official split, or a validation part of train."""
    split = load(name)
    if not validation:
        return split.X_train, split.y_train, split.X_test, split.y_test
    order = np.random.default_rng(0).permutation(split.X_train.shape[0])
    cut = int(round((1 - validation) * len(order)))
    fit, score = order[:cut], order[cut:]
    return (split.X_train[fit], split.y_train[fit], split.X_train[score],
            split.y_train[score])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, nargs="+", default=[300, 1000])
    parser.add_argument("--sets", nargs="+", default=["yeast-ml", "scene", "emotions"])
    parser.add_argument("--scales", type=float, nargs="*", default=[],
                        help="also run real MR with ε = s/(2mk) for each s")
    parser.add_argument("--validation", type=float, default=0.0,
                        help="score a random part of the training set of this size instead "
                             "of the test set")
    arguments = parser.parse_args()
    rounds = sorted(arguments.rounds)
    print("| data set | method | T | ranking loss | Hamming loss | seconds |")
    print("|---|---|---|---|---|---|")
    for name in arguments.sets:
        X, Y, X_score, Y_score = parts(name, arguments.validation)
        runs = [("MR discrete", {"confidence": "discrete"}),
                ("MR real", {"confidence": "real"})]
        base = 1.0 / (2 * X.shape[0] * Y.shape[1])
        runs += [(f"MR real ε={s:g}/(2mk)", {"confidence": "real", "smoothing": s * base})
                 for s in arguments.scales]
        for method, params in runs:
            started = time.perf_counter()
            # calibration and early stopping off: the estimator's defaults would hold data
            # out or fit extra runs for probabilities, which neither loss uses
            clf = BoostClassifier(rounds[-1], scheme="mr", n_jobs=1, calibration=None,
                                  early_stopping=False, weak_learner="stump",
                                  **params).fit(X, Y)
            seconds = time.perf_counter() - started
            stages = zip(clf.staged_predict(X_score), clf.staged_decision_function(X_score),
                         strict=True)
            kept = {}
            for round_index, stage in enumerate(stages, start=1):
                if round_index in rounds:
                    kept[round_index] = stage
                last = stage
            for r in rounds:
                predicted, scores = kept.get(r, last)
                print(f"| {name} | {method} | {r} | {ranking_loss(Y_score, scores):.4f} | "
                      f"{hamming_loss(Y_score, predicted):.4f} | {seconds:.1f} |", flush=True)


if __name__ == "__main__":
    main()
