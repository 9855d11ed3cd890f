"""Reading the hidden cards from the play: how likely each card a seat played was, given its hand.

A seat that still needs tricks and, last to play, follows with a card too
low to win most likely holds nothing higher in that suit; a seat that has
made its bid and drops its ace under a king is unlikely to hold a small
card there. The expert weighs every world it deals by how well the hands
dealt explain the cards the other seats have played, as it weighs them by
the bids.

The model: a seat picks among its legal cards with chance proportional to
``exp(w . f(card, context))``, where ``f`` reads only what the whole table
saw when the card was played (the trick so far, trump, the cards gone, the
seat's bid and tricks taken, the tricks left). So for one past card each
candidate's score is the same in every world, and a world changes only
which legal cards the seat had to choose from. ``w`` is fitted to the
expert's own play by ``bench/experiments/play_model.py`` and shipped in
``data/play_model.json``.

Only the standard library: the weights are a few dozen numbers in JSON.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from .. import Card, Observation
from .fastdeal import Layout, suit_index
from .shipped import load_weights

# By the seat's need (bid less tricks taken: still wanting tricks, made,
# already over), for a card that follows or discards and for a lead; then
# three that grow with how urgently a wanting seat needs its tricks. These
# read the card and the table only.
_FOLLOW = ("wins", "wins_last", "boss", "rank", "trump")
_LEAD = ("lead_boss", "lead_rank", "lead_trump")
_STATES = ("want", "made", "over")
_PUBLIC = (
    *(f"{state}:{name}" for state in _STATES for name in _FOLLOW + _LEAD),
    "want:wins_urgency",
    "want:rank_urgency",
    "want:lead_rank_urgency",
)
# Then, by the need again, where the card stands among the seat's own legal
# cards of its suit: its lowest or highest, its cheapest card that wins the
# trick so far, its dearest card that does not (a lead: lowest or highest).
_RELATIVE = ("lowest", "highest", "cheapest_winner", "dearest_loser", "lead_lowest", "lead_highest")
FEATURES = (*_PUBLIC, *(f"{state}:{name}" for state in _STATES for name in _RELATIVE))
_WIDTH = len(_FOLLOW) + len(_LEAD)


@dataclass(frozen=True, slots=True)
class PlayContext:
    """What the whole table knew when ``seat`` chose a card."""

    seat: int
    led: int  # the suit led, -1 when the seat leads
    winning: int  # the slot winning the trick so far, -1 when the seat leads
    last: bool  # the seat plays the trick's last card
    need: int  # the seat's bid less the tricks it had taken
    left: int  # tricks left in the hand, this one included
    gone: int  # slots of the cards played before this one (and the turned card)
    trump: int  # suit index, -1 for none


def features(lay: Layout, slot: int, ctx: PlayContext, legal: int) -> list[float]:
    """The model's inputs for playing ``slot`` in ``ctx`` from the legal
    cards ``legal`` (a mask), in ``FEATURES`` order."""
    f = public_features(lay, slot, ctx)
    rel = [0.0] * (len(_STATES) * len(_RELATIVE))
    base = _state(ctx) * len(_RELATIVE)
    for k, flag in enumerate(standing(lay, slot, ctx, legal)):
        if flag:
            rel[base + k] = 1.0
    return f + rel


def _state(ctx: PlayContext) -> int:
    return 0 if ctx.need > 0 else 1 if ctx.need == 0 else 2


def standing(lay: Layout, slot: int, ctx: PlayContext, legal: int) -> tuple[bool, ...]:
    """Where ``slot`` stands among the legal cards of its suit (``_RELATIVE`` order)."""
    bit = 1 << slot
    mine = legal & lay.suit_mask[lay.suit[slot]]
    lowest = mine & -mine == bit
    highest = mine.bit_length() - 1 == slot
    if ctx.led < 0:
        return (False, False, False, False, lowest, highest)
    winners = mine & lay.beaten_by[ctx.trump + 1][ctx.winning]
    if winners & bit:
        return (lowest, highest, winners & -winners == bit, False, False, False)
    losers = mine & ~winners
    return (lowest, highest, False, losers.bit_length() - 1 == slot, False, False)


def public_features(lay: Layout, slot: int, ctx: PlayContext) -> list[float]:
    """The inputs that read only the card and the table (``_PUBLIC`` order)."""
    f = [0.0] * len(_PUBLIC)
    higher = lay.above[slot] & ~ctx.gone & ~(1 << slot)
    boss = 1.0 if not higher else 0.0
    rank = (lay.rank[slot] - 2) / 12.0
    trump = 1.0 if lay.suit[slot] == ctx.trump else 0.0
    base = _state(ctx) * _WIDTH
    urgency = ctx.need / ctx.left if ctx.need > 0 and ctx.left > 0 else 0.0
    if ctx.led < 0:
        f[base + 5] = boss
        f[base + 6] = rank
        f[base + 7] = trump
        f[-1] = rank * urgency
        return f
    wins = 1.0 if lay.beaten_by[ctx.trump + 1][ctx.winning] >> slot & 1 else 0.0
    f[base] = wins
    f[base + 1] = wins if ctx.last else 0.0
    f[base + 2] = boss
    f[base + 3] = rank
    f[base + 4] = trump
    f[-3] = wins * urgency
    f[-2] = rank * urgency
    return f


def history(obs: Observation, lay: Layout) -> tuple[list[tuple[PlayContext, int]], PlayContext | None]:
    """Every card played this hand (its context and slot), in order, and the
    context of the card to be played next (None when no card is due, or a
    bid is not known). A card's slot is the first of its slots not yet used
    (two packs hold each card twice, R-DECK-AU)."""
    n = obs.players
    trump = suit_index(obs.trump) if obs.trump_decided else -1
    gone = 0
    if obs.turned is not None:
        gone |= 1 << lay.slot(obs.turned, gone)
    taken = [0] * n
    size = obs.hand_size
    played: list[tuple[PlayContext, int]] = []
    tricks: list[tuple[int, Sequence[Card]]] = [(t.leader, t.cards) for t in obs.tricks]
    current = [card for _, card in obs.trick]
    leader = obs.trick[0][0] if obs.trick else obs.leader
    tricks.append((leader, current))
    pending: PlayContext | None = None
    for number, (first, cards) in enumerate(tricks):
        winning = -1
        led = -1
        for i in range(n):
            seat = (first + i) % n
            bid = obs.bids[seat]
            ctx = PlayContext(
                seat=seat,
                led=led,
                winning=winning,
                last=i == n - 1,
                need=(bid - taken[seat]) if bid is not None else 0,
                left=size - number,
                gone=gone,
                trump=trump,
            )
            if i >= len(cards):
                if bid is not None and number < size:
                    pending = ctx
                break
            slot = lay.slot(cards[i], gone)
            if bid is not None:
                played.append((ctx, slot))
            gone |= 1 << slot
            # The card winning so far, from the core's table (``Layout.beaten_by``).
            if winning < 0:
                winning, led = slot, lay.suit[slot]
            elif lay.beaten_by[trump + 1][winning] >> slot & 1:
                winning = slot
        else:
            taken[obs.tricks[number].winner] += 1  # a finished trick: the core says who won
    return played, pending


@cache
def weights() -> tuple[float, ...] | None:
    """The fitted weights, or None when the package ships none."""
    return load_weights("play_model.json", FEATURES)


@lru_cache(maxsize=4096)
def scores(lay: Layout, ctx: PlayContext, w: tuple[float, ...]) -> list[float]:
    """``exp`` of the part of each card's score that reads only the card and the
    table, for every slot of the pack not gone in ``ctx`` (0 for the rest).

    Kept: every later decision of the hand reads the same past cards again."""
    public = w[: len(_PUBLIC)]
    out = [0.0] * lay.size
    for slot in range(lay.size):
        if not ctx.gone >> slot & 1:
            f = public_features(lay, slot, ctx)
            out[slot] = math.exp(sum(a * b for a, b in zip(public, f, strict=True)))
    return out


def chance(lay: Layout, ctx: PlayContext, w: tuple[float, ...], legal: int, slot: int) -> float:
    """The model's chance that a seat holding the legal cards ``legal`` played ``slot``."""
    return chooser(lay, ctx, w)(legal, slot)


