"""Are ``predict_proba``'s probabilities worth using? Log loss and accuracy on five sets.

confboost ``BoostClassifier()`` with its defaults against scikit-learn's
``HistGradientBoostingClassifier()`` with its defaults, on breast cancer and wine
(stratified 5-fold cross-validation, seed 0, the folds pooled), satimage and letter (their
official train/test splits) and yeast-ml (official split; per label: each of the 14 labels
is a binary problem, HistGradientBoosting fits one model per label, and the table gives the
mean binary log loss over the labels and the mean per-label accuracy, 1 - Hamming loss).
Any multi-label set (``--sets scene emotions``) is read the same way.

Usage::

    python benchmarks/probabilities.py                     # before, after, stumps, HGB
    python benchmarks/probabilities.py --save out.json     # also write the numbers
    python benchmarks/probabilities.py --grid              # the candidate defaults too
    python benchmarks/probabilities.py --calibration       # the calibration candidates

``benchmarks/probabilities_before.json`` holds confboost's numbers from before the
calibration (commit 656e022, ``BoostClassifier()`` of that day: 100 stumps, σ(2f)); the
table prints them as "before". "after" is today's ``BoostClassifier()`` (``weak_learner=
"auto"``: stumps up to 2,500 examples, trees of 16 leaves above, a fitted temperature);
"stumps" is ``weak_learner="stump"``, the default before "auto". The seconds are each
column's total fit and predict time over the set's folds. ``--grid`` adds the candidate
defaults ``weak_learner="auto"`` was chosen among (``GRID``).

``--calibration`` compares ways of finding the temperature (``CALIBRATION``) without an
eval_set: log loss, accuracy and the cost of each default fit over the same fit with
``calibration=None`` (process CPU seconds, the two fits alternated, summed over the set's
folds). The cross-fitted candidates set ``holdout.CALIBRATION_FOLDS`` (folds up to 2,500
examples; one 10% split above) and ``calibration.ROUNDS_SHARE`` (the share of the rounds
each calibration run trains); "held-out slice" trains the main run on 90% of the examples
and fits the temperature on the other 10% (an ``eval_set`` with ``early_stopping=False``).
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
from confboost.training import calibration, holdout  # noqa: E402

SETS = ("breast-cancer", "wine", "satimage", "letter", "yeast-ml")
BEFORE = Path(__file__).with_name("probabilities_before.json")
#: Candidate defaults (``--grid``): trees of 4, 8 and 16 leaves, learning rate 1 or less.
GRID = {
    "tree 4": {"weak_learner": "tree", "max_leaves": 4},
    "tree 8": {"weak_learner": "tree", "max_leaves": 8},
    "tree 16": {"weak_learner": "tree", "max_leaves": 16},
    "tree 8, lr 0.3": {"weak_learner": "tree", "max_leaves": 8, "learning_rate": 0.3},
    "tree 16, lr 0.3": {"weak_learner": "tree", "max_leaves": 16, "learning_rate": 0.3},
}

#: Calibration candidates (``--calibration``): (folds, share of the rounds) of the
#: cross-fitted runs, or "slice" for a held-out 10% of the main run's examples.
CALIBRATION = {
    "5 folds, all rounds (before)": (5, 1.0),
    "3 folds, 1/10 of the rounds (default)": (3, 0.1),
    "2 folds, 1/10 of the rounds": (2, 0.1),
    "3 folds, 1/15 of the rounds": (3, 1 / 15),
    "5 folds, 1/10 of the rounds": (5, 0.1),
    "held-out slice": "slice",
}


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
        if np.ndim(y_train) == 2 and make is HistGradientBoostingClassifier:
            proba = np.column_stack([make().fit(X_train, y_train[:, j]).predict_proba(X_test)[:, 1]
                                     for j in range(y_train.shape[1])])
        else:
            model = make().fit(X_train, y_train)
            proba = model.predict_proba(X_test)
            if np.ndim(y_train) == 1:
                proba = proba[:, np.searchsorted(model.classes_, np.unique(y_train))]
                y_test = np.searchsorted(np.unique(y_train), y_test)
        truths.append(y_test)
        probas.append(proba)
    y, p = np.concatenate(truths), np.concatenate(probas)
    if y.ndim == 2:
        losses = [log_loss(y[:, j], p[:, j], labels=[0, 1]) for j in range(y.shape[1])]
        return float(np.mean(losses)), float(np.mean(y == (p > 0.5)))
    return (float(log_loss(y, p, labels=np.arange(p.shape[1]))),
            float(accuracy_score(y, p.argmax(axis=1))))


def calibrated_fit(candidate, X, y):
    """A default ``BoostClassifier`` fitted on (X, y) with the ``CALIBRATION`` candidate."""
    if candidate == "slice":
        encoded = None if np.ndim(y) == 2 else np.unique(y, return_inverse=True)[1]
        train, held = holdout.validation_split(len(y), encoded, 0.1, 0)
        return BoostClassifier(early_stopping=False).fit(X[train], y[train],
                                                         eval_set=[(X[held], y[held])])
    folds, share = candidate
    saved = holdout.CALIBRATION_FOLDS, calibration.ROUNDS_SHARE
    holdout.CALIBRATION_FOLDS, calibration.ROUNDS_SHARE = folds, share
    try:
        return BoostClassifier().fit(X, y)
    finally:
        holdout.CALIBRATION_FOLDS, calibration.ROUNDS_SHARE = saved


def pooled_scores(truths, probas):
    """Log loss and accuracy of pooled folds (per label mean for multi-label data)."""
    y, p = np.concatenate(truths), np.concatenate(probas)
    if y.ndim == 2:
        losses = [log_loss(y[:, j], p[:, j], labels=[0, 1]) for j in range(y.shape[1])]
        return float(np.mean(losses)), float(np.mean(y == (p > 0.5)))
    return (float(log_loss(y, p, labels=np.arange(p.shape[1]))),
            float(accuracy_score(y, p.argmax(axis=1))))


def compare_calibration(sets, repeats=3):
    """The ``CALIBRATION`` table: per candidate and set, log loss, accuracy and the CPU
    cost of the default fit over ``calibration=None`` (medians of ``repeats`` alternated
    pairs, summed over the folds)."""
    lines = ["| set | candidate | log loss | accuracy | cost / calibration=None |",
             "|---|---|---|---|---|"]
    for name in sets:
        for label, candidate in CALIBRATION.items():
            truths, probas, costs, bases = [], [], [], []
            for X_train, y_train, X_test, y_test in splits(name):
                pairs = []
                for _ in range(repeats):
                    start = time.process_time()
                    model = calibrated_fit(candidate, X_train, y_train)
                    middle = time.process_time()
                    BoostClassifier(calibration=None).fit(X_train, y_train)
                    pairs.append((middle - start, time.process_time() - middle))
                costs.append(np.median([a for a, _ in pairs]))
                bases.append(np.median([b for _, b in pairs]))
                proba = model.predict_proba(X_test)
                if np.ndim(y_test) == 1:
                    y_test = np.searchsorted(model.classes_, y_test)
                truths.append(y_test)
                probas.append(proba)
            loss, acc = pooled_scores(truths, probas)
            line = (f"| {name} | {label} | {loss:.4f} | {acc:.4f} | "
                    f"{sum(costs) / sum(bases):.2f} ({sum(bases):.2f} s) |")
            lines.append(line)
            print(line, flush=True)
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", help="write the numbers to this JSON file")
    parser.add_argument("--sets", nargs="*", default=list(SETS))
    parser.add_argument("--only-default", action="store_true",
                        help="only BoostClassifier() (to record the 'before' column)")
    parser.add_argument("--grid", action="store_true", help="the candidate defaults too")
    parser.add_argument("--calibration", action="store_true",
                        help="only the table of calibration candidates")
    args = parser.parse_args()
    if args.calibration:
        X, y = load_wine(return_X_y=True)
        BoostClassifier(2).fit(X, y)  # compile the kernels before any timing
        compare_calibration(args.sets)
        return
    makers = {"after": BoostClassifier}
    if not args.only_default:
        makers["stumps"] = lambda: BoostClassifier(weak_learner="stump")
        makers["hgb"] = HistGradientBoostingClassifier
    if args.grid:
        makers.update({name: (lambda params=params: BoostClassifier(**params))
                       for name, params in GRID.items()})
    before = json.loads(BEFORE.read_text()) if BEFORE.exists() else {}
    X, y = load_wine(return_X_y=True)
    for learner in ("stump", "tree"):  # compile the kernels before any timing
        BoostClassifier(2, weak_learner=learner).fit(X, y)
        BoostClassifier(2, weak_learner=learner).fit(X, np.eye(3)[y])
    results = {}
    for name in args.sets:
        results[name] = {}
        for column, make in makers.items():
            start = time.perf_counter()
            loss, acc = evaluate(name, make)
            results[name][column] = (loss, acc, time.perf_counter() - start)
            print(f"  {name} {column}: {results[name][column]}", file=sys.stderr)
    columns = ["before", *makers]
    print("| set | " + " | ".join(f"{c} log loss / acc / s" for c in columns)
          + " | after / hgb log loss |")
    print("|---" * (len(columns) + 2) + "|")
    for name, row in results.items():
        row = {"before": before.get(name), **row}
        cells = []
        for column in columns:
            loss, acc, *seconds = row[column] if row.get(column) else (np.nan, np.nan)
            cells.append(f"{loss:.4f} / {acc:.4f}" + (f" / {seconds[0]:.1f}" if seconds else ""))
        ratio = row["after"][0] / row["hgb"][0] if "hgb" in row else np.nan
        print(f"| {name} | " + " | ".join(cells) + f" | {ratio:.2f} |")
    if args.save:
        Path(args.save).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
