"""Cards and packs: notation, interning, ordering, parse errors, R-DECK and R-DECK-AU."""

from __future__ import annotations

import copy
import itertools
import pickle
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ohhell.cards import (
    ALL_CARDS,
    Card,
    CardError,
    Rank,
    Suit,
    australian_deck,
    low_cards,
    parse_cards,
    standard_deck,
)

# Independent of the code under test: the seeds' rank order, high to low (R-DECK),
# and the four suit letters.
SEED_RANKS_HIGH_TO_LOW = ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]
SUIT_LETTERS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
ALL_NOTATIONS = [r + s for s in SUIT_LETTERS for r in SEED_RANKS_HIGH_TO_LOW]


# --- Notation ---


@pytest.mark.parametrize("text", ALL_NOTATIONS)
def test_notation_round_trips_for_every_card(text: str) -> None:
    # R-DECK: every one of the 52 cards reads from and writes back to "10H" notation.
    card = Card.parse(text)
    assert str(card) == text
    assert Card.parse(str(card)) is card
    assert Card.parse(text.lower()) is card
    assert card.rank.symbol == text[:-1]
    assert card.suit.letter == text[-1]


@pytest.mark.parametrize("text", ALL_NOTATIONS)
def test_repr_pastes_back_for_every_card(text: str) -> None:
    card = Card.parse(text)
    assert eval(repr(card), {"Card": Card}) is card


@pytest.mark.parametrize("text", ALL_NOTATIONS)
def test_suit_symbol_notation_reads_for_every_card(text: str) -> None:
    card = Card.parse(text)
    symbol_text = text[:-1] + SUIT_LETTERS[text[-1]]
    assert Card.parse(symbol_text) is card
    assert card.pretty == symbol_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10H", "10H"),
        ("TH", "10H"),
        ("th", "10H"),
        ("as", "AS"),
        ("Q♠", "QS"),
        ("10♥", "10H"),
        ("k♦", "KD"),
        ("2♣", "2C"),
        ("  JC  ", "JC"),
    ],
)
def test_accepted_spellings(text: str, expected: str) -> None:
    assert str(Card.parse(text)) == expected


def test_parsed_card_has_the_named_rank_and_suit() -> None:
    card = Card.parse("Q♠")
    assert card.rank is Rank.QUEEN
    assert card.suit is Suit.SPADES
    assert Card.parse("TH").rank is Rank.TEN
    assert Card.parse("TH").suit is Suit.HEARTS


def test_suit_parse_reads_letter_symbol_and_name() -> None:
    assert Suit.parse("h") is Suit.HEARTS
    assert Suit.parse("♠") is Suit.SPADES
    assert Suit.parse("clubs") is Suit.CLUBS
    assert Suit.parse("Diamonds") is Suit.DIAMONDS
    with pytest.raises(CardError, match="'X' is not a suit"):
        Suit.parse("X")


def test_parse_cards_reads_a_list_with_spaces_and_commas() -> None:
    cards = parse_cards("AS, 10H 2C,TD")
    assert [str(c) for c in cards] == ["AS", "10H", "2C", "10D"]
    assert parse_cards("") == []


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("", "write rank then suit"),
        ("  ", "write rank then suit"),
        ("A", "write rank then suit"),
        ("1X", "'X' is not a suit"),
        ("ZZ", "'Z' is not a rank"),
        ("10", "'0' is not a suit"),
        ("11H", "'11' is not a rank"),
        ("10X", "'X' is not a suit"),
    ],
)
def test_parse_errors_name_what_was_wrong(text: str, fault: str) -> None:
    with pytest.raises(CardError) as info:
        Card.parse(text)
    message = str(info.value)
    assert fault in message
    assert repr(text) in message  # the whole bad input is quoted


@pytest.mark.parametrize("value", [5, None, 10.0, b"AS", ("A", "S")])
def test_parse_refuses_non_text(value: object) -> None:
    with pytest.raises(CardError, match="must be text"):
        Card.parse(value)  # type: ignore[arg-type]


def test_card_error_is_a_value_error() -> None:
    assert issubclass(CardError, ValueError)
    with pytest.raises(ValueError):
        Card.parse("ZZ")


@pytest.mark.parametrize(("rank", "suit"), [(1, 0), (15, 0), (2, 4), (14, -1)])
def test_constructor_refuses_impossible_cards(rank: int, suit: int) -> None:
    with pytest.raises(CardError, match="no card has rank"):
        Card(rank, suit)


# --- Interning and immutability ---


def test_equal_cards_are_the_same_object() -> None:
    assert Card(Rank.ACE, Suit.SPADES) is Card.parse("AS")
    assert Card(14, 3) is Card.parse("A♠")
    assert Card.parse("10H") is Card.parse("TH") is Card.parse("th")
    assert Card.parse("AS") == Card.parse("as")
    assert Card.parse("AS") != Card.parse("AC")
    assert len({Card.parse("AS"), Card.parse("as"), Card.parse("A♠")}) == 1


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickling_keeps_interning(protocol: int) -> None:
    cards = [Card.parse(t) for t in ALL_NOTATIONS]
    assert all(a is b for a, b in zip(pickle.loads(pickle.dumps(cards, protocol)), cards, strict=True))


def test_copies_keep_interning() -> None:
    hand = [Card.parse("10H"), Card.parse("AS"), Card.parse("10H")]
    deep = copy.deepcopy({"hand": hand})
    assert all(a is b for a, b in zip(deep["hand"], hand, strict=True))
    assert copy.copy(hand[0]) is hand[0]
    assert copy.deepcopy(hand[1]) is hand[1]


