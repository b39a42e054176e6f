"""The ``confboost`` command line, thin over the library: ``main`` is its entry point."""

from confboost.cli.app import main

__all__ = ["main"]
