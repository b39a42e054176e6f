"""The paper's experiments (§10) as one run that writes a report: ``confboost reproduce``.

Schapire & Singer (1999) §10 compare three multiclass boosting algorithms on UCI benchmarks
by their test error after 10, 100 and 1000 rounds, drawn as scatter plots of one
algorithm's error against another's (one point per data set), and compare real against
discrete AdaBoost.MH on a text-categorisation task, where real AdaBoost.MH learned much
faster.

This module owns:

- ``ALGORITHMS``: the small registry, key -> ``Algorithm`` (a name and the
  ``BoostClassifier`` parameters). New variants plug in by adding an entry; one whose
  scheme this build lacks is detected (a probe fit raises ``ValueError``) and reported as
  skipped, never faked.
- ``run_comparison``: one fit of the largest round count per (data set, algorithm); every
  round count is read from ``staged_predict``.
- ``text_experiment(data_dir, rounds)``: the Reuters-21578 ModApte task, skipped with a
  message while this build has no text learner.
- ``findings``: the paper's qualitative claims, checked against the numbers, in words.
- ``reproduce``: all of the above, writing ``report.md``, ``results.csv``, ``curves.csv``
  and the PNGs into one folder.
"""

import csv
import gzip
import platform
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from confboost.datasets import BUNDLED, DATASETS, default_data_dir, load
from confboost.estimators import BoostClassifier

__all__ = [
    "ALGORITHMS",
    "DATASETS_FULL",
    "DATASETS_QUICK",
    "PAIRS",
    "ROUNDS_FULL",
    "ROUNDS_QUICK",
    "Algorithm",
    "algorithm_available",
    "findings",
    "reproduce",
    "run_comparison",
    "text_experiment",
    "text_learner_available",
]


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
        "real-mh", "Real AdaBoost.MH", {"scheme": "mh", "confidence": "real"},
        "confidences by Eq. 9/16, α = 1, weak learner minimises Z (Eq. 16), "
        "ε = 1/(2mk)"),
    "discrete-mh": Algorithm(
        "discrete-mh", "Discrete AdaBoost.MH", {"scheme": "mh", "confidence": "discrete"},
        "h ∈ {-1, +1}, α by Eq. 13, weak learner maximises r (Eq. 14)"),
    "discrete-mr": Algorithm(
        "discrete-mr", "Discrete AdaBoost.MR", {"scheme": "mr", "confidence": "discrete"},
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


def _short_split(description):
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
              f"classes, {_short_split(info.split)}):", end="", file=stream, flush=True)
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


def text_learner_available():
    """Whether ``BoostClassifier`` can learn from text: ``(True, "")`` or ``(False, why)``.

    The text learner (BoosTexter-style term-presence stumps) is reached through a
    ``feature_types`` parameter of ``BoostClassifier`` naming text columns.
    """
    if "feature_types" not in BoostClassifier().get_params():
        return False, ("not available in this build: BoostClassifier has no text learner "
                       "(no feature_types parameter)")
    return True, ""


def load_reuters_modapte(data_dir=None, n_topics=TEXT_TOPICS):
    """A single-label Reuters-21578 ModApte task, as in BoosTexter's multiclass experiments:
    the documents with exactly one TOPICS category, restricted to the ``n_topics``
    categories most frequent among the single-label training documents.

    Returns
    -------
    docs_train, y_train, docs_test, y_test : list of str (title and body), str ndarray
    description : str
    """
    if isinstance(data_dir, str) and data_dir == BUNDLED:
        raise FileNotFoundError(f"Reuters-21578 is not bundled with confboost; pass --data DIR "
                                f"holding {TEXT_DATASET}/reuters21578.csv.gz")
    root = default_data_dir() if data_dir is None else Path(data_dir)
    path = None if root is None else Path(root) / TEXT_DATASET / "reuters21578.csv.gz"
    if path is None or not path.is_file():
        raise FileNotFoundError(f"Reuters-21578 not found (expected {path}; pass --data DIR "
                                f"holding {TEXT_DATASET}/reuters21578.csv.gz)")
    with gzip.open(path, "rt", encoding="utf-8", newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["modapte"] in ("train", "test")]
    single = [(row, topics[0]) for row in rows
              if len(topics := [t for t in row["topics"].split(";") if t]) == 1]
    counts = {}
    for row, topic in single:
        if row["modapte"] == "train":
            counts[topic] = counts.get(topic, 0) + 1
    top = set(sorted(counts, key=lambda t: (-counts[t], t))[:n_topics])
    parts = {"train": ([], []), "test": ([], [])}
    for row, topic in single:
        if topic in top:
            docs, labels = parts[row["modapte"]]
            docs.append(f"{row['title']}\n{row['body']}")
            labels.append(topic)
    (docs_train, y_train), (docs_test, y_test) = parts["train"], parts["test"]
    description = (f"ModApte split, single-label documents of the {n_topics} most frequent "
                   f"single-label topics ({', '.join(sorted(top))}): {len(docs_train):,} "
                   f"train / {len(docs_test):,} test")
    return docs_train, np.array(y_train), docs_test, np.array(y_test), description


