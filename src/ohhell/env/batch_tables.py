"""One rule set as lookup tables, for the batched simulator (``batch.py``).

The batched simulator steps thousands of games at once with array operations,
so it cannot call the core for every card. It does not decide the rules
either: every table here is filled once by asking the core's own functions
(``beats``, ``hook``, ``score_hand``, ``bid_balance``, ``set_trump``,
``plan_hand``, ``hand_follows``' schedule, ``left_of``, ...), so a rule keeps
its one place and the tables cannot disagree with ``GameState``
(``tests/env/test_batch.py`` replays the same actions through both).

Card ids are ``Card.index`` (suit-major: clubs 2 is 0, spades ace is 51), the
ids of the action space (``encoding``); trump ids are 0..3 for the suits and
4 for no trump (``encoding.TRUMP_CHOICES``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from .. import (
    ALL_CARDS,
    MAX_EXTRA_HANDS,
    Bidding,
    Deck,
    Rules,
    RulesError,
    TieBreak,
    TrumpMode,
    beats,
    bid_balance,
    bidding_order,
    first_bidder,
    first_leader,
    hook,
    left_of,
    plan_hand,
    score_hand,
    sides,
)
from ..encoding import MAX_HAND, TRUMP_CHOICES

CARDS: Final = 52
NO_TRUMP: Final = 4
"""The trump id of a hand without trump (``TRUMP_CHOICES[4] is None``)."""
BIDS: Final = MAX_HAND + 1
"""Bid ids per seat in the action space: 0..17."""
_BALANCES: Final = ("under", "over", "even")  # the order of encoding's "balance" field

I8 = npt.NDArray[np.int8]
IP = npt.NDArray[np.intp]
I32 = npt.NDArray[np.int32]
U64 = npt.NDArray[np.uint64]
F32 = npt.NDArray[np.float32]
B8 = npt.NDArray[np.bool_]


def refusal(rules: Rules) -> str | None:
    """Why the batched simulator cannot play ``rules``, or None if it can.

    A hand is 52 bits, one per card, so a pack with two of a card does not
    fit; every other option (and every preset) is played."""
    if rules.deck is Deck.AUSTRALIAN:
        return (
            "the batched simulator holds a hand as one bit per card, so it cannot play "
            "option deck=australian (a pack with two of some cards); use oh_hell_v0 for it"
        )
    return None


@dataclass(frozen=True, eq=False)
class RuleTables:
    """The core's answers for one rule set, as arrays (see ``rule_tables``)."""

    players: int
    hands: int  # hands in the schedule (R-SEQ-*)
    max_hands: int  # with tie-break hands (R-TIE-EXTRA)
    max_size: int  # the largest hand
    simultaneous: bool  # R-BID-SIMULTANEOUS
    bid_changes: bool  # R-BID-CHANGE: a seat is asked to change or keep its bid after it bids
    bidder_names_trump: bool  # R-TRUMP-BIDDER
    extra_hands: bool  # R-TIE-EXTRA
    devils_bridge: bool  # R-DEVILS-BRIDGE in the rules
    # Seats, by seat or by dealer.
    left: IP  # [n] left_of (R-DEALER-ROTATE, R-BID-ORDER, the next to play)
    next_asked: IP  # [n] the seat asked to bid after this one
    first_asked: IP  # [n] by dealer: the first seat asked to bid
    order: IP  # [n, n] by dealer: the bidding order (R-BID-ORDER)
    lead: IP  # [n] by dealer: who leads the first trick (R-LEAD-LEFT, R-LEAD-DEALER)
    # Hands, by hand number 0..max_hands (one past the end for the final observation).
    size: IP  # hand size (R-SEQ-*, R-TIE-EXTRA)
    trump_set: IP  # trump id fixed before the deal, -1 if the hand decides it (R-TRUMP-*)
    turns_card: B8  # a card is turned for trump (R-TRUMP-TURN)
    blind: B8  # the hand is played blind (R-DEVILS-BRIDGE)
    blind_size: B8  # [max_size + 1] by hand size: a hand of that size is played blind
    extra: B8  # a tie-break hand (R-TIE-EXTRA)
    # Cards and tricks.
    suit_of: IP  # [52] suit of each card id
    suit_bits: U64  # [5] the cards of each suit as bits (index 4: none)
    card_bits: U64  # [52] 1 << id
    beats: B8  # [5, 52, 52]: beats[trump, best, card] (R-TRICK, ohhell.beats)
    # Bids, by (hand size, bids made, sum of the bids made).
    bid_mask: I8  # [size, made, sum, 18]: the legal bid ids (R-BID-RANGE, R-HOOK)
    forbidden: IP  # [size, made, sum]: the bid the hook forbids the next bidder, -1 if none
    change_mask: I8  # [size, current bid, 18]: the bids a change may go to (R-BID-CHANGE)
    balance: IP  # [size, sum of all bids]: 0 under, 1 over, 2 even (R-BID-ANNOUNCE)
    # Scores: [no trump, namer context, bid, tricks] (R-SC-*).
    scores: I32
    side: F32  # [n, n]: side[i, j] = 1 if seat j's score counts for seat i (R-TEAMS)


