"""Oh Hell as an OpenSpiel game: every rule set and the whole match, for OpenSpiel's algorithms.

Importing this module registers the game ``python_ohhell`` with OpenSpiel
(the optional extra ``openspiel``: ``python3 -m pip install -e '.[openspiel]'``), so
``pyspiel.load_game("python_ohhell(preset=pagat,players=3,hand_size=2)")``,
OpenSpiel's random simulation checks and its algorithms (MCTS, ISMCTS, ...)
run on our rules. Without OpenSpiel the module still imports; ``load_game``
and the game classes then raise an ``ImportError`` naming the extra.

The state is an ``ohhell.Match`` (the referee, over a ``GameState``): the core
decides every rule, and this module only translates between OpenSpiel's
integers and our actions. See docs/openspiel.md.

Parameters: ``preset`` (a name in ``ohhell.PRESETS``, default ``pagat``),
``players`` (3..7, default 4), ``hand_size`` (0, the default, plays the whole
match; ``k`` plays one hand of ``k`` cards, with no tie-break hands, and
Devil's Bridge only if ``k`` is 1) and ``options``: rule options as
``name:value`` separated by spaces or ``;``, a list value with ``/`` between
its items (``"hook:no first-dealer:0 hand-sizes:3/1"``), since OpenSpiel's
game strings keep ``=``, ``,`` and brackets for themselves.

Chance is explicit and one card at a time: each contender's card in a draw
for dealer (R-DEALER-DRAW, one 52-card pack a round), then each card of a
deal in the order the pack is dealt (R-DEAL) and the turned card
(R-TRUMP-TURN). An outcome is a ``Card.index`` (0..51) with probability
(copies left) / (cards left), so an Australian pack's doubles (R-DECK-AU)
weigh twice. Once a round is complete, the draw or the ``Deal`` goes to the
referee.

Actions (``NUM_ACTIONS`` = 95 ids, the same for every rule set) are the ids
of ``ohhell.encoding``, the one action space of every environment: play a
card by ``Card.index``, 52 play blind under R-DEVILS-BRIDGE, 53..70 bid
0..17, 71..75 name a trump or no trump under R-TRUMP-BIDDER, then
``CHANGE_BASE`` + b (76..93) changes one's bid to b and ``KEEP`` (94) keeps it
(R-BID-CHANGE). A bid change is a right, not a turn; here, as in every
environment (``encoding.seat_to_ask``), the seat that may still change its bid
is asked first whether it keeps it, before the next bidder bids, which is the
last moment the rule allows.
Under R-BID-SIMULTANEOUS the seats bid in seat order, each bid sealed from
the others until the last is in.

Returns are the match totals of each seat's side (its team under R-TEAMS),
in points; rewards are the points of the hands the last player action
finished (the chance actions that follow leave them in place).

Observations come from ``ohhell.observe`` alone: ``observation_tensor`` is
``encoding.encode`` and ``observation_string`` its text; the information state
is ``history.information_state`` of the current hand followed by ``encode``
(the match so far: totals, exact bids, the hand number), plus, under
R-BID-CHANGE, each seat's bids, changes and keeps in order, so that it has
perfect recall within a hand. Across hands the totals stand in for the earlier
hands: the rest of the match depends on nothing else they left.
"""

from __future__ import annotations

import functools
from typing import Any, Final

from .. import (
    MAX_BID_CHANGES,
    MAX_EXTRA_HANDS,
    Rules,
    TieBreak,
    TrumpMode,
    make_rules,
    parse_option,
    plan_hand,
    score_hand,
    sides,
)
from ..encoding import CHANGE_BASE, KEEP
from .openspiel_game_table import (
    CARD_OUTCOMES,
    CHANCE_PLAYER,
    NUM_ACTIONS,
    TERMINAL,
    Observer,
    Table,
    action_name,
    resampled_history,
    rng_from,
)

try:
    import pyspiel  # type: ignore[import-not-found]
except ImportError:  # the extra is missing: the module imports, and using it says what to install
    pyspiel = None

GAME_NAME: Final = "python_ohhell"
MISSING: Final = "OpenSpiel is not installed: install the extra with python3 -m pip install -e '.[openspiel]'"
DEFAULTS: Final[dict[str, Any]] = {"preset": "pagat", "players": 4, "hand_size": 0, "options": ""}
"""The game's parameters and their defaults."""


def _require() -> Any:
    if pyspiel is None:
        raise ImportError(MISSING)
    return pyspiel