def text_experiment(data_dir, rounds, n_jobs=None, algorithms=("real-mh", "discrete-mh"),
                    stream=None):
    """Real against discrete AdaBoost.MH on Reuters-21578 (the text task of §10).

    Skipped, with the reason in ``message``, when this build has no text learner or the data
    is missing. Otherwise each algorithm is fitted once for ``max(rounds)`` rounds on the
    documents (one text column, ``feature_types={"text": "text"}``, word unigrams) and its
    test error is read after every round.

    Parameters
    ----------
    data_dir : str, path, ``"bundled"`` or None
        Folder holding ``reuters21578/reuters21578.csv.gz``; None:
        ``confboost.datasets.default_data_dir()``; ``"bundled"``: skipped (not bundled).
    rounds : sequence of int
    n_jobs : int or None
    algorithms : sequence of str
    stream : file or None

    Returns
    -------
    TextResult
    """
    stream = sys.stderr if stream is None else stream
    available, reason = text_learner_available()
    if not available:
        print(f"text task: skipped, {reason}", file=stream, flush=True)
        return TextResult("skipped", reason)
    try:
        docs_train, y_train, docs_test, y_test, description = load_reuters_modapte(data_dir)
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
        try:
            classifier.fit(X_train, y_train)
        except (TypeError, ValueError, NotImplementedError) as error:
            message = f"the text learner did not accept the documents ({error})"
            print(f" skipped, {message}", file=stream, flush=True)
            return TextResult("skipped", message, description)
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


# --------------------------------------------------------------------------- findings


def _rounds_to_reach(curve, target):
    """First round (1-based) at which ``curve <= target``, or None."""
    hits = np.flatnonzero(np.asarray(curve) <= target)
    return int(hits[0]) + 1 if hits.size else None


def _pct(value):
    return f"{100.0 * value:.1f}%"


def _gap_words(gap):
    if abs(gap) < 5e-5:
        return "the mean errors were equal"
    return f"the gap was {_points(abs(gap))} in {'real' if gap > 0 else 'discrete'}'s favour"


def _points(value):
    return f"{100.0 * value:.1f} percentage points"


def compare_pair(errors, datasets, a, b, rounds):
    """Counts behind one pair's comparison.

    Parameters
    ----------
    errors : dict of (str, str, int) to float
        ``errors[dataset, algorithm, n_rounds]`` = test error.
    datasets : sequence of str
    a, b : str
        Algorithm keys.
    rounds : sequence of int

    Returns
    -------
    dict of int to dict
        Per round count: ``n`` (data sets with both), ``a_le_b`` (a's error <= b's),
        ``a_lt_b``, ``b_lt_a``, ``mean_a``, ``mean_b``.
    """
    out = {}
    for r in rounds:
        pairs = [(errors[d, a, r], errors[d, b, r]) for d in datasets
                 if (d, a, r) in errors and (d, b, r) in errors]
        ea = np.array([p[0] for p in pairs])
        eb = np.array([p[1] for p in pairs])
        out[r] = {"n": len(pairs), "a_le_b": int(np.sum(ea <= eb)),
                  "a_lt_b": int(np.sum(ea < eb)), "b_lt_a": int(np.sum(eb < ea)),
                  "mean_a": float(ea.mean()) if pairs else float("nan"),
                  "mean_b": float(eb.mean()) if pairs else float("nan")}
    return out


