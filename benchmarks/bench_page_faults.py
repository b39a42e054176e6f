"""Minor page faults and CPU of the later fits in one process, after a calibrated or an
uncalibrated first fit.

Each process loads letter's training part (16,000 x 16, 26 classes), fits one
``BoostClassifier`` (``first``: the default, calibrated, or ``calibration=None``), then
``FITS`` default fits, and reads ``resource.getrusage`` around each of these: minor page
faults (``ru_minflt``), user and system CPU seconds. A fit whose large temporaries come
from fresh pages every round (the C library's allocator gives a large block back to the
system when it is freed and maps a new one on the next request) pays a fault per 4 KiB
page touched, and the system time of each; a fit that reuses its work spaces does not.

Each (first fit, source tree) pair runs in its own fresh process, ``--repeats`` times, the
pairs alternating (after one untimed process per tree, which fills its numba cache); a row
is the median over its processes of the median later fit.
``--before SRC`` adds the same processes on another source tree (another checkout's
``src``), for a before/after table. ``--n-jobs`` fixes the fits' threads (default: the
estimator's own choice).

Run alone: ``python benchmarks/bench_page_faults.py [--before SRC] [--repeats 3] [--fits 3]
[--n-jobs 2]``.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

FIRSTS = ("calibrated", "uncalibrated")


def _usage():
    """(minor faults, user s, system s) of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_minflt, usage.ru_utime, usage.ru_stime


def child(first, n_fits, n_jobs):
    """One process: the first fit, then ``n_fits`` default fits; per later fit its faults,
    CPU and system seconds, as JSON on stdout."""
    from confboost import BoostClassifier
    from confboost.datasets import load

    split = load("letter")
    X, y = split.X_train, split.y_train
    threads = {} if n_jobs is None else {"n_jobs": n_jobs}
    calibration = {} if first == "calibrated" else {"calibration": None}
    BoostClassifier(**calibration, **threads).fit(X, y)
    fits = []
    for _ in range(n_fits):
        faults, user, system = _usage()
        start = time.perf_counter()
        BoostClassifier(**threads).fit(X, y)
        wall = time.perf_counter() - start
        after_faults, after_user, after_system = _usage()
        fits.append({"faults": after_faults - faults, "system": after_system - system,
                     "cpu": after_user + after_system - user - system, "wall": wall})
    print(json.dumps(fits))


def fresh(first, n_fits, n_jobs, source=None):
    """``child`` in a fresh interpreter (``source``: confboost's package root)."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = str(source) + os.pathsep + env.get("PYTHONPATH", "")
    command = [sys.executable, __file__, "--child", first, "--fits", str(n_fits)]
    if n_jobs is not None:
        command += ["--n-jobs", str(n_jobs)]
    out = subprocess.run(command, env=env, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"the {first} process failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def table(before=None, repeats=3, n_fits=3, n_jobs=None):
    """The table's lines: per source tree and first fit, the median later fit's faults,
    CPU and system seconds (medians over ``repeats`` processes)."""
    sources = [("after", None)] + ([("before", Path(before).resolve())] if before else [])
    cells = {(name, first): [] for name, _ in sources for first in FIRSTS}
    for _, source in sources:  # untimed: each tree's numba cache filled, the data read
        fresh(FIRSTS[0], 1, n_jobs, source)
    loads = [os.getloadavg()[0]]
    for repeat in range(repeats):
        order = [(name, source, first) for name, source in sources for first in FIRSTS]
        for name, source, first in order[repeat % len(order):] + order[:repeat % len(order)]:
            fits = fresh(first, n_fits, n_jobs, source)
            cells[name, first].append({key: statistics.median(fit[key] for fit in fits)
                                       for key in fits[0]})
        loads.append(os.getloadavg()[0])
    lines = [f"letter train part, {n_fits} default fits after the first, "
             f"n_jobs={n_jobs}, {repeats} processes each, load {min(loads):.1f}-"
             f"{max(loads):.1f}",
             "| source | first fit | faults / later fit | CPU s | system s | wall s |",
             "|---|---|---|---|---|---|"]
    for (name, first), runs in cells.items():
        median = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
        lines.append(f"| {name} | {first} | {median['faults']:,.0f} | {median['cpu']:.2f} | "
                     f"{median['system']:.2f} | {median['wall']:.2f} |")
    return lines


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", choices=FIRSTS, help=argparse.SUPPRESS)
    parser.add_argument("--before", help="source tree to compare against (its src folder)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--fits", type=int, default=3, help="default fits after the first")
    parser.add_argument("--n-jobs", type=int, default=None)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.fits, args.n_jobs)
    else:
        print("\n".join(table(args.before, args.repeats, args.fits, args.n_jobs)))
