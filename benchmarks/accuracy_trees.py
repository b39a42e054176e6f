"""Test error of stumps, Z-trees and Hamming trees against LightGBM, with seconds per round.

Owns the trees benchmark: on the official train/test splits of letter,
pendigits, satimage and fashion-mnist (``confboost.datasets.load``), real AdaBoost.MH
(paper §7.1, Eq. 16; confidence="real", α = 1) with

- decision stumps (``weak_learner="stump"``),
- products of 3 stumps (``weak_learner="product"``, Kégl & Busa-Fekete 2009),
- Z-criterion trees (``weak_learner="tree"``) with 4, 8 and 16 leaves,
- Hamming trees (``weak_learner="hamming_tree"``, Kégl 2014) with 8 and 16 leaves,

and LightGBM's multiclass gradient boosting with the same numbers of leaves
(``lambda_l2=1``, ``--lgbm-learning-rate``, default 0.5; one LightGBM round is k trees, one
per class). Test error is read at each of ``--rounds`` from one fit of the largest; seconds
per round are wall time of the fit divided by the rounds run, on ``--n-jobs`` threads.

Usage::

    PYTHONPATH=src python benchmarks/accuracy_trees.py --rounds 100 1000 \\
        --fashion-rounds 100 --out benchmarks/accuracy_trees.md
"""

import argparse
import time

import numpy as np

from confboost import BoostClassifier
from confboost.datasets import load

DATASETS = ("letter", "pendigits", "satimage", "fashion-mnist")


def confboost_configs(leaves, hamming_leaves, product_terms):
    """(name, estimator parameters) of each confboost learner benchmarked."""
    configs = [("stump", {"weak_learner": "stump"})]
    configs += [(f"product {m}", {"weak_learner": "product", "product_terms": m})
                for m in product_terms]
    configs += [(f"tree {n}", {"weak_learner": "tree", "max_leaves": n}) for n in leaves]
    configs += [(f"hamming {n}", {"weak_learner": "hamming_tree", "max_leaves": n})
                for n in hamming_leaves]
    return configs


def row_name(label):
    """A table row's name for ``--learners``: "LightGBM 16 (lr 0.5)" -> "lightgbm16"."""
    return "".join(label.split(" (")[0].lower().split())


class TestErrorFollower:
    """Callback: adds each round's α h to the test scores and prints the test error at the
    checkpoint rounds as they are reached, so a run cut short keeps what it measured.

    Its own time is kept apart (``seconds``) so that seconds per round are the fit's alone.
    """

    def __init__(self, estimator, split, rounds, label):
        self.estimator = estimator
        self.split = split
        self.rounds = set(rounds)
        self.label = label
        self.scores = None
        self.errors = {}
        self.seconds = 0.0
        self.start = time.perf_counter()

    def __call__(self, round_index, record):
        start = time.perf_counter()
        hypothesis = record["fit"].hypothesis
        values = record["alpha"] * hypothesis.values[hypothesis.blocks(self.split.X_test)]
        self.scores = values if self.scores is None else self.scores + values
        rounds = round_index + 1
        if rounds in self.rounds:
            classes = np.unique(self.split.y_train)
            predicted = classes[np.argmax(self.scores, axis=1)]
            self.errors[rounds] = float(np.mean(predicted != self.split.y_test))
            fit_seconds = start - self.start - self.seconds
            print(f"  {self.label} @{rounds}: error {self.errors[rounds]:.4f}, "
                  f"{fit_seconds / rounds:.4f} s/round so far", flush=True)
        self.seconds += time.perf_counter() - start


def run_confboost(split, params, rounds, n_jobs, label=""):
    """Test errors at each of ``rounds`` and the seconds per round."""
    clf = BoostClassifier(max(rounds), n_jobs=n_jobs, **params)
    follower = TestErrorFollower(clf, split, rounds, label)
    start = time.perf_counter()
    clf.fit(split.X_train, split.y_train, callbacks=[follower])
    seconds = (time.perf_counter() - start - follower.seconds) / clf.n_estimators_
    errors = dict(follower.errors)
    for r in rounds:  # stopped early: the last model's error holds from then on
        errors.setdefault(r, float(np.mean(clf.predict(split.X_test) != split.y_test)))
    return errors, seconds


