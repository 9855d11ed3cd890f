"""Helpers shared by the tests: hand-built deals, state snapshots, the
decisions of a match played by a bot, and the bench scripts as modules."""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ohhell import (
    Bid,
    Card,
    Deal,
    GameState,
    IllegalActionError,
    Observation,
    Phase,
    Rules,
    apply,
    chance_action,
    make_rules,
    new_game,
    observe,
    parse_cards,
    seats_to_ask,
)

BENCH = Path(__file__).resolve().parents[1] / "bench"


def bench_script(name: str) -> ModuleType:
    """``bench/<name>.py`` loaded as a module, freshly each call (``name`` may
    be ``experiments/think``). The script's own folder and bench/ go on the
    path, as when a script is run from there, because the scripts import
    their shared helpers (strength, selfplay) from beside them; the module is
    registered under ``<name>_bench`` because dataclasses look their module
    up by name."""
    path = BENCH / f"{name}.py"
    for folder in (str(BENCH), str(path.parent)):
        if folder not in sys.path:
            sys.path.insert(0, folder)
    key = f"{name.replace('/', '_')}_bench"
    spec = importlib.util.spec_from_file_location(key, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    spec.loader.exec_module(module)
    return module


def dealt(rules: Rules, hands: str, turned: str | None = None) -> GameState:
    """A new match with a chosen first deal: hands by seat, separated by ``|``."""
    state = new_game(rules)
    hand_cards = tuple(tuple(parse_cards(h)) for h in hands.split("|"))
    apply(state, Deal(hand_cards, Card.parse(turned) if turned else None))
    return state


def in_play(hands: tuple[str, ...], turned: str = "2C", bids: tuple[int, ...] | None = None) -> GameState:
    """One hand dealt as given (pagat rules, no hook), bid as ``bids``
    (default all 0), ready for its first lead: the last seat deals, so seat 0
    bids and leads first. For positions of the play (claims)."""
    n = len(hands)
    size = len(hands[0].split())
    options = {"players": str(n), "hand-sizes": str(size), "first-dealer": str(n - 1), "hook": "no"}
    state = dealt(make_rules("pagat", options), "|".join(hands), turned)
    for seat, bid in enumerate(bids or (0,) * n):
        apply(state, Bid(seat, bid))
    assert state.phase is Phase.PLAY and state.to_act == 0
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


TIMING_FIELDS = frozenset({"seconds", "median_decision_ms", "p95_decision_ms"})
"""What ``ohhell tournament --json`` measures of the machine, not of the play."""


def untimed(data: dict[str, Any]) -> dict[str, Any]:
    """A tournament's JSON without its timing fields: what no number of jobs
    and no cluster may change."""
    out = {k: v for k, v in data.items() if k not in TIMING_FIELDS}
    out["stats"] = [{k: v for k, v in row.items() if k not in TIMING_FIELDS} for row in data["stats"]]
    return out
