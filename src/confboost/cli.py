"""The ``confboost`` command line, thin over the library.

Commands: ``demo`` (the main job of ``make run``); ``train``, ``test``, ``classify``,
``export-shyp``, ``import-shyp`` (BoosTexter / icsiboost files, ``cli_boostexter.py``). Every
command has ``--help``; bad arguments or files end with exit status 2 and a one-line message.
"""

import argparse
import sys


def _demo(arguments):
    from confboost.experiments.demo import run_demo

    run_demo(dataset=arguments.dataset, n_rounds=arguments.rounds,
             confidence=arguments.confidence, data_dir=arguments.data)
    return 0


class _OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser():
    """The argument parser of every command."""
    parser = _OneLineParser(
        prog="confboost", description="Boosting with confidence-rated predictions.")
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
    from confboost.cli_boostexter import add_commands
    from confboost.estimators import SCHEMES

    add_commands(commands, SCHEMES)
    return parser


def main(argv=None):
    """Entry point of the ``confboost`` script; returns the exit status."""
    parser = build_parser()
    arguments = parser.parse_args(argv)
    try:
        return arguments.handler(arguments)
    except (ValueError, OSError) as error:
        message = " ".join(str(error).split())  # one line, whatever the message holds
        print(f"confboost {arguments.command}: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
