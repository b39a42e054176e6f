"""Default against default: ``BoostClassifier()``, ``LGBMClassifier()`` and
``HistGradientBoostingClassifier()`` as a user first runs them, each in a fresh process.

Sets: satimage, letter and pendigits (their official splits), the first 20,000 training
rows of fashion-mnist (tested on its 10,000 test rows) and synthetic binary 200k x 50
(``common.synthetic``: ``make_classification``, 50,000 test rows). Every library keeps
all its defaults, threads included. In each fresh process a fit on 200 rows comes first (it
loads or compiles what the library loads on first use; ``bench_startup.py`` times that;
confboost's grows the weak learner the full fit will, which ``weak_learner="auto"`` would
not choose on 200 rows), then the full fit is timed ``REPEATS`` times (median wall
seconds, and the process CPU seconds of the same fit); accuracy and log loss are on the
test rows.

Usage::

    python benchmarks/bench_defaults.py                 # the table
    python benchmarks/bench_defaults.py --sets letter   # some sets only
    python benchmarks/bench_defaults.py --before SRC    # and confboost from another source

``--before SRC`` adds a column for confboost imported from another source tree (``SRC``
holds the ``confboost`` package), each set's processes run in turn with this checkout's. The
table gives wall seconds with each library's default threads and, as the ratio to the
fastest peer, wall and process CPU seconds (CPU is the steadier on a busy machine).

BENCH_DEFAULTS_PARAMS='{"weak_learner": "label_trees", "max_leaves": 8}' (JSON) fits this
checkout's confboost with these parameters instead of its defaults (a candidate default;
"before" keeps its defaults).

BENCH_DEFAULTS_REPEATS (default 3) sets the repeats. BENCH_DEFAULTS_THREADS=N fits every
library on N threads (``n_jobs``, and ``OMP_NUM_THREADS`` for HistGradientBoosting): on a
machine other jobs keep busy, N=1 makes CPU seconds the work each library does, where waiting
threads would otherwise spin.

``--capacity SET`` asks where accuracy is lost on a set with many classes: the test accuracy
of one confboost fit (one tree per round, shared by the k classes, learning rate 1, no
calibration) after each listed round, and of one ``LGBMClassifier`` (k trees per round,
learning rate 0.1) at the leaves given, next to the leaf values per class each model has
(confboost: rounds x leaves; LightGBM: rounds x leaves, one tree per class)::

    python benchmarks/bench_defaults.py --capacity "fashion-mnist 20k"
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPEATS = int(os.environ.get("BENCH_DEFAULTS_REPEATS", "3"))
THREADS = os.environ.get("BENCH_DEFAULTS_THREADS")
PARAMS = json.loads(os.environ.get("BENCH_DEFAULTS_PARAMS", "{}"))
SETS = ("satimage", "letter", "pendigits", "fashion-mnist 20k", "binary 200k x 50")
LIBRARIES = ("confboost", "lightgbm", "sklearn")
#: Accuracy may fall short of the best peer's by this much (and log loss not at all).
ACCURACY_SLACK = 0.002


def data(name):
    """(X_train, y_train, X_test, y_test) of one set, float32 features."""
    sys.path.insert(0, str(HERE))
    import common

    if name == "binary 200k x 50":
        return common.synthetic(200_000)
    if name == "fashion-mnist 20k":
        X, y, Xt, yt = common.fashion_mnist()
        return X[:20_000], y[:20_000], Xt, yt
    from confboost.datasets import load

    split = load(name, dtype=np.float32)
    return split.X_train, split.y_train, split.X_test, split.y_test


def _threads():
    """``n_jobs`` of BENCH_DEFAULTS_THREADS, or nothing (the library's default)."""
    return {} if THREADS is None else {"n_jobs": int(THREADS)}


def _child_env(before=None):
    """A child process's environment: OpenMP's threads of BENCH_DEFAULTS_THREADS, and
    ``before`` (a source tree) first on the path."""
    env = dict(os.environ)
    if THREADS is not None:
        env["OMP_NUM_THREADS"] = THREADS
    if before is not None:
        env["PYTHONPATH"] = str(Path(before).resolve()) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def model(library):
    """The library's classifier with every default ("before": confboost's, from the source
    tree on ``PYTHONPATH``)."""
    if library in ("confboost", "before"):
        from confboost import BoostClassifier

        return BoostClassifier(**_threads(), **(PARAMS if library == "confboost" else {}))
    if library == "lightgbm":
        from lightgbm import LGBMClassifier

        return LGBMClassifier(verbose=-1, **_threads())  # quiet; verbosity changes no fit
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier()


def full_learner(estimator, X, y):
    """The weak learner ``estimator`` grows on all of (X, y) (a source tree from before
    ``training.params.default_learner`` chose by the number of examples only)."""
    n_classes = len(np.unique(y))
    try:
        from confboost.training.params import default_learner
    except ImportError:
        from confboost.engine.learners import choose_learner

        return choose_learner(estimator.weak_learner, len(y))
    return default_learner(estimator.weak_learner, len(y), X.shape[1],
                           n_classes if n_classes > 2 else 1, estimator.scheme)


def measure(library, name):
    """In this process: the median fit seconds, test accuracy and log loss."""
    from sklearn.metrics import accuracy_score, log_loss

    X, y, Xt, yt = data(name)
    first = np.linspace(0, len(y) - 1, 200).astype(np.intp)  # rows of every class
    warm = model(library)
    if library in ("confboost", "before"):  # the kernels of the full fit's learner
        warm.set_params(weak_learner=full_learner(warm, X, y))
    warm.fit(X[first], y[first])
    times, cpu = [], []
    for _ in range(REPEATS):
        clf = model(library)
        start, start_cpu = time.perf_counter(), time.process_time()
        clf.fit(X, y)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    proba = clf.predict_proba(Xt)
    return {"seconds": statistics.median(times), "cpu": statistics.median(cpu),
            "accuracy": float(accuracy_score(yt, clf.predict(Xt))),
            "log_loss": float(log_loss(yt, proba, labels=clf.classes_))}


def fresh(library, name, before=None):
    """``measure`` in a fresh Python process (``before``: the source tree of "before")."""
    env = _child_env(before if library == "before" else None)
    out = subprocess.run([sys.executable, __file__, "--one", library, name], env=env,
                         capture_output=True, text=True, check=True, cwd=HERE)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(sets=SETS, before=None):
    """{set: {library: measure(...)}}, each library and set in its own process (each
    result printed to stderr as it comes); with ``before``, "before" first on each set."""
    results = {}
    for name in sets:
        for library in (("before",) if before else ()) + LIBRARIES:
            results.setdefault(name, {})[library] = fresh(library, name, before)
            print(f"  {name} {library}: {results[name][library]}", file=sys.stderr, flush=True)
    return results


def table(results):
    """Markdown lines: per set, each library's wall seconds / accuracy / log loss, and
    whether confboost meets the target (time <= each peer's, accuracy >= theirs - 0.002, log
    loss <= theirs); the time ratios to the fastest peer in wall and in CPU seconds."""
    before = any("before" in row for row in results.values())
    names = (("before",) if before else ()) + LIBRARIES
    lines = ["| set | " + ("confboost before | " if before else "") +
             "confboost s / acc / log loss | LightGBM | HistGradientBoosting | "
             "time / fastest peer, wall (CPU) | acc - best peer | log loss - best peer | "
             "target met |",
             "|---|" + "---|" * (len(names) + 4)]
    for name, row in results.items():
        cells = [f"{r['seconds']:.2f} / {r['accuracy']:.4f} / {r['log_loss']:.4f}"
                 for r in (row[library] for library in names)]
        ours, peers = row["confboost"], [row["lightgbm"], row["sklearn"]]
        ratio = ours["seconds"] / min(p["seconds"] for p in peers)
        cpu = ours["cpu"] / min(p["cpu"] for p in peers)
        accuracy = ours["accuracy"] - max(p["accuracy"] for p in peers)
        loss = ours["log_loss"] - min(p["log_loss"] for p in peers)
        met = ratio <= 1 and accuracy >= -ACCURACY_SLACK and loss <= 0
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {ratio:.2f} ({cpu:.2f}) | "
                     f"{accuracy:+.4f} | {loss:+.4f} | {'yes' if met else 'no'} |")
    return lines


