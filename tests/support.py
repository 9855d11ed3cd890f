"""Helpers shared by the tests: hand-built deals, state snapshots, and the
decisions of a match played by a bot."""

from __future__ import annotations

import contextlib
import copy
import random
from collections.abc import Iterator
from typing import Any

import pytest

from ohhell import (
    Card,
    Deal,
    GameState,
    IllegalActionError,
    Observation,
    Rules,
    apply,
    chance_action,
    new_game,
    observe,
    parse_cards,
    seats_to_ask,
)


def dealt(rules: Rules, hands: str, turned: str | None = None) -> GameState:
    """A new match with a chosen first deal: hands by seat, separated by ``|``."""
    state = new_game(rules)
    hand_cards = tuple(tuple(parse_cards(h)) for h in hands.split("|"))
    apply(state, Deal(hand_cards, Card.parse(turned) if turned else None))
    return state


def snapshot(state: GameState) -> dict[str, Any]:
    """Every field of the state, deep-copied, to show an action changed nothing."""
    return {name: copy.deepcopy(getattr(state, name)) for name in GameState.__slots__}


@contextlib.contextmanager
def refused_by(
    rule: str, error: type[Exception] = IllegalActionError, match: str | None = None
) -> Iterator[pytest.ExceptionInfo[Any]]:
    """The block raises ``error`` resting on rule point ``rule`` (and saying
    ``match``), worded in plain words: a rule id is for docs and tests, not
    for the player."""
    with pytest.raises(error, match=match) as info:
        yield info
    assert getattr(info.value, "rule", None) == rule, (
        f"{info.value!r} rests on {info.value.rule!r}, not {rule}"
    )
    assert "R-" not in str(info.value), f"a rule id in the text a player reads: {info.value}"


def decisions(
    rules: Rules, rng: random.Random, bot: str = "intermediate"
) -> Iterator[tuple[GameState, Observation]]:
    """Every decision of a match that ``bot`` plays in every seat, chance
    drawing from ``rng``: the state and the observation of the seat asked,
    before its choice is applied (the caller may read them, not change them)."""
    from ohhell.bots import get_bot

    player = get_bot(bot)
    state = new_game(rules)
    while not state.is_over:
        if state.is_chance:
            apply(state, chance_action(state, rng))
            continue
        obs = observe(state, seats_to_ask(state)[0])
        yield state, obs
        apply(state, player.choose(obs, rng))
