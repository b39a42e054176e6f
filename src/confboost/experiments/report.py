"""The report of the §10 comparison: findings in words, tables, plots and ``report.md``.

This module owns turning the runs of ``runs.py`` into what a reader sees: ``findings``
(the paper's qualitative claims, checked against the numbers, as sentences),
``results.csv`` and ``curves.csv`` (every number), the scatter plots and curves (through
``confboost.plot``) and ``report.md``.  It fits nothing.
"""

import csv
import platform
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from confboost.experiments.runs import ALGORITHMS, PAIRS, TEXT_DATASET, TextResult, short_split

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
                 short_split(info.split)]
        for a in algorithms:
            for r in rounds:
                run = runs.get((info.name, a))
                cells.append(f"{100 * run.error_at(r):.1f}" if run else "–")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _image(title, name):
    """A figure in the report: shown inline (PNG, SVG), or linked (a PDF, which Markdown
    viewers do not show inline)."""
    return f"[{title} (PDF)]({name})" if name.endswith(".pdf") else f"![{title}]({name})"


def write_report(path, reproduction, algorithms, data_dir, command, plots, notes):
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
            lines += [f"### {title}", "", _image(title, plots[key]), ""]
        else:
            missing = [k for k in (a, b) if k not in algorithms]
            lines += [f"### {title}", "",
                      f"Skipped: {', '.join(missing)} not available in this build.", ""]
    lines += ["## Training curves: Π Z_t beside the training loss", "",
              "Solid: the training loss that each scheme's theorem bounds "
              "(`history_[\"train_loss\"]`: training error for AdaBoost.MH on single-label "
              "data, ranking loss for AdaBoost.MR); dashed: that bound from Π Z_t "
              "(`history_[\"bound\"]`); log-scale rounds.", ""]
    lines += [_image("training curves", plots['training_curves']) if "training_curves" in plots
              else "No runs.", ""]
    lines += ["## Test-error learning curves", ""]
    lines += [_image("learning curves", plots['test_error_curves'])
              if "test_error_curves" in plots else "No runs.", ""]
    lines += ["## Text task: Reuters-21578", ""]
    if rp.text.status == "ok":
        lines += [f"{rp.text.description}; {rp.text.n_classes} classes. Test error (%):", "",
                  "| algorithm | " + " | ".join(f"{r} rounds" for r in rp.rounds) + " |",
                  "|---|" + "---|" * len(rp.rounds)]
        for key, run in rp.text.runs.items():
            lines.append(f"| {ALGORITHMS[key].name} | "
                         + " | ".join(f"{100 * run.error_at(r):.1f}" for r in rp.rounds) + " |")
        lines += ["", _image("text learning curves", plots['text_curves']), ""]
    else:
        lines += [f"Skipped: {rp.text.message}", ""]
    if notes:
        lines += ["## Notes", ""] + [f"- {note}" for note in notes] + [""]
    lines += ["## Files", "", "- `results.csv`: every number of the tables (one row per data "
              "set, algorithm and round count, with training loss and bound)",
              "- `curves.csv`: test error, training loss and bound after every round",
              *(f"- `{name}`" for name in sorted(plots.values())), ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def write_tables(out_dir, infos, runs, text_result, rounds):
    """Write ``results.csv`` (one row per data set, algorithm and round count) and
    ``curves.csv`` (one row per round) into ``out_dir``.

    Parameters
    ----------
    out_dir : Path
    infos : list of runs.DatasetInfo
    runs : dict of (str, str) to runs.Run
    text_result : runs.TextResult
    rounds : sequence of int
    """
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


def write_plots(out_dir, runs, names, algorithms, rounds, text_curves, fmt="png", dpi=200):
    """Draw the scatter plots and curves into ``out_dir``; return key -> file name.

    Parameters
    ----------
    out_dir : Path
    runs : dict of (str, str) to runs.Run
    names : list of str
        The data sets that loaded, in order.
    algorithms : list of str
        The algorithms that ran.
    rounds : sequence of int
    text_curves : dict of str to ndarray, or None
        Algorithm -> test error per round on the text task.
    fmt : {"png", "pdf", "svg"}, default="png"
        The figures' file format (``figures.FORMATS``).
    dpi : int, default=200
        A PNG's pixels per inch.

    Returns
    -------
    dict of str to str
    """
    from confboost.plot.reports import (
        scatter_comparison,
        test_error_curves,
        training_curves,
    )

    errors = {(d, a, r): run.error_at(r) for (d, a), run in runs.items() for r in rounds}
    plots = {}
    for a, b in PAIRS:
        if a in algorithms and b in algorithms and names:
            name = f"scatter_{a}_vs_{b}.{fmt}"
            scatter_comparison({r: [errors[d, a, r] for d in names] for r in rounds},
                               {r: [errors[d, b, r] for d in names] for r in rounds},
                               names, rounds, ALGORITHMS[a].name, ALGORITHMS[b].name,
                               out_dir / name, dpi=dpi)
            plots[f"scatter_{a}_vs_{b}"] = name
    if runs:
        training_curves({d: {ALGORITHMS[a].name: (runs[d, a].train_loss, runs[d, a].bound,
                                                  "ranking loss" if ALGORITHMS[a].params[
                                                      "scheme"] == "mr" else "training error")
                             for a in algorithms} for d in names},
                        out_dir / f"training_curves.{fmt}",
                        title="Training loss (solid) and its bound Π Z_t (dashed)", dpi=dpi)
        plots["training_curves"] = f"training_curves.{fmt}"
        test_error_curves({d: {ALGORITHMS[a].name: runs[d, a].test_error for a in algorithms}
                           for d in names}, out_dir / f"test_error_curves.{fmt}",
                          title="Test error", dpi=dpi)
        plots["test_error_curves"] = f"test_error_curves.{fmt}"
    if text_curves:
        test_error_curves({"Reuters-21578": {ALGORITHMS[a].name: c
                                             for a, c in text_curves.items()}},
                          out_dir / f"text_curves.{fmt}", dpi=dpi)
        plots["text_curves"] = f"text_curves.{fmt}"
    return plots
