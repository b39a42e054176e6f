"""The runs of the paper's §10 comparison: which algorithms, on which sets, fitted how.

Schapire & Singer (1999) §10 compare three multiclass boosting algorithms on UCI benchmarks
by their test error after 10, 100 and 1000 rounds, and real against discrete AdaBoost.MH on
a text-categorisation task.  This module owns running them; ``report.py`` turns the runs
into findings, tables, plots and ``report.md``:

- ``ALGORITHMS``: the small registry, key -> ``Algorithm`` (a name and the
  ``BoostClassifier`` parameters). New variants plug in by adding an entry; one whose
  scheme this build lacks is detected (a probe fit raises ``ValueError``) and reported as
  skipped, never faked.
- ``run_comparison``: one fit of the largest round count per (data set, algorithm); every
  round count is read from ``staged_predict``.
- ``text_experiment(data_dir, rounds)``: the Reuters-21578 ModApte task (single-label
  documents of the ten most frequent topics), read through
  ``confboost.datasets.load_reuters21578``; skipped with a message when the data is absent.
"""

import sys
import time
from dataclasses import dataclass, field

import numpy as np

from confboost.datasets import BUNDLED, DATASETS, load, load_reuters21578
from confboost.estimators.classifier import BoostClassifier

# --------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class Algorithm:
    """One compared algorithm: its key, the paper's name, and ``BoostClassifier`` params."""

    key: str
    name: str
    params: dict = field(default_factory=dict)
    note: str = ""


ALGORITHMS = {
    "real-mh": Algorithm(
        "real-mh", "Real AdaBoost.MH",
        {"scheme": "mh", "confidence": "real", "weak_learner": "stump"},
        "confidences by Eq. 9/16, α = 1, weak learner minimises Z (Eq. 16), "
        "ε = 1/(2mk)"),
    "discrete-mh": Algorithm(
        "discrete-mh", "Discrete AdaBoost.MH",
        {"scheme": "mh", "confidence": "discrete", "weak_learner": "stump"},
        "h ∈ {-1, +1}, α by Eq. 13, weak learner maximises r (Eq. 14)"),
    "discrete-mr": Algorithm(
        "discrete-mr", "Discrete AdaBoost.MR",
        {"scheme": "mr", "confidence": "discrete", "weak_learner": "stump"},
        "h ∈ {-1, +1}, α by Eq. 28, weak learner maximises r (Eq. 27); AdaBoost.M2 on "
        "single-label data"),
}
"""key -> Algorithm; the order is the order of the report's columns."""

PAIRS = (("real-mh", "discrete-mh"), ("real-mh", "discrete-mr"),
         ("discrete-mh", "discrete-mr"))
"""The scatter plots: (x-axis algorithm, y-axis algorithm)."""

DATASETS_FULL = ("letter", "satimage", "segment", "vowel", "soybean-large", "splice", "glass",
                 "vehicle", "waveform", "pendigits", "optdigits", "car", "yeast-multiclass")
"""The UCI multiclass benchmarks of the comparison."""

DATASETS_QUICK = tuple(name for name in DATASETS_FULL if name not in ("letter", "pendigits"))
"""``--quick`` leaves out the two largest sets."""

ROUNDS_FULL = (10, 100, 1000)
ROUNDS_QUICK = (10, 100)

TEXT_DATASET = "reuters21578"
TEXT_TOPICS = 10


def algorithm_available(key):
    """Whether this build can run algorithm ``key``: ``(True, "")`` or ``(False, reason)``.

    A one-round probe fit on six examples of three classes; a ``ValueError`` or
    ``NotImplementedError`` (e.g. an unknown ``scheme``) means the algorithm is missing.
    """
    X = np.arange(6.0)[:, None]
    y = np.array([0, 0, 1, 1, 2, 2])
    try:
        BoostClassifier(n_estimators=1, n_jobs=1, **ALGORITHMS[key].params).fit(X, y)
    except (ValueError, NotImplementedError) as error:
        return False, f"not available in this build ({error})"
    return True, ""


# --------------------------------------------------------------------------- running