def _verdict(held_at, rounds):
    if all(held_at[r] for r in rounds):
        return "held"
    if any(held_at[r] for r in rounds):
        return "held in part"
    return "did not hold"


def findings(errors, datasets, rounds, names=None, curves=None, text=None):
    """The paper's qualitative findings, checked against the numbers, as sentences.

    Parameters
    ----------
    errors : dict of (str, str, int) to float
        ``errors[dataset, algorithm, n_rounds]`` = test error.
    datasets : sequence of str
    rounds : sequence of int
        Round counts, ascending.
    names : dict of str to str, optional
        Algorithm key -> display name (default: ``ALGORITHMS``' names).
    curves : dict of (str, str) to array-like, optional
        ``curves[dataset, algorithm]`` = test error after each round; adds how many rounds
        real AdaBoost.MH needed to reach discrete AdaBoost.MH's final error.
    text : dict of str to array-like, optional
        Algorithm key -> test error after each round on the text task.

    Returns
    -------
    list of str
    """
    names = names or {key: algo.name for key, algo in ALGORITHMS.items()}
    rounds = sorted(rounds)
    first, last = rounds[0], rounds[-1]
    sentences = []
    present = {key for (_, key, _) in errors}
    real, disc = "real-mh", "discrete-mh"
    if {real, disc} <= present:
        stats = compare_pair(errors, datasets, real, disc, rounds)
        n = stats[first]["n"]
        parts = [f"{s['a_le_b']} of {s['n']} data sets after {r} rounds (mean test error "
                 f"{_pct(s['mean_a'])} against {_pct(s['mean_b'])})"
                 for r, s in stats.items()]
        held_at = {r: 2 * s["a_le_b"] > s["n"] for r, s in stats.items()}
        sentences.append(
            f"Real AdaBoost.MH was at least as accurate as discrete AdaBoost.MH on "
            f"{'; on '.join(parts)}. The paper's finding that real AdaBoost.MH is at least as "
            f"accurate {_verdict(held_at, rounds)} here (a majority of data sets at "
            f"{'every' if all(held_at.values()) else 'some' if any(held_at.values()) else 'no'}"
            f" round count).")
        early, late = stats[first], stats[last]
        gap_early = early["mean_b"] - early["mean_a"]
        gap_late = late["mean_b"] - late["mean_a"]
        faster = 2 * early["a_lt_b"] > n and gap_early > 0
        sentence = (
            f"After {first} rounds real AdaBoost.MH had the lower test error on "
            f"{early['a_lt_b']} of {n} data sets (discrete on {early['b_lt_a']}), its mean "
            f"error {_points(abs(gap_early))} {'below' if gap_early >= 0 else 'above'} "
            f"discrete's; after {last} rounds {_gap_words(gap_late)}.")
        if curves is not None:
            reached = []
            for d in datasets:
                if (d, real) in curves and (d, disc) in curves:
                    target = np.asarray(curves[d, disc])[:last][-1]
                    reached.append(_rounds_to_reach(np.asarray(curves[d, real])[:last],
                                                    target))
            got = [r for r in reached if r is not None]
            if got:
                sentence += (
                    f" Real AdaBoost.MH reached discrete AdaBoost.MH's {last}-round test error "
                    f"on {len(got)} of {len(reached)} data sets, after a median of "
                    f"{int(np.median(got))} rounds.")
        sentence += (f" The paper's finding that real AdaBoost.MH learns faster "
                     f"{'held' if faster else 'did not hold'} here (judged by the majority "
                     f"of data sets at {first} rounds).")
        sentences.append(sentence)
    for a, b in PAIRS:
        if (a, b) == (real, disc) or not {a, b} <= present:
            continue
        stats = compare_pair(errors, datasets, a, b, rounds)
        parts = [f"{s['a_lt_b']} better, {s['b_lt_a']} worse of {s['n']} after {r} rounds "
                 f"(mean {_pct(s['mean_a'])} against {_pct(s['mean_b'])})"
                 for r, s in stats.items()]
        sentences.append(f"{names[a]} against {names[b]}: {'; '.join(parts)}.")
    if text and {real, disc} <= set(text):
        curve_r = np.asarray(text[real], dtype=float)
        curve_d = np.asarray(text[disc], dtype=float)
        points = [r for r in rounds if r <= max(curve_r.size, curve_d.size)]
        at = {r: (curve_r[min(r, curve_r.size) - 1], curve_d[min(r, curve_d.size) - 1])
              for r in points}
        parts = [f"{_pct(er)} against {_pct(ed)} after {r} rounds" for r, (er, ed) in at.items()]
        target = curve_d[-1]
        reach = _rounds_to_reach(curve_r, target)
        held = all(er <= ed for er, ed in at.values())
        sentence = f"On the text task real AdaBoost.MH's test error was {'; '.join(parts)}."
        if reach is not None:
            sentence += (f" It reached discrete AdaBoost.MH's final ({curve_d.size}-round) "
                         f"error after {reach} rounds ({curve_d.size / reach:.1f} times "
                         f"fewer).")
        sentence += (f" The paper's finding that real AdaBoost.MH learns faster on text "
                     f"{'held' if held else 'did not hold'} here (real at least as accurate "
                     f"at every round count: {'yes' if held else 'no'}).")
        sentences.append(sentence)
    if not sentences:
        sentences.append("Too few algorithms ran to compare them.")
    return sentences


