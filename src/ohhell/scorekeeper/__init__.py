"""The scorekeeper: the score sheet of a game played with real cards.

``model`` holds the sheet (``ScoreGame``: the entries are the truth, the rest is
recomputed with the core's plan of a hand and its scoring), ``text`` the
line-by-line keeper of ``ohhell score``, ``pdf`` the printable sheet of
``ohhell scoresheet`` and ``words`` a sheet's title in plain words.
"""

from .hands import HandEntry, HandView, ScoreError, parse_trump
from .model import KEEP, ScoreGame, check_players
from .pdf import PAPERS, SheetError, SheetRow, blank_game, render, sheet_rows
from .text import Keeper, ask, chart_text, load_sheet, save_sheet, sheet_text, standings_text

__all__ = [
    "KEEP",
    "PAPERS",
    "HandEntry",
    "HandView",
    "Keeper",
    "ScoreError",
    "ScoreGame",
    "SheetError",
    "SheetRow",
    "ask",
    "blank_game",
    "chart_text",
    "check_players",
    "load_sheet",
    "parse_trump",
    "render",
    "save_sheet",
    "sheet_rows",
    "sheet_text",
    "standings_text",
]