@dataclass
class Run:
    """One fit of one algorithm on one data set, with everything the report needs.

    ``test_error``, ``train_loss`` and ``bound`` have one entry per round run
    (``rounds_run``, fewer than asked when the loop stopped because a hypothesis had no
    edge; the model is then final and ``error_at`` reads its last value).
    """

    dataset: str
    algorithm: str
    rounds_asked: int
    rounds_run: int
    test_error: np.ndarray
    train_loss: np.ndarray
    bound: np.ndarray
    fit_seconds: float

    def at(self, values, n_rounds):
        return float(values[min(n_rounds, self.rounds_run) - 1])

    def error_at(self, n_rounds):
        return self.at(self.test_error, n_rounds)


@dataclass
class DatasetInfo:
    """What the report says about one data set that loaded."""

    name: str
    n_train: int
    n_test: int
    n_features: int
    n_classes: int
    split: str
    official: bool


def fit_and_stage(split, algorithm, n_rounds, n_jobs=None):
    """Fit ``algorithm`` for ``n_rounds`` on ``split``; the test error after every round."""
    params = ALGORITHMS[algorithm].params
    classifier = BoostClassifier(n_estimators=n_rounds, n_jobs=n_jobs, random_state=0,
                                 **params)
    started = time.perf_counter()
    classifier.fit(split.X_train, split.y_train)
    seconds = time.perf_counter() - started
    errors = np.array([np.mean(predicted != split.y_test)
                       for predicted in classifier.staged_predict(split.X_test)])
    history = classifier.history_
    return Run(split.name, algorithm, n_rounds, classifier.n_estimators_, errors,
               np.asarray(history["train_loss"], dtype=float),
               np.asarray(history["bound"], dtype=float), seconds)


def short_split(description):
    """The split's description in a few words, for tables and progress lines."""
    if description.startswith("official"):
        return "official"
    if "CV" in description:
        head = description.split(",")
        return ", ".join(part.strip() for part in head[:2])
    return description.split("(")[0].strip()


def run_comparison(datasets, algorithms, rounds, data_dir=BUNDLED, n_jobs=None,
                   stream=None):
    """Fit every available algorithm on every loadable data set.

    Parameters
    ----------
    datasets : sequence of str
    algorithms : sequence of str
        Keys of ``ALGORITHMS`` that are available (see ``algorithm_available``).
    rounds : sequence of int
        One fit of ``max(rounds)`` rounds per (data set, algorithm).
    data_dir : str, path or ``"bundled"``
        Passed to ``confboost.datasets.load``.
    n_jobs : int or None
    stream : file or None
        Progress lines (one per data set) go here; None: ``sys.stderr``.

    Returns
    -------
    infos : list of DatasetInfo
        The data sets that loaded, in order.
    runs : dict of (str, str) to Run
        ``runs[dataset, algorithm]``.
    skipped : dict of str to str
        Data sets that could not be loaded, with the reason.
    """
    stream = sys.stderr if stream is None else stream
    n_rounds = max(rounds)
    infos, runs, skipped = [], {}, {}
    datasets = [str(name).strip().lower().replace("_", "-") for name in datasets]
    unknown = [name for name in datasets if name not in DATASETS]
    if unknown:
        raise ValueError(f"unknown data set(s) {', '.join(unknown)}; known: "
                         f"{', '.join(DATASETS)}")
    for position, name in enumerate(datasets, start=1):
        prefix = f"[{position:>2}/{len(datasets)}] {name}"
        try:
            split = load(name, data_dir=data_dir)
        except FileNotFoundError as error:
            skipped[name] = f"not in the data folder ({error})"
            print(f"{prefix}: skipped, not in the data folder", file=stream, flush=True)
            continue
        except ValueError as error:  # files that do not match their PROVENANCE.md
            skipped[name] = f"could not be read ({error})"
            print(f"{prefix}: skipped, {error}", file=stream, flush=True)
            continue
        info = DatasetInfo(name, split.n_train, split.n_test, split.n_features,
                           split.n_classes, split.split_description,
                           split.split_description.startswith("official"))
        infos.append(info)
        print(f"{prefix} ({info.n_train} train / {info.n_test} test, {info.n_classes} "
              f"classes, {short_split(info.split)}):", end="", file=stream, flush=True)
        for key in algorithms:
            run = fit_and_stage(split, key, n_rounds, n_jobs)
            runs[name, key] = run
            print(f" {key} {run.fit_seconds:.1f}s err@{n_rounds}={run.error_at(n_rounds):.3f}",
                  end="", file=stream, flush=True)
        print(file=stream, flush=True)
    return infos, runs, skipped


# --------------------------------------------------------------------------- text task