def capacity(name, rounds=(50, 100, 200, 300), leaves=(16,), lightgbm_leaves=(16, 31),
             lightgbm_rounds=(10, 25, 50, 100)):
    """Markdown lines: test accuracy by round and by leaf values per class, confboost's
    trees (``leaves``, up to ``max(rounds)`` rounds) against LightGBM's (``lightgbm_leaves``,
    up to ``max(lightgbm_rounds)``), each model fitted once in a fresh process (CPU seconds
    of the whole fit)."""
    lines = ["| model | rounds | leaf values per class | test accuracy | fit CPU s |",
             "|---|---|---|---|---|"]
    for library, sizes, marks in (("confboost", leaves, rounds),
                                  ("lightgbm", lightgbm_leaves, lightgbm_rounds)):
        for size in sizes:
            out = subprocess.run([sys.executable, __file__, "--staged", library, name,
                                  str(size), *map(str, marks)], env=_child_env(),
                                 capture_output=True, text=True, check=True, cwd=HERE)
            result = json.loads(out.stdout.strip().splitlines()[-1])
            for mark, accuracy in zip(marks, result["accuracy"], strict=True):
                lines.append(f"| {library} {size} leaves | {mark} | {mark * size} | "
                             f"{accuracy:.4f} | {result['cpu']:.1f} |")
            print("\n".join(lines[-len(marks):]), file=sys.stderr, flush=True)
    return lines


