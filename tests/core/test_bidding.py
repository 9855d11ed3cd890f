"""Bidding: the order, the range, the hook, bid changes, simultaneous bids and
the announcement of the balance, on known deals applied step by step."""

from __future__ import annotations

import random
from typing import Any

import pytest

import support
from ohhell import (
    PRESETS,
    Bid,
    Bidding,
    Card,
    ChangeBid,
    GameState,
    IllegalActionError,
    NameTrump,
    Phase,
    Play,
    Rules,
    RulesError,
    actors,
    advance_chance,
    apply,
    forbidden_bid,
    is_legal,
    legal_actions,
    new_game,
    observe,
)
from support import refused_by, snapshot

# Dealer 2, so seat 3 bids first and the order is 3, 0, 1, 2. Trump clubs.
DEAL = "AS KS QS | AH KH QH | AD KD QD | AC KC QC"
NO_CHANGES = PRESETS["pagat"].replace(first_dealer=2, hand_sizes=(3,), bid_changes=False)
CHANGES = PRESETS["pagat"].replace(first_dealer=2, hand_sizes=(3,))  # pagat allows changes


def dealt(rules: Rules, hands: str = DEAL, turned: str | None = "2C") -> GameState:
    return support.dealt(rules, hands, turned)


def refused(state: GameState, action: Any, rule: str | None, message: str = "") -> None:
    """``action`` raises, resting on ``rule`` (None: on no rule point, say the
    phase) and saying ``message``, and leaves the state as it was."""
    before = snapshot(state)
    assert not is_legal(state, action)
    with pytest.raises(IllegalActionError) as info:
        apply(state, action)
    assert info.value.rule == rule and "R-" not in str(info.value)
    assert message in str(info.value)
    assert info.value.action == action and info.value.seat == action.seat
    assert snapshot(state) == before


def bids(*seats_and_bids: tuple[int, int]) -> list[Bid]:
    return [Bid(s, b) for s, b in seats_and_bids]


# --- R-BID-ORDER ---


def test_bidding_starts_left_of_dealer_and_the_dealer_bids_last() -> None:
    # R-BID-ORDER: clockwise from the left of the dealer; out of turn is refused.
    state = dealt(NO_CHANGES)
    assert state.phase is Phase.BID
    for seat in (3, 0, 1, 2):
        assert state.to_act == seat and actors(state) == (seat,)
        for other in range(4):
            if other != seat:
                assert legal_actions(state, other) == []
                refused(state, Bid(other, 0), "R-BID-ORDER")
        apply(state, Bid(seat, 0))
    assert state.phase is Phase.PLAY and state.bids == [0, 0, 0, 0]


# --- R-BID-RANGE ---


def test_a_bid_is_zero_to_the_hand_size() -> None:
    # R-BID-RANGE: 0..cards in hand; there is no pass.
    state = dealt(NO_CHANGES)
    assert legal_actions(state, 3) == bids((3, 0), (3, 1), (3, 2), (3, 3))


@pytest.mark.parametrize("bid", [-1, 4, 27, "1", 1.0, 1.5, True, None])
def test_a_bid_out_of_range_or_not_a_number_is_refused(bid: Any) -> None:
    # R-BID-RANGE
    refused(dealt(NO_CHANGES), Bid(3, bid), "R-BID-RANGE")


# --- R-HOOK ---


def test_hook_forbids_the_dealer_the_total_of_the_tricks() -> None:
    # R-HOOK: 1 + 1 + 0 bid, so the dealer may not bid 1 (total 3 = 3 tricks).
    state = dealt(NO_CHANGES)
    for action in bids((3, 1), (0, 1)):
        assert forbidden_bid(state, state.to_act) is None  # only the last bidder is hooked
        apply(state, action)
    apply(state, Bid(1, 0))
    assert forbidden_bid(state, 2) == 1
    assert observe(state, 2).forbidden_bid == 1
    assert legal_actions(state, 2) == bids((2, 0), (2, 2), (2, 3))
    refused(state, Bid(2, 1), "R-HOOK")
    apply(state, Bid(2, 2))
    assert state.phase is Phase.PLAY and sum(b for b in state.bids if b is not None) == 4


def test_hook_forbids_nothing_when_the_others_bid_too_much() -> None:
    # R-HOOK: the others bid 6 on 3 tricks; no bid can make the total 3.
    state = dealt(NO_CHANGES)
    for action in bids((3, 3), (0, 3), (1, 0)):
        apply(state, action)
    assert forbidden_bid(state, 2) is None
    assert len(legal_actions(state, 2)) == 4


