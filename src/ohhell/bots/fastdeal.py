"""A fast model of one deal for search: hands as bitmasks, a greedy playout.

Search bots play thousands of sampled deals per decision, which the general
engine is too slow for. Here a card is a *slot*: a bit position, ordered by
suit and then rank, so the lowest or highest card of a suit in a hand is one
bit operation. Identical cards of an Australian pack get adjacent slots, and
the later-played one wins (R-DECK-AU). Tests check that tricks won here equal
tricks won by the core engine for the same cards.

The playout policy makes every seat chase its target (its bid): take tricks
cheaply while short, shed high cards and duck once the bid is made.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from functools import cache

from .. import Card, Deck, Observation, Rules, Suit, australian_deck, beat_masks, standard_deck


class Layout:
    """Slot numbering for one pack: which slot is which card, and masks."""

    __slots__ = ("above", "beaten_by", "cards", "rank", "size", "slots_of", "suit", "suit_mask")

    def __init__(self, pack: Sequence[Card]) -> None:
        ordered = sorted(pack, key=lambda c: (c.suit, c.rank))
        self.size = len(ordered)
        self.cards: tuple[Card, ...] = tuple(ordered)
        self.suit = tuple(int(c.suit) for c in ordered)
        self.rank = tuple(int(c.rank) for c in ordered)
        self.suit_mask = tuple(sum(1 << i for i, c in enumerate(ordered) if c.suit == s) for s in range(4))
        # beaten_by[trump + 1][i]: the slots that beat slot i when played after
        # it, with that trump (-1: none), from the core's one rule (ohhell.beats),
        # so this table cannot disagree with the engine. Without trump these are
        # the higher cards of i's suit and an identical card (R-DECK-AU).
        self.beaten_by = tuple(beat_masks(ordered, None if t < 0 else Suit(t)) for t in range(-1, 4))
        self.above = self.beaten_by[0]
        slots: dict[Card, list[int]] = {}
        for i, c in enumerate(ordered):
            slots.setdefault(c, []).append(i)
        self.slots_of: dict[Card, tuple[int, ...]] = {c: tuple(v) for c, v in slots.items()}

    def masks(self, hands: Iterable[Iterable[Card]]) -> list[int]:
        """Each hand as a mask; identical cards take distinct slots."""
        used = 0
        out = []
        for hand in hands:
            m = 0
            for card in hand:
                for slot in self.slots_of[card]:
                    bit = 1 << slot
                    if not used & bit:
                        used |= bit
                        m |= bit
                        break
                else:
                    raise ValueError(f"{card} appears more often than the pack holds")
            out.append(m)
        return out

    def slot(self, card: Card, taken: int = 0) -> int:
        """A slot for ``card`` not in ``taken`` (the first free copy)."""
        for s in self.slots_of[card]:
            if not taken & (1 << s):
                return s
        raise ValueError(f"no free slot for {card}")

    def cards_of(self, mask: int) -> list[Card]:
        out = []
        while mask:
            low = mask & -mask
            out.append(self.cards[low.bit_length() - 1])
            mask ^= low
        return out


@cache
def layout_for(deck: Deck, players: int) -> Layout:
    return Layout(australian_deck(players) if deck is Deck.AUSTRALIAN else standard_deck())


def layout(rules: Rules) -> Layout:
    return layout_for(rules.deck, rules.players if rules.deck is Deck.AUSTRALIAN else 4)


def seen_slots(lay: Layout, obs: Observation, used: int) -> tuple[list[int], int]:
    """Slots for the cards on the table and the cards gone (played or turned),
    none of them in ``used`` (the hands' slots): the current trick's slots in
    order, and a mask of every slot seen (the trick's included)."""
    trick = []
    for _, card in obs.trick:
        slot = lay.slot(card, used)
        used |= 1 << slot
        trick.append(slot)
    gone = sum(1 << slot for slot in trick)
    cards = [c for t in obs.tricks for c in t.cards]
    if obs.turned is not None:
        cards.append(obs.turned)
    for card in cards:
        slot = lay.slot(card, used)
        used |= 1 << slot
        gone |= 1 << slot
    return trick, gone


def lookup_winner(lay: Layout, cards: Sequence[int], trump: int) -> int:
    """Index in ``cards`` (slots in playing order) of the winning card (R-TRICK).

    Not a second copy of the rule: it only reads ``Layout.beaten_by``, the
    table built from the core's ``ohhell.beats``, one lookup per card."""
    best = cards[0]
    best_i = 0
    beaten_by = lay.beaten_by[trump + 1]
    for i in range(1, len(cards)):
        c = cards[i]
        if beaten_by[best] >> c & 1:
            best, best_i = c, i
    return best_i


def _low(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _high(mask: int) -> int:
    return mask.bit_length() - 1


def _lowest_rank(lay: Layout, mask: int, avoid_suit: int) -> int:
    """The lowest-ranked card of ``mask``, preferring suits other than ``avoid_suit``."""
    best, best_key = -1, (2, 99)
    for s in range(4):
        m = mask & lay.suit_mask[s]
        if m:
            c = _low(m)
            key = (1 if s == avoid_suit else 0, lay.rank[c])
            if key < best_key:
                best, best_key = c, key
    return best


def _highest_rank(lay: Layout, mask: int, avoid_suit: int) -> int:
    """The highest-ranked card of ``mask``, preferring suits other than ``avoid_suit``."""
    best, best_key = -1, (-1, -1)
    for s in range(4):
        m = mask & lay.suit_mask[s]
        if m:
            c = _high(m)
            key = (0 if s == avoid_suit else 1, lay.rank[c])
            if key > best_key:
                best, best_key = c, key
    return best


def choose_card(
    lay: Layout,
    hand: int,
    trick: Sequence[int],
    trump: int,
    need: int,
    tricks_left: int,
    unseen: int,
    voids: Sequence[int],
    seat: int,
    last: bool = True,
    winning: int = -1,
) -> int:
    """The greedy policy's card for ``seat`` holding ``hand``: chase ``need``
    more tricks, or duck.

    The policy uses only what a player at the table knows: its hand, the
    trick, ``unseen`` (the cards it has not seen: other hands and the stock)
    and ``voids`` (per seat, a bit per suit that seat has shown it lacks).
    A policy that peeked at the other hands would make every simulated
    player far better at making its bid than real players are.
    ``winning``, when known, is the slot winning the trick so far.

    Each refinement below was kept because a seat playing it gained points
    against seats playing without it, over thousands of the same deals.
    """
    suit_mask = lay.suit_mask
    others = unseen & ~hand
    if 0 < need < tricks_left and trump >= 0 and _sure_tricks(lay, hand, trump, others) >= need:
        # Top trumps that no unseen card beats win whenever they are played,
        # so they are tricks already in hand: a seat holding enough of them
        # ducks the other tricks instead of grabbing one it does not need.
        need = 0
    if not trick:
        return _lead(lay, hand, trump, need, tricks_left, others, voids, seat)
    led = lay.suit[trick[0]]
    follow = hand & suit_mask[led]
    legal = follow or hand
    w = winning if winning >= 0 else trick[lookup_winner(lay, trick, trump)]
    if lay.suit[w] == led:
        beats = (follow & lay.above[w]) if follow else (hand & suit_mask[trump] if trump >= 0 else 0)
    else:  # a trump is winning
        beats = 0 if follow else (hand & lay.above[w])
    if need > 0:
        if beats:
            if not last:
                # Later players may overtake a cheap winner: prefer the lowest
                # card that no unseen card beats and no seat shown void can ruff.
                # A ruff is overruffed only by a later seat that is out of the
                # suit too, so while none has shown that, the lowest trump does.
                n = len(voids)
                later_void = any(voids[(seat + k) % n] >> led & 1 for k in range(1, n - len(trick)))
                cand = beats
                while cand:
                    c = _low(cand)
                    if lay.suit[c] == led:
                        safe = not others & lay.above[c] and not (
                            trump >= 0 and _ruff_shown(voids, seat, led, trump)
                        )
                    else:
                        safe = not later_void or not others & lay.above[c] & suit_mask[trump]
                    if safe:
                        return c
                    cand &= cand - 1
            return _low(beats)
        return _lowest_rank(lay, legal, trump)
    losers = legal & ~beats
    if losers:
        if follow:
            return _high(losers)
        # Out of the suit: shed the card most likely to win a trick later,
        # the one fewest unseen cards can beat (then the higher rank).
        best, best_key = -1, (99, 0)
        for s in range(4):
            m = losers & suit_mask[s]
            if m:
                c = _high(m)
                key = ((others & lay.above[c]).bit_count(), -lay.rank[c])
                if key < best_key:
                    best, best_key = c, key
        return best
    return _high(beats)


def _sure_tricks(lay: Layout, hand: int, trump: int, others: int) -> int:
    """How many of ``hand``'s top trumps no card in ``others`` beats."""
    sure = 0
    m = hand & lay.suit_mask[trump]
    while m:
        top = _high(m)
        if others & lay.above[top]:
            break
        sure += 1
        m ^= 1 << top
    return sure


def _lead(
    lay: Layout,
    hand: int,
    trump: int,
    need: int,
    tricks_left: int,
    others: int,
    voids: Sequence[int],
    seat: int,
) -> int:
    """The greedy policy's lead."""
    suit_mask = lay.suit_mask
    trumps = hand & suit_mask[trump] if trump >= 0 else 0
    if need > 0:
        if trumps and need >= tricks_left:
            return _high(trumps)  # every trick needed: top trump
        # Lead a card nobody can beat in its suit: side suits first, cashed
        # before a void behind can ruff them; a top trump wins later anyway.
        order = [x for x in range(4) if x != trump] + ([trump] if trump >= 0 else [])
        for s in order:
            m = hand & suit_mask[s]
            if m:
                top = _high(m)
                if not others & lay.above[top] and (
                    s == trump or trump < 0 or not _ruff_shown(voids, seat, s, trump)
                ):
                    return top
        if trumps:
            # Lead low from the shortest side suit: once out of it, a trump wins it.
            best, shortest = -1, 99
            for s in range(4):
                m = hand & suit_mask[s]
                if s != trump and m and m.bit_count() < shortest:
                    best, shortest = _low(m), m.bit_count()
            if best >= 0:
                return best
        return _lowest_rank(lay, hand, trump)
    # Ducking: lead the low card that the most unseen cards of its suit beat
    # (a trump last).
    best, best_key = -1, (2, 0)
    for s in range(4):
        m = hand & suit_mask[s]
        if m:
            c = _low(m)
            key = (1 if s == trump else 0, -(others & lay.above[c]).bit_count())
            if key < best_key:
                best, best_key = c, key
    return best


def _ruff_shown(voids: Sequence[int], seat: int, suit: int, trump: int) -> bool:
    # Has another seat shown it lacks ``suit`` while not having shown it lacks trump?
    return any(s != seat and v >> suit & 1 and not v >> trump & 1 for s, v in enumerate(voids))


def playout(
    lay: Layout,
    hands: list[int],
    trump: int,
    leader: int,
    trick: list[int],
    taken: list[int],
    targets: Sequence[int],
    unseen: int,
    voids: list[int],
    first: int | None = None,
    noise: float = 0.0,
    rng: random.Random | None = None,
) -> list[int]:
    """Play the deal to its end with the greedy policy; return tricks taken.

    ``hands``, ``trick``, ``taken`` and ``voids`` are changed in place.
    ``unseen`` holds every card no player has seen yet (hands and stock).
    ``first``, if given, is the slot the seat to play plays now (the move
    being evaluated). With ``noise`` (and ``rng``), each card is a random
    legal one with that probability: no player is as steady as the policy.
    """
    n = len(hands)
    tricks_left = sum(bin(h).count("1") for h in hands) // n + (1 if trick else 0)
    seat = (leader + len(trick)) % n
    suit = lay.suit
    beaten_by = lay.beaten_by[trump + 1]
    # The trick's winner so far, kept as cards fall (one lookup a card).
    at = lookup_winner(lay, trick, trump) if trick else -1
    w = trick[at] if trick else -1
    while True:
        while len(trick) < n:
            hand = hands[seat]
            if first is not None:
                card, first = first, None
            elif noise and rng is not None and rng.random() < noise:
                legal = hand & lay.suit_mask[suit[trick[0]]] if trick else 0
                card = _random_bit(legal or hand, rng)
            else:
                card = choose_card(
                    lay,
                    hand,
                    trick,
                    trump,
                    targets[seat] - taken[seat],
                    tricks_left,
                    unseen,
                    voids,
                    seat,
                    len(trick) == n - 1,
                    w,
                )
            bit = 1 << card
            hands[seat] = hand & ~bit
            unseen &= ~bit
            if not trick:
                w, at = card, 0
            else:
                if suit[card] != suit[trick[0]]:
                    voids[seat] |= 1 << suit[trick[0]]
                if beaten_by[w] >> card & 1:
                    w, at = card, len(trick)
            trick.append(card)
            seat = seat + 1 if seat + 1 < n else 0
        winner = (leader + at) % n
        w = -1
        taken[winner] += 1
        tricks_left -= 1
        trick.clear()
        leader = seat = winner
        if not hands[0]:
            return taken


def _random_bit(mask: int, rng: random.Random) -> int:
    """A slot of ``mask`` chosen uniformly."""
    k = rng.randrange(mask.bit_count())
    for _ in range(k):
        mask &= mask - 1
    return _low(mask)


def suit_index(suit: Suit | None) -> int:
    return -1 if suit is None else int(suit)
