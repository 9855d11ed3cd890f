"""A fixed-size numeric encoding of one seat's observation, and one action space.

Everything here reads an ``Observation`` (``ohhell.view.observe``), never a
``GameState``, so what a vector may show is exactly what the seat may know:
redaction stays in ``view.observe``. The layout is the same for every variant
and player count (padded to ``MAX_PLAYERS`` seats), so one network can train on
them all; docs/env.md lists every field with its index range, and ``LAYOUT``
gives the same ranges to programs.

Actions (``ACTION_SIZE`` = 76 ids, one space for every variant):

* ``0..51``  play the card with that ``Card.index`` (clubs 2 first, spades ace
  last). In an Australian pack (R-DECK-AU) two identical cards are one id, as
  the engine treats them as one choice.
* ``52``     play blind: the card on one's forehead (R-DEVILS-BRIDGE).
* ``53..70`` bid 0..17 (``BID_BASE + bid``); 17 is the largest hand in any
  variant (52 cards among 3 players; an Australian pack gives 13).
* ``71..75`` name trump clubs, diamonds, hearts, spades, no trump (R-TRUMP-BIDDER).

R-BID-CHANGE: a bid change is a right no bot is made to decide, so it has no id;
the seat that could change its bid is simply not asked (``ohhell.seats_to_ask``).

>>> from ohhell.game import Bid, Play
>>> from ohhell.cards import Card
>>> action_id(Play(2, Card.parse("AS"))), action_id(Bid(0, 3)), ACTION_SIZE
(51, 56, 76)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from .. import (
    ALL_CARDS,
    Action,
    Bid,
    Bidding,
    Card,
    ChangeBid,
    Deck,
    FirstLead,
    NameTrump,
    Observation,
    Phase,
    Play,
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

PLAY_BLIND: Final = 52
BID_BASE: Final = 53
TRUMP_BASE: Final = BID_BASE + MAX_HAND + 1  # 71
ACTION_SIZE: Final = TRUMP_BASE + 5  # 76
TRUMP_CHOICES: Final[tuple[Suit | None, ...]] = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES, None)

SCORE_SCALE: Final = 100.0
"""Totals are divided by this and clipped to [-SCORE_CLIP, SCORE_CLIP]."""
SCORE_CLIP: Final = 10.0

PHASES: Final = (Phase.DRAW, Phase.DEAL, Phase.BID, Phase.TRUMP, Phase.PLAY, Phase.OVER)
_TRUMP_MODES: Final = tuple(TrumpMode)
_SCORINGS: Final = tuple(Scoring)
_TIE_BREAKS: Final = tuple(TieBreak)
_BALANCES: Final = ("under", "over", "even")

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


def encode(obs: Observation) -> npt.NDArray[np.float32]:
    """The observation as a float32 vector of ``OBSERVATION_SIZE``; see docs/env.md."""
    me = obs.seat
    if me is None:
        raise ValueError("encode needs a seat's observation, not a spectator's")
    rules = obs.rules
    n = rules.players
    v = np.zeros(OBSERVATION_SIZE, np.float32)
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
        v[o["seat_present"] + r] = 1
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
    if rules.teams is not None:
        for team in rules.teams:
            if me in team:
                for s in team:
                    v[o["teammate"] + rel(s)] = 1
    else:
        v[o["teammate"]] = 1
    v[o["phase"] + PHASES.index(obs.phase)] = 1
    asked = any(not isinstance(a, ChangeBid) for a in obs.legal_actions)
    v[o["my_turn"]] = float(asked)
    if obs.forbidden_bid is not None and asked and isinstance(obs.legal_actions[0], Bid):
        v[o["forbidden_bid"] + obs.forbidden_bid] = 1
    if obs.balance is not None:
        v[o["balance"] + _BALANCES.index(obs.balance)] = 1
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
    v[flags + 5] = float(obs.devils_bridge)
    v[flags + 6] = float(rules.no_trump_doubles)
    v[flags + 7] = float(rules.deck is Deck.AUSTRALIAN)
    return v


def _clip(x: float) -> float:
    return max(-SCORE_CLIP, min(SCORE_CLIP, x))


# --- Actions ---


def action_id(action: Action) -> int:
    """The id of a seat's action. ``ChangeBid`` and chance actions have none."""
    if isinstance(action, Play):
        return PLAY_BLIND if action.card is None else action.card.index
    if isinstance(action, Bid):
        if not 0 <= action.bid <= MAX_HAND:
            raise ValueError(f"a bid of {action.bid} is outside the action space (0..{MAX_HAND})")
        return BID_BASE + action.bid
    if isinstance(action, NameTrump):
        return TRUMP_BASE + TRUMP_CHOICES.index(action.suit)
    if isinstance(action, ChangeBid):
        raise ValueError("bid changes are not in the action space: the seat is never asked")
    raise ValueError(f"{action!r} is chance's action, not a seat's: it has no id")