# --- Parameters to rules ---


def parse_options(text: str) -> dict[str, Any]:
    """Rule options from the ``options`` parameter: ``name:value`` (or
    ``name=value``) separated by spaces or ``;``, ``/`` between list items.

    >>> parse_options("hook:no first-dealer:0 hand-sizes:3/1")
    {'hook': False, 'first_dealer': 0, 'hand_sizes': (3, 1)}
    """
    out: dict[str, Any] = {}
    for item in text.replace(";", " ").split():
        name, sep, value = item.replace("=", ":").partition(":")
        if not sep:
            raise ValueError(f"option {item!r} needs a value: write name:value, like hook:no")
        key, parsed = parse_option(name, value.replace("/", ","))
        out[key] = parsed
    return out


def game_rules(preset: str = "pagat", players: int = 4, hand_size: int = 0, options: str = "") -> Rules:
    """The rules a game with these parameters plays (``RulesError`` if they cannot be played).

    >>> r = game_rules("okenuff", 4, hand_size=2, options="first-dealer:0")
    >>> r.schedule, r.trump.value, r.first_dealer
    ((2,), 'bidder', 0)
    """
    rules = make_rules(preset).replace(players=players, **parse_options(options))
    if hand_size:
        # One hand: no tie-break hands to follow it (R-TIE-EXTRA), and Devil's
        # Bridge only where that hand has one card (R-DEVILS-BRIDGE).
        rules = rules.replace(
            hand_sizes=(hand_size,),
            tie_break=TieBreak.NONE if rules.tie_break is TieBreak.EXTRA_HANDS else rules.tie_break,
            devils_bridge=rules.devils_bridge and hand_size == 1,
        )
    return rules


def _hands(rules: Rules) -> list[int]:
    """The size of every hand a match may have, tie-break hands included."""
    extra = MAX_EXTRA_HANDS if rules.tie_break is TieBreak.EXTRA_HANDS else 0
    return [plan_hand(rules, number, 0).size for number in range(len(rules.schedule) + extra)]


@functools.lru_cache(maxsize=256)
def _hand_bounds(rules: Rules, size: int) -> tuple[int, int]:
    # Every bid and trick count, with and without trump, scored by the core.
    # Equal bids of 6 or more make the last bidder's a trump-naming overcall
    # (R-SC-OKENUFF), so its extra penalty is among these too. A bound has to
    # hold, not to be tight: OpenSpiel checks each return against it.
    n = rules.players
    scores = [
        score
        for bid in range(size + 1)
        for taken in range(size + 1)
        for namer in (None, n - 1)
        for no_trump in (False, True)
        for score in score_hand(
            rules, (bid,) * n, (taken,) * n, first_bidder=0, trump_namer=namer, no_trump=no_trump
        )
    ]
    return min(scores), max(scores)


def utility_bounds(rules: Rules) -> tuple[float, float]:
    """Bounds on any seat's return: its side's total over the longest match.

    >>> utility_bounds(game_rules("pagat", 3, hand_size=2))
    (0.0, 12.0)
    """
    widest = max(len(side) for side in sides(rules))
    low = high = 0
    for size in _hands(rules):
        lo, hi = _hand_bounds(rules, size)
        low += min(lo, widest * lo)  # R-TEAMS: a side's seats' scores add up
        high += max(hi, widest * hi)
    return float(low), float(high)


def max_game_length(rules: Rules) -> int:
    """The most player actions a match can have: bids, bid changes and keeps,
    a trump naming and the plays of every hand (chance is not counted)."""
    n = rules.players
    window = (n - 1) * (MAX_BID_CHANGES + 1) if rules.bid_changes else 0
    naming = 1 if rules.trump is TrumpMode.BIDDER else 0
    return sum(n + window + naming + n * size for size in _hands(rules))


def make_observer(rules: Rules, iig_obs_type: Any = None, params: Any = None) -> Observer:
    """The observer OpenSpiel asks for: one seat's own view, with or without perfect recall."""
    if params:
        raise ValueError(f"the observer takes no parameters, not {params!r}")
    if iig_obs_type is None:
        return Observer(rules, perfect_recall=False)
    spiel = _require()
    if not iig_obs_type.public_info or iig_obs_type.private_info != spiel.PrivateInfoType.SINGLE_PLAYER:
        raise ValueError(
            "only a seat's own view is offered: public information and that seat's private cards"
        )
    return Observer(rules, perfect_recall=bool(iig_obs_type.perfect_recall))


