"""Small records and budgets for the review's tests: a review at the default
budget takes tens of seconds, these take a fraction of one."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ohhell import PRESETS, Action, Card, Deal, GameState, Record, Rules, apply, new_game, parse_cards
from ohhell.analysis import Budget
from ohhell.bots import get_bot, play_match

TINY = Budget(simulations=240, price_simulations=240, luck_playouts=4, luck_simulations=24)
"""Enough for a deterministic review of a short match in about a second."""

NAMES = ("Ann", "Bob", "Cid", "Dee")


def short_rules(sizes: Sequence[int] = (3, 2), **changes: object) -> Rules:
    return PRESETS["pagat"].replace(hand_sizes=tuple(sizes), first_dealer=0, **changes)


def bot_match(
    seed: int,
    sizes: Sequence[int] = (3, 2),
    bots: Sequence[str] = ("expert", "intermediate", "beginner", "random"),
    **changes: object,
) -> Record:
    """A short match of bots (the expert at a small fixed budget), the same for the same seed."""
    players = [get_bot(b, simulations=120) if b == "expert" else get_bot(b) for b in bots]
    state = play_match(short_rules(sizes, **changes), players, random.Random(seed))
    return Record.from_state(state, NAMES)


def deal(hands: Sequence[str], turned: str | None) -> Deal:
    return Deal(tuple(tuple(parse_cards(h)) for h in hands), Card.parse(turned) if turned else None)


def played(rules: Rules, actions: Sequence[Action]) -> GameState:
    """A state after ``actions`` (a hand-made position)."""
    state = new_game(rules)
    for action in actions:
        apply(state, action)
    return state
