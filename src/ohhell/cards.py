"""Cards and packs: suits, ranks, the card value and its notation, deck builders.

A card is a small immutable value with a notation that round-trips:
``str(card) == "10H"``, ``Card.parse("10H")`` (also ``"TH"``), and a ``repr``
that can be pasted back. There are exactly 52 card values and each is built
once, so equal cards are the same object: two-deck and Australian packs need
no card ids (R-DECK-AU), and comparing cards is as cheap as comparing ints.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final


class CardError(ValueError):
    """A card's notation could not be read."""


class Suit(IntEnum):
    """The four suits; the value orders them for sorting and for R-DECK-AU."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        return "CDHS"[self]

    @property
    def symbol(self) -> str:
        return "♣♦♥♠"[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Read a suit from its letter, symbol or name.

        >>> Suit.parse("h"), Suit.parse("♠"), Suit.parse("clubs")
        (<Suit.HEARTS: 2>, <Suit.SPADES: 3>, <Suit.CLUBS: 0>)
        """
        key = text.strip().upper()
        if key in _SUIT_NAMES:
            return _SUIT_NAMES[key]
        raise CardError(f"{text!r} is not a suit: use C, D, H or S (or a suit symbol or name)")

    def __str__(self) -> str:
        return self.letter


_SUIT_NAMES: Final[dict[str, Suit]] = {}
for _suit in Suit:
    _SUIT_NAMES[_suit.letter] = _suit
    _SUIT_NAMES[_suit.symbol] = _suit
    _SUIT_NAMES[_suit.name] = _suit


class Rank(IntEnum):
    """Card ranks, ace high (R-DECK)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def symbol(self) -> str:
        return _RANK_SYMBOLS[self - 2]

    @classmethod
    def parse(cls, text: str) -> Rank:
        key = text.strip().upper()
        if key in _RANK_NAMES:
            return _RANK_NAMES[key]
        raise CardError(f"{text!r} is not a rank: use A K Q J 10 (or T) 9 8 7 6 5 4 3 2")

    def __str__(self) -> str:
        return self.symbol


_RANK_SYMBOLS: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
_RANK_NAMES: Final[dict[str, Rank]] = {s: Rank(i + 2) for i, s in enumerate(_RANK_SYMBOLS)}
_RANK_NAMES["T"] = Rank.TEN
_RANK_NAMES["1"] = Rank.ACE  # never written by us; accepted as the common alias "1" for ace


class Card:
    """One playing card. ``Card(Rank.ACE, Suit.SPADES) is Card.parse("AS")``.

    >>> Card.parse("TH")
    Card.parse("10H")
    >>> str(Card.parse("10h")), Card.parse("AS").suit.name
    ('10H', 'SPADES')
    >>> sorted(Card.parse(c) for c in ["AS", "2C", "KH"])
    [Card.parse("2C"), Card.parse("KH"), Card.parse("AS")]
    """

    __slots__ = ("_text", "index", "rank", "suit")
    rank: Rank
    suit: Suit
    index: int  # 0..51, suit-major: a dense key for tables and bitmasks
    _text: str

    def __new__(cls, rank: Rank | int, suit: Suit | int) -> Card:
        if not (2 <= rank <= 14 and 0 <= suit <= 3):
            raise CardError(f"no card has rank {rank!r} and suit {suit!r}")
        return _CARDS[suit * 13 + rank - 2]

    @classmethod
    def _make(cls, rank: Rank, suit: Suit) -> Card:
        card = object.__new__(cls)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "suit", suit)
        object.__setattr__(card, "index", suit * 13 + rank - 2)
        object.__setattr__(card, "_text", f"{rank.symbol}{suit.letter}")
        return card

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``"10H"``, ``"TH"``, ``"as"``, ``"Q♠"``; raise CardError naming the fault."""
        if not isinstance(text, str):
            raise CardError(f"a card must be text like '10H', not {text!r}")
        cleaned = text.strip()
        if len(cleaned) < 2:
            raise CardError(f"{text!r} is not a card: write rank then suit, like '10H' or 'AS'")
        try:
            rank = Rank.parse(cleaned[:-1])
            suit = Suit.parse(cleaned[-1])
        except CardError as err:
            raise CardError(f"{text!r} is not a card: {err}") from None
        return _CARDS[suit * 13 + rank - 2]

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("cards are immutable")

    def __reduce__(self) -> tuple[type[Card], tuple[int, int]]:
        # Unpickling and deep copies go back through __new__, so interning holds.
        return (Card, (int(self.rank), int(self.suit)))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index < other.index

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index <= other.index

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index > other.index

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index >= other.index

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f'Card.parse("{self._text}")'

    @property
    def pretty(self) -> str:
        """The card with its suit symbol, for people: ``10♥``."""
        return f"{self.rank.symbol}{self.suit.symbol}"


_CARDS: Final[tuple[Card, ...]] = tuple(Card._make(r, s) for s in Suit for r in Rank)
ALL_CARDS: Final[tuple[Card, ...]] = _CARDS
"""The 52 distinct card values, clubs 2 first, spades ace last."""


def parse_cards(text: str) -> list[Card]:
    """Read cards separated by spaces or commas: ``parse_cards("AS, 10H 2C")``."""
    return [Card.parse(t) for t in text.replace(",", " ").split()]


def standard_deck() -> list[Card]:
    """A fresh 52-card pack in a fixed order (R-DECK)."""
    return list(_CARDS)


def low_cards(count: int) -> list[Card]:
    """The ``count`` lowest cards of a pack: by rank, ties by suit order C D H S.

    This is the project's reading of "low cards" in R-DECK-AU: 13 low cards are
    the 2s, 3s and 4s and the 5 of clubs; 26 are the 2s to 7s and the 8s of
    clubs and diamonds ("the bottom half of the pack").

    >>> " ".join(str(c) for c in low_cards(13))
    '2C 2D 2H 2S 3C 3D 3H 3S 4C 4D 4H 4S 5C'
    """
    if not 0 <= count <= 52:
        raise ValueError(f"a pack has 52 cards, so {count} low cards cannot be taken")
    by_rank = sorted(_CARDS, key=lambda c: (c.rank, c.suit))
    return by_rank[:count]


def australian_deck(players: int) -> list[Card]:
    """The Australian pack (R-DECK-AU): 65 cards for 5 players, 78 for 6."""
    extra = {5: 13, 6: 26}.get(players)
    if extra is None:
        raise ValueError(f"Australian packs are for 5 or 6 players, not {players}")
    return list(_CARDS) + low_cards(extra)
