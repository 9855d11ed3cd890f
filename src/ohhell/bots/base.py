"""The bot interface, the registry of bots by name, and a match played by bots.

A bot is any object with a ``name`` and ``choose(obs, rng) -> action``. It is
handed an ``Observation`` (what its seat may know), never the ``GameState``,
and must return one of ``obs.legal_actions``. ``play_match`` is the one place
that turns a state into observations for bots, so a bot cannot see more than
its seat would at a real table.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol, runtime_checkable

from ..game import Action, GameState, Phase, actors, advance_chance, apply, new_game
from ..rules import Bidding, Rules
from ..view import Observation, observe


@runtime_checkable
class Bot(Protocol):
    """A player: sees one seat's observation and picks one of its legal actions."""

    name: str

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        """One of ``obs.legal_actions``; any randomness must come from ``rng``."""
        ...


class UnknownBotError(ValueError):
    """A bot name that is not registered; the message lists the names that are."""


class IllegalBotActionError(RuntimeError):
    """A bot returned an action that is not in its observation's legal actions."""


# Bots by name, as "module:attribute" so that importing the registry imports no
# bot module (and a slow or optional bot costs nothing until it is asked for).
# Registering a bot is one line here.
_REGISTRY: Final[dict[str, str]] = {
    "random": "ohhell.bots.random_bot:RandomBot",
    "beginner": "ohhell.bots.rulebased:BeginnerBot",
    "intermediate": "ohhell.bots.rulebased:IntermediateBot",
    # The reference search bot for measurements (bench/strength.py); slow.
    "ismcts": "ohhell.bots.ismcts:IsmctsBot",
    "expert": "ohhell.bots.expert:ExpertBot",
}

BOT_NAMES: Final[tuple[str, ...]] = tuple(_REGISTRY)
"""The registered bot names, weakest first."""

OPPONENT_LEVELS: Final[tuple[str, ...]] = tuple(n for n in BOT_NAMES if n != "ismcts")
"""The levels people play against in the terminal and the browser (the
``ismcts`` reference bot is for measurements: slow, and not meant as company)."""


def _factory(name: str) -> Callable[..., Bot]:
    try:
        target = _REGISTRY[name]
    except KeyError:
        raise UnknownBotError(f"unknown bot {name!r}; bots are {', '.join(BOT_NAMES)}") from None
    module_name, _, attribute = target.partition(":")
    factory: Callable[..., Bot] = getattr(importlib.import_module(module_name), attribute)
    return factory


def get_bot(name: str, /, **options: Any) -> Bot:
    """A new bot by its registered name; ``options`` go to its constructor.

    >>> get_bot("random").name
    'random'
    """
    return _factory(name.strip().lower())(**options)


def seats_to_ask(state: GameState) -> tuple[int, ...]:
    """The seats whose bots are asked for an action now, in seat order.

    In sequential bidding only the bidder is asked, never the seat that could
    still change its bid (R-BID-CHANGE is a right, so a bot is not made to
    decide about it). Under simultaneous bidding every seat that has not bid.
    """
    if state.phase is Phase.BID and state.rules.bidding is Bidding.SEQUENTIAL:
        return (state.to_act,)
    return tuple(sorted(actors(state)))


def play_match(
    rules: Rules,
    bots: Sequence[Bot],
    rng: random.Random,
    *,
    chance_rng: random.Random | None = None,
    timings: list[list[float]] | None = None,
) -> GameState:
    """Play a whole match with one bot per seat and return the final state.

    Chance (the draw for dealer, the shuffles) draws from ``chance_rng`` if
    given, else from ``rng``; a separate chance stream lets the same deals be
    replayed with the bots in other seats. Bots receive only observations. If
    ``timings`` is given (one list per seat), each decision's wall time in
    seconds is appended to its seat's list.
    """
    if len(bots) != rules.players:
        raise ValueError(f"a {rules.players}-player match needs {rules.players} bots, not {len(bots)}")
    state = new_game(rules)
    return play_out(state, bots, rng, chance_rng=chance_rng, timings=timings)


def play_out(
    state: GameState,
    bots: Sequence[Bot],
    rng: random.Random,
    *,
    chance_rng: random.Random | None = None,
    timings: list[list[float]] | None = None,
) -> GameState:
    """Play ``state`` on to the end of the match with ``bots``; see ``play_match``."""
    # Hidden information: a bot must never hold the generator that deals, or
    # it could rewind it and recover every hand. Chance and each bot draw
    # from their own streams, seeded from ``rng`` (a child's seed does not
    # reveal its parent's state).
    chance = chance_rng if chance_rng is not None else random.Random(rng.getrandbits(128))
    bot_rngs = [random.Random(rng.getrandbits(128)) for _ in bots]
    clock = time.perf_counter
    while True:
        advance_chance(state, chance)
        if state.is_over:
            return state
        for seat in seats_to_ask(state):
            obs = observe(state, seat)
            bot = bots[seat]
            start = clock()
            action = bot.choose(obs, bot_rngs[seat])
            elapsed = clock() - start
            if timings is not None:
                timings[seat].append(elapsed)
            if action not in obs.legal_actions:
                raise IllegalBotActionError(
                    f"bot {bot.name!r} in seat {seat} chose {action!r}, which is not legal now "
                    f"(hand {state.hand_number + 1}, phase {state.phase})"
                )
            apply(state, action)