@pytest.mark.parametrize(("first", "only"), [(0, 0), (1, 1)])
def test_hook_may_leave_a_single_bid(first: int, only: int) -> None:
    # R-HOOK: on a 1-card hand the hook leaves the dealer one bid: that is the bid.
    rules = NO_CHANGES.replace(hand_sizes=(1,))
    state = dealt(rules, "AS | AH | AD | AC", "2C")
    for action in bids((3, first), (0, 0), (1, 0)):
        apply(state, action)
    assert legal_actions(state, 2) == [Bid(2, only)]
    refused(state, Bid(2, 1 - only), "R-HOOK")
    apply(state, Bid(2, only))
    assert state.phase is Phase.PLAY


def test_without_the_hook_the_dealer_may_make_the_total_even() -> None:
    # R-HOOK: hook=False (001) allows every bid.
    state = dealt(NO_CHANGES.replace(hook=False))
    for action in bids((3, 1), (0, 1), (1, 0)):
        apply(state, action)
    assert forbidden_bid(state, 2) is None
    assert legal_actions(state, 2) == bids((2, 0), (2, 1), (2, 2), (2, 3))
    apply(state, Bid(2, 1))
    assert state.phase is Phase.PLAY and observe(state, 0).balance == "even"


# --- R-BID-CHANGE ---


def test_a_bid_may_be_changed_until_the_next_player_bids() -> None:
    # R-BID-CHANGE: seat 3 may change, as often as it likes, until seat 0 bids.
    state = dealt(CHANGES)
    apply(state, Bid(3, 1))
    assert actors(state) == (0, 3)
    assert legal_actions(state, 3) == [ChangeBid(3, b) for b in (0, 2, 3)]
    refused(state, ChangeBid(3, 1), "R-BID-CHANGE", "already")  # no change without a new bid
    refused(state, ChangeBid(3, 4), "R-BID-RANGE")
    apply(state, ChangeBid(3, 2))
    apply(state, ChangeBid(3, 0))
    assert state.bids[3] == 0 and state.to_act == 0 and state.bid_count == 1
    apply(state, Bid(0, 1))
    assert actors(state) == (1, 0)
    assert legal_actions(state, 3) == []
    refused(state, ChangeBid(3, 1), "R-BID-CHANGE")
    apply(state, ChangeBid(0, 3))
    assert state.bids == [3, None, None, 0]
    assert [type(a).__name__ for a in state.log] == [
        "Deal",
        "Bid",
        "ChangeBid",
        "ChangeBid",
        "Bid",
        "ChangeBid",
    ]


def test_the_dealer_cannot_change_a_bid() -> None:
    # R-BID-CHANGE: the dealer bids last, and with the dealer's bid the bidding
    # is over, so neither the dealer nor the seat before may change any more.
    state = dealt(CHANGES)
    for action in bids((3, 0), (0, 0), (1, 0)):
        apply(state, action)
    assert actors(state) == (2, 1)
    assert all(isinstance(a, Bid) for a in legal_actions(state, 2))
    refused(state, ChangeBid(2, 1), "R-BID-CHANGE")  # the dealer has no bid yet
    apply(state, Bid(2, 0))
    assert state.phase is Phase.PLAY and actors(state) == (3,)
    refused(state, ChangeBid(2, 1), None, "no bidding now")
    refused(state, ChangeBid(1, 1), None, "no bidding now")


def test_a_change_before_the_dealer_moves_the_hook() -> None:
    # R-BID-CHANGE, R-HOOK: the hook counts the bids as they stand when the dealer bids.
    state = dealt(CHANGES)
    for action in bids((3, 1), (0, 1), (1, 0)):
        apply(state, action)
    assert forbidden_bid(state, 2) == 1
    apply(state, ChangeBid(1, 1))
    assert forbidden_bid(state, 2) == 0
    assert legal_actions(state, 2) == bids((2, 1), (2, 2), (2, 3))
    refused(state, Bid(2, 0), "R-HOOK")
    apply(state, Bid(2, 1))
    assert state.bids == [1, 1, 1, 1]


def test_no_changes_when_the_rules_do_not_allow_them() -> None:
    # R-BID-CHANGE: bid_changes=False.
    state = dealt(NO_CHANGES)
    apply(state, Bid(3, 1))
    assert actors(state) == (0,) and legal_actions(state, 3) == []
    refused(state, ChangeBid(3, 2), "R-BID-CHANGE", "do not allow a bid to be changed")


