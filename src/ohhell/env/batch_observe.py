"""The batched simulator's observation: ``encoding``'s compact vector, built from arrays.

A batch holds one rule set, so its observation is the compact form of the
full vector (``ohhell.encoding.compact``: the same fields for this table's
seats, without what the rules fix; 552 values for 4 players), computed for
thousands of games at once from the simulator's arrays. Each value is the
same float32 as ``encode`` gives: a scaled field is divided in float64 and
rounded once, as Python's arithmetic in ``encode`` is. ``tests/env/test_batch.py``
checks, through whole matches of every preset, that every row is bit for bit
``to_compact(encode(observe(state, seat)))`` and that ``to_full`` of it is
``encode(...)``.
"""

from __future__ import annotations

from typing import Final, Protocol

import numpy as np
import numpy.typing as npt

from .. import Phase, Rules
from ..encoding import MAX_HAND, PHASES, SCORE_CLIP, SCORE_SCALE, compact_bounds, compact_layout
from .batch_bits import card_bits
from .batch_tables import BIDS, CARDS, RuleTables

BATCH_PHASES: Final[dict[str, int]] = {
    p.value: PHASES.index(p) for p in (Phase.BID, Phase.TRUMP, Phase.PLAY, Phase.OVER)
}
"""The phases a batched game is in, by encoding's phase ids (chance is internal)."""
_BID, _TRUMP, _PLAY, _OVER = (BATCH_PHASES[k] for k in ("bid", "trump", "play", "over"))

MATCH_FIELDS: Final = frozenset(
    {"schedule", "totals", "behind_leader", "exact", "teammate", "phase", "devils_bridge_now"}
)
"""Fields set outside a hand too (after the match); the rest are zero there, as in encoding."""

IP = npt.NDArray[np.intp]
U64 = npt.NDArray[np.uint64]
F32 = npt.NDArray[np.float32]


def batch_layout(rules: Rules) -> dict[str, tuple[int, int]]:
    """Each field's ``[start, end)`` range in the batch observation for ``rules``:
    ``encoding.compact_layout``."""
    return compact_layout(rules)


def observation_bounds(rules: Rules) -> tuple[F32, F32]:
    """Per-element bounds, each field's as in ``encoding.compact_bounds``, but a
    card appears at most once: the batch plays the standard pack only."""
    low, high = compact_bounds(rules)
    layout = compact_layout(rules)
    for name in ("own_hand", "visible_hands", "played"):
        if name in layout:
            a, b = layout[name]
            high[a:b] = 1
    return low, high


class BatchState(Protocol):
    """What ``build_observation`` reads of a ``batch.BatchSimulator``."""

    rules: Rules
    tables: RuleTables
    players: int
    num_games: int
    layout: dict[str, tuple[int, int]]
    observation_size: int
    hands: U64
    trick: IP
    bids: IP
    taken: IP
    voids: npt.NDArray[np.uint32]
    totals: IP
    exact: IP
    phase: IP
    to_act: IP
    changer: IP
    number: IP
    size: IP
    dealer: IP
    leader: IP
    trump: IP
    turned: IP
    bid_count: IP
    bid_sum: IP
    namer: IP
    played: U64
    tricks_done: IP


_RELATIVE: Final = {k: (np.arange(k)[:, None] + np.arange(k)[None, :]) % k for k in range(3, 8)}
"""For each table size, row s: the absolute seats of relative seats 0.. as seen from seat s."""