def chooser(lay: Layout, ctx: PlayContext, w: tuple[float, ...]) -> Callable[[int, int], float]:
    """``chance`` for one past card, its table and boosts worked out once:
    the likelihood asks it again for every new legal set a world gives."""
    table = scores(lay, ctx, w)
    base = len(_PUBLIC) + _state(ctx) * len(_RELATIVE)
    boosts = [math.exp(v) for v in w[base : base + len(_RELATIVE)]]

    def chance_of(legal: int, slot: int) -> float:
        total = chosen = 0.0
        rest = legal
        while rest:
            low = rest & -rest
            b = low.bit_length() - 1
            e = table[b]
            for boost, flag in zip(boosts, standing(lay, b, ctx, legal), strict=True):
                if flag:
                    e *= boost
            total += e
            if b == slot:
                chosen = e
            rest ^= low
        return chosen / total

    return chance_of


def play_likelihood(
    obs: Observation, lay: Layout, trust: float = 0.75, w: tuple[float, ...] | None = None
) -> Callable[[Sequence[int]], float] | None:
    """How well a world's hands (bit masks by seat, the cards held now) explain
    the cards the other seats have played this hand.

    Each card's chance under the model, mixed with a uniform pick among the
    legal cards (``1 - trust`` of it): no seat plays as the model does, and
    no single card should rule a world out. None when there is nothing to
    read (no model shipped, no card played by a seat whose hand is hidden,
    or a blind hand, R-DEVILS-BRIDGE).
    """
    if w is None:
        w = weights()
    if w is None or obs.devils_bridge or obs.seat is None:
        return None
    played, _ = history(obs, lay)
    hidden = {s for s in range(obs.players) if obs.hands[s] is None}
    # Walking back, each seat's cards from this one on: its hand when it
    # played a card was its hand now plus those.
    later = [0] * obs.players
    reads: list[tuple[int, int, int, Callable[[int, int], float], int, dict[int, float]]] = []
    for ctx, slot in reversed(played):
        later[ctx.seat] |= 1 << slot
        if ctx.seat in hidden:
            follow = lay.suit_mask[ctx.led] if ctx.led >= 0 else 0
            reads.append((ctx.seat, later[ctx.seat], follow, chooser(lay, ctx, w), slot, {}))
    if not reads:
        return None
    uniform = 1.0 - trust

    def likelihood(masks: Sequence[int]) -> float:
        weight = 1.0
        for seat, held, follow, chance_of, slot, seen in reads:
            hand = masks[seat] | held
            legal = (hand & follow) or hand  # R-FOLLOW
            p = seen.get(legal)
            if p is None:
                p = seen[legal] = uniform / legal.bit_count() + trust * chance_of(legal, slot)
            weight *= p
        return weight

    return likelihood


__all__ = [
    "FEATURES",
    "PlayContext",
    "chance",
    "chooser",
    "features",
    "history",
    "play_likelihood",
    "public_features",
    "scores",
    "standing",
    "weights",
]
