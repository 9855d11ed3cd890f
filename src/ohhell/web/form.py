"""The new-table form's words: each option's help, its choices in plain words
and when it applies (``form_options``), and a table's rules in a line
(``rules_words``).

Kept apart from the lobby (which reads the database) so that the offline
site's worker, which has only the standard library and our core, answers
``/api/options`` with the very same words (docs/site.md).
"""

from __future__ import annotations

import functools
import json
from typing import Any, Final

from .. import PRESET_TITLES, PRESETS, make_rules
from ..describe import rule_options_for_people
from .protocol import options_json

Json = dict[str, Any]


FORM_HELP: Final[dict[str, str]] = {
    "players": "How many people and bots sit at the table.",
    "deck": "The pack the cards are dealt from.",
    "sequence": "How the number of cards dealt changes from one hand to the next.",
    "start_cards": "How many cards each player gets in the biggest hand of the match.",
    "fixed_hands": "How many hands the match has when every hand is the same size.",
    "hand_sizes": "Your own list of hand sizes in the order they are played, in place of the usual run.",
    "first_dealer": "Who deals the first hand; the deal then passes to the left.",
    "trump": "How the trump suit of each hand is chosen.",
    "trump_rotation": "The trump suits the hands go through in turn (S, H, D, C, and NT for no trump).",
    "trump_suit": "The suit that is trump in every hand.",
    "bidding": "Whether the players bid one after another or all at once in secret.",
    "hook": "The last bidder may not bid a number that makes the bids add up to the tricks in the hand.",
    "bid_changes": "A player may change their bid until the next player has bid.",
    "first_lead": "Who plays the first card of each hand.",
    "devils_bridge": "In each one-card hand every player holds their card to their forehead, "
    "seen by all but them.",
    "scoring": "How many points a hand is worth.",
    "no_trump_doubles": "A hand played without trump scores double.",
    "tie_break": "What happens when players finish level in first place.",
    "teams": "Partners whose scores are added up, written like 1+3,2+4; leave it empty to play alone.",
}
"""Each option's help on the form: one sentence on what it does."""

CHOICE_WORDS: Final[dict[str, dict[str, str]]] = {
    "deck": {"standard": "52 cards", "australian": "Australian pack (65 or 78 cards)"},
    "sequence": {
        "down-up": "Down to 1, then back up",
        "up-down": "Up from 1, then back down",
        "down": "Down to 1",
        "up": "Up from 1",
        "fixed": "The same size every hand",
    },
    "trump": {
        "turn": "A card is turned up",
        "rotate": "The suits in turn",
        "fixed": "The same suit every hand",
        "bidder": "The highest bidder names it",
        "none": "No trump",
    },
    "trump_suit": {"S": "Spades ♠", "H": "Hearts ♥", "D": "Diamonds ♦", "C": "Clubs ♣"},
    "bidding": {"sequential": "One after another", "simultaneous": "All at once, in secret"},
    "first_lead": {"left": "The player left of the dealer", "dealer": "The dealer"},
    "scoring": {
        "pagat": "10 + the bid when exact",
        "river": "10 + the tricks when exact",
        "tens": "10 a trick when exact, -10 a trick off",
        "tricks-bonus": "1 a trick, 10 more when exact",
        "fives": "5 + 10 a trick exact, -5 - 5 a trick off",
        "squares": "10 + the bid squared when exact",
        "penalty": "10 + tricks when exact, -1 a trick off",
        "okenuff": "Okenuff's (4 players)",
    },
    "tie_break": {
        "none": "A shared win",
        "extra-hands": "Play more hands",
        "most-exact": "Most exact bids wins",
    },
}
"""Each choice in a few plain words (no option's id in them), for the form's lists."""
YES_NO: Final = {"yes": "Yes", "no": "No"}

_UNSET: Final = ["none", ""]  # a list of hand sizes not given (the preset's text, or an emptied field)
SHOWN_WHEN: Final[dict[str, dict[str, list[str]]]] = {
    # R-SEQ-FIXED, R-SEQ-OKENUFF: a list of hand sizes replaces the sequence and its sizes.
    "sequence": {"hand-sizes": _UNSET},
    "start_cards": {"hand-sizes": _UNSET},
    "fixed_hands": {"sequence": ["fixed"], "hand-sizes": _UNSET},
    "trump_rotation": {"trump": ["rotate"]},  # R-TRUMP-ROTATE
    "trump_suit": {"trump": ["fixed"]},  # R-TRUMP-FIXED
    # R-SC-OKENUFF: only a hand without trump doubles, and a fixed trump is never none.
    "no_trump_doubles": {"trump": ["turn", "rotate", "bidder", "none"]},
}
"""The options that matter only under some values of others: shown while
every named option has one of its listed values (a test plays the rules
to check that the others change nothing)."""


def form_options(options: Json) -> Json:
    """``options_json()`` for the home page: presets by their names for people
    (``preset_titles``), and each option's help, choices' words and
    ``shown_when`` as above."""
    out = dict(options)
    out["preset_titles"] = {name: PRESET_TITLES.get(name, name) for name in options["presets"]}
    rows = []
    for row in options["options"]:
        name = row["name"].replace("-", "_")
        words = CHOICE_WORDS.get(name, YES_NO if row.get("choices") == ["yes", "no"] else {})
        rows.append(
            {
                **row,
                "help": FORM_HELP.get(name, row.get("help", "")),
                "choice_words": {**row.get("choice_words", {}), **words},
                "shown_when": SHOWN_WHEN.get(name, {}),
            }
        )
    out["options"] = rows
    return out


@functools.cache
def _labels() -> dict[str, str]:
    return {row["name"]: row["label"] for row in options_json()["options"]}


def choice_words(option: str, value: str) -> str:
    """A value of an option in words: ``The hook: no``."""
    words = CHOICE_WORDS.get(option.replace("-", "_"), YES_NO)
    return f"{_labels().get(option, option)}: {words.get(value, value).lower()}"


@functools.lru_cache(maxsize=512)
def rules_words(options: str) -> str:
    """``Pagat's rules, 4 players``, or the nearest preset and what differs:
    ``Pagat's rules (the hook: no), 5 players``: a table's rules in a line,
    never an option's id (the same options come again and again: worded once)."""
    rules = make_rules("pagat", json.loads(options))
    preset = min(PRESETS, key=lambda p: len(rules.differences(PRESETS[p])))
    worded = rule_options_for_people(rules)
    changes = [choice_words(k, worded[k]) for k in rules.differences(PRESETS[preset]) if k != "players"]
    extra = f" ({'; '.join(c[0].lower() + c[1:] for c in changes)})" if changes else ""
    return f"{PRESET_TITLES.get(preset, preset)}{extra}, {rules.players} players"


__all__ = ["CHOICE_WORDS", "FORM_HELP", "SHOWN_WHEN", "YES_NO", "choice_words", "form_options", "rules_words"]