def build_observation(sim: BatchState, seats: IP, out: F32 | None = None) -> F32:
    """[B, observation_size] float32: each game's view of ``seats`` (one per game),
    written into ``out`` (C-contiguous, that shape) if given.

    Card planes are unpacked from the hands' bits; every one-hot field is
    gathered as a column per game (or per game and seat) and a 0/1, and all of
    them are written with one indexed store: a few dozen array operations
    whatever the batch size."""
    t, n, b, lay = sim.tables, sim.players, sim.num_games, sim.layout
    width = sim.observation_size
    if out is None:
        out = np.zeros((b, width), np.float32)
    else:
        if out.shape != (b, width) or out.dtype != np.float32 or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous float32 array of shape ({b}, {width})")
        out.fill(0)
    rel = _RELATIVE[n][seats]  # the absolute seat of relative seat r
    flat = (np.arange(b) * n)[:, None] + rel
    phase, size = sim.phase, sim.size
    in_hand = phase != _OVER
    hands = sim.hands.reshape(-1)

    own = hands[flat[:, 0]]
    if t.devils_bridge:
        blind = t.blind_size[size] & in_hand  # R-DEVILS-BRIDGE: one's own card unseen, the others seen
        own = np.where(blind, np.uint64(0), own)
        others = np.where(blind[:, None], hands[flat[:, 1:]], np.uint64(0))
        a, e = lay["visible_hands"]
        out[:, a:e] = card_bits(others, CARDS).reshape(b, -1)
        out[:, lay["devils_bridge_now"][0]] = t.blind_size[size]
    planes = card_bits(np.stack([own, sim.played], axis=1), CARDS)
    a, e = lay["own_hand"]
    out[:, a:e] = planes[:, 0]
    a, e = lay["played"]
    out[:, a:e] = planes[:, 1]

    # One-hot fields: a column per game (or per game and seat), set where it holds.
    columns: list[IP] = []
    holds: list[npt.NDArray[np.bool_]] = []

    def one_hot(field: str, at: IP, where: npt.NDArray[np.bool_]) -> None:
        columns.append((lay[field][0] + at).reshape(b, -1))
        holds.append(where.reshape(b, -1))

    cards = sim.trick.reshape(-1)[flat]
    played = cards >= 0
    one_hot("trick", np.arange(n) * CARDS + np.where(played, cards, 0), played)
    shown_card = (sim.turned >= 0) & in_hand
    one_hot("turned", np.where(shown_card, sim.turned, 0), shown_card)
    # Trump is shown once decided: at the deal, or when the highest bidder
    # names it (R-TRUMP-BIDDER).
    if t.bidder_names_trump:
        decided = phase == _PLAY
        out[:, lay["trump_undecided"][0]] = (phase == _BID) | (phase == _TRUMP)
    else:
        decided = in_hand
    one_hot("trump", np.where(decided, sim.trump, 0), decided)

    bids = sim.bids.reshape(-1)[flat]
    has_bid = bids >= 0
    shown = has_bid
    if t.simultaneous:  # R-BID-SIMULTANEOUS: others' bids sealed until all are in
        sealed = has_bid & (phase == _BID)[:, None] & (np.arange(n) > 0)[None, :]
        shown = has_bid & ~sealed
        a, e = lay["sealed"]
        out[:, a:e] = sealed
    one_hot("bids", np.arange(n) * BIDS + np.where(shown, bids, 0), shown)
    one_hot("hand_size", size - 1, in_hand)
    one_hot("dealer", (sim.dealer - seats) % n, in_hand)
    one_hot("leader", (sim.leader - seats) % n, in_hand)
    one_hot("trump_namer", (sim.namer - seats) % n, (sim.namer >= 0) & in_hand)
    one_hot("phase", phase, np.ones(b, np.bool_))
    # Asked to act: the seat to act, or under simultaneous bidding any seat
    # that has not bid (game.legal_actions offers it a bid). While a seat
    # decides on a bid change it is the next bidder that is to act for the
    # core (R-BID-CHANGE: a change alone is not a turn, as in encode).
    to_act = sim.to_act
    if t.bid_changes:
        to_act = np.where(sim.changer >= 0, t.next_asked[np.maximum(sim.changer, 0)], to_act)
    asked = seats == to_act
    if t.simultaneous:
        asked = np.where(phase == _BID, ~has_bid[:, 0], asked)
    out[:, lay["my_turn"][0]] = asked
    bidding = phase == _BID
    banned = t.forbidden[size, np.minimum(sim.bid_count, n - 1), sim.bid_sum]  # R-HOOK
    hooked = asked & bidding & (banned >= 0)
    one_hot("forbidden_bid", np.where(hooked, banned, 0), hooked)
    done = (sim.bid_count == n) & in_hand
    one_hot("balance", t.balance[size, sim.bid_sum], done)  # R-BID-ANNOUNCE
    at = np.concatenate(columns, axis=1)
    at += (np.arange(b) * width)[:, None]
    out.reshape(-1)[at] = np.concatenate(holds, axis=1, dtype=np.float32)  # storing floats is faster

    a, e = lay["has_bid"]
    out[:, a:e] = has_bid
    # Scaled fields: integers divided in float64 and rounded once to float32
    # on store, exactly as encode's Python arithmetic (a float32 reciprocal
    # would round twice and differ in the last bit).
    taken = sim.taken.reshape(-1)[flat]
    a, e = lay["taken"]
    out[:, a:e] = taken / MAX_HAND
    a, e = lay["need"]
    out[:, a:e] = np.where(shown, bids - taken, 0) / MAX_HAND
    a, e = lay["hand_counts"]
    out[:, a:e] = ((size - sim.tricks_done)[:, None] - played) / MAX_HAND
    out[:, lay["hand_size_scaled"][0]] = np.where(in_hand, size, 0) / MAX_HAND

    scheduled = t.hands
    number = sim.number
    a = lay["schedule"][0]
    out[:, a] = np.minimum(number, scheduled) / scheduled
    out[:, a + 1] = np.maximum(scheduled - number, 0) / scheduled
    out[:, a + 2] = t.extra[number]
    out[:, a + 3] = number >= scheduled - 1

    a, e = lay["voids"]  # C D H S of each seat (R-FOLLOW): a byte each
    out[:, a:e] = np.take(sim.voids, flat).astype("<u4", copy=False).view(np.uint8).reshape(b, -1)

    totals = sim.totals.reshape(-1)[flat]
    a, e = lay["totals"]
    out[:, a:e] = np.clip(totals / SCORE_SCALE, -SCORE_CLIP, SCORE_CLIP)
    a, e = lay["behind_leader"]
    best = totals[:, 0].copy()
    for r in range(1, n):  # a loop over seats: numpy's max along a short axis is slow
        np.maximum(best, totals[:, r], out=best)
    out[:, a:e] = np.maximum((totals - best[:, None]) / SCORE_SCALE, -SCORE_CLIP)
    a, e = lay["exact"]
    out[:, a:e] = np.minimum(sim.exact.reshape(-1)[flat] / scheduled, 1)
    if "teammate" in lay:
        a, e = lay["teammate"]
        out[:, a:e] = t.side[seats[:, None], rel]

    over = np.flatnonzero(~in_hand)
    if len(over):
        hand_columns = np.concatenate(
            [np.arange(a, e) for name, (a, e) in lay.items() if name not in MATCH_FIELDS]
        )
        out[np.ix_(over, hand_columns)] = 0
    return out