def test_cards_are_immutable() -> None:
    card = Card.parse("AS")
    with pytest.raises(AttributeError):
        card.rank = Rank.TWO  # type: ignore[misc]
    with pytest.raises(AttributeError):
        card.colour = "black"  # type: ignore[attr-defined]
    assert Card.parse("AS").rank is Rank.ACE


# --- Ordering ---


def test_sorting_is_by_suit_then_rank() -> None:
    cards = parse_cards("AS 2C KH 10H 2S AC 3D")
    assert [str(c) for c in sorted(cards)] == ["2C", "AC", "3D", "10H", "KH", "2S", "AS"]


def test_comparisons_agree_with_sorting() -> None:
    two_clubs, ace_spades = Card.parse("2C"), Card.parse("AS")
    assert two_clubs < ace_spades and ace_spades > two_clubs
    assert two_clubs <= two_clubs and two_clubs >= two_clubs
    assert not two_clubs < two_clubs
    assert min(ALL_CARDS) is two_clubs and max(ALL_CARDS) is ace_spades


@given(st.lists(st.sampled_from(ALL_CARDS)))
def test_sorted_cards_are_grouped_by_suit_and_rise_in_rank(cards: list[Card]) -> None:
    keys = [(c.suit, c.rank) for c in sorted(cards)]
    assert keys == sorted(keys)


def test_index_is_a_dense_key() -> None:
    assert sorted(c.index for c in ALL_CARDS) == list(range(52))
    assert all(ALL_CARDS[c.index] is c for c in ALL_CARDS)


# --- R-DECK ---


def test_standard_deck_has_52_distinct_cards() -> None:
    # R-DECK: one standard 52-card deck, no jokers.
    deck = standard_deck()
    assert len(deck) == 52
    assert len(set(deck)) == 52
    assert sorted(str(c) for c in deck) == sorted(ALL_NOTATIONS)
    assert Counter(c.suit for c in deck) == dict.fromkeys(Suit, 13)
    assert Counter(c.rank for c in deck) == dict.fromkeys(Rank, 4)


def test_standard_deck_is_a_fresh_list() -> None:
    # R-DECK: each call gives a new pack, so shuffling one leaves the next whole.
    deck = standard_deck()
    deck.clear()
    assert len(standard_deck()) == 52
    assert len(ALL_CARDS) == 52


def test_ranks_run_ace_high_to_two_low() -> None:
    # R-DECK: A K Q J 10 9 8 7 6 5 4 3 2, high to low.
    ranks = [Rank.parse(s) for s in SEED_RANKS_HIGH_TO_LOW]
    assert ranks == sorted(Rank, reverse=True)
    assert all(a > b for a, b in itertools.pairwise(ranks))
    assert Rank.parse("T") is Rank.TEN


# --- R-DECK-AU ---


def test_low_cards_documented_choice() -> None:
    # R-DECK-AU: "low cards" are the lowest by rank, ties broken by suit order C D H S.
    thirteen = [r + s for r in ["2", "3", "4"] for s in "CDHS"] + ["5C"]
    assert [str(c) for c in low_cards(13)] == thirteen
    twenty_six = [str(c) for c in low_cards(26)]
    expected = [r + s for r in ["2", "3", "4", "5", "6", "7"] for s in "CDHS"] + ["8C", "8D"]
    assert twenty_six == expected
    assert low_cards(0) == []
    assert low_cards(52) == sorted(ALL_CARDS, key=lambda c: (c.rank, c.suit))


@pytest.mark.parametrize("count", [-1, 53])
def test_low_cards_refuses_impossible_counts(count: int) -> None:
    with pytest.raises(ValueError, match=str(count)):
        low_cards(count)


@pytest.mark.parametrize(("players", "size", "extra"), [(5, 65, 13), (6, 78, 26)])
def test_australian_deck(players: int, size: int, extra: int) -> None:
    # R-DECK-AU: 5 players add 13 low cards of a second pack (65), 6 players 26 (78).
    deck = australian_deck(players)
    assert len(deck) == size
    counts = Counter(deck)
    assert set(counts) == set(ALL_CARDS)  # the whole first pack is there
    doubled = [c for c, k in counts.items() if k == 2]
    assert len(doubled) == extra
    assert max(counts.values()) == 2
    assert sorted(doubled) == sorted(low_cards(extra))
    # Every duplicated card is no higher than any card left single.
    single = [c for c, k in counts.items() if k == 1]
    assert max(c.rank for c in doubled) <= min(c.rank for c in single)
    # Duplicates are the interned card values, no copies.
    assert all(any(d is c for c in ALL_CARDS) for d in deck)


def test_australian_deck_for_six_is_the_bottom_half_duplicated() -> None:
    # R-DECK-AU: "the bottom half of the pack duplicated": 26 of the 52 cards, every 2 to 7.
    counts = Counter(australian_deck(6))
    for card in ALL_CARDS:
        if card.rank <= Rank.SEVEN:
            assert counts[card] == 2, card
        elif card.rank >= Rank.NINE:
            assert counts[card] == 1, card


@pytest.mark.parametrize("players", [2, 3, 4, 7, 8])
def test_australian_deck_refused_for_other_player_counts(players: int) -> None:
    # R-DECK-AU: only for 5 or 6 players.
    with pytest.raises(ValueError, match=f"not {players}"):
        australian_deck(players)
