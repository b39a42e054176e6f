"""Test error of binary confboost (real, discrete, abstain) next to scikit-learn's AdaBoost.

Data: three real binary or binarised sets on fixed splits: Wisconsin breast cancer (mlbench,
with missing values; seeded 5-fold CV fold 0), scikit-learn's WDBC (seeded 70/30 split),
and letter binarised as A-M vs N-Z (official 16,000 / 4,000 split). scikit-learn runs
AdaBoostClassifier(algorithm SAMME, depth-1 trees) on the same splits; it does not take NaN
in this set, so it gets the missing values filled with the training median.

    python benchmarks/accuracy_binary.py [--rounds 10 100 1000]
"""

import argparse
import time

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import AdaBoostClassifier
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from confboost import BoostClassifier
from confboost.datasets import load


def binary_sets():
    """(name, X_train, y_train, X_test, y_test) of the three binary problems."""
    split = load("breast-cancer-wisconsin")
    yield "breast-cancer-wisconsin", split.X_train, split.y_train, split.X_test, split.y_test
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0,
                                                        stratify=y)
    yield "wdbc (sklearn)", X_train, y_train, X_test, y_test
    split = load("letter")
    first_half = np.array([chr(c) for c in range(ord("A"), ord("N"))])
    yield ("letter A-M vs N-Z", split.X_train, np.isin(split.y_train, first_half),
           split.X_test, np.isin(split.y_test, first_half))


def staged_errors(staged, y_test, rounds):
    errors = {}
    for round_index, predicted in enumerate(staged):
        if round_index + 1 in rounds:
            errors[round_index + 1] = float(np.mean(predicted != y_test))
    last = max(errors) if errors else 0
    return [errors.get(r, errors.get(last, np.nan)) for r in rounds]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, nargs="+", default=[10, 100, 1000])
    arguments = parser.parse_args()
    rounds = arguments.rounds
    header = " | ".join(f"T={r}" for r in rounds)
    print(f"| data set | method | {header} | fit seconds |")
    print("|---|---|" + "---|" * len(rounds) + "---|")
    for name, X_train, y_train, X_test, y_test in binary_sets():
        for confidence in ("real", "discrete", "abstain"):
            started = time.perf_counter()
            clf = BoostClassifier(max(rounds), confidence=confidence,
                                  weak_learner="stump").fit(X_train, y_train)
            seconds = time.perf_counter() - started
            errors = staged_errors(clf.staged_predict(X_test), y_test, rounds)
            cells = " | ".join(f"{e:.4f}" for e in errors)
            print(f"| {name} | confboost {confidence} | {cells} | {seconds:.1f} |", flush=True)
        medians = np.nanmedian(X_train, axis=0)
        fill_train = np.where(np.isnan(X_train), medians, X_train)
        fill_test = np.where(np.isnan(X_test), medians, X_test)
        started = time.perf_counter()
        ada = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=max(rounds),
                                 random_state=0).fit(fill_train, y_train)
        seconds = time.perf_counter() - started
        errors = staged_errors(ada.staged_predict(fill_test), y_test, rounds)
        cells = " | ".join(f"{e:.4f}" for e in errors)
        print(f"| {name} | sklearn AdaBoost SAMME stumps | {cells} | {seconds:.1f} |",
              flush=True)


if __name__ == "__main__":
    main()
