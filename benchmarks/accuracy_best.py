"""confboost's recommended configurations against LightGBM with 16 leaves, tuned on validation.

Owns the accuracy benchmark of the tuned models. For every data set a random part of the training
set (``--validation``, default 20%, seed 0; stratified on single-label sets) is held out;
each candidate configuration of either library is fitted on the rest, and its validation
loss is followed round by round up to ``--rounds`` (early stopping: a fit ends after
``--patience`` rounds without a better validation loss, 300 by default for both libraries:
with 100 both stopped on flat stretches of the numeric sets' validation curves that still
fell later). The configuration and round with the least validation loss are chosen; the test
loss reported is that model's, at that round, on the official test set, which takes no part
in any choice. Seconds are the wall time of the chosen configuration's fit (to its stopping
round; confboost's without the callback that follows the validation and test scores), one
thread each. The last column is the mean ± standard error of the paired per-example
difference of the two chosen models' test losses (confboost minus LightGBM): a gap within
about two standard errors is not one the test set can tell apart.

Losses: test error on single-label sets (argmax of f), Hamming loss on multi-label sets
(f > 0; LightGBM: one binary model per label, each stopped on its own validation error,
which is the label's share of the Hamming loss).

Candidates (``CONFBOOST`` and ``LIGHTGBM`` below; every confboost parameter they depend on
is spelled out in ``BASE``): real AdaBoost.MH (α = 1) with 16-leaf
Z-trees at learning rate 1 and 0.3 on single-label sets; 8- and 16-leaf trees and 16-leaf
Hamming trees at learning rate 0.3, and 16-leaf trees at 0.1, on multi-label sets;
LightGBM with 16 leaves, learning rate 0.1 or 0.5, lambda_l2 0 or 1 (its defaults
otherwise).

Data (``confboost.datasets``): satimage, pendigits, letter, fashion-mnist (its training set
cut to ``--fashion-train`` examples, stratified, seed 0; ``--fashion-rounds``), yeast-ml,
scene, emotions on their official splits, and Reuters-21578 (ModApte) restricted to its 10
most frequent topics (documents with at least one of them), as binary presence of the
``--vocabulary`` most frequent words of the training documents (scikit-learn's
CountVectorizer), the same matrix for both libraries.

    PYTHONPATH=src python benchmarks/accuracy_best.py [--sets satimage scene ...]
        [--rounds 1000] [--patience 300] [--fashion-train 10000] [--fashion-rounds 300]
        [--candidates LABEL ...] [--losses FILE.npz] [--progress N]

``--candidates`` runs only the candidates of those labels (one process per candidate on a
large set); ``--losses`` saves each candidate's per-test-example losses, so the paired
difference of runs made in different processes can be computed afterwards.
"""

import argparse
import sys
import time

import numpy as np

from confboost import BoostClassifier
from confboost.datasets import load
from confboost.datasets.reuters import load_reuters21578

SETS = ("satimage", "pendigits", "letter", "fashion-mnist", "yeast-ml", "scene", "emotions",
        "reuters-10")

# every confboost parameter a candidate depends on, spelled out: the estimator's defaults may
# change (calibration's extra runs and early stopping's own hold-out are off here; the
# benchmark holds out its own validation part and follows it with ``EarlyStopping``)
BASE = {"scheme": "mh", "confidence": "real", "alpha": "auto", "smoothing": "auto",
        "max_bins": 255, "min_leaf_weight": 0.0, "learning_rate": 1.0,
        "early_stopping": False, "calibration": None}
CONFBOOST = {
    "single": [("tree 16, lr 1", {"weak_learner": "tree", "max_leaves": 16}),
               ("tree 16, lr 0.3", {"weak_learner": "tree", "max_leaves": 16,
                                    "learning_rate": 0.3})],
    "multi": [("tree 8, lr 0.3", {"weak_learner": "tree", "max_leaves": 8,
                                  "learning_rate": 0.3}),
              ("tree 16, lr 0.3", {"weak_learner": "tree", "max_leaves": 16,
                                   "learning_rate": 0.3}),
              ("hamming tree 16, lr 0.3", {"weak_learner": "hamming_tree", "max_leaves": 16,
                                           "learning_rate": 0.3}),
              ("tree 16, lr 0.1", {"weak_learner": "tree", "max_leaves": 16,
                                   "learning_rate": 0.1})],
}
LIGHTGBM = [(f"lr {rate}, l2 {l2}", {"learning_rate": rate, "lambda_l2": l2})
            for rate in (0.1, 0.5) for l2 in (0, 1)]


