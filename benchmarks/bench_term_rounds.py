"""Seconds per term-learner call (a text round's search) and per text round: this checkout
against another source tree, in fresh processes, alternated. ``--learner tree`` (or
``hamming_tree``, ``label_trees``) times a tree learner's call instead (8 leaves: each
node's term splits over the text column, the default's weak learner on large text sets).

The term learner's fit (``engine/learners/term.TermLearner``: the totals, every text
column's scored lists, Z, the chosen term's block statistics and blocks) is timed on
fixed, normalised random weights; the rest of a text round (α, the update) is a stump
round's, timed too: CPU seconds of whole rounds of real AdaBoost.MH (``round_cpu``: the
median of three fresh runs of ``--calls`` rounds: the first compiles the update). Tasks:
icsiboost's ``reuters10`` stem (6,490 documents, word uni- and bigrams, 10 topics,
multi-label), Reuters-21578 (ModApte, 90 topics, uni- and bigrams; needs the data
folder), and a synthetic set of 20,000 documents over 50,000 Zipf-drawn words, binary and
10 labels (about 50,000 terms). Within a process the median of ``--calls`` calls after a
warm-up is kept, with the process's peak resident memory; across processes the median and
range of ``--alternations`` processes per (source, task, threads).

``--fit ROUNDS`` times a whole ``BoostClassifier`` fit of ``ROUNDS`` rounds instead (the
learner's: ``term`` fits stumps; ``n_jobs`` the threads, no calibration, no early stopping):
its CPU and wall seconds, and the process's peak resident memory.

Run alone: ``python benchmarks/bench_term_rounds.py [task ...] --before SRC [--threads 1]
[--alternations 3] [--calls 5] [--learner term] [--fit ROUNDS]``, with ``CONFBOOST_GOLDEN`` (the
reuters10 stem under ``icsiboost/``) and ``CONFBOOST_DATA`` (Reuters-21578) set. CPU
seconds are reported beside wall seconds: on shared cores a one-thread process's CPU time
hardly moves with the load.
"""

import argparse
import gzip
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"

TASKS = ["reuters10", "synthetic binary", "synthetic 10 labels", "reuters21578"]


def _reuters10():
    """The reuters10 stem's training documents and topics (one text field, labels last)."""
    stem = Path(os.environ["CONFBOOST_GOLDEN"]) / "icsiboost" / "reuters10" / "reuters10"
    classes = (stem.parent / "reuters10.names").read_text().splitlines()[0].rstrip(".")
    classes = [name.strip() for name in classes.split(",")]
    texts, topics = [], []
    with gzip.open(f"{stem}.data.gz", "rt") as handle:
        for line in handle:
            text, labels = line.rstrip("\n").rstrip(".").rsplit(",", 1)
            texts.append(text)
            topics.append([classes.index(label) for label in labels.split()])
    Y = np.zeros((len(texts), len(classes)), dtype=np.int8)
    for i, held in enumerate(topics):
        Y[i, held] = 1
    return texts, Y


def _synthetic(k):
    """20,000 documents of 20-80 words over 50,000 (four in five drawn from a Zipf law,
    one uniformly); each label from a word of its own, or at random."""
    rng = np.random.default_rng(0)
    words = np.array([f"w{j}" for j in range(50_000)])
    ranks = np.where(rng.random(1_000_000) < 0.8,
                     np.minimum(rng.zipf(1.3, size=1_000_000), 50_000) - 1,
                     rng.integers(0, 50_000, 1_000_000))
    lengths = rng.integers(20, 81, 20_000)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    texts = [" ".join(words[ranks[starts[i] % 900_000:][:lengths[i]]]) for i in range(20_000)]
    Y = np.zeros((20_000, k), dtype=np.int8)
    for label in range(k):
        marker = f" w{100 + label} "
        Y[:, label] = [marker in f" {text} " or rng.random() < 0.1 for text in texts]
    return texts, Y


def load(task):
    """(texts, Y, text expert kwargs) of a task."""
    if task == "reuters10":
        return (*_reuters10(), {"kind": "ngram", "length": 2})
    if task == "reuters21578":
        from confboost.datasets.reuters import load_reuters21578

        split = load_reuters21578()
        return split.train_text, split.Y_train, {"kind": "ngram", "length": 2}
    return (*_synthetic(1 if task == "synthetic binary" else 10), {})


