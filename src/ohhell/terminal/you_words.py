"""The standings as the terminal says them to the person playing: "you".

``score_words`` words the standings for anyone (a record, the scorekeeper):
every player by name. In ``ohhell play`` one of them is the reader, who is
"you" there, whatever name they gave: *You win.*, not *Winner: Ann.*. The
lines are worded with a mark in place of that name, then the mark is said
as "you" (and in the list of places as the name, with "(you)").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .. import Observation, Play, Rules, Standing
from ..describe import card_words
from ..score_words import standings_lines, tie_break_lines

_MARK = "\x00"


def _marked(names: Sequence[str], you: int) -> list[str]:
    return [_MARK if seat == you else name for seat, name in enumerate(names)]


def _for_you(line: str, name: str) -> str:
    place = re.fullmatch(r"(\d+\. )(.*)", line)
    if place:  # "1. Ann (you): 52 points"
        own = "You" if name == "You" else f"{name} (you)"
        return place.group(1) + place.group(2).replace(_MARK, own)
    winner = re.fullmatch(r"Winner: (.*)\.", line)
    if winner and _MARK in winner.group(1):
        line = f"{winner.group(1)} win."
    line = line.replace(f"{_MARK} wins ", f"{_MARK} win ")
    if line.startswith(_MARK):
        line = "You" + line[1:]
    return line.replace(_MARK, "you")


def standings_for_you(rules: Rules, obs: Observation, names: Sequence[str], you: int) -> list[str]:
    """``score_words.standings_lines`` with the reader (seat ``you``) as "you"."""
    return [_for_you(line, names[you]) for line in standings_lines(rules, obs, _marked(names, you))]


def tie_break_for_you(
    rules: Rules, obs: Observation, names: Sequence[str], you: int, table: list[Standing]
) -> list[str]:
    """``score_words.tie_break_lines`` with the reader (seat ``you``) as "you"."""
    return [_for_you(line, names[you]) for line in tie_break_lines(rules, obs, _marked(names, you), table)]


def forced_words(play: Play) -> str:
    """What is said when the only card the person may play is played for them."""
    card = "the one you cannot see" if play.card is None else f"the {card_words(play.card)}"
    return f"Your only card, {card}, is played for you."
