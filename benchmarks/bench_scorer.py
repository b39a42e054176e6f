"""Early stopping scored by a scikit-learn scorer: the incremental records against the old
path, which scored a copy of the estimator cut at each round (O(rounds²) hypothesis
predictions). Both measured in one process, alternated, median of the runs.

Run: ``.venv/bin/python benchmarks/bench_scorer.py [--rounds 200] [--repeats 3]``.
"""

import argparse
import copy
import os
import statistics
import time

import numpy as np
from sklearn.metrics import check_scoring

from confboost import BoostClassifier
from confboost.engine.model import BoostedModel


def data(n, n_val, seed=0):
    """Three noisy classes on 20 features: the fit's rows and a held-out set."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + n_val, 20))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n + n_val), [-0.7, 0.7])
    return X[:n], y[:n], X[n:], y[n:]


def old_path(params, scoring, X, y, X_val, y_val):
    """The fit as it was: the loop, then every round a copy of the estimator with the
    model cut at that round, scored on the held-out rows from its first round."""
    clf = BoostClassifier(**params).fit(X, y)
    scorer = check_scoring(clf, scoring=scoring)
    model = clf.model_
    for rounds in range(1, len(model) + 1):
        view = copy.copy(clf)
        view.model_ = BoostedModel(model.hypotheses[:rounds], model.alphas[:rounds],
                                   model.n_labels)
        scorer(view, X_val, y_val)


def new_path(params, scoring, X, y, X_val, y_val):
    """The fit with the scorer's record, which updates f by each round's hypothesis."""
    BoostClassifier(scoring=scoring, **params).fit(X, y, eval_set=[(X_val, y_val)])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scoring", default="neg_log_loss")
    args = parser.parse_args()
    X, y, X_val, y_val = data(5000, 2000)
    for learner in ("stump", "tree"):
        params = {"n_estimators": args.rounds, "weak_learner": learner, "max_leaves": 8,
                  "early_stopping": False, "calibration": None, "n_jobs": 1}
        times = {"old": [], "new": []}
        for path in (old_path, new_path):  # compile the kernels first
            path({**params, "n_estimators": 3}, args.scoring, X[:300], y[:300],
                 X_val[:50], y_val[:50])
        for _ in range(args.repeats):
            for name, path in (("old", old_path), ("new", new_path)):
                start = time.perf_counter()
                path(params, args.scoring, X, y, X_val, y_val)
                times[name].append(time.perf_counter() - start)
        old, new = (statistics.median(times[name]) for name in ("old", "new"))
        print(f"{learner}, {args.rounds} rounds, {args.scoring}, 5000 + 2000 held out: "
              f"old {old:.2f} s, new {new:.2f} s, new/old {new / old:.2f} "
              f"(load {os.getloadavg()[0]:.1f})", flush=True)


if __name__ == "__main__":
    main()
