"""Seconds per boosting round and test accuracy: confboost vs LightGBM, XGBoost, scikit-learn.

Each library (and each LightGBM configuration) runs in its own fresh process, on the same
split. Run alone: ``python benchmarks/bench_rounds.py [task ...]``.
"""

import sys
import tempfile

import common

#: task -> (loader, rounds for the histogram libraries, rounds for scikit-learn, its repeats)
TASKS = {
    "binary 10k x 50": (lambda: common.synthetic(10_000), 100, 100, 3),
    "binary 100k x 50": (lambda: common.synthetic(100_000), 50, 10, 3),
    "binary 1M x 50": (lambda: common.synthetic(1_000_000), 20, 2, 1),
    "10 classes 100k x 50": (lambda: common.synthetic(100_000, n_classes=10), 10, 2, 3),
    "fashion-mnist 60k x 784 (10 cl.)": (common.fashion_mnist, 3, 1, 1),
    "skin-segmentation 196k x 3": (common.skin_segmentation, 100, 20, 3),
}


def run(task):
    loader, rounds, sk_rounds, sk_repeats = TASKS[task]
    with tempfile.TemporaryDirectory() as folder:
        path = common.save_split(loader(), folder, "split")
        return _rows(task, path, rounds, sk_rounds, sk_repeats)


def _rows(task, path, rounds, sk_rounds, sk_repeats):
    def fresh(library, rounds, params=None):
        return tuple(common.fresh("common", "run_library", library, path, rounds, params))

    row = {"task": task, "rounds": rounds, "sk_rounds": sk_rounds}
    row["confboost"] = fresh("confboost", rounds)
    default = fresh("lightgbm", rounds, {"lambda_l2": 0.0})
    l2 = fresh("lightgbm", rounds, {"lambda_l2": 1.0})
    # report the better LightGBM (by accuracy, then speed) and say which
    best = max((default, "l2=0"), (l2, "l2=1"), key=lambda r: (r[0][1], -r[0][0]))
    row["lightgbm"], row["lightgbm_cfg"] = best
    row["lightgbm_other"] = l2 if best[1] == "l2=0" else default
    row["xgboost"] = fresh("xgboost", rounds)
    row["sklearn"] = fresh("sklearn", sk_rounds, {"repeats": sk_repeats})
    return row


if __name__ == "__main__":
    for name in sys.argv[1:] or TASKS:
        print(run(name), flush=True)
