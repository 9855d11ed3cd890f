"""The full observation vector: one seat's ``Observation`` as 1,162 float32.

Everything here reads an ``Observation`` (``ohhell.view.observe``), never a
``GameState``, so what a vector may show is exactly what the seat may know:
redaction stays in ``view.observe``. The layout is the same for every variant
and player count (padded to ``MAX_PLAYERS`` seats), so one network can train on
them all; docs/env.md lists every field with its index range, and ``LAYOUT``
gives the same ranges to programs. ``compact`` cuts it to one table's seats.

Each value is computed once in float64 (Python's arithmetic) and rounded once
to float32 on store; the batched simulator computes the same way, so its
compact rows are bit for bit ``to_compact(encode(...))``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from .. import (
    ALL_CARDS,
    Bid,
    Bidding,
    Card,
    ChangeBid,
    Deck,
    FirstLead,
    Observation,
    Phase,
    Rules,
    Scoring,
    Suit,
    TieBreak,
    TrumpMode,
)

MAX_PLAYERS: Final = 7
"""Seats the vector has room for (R-PLAYERS: 3..7); smaller tables are padded."""
MAX_HAND: Final = 17
"""The largest hand of any variant: 52 cards among 3 players (Australian: 13)."""
CARDS: Final = 52
"""Card one-hots are by ``Card.index``; Australian duplicates count 2."""

TRUMP_CHOICES: Final[tuple[Suit | None, ...]] = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES, None)
"""The order of the ``trump`` field and of the trump-naming action ids."""

SCORE_SCALE: Final = 100.0
"""Totals are divided by this and clipped to [-SCORE_CLIP, SCORE_CLIP]."""
SCORE_CLIP: Final = 10.0

PHASES: Final = (Phase.DRAW, Phase.DEAL, Phase.BID, Phase.TRUMP, Phase.PLAY, Phase.OVER)
_TRUMP_MODES: Final = tuple(TrumpMode)
_SCORINGS: Final = tuple(Scoring)
_TIE_BREAKS: Final = tuple(TieBreak)
BALANCES: Final = ("under", "over", "even")
"""The order of the ``balance`` field (R-BID-ANNOUNCE)."""

# (name, length, low, high). Per-seat blocks are in seat order relative to the
# observer: block r is the seat r places to the observer's left (r = 0: itself).
_FIELDS: Final[tuple[tuple[str, int, float, float], ...]] = (
    ("own_hand", CARDS, 0, 2),  # counts of each card in one's own hand (zero under R-DEVILS-BRIDGE)
    ("visible_hands", (MAX_PLAYERS - 1) * CARDS, 0, 2),  # seats 1..6 to the left; R-DEVILS-BRIDGE only
    ("trick", MAX_PLAYERS * CARDS, 0, 1),  # the current trick: the card each relative seat played
    ("played", CARDS, 0, 2),  # every card played this hand (finished tricks and the current one)
    ("turned", CARDS, 0, 1),  # the turned card (R-TRUMP-TURN)
    ("trump", 5, 0, 1),  # clubs, diamonds, hearts, spades, no trump; zeros while undecided
    ("trump_undecided", 1, 0, 1),  # R-TRUMP-BIDDER: the highest bidder has still to name it
    ("bids", MAX_PLAYERS * (MAX_HAND + 1), 0, 1),  # one-hot bid 0..17 per relative seat, where known
    ("has_bid", MAX_PLAYERS, 0, 1),  # the seat has bid (its bid may be sealed)
    ("sealed", MAX_PLAYERS, 0, 1),  # R-BID-SIMULTANEOUS: has bid, but the bid is not shown yet
    ("taken", MAX_PLAYERS, 0, 1),  # tricks taken this hand / MAX_HAND
    ("need", MAX_PLAYERS, -1, 1),  # (known bid - tricks taken) / MAX_HAND; 0 where unknown
    ("hand_counts", MAX_PLAYERS, 0, 1),  # cards held / MAX_HAND
    ("hand_size", MAX_HAND, 0, 1),  # one-hot: this hand's size 1..17
    ("hand_size_scaled", 1, 0, 1),  # hand size / MAX_HAND
    ("schedule", 4, 0, 1),  # hand number / hands, hands left / hands, extra hand (R-TIE-EXTRA), last
    ("dealer", MAX_PLAYERS, 0, 1),  # one-hot relative seat of the dealer
    ("leader", MAX_PLAYERS, 0, 1),  # one-hot relative seat leading the current (or first) trick
    ("trump_namer", MAX_PLAYERS, 0, 1),  # R-TRUMP-BIDDER: one-hot relative seat naming trump
    ("voids", MAX_PLAYERS * 4, 0, 1),  # suits (C D H S) each relative seat has shown it lacks (R-FOLLOW)
    ("totals", MAX_PLAYERS, -SCORE_CLIP, SCORE_CLIP),  # match totals / SCORE_SCALE, clipped
    ("behind_leader", MAX_PLAYERS, -SCORE_CLIP, 0),  # (total - best total) / SCORE_SCALE, clipped
    ("exact", MAX_PLAYERS, 0, 1),  # exact bids so far / hands in the schedule (R-TIE-EXACT)
    ("seat_present", MAX_PLAYERS, 0, 1),  # the relative seat exists at this table
    ("teammate", MAX_PLAYERS, 0, 1),  # R-TEAMS: the relative seat is on the observer's side
    ("phase", len(PHASES), 0, 1),  # draw, deal, bid, trump, play, over
    ("my_turn", 1, 0, 1),  # the observer is asked to act now
    ("forbidden_bid", MAX_HAND + 1, 0, 1),  # R-HOOK: one-hot bid the hook forbids the observer now
    ("balance", 3, 0, 1),  # R-BID-ANNOUNCE: under, over, even once all bids are in
    ("players", MAX_PLAYERS - 2, 0, 1),  # one-hot 3..7 players
    ("trump_mode", len(_TRUMP_MODES), 0, 1),  # turn, rotate, fixed, bidder, none
    ("scoring", len(_SCORINGS), 0, 1),  # pagat, river, tens, tricks-bonus, fives, squares, penalty, okenuff
    ("tie_break", len(_TIE_BREAKS), 0, 1),  # none, extra-hands, most-exact
    ("rule_flags", 8, 0, 1),  # hook, bid changes, simultaneous, dealer leads, Devil's Bridge
    #                           rule, Devil's Bridge now, no-trump doubles, Australian deck
)


def _layout() -> dict[str, tuple[int, int]]:
    out, at = {}, 0
    for name, size, _, _ in _FIELDS:
        out[name] = (at, at + size)
        at += size
    return out


LAYOUT: Final[dict[str, tuple[int, int]]] = _layout()
"""Each field's ``[start, end)`` index range in the vector."""
OBSERVATION_SIZE: Final = max(end for _, end in LAYOUT.values())


