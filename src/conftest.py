"""Doctest collection of the package: skip the terminal app when Textual (the
``tui`` extra) is not installed, instead of failing to import it."""

import importlib.util

collect_ignore = [] if importlib.util.find_spec("textual") else ["ohhell/tui"]