def reuters_top10(vocabulary):
    """Reuters-21578 ModApte on its 10 most frequent topics, as dense 0/1 word presence."""
    from sklearn.feature_extraction.text import CountVectorizer

    split = load_reuters21578()
    top = np.argsort(-split.Y_train.sum(axis=0), kind="stable")[:10]
    parts = []
    for text, Y in ((split.train_text, split.Y_train), (split.test_text, split.Y_test)):
        Y = Y[:, top]
        keep = np.flatnonzero(Y.sum(axis=1) > 0)
        parts.append(([text[i] for i in keep], Y[keep]))
    words = CountVectorizer(binary=True, max_features=vocabulary, dtype=np.float32)
    X_train = words.fit_transform(parts[0][0]).toarray()
    X_test = words.transform(parts[1][0]).toarray()
    return X_train, parts[0][1], X_test, parts[1][1]


def load_set(name, arguments):
    """(X_train, y_train, X_test, y_test, note) of one benchmark set."""
    if name == "reuters-10":
        X_train, y_train, X_test, y_test = reuters_top10(arguments.vocabulary)
        return X_train, y_train, X_test, y_test, f"{arguments.vocabulary} words"
    split = load(name)
    X_train, y_train = split.X_train, split.y_train
    note = ""
    if name == "fashion-mnist" and arguments.fashion_train < len(y_train):
        keep = stratified_part(y_train, arguments.fashion_train / len(y_train))
        X_train, y_train = X_train[keep], y_train[keep]
        note = f"train cut to {len(keep)}"
    return X_train, y_train, split.X_test, split.y_test, note


def stratified_part(y, share, seed=0):
    """Sorted indices of a random part of about ``share`` of each class of y."""
    rng = np.random.default_rng(seed)
    chosen = []
    for label in np.unique(y):
        rows = rng.permutation(np.flatnonzero(y == label))
        chosen.append(rows[: int(round(share * len(rows)))])
    return np.sort(np.concatenate(chosen))


def validation_split(y, share):
    """(fit rows, validation rows): stratified for single-label y, plain for multi-label."""
    if y.ndim == 1:
        held = stratified_part(y, share)
    else:
        order = np.random.default_rng(0).permutation(len(y))
        held = np.sort(order[: int(round(share * len(y)))])
    fit = np.setdiff1d(np.arange(len(y)), held)
    return fit, held


def example_losses(y, scores, classes):
    """Each example's loss, shape (n,): its error (single-label: argmax of f) or its share
    of wrong labels (multi-label: f > 0); their mean is the test error or Hamming loss."""
    if y.ndim == 1:
        return (classes[np.argmax(scores, axis=1)] != y).astype(np.float64)
    return np.mean((scores > 0) != (y > 0), axis=1)


def loss(y, scores, classes):
    """Test error (single-label) or Hamming loss (multi-label) of the scores f."""
    return float(np.mean(example_losses(y, scores, classes)))


def paired_difference(first, second):
    """Mean and standard error of the per-example difference of two models' test losses.

    The two models are scored on the same test examples, so the standard error of the
    difference of their losses is that of the mean of the paired differences."""
    difference = first - second
    return float(difference.mean()), float(difference.std(ddof=1) / np.sqrt(len(difference)))


