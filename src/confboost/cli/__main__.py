"""``python -m confboost.cli``: the ``confboost`` command."""

import sys

from confboost.cli.app import command_line

sys.exit(command_line())
