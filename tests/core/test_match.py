"""The referee (``ohhell.Match``): whose turn, asking, refusing, the bid-change
window, turn clocks and what each seat sees of the last action."""

from __future__ import annotations

import random

import pytest

from ohhell import (
    PRESETS,
    Bid,
    Card,
    ChangeBid,
    Deal,
    IllegalActionError,
    Match,
    Observation,
    Phase,
    Play,
    Rules,
    SealedBid,
    SeenDeal,
    make_rules,
    new_game,
    seats_to_ask,
    seeded_chance,
)
from ohhell.bots import get_bot, play_match
from support import dealt, snapshot


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


PAGAT_SHORT = make_rules("pagat", {"hand-sizes": "3,2,1"})
FOUR_HANDS = "AS KS QS | AH KH QH | AD KD QD | AC KC QC"


def three_card_match(clock: FakeClock | None = None) -> Match:
    """Dealer 0, a known 3-card deal with 2C turned: seat 1 bids first."""
    state = dealt(Rules(first_dealer=0, hand_sizes=(3,)), FOUR_HANDS, "2C")
    return Match(state, 0, clock=clock) if clock is not None else Match(state, 0)


class FirstLegal:
    name = "first-legal"

    def __init__(self) -> None:
        self.asked: list[int] = []

    def choose(self, obs: Observation, rng: random.Random) -> object:
        assert obs.seat is not None
        self.asked.append(obs.seat)
        return obs.legal_actions[0]


def test_run_plays_every_seat_to_the_end_asking_only_whose_turn_it_is() -> None:
    match = Match.new(PAGAT_SHORT, random.Random(1))
    players = [FirstLegal() for _ in range(4)]
    asked: list[tuple[int, ...]] = []

    class Watching(FirstLegal):
        def choose(self, obs: Observation, rng: random.Random) -> object:
            asked.append(obs.to_ask)
            assert obs.seat in obs.to_ask  # asked only on its turn
            return super().choose(obs, rng)

    players = [Watching() for _ in range(4)]
    state = match.run(players, lambda seat: random.Random(seat))
    assert state.phase is Phase.OVER and match.is_over and len(state.results) == 3
    assert match.waiting().over and match.to_ask() == ()
    assert sum(len(p.asked) for p in players) == sum(1 for a in state.log if not isinstance(a, Deal)) - len(
        state.draws
    )


def test_run_stops_where_a_person_is_due_and_goes_on_after_their_action() -> None:
    match = Match.new(PAGAT_SHORT, seeded_chance("test"))
    bots = [FirstLegal() for _ in range(4)]
    people: list[FirstLegal | None] = [None, bots[1], bots[2], bots[3]]
    match.run(people, lambda seat: random.Random(seat))
    assert not match.is_over and match.to_ask() == (0,)  # the person in seat 0
    match.submit(match.legal(0)[-1])
    match.run(people, lambda seat: random.Random(seat))
    assert match.is_over or 0 in match.to_ask() or match.can_change(0)


def test_play_match_goes_through_the_referee_and_matches_a_seeded_rerun() -> None:
    bots = [get_bot("random") for _ in range(4)]
    first = play_match(PAGAT_SHORT, bots, random.Random(7))
    again = play_match(PAGAT_SHORT, bots, random.Random(7))
    assert first.log == again.log and first.is_over


def test_seeded_chance_deals_the_same_whatever_was_asked_before() -> None:
    # Each draw round and each hand's deal has its own generator: a match
    # rebuilt from its log, or asked twice, deals what it would have dealt.
    one = Match.new(PRESETS["pagat"], seeded_chance("table-1"))
    two = Match.new(PRESETS["pagat"], seeded_chance("table-1"))
    assert one.chance_action() == one.chance_action() == two.chance_action()
    other = Match.new(PRESETS["pagat"], seeded_chance("table-2"))
    while one.state.is_chance:
        one.deal()
    while other.state.is_chance:
        other.deal()
    assert one.state.hands != other.state.hands


def test_an_action_out_of_turn_is_refused_as_not_your_turn_and_changes_nothing() -> None:
    # R-BID-ORDER: seat 1 bids first after dealer 0; seat 2 is not asked yet.
    match = three_card_match()
    before = snapshot(match.state)
    with pytest.raises(IllegalActionError) as info:
        match.submit(Bid(2, 1))
    assert info.value.reason == "turn" and info.value.seat == 2 and info.value.action == Bid(2, 1)
    assert str(info.value) == "it is not your turn"
    assert snapshot(match.state) == before and match.version == 1


def test_a_refusal_names_the_rule_as_a_field_and_in_words_without_its_id() -> None:
    # R-HOOK: the dealer (seat 0) may not make the bids total the 3 tricks.
    match = three_card_match()
    for seat, bid in ((1, 1), (2, 1), (3, 0)):
        match.submit(Bid(seat, bid))
    with pytest.raises(IllegalActionError) as info:
        match.submit(Bid(0, 1))
    assert info.value.rule == "R-HOOK" and info.value.reason == "illegal"
    assert "hook" in str(info.value) and "R-" not in str(info.value)