class EarlyStopping:
    """Callback: follows f on the validation and test rows, keeps the best validation round.

    Stops the fit after ``patience`` rounds without a lower validation loss. ``test_loss``
    is the test loss of f at the best validation round.
    """

    def __init__(self, X_valid, y_valid, X_test, y_test, classes, patience, progress=0):
        self.parts = ((X_valid, y_valid), (X_test, y_test))
        self.classes = classes
        self.patience = patience
        self.progress = progress  # every this many rounds a line on stderr (0: none)
        self.scores = [None, None]
        self.best = (np.inf, 0, np.inf)  # (validation loss, round, test loss)
        self.test_losses = None  # each test example's loss at the best round
        self.seconds = 0.0  # its own time, kept out of the fit's

    def __call__(self, round_index, record):
        started = time.perf_counter()
        hypothesis = record["fit"].hypothesis
        losses = []
        for p, (X, y) in enumerate(self.parts):
            values = record["alpha"] * hypothesis.values[hypothesis.blocks(X)]
            self.scores[p] = values if self.scores[p] is None else self.scores[p] + values
            losses.append(example_losses(y, self.scores[p], self.classes))
        if losses[0].mean() < self.best[0]:
            self.best = (float(losses[0].mean()), round_index + 1, float(losses[1].mean()))
            self.test_losses = losses[1]
        if self.progress and (round_index + 1) % self.progress == 0:
            print(f"  round {round_index + 1}: validation {losses[0].mean():.4f}, best "
                  f"{self.best[0]:.4f} at {self.best[1]}", file=sys.stderr, flush=True)
        self.seconds += time.perf_counter() - started
        return round_index + 1 - self.best[1] >= self.patience


def run_confboost(params, data, rounds, patience, progress=0):
    """(validation loss, best round, test loss, seconds, each test example's loss) of one
    confboost configuration."""
    X_fit, y_fit, X_valid, y_valid, X_test, y_test = data
    classes = np.unique(y_fit) if y_fit.ndim == 1 else None
    stopper = EarlyStopping(X_valid, y_valid, X_test, y_test, classes, patience, progress)
    started = time.perf_counter()
    BoostClassifier(rounds, n_jobs=1, **{**BASE, **params}).fit(X_fit, y_fit,
                                                                callbacks=[stopper])
    seconds = time.perf_counter() - started - stopper.seconds
    return (*stopper.best, seconds, stopper.test_losses)


def run_lightgbm(params, data, rounds, patience, progress=0):
    """(validation loss, best round, test loss, seconds, each test example's loss) of one
    LightGBM configuration.

    Multi-label: one binary model per label, each early-stopped on its validation error;
    the round reported is their mean.
    """
    X_fit, y_fit, X_valid, y_valid, X_test, y_test = data
    base = {"num_leaves": 16, "verbose": -1, "num_threads": 1, "seed": 0, **params}
    started = time.perf_counter()
    if y_fit.ndim == 1:
        classes, codes = np.unique(y_fit, return_inverse=True)
        train, valid = _lightgbm_data(X_fit, codes, X_valid, np.searchsorted(classes, y_valid))
        booster = _lightgbm_train({**base, "objective": "multiclass", "num_class": len(classes),
                                   "metric": "multi_error"}, train, valid, rounds, patience,
                                  progress)
        best = booster.best_iteration
        seconds = time.perf_counter() - started
        valid = loss(y_valid, booster.predict(X_valid, num_iteration=best, num_threads=1),
                     classes)
        test = example_losses(y_test, booster.predict(X_test, num_iteration=best,
                                                      num_threads=1), classes)
        return valid, best, float(test.mean()), seconds, test
    valid_scores, test_scores, bests = [], [], []
    train, valid = _lightgbm_data(X_fit, y_fit[:, 0], X_valid, y_valid[:, 0])
    for label in range(y_fit.shape[1]):
        train.set_label(y_fit[:, label])
        valid.set_label(y_valid[:, label])
        booster = _lightgbm_train({**base, "objective": "binary", "metric": "binary_error"},
                                  train, valid, rounds, patience, progress)
        best = booster.best_iteration
        bests.append(best)
        valid_scores.append(booster.predict(X_valid, num_iteration=best, raw_score=True,
                                            num_threads=1))
        test_scores.append(booster.predict(X_test, num_iteration=best, raw_score=True,
                                           num_threads=1))
    seconds = time.perf_counter() - started
    test = example_losses(y_test, np.column_stack(test_scores), None)
    return (loss(y_valid, np.column_stack(valid_scores), None), float(np.mean(bests)),
            float(test.mean()), seconds, test)


