"""The lines of a score sheet: what is written down for a hand (``HandEntry``)
and how the sheet shows it (``HandView``), with the words they share."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import CardError, Suit


class ScoreError(ValueError):
    """An entry the rules refuse, or a sheet that cannot be read; the message
    says why in plain words, and ``rule`` names the rule point (RULES.md) the
    refusal rests on, for docs and tests, or None."""

    def __init__(self, message: str, *, rule: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule


@dataclass(frozen=True, slots=True)
class HandEntry:
    """What the scorekeeper wrote down for one hand; the only stored data."""

    bids: tuple[int | None, ...]  # by seat; None: not bid yet
    trump_named: bool = False  # R-TRUMP-BIDDER (or the turned suit, noted for the record)
    trump: Suit | None = None  # the suit named; None with trump_named is no trump
    tricks: tuple[int, ...] | None = None  # by seat; None until the hand is over
    revokes: tuple[int, ...] = ()  # R-REVOKE: offending seats, once per revoke

    @property
    def is_complete(self) -> bool:
        return self.tricks is not None


@dataclass(frozen=True, slots=True)
class HandView:
    """One hand as the sheet shows it, recomputed from the entries."""

    number: int  # 1-based
    extra: bool  # R-TIE-EXTRA: a hand played to break a tie
    size: int
    dealer: int  # R-DEALER-ROTATE
    first_bidder: int  # R-BID-ORDER: left of the dealer
    first_leader: int  # R-LEAD-LEFT / R-LEAD-DEALER
    bidding_order: tuple[int, ...]
    bids: tuple[int | None, ...]
    next_bidder: int | None  # sequential bidding: the seat to bid now
    forbidden: int | None  # R-HOOK: the bid next_bidder may not make
    balance: str | None  # R-BID-ANNOUNCE, once every bid is in
    trump_namer: int | None  # R-TRUMP-BIDDER, once every bid is in
    trump_known: bool  # is the trump of this hand known to the sheet?
    trump: Suit | None  # meaningful when trump_known; None is no trump
    trump_rule: str  # how trump is decided this hand, in words
    tricks: tuple[int, ...] | None
    revokes: tuple[int, ...]
    scores: tuple[int, ...] | None
    totals: tuple[int, ...]  # running totals after this hand (before it while it is open)

    @property
    def is_complete(self) -> bool:
        return self.tricks is not None

    @property
    def bidding_done(self) -> bool:
        return all(b is not None for b in self.bids)

    @property
    def needs_trump(self) -> bool:
        """R-TRUMP-BIDDER: are the bids in and trump still to be named?"""
        return self.trump_namer is not None and not self.trump_known

    @property
    def no_trump(self) -> bool:
        return self.trump_known and self.trump is None

    @property
    def missed(self) -> tuple[int, ...]:
        """The seats that missed their bid: the blobs of the sheet."""
        if self.tricks is None:
            return ()
        return tuple(s for s, (b, t) in enumerate(zip(self.bids, self.tricks, strict=True)) if b != t)

    @property
    def exact(self) -> tuple[int, ...]:
        """The seats that made their bid exactly."""
        if self.tricks is None:
            return ()
        return tuple(s for s in range(len(self.bids)) if s not in self.missed)


def suit_text(suit: Suit | None) -> str:
    return "NT" if suit is None else suit.letter


def suit_word(suit: Suit | None) -> str:
    return "no trump" if suit is None else suit.name.lower()


def tricks_word(count: int) -> str:
    return "1 trick" if count == 1 else f"{count} tricks"


def parse_trump(text: str) -> Suit | None:
    """A suit letter, symbol or name, or ``NT`` for no trump.

    >>> parse_trump("h"), parse_trump("nt")
    (<Suit.HEARTS: 2>, None)
    """
    if text.strip().upper() in ("NT", "N", "NONE", "NO TRUMP", "NOTRUMP"):
        return None
    try:
        return Suit.parse(text)
    except CardError as err:
        raise ScoreError(f"{err}, or NT for no trump") from None


def seats_for_people(options: Mapping[str, str]) -> dict[str, str]:
    """Rule options as ``Rules.options()`` writes them (seats from 0) with the
    seats in them (``first-dealer``, ``teams``) counted from 1, as people
    count them and as the command line takes them.

    >>> seats_for_people({"first-dealer": "2", "teams": "0+2,1+3", "hook": "yes"})
    {'first-dealer': '3', 'teams': '1+3,2+4', 'hook': 'yes'}
    """
    return _shift_seats(options, 1)


def seats_from_people(options: Mapping[str, str]) -> dict[str, str]:
    """The reverse of ``seats_for_people``: seats counted from 1 back to 0.
    A value that is not a seat number is left for the rules to refuse."""
    return _shift_seats(options, -1)


def _shift_seats(options: Mapping[str, str], by: int) -> dict[str, str]:
    def seat(text: str) -> str:
        text = text.strip()
        return str(int(text) + by) if text.isdigit() else text

    out = dict(options)
    if "first-dealer" in out:
        out["first-dealer"] = seat(out["first-dealer"])
    if "teams" in out and out["teams"].strip().lower() != "none":
        out["teams"] = ",".join(
            "+".join(seat(s) for s in team.split("+")) for team in out["teams"].split(",")
        )
    return out


def entry_from(data: Any, number: int, seat_base: int = 0) -> HandEntry:
    """A hand of the JSON form; ``seat_base`` is where its revokes' seats count
    from (1 in version 2, 0 in version 1)."""
    if not isinstance(data, Mapping):
        raise ScoreError(f"hand {number}: expected a mapping")
    bids = data["bids"]
    tricks = data.get("tricks")
    trump = data.get("trump")
    revokes = data.get("revokes") or []
    if not isinstance(bids, list) or (tricks is not None and not isinstance(tricks, list)):
        raise ScoreError(f"hand {number}: bids and tricks are lists by seat")
    if not isinstance(revokes, list) or not all(type(s) is int for s in revokes):
        raise ScoreError(f"hand {number}: revokes are a list of seat numbers")
    named = trump is not None
    suit = parse_trump(str(trump)) if named else None
    return HandEntry(
        bids=tuple(bids),
        trump_named=named,
        trump=suit,
        tricks=tuple(tricks) if tricks is not None else None,
        revokes=tuple(s - seat_base for s in revokes),
    )
