"""Every benchmark, one table: ``make bench`` (or ``python benchmarks/run_all.py``).

Writes the table to ``benchmarks/results.md`` as well, keeping what follows ``KEPT``.
BENCH_THREADS (default 2) and BENCH_REPEATS (default 5) set the threads and the repeats of
each timing (medians);
BENCH_SKIP_SKLEARN_1M=1 leaves out the slowest run. This process imports no library it
times: every library runs in fresh processes of its own (``common.fresh``), since libraries
in one process share its OpenMP runtime and its settings. Finishes in well under 15 minutes
on 2 quiet cores.
"""

import platform
import sys
import time
from pathlib import Path

import bench_binning
import bench_busy
import bench_dask
import bench_defaults
import bench_kernel_load
import bench_layers
import bench_neighbours
import bench_rounds
import bench_startup
import bench_trees
import common

#: results.md from this line on is written by other commands and kept as it is.
KEPT = "<!-- Not written by make bench: kept as it is. -->"


def fmt(seconds):
    return f"{seconds * 1e3:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main():
    started = time.perf_counter()
    lines = [f"Median of {common.REPEATS} runs (scikit-learn: fewer rounds/runs, see its "
             f"column), {common.THREADS} threads, {platform.processor() or platform.machine()}"
             f", Python {sys.version.split()[0]}. Seconds per round exclude data preparation. "
             "acc = test accuracy after the same rounds (scikit-learn: after its own rounds).",
             "",
             "| task | rounds | confboost s/round (acc) | LightGBM s/round (acc, config) | "
             "XGBoost s/round (acc) | scikit-learn s/round (rounds, acc) | confboost / LightGBM "
             "| confboost / XGBoost | scikit-learn / confboost | ns per example·feature·round |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    sizes = {"binary 10k x 50": 10_000 * 50, "binary 100k x 50": 100_000 * 50,
             "binary 1M x 50": 1_000_000 * 50, "10 classes 100k x 50": 100_000 * 50,
             "fashion-mnist 60k x 784 (10 cl.)": 60_000 * 784,
             "skin-segmentation 196k x 3": 196_045 * 3}
    for task in bench_rounds.TASKS:
        row = bench_rounds.run(task)
        cb, lg, xg, sk = row["confboost"], row["lightgbm"], row["xgboost"], row["sklearn"]
        line = (f"| {task} | {row['rounds']} | {fmt(cb[0])} ({cb[1]:.4f}) | {fmt(lg[0])} "
                f"({lg[1]:.4f}, {row['lightgbm_cfg']}; other: {fmt(row['lightgbm_other'][0])}, "
                f"{row['lightgbm_other'][1]:.4f}) | {fmt(xg[0])} ({xg[1]:.4f}) | {fmt(sk[0])} "
                f"({row['sk_rounds']}, {sk[1]:.4f}) | {cb[0] / lg[0]:.2f} | {cb[0] / xg[0]:.2f} "
                f"| {sk[0] / cb[0]:.0f}× | {cb[0] / sizes[task] * 1e9:.2f} |")
        lines.append(line)
        print(line, flush=True)
    binning = bench_binning.run()
    extra = ["", "| other | confboost | LightGBM | XGBoost | ratio |", "|---|---|---|---|---|",
             f"| binning 1M x 50 (s) | {binning['confboost']:.2f} | {binning['lightgbm']:.2f} | "
             f"{binning['xgboost']:.2f} | {binning['confboost'] / binning['lightgbm']:.2f} of "
             "LightGBM |"]
    predict = common.fresh("bench_predict", "run")
    extra.append(f"| predict, {predict['stumps']} stumps, 1M x 50 (rows/s) | "
                 f"{predict['rows_per_s']:.3g} | | | |")
    startup = bench_startup.run(cold=False)
    extra.append(f"| start-up: import + first fits, warm numba cache (s) | "
                 f"{startup['warm_in_process']:.2f} (whole process "
                 f"{startup['warm_process']:.2f}; CPU {startup['warm_cpu']:.2f}) | | | |")
    extra.append(f"| `import confboost` (s) | {startup['import']:.3f} | | | |")
    if startup["train_satimage_100"]:
        wall, cpu = startup["train_satimage_100"]
        extra.append(f"| `confboost train -S satimage -n 100`, warm cache (s wall; CPU; load "
                     f"{startup['load']:.1f}) | {wall:.2f}; {cpu:.2f} | | | |")
        wall, cpu, megabytes = startup["classify_40"]
        extra.append(f"| `confboost classify` of 40 satimage lines with that model (s wall; "
                     f"CPU; peak MB) | {wall:.2f}; {cpu:.2f}; {megabytes:.0f} | | | |")
    trim = common.fresh("bench_trim", "run")
    for beta, (seconds, accuracy, kept) in trim.items():
        extra.append(f"| binary 1M x 50, trim={beta} (s/round, acc, examples read) | "
                     f"{fmt(seconds)}, {accuracy:.4f}, {kept:.0%} | | | |")
    for name, row in common.fresh("bench_dask", "run").items():
        seconds, whole, accuracy, overhead, _, _, _, cpu_overhead = row
        extra.append(f"| Dask, binary {bench_dask.ROWS:,} x 50, {bench_dask.ROUNDS} rounds, "
                     f"{name} (s/round, whole fit s, acc, overhead share of the wall, of the "
                     f"CPU) | {fmt(seconds)}, {whole:.2f}, {accuracy:.4f}, {overhead:.0%}, "
                     f"{cpu_overhead:.0%} | | | |")
    extra += ["", "## The first fits of a fresh process (`benchmarks/bench_kernel_load.py`)", ""]
    extra += bench_kernel_load.table(bench_kernel_load.run())
    extra += ["", "## Other libraries after confboost in one process "
              "(`benchmarks/bench_neighbours.py`)", ""]
    extra += bench_neighbours.table(bench_neighbours.run())
    extra += ["", "## Threads on a busy machine (`benchmarks/bench_busy.py`)", ""]
    extra += bench_busy.table(bench_busy.run())
    extra += ["", "## 16-leaf trees against LightGBM, each in a fresh process, seconds per "
              f"round, median of {bench_trees.REPEATS} runs (`benchmarks/bench_trees.py`)", ""]
    extra += bench_trees.table(alternations=1)
    extra += ["", "## Default against default, each library in a fresh process "
              "(`benchmarks/bench_defaults.py`)", ""]
    extra += bench_defaults.table(bench_defaults.run())
    extra += ["", "### numba's threading layers (`benchmarks/bench_layers.py`)", ""]
    extra += bench_layers.table(bench_layers.run())
    extra.append("")
    extra.append(f"Total benchmark time {time.perf_counter() - started:.0f} s.")
    print("\n".join(extra), flush=True)
    lines += extra
    out = Path(__file__).with_name("results.md")
    kept = out.read_text().partition(KEPT)[1:] if out.exists() else ("", "")
    out.write_text("# Benchmark results (`make bench`)\n\n" + "\n".join(lines) + "\n"
                   + "".join(kept))


if __name__ == "__main__":
    main()
