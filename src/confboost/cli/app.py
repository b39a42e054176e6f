"""The ``confboost`` command line, thin over the library.

Commands: ``demo`` (the main job of ``make run``); ``reproduce`` (the paper's §10
experiments, written as a report); ``show`` (a model's rounds as rules); ``compile`` (the
kernels the default fits run, into numba's cache, ahead of the first fit); ``train``,
``test``, ``classify``, ``export-shyp``, ``import-shyp`` (BoosTexter / icsiboost files,
``boostexter_commands.py``). Every command has
``--help``; bad arguments or files end with exit status 2 and a one-line message.
"""

import argparse
import gc
import os
import sys

from confboost.cli.version import VersionAction


def _demo(arguments):
    from confboost.experiments.demo import run_demo

    run_demo(dataset=arguments.dataset, n_rounds=arguments.rounds,
             confidence=arguments.confidence, data_dir=arguments.data)
    return 0


def _comma_list(text):
    return [part.strip() for part in text.split(",") if part.strip()]


def _round_list(text):
    try:
        rounds = [int(part) for part in _comma_list(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a comma-separated list of integers: {text!r}") from None
    if not rounds or min(rounds) < 1:
        raise argparse.ArgumentTypeError(f"round counts must be positive: {text!r}")
    return rounds


def _reproduce(arguments):
    import shlex

    from confboost.datasets import BUNDLED
    from confboost.experiments.reproduce import reproduce

    command = "confboost reproduce " + shlex.join(arguments.raw_argv)
    reproduce(out_dir=arguments.out, data_dir=arguments.data or BUNDLED,
              quick=arguments.quick, datasets=arguments.datasets, rounds=arguments.rounds,
              n_jobs=arguments.jobs, text=not arguments.no_text, command=command.strip(),
              figure_format=arguments.format, dpi=arguments.dpi)
    return 0


def _show(arguments):
    from pathlib import Path

    from confboost.estimators.booster import Booster
    from confboost.explain.rules import rules_text
    from confboost.formats.model_json import read_model

    if not Path(arguments.model).exists():
        raise FileNotFoundError(f"{arguments.model}: no such model file")
    # read as a Booster: every field checked, no scikit-learn imported
    estimator, document = read_model(arguments.model, Booster)
    # a BoosTexter model names its classes beside the labels' indices
    classes = document.get("boostexter", {}).get("classes")
    print(rules_text(estimator, top=arguments.top, first=arguments.rounds,
                     class_names=classes), end="")
    return 0


def _compile(arguments):
    from confboost.estimators.compile_kernels import compile_kernels

    def progress(name, n_jobs, seconds):
        threads = "one thread" if n_jobs == 1 else "all threads"
        print(f"{name}, {threads}: {seconds:.1f} s", flush=True)

    seconds = compile_kernels(progress, arguments.processes)
    print(f"compiled the default fits' kernels in {seconds:.1f} s")
    return 0


class _OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser():
    """The argument parser of every command."""
    parser = _OneLineParser(
        prog="confboost", description="Boosting with confidence-rated predictions.")
    parser.add_argument("--version", action=VersionAction)
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="boost on a bundled data set and print the bound "
                                            "at work (the job of `make run`)")
    demo.add_argument("--dataset", default="breast-cancer-wisconsin",
                      help="data set name (default: %(default)s)")
    demo.add_argument("--rounds", type=int, default=200, help="boosting rounds")
    demo.add_argument("--confidence", default="real",
                      choices=["real", "discrete", "abstain", "real-abstain"])
    demo.add_argument("--data", default=None, help="data folder (default: bundled copies)")
    demo.set_defaults(handler=_demo)

    from confboost.cli.icsiboost_flags import positive_int

    reproduce = commands.add_parser(
        "reproduce", help="run the paper's experiments (§10) and write a report with tables "
                          "and plots")
    reproduce.add_argument("--quick", action="store_true",
                           help="10 and 100 rounds on the smaller sets (a few minutes)")
    reproduce.add_argument("--out", default="reproduce-out",
                           help="output folder (default: %(default)s)")
    reproduce.add_argument("--data", default=None,
                           help="data folder with one sub-folder per set (default: the copies "
                                "bundled with confboost; sets not there are skipped)")
    reproduce.add_argument("--datasets", type=_comma_list, default=None,
                           help="comma-separated data set names (default: all of the run)")
    reproduce.add_argument("--rounds", type=_round_list, default=None,
                           help="comma-separated round counts (default: 10,100,1000; "
                                "--quick: 10,100)")
    reproduce.add_argument("--jobs", type=int, default=None,
                           help="threads per fit (default: all cores)")
    reproduce.add_argument("--no-text", action="store_true", help="leave out the text task")
    reproduce.add_argument("--format", default="png", choices=["png", "pdf", "svg"],
                           help="the figures' file format (default: %(default)s)")
    reproduce.add_argument("--dpi", type=positive_int, default=200,
                           help="a PNG figure's pixels per inch (default: %(default)s)")
    reproduce.set_defaults(handler=_reproduce)

    show = commands.add_parser(
        "show", help="print a model's rounds as rules",
        description="Print each round of a saved model as a rule with column and class "
                    "names, its outputs multiplied by alpha (what the round adds to f).")
    show.add_argument("-m", "--model", required=True, help="model file (JSON)")
    show.add_argument("-n", dest="rounds", type=positive_int, metavar="N",
                      help="only the first N rounds")
    show.add_argument("--top", type=positive_int, metavar="N",
                      help="only the N rounds of least Z_t, largest bound decrease first")
    show.set_defaults(handler=_show)

    compile_kernels = commands.add_parser(
        "compile", help="compile the kernels the default fits run, ahead of the first fit",
        description="Fit the default estimator on small synthetic sets of each shape a "
                    "default fit grows, on one thread and on all, so that numba's cache "
                    "(beside the installed package, or NUMBA_CACHE_DIR) holds their kernels: "
                    "a later first fit loads them instead of compiling. Run it once after "
                    "an install (a container image, a CI job). The fits run in worker "
                    "processes, one per core, each filling the cache.")
    compile_kernels.add_argument("--processes", type=positive_int, metavar="N",
                                 help="worker processes (default: one per core; 1: every "
                                      "fit in this process)")
    compile_kernels.set_defaults(handler=_compile)

    from confboost.cli.boostexter_commands import add_commands
    from confboost.engine.schemes import SCHEMES

    # BoosTexter files give every example a label set; AdaBoost.MO takes them when each
    # example has exactly one (``train_command._one_class_each``).
    add_commands(commands, SCHEMES)
    return parser


def main(argv=None):
    """Entry point of the ``confboost`` script; returns the exit status.

    A reader that closes the output early (``confboost classify ... | head -1``) ends the
    command quietly with status 141 (128 + SIGPIPE, what a shell reports for ``yes | head``):
    no traceback and no ``[Errno 32] Broken pipe``.
    """
    try:
        status = _run(argv)
        sys.stdout.flush()  # what is still buffered meets a closed pipe here, not at exit
        return status
    except BrokenPipeError:
        return _closed_pipe()


def command_line():
    """The ``confboost`` script (and ``python -m confboost.cli``): ``main()`` in a process
    that ends when it returns; its exit status.

    The process is the command's alone, so it may tune Python's cyclic garbage collector,
    which ``main`` (called from other programs and tests) never touches. The collector is
    off while the command imports its modules and numba (they make no cyclic garbage, and
    each full collection would walk every object imported so far); once numba and its
    registries are loaded (``lazy_numba.on_load``), what exists is frozen (out of later
    collections' reach) and the collector runs again. At the end everything is frozen, so
    the interpreter's exit does not walk numba's hundred thousand objects. A command that
    never calls a kernel (scoring a few lines with the NumPy twins) runs with the collector
    off: it is short and its garbage is freed by reference counting.
    """
    from confboost.utils.lazy_numba import cancel_on_load, load_registries, on_load

    def collect_again(numba):
        load_registries(numba)
        gc.freeze()
        gc.enable()

    enabled = gc.isenabled()
    gc.disable()
    on_load(collect_again)
    try:
        return main()
    finally:
        cancel_on_load(collect_again)
        gc.freeze()
        if enabled:
            gc.enable()


def _closed_pipe():
    """Point stdout at /dev/null, so that the interpreter's last flush at exit finds no
    closed pipe either; return 141."""
    try:
        output = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # no file (a test's capture): no flush
        return 141
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, output)
    finally:
        os.close(devnull)
    return 141


def _run(argv):
    parser = build_parser()
    arguments = parser.parse_args(argv)
    raw = list(sys.argv[1:] if argv is None else argv)
    arguments.raw_argv = raw[1:] if raw[:1] == [arguments.command] else raw
    try:
        return arguments.handler(arguments)
    except BrokenPipeError:
        raise
    except (ValueError, OSError, ImportError) as error:
        message = " ".join(str(error).split())  # one line, whatever the message holds
        print(f"confboost {arguments.command}: error: {message}", file=sys.stderr)
        return 2