def action_from_id(aid: int, seat: int, obs: Observation | None = None) -> Action:
    """The action of ``seat`` with id ``aid``. With ``obs`` (that seat's
    observation), raise ``ValueError`` saying why if the action is not legal."""
    aid = int(aid)
    action: Action
    if 0 <= aid < CARDS:
        action = Play(seat, ALL_CARDS[aid])
    elif aid == PLAY_BLIND:
        action = Play(seat, None)
    elif BID_BASE <= aid < TRUMP_BASE:
        action = Bid(seat, aid - BID_BASE)
    elif TRUMP_BASE <= aid < ACTION_SIZE:
        action = NameTrump(seat, TRUMP_CHOICES[aid - TRUMP_BASE])
    else:
        raise ValueError(f"action id {aid} is outside 0..{ACTION_SIZE - 1}")
    if obs is not None and action not in obs.legal_actions:
        raise ValueError(f"action {aid} ({describe_action_id(aid)}) is not legal: {_why_not(obs, seat)}")
    return action


def _why_not(obs: Observation, seat: int) -> str:
    if obs.seat != seat:
        return f"the observation is seat {obs.seat}'s, not seat {seat}'s"
    if not obs.legal_actions:
        return f"seat {seat} is not asked to act now (phase {obs.phase})"
    legal = ", ".join(describe_action_id(i) for i in legal_action_ids(obs))
    return f"in phase {obs.phase} seat {seat} may: {legal}"


def describe_action_id(aid: int) -> str:
    """``play AS``, ``play blind``, ``bid 3``, ``name trump hearts``."""
    if 0 <= aid < CARDS:
        return f"play {ALL_CARDS[aid]}"
    if aid == PLAY_BLIND:
        return "play blind"
    if BID_BASE <= aid < TRUMP_BASE:
        return f"bid {aid - BID_BASE}"
    if TRUMP_BASE <= aid < ACTION_SIZE:
        suit = TRUMP_CHOICES[aid - TRUMP_BASE]
        return "name no trump" if suit is None else f"name trump {suit.name.lower()}"
    return f"id {aid} (outside the action space)"


def legal_action_ids(obs: Observation) -> list[int]:
    """The ids of ``obs.legal_actions``, sorted, bid changes left out (R-BID-CHANGE)."""
    return sorted({action_id(a) for a in obs.legal_actions if not isinstance(a, ChangeBid)})


def action_mask(obs: Observation) -> npt.NDArray[np.int8]:
    """1 for each legal id (``ACTION_SIZE`` int8)."""
    mask = np.zeros(ACTION_SIZE, np.int8)
    for a in obs.legal_actions:
        if not isinstance(a, ChangeBid):
            mask[action_id(a)] = 1
    return mask


# --- Reading a vector back (tests, debugging) ---


def cards_in(vector: Sequence[float] | npt.NDArray[np.float32], field: str) -> list[Card]:
    """The cards set in a card field (``own_hand``, ``played``, ``turned`` or one
    52-wide block such as ``visible_hands``), with multiplicity."""
    a, b = LAYOUT[field]
    out: list[Card] = []
    for i in range(a, b):
        out.extend([ALL_CARDS[(i - a) % CARDS]] * round(float(vector[i])))
    return out


# --- Text ---


def observation_text(obs: Observation) -> str:
    """One seat's observation as plain text (what ``render`` shows an agent's view as)."""
    from ..describe import hand_words, trump_words  # words are for text output only: load them late

    n = obs.players
    hands = len(obs.rules.schedule)
    who = "spectator" if obs.seat is None else f"seat {obs.seat}"
    lines = [
        f"Oh Hell, view of {who}: hand {obs.hand_number + 1} of {hands}"
        f"{' (extra)' if obs.extra_hand else ''}, {obs.hand_size} card{'s' if obs.hand_size != 1 else ''}, "
        f"dealer seat {obs.dealer}, phase {obs.phase}"
    ]
    if obs.phase in (Phase.BID, Phase.TRUMP, Phase.PLAY):
        lines.append(f"Trump: {trump_words(obs)}")
        for s in range(n):
            bid = obs.bids[s]
            said = "sealed" if bid is None and obs.has_bid[s] else ("-" if bid is None else str(bid))
            voids = "".join(x.letter for x in sorted(obs.voids[s]))
            held = obs.hands[s]
            cards = f": {hand_words(held)}" if held is not None else ""
            void = f", void {voids}" if voids else ""
            lines.append(
                f"  seat {s}{' (you)' if s == obs.seat else ''}: bid {said}, took {obs.taken[s]}, "
                f"{obs.hand_counts[s]} cards{cards}{void}, total {obs.totals[s]}"
            )
        if obs.devils_bridge:
            lines.append("Devil's Bridge: you see every hand but your own.")
        if obs.trick:
            lines.append("Trick: " + ", ".join(f"seat {s} {c}" for s, c in obs.trick))
    else:
        lines.append("Totals: " + ", ".join(f"seat {s} {t}" for s, t in enumerate(obs.totals)))
    ids = legal_action_ids(obs)
    if ids:
        lines.append("Legal: " + ", ".join(f"{i} {describe_action_id(i)}" for i in ids))
    return "\n".join(lines)
