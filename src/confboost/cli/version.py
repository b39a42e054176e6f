"""``--version`` of every ``confboost`` command: the package's version (``confboost.__version__``,
the one place it is written; the wheel's metadata is read from it)."""

import argparse


class VersionAction(argparse.Action):
    """``--version``: print ``confboost X.Y.Z`` and exit 0, whatever else the line holds."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, **kwargs):
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from confboost import __version__

        print(f"confboost {__version__}")
        parser.exit()
