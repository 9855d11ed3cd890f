"""The plan of a hand and the winner of a trick: the rules every part shares.

Who deals a hand, how many cards it has, who bids in which order, which bid
the hook forbids, who leads, whether trump is known before the bidding, who
names it, whether another hand follows, and which card wins a trick. The game
(``game.py``) applies these as it goes; the scorekeeper recomputes a score
sheet from them; the bots build their fast tables from ``beats``. Nothing else
in the package decides any of them.

>>> from ohhell.rules import PRESETS
>>> p = plan_hand(PRESETS["common"], 0, first_dealer=0)
>>> p.size, p.dealer, p.bidding_order, p.first_leader
(10, 0, (1, 2, 3, 0), 1)
>>> hook(PRESETS["common"], 10, [None, 3, 2, 4])  # the dealer may not make it 10
1
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from .cards import Card, Suit
from .rules import FirstLead, Rules, TieBreak, TrumpMode
from .scoring import leaders_tied

MAX_EXTRA_HANDS: Final = 20
"""R-TIE-EXTRA: at most this many tie-break hands, so every match ends (a
record or a table whose leaders stay tied cannot grow without end)."""

# Enum members read as globals: the game asks these questions every hand, and
# a member read off its Enum class costs several times a global read.
_LEAD_DEALER: Final = FirstLead.DEALER
_EXTRA_HANDS: Final = TieBreak.EXTRA_HANDS
_BIDDER: Final = TrumpMode.BIDDER


# --- Seats: everything goes clockwise. ---


def left_of(seat: int, players: int) -> int:
    """The next seat clockwise: the next to bid, to play, and the next dealer."""
    return seat + 1 if seat + 1 < players else 0


def dealer_of(first_dealer: int, number: int, players: int) -> int:
    """R-DEALER-ROTATE: the dealer of hand ``number`` (0-based)."""
    return (first_dealer + number) % players


def first_bidder(dealer: int, players: int) -> int:
    """R-BID-ORDER: the dealer's left bids first."""
    return left_of(dealer, players)


def bidding_order(dealer: int, players: int) -> tuple[int, ...]:
    """R-BID-ORDER: clockwise from the dealer's left; the dealer bids last."""
    return tuple((dealer + 1 + i) % players for i in range(players))


def first_leader(rules: Rules, dealer: int) -> int:
    """R-LEAD-DEALER / R-LEAD-LEFT: who leads the first trick."""
    return dealer if rules.first_lead is _LEAD_DEALER else first_bidder(dealer, rules.players)


def next_bidder(dealer: int, bids: Sequence[int | None]) -> int | None:
    """Under sequential bidding, the seat to bid next (None once all have bid)."""
    for seat in bidding_order(dealer, len(bids)):
        if bids[seat] is None:
            return seat
    return None


# --- The hands of a match. ---


def hand_size(rules: Rules, number: int) -> int:
    """The cards each player gets in hand ``number`` (0-based); a tie-break
    hand has the size of the last scheduled one (R-TIE-EXTRA)."""
    schedule = rules.schedule
    return schedule[number] if number < len(schedule) else schedule[-1]


def is_extra_hand(rules: Rules, number: int) -> bool:
    """Is hand ``number`` a tie-break hand (R-TIE-EXTRA)?"""
    return number >= len(rules.schedule)


def hand_follows(rules: Rules, number: int, totals: Sequence[int]) -> bool:
    """Is hand ``number`` (0-based) played, after hands that left ``totals``?

    Every scheduled hand is; past the schedule another hand is played while the
    leaders are tied, under R-TIE-EXTRA, at most ``MAX_EXTRA_HANDS`` times.
    """
    schedule = len(rules.schedule)
    if number < schedule:
        return True
    return (
        rules.tie_break is _EXTRA_HANDS
        and number < schedule + MAX_EXTRA_HANDS
        and leaders_tied(rules, totals)
    )


# --- Trump and bids. ---


def all_dealt(rules: Rules, size: int) -> bool:
    """Does a hand of ``size`` cards use the whole pack (no card left to turn)?"""
    return size * rules.players >= rules.deck_size


def set_trump(rules: Rules, number: int, size: int) -> tuple[bool, Suit | None]:
    """(known before the deal, suit): the trump the rules fix for hand ``number``.

    ``(False, None)`` when the hand decides it: a turned card (R-TRUMP-TURN)
    or the highest bidder (R-TRUMP-BIDDER).
    """
    match rules.trump:
        case TrumpMode.TURN:
            if all_dealt(rules, size):
                return True, None  # R-TRUMP-NONE-ALL-DEALT
            return False, None
        case TrumpMode.ROTATE:  # R-TRUMP-ROTATE
            return True, rules.trump_rotation[number % len(rules.trump_rotation)]
        case TrumpMode.FIXED:  # R-TRUMP-FIXED
            return True, rules.trump_suit
        case TrumpMode.BIDDER:
            return False, None
    return True, None  # TrumpMode.NONE


