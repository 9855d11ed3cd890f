"""A perfect-recall information state: everything one seat has seen in the current hand.

``encoding.encode`` summarises the position (cards played, tricks taken, voids);
search methods such as CFR and recurrent learners need the history itself: who
bid what in bidding order, and which seat played which card to which trick. This
module gives it in two forms, both read from an ``Observation`` alone, never from
a ``GameState``, so redaction stays in ``view.observe``:

* ``information_state(obs)``: a fixed-size float32 tensor of ``HISTORY_SIZE``
  (``HISTORY_LAYOUT`` gives each field's range; docs/env.md lists them);
* ``information_state_string(obs)``: a canonical text key of the same
  information. Two observations a seat cannot tell apart give the same string,
  and any difference in what it has seen gives a different one.

Both cover the current hand only; the match so far (totals, hand number) is in
the compact vector, so concatenate the two to key a whole match. Per-seat blocks
are relative to the observer, as in ``encoding``: block r is the seat r places
to its left. The tensor and the string hold the final bid of a seat that
changed its bid (R-BID-CHANGE): an ``Observation`` keeps no earlier bid.

>>> HISTORY_LAYOUT["seat"], HISTORY_SIZE
((0, 7), 6967)
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from .. import Card, Observation, Phase, bidding_order
from ..encoding import CARDS, MAX_HAND, MAX_PLAYERS, PHASES, TRUMP_CHOICES

_IN_HAND: Final = (Phase.BID, Phase.TRUMP, Phase.PLAY)

# (name, length, high). Every field is at least 0; card counts reach 2 in an
# Australian pack (R-DECK-AU), everything else is 0/1.
_FIELDS: Final[tuple[tuple[str, int, float], ...]] = (
    ("seat", MAX_PLAYERS, 1),  # one-hot: the observer's own seat (absolute, 0..6)
    ("players", MAX_PLAYERS - 2, 1),  # one-hot: 3..7 players
    ("phase", len(PHASES), 1),  # one-hot: draw, deal, bid, trump, play, over
    ("hand_size", MAX_HAND, 1),  # one-hot: this hand's size 1..17
    ("dealer", MAX_PLAYERS, 1),  # one-hot relative seat of the dealer
    ("own_hand", CARDS, 2),  # counts of the cards one was dealt; zero under R-DEVILS-BRIDGE
    ("visible_hands", (MAX_PLAYERS - 1) * CARDS, 2),  # R-DEVILS-BRIDGE: others' hands as dealt
    ("turned", CARDS, 1),  # the turned card (R-TRUMP-TURN)
    ("trump", len(TRUMP_CHOICES), 1),  # clubs, diamonds, hearts, spades, no trump; zero while undecided
    ("trump_undecided", 1, 1),  # R-TRUMP-BIDDER: the highest bidder has still to name it
    ("trump_namer", MAX_PLAYERS, 1),  # R-TRUMP-BIDDER: one-hot relative seat naming trump
    ("bidder", MAX_PLAYERS * MAX_PLAYERS, 1),  # per bidding turn k: one-hot relative seat bidding k-th
    ("has_bid", MAX_PLAYERS, 1),  # per bidding turn: that seat has bid
    ("sealed", MAX_PLAYERS, 1),  # per bidding turn: has bid, bid not shown yet (R-BID-SIMULTANEOUS)
    ("bids", MAX_PLAYERS * (MAX_HAND + 1), 1),  # per bidding turn: one-hot bid 0..17, where shown
    ("leaders", MAX_HAND * MAX_PLAYERS, 1),  # per trick t: one-hot relative seat that leads it
    ("tricks", MAX_HAND * MAX_PLAYERS * CARDS, 1),  # per trick t, relative seat r: the card r played
)


def _layout() -> dict[str, tuple[int, int]]:
    out, at = {}, 0
    for name, size, _ in _FIELDS:
        out[name] = (at, at + size)
        at += size
    return out


HISTORY_LAYOUT: Final[dict[str, tuple[int, int]]] = _layout()
"""Each field's ``[start, end)`` index range in the information state."""
HISTORY_SIZE: Final = max(end for _, end in HISTORY_LAYOUT.values())

_O: Final = {name: a for name, (a, _) in HISTORY_LAYOUT.items()}


