"""What one seat may know: observe, visible_log and sample_world on hand-built deals."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from ohhell import (
    Bid,
    Card,
    ChangeBid,
    Deal,
    DrawForDealer,
    GameState,
    NameTrump,
    Phase,
    Play,
    Suit,
    actors,
    advance_chance,
    apply,
    is_legal,
    legal_actions,
    make_rules,
    new_game,
    observe,
    parse_cards,
    sample_hands,
    sample_world,
    visible_log,
)
from ohhell.bots.simulate import random_match
from ohhell.view import SealedBid, SeenDeal, unseen_cards
from support import refused_by

C = Card.parse


def deal(state: GameState, *hands: str, turned: str | None = None) -> None:
    apply(state, Deal(tuple(tuple(parse_cards(h)) for h in hands), C(turned) if turned else None))


def table(preset: str = "pagat", **options: str) -> GameState:
    return new_game(make_rules(preset, {k.replace("_", "-"): v for k, v in options.items()}))


HAND13 = (
    "AH KH QH 2S 3S 4S 5S 6S 7S 8S 9S 10S JS",
    "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD",
    "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QS KS AS",
)

HANDS4 = ("AS KS 2C", "QS 3H 4H", "JS 5D 6D", "10S 7C 8C")


def four_three_cards(**options: str) -> GameState:
    """4 players, one 3-card hand, dealer seat 0 (so seat 1 bids and leads first)."""
    state = table("pagat", hand_sizes="3", first_dealer="0", **options)
    deal(state, *HANDS4, turned="9H")
    return state


# --- observe -----------------------------------------------------------------------------------------------


def test_a_seat_sees_its_own_hand_and_no_other() -> None:
    state = four_three_cards()
    for seat in range(4):
        obs = observe(state, seat)
        assert obs.hand == tuple(parse_cards(HANDS4[seat]))
        assert [s for s, h in enumerate(obs.hands) if h is not None] == [seat]
        assert obs.hand_counts == (3, 3, 3, 3)


def test_the_spectator_sees_no_hand_and_cannot_act() -> None:
    state = four_three_cards()
    obs = observe(state, None)
    assert obs.hands == (None, None, None, None) and obs.hand == ()
    assert obs.legal_actions == () and not obs.is_my_turn
    assert obs.hand_counts == (3, 3, 3, 3) and obs.turned == C("9H")  # public facts stay public


def test_observe_refuses_a_seat_that_is_not_at_the_table() -> None:
    state = four_three_cards()
    with pytest.raises(ValueError, match="no seat 4"):
        observe(state, 4)


def test_the_turned_card_and_trump_are_seen_by_everyone() -> None:
    # R-TRUMP-TURN: the turned card stays face up on the stock.
    state = four_three_cards()
    for viewer in (None, 0, 1, 2, 3):
        obs = observe(state, viewer)
        assert obs.turned == C("9H") and obs.trump is Suit.HEARTS and obs.trump_decided


def test_nothing_is_turned_when_every_card_is_dealt() -> None:
    # R-TRUMP-NONE-ALL-DEALT: 13 cards to 4 players leaves no card to turn.
    state = table("pagat", hand_sizes="13", first_dealer="0")
    deal(state, *HAND13)
    for viewer in (None, 0, 2):
        obs = observe(state, viewer)
        assert obs.turned is None and obs.trump is None and obs.trump_decided


def test_before_the_deal_nothing_of_the_hand_is_shown() -> None:
    state = table("pagat", hand_sizes="3", first_dealer="2")
    obs = observe(state, 0)
    assert obs.phase is Phase.DEAL and obs.hands == (None,) * 4 and obs.turned is None
    assert obs.hand_counts == (0, 0, 0, 0) and obs.legal_actions == () and obs.actors == ()


def test_a_named_trump_is_not_shown_before_it_is_named() -> None:
    # R-TRUMP-BIDDER: the trump is undecided until the highest bidder names it.
    state = table("okenuff", hand_sizes="3,4", first_dealer="0")
    deal(state, *HANDS4)
    obs = observe(state, 2)
    assert obs.turned is None and obs.trump is None and not obs.trump_decided
    for seat, bid in ((1, 2), (2, 0), (3, 0), (0, 0)):
        apply(state, Bid(seat, bid))
    assert state.phase is Phase.TRUMP
    obs = observe(state, 2)
    assert not obs.trump_decided and obs.trump_namer == 1 and obs.actors == (1,)
    assert obs.legal_actions == ()
    assert set(observe(state, 1).legal_actions) == {NameTrump(1, s) for s in (*Suit, None)}
    apply(state, NameTrump(1, Suit.DIAMONDS))
    for viewer in (None, 0, 1):
        obs = observe(state, viewer)
        assert obs.trump_decided and obs.trump is Suit.DIAMONDS and obs.trump_namer == 1


def test_devils_bridge_shows_every_other_card_and_not_ones_own() -> None:
    # R-DEVILS-BRIDGE: on the 1-card hand each player sees the others' cards but not his own.
    state = table("classic-tens", players="3", hand_sizes="2,1", first_dealer="0", devils_bridge="yes")
    deal(state, "AS 2C", "KS 3C", "QS 4C", turned="5D")
    assert [h is not None for h in observe(state, 1).hands] == [False, True, False]  # 2 cards: normal view
    for seat, bid in ((1, 0), (2, 1), (0, 2)):
        apply(state, Bid(seat, bid))
    for card in ("AS", "KS", "QS", "2C", "3C", "4C"):  # dealer seat 0 leads (R-LEAD-DEALER)
        apply(state, Play(state.to_act, C(card)))
    assert state.phase is Phase.DEAL
    deal(state, "7H", "9H", "8H", turned="2S")
    assert state.is_devils_bridge
    for seat in range(3):
        obs = observe(state, seat)
        assert obs.devils_bridge
        assert obs.hands[seat] is None and obs.hand == ()
        assert obs.hands == tuple(None if s == seat else (state.hands[s][0],) for s in range(3))
    assert observe(state, None).hands == (None, None, None)
    for seat, bid in ((2, 0), (0, 1), (1, 1)):
        apply(state, Bid(seat, bid))
    # The dealer (seat 1) leads, blind: the only legal action names no card.
    assert observe(state, 1).legal_actions == (Play(1, None),)
    apply(state, Play(1, None))
    assert state.log[-1] == Play(1, C("9H"))  # the log keeps the real card
    assert observe(state, 2).hands == ((C("7H"),), (), None)
    assert observe(state, 2).trick == ((1, C("9H")),)  # the played card is public


def test_sealed_bids_stay_hidden_until_all_are_in() -> None:
    # R-BID-SIMULTANEOUS: bids are made at once, in secret, then revealed together.
    state = four_three_cards(bidding="simultaneous", hook="no", bid_changes="no")
    assert actors(state) == (0, 1, 2, 3)
    apply(state, Bid(2, 3))
    apply(state, Bid(0, 1))
    for viewer in (None, 1, 3):
        obs = observe(state, viewer)
        assert obs.bids == (None, None, None, None)
        assert obs.has_bid == (True, False, True, False)  # that a seat has bid is public
        assert obs.balance is None
    assert observe(state, 2).bids == (None, None, 3, None)
    assert observe(state, 0).bids == (1, None, None, None)
    assert observe(state, 2).legal_actions == () and observe(state, 1).legal_actions
    assert actors(state) == (1, 3)
    apply(state, Bid(3, 0))
    apply(state, Bid(1, 0))
    assert state.phase is Phase.PLAY
    for viewer in (None, 0, 1, 2, 3):
        obs = observe(state, viewer)
        assert obs.bids == (1, 0, 3, 0) and obs.balance == "over"


@pytest.mark.parametrize(
    ("bids", "balance"),
    [((1, 0, 0, 0), "under"), ((1, 1, 1, 0), "even"), ((3, 1, 0, 0), "over")],
)
def test_the_bid_balance_is_announced_once_bidding_is_done(bids: tuple[int, ...], balance: str) -> None:
    # R-BID-ANNOUNCE: under, over or even is shown to everyone after the bidding, not before.
    state = four_three_cards(hook="no")
    for i in range(4):
        seat = (1 + i) % 4
        assert observe(state, seat).balance is None
        apply(state, Bid(seat, bids[seat]))
    for viewer in (None, 0, 1, 2, 3):
        assert observe(state, viewer).balance == balance


def test_legal_actions_only_for_the_seat_to_act() -> None:
    state = four_three_cards(bid_changes="no")
    for seat, bid in ((1, 1), (2, 0), (3, 1)):
        apply(state, Bid(seat, bid))
    # R-HOOK: the dealer may not make the bids total 3.
    for viewer in (None, 0, 1, 2, 3):
        obs = observe(state, viewer)
        assert obs.forbidden_bid == 1 and obs.actors == (0,)
        assert obs.is_my_turn == (viewer == 0)
        assert obs.legal_actions == ((Bid(0, 0), Bid(0, 2), Bid(0, 3)) if viewer == 0 else ())
    apply(state, Bid(0, 0))
    # Seat 1 leads; only it has legal actions, every card of its hand.
    for viewer in range(4):
        expected = tuple(Play(1, c) for c in parse_cards(HANDS4[1])) if viewer == 1 else ()
        assert observe(state, viewer).legal_actions == expected
    apply(state, Play(1, C("3H")))
    # R-FOLLOW: seat 2 has no heart, so any card; seat 3 neither.
    assert set(observe(state, 2).legal_actions) == {Play(2, c) for c in parse_cards(HANDS4[2])}


def test_two_seats_may_act_while_a_bid_may_be_changed() -> None:
    # R-BID-CHANGE: the last bidder may change its bid until the next player has bid.
    state = four_three_cards()
    apply(state, Bid(1, 2))
    assert set(actors(state)) == {1, 2}
    changes = observe(state, 1).legal_actions
    assert set(changes) == {ChangeBid(1, 0), ChangeBid(1, 1), ChangeBid(1, 3)}
    assert observe(state, 2).legal_actions == tuple(Bid(2, b) for b in range(4))
    assert observe(state, 3).legal_actions == ()
    apply(state, Bid(2, 0))
    assert observe(state, 1).legal_actions == ()  # too late: seat 2 has bid


def test_an_illegal_play_is_refused_and_the_view_is_unchanged() -> None:
    state = four_three_cards(hook="no")
    for _ in range(4):
        apply(state, Bid(state.to_act, 0))
    for card in ("QS", "JS", "10S"):
        apply(state, Play(state.to_act, C(card)))
    before = [observe(state, v) for v in (None, 0, 1, 2, 3)]
    assert observe(state, 0).legal_actions == (Play(0, C("AS")), Play(0, C("KS")))  # R-FOLLOW
    with refused_by("R-FOLLOW"):
        apply(state, Play(0, C("2C")))  # seat 0 holds spades, so it must follow
    assert [observe(state, v) for v in (None, 0, 1, 2, 3)] == before


def test_voids_shown_by_failing_to_follow_are_seen_by_everyone() -> None:
    state = four_three_cards(hook="no")
    for _ in range(4):
        apply(state, Bid(state.to_act, 0))
    apply(state, Play(1, C("3H")))  # hearts led
    apply(state, Play(2, C("5D")))  # seat 2 shows it has no heart, mid-trick
    for viewer in (None, 0, 1, 2, 3):
        assert observe(state, viewer).voids == (frozenset(), frozenset(), {Suit.HEARTS}, frozenset())
    apply(state, Play(3, C("7C")))
    apply(state, Play(0, C("AS")))
    for viewer in (None, 0, 1, 2, 3):
        obs = observe(state, viewer)
        assert obs.voids == ({Suit.HEARTS}, frozenset(), {Suit.HEARTS}, {Suit.HEARTS})
        assert obs.taken == (0, 1, 0, 0)  # the only heart, and hearts are trump: seat 1 wins
    apply(state, Play(1, C("4H")))  # a new trick: the voids of the hand are kept
    assert observe(state, 2).voids[3] == {Suit.HEARTS}


# --- visible_log -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("options", [{}, {"devils-bridge": "yes"}])
def test_a_seat_never_sees_another_seats_deal_in_the_log(options: dict[str, str]) -> None:
    rules = make_rules("pagat", {"players": "4", "hand-sizes": "3,1,2", **options})
    state = random_match(rules, random.Random(7))
    deals = [(i, a) for i, a in enumerate(state.log) if isinstance(a, Deal)]
    assert len(deals) == 3
    for viewer in (None, 0, 1, 2, 3):
        seen = visible_log(state, viewer)
        assert len(seen) == len(state.log)
        for i, real in deals:
            shown = seen[i]
            assert isinstance(shown, SeenDeal) and shown.turned == real.turned
            blind = bool(options) and len(real.hands[0]) == 1  # R-DEVILS-BRIDGE
            for s in range(4):
                visible = viewer is not None and (s != viewer if blind else s == viewer)
                assert shown.hands[s] == (real.hands[s] if visible else None)
        others = [a for a in state.log if not isinstance(a, Deal)]
        assert [a for a in seen if not isinstance(a, SeenDeal)] == others


def test_sealed_bids_in_the_log_until_revealed() -> None:
    state = four_three_cards(bidding="simultaneous", hook="no", bid_changes="no")
    apply(state, Bid(3, 2))
    apply(state, Bid(1, 1))
    assert visible_log(state, 0)[1:] == [SealedBid(3), SealedBid(1)]
    assert visible_log(state, None)[1:] == [SealedBid(3), SealedBid(1)]
    assert visible_log(state, 3)[1:] == [Bid(3, 2), SealedBid(1)]
    apply(state, Bid(0, 0))
    apply(state, Bid(2, 0))
    for viewer in (None, 0, 1, 2, 3):
        assert visible_log(state, viewer)[1:] == [Bid(3, 2), Bid(1, 1), Bid(0, 0), Bid(2, 0)]


def test_sealed_bids_of_a_later_hand_do_not_hide_earlier_ones() -> None:
    rules = make_rules("classic-tens", {"hand-sizes": "1,1", "bidding": "simultaneous", "hook": "no"})
    state = new_game(rules.replace(first_dealer=0))
    deal(state, "2C", "3C", "4C", "5C", turned="AS")
    for seat in range(4):
        apply(state, Bid(seat, 0))
    for seat in (0, 1, 2, 3):  # the dealer leads (R-LEAD-DEALER)
        apply(state, Play(seat, state.hands[seat][0]))
    deal(state, "2D", "3D", "4D", "5D", turned="AH")
    apply(state, Bid(2, 1))
    seen = visible_log(state, 0)
    assert seen[1:5] == [Bid(s, 0) for s in range(4)]
    assert seen[-1] == SealedBid(2)


# --- sample_world ------------------------------------------------------------------------------------------


def all_dealt_with_voids() -> GameState:
    """13 cards to each of 4 seats, every card dealt; seats 1 and 2 show they hold no hearts."""
    state = table("pagat", hand_sizes="13", first_dealer="3", hook="no", bid_changes="no")
    deal(state, *HAND13)
    for seat, bid in ((0, 3), (1, 0), (2, 0), (3, 9)):
        apply(state, Bid(seat, bid))
    for card in ("AH", "2C", "2D", "2H", "KH", "3C", "3D", "3H"):
        apply(state, Play(state.to_act, C(card)))
    return state


def test_forced_voids_are_respected_in_every_sample() -> None:
    state = all_dealt_with_voids()
    obs = observe(state, 0)
    assert obs.voids[1] == {Suit.HEARTS} and obs.voids[2] == {Suit.HEARTS}
    unseen_hearts = Counter(c for c in unseen_cards(obs) if c.suit is Suit.HEARTS)
    assert sum(unseen_hearts.values()) == 8
    rng = random.Random(5)
    seat1_hands = set()
    for _ in range(150):
        world = sample_world(obs, rng)
        assert world.hands[0] == state.hands[0]  # own hand kept
        assert [len(h) for h in world.hands] == [11, 11, 11, 11]
        assert not any(c.suit is Suit.HEARTS for c in world.hands[1] + world.hands[2])
        # With no stock, every unseen heart must be seat 3's.
        assert Counter(c for c in world.hands[3] if c.suit is Suit.HEARTS) == unseen_hearts
        played = set(obs.played_cards())
        assert Counter(c for h in world.hands for c in h) + Counter(played) == Counter(
            c for h in HAND13 for c in parse_cards(h)
        )
        seat1_hands.add(frozenset(world.hands[1]))
    assert len(seat1_hands) > 20  # a sample, not one fixed answer


def test_a_sampled_world_is_a_state_where_legal_play_goes_on() -> None:
    state = all_dealt_with_voids()
    rng = random.Random(11)
    for viewer in (None, 1, 3):
        obs = observe(state, viewer)
        for _ in range(10):
            world = sample_world(obs, rng)
            assert observe(world, viewer) == obs
            while world.phase is Phase.PLAY:
                seat = world.to_act
                options = legal_actions(world, seat)
                assert options
                apply(world, rng.choice(options))
            assert world.phase is Phase.OVER
            assert sum(world.results[-1].tricks) == 13
            assert world.results[-1].bids == (3, 0, 0, 9)


def test_voids_with_a_stock_never_deal_the_turned_or_played_cards() -> None:
    state = table("pagat", players="5", hand_sizes="4", first_dealer="4", hook="no", bid_changes="no")
    deal(state, "AS 2S 3D 4D", "5C 6C 7C 8C", "8H 9H 10H JH", "JS 2D 5D 6D", "10S 3C 4C 7D", turned="9S")
    for _ in range(5):
        apply(state, Bid(state.to_act, 1))
    for card in ("AS", "5C", "8H", "JS", "10S"):  # seats 1 and 2 show no spade
        apply(state, Play(state.to_act, C(card)))
    obs = observe(state, 3)
    assert obs.voids[1] == {Suit.SPADES} and obs.voids[2] == {Suit.SPADES}
    rng = random.Random(3)
    spades_for_seat4 = 0
    for _ in range(200):
        hands = sample_hands(obs, rng)
        assert hands[3] == tuple(parse_cards("2D 5D 6D"))
        assert [len(h) for h in hands] == [3, 3, 3, 3, 3]
        hidden = [c for s in (0, 1, 2, 4) for c in hands[s]]
        assert len(set(hidden)) == len(hidden)
        assert not {C("9S"), *obs.played_cards()} & set(hidden)
        assert not any(c.suit is Suit.SPADES for c in hands[1] + hands[2])
        spades_for_seat4 += any(c.suit is Suit.SPADES for c in hands[4])
    assert 0 < spades_for_seat4 < 200  # seat 4 showed no void: spades may or may not be there


def test_devils_bridge_sample_keeps_what_is_seen_and_deals_ones_own_card() -> None:
    state = table("classic-tens", players="3", hand_sizes="1", first_dealer="0", devils_bridge="yes")
    deal(state, "7H", "9H", "8H", turned="2S")
    obs = observe(state, 0)
    rng = random.Random(2)
    own = Counter()
    for _ in range(100):
        world = sample_world(obs, rng)
        assert world.hands[1] == [C("9H")] and world.hands[2] == [C("8H")]
        assert world.hands[0][0] not in (C("9H"), C("8H"), C("2S"))
        own[world.hands[0][0]] += 1
    assert len(own) > 10  # seat 0 does not know its card, so the sample varies


def test_sample_world_after_a_tied_draw_keeps_who_redraws() -> None:
    # R-DEALER-DRAW: after a tie only the tied seats draw again. A draw that is legal in the real
    # match must be legal in a world sampled from any seat's observation.
    state = table("pagat")
    apply(state, DrawForDealer((C("AS"), C("AH"), C("2C"), C("3C"))))
    redraw = DrawForDealer((C("KS"), C("QH"), None, None))
    assert is_legal(state, redraw)
    world = sample_world(observe(state, 2), random.Random(1))
    assert world.contenders == (0, 1)
    assert is_legal(world, redraw)


def test_the_first_leader_is_shown_from_the_deal_on() -> None:
    # R-LEAD-LEFT and R-LEAD-DEALER: who will lead is public as soon as the cards are dealt.
    for lead, expected in (("left", 3), ("dealer", 2)):
        rules = make_rules("pagat", {"first-lead": lead, "first-dealer": "2", "hand-sizes": "3"})
        state = new_game(rules)
        advance_chance(state, random.Random(5))
        assert observe(state, 0).leader == expected
