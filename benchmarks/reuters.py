"""Reuters-21578 (ModApte, 90 topics): real vs discrete AdaBoost.MH on word uni- and bigrams.

The BoosTexter experiment of Schapire & Singer (1999 §10, 2000): weak hypotheses test the
presence of a word or a two-word phrase; one-error, average precision, micro and macro F1
(decisions f > 0) and Hamming loss on the test documents at several rounds (a learning curve),
and seconds per round (preprocessing apart).

    PYTHONPATH=src python benchmarks/reuters.py --rounds 3000 --checkpoints 10,100,1000,3000
    PYTHONPATH=src python benchmarks/reuters.py --rounds 300 --plot reuters_one_error.png

Results are printed as they come and written to --output (JSON), so an interrupted run keeps
what it measured.
"""

import argparse
import json
import time

import numpy as np

from confboost import BoostClassifier
from confboost.data.postings import TextExpert
from confboost.datasets.reuters import load_reuters21578
from confboost.evaluation.fmeasure import macro_f1, micro_f1
from confboost.evaluation.metrics import average_precision, hamming_loss, one_error


class Checkpoints:
    """Follows f on the test set round by round and evaluates it at the checkpoints."""

    def __init__(self, estimator, test_frame, Y_test, checkpoints, label, results, output):
        self.estimator = estimator
        self.test_frame = test_frame
        self.Y_test = Y_test
        self.checkpoints = set(checkpoints)
        self.label = label
        self.results = results
        self.output = output
        self.frame = None
        self.scores = None
        self.start = time.perf_counter()
        self.round_seconds = []
        self.one_error_curve = []

    def __call__(self, round_index, record):
        now = time.perf_counter()
        self.round_seconds.append(now - self.start)
        if self.frame is None:
            self.frame = self.estimator.encoder_.transform(self.test_frame)
            self.scores = np.zeros(self.Y_test.shape)
        hypothesis = record["fit"].hypothesis
        blocks = hypothesis.blocks(self.frame)
        self.scores += record["alpha"] * hypothesis.values[blocks]
        self.one_error_curve.append(one_error(self.Y_test, self.scores))
        rounds = round_index + 1
        if rounds in self.checkpoints:
            predicted = self.scores > 0
            seen = np.flatnonzero(self.Y_test.any(axis=0))
            entry = {
                "confidence": self.label, "rounds": rounds,
                "one_error": one_error(self.Y_test, self.scores),
                "average_precision": average_precision(self.Y_test, self.scores),
                "micro_f1": micro_f1(self.Y_test, predicted),
                "macro_f1": macro_f1(self.Y_test, predicted, seen),
                "hamming_loss": hamming_loss(self.Y_test, predicted),
                "train_hamming_loss": float(record["train_loss"]),
                "seconds_per_round_median": float(np.median(self.round_seconds)),
                "seconds_so_far": float(np.sum(self.round_seconds)),
            }
            self.results.append(entry)
            print(json.dumps(entry), flush=True)
            with open(self.output, "w") as handle:
                json.dump(self.results, handle, indent=1)
        self.start = time.perf_counter()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--checkpoints", default="10,100,300,1000,3000")
    parser.add_argument("--confidence", default="real,discrete")
    parser.add_argument("--window", type=int, default=2, help="n-gram length (default 2)")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--cutoff", type=int, default=0,
                        help="keep terms found in at least this many training documents")
    parser.add_argument("--output", default="reuters_results.json")
    parser.add_argument("--plot", default=None,
                        help="also draw the test one-error after every round of each "
                             "confidence to this image (needs the plot extra, matplotlib)")
    arguments = parser.parse_args()
    checkpoints = [int(c) for c in arguments.checkpoints.split(",") if int(c) <= arguments.rounds]
    if arguments.rounds not in checkpoints:
        checkpoints.append(arguments.rounds)
    start = time.perf_counter()
    data = load_reuters21578()
    print(f"loaded {len(data.train_text)} train / {len(data.test_text)} test documents, "
          f"{len(data.categories)} categories in {time.perf_counter() - start:.1f}s", flush=True)
    train = {"text": data.train_text}
    test = {"text": data.test_text}
    results = []
    curves = {}
    for confidence in arguments.confidence.split(","):
        estimator = BoostClassifier(
            n_estimators=arguments.rounds, confidence=confidence, n_jobs=arguments.jobs,
            weak_learner="stump",
            feature_types={"text": "text"},
            text_expert=TextExpert("ngram", arguments.window, cutoff=arguments.cutoff))
        follower = Checkpoints(estimator, test, data.Y_test, checkpoints, confidence, results,
                               arguments.output)
        start = time.perf_counter()
        estimator.fit(train, data.Y_train, callbacks=[follower])
        total = time.perf_counter() - start
        boosting = sum(follower.round_seconds)
        print(f"{confidence}: {estimator.n_estimators_} rounds, fit {total:.1f}s of which "
              f"boosting {boosting:.1f}s ({boosting / estimator.n_estimators_:.3f} s/round), "
              f"preprocessing {total - boosting:.1f}s",
              flush=True)
        curves[confidence] = follower.one_error_curve
    if arguments.plot:
        from confboost.plot.reports import test_error_curves

        path = test_error_curves({"Reuters-21578, 90 topics, uni- and bigrams": curves},
                                 arguments.plot, ylabel="test one-error (%)",
                                 title="real vs discrete AdaBoost.MH")
        print(f"wrote {path}", flush=True)


if __name__ == "__main__":
    main()