def test_the_changed_bid_is_scored() -> None:
    # R-BID-CHANGE: the bid that stands at the end of bidding counts.
    state = dealt(CHANGES.replace(hand_sizes=(1,)), "2S | AH | AD | AC", "2C")
    play_order = (Bid(3, 1), ChangeBid(3, 0), Bid(0, 0), Bid(1, 0), Bid(2, 0))
    for action in play_order:
        apply(state, action)
    for seat, card in ((3, "AC"), (0, "2S"), (1, "AH"), (2, "AD")):
        apply(state, Play(seat, Card.parse(card)))
    (result,) = state.results
    assert result.bids == (0, 0, 0, 0) and result.tricks == (0, 0, 0, 1)  # clubs are trump
    assert result.scores == (10, 10, 10, 0)


# --- R-BID-SIMULTANEOUS ---

SEALED = Rules(bidding=Bidding.SIMULTANEOUS, hook=False, first_dealer=2, hand_sizes=(3,))


def test_simultaneous_bids_in_any_order_once_each_without_hook() -> None:
    # R-BID-SIMULTANEOUS: every seat that has not bid may bid; no last bidder, no hook.
    state = dealt(SEALED)
    assert actors(state) == (0, 1, 2, 3)
    assert all(len(legal_actions(state, s)) == 4 for s in range(4))
    apply(state, Bid(1, 1))
    apply(state, Bid(3, 1))
    refused(state, Bid(3, 2), "R-BID-SIMULTANEOUS", "already bid")
    assert legal_actions(state, 3) == []
    apply(state, Bid(2, 0))
    assert actors(state) == (0,) and forbidden_bid(state, 0) is None
    assert legal_actions(state, 0) == bids((0, 0), (0, 1), (0, 2), (0, 3))
    apply(state, Bid(0, 1))  # the total equals the tricks: allowed
    assert state.phase is Phase.PLAY and state.to_act == 3  # R-LEAD-LEFT
    assert observe(state, 0).bids == (1, 1, 0, 1)


def test_simultaneous_bids_stay_sealed_until_all_are_in() -> None:
    # R-BID-SIMULTANEOUS: in secret, then revealed together.
    state = dealt(SEALED)
    apply(state, Bid(3, 2))
    apply(state, Bid(0, 1))
    view = observe(state, 0)
    assert view.bids == (1, None, None, None)
    assert view.has_bid == (True, False, False, True)
    assert observe(state, None).bids == (None, None, None, None)


def test_simultaneous_bidding_with_the_hook_or_changes_is_refused() -> None:
    # R-BID-SIMULTANEOUS, R-HOOK, R-BID-CHANGE: a combination that makes no sense.
    with pytest.raises(RulesError, match="hook"):
        Rules(bidding=Bidding.SIMULTANEOUS)
    with refused_by("R-BID-CHANGE", RulesError):
        Rules(bidding=Bidding.SIMULTANEOUS, hook=False, bid_changes=True)


def test_a_seat_not_at_the_table_has_no_legal_actions() -> None:
    # R-BID-SIMULTANEOUS: legal_actions(state, seat) is empty for a seat that
    # may not act, including chance (-1) and a seat past the table.
    state = dealt(SEALED)
    assert legal_actions(state, -1) == []
    assert legal_actions(state, 4) == []


# --- R-BID-ANNOUNCE ---


@pytest.mark.parametrize(
    ("made", "balance"), [((0, 0, 1, 0), "under"), ((3, 1, 0, 0), "over"), ((1, 1, 0, 1), "even")]
)
def test_the_balance_is_shown_to_every_seat_after_bidding(made: tuple[int, ...], balance: str) -> None:
    # R-BID-ANNOUNCE: under, over or even, once every bid is in.
    state = dealt(NO_CHANGES.replace(hook=False))
    for i, bid in enumerate(made):
        assert observe(state, 0).balance is None
        apply(state, Bid((3 + i) % 4, bid))
    for seat in (0, 1, 2, 3, None):
        assert observe(state, seat).balance == balance


def test_the_balance_is_shown_before_trump_is_named() -> None:
    # R-BID-ANNOUNCE, R-TRUMP-BIDDER (002): the announcement comes after the bidding.
    rules = PRESETS["okenuff"].replace(first_dealer=0)
    state = new_game(rules)
    advance_chance(state, random.Random(4))
    for seat, bid in ((1, 2), (2, 2), (3, 2), (0, 3)):
        apply(state, Bid(seat, bid))
    assert state.phase is Phase.TRUMP and observe(state, 1).balance == "over"
    apply(state, NameTrump(0, None))
    assert observe(state, 1).balance == "over"