def observation_size(max_players: int = MAX_PLAYERS) -> int:
    """The vector's length. Only ``MAX_PLAYERS`` is supported: one layout for all tables."""
    if max_players != MAX_PLAYERS:
        raise ValueError(f"the encoding is laid out for {MAX_PLAYERS} seats, not {max_players}")
    return OBSERVATION_SIZE


def observation_bounds() -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Per-element lower and upper bounds (for a ``gymnasium.spaces.Box``)."""
    low = np.empty(OBSERVATION_SIZE, np.float32)
    high = np.empty(OBSERVATION_SIZE, np.float32)
    for name, _, lo, hi in _FIELDS:
        a, b = LAYOUT[name]
        low[a:b], high[a:b] = lo, hi
    return low, high


_O: Final = {name: a for name, (a, _) in LAYOUT.items()}

RULE_FIELDS: Final = ("seat_present", "players", "trump_mode", "scoring", "tie_break", "rule_flags")
"""Fields that one rule set fixes: the same in every observation of it
(``rule_vector``), except the "Devil's Bridge this hand" flag (``rule_flags``
+ 5), which the hand sets."""
DEVILS_BRIDGE_NOW: Final = LAYOUT["rule_flags"][0] + 5
"""The index of the "Devil's Bridge this hand" flag (R-DEVILS-BRIDGE)."""


@functools.lru_cache(maxsize=64)
def _rule_vector(rules: Rules) -> npt.NDArray[np.float32]:
    v = np.zeros(OBSERVATION_SIZE, np.float32)
    o = _O
    n = rules.players
    v[o["seat_present"] : o["seat_present"] + n] = 1
    if rules.teams is None:
        v[o["teammate"]] = 1  # R-TEAMS off: one's side is oneself
    v[o["players"] + n - 3] = 1
    v[o["trump_mode"] + _TRUMP_MODES.index(rules.trump)] = 1
    v[o["scoring"] + _SCORINGS.index(rules.scoring)] = 1
    v[o["tie_break"] + _TIE_BREAKS.index(rules.tie_break)] = 1
    flags = o["rule_flags"]
    v[flags] = float(rules.hook)
    v[flags + 1] = float(rules.bid_changes)
    v[flags + 2] = float(rules.bidding is Bidding.SIMULTANEOUS)
    v[flags + 3] = float(rules.first_lead is FirstLead.DEALER)
    v[flags + 4] = float(rules.devils_bridge)
    # flags + 5, Devil's Bridge this hand, is the hand's (DEVILS_BRIDGE_NOW).
    v[flags + 6] = float(rules.no_trump_doubles)
    v[flags + 7] = float(rules.deck is Deck.AUSTRALIAN)
    v.setflags(write=False)
    return v


def rule_vector(rules: Rules) -> npt.NDArray[np.float32]:
    """What ``rules`` alone sets in every vector (read-only): the
    ``RULE_FIELDS`` and, without teams, ``teammate`` (only oneself). Every
    other element is zero. ``encode`` starts from it; ``compact.to_full``
    fills the fields a compact row leaves out from it."""
    return _rule_vector(rules)


def encode(obs: Observation) -> npt.NDArray[np.float32]:
    """The observation as a float32 vector of ``OBSERVATION_SIZE``; see docs/env.md."""
    me = obs.seat
    if me is None:
        raise ValueError("encode needs a seat's observation, not a spectator's")
    rules = obs.rules
    n = rules.players
    v = _rule_vector(rules).copy()
    o = _O

    def rel(seat: int) -> int:
        return (seat - me) % n

    for c in obs.hand:
        v[o["own_hand"] + c.index] += 1
    for s, hand in enumerate(obs.hands):
        if hand is not None and s != me:  # R-DEVILS-BRIDGE: others' cards are in view
            base = o["visible_hands"] + (rel(s) - 1) * CARDS
            for c in hand:
                v[base + c.index] += 1
    for s, c in obs.trick:
        v[o["trick"] + rel(s) * CARDS + c.index] = 1
    for c in obs.played_cards():
        v[o["played"] + c.index] += 1
    if obs.turned is not None:
        v[o["turned"] + obs.turned.index] = 1
    if obs.trump_decided:
        v[o["trump"] + TRUMP_CHOICES.index(obs.trump)] = 1
    elif obs.phase in (Phase.BID, Phase.TRUMP):
        v[o["trump_undecided"]] = 1
    in_hand = obs.phase in (Phase.BID, Phase.TRUMP, Phase.PLAY)
    for s in range(n):
        r = rel(s)
        bid = obs.bids[s]
        if bid is not None:
            v[o["bids"] + r * (MAX_HAND + 1) + bid] = 1
            v[o["need"] + r] = (bid - obs.taken[s]) / MAX_HAND
        if obs.has_bid[s]:
            v[o["has_bid"] + r] = 1
            if bid is None:
                v[o["sealed"] + r] = 1
        v[o["taken"] + r] = obs.taken[s] / MAX_HAND
        v[o["hand_counts"] + r] = obs.hand_counts[s] / MAX_HAND
        for suit in obs.voids[s]:
            v[o["voids"] + 4 * r + suit] = 1
    if in_hand:
        v[o["hand_size"] + obs.hand_size - 1] = 1
        v[o["hand_size_scaled"]] = obs.hand_size / MAX_HAND
        v[o["dealer"] + rel(obs.dealer)] = 1
        v[o["leader"] + rel(obs.leader)] = 1
    elif obs.phase is Phase.DEAL:
        v[o["dealer"] + rel(obs.dealer)] = 1
    if obs.trump_namer is not None:
        v[o["trump_namer"] + rel(obs.trump_namer)] = 1
    hands = len(rules.schedule)
    sched = o["schedule"]
    v[sched] = min(obs.hand_number, hands) / hands
    v[sched + 1] = max(hands - obs.hand_number, 0) / hands
    v[sched + 2] = float(obs.extra_hand)
    v[sched + 3] = float(obs.hand_number >= hands - 1)
    best = max(obs.totals)
    for s in range(n):
        r = rel(s)
        v[o["totals"] + r] = _clip(obs.totals[s] / SCORE_SCALE)
        v[o["behind_leader"] + r] = _clip((obs.totals[s] - best) / SCORE_SCALE)
        v[o["exact"] + r] = min(obs.exact[s] / hands, 1.0)
    if rules.teams is not None:  # without teams, rule_vector has set oneself
        for team in rules.teams:
            if me in team:
                for s in team:
                    v[o["teammate"] + rel(s)] = 1
    v[o["phase"] + PHASES.index(obs.phase)] = 1
    # R-BID-CHANGE: being able to change one's bid is not being asked to act.
    asked = any(not isinstance(a, ChangeBid) for a in obs.legal_actions)
    v[o["my_turn"]] = float(asked)
    if obs.forbidden_bid is not None and asked and isinstance(obs.legal_actions[0], Bid):
        v[o["forbidden_bid"] + obs.forbidden_bid] = 1
    if obs.balance is not None:
        v[o["balance"] + BALANCES.index(obs.balance)] = 1
    v[DEVILS_BRIDGE_NOW] = float(obs.devils_bridge)
    return v


def _clip(x: float) -> float:
    return max(-SCORE_CLIP, min(SCORE_CLIP, x))


# --- Reading a vector back (tests, debugging) ---


def cards_in(vector: Sequence[float] | npt.NDArray[np.float32], field: str) -> list[Card]:
    """The cards set in a card field (``own_hand``, ``played``, ``turned`` or one
    52-wide block such as ``visible_hands``), with multiplicity."""
    a, b = LAYOUT[field]
    out: list[Card] = []
    for i in range(a, b):
        out.extend([ALL_CARDS[(i - a) % CARDS]] * round(float(vector[i])))
    return out
