"""Card play: the first lead, following suit, who wins a trick, identical
cards of Australian packs and Devil's Bridge, on known deals."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ohhell import (
    ALL_CARDS,
    PRESETS,
    Bid,
    Card,
    Deal,
    Deck,
    GameState,
    IllegalActionError,
    Phase,
    Play,
    Rules,
    Suit,
    Trick,
    TrumpMode,
    actors,
    apply,
    australian_deck,
    beats,
    is_legal,
    legal_actions,
    new_game,
    observe,
    parse_cards,
    trick_winner,
)
from support import dealt, refused_by, snapshot


def bid_zeros(state: GameState) -> None:
    """Everyone bids 0, or the dealer 1 where the hook forbids 0."""
    while state.phase is Phase.BID:
        options = legal_actions(state, state.to_act)
        apply(state, options[0])


def play(state: GameState, *cards: str) -> None:
    """Play cards in turn, each by the seat to act."""
    for card in cards:
        apply(state, Play(state.to_act, Card.parse(card)))


def plays(seat: int, cards: str) -> list[Play]:
    return [Play(seat, c) for c in parse_cards(cards)]


# --- R-LEAD-LEFT, R-LEAD-DEALER ---


@pytest.mark.parametrize(
    ("rules", "leader"),
    [
        (PRESETS["pagat"].replace(first_dealer=2, hand_sizes=(2,)), 3),  # R-LEAD-LEFT
        (PRESETS["river"].replace(first_dealer=3, hand_sizes=(2,)), 0),  # R-LEAD-LEFT
        (PRESETS["classic-tens"].replace(first_dealer=2, hand_sizes=(2,)), 2),  # R-LEAD-DEALER
    ],
    ids=["pagat-left", "river-left-wraps", "classic-tens-dealer"],
)
def test_first_lead(rules: Rules, leader: int) -> None:
    # R-LEAD-LEFT: the seat left of the dealer leads; R-LEAD-DEALER: the dealer leads.
    state = dealt(rules, "AS KS | AH KH | AD KD | AC KC", "2C")
    bid_zeros(state)
    assert state.phase is Phase.PLAY
    assert state.to_act == state.leader == leader and actors(state) == (leader,)
    assert legal_actions(state, leader) == plays(leader, ["AS KS", "AH KH", "AD KD", "AC KC"][leader])
    assert all(legal_actions(state, s) == [] for s in range(4) if s != leader)


# --- R-FOLLOW ---

# Dealer 0, seat 1 leads; spades are trump (turned 10S).
FOLLOW = PRESETS["pagat"].replace(first_dealer=0, hand_sizes=(3,))
FOLLOW_DEAL = "JH 6C 7S | AH 5D 2S | KH QH 3C | 4C 3S 9D"


def test_must_follow_suit_when_able_and_any_card_when_void() -> None:
    # R-FOLLOW: seat 2 has hearts and must follow; seat 3 has none and may play
    # anything, trump included; the lower trump beats the led ace (R-TRICK).
    state = dealt(FOLLOW, FOLLOW_DEAL, "10S")
    bid_zeros(state)
    play(state, "AH")
    assert legal_actions(state, 2) == plays(2, "KH QH")
    before = snapshot(state)
    with refused_by("R-FOLLOW", IllegalActionError, match="seat 2 must follow hearts"):
        apply(state, Play(2, Card.parse("3C")))
    assert snapshot(state) == before
    play(state, "QH")
    assert legal_actions(state, 3) == plays(3, "4C 3S 9D")
    play(state, "3S")
    assert legal_actions(state, 0) == plays(0, "JH")
    play(state, "JH")
    assert state.tricks == [Trick(1, tuple(parse_cards("AH QH 3S JH")), 3)]
    assert state.taken == [0, 0, 0, 1]
    assert observe(state, 0).voids[3] == frozenset({Suit.HEARTS})


def test_trump_may_be_led_at_once() -> None:
    # R-FOLLOW: trump need not be "broken" before it is led; then trump must be followed.
    state = dealt(FOLLOW, FOLLOW_DEAL, "10S")
    bid_zeros(state)
    assert Play(1, Card.parse("2S")) in legal_actions(state, 1)
    play(state, "2S")
    assert legal_actions(state, 2) == plays(2, "KH QH 3C")  # no trump: anything
    play(state, "KH")
    assert legal_actions(state, 3) == plays(3, "3S")
    play(state, "3S")
    assert legal_actions(state, 0) == plays(0, "7S")
    play(state, "7S")
    assert state.tricks[-1].winner == 0 and state.to_act == 0


# --- R-TRICK ---

ONE = Rules(first_dealer=0, hand_sizes=(1,), hook=False)  # seat 1 leads, then 2, 3, 0


@pytest.mark.parametrize(
    ("rules", "hands", "turned", "winner"),
    [
        (ONE, "2H | 5H | KH | AD", "3C", 2),  # highest of the suit led; off-suit ace loses
        (ONE, "AH | 5H | KH | 2C", "3C", 3),  # the only trump beats higher cards led
        (ONE, "AH | 5H | 4C | 9C", "3C", 3),  # the higher of two trumps
        (ONE, "3D | 2D | AS | KS", "4H", 0),  # no trump played: the highest diamond
        (ONE, "5C | 2C | AC | AH", "3C", 2),  # trump led: the highest trump
        (ONE.replace(trump=TrumpMode.NONE), "3D | 2D | AS | AC", None, 0),  # no trump at all
        (ONE.replace(trump=TrumpMode.FIXED), "3D | 2D | 2S | AD", None, 2),  # spades always trump
    ],
)
def test_trick_winner(rules: Rules, hands: str, turned: str | None, winner: int) -> None:
    # R-TRICK: the highest trump wins, else the highest card of the suit led.
    state = dealt(rules, hands, turned)
    bid_zeros(state)
    cards = hands.split("|")
    play(state, *(cards[s] for s in (1, 2, 3, 0)))
    (trick,) = state.tricks
    assert trick.leader == 1 and trick.winner == winner
    assert state.results[0].tricks == tuple(int(s == winner) for s in range(4))


@given(st.lists(st.sampled_from(ALL_CARDS), min_size=1, max_size=7), st.sampled_from([*Suit, None]))
def test_trick_winner_is_beats_card_by_card(cards: list[Card], trump: Suit | None) -> None:
    # R-TRICK, R-DECK-AU: trick_winner writes beats out for speed; it must pick
    # the card that beats the best so far, card by card (repeats included, as
    # an Australian pack has them).
    best = 0
    for i in range(1, len(cards)):
        if beats(cards[i], cards[best], trump):
            best = i
    assert trick_winner(cards, trump) == best


def test_the_winner_leads_the_next_trick() -> None:
    # R-TRICK: seat 3 wins the first trick and must lead the second.
    state = dealt(FOLLOW.replace(hand_sizes=(2,)), "JH 6C | AH 5D | KH QH | 4C 3S", "10S")
    bid_zeros(state)
    play(state, "AH", "KH", "3S", "JH")
    assert state.leader == state.to_act == 3 and actors(state) == (3,)
    assert legal_actions(state, 3) == plays(3, "4C")
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="seat 3's turn to play, not seat 1's"):
        apply(state, Play(1, Card.parse("5D")))
    assert snapshot(state) == before
    play(state, "4C", "6C", "5D", "QH")
    assert [t.winner for t in state.tricks] == [3, 0]
    assert state.tricks[1].leader == 3
    assert state.results[0].tricks == (1, 0, 0, 1)


# --- R-DECK-AU: identical cards ---

AUSSIE5 = Rules(players=5, deck=Deck.AUSTRALIAN, first_dealer=0)
# All 65 cards, 13 each; seats 1 and 2 hold every club, both with a 5C.
AUSSIE5_DEAL = (
    "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"
    " | 5C 2C 3C 4C 6C 7C 8C 9C 10C 2D 3D 4D 5D"
    " | 5C 2C 3C 4C JC QC KC AC 6D 7D 8D 9D 10D"
    " | 2D 3D 4D JD QD KD AD 2H 2H 3H 3H 4H 4H"
    " | 5H 6H 7H 8H 9H 10H JH QH KH AH 2S 3S 4S"
)


def test_second_of_two_identical_cards_wins_without_trump() -> None:
    # R-DECK-AU: 65 cards, all dealt, so no trump (R-TRUMP-NONE-ALL-DEALT); seat 2's
    # 5C, played after seat 1's 5C, wins; two identical cards in hand are one choice.
    state = dealt(AUSSIE5, AUSSIE5_DEAL)
    assert Counter(c for h in state.hands for c in h) == Counter(australian_deck(5))
    assert state.trump is None
    bid_zeros(state)
    play(state, "5C", "5C")
    assert legal_actions(state, 3) == plays(3, "2D 3D 4D JD QD KD AD 2H 3H 4H")
    play(state, "2H")
    assert state.hands[3].count(Card.parse("2H")) == 1
    play(state, "AH", "AS")
    assert state.tricks[0].winner == 2 and state.to_act == 2


def test_second_of_two_identical_trumps_wins() -> None:
    # R-DECK-AU: two 2S ruff a club trick; the later one (seat 4) wins.
    state = dealt(AUSSIE5.replace(hand_sizes=(1,)), "2H | 5C | 5C | 2S | 2S", "3S")
    assert state.trump is Suit.SPADES
    bid_zeros(state)
    play(state, "5C", "5C", "2S", "2S", "2H")
    assert state.results[0].tricks == (0, 0, 0, 0, 1)


def test_six_player_australian_pack_holds_two_of_each_low_card() -> None:
    # R-DECK-AU: 78 cards for 6 players, the low half twice: a hand may hold
    # both 7H, but there is no third 8C.
    rules = Rules(players=6, deck=Deck.AUSTRALIAN, first_dealer=5, hand_sizes=(2,))
    fresh = new_game(rules)
    before = snapshot(fresh)
    with pytest.raises(IllegalActionError, match="8C is dealt 3 times but the pack has 2"):
        apply(
            fresh,
            Deal(
                tuple(tuple(parse_cards(h)) for h in ("8C 8C", "8C 2D", "3D 3D", "2S 2S", "3S 3S", "9H 10H")),
                Card.parse("4C"),
            ),
        )
    assert snapshot(fresh) == before
    state = dealt(rules, "7H 7H | 8C 8C | 8D 8D | 2S 2S | 3S 3S | 9H 10H", "4C")
    assert state.to_act == 0
    bid_zeros(state)
    assert legal_actions(state, 0) == [Play(0, Card.parse("7H"))]
    play(state, "7H")
    assert state.hands[0] == [Card.parse("7H")]


# --- R-DEVILS-BRIDGE ---

BRIDGE = Rules(devils_bridge=True, first_dealer=0, hand_sizes=(1,))


def test_devils_bridge_plays_the_unseen_card() -> None:
    # R-DEVILS-BRIDGE: on a 1-card hand each seat sees every card but its own;
    # the only legal play is Play(seat, None), and the log records the real card.
    state = dealt(BRIDGE, "KH | 2H | AH | 3C", "5H")
    for seat in range(4):
        view = observe(state, seat)
        assert view.hands[seat] is None and view.hand == ()
        assert all(view.hands[o] == tuple(state.hands[o]) for o in range(4) if o != seat)
    bid_zeros(state)
    for seat, card in ((1, "2H"), (2, "AH"), (3, "3C"), (0, "KH")):
        assert legal_actions(state, seat) == [Play(seat, None)]
        apply(state, Play(seat, None))
        assert state.log[-1] == Play(seat, Card.parse(card))
    assert state.results[0].tricks == (0, 0, 1, 0)


def test_devils_bridge_accepts_the_real_card_for_replay() -> None:
    # R-DEVILS-BRIDGE: a replayed log names the real card, which is accepted;
    # a card the seat does not hold is not.
    state = dealt(BRIDGE, "KH | 2H | AH | 3C", "5H")
    bid_zeros(state)
    assert is_legal(state, Play(1, Card.parse("2H")))
    assert not is_legal(state, Play(1, Card.parse("AH")))
    replay = new_game(BRIDGE)
    for action in state.log:
        apply(replay, action)
    assert snapshot(replay) == snapshot(state)


def test_no_blind_play_on_a_longer_hand() -> None:
    # R-DEVILS-BRIDGE: only the 1-card hand is played blind.
    state = dealt(BRIDGE.replace(hand_sizes=(2, 1)), "KH KS | 2H 2S | AH AS | 3C 3S", "5H")
    bid_zeros(state)
    assert observe(state, 1).hand == tuple(parse_cards("2H 2S"))
    assert legal_actions(state, 1) == plays(1, "2H 2S")
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="Devil's Bridge"):
        apply(state, Play(1, None))
    assert snapshot(state) == before
    assert isinstance(state.log[-1], Bid)


def test_a_true_seat_is_not_seat_one() -> None:
    # True == 1 in Python, but a seat is a whole number; a record could not hold True.
    rules = PRESETS["pagat"].replace(hand_sizes=(1,), first_dealer=0, bid_changes=False)
    state = dealt(rules, "2C|3D|4H|5S", "6S")
    for seat, bid in ((1, 0), (2, 0), (3, 0), (0, 0)):
        apply(state, Bid(seat, bid))
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="no seat True"):
        apply(state, Play(True, Card.parse("3D")))  # type: ignore[arg-type]
    assert snapshot(state) == before
