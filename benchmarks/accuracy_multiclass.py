"""Test error of AdaBoost.MH, MR and MO on UCI multiclass sets, next to scikit-learn's SAMME.

Data: letter, satimage and pendigits on their official train/test splits
(``confboost.datasets.load``). Methods: real and discrete AdaBoost.MH, discrete AdaBoost.MR
(AdaBoost.M2 on single-label data), AdaBoost.MO with a random code (⌈10 log2 k⌉ bits, seed
0) and both decoders; scikit-learn's AdaBoostClassifier (SAMME, depth-1 trees). Every
method is fitted once for the largest round count and read at each count from its staged
predictions.

    python benchmarks/accuracy_multiclass.py [--rounds 100 1000] [--n-jobs 1] [--sets letter]
"""

import argparse
import time

import numpy as np
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier

from confboost import BoostClassifier
from confboost.datasets import load

METHODS = {
    "MH real": {"scheme": "mh", "confidence": "real"},
    "MH discrete": {"scheme": "mh", "confidence": "discrete"},
    "MR discrete": {"scheme": "mr", "confidence": "discrete"},
    "MO random, loss decoding": {"scheme": "mo", "code": "random", "decoding": "loss"},
    "MO random, Hamming decoding": {"scheme": "mo", "code": "random", "decoding": "hamming"},
}


def staged_errors(staged, y_test, rounds):
    """Test error after each of ``rounds`` (the last stage where a fit stopped early)."""
    errors = {}
    for round_index, predicted in enumerate(staged, start=1):
        errors[round_index] = float(np.mean(predicted != y_test))
    last = max(errors)
    return [errors[min(r, last)] for r in rounds]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--sets", nargs="+", default=["letter", "satimage", "pendigits"])
    parser.add_argument("--n-jobs", type=int, default=1,
                        help="kernel threads per fit (default 1: on these small sets the "
                             "thread pool costs more than it gives on a 2-core machine)")
    arguments = parser.parse_args()
    rounds = sorted(arguments.rounds)
    print(f"| data set | method | {' | '.join(f'T={r}' for r in rounds)} | fit seconds |")
    print("|---|---|" + "---|" * len(rounds) + "---|")
    for name in arguments.sets:
        split = load(name)
        for method, params in METHODS.items():
            started = time.perf_counter()
            clf = BoostClassifier(rounds[-1], random_state=0, n_jobs=arguments.n_jobs,
                                  **{"weak_learner": "stump", **params})
            clf.fit(split.X_train, split.y_train)
            seconds = time.perf_counter() - started
            cells = " | ".join(f"{e:.4f}" for e in staged_errors(
                clf.staged_predict(split.X_test), split.y_test, rounds))
            print(f"| {name} | confboost {method} | {cells} | {seconds:.1f} |", flush=True)
        started = time.perf_counter()
        ada = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=rounds[-1],
                                 random_state=0).fit(split.X_train, split.y_train)
        seconds = time.perf_counter() - started
        cells = " | ".join(f"{e:.4f}" for e in staged_errors(
            ada.staged_predict(split.X_test), split.y_test, rounds))
        print(f"| {name} | sklearn AdaBoost SAMME stumps | {cells} | {seconds:.1f} |",
              flush=True)


if __name__ == "__main__":
    main()