def history_bounds() -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Per-element lower and upper bounds (for a ``gymnasium.spaces.Box``)."""
    low = np.zeros(HISTORY_SIZE, np.float32)
    high = np.empty(HISTORY_SIZE, np.float32)
    for name, _, hi in _FIELDS:
        a, b = HISTORY_LAYOUT[name]
        high[a:b] = hi
    return low, high


def dealt_hands(obs: Observation) -> tuple[tuple[Card, ...] | None, ...]:
    """Each seat's hand as dealt, as far as the seat sees it (``None`` where
    unseen): the cards it holds now and those it has played this hand, sorted.
    Under Devil's Bridge (R-DEVILS-BRIDGE) the observer's own entry is None."""
    played = played_by_seat(obs)
    return tuple(
        None if held is None else tuple(sorted((*held, *played[s]), key=lambda c: c.index))
        for s, held in enumerate(obs.hands)
    )


def played_by_seat(obs: Observation) -> list[list[Card]]:
    """The cards each seat has played this hand, in order (the current trick's last)."""
    n = obs.players
    played: list[list[Card]] = [[] for _ in range(n)]
    for trick in obs.tricks:
        for i, card in enumerate(trick.cards):
            played[trick.seat_of(i, n)].append(card)
    for s, card in obs.trick:
        played[s].append(card)
    return played


def _seat_of(obs: Observation) -> int:
    if obs.seat is None:
        raise ValueError("an information state needs a seat's observation, not a spectator's")
    return obs.seat


def _all_tricks(obs: Observation) -> list[tuple[int, list[tuple[int, Card]]]]:
    """Every trick of the hand so far as (leader, [(seat, card), ...]) in
    playing order, the current one last (while it is being played)."""
    n = obs.players
    out = [(t.leader, [(t.seat_of(i, n), c) for i, c in enumerate(t.cards)]) for t in obs.tricks]
    if obs.phase is Phase.PLAY:
        out.append((obs.leader, list(obs.trick)))  # the leader is known before the lead
    return out


def information_state(obs: Observation) -> npt.NDArray[np.float32]:
    """The seat's perfect-recall information state for the current hand, a
    float32 tensor of ``HISTORY_SIZE``; see ``HISTORY_LAYOUT`` and docs/env.md."""
    me = _seat_of(obs)
    n = obs.players
    v = np.zeros(HISTORY_SIZE, np.float32)
    o = _O

    def rel(seat: int) -> int:
        return (seat - me) % n

    v[o["seat"] + me] = 1
    v[o["players"] + n - 3] = 1
    v[o["phase"] + PHASES.index(obs.phase)] = 1
    if obs.phase not in _IN_HAND:
        return v  # between hands and after the match nothing of a hand is in view
    v[o["hand_size"] + obs.hand_size - 1] = 1
    v[o["dealer"] + rel(obs.dealer)] = 1
    for s, hand in enumerate(dealt_hands(obs)):
        if hand is None:
            continue
        base = o["own_hand"] if s == me else o["visible_hands"] + (rel(s) - 1) * CARDS
        for c in hand:
            v[base + c.index] += 1
    if obs.turned is not None:
        v[o["turned"] + obs.turned.index] = 1
    if obs.trump_decided:
        v[o["trump"] + TRUMP_CHOICES.index(obs.trump)] = 1
    else:
        v[o["trump_undecided"]] = 1
    if obs.trump_namer is not None:
        v[o["trump_namer"] + rel(obs.trump_namer)] = 1
    for k, s in enumerate(bidding_order(obs.dealer, n)):  # R-BID-ORDER
        v[o["bidder"] + k * MAX_PLAYERS + rel(s)] = 1
        bid = obs.bids[s]
        if obs.has_bid[s]:
            v[o["has_bid"] + k] = 1
            if bid is None:  # R-BID-SIMULTANEOUS: only "has bid" until all are in
                v[o["sealed"] + k] = 1
        if bid is not None:
            v[o["bids"] + k * (MAX_HAND + 1) + bid] = 1
    for t, (leader, plays) in enumerate(_all_tricks(obs)):
        v[o["leaders"] + t * MAX_PLAYERS + rel(leader)] = 1
        for s, card in plays:
            v[o["tricks"] + (t * MAX_PLAYERS + rel(s)) * CARDS + card.index] = 1
    return v


def _cards(cards: tuple[Card, ...]) -> str:
    return " ".join(str(c) for c in cards) or "-"


def information_state_string(obs: Observation) -> str:
    """The same information as ``information_state``, as a canonical key that
    reads well. Seats are absolute here; cards are sorted by ``Card.index``.

    ``seat 2 of 4 | play | dealer 1 | size 3 | hand 2C 9H AS | turned 5S |
    trump S | bids 2:1 3:0 0:1 1:0 | tricks 2:9H 3:AH 0:4H 1:2H / 3 leads`` is seat
    2's view while seat 3 is to lead the second trick. See docs/env.md.
    """
    me = _seat_of(obs)
    n = obs.players
    parts = [f"seat {me} of {n}", str(obs.phase)]
    if obs.phase not in _IN_HAND:
        return " | ".join(parts)
    parts += [f"dealer {obs.dealer}", f"size {obs.hand_size}"]
    dealt = dealt_hands(obs)
    own = dealt[me]
    parts.append("hand blind" if own is None else f"hand {_cards(own)}")  # R-DEVILS-BRIDGE: unseen
    seen = [f"{s}:{_cards(h)}" for s, h in enumerate(dealt) if h is not None and s != me]
    if seen:
        parts.append("seen " + " ".join(seen))
    if obs.turned is not None:
        parts.append(f"turned {obs.turned}")
    trump = "?" if not obs.trump_decided else "none" if obs.trump is None else obs.trump.letter
    parts.append(f"trump {trump}")
    if obs.trump_namer is not None:
        parts.append(f"namer {obs.trump_namer}")
    bids = []
    for s in bidding_order(obs.dealer, n):  # R-BID-ORDER
        bid = obs.bids[s]
        if bid is not None:
            bids.append(f"{s}:{bid}")
        elif obs.has_bid[s]:
            bids.append(f"{s}:?")  # R-BID-SIMULTANEOUS: sealed
    parts.append("bids " + (" ".join(bids) or "-"))
    tricks = [
        " ".join([f"{s}:{c}" for s, c in plays] or [f"{leader} leads"]) for leader, plays in _all_tricks(obs)
    ]
    if tricks:
        parts.append("tricks " + " / ".join(tricks))
    return " | ".join(parts)