def test_a_blind_hand_refuses_a_named_card_without_saying_whether_it_is_held() -> None:
    # R-DEVILS-BRIDGE: naming a card must not tell the seat what it holds.
    rules = Rules(devils_bridge=True, first_dealer=0, hand_sizes=(1,), hook=False)
    match = Match(dealt(rules, "KH | 2H | AH | 3C", "5H"), 0)
    for seat in (1, 2, 3, 0):
        match.submit(Bid(seat, 0))
    words = set()
    for named in ("2H", "AS"):  # seat 1 holds 2H, not AS
        with pytest.raises(IllegalActionError) as info:
            match.check(Play(1, Card.parse(named)))
        assert info.value.rule == "R-DEVILS-BRIDGE"
        words.add(str(info.value))
    assert len(words) == 1
    assert match.submit(Play(1, None)) == Play(1, Card.parse("2H"))  # logged with its real card


def test_the_bid_change_window_is_a_right_kept_or_used_not_a_turn() -> None:
    # R-BID-CHANGE: seat 1 may change its bid until seat 2 bids; it is not asked.
    rules = make_rules("okenuff", {"first-dealer": "0", "hand-sizes": "3"})
    state = new_game(rules)
    match = Match(state, seeded_chance("change"))
    while match.state.is_chance:
        match.deal()
    first = match.to_ask()[0]
    match.submit(Bid(first, 1))
    assert match.can_change(first) and first not in match.to_ask() and first in match.actors()
    assert match.to_ask() == seats_to_ask(match.state)
    match.keep_bid(first)
    assert not match.can_change(first) and match.kept_at == match.version
    with pytest.raises(IllegalActionError) as info:
        match.keep_bid(first)
    assert info.value.rule == "R-BID-CHANGE"
    match.submit(ChangeBid(first, 2))  # keeping is a promise to the table's bots, not a rule
    assert match.state.bids[first] == 2 and match.can_change(first)


def test_the_next_bidder_waits_for_a_change_only_a_bounded_grace() -> None:
    # R-BID-CHANGE: the chance to change a bid holds the next bidder back for
    # change_grace seconds from the bid, then nobody waits for it; keeping
    # ends the wait at once; the right itself lasts until the next bid.
    clock = FakeClock()
    rules = make_rules("okenuff", {"first-dealer": "0", "hand-sizes": "3"})
    match = Match(new_game(rules), seeded_chance("grace"), clock=clock, track_turns=False, change_grace=3.0)
    while match.state.is_chance:
        match.deal()
    first = match.to_ask()[0]
    assert match.change_left() is None and match.change_holds() is None  # nobody has bid
    clock.now += 10.0  # the time before a bid does not count
    match.submit(Bid(first, 1))
    assert match.change_left() == 3.0 and match.change_holds() == first
    clock.now += 2.0
    assert match.change_left() == 1.0 and match.change_holds() == first
    clock.now += 1.5
    assert match.change_left() == 0.0 and match.change_holds() is None
    assert match.can_change(first)  # the next bidder may go on; a change still counts until it bids
    match.submit(ChangeBid(first, 2))
    assert match.change_holds() is None  # a change does not start the wait again
    nxt = match.to_ask()[0]
    match.submit(Bid(nxt, 0))  # the next bid opens the next seat's window
    assert match.change_holds() == nxt
    match.keep_bid(nxt)
    assert match.change_left() is None and match.change_holds() is None
    with pytest.raises(ValueError, match="0 to 3600 seconds"):
        Match(new_game(rules), seeded_chance("grace"), change_grace=-1)


def test_turn_clocks_start_when_a_seats_choices_change() -> None:
    clock = FakeClock()
    match = three_card_match(clock)
    assert match.turn_since == [1, 1, 1, 1] and match.turn_started == [100.0] * 4
    clock.now = 130.0
    assert match.waited(1) == 30.0
    match.submit(Bid(1, 1))  # seat 1's choices end and seat 2's begin
    assert match.turn_since[1] == match.turn_since[2] == 2 and match.turn_started[2] == 130.0
    assert match.turn_since[3] == 1  # seat 3 still has nothing to choose
    clock.now = 140.0
    match.restart_clock(2)
    assert match.waited(2) == 0.0


def test_each_seat_sees_the_last_action_as_it_may() -> None:
    # R-BID-SIMULTANEOUS: a sealed bid shows who bid, not what, until all are in.
    rules = make_rules(
        "pagat", {"bidding": "simultaneous", "hook": "no", "bid-changes": "no", "first-dealer": "0"}
    )
    match = Match.new(rules, seeded_chance("seen"))
    match.deal()
    deal = match.seen(2)
    assert isinstance(deal, SeenDeal)
    assert deal.hands[2] == tuple(match.state.hands[2])
    assert all(h is None for s, h in enumerate(deal.hands) if s != 2)
    assert all(h is None for h in match.seen(None).hands)  # type: ignore[union-attr]
    match.submit(Bid(3, 1))
    assert match.seen(3) == Bid(3, 1)
    assert match.seen(0) == SealedBid(3) and match.seen(None) == SealedBid(3)
