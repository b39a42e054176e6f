"""Are ``predict_proba``'s probabilities worth using? Log loss and accuracy on five sets.

confboost ``BoostClassifier()`` with its defaults against scikit-learn's
``HistGradientBoostingClassifier()`` with its defaults, on breast cancer and wine
(stratified 5-fold cross-validation, seed 0, the folds pooled), satimage and letter (their
official train/test splits) and yeast-ml (official split; per label: each of the 14 labels
is a binary problem, HistGradientBoosting fits one model per label, and the table gives the
mean binary log loss over the labels and the mean per-label accuracy, 1 - Hamming loss).
Any multi-label set (``--sets scene emotions``) is read the same way, and
``bench_defaults.py``'s larger sets (``--sets "binary 200k x 50"``) by its loader.

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
``calibration=None``. The cost is process CPU seconds measured in fresh processes, the
candidate and ``calibration=None`` alternated, ``--repeats`` processes of each: every
process fits each of the set's folds once (loading the kernels and warming the caches),
then times a second fit of each, summed over the folds; the cost is the ratio of the two
medians. ``--n-jobs N`` fixes the fits' threads (the default ``n_jobs`` lets the thread
tuner choose per process, and a process that settles on other threads than its pair
costs another CPU time for the same work). ``--one-process`` instead times both fits in
each of the ``--repeats`` processes, calibrated and not alternated (ABBA, after a warm-up of
each): there the thread tuner gives both the count it chose for the data, and the cost is
the ratio of the CPU sums. A candidate sets ``calibration.py``'s
constants (``FOLD_ROUNDS_SHARE``, the share of the rounds each cross-fitted run trains up
to 2,500 examples, and ``CARRY_EXPONENTS``, β of the carried slope); ``--before SRC``
adds the ``BoostClassifier()`` of another checkout's ``src`` folder, timed the same way.

``--carry`` prints, per set, the test log loss of the slope carried from the calibration
runs' ⌈T/10⌉ rounds to T = 100 with β from 0.7 to 1, and of the slope fitted on the same
runs' held-out f after T rounds ("full length"): how ``calibration.CARRY_EXPONENTS`` was
chosen.
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import accuracy_score, log_loss
from sklearn.model_selection import StratifiedKFold

ROOT = Path(__file__).resolve().parent.parent
#: The package measured: this checkout's, or the folder CONFBOOST_SRC names (``--before``).
sys.path.insert(0, os.environ.get("CONFBOOST_SRC", str(ROOT / "src")))
sys.path.insert(0, str(ROOT / "benchmarks"))

from confboost import BoostClassifier  # noqa: E402
from confboost.datasets import load  # noqa: E402
from confboost.training import calibration, holdout  # noqa: E402

SETS = ("breast-cancer", "wine", "satimage", "letter", "yeast-ml")
#: ``bench_defaults.py``'s larger sets, taken with ``--sets`` (a single train/test split).
LARGE_SETS = ("binary 200k x 50", "fashion-mnist 20k")
BEFORE = Path(__file__).with_name("probabilities_before.json")
#: Candidate defaults (``--grid``): trees of 4, 8 and 16 leaves, learning rate 1 or less.
GRID = {
    "tree 4": {"weak_learner": "tree", "max_leaves": 4},
    "tree 8": {"weak_learner": "tree", "max_leaves": 8},
    "tree 16": {"weak_learner": "tree", "max_leaves": 16},
    "tree 8, lr 0.3": {"weak_learner": "tree", "max_leaves": 8, "learning_rate": 0.3},
    "tree 16, lr 0.3": {"weak_learner": "tree", "max_leaves": 16, "learning_rate": 0.3},
}

#: Calibration candidates (``--calibration``): the constants of ``calibration.py`` each sets.
CALIBRATION = {
    "default": {},
    "3 folds, 1/10 of the rounds, β = 1": {"FOLD_ROUNDS_SHARE": 0.1, "CARRY_EXPONENTS": {}},
    "3 folds, 1/10 of the rounds, β = 0.8": {"FOLD_ROUNDS_SHARE": 0.1},
    "3 folds, 1/20 of the rounds, β = 1": {"CARRY_EXPONENTS": {}},
}
#: β compared by ``--carry``.
EXPONENTS = (0.7, 0.8, 0.9, 1.0)


def splits(name):
    """Yield (X_train, y_train, X_test, y_test) for one set (5 folds or one split)."""
    if name in ("breast-cancer", "wine"):
        X, y = (load_breast_cancer if name == "breast-cancer" else load_wine)(return_X_y=True)
        for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
            yield X[train], y[train], X[test], y[test]
    elif name in LARGE_SETS:
        from bench_defaults import data

        yield data(name)
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
    return pooled_scores(truths, probas)


def calibration_cpu(name, knobs, calibrated, n_jobs=None):
    """In this process: each fold of set ``name`` fitted twice, the second fits timed.

    Parameters
    ----------
    name : str
    knobs : dict
        Constants of ``calibration.py`` to set (a ``CALIBRATION`` candidate).
    calibrated : bool
        ``BoostClassifier()`` when True, ``BoostClassifier(calibration=None)`` when False.
    n_jobs : int or None, default=None
        The fits' ``n_jobs``.

    Returns
    -------
    dict
        ``cpu``: process CPU seconds of the timed fits, summed over the folds; ``loss``,
        ``accuracy``: their pooled test scores (``pooled_scores``).
    """
    for key, value in knobs.items():
        setattr(calibration, key, value)
    folds = list(splits(name))
    make = (lambda: BoostClassifier(n_jobs=n_jobs)) if calibrated else (
        lambda: BoostClassifier(calibration=None, n_jobs=n_jobs))
    for X_train, y_train, _, _ in folds:  # the kernels loaded, the caches warm
        make().fit(X_train, y_train)
    truths, probas, cpu = [], [], 0.0
    for X_train, y_train, X_test, y_test in folds:
        start = time.process_time()
        model = make().fit(X_train, y_train)
        cpu += time.process_time() - start
        if np.ndim(y_test) == 1:
            y_test = np.searchsorted(model.classes_, y_test)
        truths.append(y_test)
        probas.append(model.predict_proba(X_test))
    loss, accuracy = pooled_scores(truths, probas)
    return {"cpu": cpu, "loss": loss, "accuracy": accuracy}


def calibration_pair(name, knobs, n_jobs=None):
    """In this process: each fold of set ``name`` fitted calibrated and with
    ``calibration=None``, once each to warm up, then timed in the order calibrated, None,
    None, calibrated.

    Returns
    -------
    dict
        ``cpu``: process CPU seconds of the timed calibrated fits, summed over the folds and
        the two; ``base``: the same for ``calibration=None``; ``loss``, ``accuracy``: the
        calibrated models' pooled test scores (``pooled_scores``).
    """
    for key, value in knobs.items():
        setattr(calibration, key, value)
    folds = list(splits(name))
    makers = {True: lambda: BoostClassifier(n_jobs=n_jobs),
              False: lambda: BoostClassifier(calibration=None, n_jobs=n_jobs)}
    for calibrated in (True, False):  # the kernels loaded, the tuner settled, caches warm
        for X_train, y_train, _, _ in folds:
            makers[calibrated]().fit(X_train, y_train)
    cpu, truths, probas = {True: 0.0, False: 0.0}, [], []
    for calibrated in (True, False, False, True):
        for X_train, y_train, X_test, y_test in folds:
            start = time.process_time()
            model = makers[calibrated]().fit(X_train, y_train)
            cpu[calibrated] += time.process_time() - start
            if calibrated and len(truths) < len(folds):
                truths.append(np.searchsorted(model.classes_, y_test) if np.ndim(y_test) == 1
                              else y_test)
                probas.append(model.predict_proba(X_test))
    loss, accuracy = pooled_scores(truths, probas)
    return {"cpu": cpu[True], "base": cpu[False], "loss": loss, "accuracy": accuracy}


def pooled_scores(truths, probas):
    """Log loss and accuracy of pooled folds (per label mean for multi-label data)."""
    y, p = np.concatenate(truths), np.concatenate(probas)
    if y.ndim == 2:
        losses = [log_loss(y[:, j], p[:, j], labels=[0, 1]) for j in range(y.shape[1])]
        return float(np.mean(losses)), float(np.mean(y == (p > 0.5)))
    return (float(log_loss(y, p, labels=np.arange(p.shape[1]))),
            float(accuracy_score(y, p.argmax(axis=1))))


def compare_calibration(sets, repeats=7, before=None, labels=None, n_jobs=None,
                        one_process=False):
    """The ``CALIBRATION`` table: per candidate and set, log loss, accuracy and the CPU
    cost of the default fit over ``calibration=None`` (``calibration_cpu`` in fresh
    processes, ``repeats`` of each, alternated; the ratio of the medians).

    Parameters
    ----------
    sets : list of str
    repeats : int
    before : str or None
        Another checkout's ``src`` folder, measured first as "before".
    labels : list of str or None
        The ``CALIBRATION`` candidates to measure (None: all).
    n_jobs : int or None
        The fits' ``n_jobs`` (None: the default threads).
    one_process : bool
        Time both fits in each process (``calibration_pair``) rather than each in its own.
    """
    from common import fresh

    lines = ["| set | candidate | log loss | accuracy | cost / calibration=None (CPU s) |",
             "|---|---|---|---|---|"]
    candidates = ([("before", {}, {"CONFBOOST_SRC": before})] if before else []) + [
        (label, knobs, None) for label, knobs in CALIBRATION.items()
        if labels is None or label in labels]
    for name in sets:
        for label, knobs, env in candidates:
            ours, bases = [], []
            for _ in range(repeats):
                if one_process:
                    pair = fresh("probabilities", "calibration_pair", name, knobs, n_jobs,
                                 env=env)
                    ours.append(pair)
                    bases.append(pair["base"])
                    continue
                ours.append(fresh("probabilities", "calibration_cpu", name, knobs, True,
                                  n_jobs, env=env))
                bases.append(fresh("probabilities", "calibration_cpu", name, knobs, False,
                                   n_jobs, env=env)["cpu"])
            cpu = statistics.median(r["cpu"] for r in ours)
            base = statistics.median(bases)
            line = (f"| {name} | {label} | {ours[0]['loss']:.4f} | {ours[0]['accuracy']:.4f} "
                    f"| {cpu / base:.2f} ({cpu:.3f} / {base:.3f}) |")
            lines.append(line)
            print(line, flush=True)
    lines.append(f"(load average {os.getloadavg()[0]:.1f} at the end)")
    print(lines[-1], flush=True)
    return lines


def carry_table(sets, n_rounds=100):
    """``--carry``: per set, the test log loss of each β (``EXPONENTS``) and of the
    full-length runs' slope. The calibration runs are ``BoostClassifier(n_rounds,
    calibration=None)`` fits on the folds' training rows (``holdout.calibration_folds``);
    the main run's logits on the held-out rows after ⌈n_rounds/10⌉ and n_rounds rounds
    give the carry (``calibration.carry_slope``)."""
    from confboost.engine.model import BoostedModel

    short = int(np.ceil(n_rounds / 10))

    def logits(model, rounds, X, kind):
        f = BoostedModel(model.hypotheses[:rounds], model.alphas[:rounds],
                         model.n_labels).decision_function(X)
        return 2.0 * f  # MH: binary, single-label (softmax) and multi-label (threshold 0)

    print("| set | " + " | ".join(f"β = {b}" for b in EXPONENTS) + " | full length |")
    print("|---" * (len(EXPONENTS) + 2) + "|")
    for name in sets:
        columns = (*EXPONENTS, "full")
        truths, probas = {b: [] for b in columns}, {b: [] for b in columns}
        for X, y, X_test, y_test in splits(name):
            multilabel = np.ndim(y) == 2
            classes = None if multilabel else np.unique(y)
            if not multilabel:
                y, y_test = np.searchsorted(classes, y), np.searchsorted(classes, y_test)
            kind = "sigmoid" if multilabel or len(classes) == 2 else "softmax"
            main = BoostClassifier(n_rounds, calibration=None).fit(X, y).model_
            folds = holdout.calibration_folds(len(y), None if multilabel else y, 0.1, 0)
            held, short_main, long_main, full, targets = [], [], [], [], []
            for train, rows in folds:
                model = BoostClassifier(n_rounds, calibration=None).fit(X[train], y[train]).model_
                held.append(logits(model, short, X[rows], kind))
                full.append(logits(model, n_rounds, X[rows], kind))
                short_main.append(logits(main, short, X[rows], kind))
                long_main.append(logits(main, n_rounds, X[rows], kind))
                targets.append(y[rows] if kind == "softmax" else y[rows].reshape(len(rows), -1) > 0)
            target = np.concatenate(targets)
            fitted = calibration.fit_calibrator(np.concatenate(held), target, kind)
            slopes = {b: calibration.carry_slope(fitted, np.concatenate(short_main),
                                                 np.concatenate(long_main), b)
                      for b in EXPONENTS}
            slopes["full"] = calibration.fit_calibrator(np.concatenate(full), target, kind)
            test = logits(main, n_rounds, X_test, kind)
            for b, calibrator in slopes.items():
                truths[b].append(y_test)
                proba = calibrator(test)
                probas[b].append(proba[:, 0] if kind == "sigmoid" and not multilabel else proba)
        cells = []
        for b in columns:
            y_all, p_all = np.concatenate(truths[b]), np.concatenate(probas[b])
            if p_all.ndim == 1:
                p_all = np.column_stack([1 - p_all, p_all])
            cells.append(f"{pooled_scores([y_all], [p_all])[0]:.4f}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", help="write the numbers to this JSON file")
    parser.add_argument("--sets", nargs="*", default=list(SETS))
    parser.add_argument("--only-default", action="store_true",
                        help="only BoostClassifier() (to record the 'before' column)")
    parser.add_argument("--grid", action="store_true", help="the candidate defaults too")
    parser.add_argument("--calibration", action="store_true",
                        help="only the table of calibration candidates")
    parser.add_argument("--repeats", type=int, default=7,
                        help="fresh processes per candidate and set (--calibration)")
    parser.add_argument("--before", help="another checkout's src folder (--calibration)")
    parser.add_argument("--candidates", nargs="*", help="CALIBRATION labels (--calibration)")
    parser.add_argument("--one-process", action="store_true", help="time the calibrated fit "
                        "and its calibration=None pair in one process (--calibration)")
    parser.add_argument("--n-jobs", type=int, help="the fits' n_jobs (--calibration; default: "
                        "the thread tuner's choice)")
    parser.add_argument("--carry", action="store_true", help="only the table of β")
    args = parser.parse_args()
    if args.calibration:
        X, y = load_wine(return_X_y=True)
        BoostClassifier(2).fit(X, y)  # compile the kernels before any timing
        compare_calibration(args.sets, args.repeats, args.before, args.candidates, args.n_jobs,
                            args.one_process)
        return
    if args.carry:
        carry_table(args.sets)
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