# --- OpenSpiel's classes ---

_GameBase: Any = pyspiel.Game if pyspiel is not None else object
_StateBase: Any = pyspiel.State if pyspiel is not None else object


class OhHellState(_StateBase):  # type: ignore[misc]
    """One position of the match, driven by our referee; see the module docstring."""

    def __init__(self, game: OhHellGame) -> None:
        _require()
        super().__init__(game)
        self.table = Table(game.rules, game.seat_sides)

    def current_player(self) -> int:
        return self.table.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return self.table.legal(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.table.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        table = self.table
        if table.state.is_chance:
            table.deal_card(int(action))
        else:
            table.play(int(action))
        table.moves += 1

    def _action_to_string(self, player: int, action: int) -> str:
        if player == CHANCE_PLAYER:
            return self.table.chance_name(int(action))
        return action_name(player, int(action))

    def is_terminal(self) -> bool:
        return self.table.is_over

    def returns(self) -> list[float]:
        return self.table.returns()

    def rewards(self) -> list[float]:
        return list(self.table.reward)

    def resample_from_infostate(self, player_id: int, probability_sampler: object = None) -> Any:
        """A state ``player_id`` cannot tell from this one: the hidden cards of
        the current hand (and sealed bids) drawn again. ``probability_sampler``
        may be OpenSpiel's sampler, a ``random.Random`` or a seed."""
        rng = rng_from(probability_sampler)
        actions, sealed = resampled_history(self.table, list(self.history()), player_id, rng)
        world = self.get_game().new_initial_state()
        for action in actions:
            player = world.current_player()
            if sealed is not None and player >= 0 and player != player_id and world.table.is_bidding:
                action = sealed(world.legal_actions())
            world.apply_action(action)
        return world

    def __str__(self) -> str:
        return str(self.table)


class OhHellGame(_GameBase):  # type: ignore[misc]
    """The game ``python_ohhell`` with its parameters; see the module docstring."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        spiel = _require()
        values = {**DEFAULTS, **(params or {})}
        self.rules = game_rules(
            str(values["preset"]), int(values["players"]), int(values["hand_size"]), str(values["options"])
        )
        self.seat_sides = [
            next(side for side in sides(self.rules) if s in side) for s in range(self.rules.players)
        ]
        low, high = utility_bounds(self.rules)
        info = spiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=CARD_OUTCOMES,
            num_players=self.rules.players,
            min_utility=low,
            max_utility=high,
            utility_sum=None,
            max_game_length=max_game_length(self.rules),
        )
        super().__init__(game_type(), info, values)

    def new_initial_state(self) -> OhHellState:
        return OhHellState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        return make_observer(self.rules, iig_obs_type, params)


@functools.cache
def game_type() -> Any:
    """OpenSpiel's description of the game."""
    spiel = _require()
    return spiel.GameType(
        short_name=GAME_NAME,
        long_name="Oh Hell (ohhell rules engine)",
        dynamics=spiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=spiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=spiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=spiel.GameType.Utility.GENERAL_SUM,
        reward_model=spiel.GameType.RewardModel.REWARDS,
        max_num_players=7,
        min_num_players=3,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(DEFAULTS),
    )


def register() -> None:
    """Register ``python_ohhell`` with OpenSpiel (once; importing this module does it)."""
    spiel = _require()
    assert int(spiel.PlayerId.TERMINAL) == TERMINAL and int(spiel.PlayerId.CHANCE) == CHANCE_PLAYER
    if GAME_NAME not in spiel.registered_names():
        spiel.register_game(game_type(), OhHellGame)


def load_game(preset: str = "pagat", players: int = 4, hand_size: int = 0, options: str = "") -> Any:
    """``pyspiel.load_game`` for our game with these parameters.

    ``load_game("pagat", 3, hand_size=2)`` is ``pyspiel.load_game(
    "python_ohhell(preset=pagat,players=3,hand_size=2)")``.
    """
    spiel = _require()
    register()
    params = {"preset": preset, "players": players, "hand_size": hand_size, "options": options}
    return spiel.load_game(GAME_NAME, params)


if pyspiel is not None:
    register()

__all__ = [
    "CHANGE_BASE",
    "DEFAULTS",
    "GAME_NAME",
    "KEEP",
    "NUM_ACTIONS",
    "OhHellGame",
    "OhHellState",
    "game_rules",
    "load_game",
    "register",
    "utility_bounds",
]