def hook(rules: Rules, size: int, bids: Sequence[int | None]) -> int | None:
    """R-HOOK: the bid forbidden to the last bidder, once every other seat has
    bid (None if the rules have no hook, or any bid would do)."""
    if not rules.hook:
        return None
    made = [b for b in bids if b is not None]
    if len(made) != len(bids) - 1:
        return None
    forbidden = size - sum(made)
    return forbidden if 0 <= forbidden <= size else None


def trump_namer(rules: Rules, dealer: int, bids: Sequence[int | None]) -> int | None:
    """R-TRUMP-BIDDER: who names trump once every bid is in: the highest
    bidder, the first of them in bidding order on a tie (None otherwise)."""
    if rules.trump is not _BIDDER or any(b is None for b in bids):
        return None
    order = bidding_order(dealer, len(bids))
    return max(order, key=lambda s: (bids[s] or 0, -order.index(s)))


# --- Tricks. ---


def beats(card: Card, best: Card, trump: Suit | None) -> bool:
    """R-TRICK: does ``card``, played after ``best`` (the trick's winner so far), win?

    A higher card of the same suit, or a trump on a card that is not trump.
    R-DECK-AU: of two identical cards the later one wins.
    """
    if card.suit is best.suit:
        return card.rank >= best.rank
    return card.suit is trump


def playable(hand: Sequence[Card], led: Suit | None) -> list[Card]:
    """R-FOLLOW: the cards of ``hand`` that may go on a trick led with ``led``
    (None: the trick is empty, so any card): the suit led if the hand has
    it, else any card. ``game.legal_actions`` writes this out for speed
    (tests/core/test_claim.py checks that the two agree)."""
    if led is not None:
        follow = [c for c in hand if c.suit is led]
        if follow:
            return follow
    return list(hand)


def trick_winner(cards: Sequence[Card], trump: Suit | None) -> int:
    """The index, in playing order, of the card that wins ``cards`` (a whole or
    a started trick).

    This is ``beats`` applied card by card, written out: it runs at the end
    of every trick, so it keeps the winner's suit and rank in locals instead
    of calling ``beats`` for each card (tests/core/test_card_play.py checks
    that the two agree).
    """
    best_i = 0
    suit = cards[0].suit
    rank = cards[0].rank
    # The led card is compared with itself too: it ties, so it stays the best.
    for i, card in enumerate(cards):
        if card.suit is suit:
            if card.rank >= rank:  # R-DECK-AU: of two identical cards the later wins
                best_i, rank = i, card.rank
        elif card.suit is trump:  # a trump on a card that is not trump
            best_i, suit, rank = i, trump, card.rank
    return best_i


def beat_masks(pack: Sequence[Card], trump: Suit | None) -> tuple[int, ...]:
    """For fast play: bit ``j`` of entry ``i`` is set when ``pack[j]`` played
    after ``pack[i]`` wins over it (``beats``), so a search can find a
    trick's winner with one lookup per card."""
    return tuple(
        sum(1 << j for j, other in enumerate(pack) if j != i and beats(other, card, trump))
        for i, card in enumerate(pack)
    )


# --- One hand's plan. ---


@dataclass(frozen=True, slots=True)
class HandPlan:
    """What the rules fix about hand ``number`` before a card is dealt."""

    number: int  # 0-based
    size: int
    extra: bool  # a tie-break hand (R-TIE-EXTRA)
    dealer: int
    bidding_order: tuple[int, ...]
    first_leader: int
    trump_known: bool  # is trump fixed before the deal (see set_trump)?
    trump: Suit | None  # that trump, when known

    @property
    def first_bidder(self) -> int:
        return self.bidding_order[0]


def plan_hand(rules: Rules, number: int, first_dealer: int) -> HandPlan:
    """The plan of hand ``number`` (0-based) of a match whose first dealer is
    ``first_dealer``."""
    n = hand_size(rules, number)
    deals = dealer_of(first_dealer, number, rules.players)
    known, trump = set_trump(rules, number, n)
    return HandPlan(
        number=number,
        size=n,
        extra=is_extra_hand(rules, number),
        dealer=deals,
        bidding_order=bidding_order(deals, rules.players),
        first_leader=first_leader(rules, deals),
        trump_known=known,
        trump=trump,
    )
