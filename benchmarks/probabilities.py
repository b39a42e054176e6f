"""Are ``predict_proba``'s probabilities worth using? Log loss and accuracy on five sets.

confboost ``BoostClassifier()`` with its defaults against scikit-learn's
``HistGradientBoostingClassifier()`` with its defaults, on breast cancer and wine
(stratified 5-fold cross-validation, seed 0, the folds pooled), satimage and letter (their
official train/test splits) and yeast-ml (official split; per label: each of the 14 labels
is a binary problem, HistGradientBoosting fits one model per label, and the table gives the
mean binary log loss over the labels and the mean per-label accuracy, 1 - Hamming loss).

Usage::

    python benchmarks/probabilities.py                     # after, raw and HGB columns
    python benchmarks/probabilities.py --save out.json     # also write the numbers

``benchmarks/probabilities_before.json`` holds confboost's numbers from before the
calibration (commit 656e022, ``BoostClassifier()`` of that day); the table prints them as
"before". The "raw" column is today's code with ``calibration=None`` and
``early_stopping=False``: the uncalibrated σ(2f) of before, which it must reproduce.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import accuracy_score, log_loss
from sklearn.model_selection import StratifiedKFold

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from confboost import BoostClassifier  # noqa: E402
from confboost.datasets import load  # noqa: E402

SETS = ("breast-cancer", "wine", "satimage", "letter", "yeast-ml")
BEFORE = Path(__file__).with_name("probabilities_before.json")


def splits(name):
    """Yield (X_train, y_train, X_test, y_test) for one set (5 folds or one split)."""
    if name in ("breast-cancer", "wine"):
        X, y = (load_breast_cancer if name == "breast-cancer" else load_wine)(return_X_y=True)
        for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
            yield X[train], y[train], X[test], y[test]
    else:
        s = load(name)
        yield s.X_train, s.y_train, s.X_test, s.y_test


def evaluate(name, make):
    """Pooled log loss and accuracy of ``make()``'s models on set ``name``."""
    truths, probas = [], []
    for X_train, y_train, X_test, y_test in splits(name):
        if name == "yeast-ml" and make is HistGradientBoostingClassifier:
            proba = np.column_stack([make().fit(X_train, y_train[:, j]).predict_proba(X_test)[:, 1]
                                     for j in range(y_train.shape[1])])
        else:
            model = make().fit(X_train, y_train)
            proba = model.predict_proba(X_test)
            if name != "yeast-ml":
                proba = proba[:, np.searchsorted(model.classes_, np.unique(y_train))]
                y_test = np.searchsorted(np.unique(y_train), y_test)
        truths.append(y_test)
        probas.append(proba)
    y, p = np.concatenate(truths), np.concatenate(probas)
    if name == "yeast-ml":
        losses = [log_loss(y[:, j], p[:, j], labels=[0, 1]) for j in range(y.shape[1])]
        return float(np.mean(losses)), float(np.mean(y == (p > 0.5)))
    return (float(log_loss(y, p, labels=np.arange(p.shape[1]))),
            float(accuracy_score(y, p.argmax(axis=1))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", help="write the numbers to this JSON file")
    parser.add_argument("--sets", nargs="*", default=list(SETS))
    parser.add_argument("--only-default", action="store_true",
                        help="only BoostClassifier() (to record the 'before' column)")
    args = parser.parse_args()
    makers = {"after": BoostClassifier}
    if not args.only_default:
        makers["raw"] = lambda: BoostClassifier(calibration=None, early_stopping=False)
        makers["hgb"] = HistGradientBoostingClassifier
    before = json.loads(BEFORE.read_text()) if BEFORE.exists() else {}
    results = {}
    for name in args.sets:
        results[name] = {}
        for column, make in makers.items():
            start = time.perf_counter()
            results[name][column] = evaluate(name, make)
            print(f"  {name} {column}: {results[name][column]} "
                  f"({time.perf_counter() - start:.1f}s)", file=sys.stderr)
    columns = ["before", *makers]
    print("| set | " + " | ".join(f"{c} log loss | {c} acc" for c in columns)
          + " | after / hgb log loss |")
    print("|---" * (2 * len(columns) + 2) + "|")
    for name, row in results.items():
        row = {"before": before.get(name), **row}
        cells = []
        for column in columns:
            loss, acc = row[column] if row.get(column) else (np.nan, np.nan)
            cells.append(f"{loss:.4f} | {acc:.4f}")
        ratio = row["after"][0] / row["hgb"][0] if "hgb" in row else np.nan
        print(f"| {name} | " + " | ".join(cells) + f" | {ratio:.2f} |")
    if args.save:
        Path(args.save).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