def _lightgbm_data(X_fit, y_fit, X_valid, y_valid):
    """LightGBM's binned training and validation sets (built once, labels can be reset)."""
    import lightgbm  # the "bench" extra; imported here so the scoring loads without it

    train = lightgbm.Dataset(X_fit, y_fit, params={"verbose": -1}, free_raw_data=False)
    valid = lightgbm.Dataset(X_valid, y_valid, reference=train, free_raw_data=False)
    return train.construct(), valid.construct()


def _lightgbm_train(params, train, valid, rounds, patience, progress=0):
    """A LightGBM booster early-stopped on the validation set's first metric."""
    import lightgbm  # the "bench" extra; imported here so the scoring loads without it

    callbacks = [lightgbm.early_stopping(patience, first_metric_only=True, verbose=False)]
    if progress:
        callbacks.append(lightgbm.log_evaluation(progress))
    return lightgbm.train(params, train, num_boost_round=rounds, valid_sets=[valid],
                          callbacks=callbacks)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--patience", type=int, default=300)
    parser.add_argument("--validation", type=float, default=0.2)
    parser.add_argument("--fashion-train", type=int, default=10000)
    parser.add_argument("--fashion-rounds", type=int, default=300)
    parser.add_argument("--vocabulary", type=int, default=2000)
    parser.add_argument("--progress", type=int, default=0, metavar="N",
                        help="a progress line on stderr every N rounds")
    parser.add_argument("--losses", metavar="FILE.npz",
                        help="save each candidate's per-test-example losses there")
    parser.add_argument("--candidates", nargs="+", metavar="LABEL",
                        help="run only the candidates of these labels (default: all)")
    arguments = parser.parse_args()
    summary, kept = [], {}
    for name in arguments.sets:
        X_train, y_train, X_test, y_test, note = load_set(name, arguments)
        fit, held = validation_split(y_train, arguments.validation)
        data = (X_train[fit], y_train[fit], X_train[held], y_train[held], X_test, y_test)
        rounds = arguments.fashion_rounds if name == "fashion-mnist" else arguments.rounds
        kind = "single" if y_train.ndim == 1 else "multi"
        print(f"\n### {name} (fit {len(fit)}, validation {len(held)}, test {len(y_test)}"
              f"{', ' + note if note else ''}; up to {rounds} rounds)\n", flush=True)
        print("| library | configuration | validation | round | test | seconds |")
        print("|---|---|---|---|---|---|", flush=True)
        chosen = {}
        for library, candidates, run in (("confboost", CONFBOOST[kind], run_confboost),
                                         ("LightGBM-16", LIGHTGBM, run_lightgbm)):
            for label, params in candidates:
                if arguments.candidates and label not in arguments.candidates:
                    continue
                result = run(params, data, rounds, arguments.patience, arguments.progress)
                print(f"| {library} | {label} | {result[0]:.4f} | {result[1]:.0f} | "
                      f"{result[2]:.4f} | {result[3]:.1f} |", flush=True)
                if library not in chosen or result[0] < chosen[library][1][0]:
                    chosen[library] = (label, result)
                if arguments.losses:  # rewritten after each candidate: a cut run keeps its part
                    kept[f"{name} | {library} | {label}"] = result[4]
                    np.savez_compressed(arguments.losses, **kept)
        summary.append((name, "error" if kind == "single" else "Hamming", chosen))
    print("\n| data | loss | confboost (validation-chosen) | round | test | s | "
          "LightGBM-16 (validation-chosen) | round | test | s | difference ± SE |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, metric, chosen in summary:
        cells = []
        for library in ("confboost", "LightGBM-16"):
            if library not in chosen:
                cells.append("not run | | |")
                continue
            label, (_, best_round, test, seconds, _) = chosen[library]
            cells.append(f"{label} | {best_round:.0f} | {test:.4f} | {seconds:.0f}")
        difference = ""
        if len(chosen) == 2:
            mean, error = paired_difference(chosen["confboost"][1][4],
                                            chosen["LightGBM-16"][1][4])
            difference = f"{mean:+.4f} ± {error:.4f}"
        print(f"| {name} | {metric} | {' | '.join(cells)} | {difference} |")


if __name__ == "__main__":
    main()