def fit_child(task, threads, rounds, name):
    """Time one ``BoostClassifier`` fit of ``rounds`` rounds of the learner ``name`` on the
    task in this process; print JSON."""
    from confboost import BoostClassifier
    from confboost.data.postings import TextExpert

    texts, Y, expert = load(task)
    frame = {"text": np.array(texts, dtype=object)}
    clf = BoostClassifier(rounds, weak_learner="stump" if name == "term" else name,
                          n_jobs=threads, calibration=None, early_stopping=False,
                          text_expert=TextExpert(**expert))
    wall, cpu = time.perf_counter(), time.process_time()
    clf.fit(frame, Y)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(json.dumps({"wall": wall, "cpu": cpu, "round_cpu": cpu / rounds,
                      "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "k": int(Y.shape[1])}))


def child(task, threads, calls, name):
    """Time ``calls`` fits of the learner ``name`` on the task in this process; print
    JSON."""
    import numba

    from confboost.data.columns import FrameEncoder
    from confboost.data.dataset import LabelSigns
    from confboost.data.postings import TextExpert
    from confboost.engine.boosting import BoostingRun
    from confboost.engine.learners import make_learner
    from confboost.engine.learners.term import TermLearner
    from confboost.engine.schemes.mh import MHScheme
    from confboost.kernels.criterion_numpy import MODES

    numba.set_num_threads(threads)
    texts, Y, expert = load(task)
    frame = {"text": np.array(texts, dtype=object)}
    dataset = FrameEncoder.from_table(frame, {"text": "text"}, TextExpert(**expert)
                                      ).fit_dataset(frame, 255)
    signs = np.where(Y > 0, 1, -1).astype(np.int8)
    weights = np.random.default_rng(1).random(signs.shape)
    weights /= weights.sum()
    labels = LabelSigns.from_signs(signs)
    learner = (TermLearner(MODES["real"], 1e-4) if name == "term"
               else make_learner(name, dataset, MODES["real"], 1e-4))
    learner.fit(dataset, weights, labels)
    walls, cpus = [], []
    for _ in range(calls):
        wall, cpu = time.perf_counter(), time.process_time()
        learner.fit(dataset, weights, labels)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    round_cpu = []  # whole MH rounds (the term search, α, the update), fresh runs
    for _ in range(3):
        run = BoostingRun(dataset, MHScheme(signs, np.ones(signs.shape[0]), False),
                          make_learner("stump" if name == "term" else name, dataset,
                                       MODES["real"], 1e-4), "auto",
                          MODES["real"], 1e-4)
        cpu = time.process_time()
        run.run(calls)
        round_cpu.append((time.process_time() - cpu) / calls)
    column = dataset.text[0]
    print(json.dumps({"wall": statistics.median(walls), "cpu": statistics.median(cpus),
                      "round_cpu": statistics.median(round_cpu),
                      "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "terms": column.n_terms, "lists": int(column.distinct_first_term.shape[0]),
                      "nnz": int(column.distinct_indices.shape[0]), "k": int(Y.shape[1])}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", nargs="*", default=TASKS[:3])
    parser.add_argument("--before", required=True, help="src folder of the other tree")
    parser.add_argument("--threads", type=int, nargs="+", default=[1])
    parser.add_argument("--alternations", type=int, default=3)
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--learner", default="term",
                        choices=["term", "tree", "hamming_tree", "label_trees"])
    parser.add_argument("--fit", type=int, default=0, metavar="ROUNDS",
                        help="time a whole fit of ROUNDS rounds instead of calls")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        if args.fit:
            fit_child(args.child[0], int(args.child[1]), args.fit, args.learner)
        else:
            child(args.child[0], int(args.child[1]), args.calls, args.learner)
        return
    sources = {"before": args.before, "after": str(SRC)}
    for task in args.tasks:
        for threads in args.threads:
            got = {name: [] for name in sources}
            for _ in range(args.alternations):
                for name, src in sources.items():
                    env = {**os.environ, "PYTHONPATH": src}
                    out = subprocess.run([sys.executable, __file__, "--before", src,
                                          "--calls", str(args.calls), "--learner",
                                          args.learner, "--fit", str(args.fit), "--child", task,
                                          str(threads)], env=env, capture_output=True,
                                         text=True, check=True)
                    got[name].append(json.loads(out.stdout.splitlines()[-1]))
            shape = got["after"][0]
            what = (f"a fit of {args.fit} rounds" if args.fit else
                    f"{shape['terms']} terms, {shape['lists']} lists, {shape['nnz']} postings")
            print(f"{task}, {args.learner}, {threads} thread(s): {what}, k = {shape['k']}")
            for name, runs in got.items():
                for key in ("cpu", "wall", "round_cpu"):
                    values = sorted(run[key] for run in runs)
                    print(f"  {name:6s} {key:4s} median {statistics.median(values):.4f} s "
                          f"(range {values[0]:.4f}-{values[-1]:.4f})")
                rss = sorted(run["max_rss_mb"] for run in runs)
                print(f"  {name:6s} peak RSS {statistics.median(rss):.0f} MB")
            ratio = [a["cpu"] / b["cpu"] for a, b in zip(got["after"], got["before"],
                                                          strict=True)]
            print(f"  after/before CPU per pair: {', '.join(f'{r:.2f}' for r in ratio)}",
                  flush=True)


if __name__ == "__main__":
    main()
