"""The ``confboost`` command line, thin over the library: ``main`` runs a command and returns
its status; ``command_line`` is the script's entry point (``main`` in a process of its own)."""

from confboost.cli.app import command_line, main

__all__ = ["command_line", "main"]