def staged(library, name, leaves, marks):
    """In this process: test accuracy after each round of ``marks`` of one fit of
    ``max(marks)`` rounds, and the fit's CPU seconds."""
    from sklearn.metrics import accuracy_score

    X, y, Xt, yt = data(name)
    if library == "confboost":
        from confboost import BoostClassifier

        clf = BoostClassifier(max(marks), weak_learner="tree", max_leaves=leaves,
                              learning_rate=1.0, calibration=None, **_threads())
    else:
        from lightgbm import LGBMClassifier

        clf = LGBMClassifier(n_estimators=max(marks), num_leaves=leaves, verbose=-1,
                             **_threads())
    start = time.process_time()
    clf.fit(X, y)
    cpu = time.process_time() - start
    if library == "confboost":
        predictions = list(clf.staged_predict(Xt))
        accuracy = [accuracy_score(yt, predictions[mark - 1]) for mark in marks]
    else:
        accuracy = [accuracy_score(yt, clf.predict(Xt, num_iteration=mark)) for mark in marks]
    return {"accuracy": [float(a) for a in accuracy], "cpu": cpu}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", nargs=2, metavar=("LIBRARY", "SET"),
                        help="measure one library on one set in this process (JSON)")
    parser.add_argument("--sets", nargs="*", default=list(SETS))
    parser.add_argument("--before", metavar="SRC",
                        help="source tree of the confboost to compare against")
    parser.add_argument("--capacity", metavar="SET",
                        help="accuracy by round and leaves, confboost against LightGBM")
    parser.add_argument("--staged", nargs="+", metavar="ARG", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.staged:
        library, name, leaves, *marks = args.staged
        print(json.dumps(staged(library, name, int(leaves), [int(m) for m in marks])))
        return
    if args.capacity:
        print("\n".join(capacity(args.capacity)))
        return
    if args.one:
        print(json.dumps(measure(*args.one)))
        return
    print("\n".join(table(run(args.sets, args.before))))


if __name__ == "__main__":
    main()