def rule_tables(rules: Rules) -> RuleTables:
    """Ask the core every question the batched simulator needs answered."""
    why = refusal(rules)
    if why is not None:
        raise RulesError(why)
    n = rules.players
    schedule = rules.schedule
    extra = rules.tie_break is TieBreak.EXTRA_HANDS
    max_hands = len(schedule) + (MAX_EXTRA_HANDS if extra else 0)
    simultaneous = rules.bidding is Bidding.SIMULTANEOUS
    seats = range(n)

    left = np.array([left_of(s, n) for s in seats], np.intp)
    # Whose turn it is comes from game.seats_to_ask: under sequential bidding
    # the next in the bidding order; under simultaneous bidding every seat that
    # has not bid, in seat order, of which the batch (like oh_hell_v0) asks the
    # first: seat 0, then 1, ... whoever deals.
    if simultaneous:
        next_asked = np.array([min(s + 1, n - 1) for s in seats], np.intp)
        first_asked = np.zeros(n, np.intp)
    else:
        next_asked = left
        first_asked = np.array([first_bidder(d, n) for d in seats], np.intp)
    order = np.array([bidding_order(d, n) for d in seats], np.intp)
    lead = np.array([first_leader(rules, d) for d in seats], np.intp)

    sizes, trump_set, turns_card, blind, extra_hand = [], [], [], [], []
    for number in range(max_hands + 1):
        plan = plan_hand(rules, number, 0)
        sizes.append(plan.size)
        known = plan.trump_known
        trump_set.append(TRUMP_CHOICES.index(plan.trump) if known else -1)
        # chance.chance_action turns a card exactly when trump is turned and
        # not fixed before the deal (R-TRUMP-TURN, R-TRUMP-NONE-ALL-DEALT).
        turns_card.append(rules.trump is TrumpMode.TURN and not known)
        blind.append(rules.is_devils_bridge_hand(plan.size))
        extra_hand.append(plan.extra)
    max_size = max(schedule)
    bid_mask, forbidden, balance = _bid_tables(rules, max_size)

    suit_of = np.array([int(c.suit) for c in ALL_CARDS], np.intp)
    card_bits = np.array([1 << i for i in range(CARDS)], np.uint64)
    suit_bits = np.zeros(5, np.uint64)
    for s in range(4):
        suit_bits[s] = np.uint64(sum(1 << c.index for c in ALL_CARDS if c.suit == s))
    table = np.zeros((5, CARDS, CARDS), np.bool_)
    for t, trump in enumerate(TRUMP_CHOICES):
        for b, best in enumerate(ALL_CARDS):
            for c, card in enumerate(ALL_CARDS):
                table[t, b, c] = beats(card, best, trump)

    return RuleTables(
        players=n,
        hands=len(schedule),
        max_hands=max_hands,
        max_size=max_size,
        simultaneous=simultaneous,
        # game._do_bid opens the window only under sequential bidding, and
        # never after the last bid.
        bid_changes=rules.bid_changes and not simultaneous,
        bidder_names_trump=rules.trump is TrumpMode.BIDDER,
        extra_hands=extra,
        devils_bridge=rules.devils_bridge,
        left=left,
        next_asked=next_asked,
        first_asked=first_asked,
        order=order,
        lead=lead,
        size=np.array(sizes, np.intp),
        trump_set=np.array(trump_set, np.intp),
        turns_card=np.array(turns_card, np.bool_),
        blind=np.array(blind, np.bool_),
        blind_size=np.array([rules.is_devils_bridge_hand(k) for k in range(max_size + 1)], np.bool_),
        extra=np.array(extra_hand, np.bool_),
        suit_of=suit_of,
        suit_bits=suit_bits,
        card_bits=card_bits,
        beats=table,
        bid_mask=bid_mask,
        forbidden=forbidden,
        change_mask=_change_table(max_size),
        balance=balance,
        scores=_score_table(rules, max_size),
        side=_side_matrix(rules),
    )


