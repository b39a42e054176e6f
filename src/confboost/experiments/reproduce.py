"""The paper's experiments (§10) as one run that writes a report: ``confboost reproduce``.

This module owns the order of the job: check the algorithms this build has, run the UCI
comparison and the text task (``runs.py``), then write the findings, tables, plots and
``report.md`` (``report.py``) into one folder.
"""

import sys
import time
from pathlib import Path

from confboost.datasets import BUNDLED
from confboost.experiments.report import (
    Reproduction,
    findings,
    write_plots,
    write_report,
    write_tables,
)
from confboost.experiments.runs import (
    ALGORITHMS,
    DATASETS_FULL,
    DATASETS_QUICK,
    ROUNDS_FULL,
    ROUNDS_QUICK,
    TextResult,
    algorithm_available,
    run_comparison,
    text_experiment,
)

__all__ = ["reproduce"]


def reproduce(out_dir="reproduce-out", data_dir=BUNDLED, quick=False, datasets=None,
              rounds=None, n_jobs=None, text=True, stream=None, command="confboost reproduce",
              figure_format="png", dpi=200):
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
        Run the text task (skipped, saying why, when Reuters-21578 is not found).
    stream : file or None
        Progress (default ``sys.stderr``).
    command : str
        Written into the report.
    figure_format : {"png", "pdf", "svg"}, default="png"
        The figures' file format.
    dpi : int, default=200
        A PNG figure's pixels per inch.

    Returns
    -------
    Reproduction
    """
    from confboost.plot import require_matplotlib
    from confboost.plot.reports import FORMATS

    require_matplotlib()  # fail before the long part, not after it
    if figure_format not in FORMATS:
        raise ValueError(f"figure format {figure_format!r}: must be one of {', '.join(FORMATS)}")
    if dpi < 10 or dpi > 2400:
        raise ValueError(f"dpi {dpi}: must lie in 10..2400")
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
    write_tables(out_dir, infos, runs, text_result, rounds)
    plots = write_plots(out_dir, runs, names, algorithms, rounds, text_curves,
                        figure_format, dpi)

    notes = [f"{d} / {a}: the loop stopped after {run.rounds_run} of {run.rounds_asked} "
             f"rounds (a weak hypothesis without edge); later round counts report the final "
             f"model." for (d, a), run in runs.items() if run.rounds_run < run.rounds_asked]
    reproduction = Reproduction(out_dir, infos, runs, skipped, skipped_algorithms,
                                text_result, rounds, sentences,
                                ["report.md", "results.csv", "curves.csv",
                                 *sorted(plots.values())], 0.0)
    reproduction.seconds = time.perf_counter() - started
    shown_dir = "bundled copies" if data_dir == BUNDLED else str(data_dir)
    write_report(out_dir / "report.md", reproduction, algorithms, shown_dir, command, plots,
                 notes)
    print(f"wrote {out_dir / 'report.md'} ({reproduction.seconds:.0f} s)", file=stream,
          flush=True)
    return reproduction