# --------------------------------------------------------------------------- report


def _write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


RESULTS_HEADER = ("dataset", "algorithm", "rounds", "test_error", "train_loss", "bound",
                  "rounds_run", "n_train", "n_test", "n_features", "n_classes", "split",
                  "fit_seconds")


@dataclass
class Reproduction:
    """What ``reproduce`` did: where the files are and the numbers behind them."""

    out_dir: Path
    infos: list
    runs: dict
    skipped_datasets: dict
    skipped_algorithms: dict
    text: TextResult
    rounds: tuple
    sentences: list
    files: list
    seconds: float


def _error_table(infos, runs, algorithms, rounds):
    head = ["data set", "train", "test", "classes", "split"]
    head += [f"{ALGORITHMS[a].name.replace('AdaBoost.', '')} {r}"
             for a in algorithms for r in rounds]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for info in infos:
        cells = [info.name, str(info.n_train), str(info.n_test), str(info.n_classes),
                 _short_split(info.split)]
        for a in algorithms:
            for r in rounds:
                run = runs.get((info.name, a))
                cells.append(f"{100 * run.error_at(r):.1f}" if run else "–")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _write_report(path, reproduction, algorithms, data_dir, command, plots, notes):
    rp = reproduction
    lines = ["# Reproduction of Schapire & Singer (1999), §10", ""]
    lines += [f"Command: `{command}`  ", f"Data folder: `{data_dir}`  ",
              f"Round counts: {', '.join(map(str, rp.rounds))} (one fit of "
              f"{max(rp.rounds)} rounds per data set and algorithm; staged predictions give "
              f"the others)  ",
              f"Wall time: {rp.seconds:.0f} s on {platform.machine()} / Python "
              f"{platform.python_version()}", ""]
    lines += ["## Algorithms", "", "| key | algorithm | BoostClassifier parameters | status |",
              "|---|---|---|---|"]
    for key, algo in ALGORITHMS.items():
        status = ("ran" if key in algorithms
                  else f"skipped: {rp.skipped_algorithms.get(key, 'not requested')}")
        params = ", ".join(f"{k}={v!r}" for k, v in algo.params.items())
        lines.append(f"| {key} | {algo.name} ({algo.note}) | {params} | {status} |")
    lines += ["", "## Data sets", "",
              "| data set | train | test | features | classes | split |",
              "|---|---|---|---|---|---|"]
    for info in rp.infos:
        lines.append(f"| {info.name} | {info.n_train} | {info.n_test} | {info.n_features} | "
                     f"{info.n_classes} | {info.split} |")
    for name, reason in rp.skipped_datasets.items():
        lines.append(f"| {name} | – | – | – | – | skipped: {reason} |")
    lines += ["", "## Test error (%)", "",
              "Test error of H_1 (argmax_l f(x, l)) after each round count.", ""]
    lines += _error_table(rp.infos, rp.runs, algorithms, rp.rounds)
    lines += ["", "## Findings", "",
              "Generated from the numbers above (a finding holds when it is true on a "
              "majority of data sets).", ""]
    lines += [f"- {sentence}" for sentence in rp.sentences]
    lines += ["", "## Scatter plots", "",
              "One point per data set; below the diagonal the y-axis algorithm did better.", ""]
    for a, b in PAIRS:
        title = f"{ALGORITHMS[a].name} (x) against {ALGORITHMS[b].name} (y)"
        key = f"scatter_{a}_vs_{b}"
        if key in plots:
            lines += [f"### {title}", "", f"![{title}]({plots[key]})", ""]
        else:
            missing = [k for k in (a, b) if k not in algorithms]
            lines += [f"### {title}", "",
                      f"Skipped: {', '.join(missing)} not available in this build.", ""]
    lines += ["## Training curves: Π Z_t beside the training loss", "",
              "Solid: the training loss that each scheme's theorem bounds "
              "(`history_[\"train_loss\"]`: training error for AdaBoost.MH on single-label "
              "data, ranking loss for AdaBoost.MR); dashed: that bound from Π Z_t "
              "(`history_[\"bound\"]`); log-scale rounds.", ""]
    lines += [f"![training curves]({plots['training_curves']})" if "training_curves" in plots
              else "No runs.", ""]
    lines += ["## Test-error learning curves", ""]
    lines += [f"![learning curves]({plots['test_error_curves']})"
              if "test_error_curves" in plots else "No runs.", ""]
    lines += ["## Text task: Reuters-21578", ""]
    if rp.text.status == "ok":
        lines += [f"{rp.text.description}; {rp.text.n_classes} classes. Test error (%):", "",
                  "| algorithm | " + " | ".join(f"{r} rounds" for r in rp.rounds) + " |",
                  "|---|" + "---|" * len(rp.rounds)]
        for key, run in rp.text.runs.items():
            lines.append(f"| {ALGORITHMS[key].name} | "
                         + " | ".join(f"{100 * run.error_at(r):.1f}" for r in rp.rounds) + " |")
        lines += ["", f"![text learning curves]({plots['text_curves']})", ""]
    else:
        lines += [f"Skipped: {rp.text.message}", ""]
    if notes:
        lines += ["## Notes", ""] + [f"- {note}" for note in notes] + [""]
    lines += ["## Files", "", "- `results.csv`: every number of the tables (one row per data "
              "set, algorithm and round count, with training loss and bound)",
              "- `curves.csv`: test error, training loss and bound after every round",
              *(f"- `{name}`" for name in sorted(plots.values())), ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def reproduce(out_dir="reproduce-out", data_dir=BUNDLED, quick=False, datasets=None,
              rounds=None, n_jobs=None, text=True, stream=None, command="confboost reproduce"):
    """Run §10's comparison and write the report, tables and plots into ``out_dir``.

    Parameters
    ----------
    out_dir : str or Path
    data_dir : str, path or ``"bundled"``, default ``"bundled"``
        Where the UCI sets (and ``reuters21578/``) are read; sets not there are skipped.
    quick : bool
        ``ROUNDS_QUICK`` on ``DATASETS_QUICK`` instead of ``ROUNDS_FULL`` on
        ``DATASETS_FULL``.
    datasets : sequence of str, optional
        Overrides the data sets.
    rounds : sequence of int, optional
        Overrides the round counts.
    n_jobs : int or None
    text : bool
        Run the text task (it is skipped anyway while there is no text learner).
    stream : file or None
        Progress (default ``sys.stderr``).
    command : str
        Written into the report.

    Returns
    -------
    Reproduction
    """
    from confboost.plot import (
        require_matplotlib,
        scatter_comparison,
        test_error_curves,
        training_curves,
    )

    require_matplotlib()  # fail before the long part, not after it
    stream = sys.stderr if stream is None else stream
    started = time.perf_counter()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rounds = tuple(sorted(set(rounds or (ROUNDS_QUICK if quick else ROUNDS_FULL))))
    if not rounds or rounds[0] < 1:
        raise ValueError(f"round counts must be positive integers, got {rounds!r}")
    datasets = tuple(datasets or (DATASETS_QUICK if quick else DATASETS_FULL))

    algorithms, skipped_algorithms = [], {}
    for key in ALGORITHMS:
        ok, reason = algorithm_available(key)
        if ok:
            algorithms.append(key)
        else:
            skipped_algorithms[key] = reason
            print(f"{ALGORITHMS[key].name}: skipped, {reason}", file=stream, flush=True)

    infos, runs, skipped = run_comparison(datasets, algorithms, rounds, data_dir, n_jobs,
                                          stream)
    text_result = (text_experiment(data_dir, rounds, n_jobs, stream=stream) if text
                   else TextResult("skipped", "not requested (--no-text)"))

    errors = {(d, a, r): run.error_at(r) for (d, a), run in runs.items() for r in rounds}
    names = [info.name for info in infos]
    curves = {key: run.test_error for key, run in runs.items()}
    text_curves = ({key: run.test_error for key, run in text_result.runs.items()}
                   if text_result.status == "ok" else None)
    sentences = findings(errors, names, rounds, curves=curves, text=text_curves)

    # tables
    rows = []
    by_name = {info.name: info for info in infos}
    for (d, a), run in runs.items():
        info = by_name[d]
        for r in rounds:
            rows.append((d, a, r, run.error_at(r), run.at(run.train_loss, r),
                         run.at(run.bound, r), run.rounds_run, info.n_train, info.n_test,
                         info.n_features, info.n_classes, info.split,
                         round(run.fit_seconds, 3)))
    for a, run in text_result.runs.items():
        for r in rounds:
            rows.append((TEXT_DATASET, a, r, run.error_at(r), run.at(run.train_loss, r),
                         run.at(run.bound, r), run.rounds_run, text_result.n_train,
                         text_result.n_test, "", text_result.n_classes,
                         text_result.description, round(run.fit_seconds, 3)))
    _write_csv(out_dir / "results.csv", RESULTS_HEADER, rows)
    curve_rows = []
    for (d, a), run in [*runs.items(),
                        *(((TEXT_DATASET, a), run) for a, run in text_result.runs.items())]:
        for t in range(run.rounds_run):
            curve_rows.append((d, a, t + 1, run.test_error[t], run.train_loss[t],
                               run.bound[t]))
    _write_csv(out_dir / "curves.csv",
               ("dataset", "algorithm", "round", "test_error", "train_loss", "bound"),
               curve_rows)

    # plots
    plots = {}
    for a, b in PAIRS:
        if a in algorithms and b in algorithms and names:
            name = f"scatter_{a}_vs_{b}.png"
            scatter_comparison({r: [errors[d, a, r] for d in names] for r in rounds},
                               {r: [errors[d, b, r] for d in names] for r in rounds},
                               names, rounds, ALGORITHMS[a].name, ALGORITHMS[b].name,
                               out_dir / name)
            plots[f"scatter_{a}_vs_{b}"] = name
    if runs:
        training_curves({d: {ALGORITHMS[a].name: (runs[d, a].train_loss, runs[d, a].bound,
                                                  "ranking loss" if ALGORITHMS[a].params[
                                                      "scheme"] == "mr" else "training error")
                             for a in algorithms} for d in names},
                        out_dir / "training_curves.png",
                        title="Training loss (solid) and its bound Π Z_t (dashed)")
        plots["training_curves"] = "training_curves.png"
        test_error_curves({d: {ALGORITHMS[a].name: runs[d, a].test_error for a in algorithms}
                           for d in names}, out_dir / "test_error_curves.png",
                          title="Test error")
        plots["test_error_curves"] = "test_error_curves.png"
    if text_curves:
        test_error_curves({"Reuters-21578": {ALGORITHMS[a].name: c
                                             for a, c in text_curves.items()}},
                          out_dir / "text_curves.png")
        plots["text_curves"] = "text_curves.png"

    notes = [f"{d} / {a}: the loop stopped after {run.rounds_run} of {run.rounds_asked} "
             f"rounds (a weak hypothesis without edge); later round counts report the final "
             f"model." for (d, a), run in runs.items() if run.rounds_run < run.rounds_asked]
    reproduction = Reproduction(out_dir, infos, runs, skipped, skipped_algorithms,
                                text_result, rounds, sentences,
                                ["report.md", "results.csv", "curves.csv",
                                 *sorted(plots.values())], 0.0)
    reproduction.seconds = time.perf_counter() - started
    shown_dir = "bundled copies" if data_dir == BUNDLED else str(data_dir)
    _write_report(out_dir / "report.md", reproduction, algorithms, shown_dir, command, plots,
                  notes)
    print(f"wrote {out_dir / 'report.md'} ({reproduction.seconds:.0f} s)", file=stream,
          flush=True)
    return reproduction