@dataclass
class TextResult:
    """The outcome of ``text_experiment``: ``status`` is ``"ok"`` or ``"skipped"``."""

    status: str
    message: str
    description: str = ""
    n_train: int = 0
    n_test: int = 0
    n_classes: int = 0
    runs: dict = field(default_factory=dict)


def reuters_task(data_dir=None, n_topics=TEXT_TOPICS):
    """A single-label Reuters-21578 ModApte task, as in BoosTexter's multiclass experiments.

    The documents with exactly one TOPICS category, restricted to the ``n_topics``
    categories most frequent among the single-label training documents (ties by name).

    Parameters
    ----------
    data_dir : str, path or None
        As in ``confboost.datasets.load_reuters21578``.
    n_topics : int, default 10

    Returns
    -------
    docs_train, y_train, docs_test, y_test : list of str (title and body), str ndarray
    description : str

    Raises
    ------
    FileNotFoundError
        Reuters-21578 is not found (the message says where it was looked for).
    """
    reuters = load_reuters21578(data_dir, min_documents=0)  # every topic that occurs
    topics = np.asarray(reuters.categories)
    parts = {}
    for part, docs, Y in (("train", reuters.train_text, reuters.Y_train),
                          ("test", reuters.test_text, reuters.Y_test)):
        single = np.flatnonzero(Y.sum(axis=1) == 1)
        parts[part] = ([docs[i] for i in single], topics[Y[single].argmax(axis=1)])
    names, counts = np.unique(parts["train"][1], return_counts=True)
    top = [str(t) for _, t in sorted(zip(-counts, names, strict=True))[:n_topics]]
    out = []
    for part in ("train", "test"):
        docs, labels = parts[part]
        keep = np.isin(labels, top)
        out += [[d for d, k in zip(docs, keep, strict=True) if k], labels[keep]]
    description = (f"ModApte split, single-label documents of the {n_topics} most frequent "
                   f"single-label topics ({', '.join(sorted(top))}): {len(out[0]):,} "
                   f"train / {len(out[2]):,} test")
    return (*out, description)


def text_experiment(data_dir, rounds, n_jobs=None, algorithms=("real-mh", "discrete-mh"),
                    stream=None):
    """Real against discrete AdaBoost.MH on Reuters-21578 (the text task of §10).

    Skipped, with the reason in ``message``, when the data is missing. Otherwise each
    algorithm is fitted once for ``max(rounds)`` rounds on the documents (one text column,
    ``feature_types={"text": "text"}``, word unigrams) and its test error is read after
    every round.

    Parameters
    ----------
    data_dir : str, path, ``"bundled"`` or None
        Folder holding ``reuters21578/reuters21578.csv.gz``; None: the data folder or
        the cache (``confboost.datasets.search_path()``); ``"bundled"``: skipped (not
        bundled).
    rounds : sequence of int
    n_jobs : int or None
    algorithms : sequence of str
    stream : file or None

    Returns
    -------
    TextResult
    """
    stream = sys.stderr if stream is None else stream
    try:
        docs_train, y_train, docs_test, y_test, description = reuters_task(data_dir)
    except FileNotFoundError as error:
        print(f"text task: skipped, {error}", file=stream, flush=True)
        return TextResult("skipped", str(error))
    X_train = {"text": list(docs_train)}
    X_test = {"text": list(docs_test)}
    result = TextResult("ok", "", description, len(docs_train), len(docs_test),
                        int(np.unique(np.concatenate([y_train, y_test])).size))
    print(f"text task ({description}):", end="", file=stream, flush=True)
    n_rounds = max(rounds)
    for key in algorithms:
        classifier = BoostClassifier(n_estimators=n_rounds, n_jobs=n_jobs, random_state=0,
                                     feature_types={"text": "text"}, **ALGORITHMS[key].params)
        started = time.perf_counter()
        classifier.fit(X_train, y_train)
        seconds = time.perf_counter() - started
        errors = np.array([np.mean(p != y_test) for p in classifier.staged_predict(X_test)])
        history = classifier.history_
        result.runs[key] = Run(TEXT_DATASET, key, n_rounds, classifier.n_estimators_, errors,
                               np.asarray(history["train_loss"], dtype=float),
                               np.asarray(history["bound"], dtype=float), seconds)
        print(f" {key} {seconds:.1f}s err@{n_rounds}={errors[-1]:.3f}", end="", file=stream,
              flush=True)
    print(file=stream, flush=True)
    return result
