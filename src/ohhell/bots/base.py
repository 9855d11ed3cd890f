"""The bot interface, the registry of bots by name, and a match played by bots.

A bot is any object with a ``name`` and ``choose(obs, rng) -> action``. It is
handed an ``Observation`` (what its seat may know), never the ``GameState``,
and must return one of ``obs.legal_actions``. ``play_match`` hands the bots
to the referee (``ohhell.Match``), which is the one place that turns a state
into observations for players, so a bot cannot see more than its seat would
at a real table.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import random
from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol, runtime_checkable

from .. import (
    PRESET_TITLES,
    Action,
    GameState,
    IllegalActionError,
    Match,
    Observation,
    Rules,
    make_rules,
    new_game,
)


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
_BUILT_IN: Final[dict[str, str]] = {
    "random": "ohhell.bots.random_bot:RandomBot",
    "beginner": "ohhell.bots.rulebased:BeginnerBot",
    "intermediate": "ohhell.bots.rulebased:IntermediateBot",
    # The reference search bot for measurements (bench/strength.py); slow.
    "ismcts": "ohhell.bots.ismcts:IsmctsBot",
    "expert": "ohhell.bots.expert:ExpertBot",
}

BOT_NAMES: Final[tuple[str, ...]] = tuple(_BUILT_IN)
"""The built-in bot names, weakest first (``bot_names()`` adds registered ones)."""

OPPONENT_LEVELS: Final[tuple[str, ...]] = tuple(n for n in BOT_NAMES if n != "ismcts")
"""The built-in levels people play against in the terminal and the browser (the
``ismcts`` reference bot is for measurements: slow, and not meant as company)."""

ENTRY_POINT_GROUP: Final = "ohhell.bots"
"""Packages ship bots under this entry-point group: ``name = "pkg.module:Factory"``."""

# Bots added at run time: by register_bot, or found under the entry-point group.
_added: dict[str, str | Callable[..., Bot]] = {}
_opponents: dict[str, bool] = {}
# Where a registered level is offered: the rules it was made and measured for
# (preset, players), offered at exactly those rules; absent: at every table.
_trained_for: dict[str, tuple[str, int]] = {}
_entry_points_read = False


def register_bot(
    name: str,
    factory: str | Callable[..., Bot],
    *,
    opponent: bool = True,
    trained_for: tuple[str, int] | None = None,
) -> None:
    """Make a bot known by ``name`` to ``get_bot``, tournaments and the servers.

    ``factory`` is a callable that takes the bot's options as keywords and
    returns a bot, or its ``"module:attribute"`` path (imported when first
    asked for). With ``opponent`` the bot is offered as a level to play
    against (``ohhell play``, ``ohhell serve``); ``trained_for`` (a preset
    and a number of players) offers it only at exactly those rules, for a bot
    made and measured there alone. A package can do the same without code,
    with an entry point in the ``ohhell.bots`` group::

        [project.entry-points."ohhell.bots"]
        mybot = "mypkg.bot:MyBot"
    """
    key = name.strip().lower()
    if not key or ":" in key or "," in key or key in _BUILT_IN:
        raise ValueError(f"{name!r} cannot name a bot: it is empty, holds ':' or ',', or is built in")
    _added[key] = factory
    _opponents[key] = opponent
    if trained_for is None:
        _trained_for.pop(key, None)
    else:
        _trained_for[key] = trained_for


def _read_entry_points() -> None:
    global _entry_points_read
    if _entry_points_read:
        return
    _entry_points_read = True
    for point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        key = point.name.strip().lower()
        if key not in _BUILT_IN and key not in _added:
            _added[key] = point.value
            _opponents[key] = True


def bot_names() -> tuple[str, ...]:
    """Every bot ``get_bot`` knows: the built-in ones, then registered ones."""
    _read_entry_points()
    return BOT_NAMES + tuple(_added)


def opponent_levels(rules: Rules | None = None) -> tuple[str, ...]:
    """The levels offered to people: the built-in ones, then registered bots;
    with ``rules``, only those offered at a table of those rules (a bot
    trained for one rule set alone is not offered elsewhere)."""
    _read_entry_points()
    levels = OPPONENT_LEVELS + tuple(k for k in _added if _opponents.get(k))
    if rules is None:
        return levels
    return tuple(k for k in levels if level_fits(k, rules))


def level_fits(level: str, rules: Rules) -> bool:
    """Is ``level`` offered at a table of ``rules``? Every level is, except
    one registered ``trained_for`` other rules."""
    trained = _trained_for.get(level)
    if trained is None:
        return True
    preset, players = trained
    return rules == make_rules(preset, {"players": str(players)})


def trained_for() -> dict[str, tuple[str, int]]:
    """The levels offered at one rule set alone: level -> (preset, players)."""
    _read_entry_points()
    return dict(_trained_for)


def level_refusal(level: str, rules: Rules) -> str | None:
    """Why ``level`` is not offered at a table of ``rules``, in plain words
    (None when it is, or when it is not a level at all)."""
    trained = _trained_for.get(level)
    if trained is None or level_fits(level, rules):
        return None
    preset, players = trained
    return (
        f"the {level} bot was trained only for {PRESET_TITLES.get(preset, preset)} with {players} players "
        "and no other options: choose another level for this table"
    )


def _load(path: str) -> Callable[..., Bot]:
    module_name, _, attribute = path.partition(":")
    try:
        factory: Callable[..., Bot] = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as err:
        raise UnknownBotError(f"cannot load the bot {path!r}: {err}") from None
    return factory


def _factory(name: str) -> Callable[..., Bot]:
    if name in _BUILT_IN:
        return _load(_BUILT_IN[name])
    _read_entry_points()
    if name in _added:
        target = _added[name]
        return _load(target) if isinstance(target, str) else target
    if ":" in name:  # "package.module:attribute", say from `ohhell tournament --bots`
        return _load(name)
    raise UnknownBotError(f"unknown bot {name!r}; bots are {', '.join(bot_names())}")


def get_bot(name: str, /, **options: Any) -> Bot:
    """A new bot by its registered name; ``options`` go to its constructor.

    >>> get_bot("random").name
    'random'
    """
    key = name.strip()
    return _factory(key if ":" in key else key.lower())(**options)


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
    match = Match(state, chance, track_turns=False)
    try:
        return match.run(bots, bot_rngs.__getitem__, timings=timings)
    except IllegalActionError as err:
        if err.reason != "player" or err.seat is None:
            raise
        bot = bots[err.seat]
        raise IllegalBotActionError(
            f"bot {bot.name!r} in seat {err.seat} chose {err.action!r}: {err}"
        ) from None
