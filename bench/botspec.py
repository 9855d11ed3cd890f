"""A bot named on a command line, ``level:key=value,...``: the options' values.

Shared by ``strength.py`` and ``openspiel_bridge.py`` (which
``strength.py`` loads for the OpenSpiel bots), so neither imports the other
for it.
"""

from __future__ import annotations


def option_value(text: str) -> int | float | str:
    """A bot option's value from the command line: a number if it reads as one."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
