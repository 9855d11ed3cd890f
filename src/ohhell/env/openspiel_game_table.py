"""The state behind the OpenSpiel game (``openspiel_game``): the referee,
chance one card at a time, the action ids, what a seat may know, and worlds
a seat cannot tell apart.

Nothing here imports OpenSpiel: ``openspiel_game`` wraps a ``Table`` in
OpenSpiel's ``State`` and an ``Observer`` in its observer API. Every rule is
the core's (``ohhell.Match`` and ``observe``); this module only translates.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable
from typing import Any, Final, cast

import numpy as np
import numpy.typing as npt

from .. import (
    ALL_CARDS,
    MAX_BID_CHANGES,
    Bid,
    Bidding,
    Card,
    ChangeBid,
    Deal,
    DrawForDealer,
    GameState,
    Match,
    Observation,
    Phase,
    Rules,
    SeenDeal,
    bidding_order,
    chance_action,
    deal_from,
    observe,
    sample_hands,
    seen_action,
)
from ..encoding import (
    ACTION_SIZE,
    BID_BASE,
    CHANGE_BASE,
    KEEP,
    MAX_HAND,
    MAX_PLAYERS,
    OBSERVATION_SIZE,
    action_from_id,
    changer,
    describe_action_id,
    encode,
    legal_ids,
    observation_text,
    seat_to_ask,
)
from .history import HISTORY_SIZE, information_state, information_state_string, played_by_seat

NUM_ACTIONS: Final = ACTION_SIZE
"""OpenSpiel's distinct actions: ``ohhell.encoding``'s 95 ids (``CHANGE_BASE`` + b
changes one's bid to b, ``KEEP`` keeps it: R-BID-CHANGE)."""
CARD_OUTCOMES: Final = len(ALL_CARDS)
"""Chance outcomes are card values, by ``Card.index``."""

BIDDING_STEPS: Final = 1 + MAX_BID_CHANGES
BIDDING_SIZE: Final = MAX_PLAYERS * (BIDDING_STEPS * (MAX_HAND + 1) + 1)
"""The information state's ``bidding`` block under R-BID-CHANGE: for each
bidding turn, the bid and then each change (one-hot 0..17), and a kept flag."""

# OpenSpiel's pseudo-players (pyspiel.PlayerId), as plain numbers so this
# module needs no OpenSpiel; openspiel_game.register checks they agree.
TERMINAL: Final = -4
CHANCE_PLAYER: Final = -1

IN_HAND: Final = (Phase.BID, Phase.TRUMP, Phase.PLAY)
# The bridge submits every draw and deal itself, built from OpenSpiel's chance
# outcomes: the referee's own generator is never drawn from.
_UNUSED: Final = random.Random(0)


@functools.lru_cache(maxsize=512)
def deal_order(dealer: int, players: int, size: int) -> tuple[int, ...]:
    """The seat that gets each card of a deal, in the order of the pack,
    as ``ohhell.deal_from`` deals it (R-DEAL).

    >>> deal_order(0, 3, 2)
    (1, 2, 0, 1, 2, 0)
    """
    # deal_from hands out a pack's items by position; numbers stand in for cards.
    hands = cast(
        tuple[tuple[int, ...], ...],
        deal_from(cast(list[Card], list(range(players * size))), dealer, players, size),
    )
    order = [0] * (players * size)
    for seat, places in enumerate(hands):
        for place in places:
            order[place] = seat
    return tuple(order)


@functools.lru_cache(maxsize=64)
def _pack(rules: Rules) -> Counter[Card]:
    return Counter(rules.pack())


_DRAW_PACK: Final = Counter(ALL_CARDS)  # R-DEALER-DRAW: one 52-card pack for each round


def action_name(player: int, action: int) -> str:
    """A player's action id in words: ``seat 1: bid 3``, ``seat 2: keep the bid``."""
    return f"seat {player}: {describe_action_id(action)}"


# --- The state ---


class Table:
    """What one OpenSpiel state holds: the referee of the match and the
    chance round being dealt. One object, so a clone is one quick copy."""

    __slots__ = ("bidding", "deal_at", "match", "moves", "need", "pending", "reward", "sides")

    def __init__(self, rules: Rules, seat_sides: list[tuple[int, ...]]) -> None:
        n = rules.players
        self.match = Match.new(rules, _UNUSED, track_turns=False)
        self.pending: list[Card] = []  # the cards of the chance round so far
        self.need: int | None = None  # how many cards this chance round deals, once known
        self.bidding: list[tuple[int, int]] = []  # this hand's (seat, id) of bids, changes, keeps
        self.moves = 0  # actions so far, chance included: OpenSpiel's history length
        self.deal_at = 0  # where in the history the current hand's deal starts
        self.reward = [0.0] * n
        self.sides = seat_sides  # R-TEAMS: the seats whose totals make each seat's return

    @property
    def state(self) -> GameState:
        return self.match.state

    def copy(self) -> Table:
        other = Table.__new__(Table)
        other.match = Match(self.state.clone(), _UNUSED, track_turns=False)
        other.match.kept_at = self.match.kept_at
        other.pending = list(self.pending)
        other.need = self.need
        other.bidding = list(self.bidding)
        other.moves = self.moves
        other.deal_at = self.deal_at
        other.reward = list(self.reward)
        other.sides = self.sides
        return other

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        return self.copy()  # OpenSpiel clones a Python state by deep-copying its attributes

    def __getstate__(self) -> dict[str, Any]:
        # OpenSpiel serializes a Python state by pickling its attributes; the
        # referee is rebuilt around the pickled GameState.
        return {
            "state": self.state,
            "kept": self.match.kept_at is not None and self.match.kept_at == self.match.version,
            **{name: getattr(self, name) for name in self.__slots__ if name != "match"},
        }

    def __setstate__(self, data: dict[str, Any]) -> None:
        self.match = Match(data["state"], _UNUSED, track_turns=False)
        self.match.kept_at = self.match.version if data["kept"] else None
        for name in self.__slots__:
            if name != "match":
                setattr(self, name, data[name])

    def returns(self) -> list[float]:
        totals = self.state.totals
        return [float(sum(totals[s] for s in side)) for side in self.sides]

    @property
    def is_over(self) -> bool:
        return self.state.phase is Phase.OVER

    @property
    def is_bidding(self) -> bool:
        return self.state.phase is Phase.BID

    def changer(self) -> int | None:
        """R-BID-CHANGE: the seat that may still change its bid and has not kept it."""
        return changer(self.match)

    def current_player(self) -> int:
        st = self.state
        if st.phase is Phase.OVER:
            return TERMINAL
        if st.is_chance:
            return CHANCE_PLAYER
        seat = seat_to_ask(self.match)  # the changer first (R-BID-CHANGE), as every env asks
        assert seat is not None
        return seat

    def legal(self, seat: int) -> list[int]:
        return legal_ids(self.match, seat)

    # --- Chance, one card at a time ---

    def needed(self) -> int:
        """How many cards the current chance round deals (draw or deal)."""
        if self.need is None:
            st = self.state
            if st.phase is Phase.DRAW:
                self.need = len(st.contenders)
            else:
                # The core's own deal says whether a card is turned (R-TRUMP-TURN);
                # only its shape is read here, never its cards.
                probe = cast(Deal, chance_action(st, random.Random(0)))
                self.need = st.players * st.hand_size + (probe.turned is not None)
        return self.need

    def left(self) -> Counter[Card]:
        """The cards the next chance outcome may be, with their copies."""
        st = self.state
        left = Counter(_DRAW_PACK if st.phase is Phase.DRAW else _pack(st.rules))
        left.subtract(self.pending)
        return +left

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = self.left()
        total = sum(left.values())
        return sorted((card.index, count / total) for card, count in left.items())

    def deal_card(self, index: int) -> None:
        card = ALL_CARDS[index]
        if self.left()[card] <= 0:
            raise ValueError(f"{card} cannot be dealt now: no copy of it is left in the pack")
        if not self.pending and self.state.phase is Phase.DEAL:
            self.deal_at = self.moves
        self.pending.append(card)
        if len(self.pending) < self.needed():
            return
        st = self.state
        n = st.players
        if st.phase is Phase.DRAW:
            cards: list[Card | None] = [None] * n
            for seat, drawn in zip(st.contenders, self.pending, strict=True):
                cards[seat] = drawn
            self.match.submit(DrawForDealer(tuple(cards)))
        else:
            count = n * st.hand_size
            turned = self.pending[count] if len(self.pending) > count else None
            self.match.submit(Deal(deal_from(self.pending, st.dealer, n, st.hand_size), turned))
            self.bidding = []
        self.pending = []
        self.need = None

    def chance_name(self, index: int) -> str:
        card = ALL_CARDS[index]
        st = self.state
        at = len(self.pending)
        if st.phase is Phase.DRAW:
            return f"seat {st.contenders[at]} draws {card}"
        if st.phase is Phase.DEAL:
            order = deal_order(st.dealer, st.players, st.hand_size)
            return f"seat {order[at]} is dealt {card}" if at < len(order) else f"{card} is turned"
        return f"chance: {card}"

    # --- Player actions ---

    def play(self, action: int) -> None:
        seat = self.current_player()
        before = self.returns()
        if action == KEEP:
            self.match.keep_bid(seat)
            self.bidding.append((seat, action))
        elif CHANGE_BASE <= action < KEEP:
            self.match.submit(ChangeBid(seat, action - CHANGE_BASE))
            self.bidding.append((seat, action))
        else:
            move = action_from_id(action, seat)
            self.match.submit(move)
            if isinstance(move, Bid):
                self.bidding.append((seat, action))
        self.reward = [after - was for after, was in zip(self.returns(), before, strict=True)]

    def __str__(self) -> str:
        st = self.state
        lines = [observation_text(observe(st, None))]
        if st.phase in IN_HAND:
            lines += [f"  hand of seat {s}: {' '.join(map(str, h)) or '-'}" for s, h in enumerate(st.hands)]
        if self.pending:
            word = "drawn" if st.phase is Phase.DRAW else "dealt"
            lines.append(f"{word} so far: {' '.join(map(str, self.pending))}")
        return "\n".join(lines)


# --- What a seat may know ---


def bidding_block(table: Table, obs: Observation) -> npt.NDArray[np.float32]:
    """R-BID-CHANGE: per bidding turn, the bid and each change (one-hot), and whether it was kept."""
    v = np.zeros(BIDDING_SIZE, np.float32)
    if obs.phase not in IN_HAND:
        return v
    order = bidding_order(obs.dealer, obs.players)
    per_turn = BIDDING_STEPS * (MAX_HAND + 1) + 1
    steps = [0] * obs.players
    for seat, action in table.bidding:
        base = order.index(seat) * per_turn
        if action == KEEP:
            v[base + per_turn - 1] = 1
            continue
        bid = action - (CHANGE_BASE if action >= CHANGE_BASE else BID_BASE)
        v[base + steps[seat] * (MAX_HAND + 1) + bid] = 1
        steps[seat] += 1
    return v


def bidding_words(table: Table) -> str:
    """The bids, changes and keeps of the hand in order: ``1:2 1:>3 1:keep 2:0``."""
    words = []
    for seat, action in table.bidding:
        if action == KEEP:
            words.append(f"{seat}:keep")
        elif action >= CHANGE_BASE:
            words.append(f"{seat}:>{action - CHANGE_BASE}")
        else:
            words.append(f"{seat}:{action - BID_BASE}")
    return "bidding " + (" ".join(words) or "-")


def match_words(obs: Observation) -> str:
    """The match so far, as the information state string carries it."""
    hands = len(obs.rules.schedule)
    if obs.phase is Phase.OVER:
        where = "match over"
    else:
        where = f"hand {obs.hand_number + 1} of {hands}" + (" (extra)" if obs.extra_hand else "")
    return f"{where} | totals {' '.join(map(str, obs.totals))} | exact {' '.join(map(str, obs.exact))}"


class Observer:
    """OpenSpiel's observer of a seat: the information state (perfect recall)
    or the observation, as named tensors and a string, from ``observe`` alone."""

    def __init__(self, rules: Rules, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.bid_changes = rules.bid_changes
        pieces = (
            [("history", HISTORY_SIZE), ("match", OBSERVATION_SIZE)]
            + ([("bidding", BIDDING_SIZE)] if rules.bid_changes else [])
            if perfect_recall
            else [("observation", OBSERVATION_SIZE)]
        )
        self.tensor = np.zeros(sum(size for _, size in pieces), np.float32)
        self.dict: dict[str, npt.NDArray[np.float32]] = {}
        at = 0
        for name, size in pieces:
            self.dict[name] = self.tensor[at : at + size]
            at += size

    def set_from(self, state: Any, player: int) -> None:
        table: Table = state.table
        obs = observe(table.state, player)
        if not self.perfect_recall:
            self.dict["observation"][:] = encode(obs)
            return
        self.dict["history"][:] = information_state(obs)
        self.dict["match"][:] = encode(obs)
        if self.bid_changes:
            self.dict["bidding"][:] = bidding_block(table, obs)

    def string_from(self, state: Any, player: int) -> str:
        table: Table = state.table
        obs = observe(table.state, player)
        if not self.perfect_recall:
            return observation_text(obs)
        parts = [information_state_string(obs), match_words(obs)]
        if self.bid_changes and obs.phase in IN_HAND:
            parts.append(bidding_words(table))
        return " | ".join(parts)


# --- Worlds consistent with what a seat knows (for ISMCTS) ---


def rng_from(sampler: object) -> random.Random:
    if isinstance(sampler, random.Random):
        return sampler
    if isinstance(sampler, int):
        return random.Random(sampler)
    if callable(sampler):  # OpenSpiel's UniformProbabilitySampler: a number in [0, 1)
        return random.Random(int(float(sampler()) * (1 << 53)))
    return random.Random()


def resampled_history(
    table: Table, history: list[int], seat: int, rng: random.Random
) -> tuple[list[int], Callable[[list[int]], int] | None]:
    """The actions of a world ``seat`` cannot tell from this one, and how to
    choose the sealed bids it has not seen (None if there are none).

    Earlier hands are kept (every card dealt in them was played face up). The
    current hand's hidden cards are dealt again by ``sample_hands`` (the cards
    seen, played and the voids shown respected), each seat's played cards
    among its own; the seen cards keep their places in the pack.
    """
    st = table.state
    if st.phase not in IN_HAND:
        return list(history), None
    obs = observe(st, seat)
    seen = seen_action(st, st.hand_log_start, seat)
    assert isinstance(seen, SeenDeal)
    held = sample_hands(obs, rng)
    n = st.players
    played = played_by_seat(obs)
    dealt: list[list[Card]] = []
    for s in range(n):
        shown = seen.hands[s]
        if shown is not None:
            dealt.append(list(shown))
        else:
            cards = [*held[s], *played[s]]
            rng.shuffle(cards)
            dealt.append(cards)
    pack = [dealt[s].pop(0) for s in deal_order(st.dealer, n, st.hand_size)]
    if seen.turned is not None:
        pack.append(seen.turned)
    after = table.deal_at + len(pack)
    actions = [*history[: table.deal_at], *(c.index for c in pack), *history[after:]]
    sealed = st.phase is Phase.BID and st.rules.bidding is Bidding.SIMULTANEOUS
    if not sealed:
        return actions, None
    # R-BID-SIMULTANEOUS: others' bids are still sealed, so the world's are drawn afresh.
    return actions, lambda legal: rng.choice(legal)
