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

BENCH_DEFAULTS_REPEATS (default 3) sets the repeats.
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


def model(library):
    """The library's classifier with every default."""
    if library == "confboost":
        from confboost import BoostClassifier

        return BoostClassifier()
    if library == "lightgbm":
        from lightgbm import LGBMClassifier

        return LGBMClassifier(verbose=-1)  # quiet; verbosity changes no fit
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier()


def measure(library, name):
    """In this process: the median fit seconds, test accuracy and log loss."""
    from sklearn.metrics import accuracy_score, log_loss

    X, y, Xt, yt = data(name)
    first = np.linspace(0, len(y) - 1, 200).astype(np.intp)  # rows of every class
    warm = model(library)
    if library == "confboost":  # the kernels of the full fit's learner
        from confboost.engine.learners import choose_learner

        warm.set_params(weak_learner=choose_learner("auto", len(y)))
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


def fresh(library, name):
    """``measure`` in a fresh Python process."""
    out = subprocess.run([sys.executable, __file__, "--one", library, name],
                         capture_output=True, text=True, check=True, cwd=HERE)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(sets=SETS):
    """{set: {library: measure(...)}}, each library and set in its own process (each
    result printed to stderr as it comes)."""
    results = {}
    for name in sets:
        for library in LIBRARIES:
            results.setdefault(name, {})[library] = fresh(library, name)
            print(f"  {name} {library}: {results[name][library]}", file=sys.stderr, flush=True)
    return results


def table(results):
    """Markdown lines: per set, each library's seconds / accuracy / log loss, and whether
    confboost meets the target (time <= each peer's, accuracy >= theirs - 0.002, log loss
    <= theirs)."""
    lines = ["| set | confboost s / acc / log loss | LightGBM s / acc / log loss | "
             "HistGradientBoosting s / acc / log loss | time / fastest peer | "
             "acc - best peer | log loss - best peer | target met |",
             "|---|---|---|---|---|---|---|---|"]
    for name, row in results.items():
        cells = [f"{r['seconds']:.2f} / {r['accuracy']:.4f} / {r['log_loss']:.4f}"
                 for r in (row[library] for library in LIBRARIES)]
        ours, peers = row["confboost"], [row["lightgbm"], row["sklearn"]]
        ratio = ours["seconds"] / min(p["seconds"] for p in peers)
        accuracy = ours["accuracy"] - max(p["accuracy"] for p in peers)
        loss = ours["log_loss"] - min(p["log_loss"] for p in peers)
        met = ratio <= 1 and accuracy >= -ACCURACY_SLACK and loss <= 0
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {ratio:.2f} | {accuracy:+.4f} "
                     f"| {loss:+.4f} | {'yes' if met else 'no'} |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", nargs=2, metavar=("LIBRARY", "SET"),
                        help="measure one library on one set in this process (JSON)")
    parser.add_argument("--sets", nargs="*", default=list(SETS))
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(*args.one)))
        return
    print("\n".join(table(run(args.sets))))


if __name__ == "__main__":
    main()