def run_lightgbm(split, leaves, rounds, learning_rate, n_jobs, label=""):
    """LightGBM's test errors at each of ``rounds`` and its seconds per round (printed at
    each checkpoint as reached, evaluation time kept apart, as for confboost)."""
    import lightgbm

    clf = lightgbm.LGBMClassifier(n_estimators=max(rounds), num_leaves=leaves,
                                  learning_rate=learning_rate, reg_lambda=1.0, max_bin=255,
                                  n_jobs=n_jobs, verbose=-1)
    classes = np.unique(split.y_train)
    errors = {}
    evaluation = {"seconds": 0.0, "start": time.perf_counter()}

    def follow(env):
        done = env.iteration + 1
        if done in rounds:
            start = time.perf_counter()
            scores = env.model.predict(split.X_test, num_iteration=done, num_threads=n_jobs)
            errors[done] = float(np.mean(classes[np.argmax(scores, axis=1)] != split.y_test))
            fit_seconds = start - evaluation["start"] - evaluation["seconds"]
            print(f"  {label} @{done}: error {errors[done]:.4f}, "
                  f"{fit_seconds / done:.4f} s/round so far", flush=True)
            evaluation["seconds"] += time.perf_counter() - start

    clf.fit(split.X_train, split.y_train, callbacks=[follow])
    seconds = (time.perf_counter() - evaluation["start"] - evaluation["seconds"]) / max(rounds)
    return errors, seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--rounds", nargs="+", type=int, default=[100, 1000])
    parser.add_argument("--fashion-rounds", nargs="+", type=int, default=None,
                        help="rounds for fashion-mnist (default: --rounds)")
    parser.add_argument("--leaves", nargs="+", type=int, default=[4, 8, 16])
    parser.add_argument("--hamming-leaves", nargs="+", type=int, default=[8, 16])
    parser.add_argument("--product-terms", nargs="*", type=int, default=[3])
    parser.add_argument("--lgbm-learning-rate", type=float, default=0.5)
    parser.add_argument("--learners", nargs="+", default=None,
                        help="run only these rows, named as in the table without spaces "
                             "(stump, tree16, hamming8, lightgbm4, ...); default: all")
    parser.add_argument("--n-jobs", type=int, default=1,
                        help="threads for both libraries (1 is fastest on a loaded machine)")
    parser.add_argument("--out", default=None, help="also write the table to this file")
    args = parser.parse_args(argv)

    lines = []

    def emit(line):
        print(line, flush=True)
        lines.append(line)

    for name in args.datasets:
        rounds = (args.fashion_rounds if name == "fashion-mnist" and args.fashion_rounds
                  else args.rounds)
        rounds = sorted(set(rounds))
        split = load(name)
        emit(f"\n### {name} (train {len(split.y_train)}, test {len(split.y_test)}, "
             f"{split.X_train.shape[1]} features, {len(np.unique(split.y_train))} classes)\n")
        emit("| learner | " + " | ".join(f"error @{r}" for r in rounds) + " | s/round |")
        emit("|---|" + "---|" * (len(rounds) + 1))
        runs = [(label, "confboost", params) for label, params in confboost_configs(
            args.leaves, args.hamming_leaves, args.product_terms)]
        runs += [(f"LightGBM {leaves} (lr {args.lgbm_learning_rate})", "lightgbm", leaves)
                 for leaves in args.leaves]
        for label, library, setting in runs:
            if args.learners and row_name(label) not in args.learners:
                continue
            if library == "confboost":
                errors, seconds = run_confboost(split, setting, rounds, args.n_jobs, label)
            else:
                errors, seconds = run_lightgbm(split, setting, rounds, args.lgbm_learning_rate,
                                               args.n_jobs, label)
            emit(f"| {label} | " + " | ".join(f"{errors[r]:.4f}" for r in rounds)
                 + f" | {seconds:.4f} |")
    if args.out:
        with open(args.out, "w") as handle:
            handle.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
