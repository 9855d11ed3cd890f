"""How much room the full-screen table needs, so that nothing is cut.

The app has two layouts: the full one (the players' table with each bot's
level, the log on the right, cards six columns wide) and a compact one for
small windows (no levels, the log behind the ``l`` key, narrower cards and
bid buttons). ``fitting_layout`` picks the full one when the window holds it,
else the compact one, else none: the app then shows a notice asking for a
larger window instead of cutting names, cards and numbers short.

The sizes are counted from what will be drawn: the largest hand of the
match (cards and bid buttons), the players' names, the number of players.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rich.text import Text

from ... import Rules

FULL: Final = "full"
COMPACT: Final = "compact"

FIXED_ROWS: Final = {"full": 12, "compact": 10}
"""Rows besides the players' table: title 1, status 3, choices (3, or 1 in the
compact layout), hand 4, footer 1."""

SPARE_ROWS: Final = {"full": 2, "compact": 1}
"""Rows for a status that wraps (a long refusal or hint, in a narrow window)."""

LOG_WIDTH: Final = 24
"""The log's least width in the full layout, its border included."""

PLAYERS_PADDING: Final = 1
"""The players' table's left padding (style: ``#players``); none on the right,
where the table's last cell has its own."""


@dataclass(frozen=True, slots=True)
class Need:
    """The least window, in columns and rows, a layout needs."""

    width: int
    height: int

    def fits(self, width: int, height: int) -> bool:
        return width >= self.width and height >= self.height


def card_width(layout: str) -> int:
    return 5 if layout == COMPACT else 6


def chip_width(label: str, layout: str) -> int:
    """A bid button: its label, and padding and a frame (full) or a margin (compact)."""
    return len(label) + (3 if layout == COMPACT else 4)


def player_label_width(names: Sequence[str], kinds: Sequence[str], layout: str) -> int:
    """The widest entry of the Player column: the name, the level in the full
    layout, the dealer's ``D``."""
    return max(
        len(name) + (len(f" ({kind})") if layout == FULL and kind != "human" else 0) + 2
        for name, kind in zip(names, kinds, strict=True)
    )


def table_width(rules: Rules, names: Sequence[str], kinds: Sequence[str], layout: str) -> int:
    # The columns of widgets.players_table, each with a cell's padding of 1 a side:
    # marker, Player, Bid, Took, Score, Table ("10♥ wins"), and Holds or Team when shown.
    extra = (10 if rules.devils_bridge else 0) + (6 if rules.teams is not None else 0)
    return 3 + player_label_width(names, kinds, layout) + 2 + 5 + 6 + 7 + 10 + extra


def need(rules: Rules, names: Sequence[str], kinds: Sequence[str], layout: str) -> Need:
    """The least window for ``layout``: every card of the largest hand, every bid
    button, the players' table whole (and the log in the full layout)."""
    top = max(rules.schedule)
    cards = card_width(layout) * top + 2
    # The hook's bid is marked "N hook": 5 columns more; the row's label "Bid" 4.
    chips = sum(chip_width(str(b), layout) for b in range(top + 1)) + 5 + 4 + 2
    middle = table_width(rules, names, kinds, layout) + PLAYERS_PADDING + (LOG_WIDTH if layout == FULL else 0)
    width = max(cards, chips, middle, 40)
    height = FIXED_ROWS[layout] + rules.players + 1 + SPARE_ROWS[layout]
    return Need(width, height)


def fitting_layout(
    rules: Rules, names: Sequence[str], kinds: Sequence[str], width: int, height: int
) -> str | None:
    """``full``, ``compact``, or None when even the compact layout does not fit."""
    for layout in (FULL, COMPACT):
        if need(rules, names, kinds, layout).fits(width, height):
            return layout
    return None


def too_small_words(least: Need, width: int, height: int) -> Text:
    """The notice shown in place of a table the window cannot hold."""
    short = []
    if width < least.width:
        short.append(f"{least.width} columns")
    if height < least.height:
        short.append(f"{least.height} rows")
    return Text.assemble(
        ("Make the window larger.\n\n", "bold"),
        f"This window is {width} columns by {height} rows; the table needs at least "
        f"{' and '.join(short)} to show every card, name and score.\n\n",
        (
            "The match is saved: q quits, ohhell play --resume goes on, and "
            "ohhell play --plain --resume plays it in lines of text.",
            "dim",
        ),
    )
