"""Helpers shared by the rule tests: hand-built deals and state snapshots."""

from __future__ import annotations

import copy
from typing import Any

from ohhell import Card, Deal, GameState, Rules, apply, new_game, parse_cards


def dealt(rules: Rules, hands: str, turned: str | None = None) -> GameState:
    """A new match with a chosen first deal: hands by seat, separated by ``|``."""
    state = new_game(rules)
    hand_cards = tuple(tuple(parse_cards(h)) for h in hands.split("|"))
    apply(state, Deal(hand_cards, Card.parse(turned) if turned else None))
    return state


def snapshot(state: GameState) -> dict[str, Any]:
    """Every field of the state, deep-copied, to show an action changed nothing."""
    return {name: copy.deepcopy(getattr(state, name)) for name in GameState.__slots__}
