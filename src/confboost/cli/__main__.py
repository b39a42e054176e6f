"""``python -m confboost.cli``: the ``confboost`` command."""

import sys

from confboost.cli.app import main

sys.exit(main())