def _bid_tables(rules: Rules, max_size: int) -> tuple[I8, IP, IP]:
    """Legal bids, the hook's forbidden bid and the bid balance, from ``hook``
    and ``bid_balance`` for every hand size, number of bids made and their sum."""
    n = rules.players
    most = max_size * n
    mask = np.zeros((max_size + 1, n, most + 1, BIDS), np.int8)
    forbidden = np.full((max_size + 1, n, most + 1), -1, np.intp)
    balance = np.zeros((max_size + 1, most + 1), np.intp)
    for size in range(1, max_size + 1):
        for made in range(n):
            for total in range(size * made + 1):
                # Any bids with this count and sum: the hook reads only those.
                bids: list[int | None] = [None] * n
                if made:
                    bids[:made] = [total] + [0] * (made - 1)
                banned = hook(rules, size, bids)
                mask[size, made, total, : size + 1] = 1  # R-BID-RANGE
                if banned is not None:
                    mask[size, made, total, banned] = 0
                    forbidden[size, made, total] = banned
        for total in range(size * n + 1):
            balance[size, total] = _BALANCES.index(bid_balance([total], size))
    return mask, forbidden, balance


def _change_table(max_size: int) -> I8:
    """R-BID-CHANGE, as ``game.legal_actions`` offers changes: any bid of the hand's
    range (R-BID-RANGE) but the current one; the hook does not apply to a change."""
    table = np.zeros((max_size + 1, BIDS, BIDS), np.int8)
    for size in range(max_size + 1):
        table[size, :, : size + 1] = 1
        for current in range(BIDS):
            table[size, current, current] = 0
    return table


def _score_table(rules: Rules, max_size: int) -> I32:
    """``score_hand`` for one seat by (no trump, namer context, bid, tricks).

    Context 0 is a seat that did not name trump; context ``1 + m`` is the seat
    that named trump (R-TRUMP-BIDDER) when the highest bid before its own, in
    bidding order, was ``m`` (0 when it bid first): R-SC-OKENUFF's overcall
    reads nothing else. Seat 1 of a made-up hand plays the seat scored, after
    seat 0 (the first bidder) bid ``m``."""
    n = rules.players
    contexts = max_size + 2 if rules.trump is TrumpMode.BIDDER else 1
    top = max_size + 1
    table = np.zeros((2, contexts, top, top), np.int32)
    for nt in (0, 1):
        for ctx in range(contexts):
            for bid in range(top):
                for tricks in range(top):
                    bids = [ctx - 1 if ctx else 0, bid] + [0] * (n - 2)
                    taken = [0, tricks] + [0] * (n - 2)
                    namer = 1 if ctx else None
                    score = score_hand(
                        rules, bids, taken, first_bidder=0, trump_namer=namer, no_trump=bool(nt)
                    )
                    table[nt, ctx, bid, tricks] = score[1]
    return table


def _side_matrix(rules: Rules) -> F32:
    n = rules.players
    side = np.zeros((n, n), np.float32)
    for team in sides(rules):
        for i in team:
            for j in team:
                side[i, j] = 1
    return side
