"""Actions: small frozen values that name their seat.

A player's action (``Bid``, ``ChangeBid``, ``NameTrump``, ``Play``) and
chance's (``DrawForDealer``, ``Deal``) are data, so a match's log is a list
of them and replays without randomness. Whether an action is legal now, and
what it changes, is decided in ``game.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, TypeAlias

from .cards import Card, Suit

CHANCE: Final = -1
"""The seat number of chance (the shuffle and the draw for dealer)."""


@dataclass(frozen=True, slots=True)
class DrawForDealer:
    """Chance: one round of the draw for first dealer; ``None`` for seats not drawing."""

    cards: tuple[Card | None, ...]

    @property
    def seat(self) -> int:
        return CHANCE


@dataclass(frozen=True, slots=True)
class Deal:
    """Chance: every seat's hand (by seat) and the turned card, if any."""

    hands: tuple[tuple[Card, ...], ...]
    turned: Card | None = None

    @property
    def seat(self) -> int:
        return CHANCE


@dataclass(frozen=True, slots=True)
class Bid:
    seat: int
    bid: int


@dataclass(frozen=True, slots=True)
class ChangeBid:
    """R-BID-CHANGE: replace one's bid before the next player has bid."""

    seat: int
    bid: int


@dataclass(frozen=True, slots=True)
class NameTrump:
    """R-TRUMP-BIDDER: a suit, or ``None`` for no trump."""

    seat: int
    suit: Suit | None


@dataclass(frozen=True, slots=True)
class Play:
    """Play a card. Under Devil's Bridge a seat cannot see its card and plays
    ``card=None``: "the card on my forehead"; the log records the real card."""

    seat: int
    card: Card | None


Action: TypeAlias = DrawForDealer | Deal | Bid | ChangeBid | NameTrump | Play
