"""Keeping score of a game played with real cards (issue 6).

The people at the table deal, bid and play with a real pack; the program only
keeps the sheet. A ``ScoreGame`` holds the rules, the players' names in seat
order, the first dealer and one ``HandEntry`` per hand: the bids, the trump
named (where somebody names it), the tricks taken and any revokes. Those
entries are the truth. Everything else (who deals, how many cards, who bids
first and leads, the trump where the rules fix it, the hook's forbidden bid,
under/over/even, who names trump, scores, running totals, blobs, exact-bid
rates, extra tie-break hands, standings and settlement) is recomputed from
them every time, with the engine's scoring functions, so undo and editing a
past hand are consistent by construction.

>>> from ohhell.rules import PRESETS
>>> game = ScoreGame(PRESETS["common"], ["Ann", "Bob", "Cid", "Dee"], first_dealer=0)
>>> game.current.size, game.current.dealer, game.current.first_bidder
(10, 0, 1)
>>> for seat, bid in ((1, 3), (2, 2), (3, 4)):
...     game.bid(seat, bid)
>>> game.current.forbidden  # R-HOOK: Ann, the dealer, may not make it 10
1
>>> game.bid(0, 1)
Traceback (most recent call last):
...
ohhell.scorekeeper.ScoreError: the hook forbids Ann to bid 1: the bids would total the 10 tricks (R-HOOK)
>>> game.bid(0, 0)
>>> game.tricks([0, 3, 3, 4])
>>> game.totals
(10, 13, 3, 14)
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Final

from .cards import CardError, Suit
from .rules import Bidding, FirstLead, Rules, RulesError, Scoring, TieBreak, TrumpMode, make_rules
from .scoring import (
    Standing,
    bid_balance,
    leaders_tied,
    score_hand,
    settlement,
    settlement_net,
    side_totals,
    standings,
)

FORMAT: Final = "ohhell-scoresheet"
VERSION: Final = 1
"""The version of the JSON form; ``from_json`` refuses versions it does not know."""


class ScoreError(ValueError):
    """An entry the rules refuse, or a sheet that cannot be read; the message says why."""


class _Keep(Enum):
    KEEP = 0


KEEP: Final = _Keep.KEEP
"""``edit(..., trump=KEEP)``: leave the trump entry as it is."""


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


def _suit_text(suit: Suit | None) -> str:
    return "NT" if suit is None else suit.letter


def _suit_word(suit: Suit | None) -> str:
    return "no trump" if suit is None else suit.name.lower()


def _tricks_word(count: int) -> str:
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


class ScoreGame:
    """The score sheet of one game: rules, players in seat order, first dealer, entries.

    Commands (``bid``, ``name_trump``, ``tricks``, ``revoke``, ``edit``,
    ``undo``) check the entry, then recompute the whole sheet; a refused entry
    raises ``ScoreError`` with the reason and changes nothing.
    """

    def __init__(
        self,
        rules: Rules,
        players: Sequence[str],
        first_dealer: int | None = None,
        entries: Sequence[HandEntry] = (),
    ) -> None:
        names = tuple(str(p).strip() for p in players)
        if len(names) != rules.players:
            raise ScoreError(f"the rules are for {rules.players} players, but {len(names)} names were given")
        if any(not name for name in names):
            raise ScoreError("every player needs a name")
        if len({name.casefold() for name in names}) != len(names):
            raise ScoreError("two players have the same name: give each a different one")
        dealer = rules.first_dealer if first_dealer is None else first_dealer
        if dealer is None:
            raise ScoreError(
                "who deals first? These rules draw for it (R-DEALER-DRAW): "
                "draw at the table and give the seat"
            )
        if type(dealer) is not int or not 0 <= dealer < rules.players:
            raise ScoreError(f"the first dealer must be a seat from 0 to {rules.players - 1}, not {dealer!r}")
        self.rules: Final = rules
        self.players: Final = names
        self.first_dealer: Final = dealer
        self._entries: tuple[HandEntry, ...] = ()
        self._views: tuple[HandView, ...] = ()
        self._history: list[tuple[str, tuple[HandEntry, ...]]] = []
        self._commit(tuple(entries), None)

    # --- Queries ---

    @property
    def entries(self) -> tuple[HandEntry, ...]:
        return self._entries

    @property
    def hands(self) -> tuple[HandView, ...]:
        """Every hand entered so far (the last may be in progress)."""
        return self._views

    @property
    def completed(self) -> tuple[HandView, ...]:
        return tuple(v for v in self._views if v.is_complete)

    @property
    def current(self) -> HandView | None:
        """The hand in progress (perhaps with nothing entered yet); None when the game is over."""
        if self._views and not self._views[-1].is_complete:
            return self._views[-1]
        k = len(self._entries)
        if not self._hand_exists(k, self.totals):
            return None
        return self._view(k, HandEntry(bids=(None,) * self.rules.players), self.totals)

    @property
    def is_over(self) -> bool:
        return self.current is None

    @property
    def totals(self) -> tuple[int, ...]:
        done = self.completed
        return done[-1].totals if done else (0,) * self.rules.players

    @property
    def exact_counts(self) -> tuple[int, ...]:
        """Exact bids per seat (R-TIE-EXACT)."""
        counts = [0] * self.rules.players
        for view in self.completed:
            for s in view.exact:
                counts[s] += 1
        return tuple(counts)

    @property
    def exact_rates(self) -> tuple[float, ...]:
        """Each seat's share of completed hands bid exactly (0.0 before the first)."""
        played = len(self.completed)
        return tuple(c / played if played else 0.0 for c in self.exact_counts)

    def running_totals(self) -> list[tuple[int, ...]]:
        """The totals after each completed hand: the data of a chart of totals by hand."""
        return [v.totals for v in self.completed]

    def side_totals(self) -> tuple[int, ...]:
        """Each side's total (R-TEAMS; each seat alone without teams)."""
        return side_totals(self.rules, self.totals)

    def standings(self) -> list[Standing]:
        """Sides ranked by total, with the rules' tie break (R-WIN, R-TIE-EXACT).

        Under R-TIE-EXTRA the tie is broken by extra hands, which the sheet asks for.
        """
        return standings(self.rules, self.totals, self.exact_counts)

    def settlement(self) -> list[list[int]]:
        """R-SETTLE: ``m[i][j]``, what player j pays player i."""
        return settlement(self.totals)

    def settlement_net(self) -> list[int]:
        """R-SETTLE: each player's net after settling with every other."""
        return settlement_net(self.totals)

    def side_name(self, seats: Sequence[int]) -> str:
        return " + ".join(self.players[s] for s in seats)

    def seat_of(self, name: str) -> int:
        """A seat from a player's name (any case, or a unique prefix) or seat number."""
        text = name.strip()
        if text.isdigit() and int(text) < len(self.players):
            return int(text)
        key = text.casefold()
        exact = [s for s, p in enumerate(self.players) if p.casefold() == key]
        if exact:
            return exact[0]
        found = [s for s, p in enumerate(self.players) if key and p.casefold().startswith(key)]
        if len(found) == 1:
            return found[0]
        names = ", ".join(self.players)
        raise ScoreError(f"{name!r} is not one of the players ({names})")

    # --- Commands ---

    def bid(self, seat: int, bid: int) -> None:
        """Enter a bid (R-BID-ORDER, R-BID-RANGE, R-HOOK; any order under R-BID-SIMULTANEOUS)."""
        view = self._open_hand()
        self._check_seat(seat)
        if view.bidding_done:
            raise ScoreError(f"every player has bid in hand {view.number}: enter the tricks taken")
        who = self.players[seat]
        if self.rules.bidding is Bidding.SIMULTANEOUS:
            if view.bids[seat] is not None:
                raise ScoreError(f"{who} has bid already in hand {view.number} (R-BID-SIMULTANEOUS)")
        elif seat != view.next_bidder:
            assert view.next_bidder is not None
            raise ScoreError(
                f"it is {self.players[view.next_bidder]}'s turn to bid, not {who}'s (R-BID-ORDER)"
            )
        self._check_bid_value(who, bid, view.size)
        if bid == view.forbidden:
            raise ScoreError(
                f"the hook forbids {who} to bid {bid}: the bids would total the "
                f"{_tricks_word(view.size)} (R-HOOK)"
            )
        entry = self._open_entry()
        bids = list(entry.bids)
        bids[seat] = bid
        self._commit((*self._entries[: view.number - 1], replace(entry, bids=tuple(bids))), f"{who}'s bid")

    def name_trump(self, suit: Suit | None) -> None:
        """R-TRUMP-BIDDER: the highest bidder names a suit or no trump (None).

        With a turned trump (R-TRUMP-TURN) this notes the turned suit for the
        record; it changes no score.
        """
        view = self._open_hand()
        mode = self.rules.trump
        if suit is not None and not isinstance(suit, Suit):
            raise ScoreError(f"{suit!r} is not a suit or no trump")
        if mode is TrumpMode.BIDDER:
            if view.trump_namer is None:
                raise ScoreError("trump is named after the bidding: enter every bid first (R-TRUMP-BIDDER)")
        elif mode is TrumpMode.TURN and view.trump_rule == "turned":
            if suit is None:
                raise ScoreError(
                    "a turned card always has a suit; there is no trump only when every card is dealt"
                )
        else:
            raise ScoreError(f"nobody names trump in hand {view.number}: {view.trump_rule}")
        entry = self._open_entry()
        what = "trump named" if mode is TrumpMode.BIDDER else "turned suit"
        self._commit((*self._entries[: view.number - 1], replace(entry, trump_named=True, trump=suit)), what)

    def tricks(self, taken: Sequence[int] | Mapping[int, int]) -> None:
        """Enter the tricks each seat took (by seat); they must total the hand size."""
        view = self._open_hand()
        values = self._tricks_tuple(taken, view)
        entry = self._open_entry()
        self._commit(
            (*self._entries[: view.number - 1], replace(entry, tricks=values)),
            f"tricks of hand {view.number}",
        )

    def revoke(self, seat: int, hand: int | None = None) -> None:
        """R-REVOKE: a revoke by ``seat`` costs it 20 points in the hand in
        progress, or in ``hand`` (a number) if given."""
        self._check_seat(seat)
        if hand is None:
            view = self._open_hand()
            if not view.bidding_done:
                raise ScoreError(
                    "a revoke happens in the play: enter the bids first, or name the hand it belongs to"
                )
            number = view.number
            entry = self._open_entry()
        else:
            number = self._check_hand_number(hand)
            entry = self._entries[number - 1]
        changed = replace(entry, revokes=(*entry.revokes, seat))
        entries = list(self._entries)
        if number > len(entries):
            entries.append(changed)
        else:
            entries[number - 1] = changed
        self._commit(tuple(entries), f"{self.players[seat]}'s revoke in hand {number}")

    def edit(
        self,
        hand: int,
        *,
        bids: Sequence[int | None] | None = None,
        tricks: Sequence[int] | Mapping[int, int] | None = None,
        trump: Suit | _Keep | None = KEEP,
        revokes: Sequence[int] | None = None,
    ) -> None:
        """Change any entered hand (bids and tricks by seat) and recompute everything.

        The edited hand and every hand after it are checked again; an edit that
        would make any of them invalid is refused, naming the hand and why.
        """
        number = self._check_hand_number(hand)
        entry = self._entries[number - 1]
        n = self.rules.players
        if bids is not None:
            if len(bids) != n:
                raise ScoreError(f"give a bid for each of the {n} players, not {len(bids)}")
            entry = replace(entry, bids=tuple(bids))
        if tricks is not None:
            size = self._views[number - 1].size
            entry = replace(entry, tricks=self._tricks_values(tricks, size))
        if trump is not KEEP:
            entry = replace(entry, trump_named=True, trump=trump)
        if revokes is not None:
            for seat in revokes:
                self._check_seat(seat)
            entry = replace(entry, revokes=tuple(revokes))
        entries = (*self._entries[: number - 1], entry, *self._entries[number:])
        try:
            self._commit(entries, f"the edit of hand {number}")
        except ScoreError as err:
            raise ScoreError(f"the edit is refused: {err}") from None

    def undo(self) -> str:
        """Take back the last command (entry or edit); returns what was undone.

        After loading a sheet there is no command history: then the last thing
        written on the sheet goes (tricks, else the last revoke, the trump, the
        last bid of the hand in progress).
        """
        if self._history:
            what, entries = self._history.pop()
            self._set(entries)
            return what
        if not self._entries:
            raise ScoreError("there is nothing to undo")
        last = self._entries[-1]
        number = len(self._entries)
        if last.tricks is not None:
            what, changed = f"tricks of hand {number}", replace(last, tricks=None)
        elif last.revokes:
            what, changed = "the last revoke", replace(last, revokes=last.revokes[:-1])
        elif last.trump_named:
            what, changed = "the trump", replace(last, trump_named=False, trump=None)
        else:
            view = self._views[-1]
            entered = [s for s in view.bidding_order if last.bids[s] is not None]
            seat = entered[-1]
            bids = list(last.bids)
            bids[seat] = None
            what, changed = f"{self.players[seat]}'s bid", replace(last, bids=tuple(bids))
        empty = all(b is None for b in changed.bids) and not changed.revokes and not changed.trump_named
        self._set(self._entries[:-1] if empty else (*self._entries[:-1], changed))
        return what

    # --- Serialisation ---

    def to_dict(self) -> dict[str, Any]:
        """The sheet as plain data: the inputs (read back by ``from_dict``) and a
        summary of what follows from them (ignored on reading)."""
        hands = []
        for entry in self._entries:
            hands.append(
                {
                    "bids": list(entry.bids),
                    "trump": _suit_text(entry.trump) if entry.trump_named else None,
                    "tricks": list(entry.tricks) if entry.tricks is not None else None,
                    "revokes": list(entry.revokes),
                }
            )
        summary: dict[str, Any] = {
            "finished": self.is_over,
            "hands": [
                {
                    "hand": v.number,
                    "extra": v.extra,
                    "cards": v.size,
                    "dealer": v.dealer,
                    "first_bidder": v.first_bidder,
                    "trump": _suit_text(v.trump) if v.trump_known else None,
                    "balance": v.balance,
                    "scores": list(v.scores) if v.scores is not None else None,
                    "totals": list(v.totals),
                    "missed": list(v.missed),
                }
                for v in self._views
            ],
            "totals": list(self.totals),
            "exact": list(self.exact_counts),
            "standings": [
                {"place": s.place, "seats": list(s.seats), "total": s.total, "exact": s.exact}
                for s in self.standings()
            ],
        }
        if self.rules.scoring is Scoring.OKENUFF:
            summary["settlement"] = self.settlement_net()
        return {
            "format": FORMAT,
            "version": VERSION,
            "players": list(self.players),
            "first_dealer": self.first_dealer,
            "rules": self.rules.options(),
            "hands": hands,
            "summary": summary,
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ScoreGame:
        """Read a sheet written by ``to_dict``; every hand is checked again."""
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            raise ScoreError(f"this is not an {FORMAT} file")
        version = data.get("version")
        if version != VERSION:
            raise ScoreError(
                f"score sheet version {version!r} is not supported (this program reads {VERSION})"
            )
        try:
            options = data["rules"]
            if not isinstance(options, Mapping):
                raise ScoreError("the rules must be a mapping of option to text")
            rules = make_rules(Rules(), {str(k): str(v) for k, v in options.items()})
            players = data["players"]
            if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
                raise ScoreError("players must be a list of names")
            entries = [_entry_from(h, i + 1) for i, h in enumerate(data["hands"])]
            return cls(rules, players, data["first_dealer"], entries)
        except RulesError as err:
            raise ScoreError(f"the rules cannot be read: {err}") from None
        except (KeyError, TypeError) as err:
            raise ScoreError(f"the score sheet is incomplete or malformed ({err!r})") from None

    @classmethod
    def from_json(cls, text: str) -> ScoreGame:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise ScoreError(f"not JSON: {err}") from None
        return cls.from_dict(data)

    def to_csv(self) -> str:
        """One row per hand: the hand, then bid, tricks, made, score and total per player."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        head = ["hand", "cards", "dealer", "first bidder", "trump", "balance", "extra"]
        for name in self.players:
            head += [f"{name} bid", f"{name} took", f"{name} made", f"{name} score", f"{name} total"]
        head.append("revokes")
        writer.writerow(head)
        for v in self._views:
            trump = _suit_text(v.trump) if v.trump_known else ""
            row: list[object] = [
                v.number,
                v.size,
                self.players[v.dealer],
                self.players[v.first_bidder],
                trump,
                v.balance or "",
                "yes" if v.extra else "",
            ]
            for s in range(self.rules.players):
                bid = v.bids[s]
                if v.tricks is None:
                    row += ["" if bid is None else bid, "", "", "", ""]
                else:
                    assert v.scores is not None
                    made = "yes" if s not in v.missed else "no"
                    row += [bid, v.tricks[s], made, v.scores[s], v.totals[s]]
            row.append(" ".join(self.players[s] for s in v.revokes))
            writer.writerow(row)
        return out.getvalue()

    # --- Inside ---

    def _set(self, entries: tuple[HandEntry, ...]) -> None:
        self._views = self._compute(entries)
        self._entries = entries

    def _commit(self, entries: tuple[HandEntry, ...], what: str | None) -> None:
        before = self._entries
        self._set(entries)
        if what is not None:
            self._history.append((what, before))

    def _hand_exists(self, k: int, totals_before: Sequence[int]) -> bool:
        """Is there a hand k (0-based) after hands with these totals? (R-TIE-EXTRA)"""
        if k < len(self.rules.schedule):
            return True
        return self.rules.tie_break is TieBreak.EXTRA_HANDS and leaders_tied(self.rules, totals_before)

    def _compute(self, entries: tuple[HandEntry, ...]) -> tuple[HandView, ...]:
        views: list[HandView] = []
        totals: tuple[int, ...] = (0,) * self.rules.players
        for k, entry in enumerate(entries):
            if k and not views[-1].is_complete:
                raise ScoreError(f"hand {k} has no tricks entered, but hand {k + 1} follows it")
            if not self._hand_exists(k, totals):
                raise ScoreError(
                    f"hand {k + 1} would not be played: the game is over after hand {k} "
                    "(undo or edit the later hands first)"
                )
            view = self._view(k, entry, totals)
            self._check_entry(view, entry)
            views.append(view)
            totals = view.totals
        return tuple(views)

    def _view(self, k: int, entry: HandEntry, totals: tuple[int, ...]) -> HandView:
        rules, n = self.rules, self.rules.players
        schedule = rules.schedule
        size = schedule[k] if k < len(schedule) else schedule[-1]  # R-TIE-EXTRA: the last size again
        dealer = (self.first_dealer + k) % n  # R-DEALER-ROTATE
        first = (dealer + 1) % n  # R-BID-ORDER
        order = tuple((first + i) % n for i in range(n))
        bids = entry.bids
        if len(bids) != n:
            raise ScoreError(f"hand {k + 1}: {len(bids)} bids for {n} players")
        done = all(b is not None for b in bids)
        next_bidder = forbidden = None
        if not done and rules.bidding is Bidding.SEQUENTIAL:
            next_bidder = next(s for s in order if bids[s] is None)
            others = [b for b in bids if b is not None]
            if rules.hook and len(others) == n - 1:  # R-HOOK: the last bidder only
                hook = size - sum(others)
                forbidden = hook if 0 <= hook <= size else None
        final = [b for b in bids if b is not None]
        namer = None
        if done and rules.trump is TrumpMode.BIDDER:
            # R-TRUMP-BIDDER: the highest bid, the first of them in bidding order on a tie.
            namer = max(order, key=lambda s: (bids[s] or 0, -order.index(s)))
        known, trump, how = self._trump(k, size, entry)
        scores = None
        if entry.tricks is not None and done:
            scores = score_hand(
                rules,
                final,
                entry.tricks,
                first_bidder=first,
                trump_namer=namer,
                no_trump=known and trump is None,
                revokes=entry.revokes,
            )
            totals = tuple(t + s for t, s in zip(totals, scores, strict=True))
        return HandView(
            number=k + 1,
            extra=k >= len(schedule),
            size=size,
            dealer=dealer,
            first_bidder=first,
            first_leader=dealer if rules.first_lead is FirstLead.DEALER else first,
            bidding_order=order,
            bids=bids,
            next_bidder=next_bidder,
            forbidden=forbidden,
            balance=bid_balance(final, size) if done else None,  # R-BID-ANNOUNCE
            trump_namer=namer,
            trump_known=known,
            trump=trump,
            trump_rule=how,
            tricks=entry.tricks if scores is not None else None,
            revokes=entry.revokes,
            scores=scores,
            totals=totals,
        )

    def _trump(self, k: int, size: int, entry: HandEntry) -> tuple[bool, Suit | None, str]:
        rules = self.rules
        match rules.trump:
            case TrumpMode.TURN:
                if size * rules.players >= rules.deck_size:
                    return True, None, "every card is dealt, so there is no trump (R-TRUMP-NONE-ALL-DEALT)"
                return entry.trump_named, entry.trump, "turned"
            case TrumpMode.ROTATE:
                suit = rules.trump_rotation[k % len(rules.trump_rotation)]
                return True, suit, f"trump is {_suit_word(suit)} by the rotation (R-TRUMP-ROTATE)"
            case TrumpMode.FIXED:
                return (
                    True,
                    rules.trump_suit,
                    f"{_suit_word(rules.trump_suit)} are always trump (R-TRUMP-FIXED)",
                )
            case TrumpMode.BIDDER:
                return entry.trump_named, entry.trump, "named by the highest bidder (R-TRUMP-BIDDER)"
            case TrumpMode.NONE:
                return True, None, "every hand is played without trump"
        raise ScoreError(f"unknown trump mode {rules.trump!r}")  # pragma: no cover

    def _check_entry(self, view: HandView, entry: HandEntry) -> None:
        """Check a whole hand entry (used for every hand after any change)."""
        rules, where = self.rules, f"hand {view.number}"
        for seat, bid in enumerate(entry.bids):
            if bid is not None:
                self._check_bid_value(self.players[seat], bid, view.size, where)
        if rules.bidding is Bidding.SEQUENTIAL:
            entered = [entry.bids[s] is not None for s in view.bidding_order]
            if entered != sorted(entered, reverse=True):
                raise ScoreError(f"{where}: the bids skip a player, but bidding goes clockwise (R-BID-ORDER)")
            if rules.hook and view.bidding_done and view.balance == "even":
                last = view.bidding_order[-1]
                raise ScoreError(
                    f"{where}: the hook forbids {self.players[last]}, who bids last, to bid "
                    f"{entry.bids[last]}: the bids would total the {_tricks_word(view.size)} (R-HOOK)"
                )
        if entry.trump_named:
            if entry.trump is not None and not isinstance(entry.trump, Suit):
                raise ScoreError(f"{where}: {entry.trump!r} is not a suit or no trump")
            if rules.trump is TrumpMode.BIDDER:
                if not view.bidding_done:
                    raise ScoreError(f"{where}: trump is named after the bidding (R-TRUMP-BIDDER)")
            elif rules.trump is TrumpMode.TURN and view.trump_rule == "turned":
                if entry.trump is None:
                    raise ScoreError(f"{where}: a turned card always has a suit")
            else:
                raise ScoreError(f"{where}: nobody names trump: {view.trump_rule}")
        for seat in entry.revokes:
            if type(seat) is not int or not 0 <= seat < rules.players:
                raise ScoreError(f"{where}: a revoke by {seat!r}, which is not a seat")
        if entry.revokes and not view.bidding_done:
            raise ScoreError(f"{where}: a revoke happens in the play, after the bidding")
        if entry.tricks is not None:
            if not view.bidding_done:
                raise ScoreError(f"{where}: tricks are entered after every bid")
            if view.needs_trump:
                assert view.trump_namer is not None
                raise ScoreError(
                    f"{where}: {self.players[view.trump_namer]} must name trump "
                    "before the play (R-TRUMP-BIDDER)"
                )
            self._tricks_values(entry.tricks, view.size, where)

    def _check_seat(self, seat: object) -> None:
        if type(seat) is not int or not 0 <= seat < self.rules.players:
            raise ScoreError(f"{seat!r} is not a seat: seats are 0 to {self.rules.players - 1}")

    @staticmethod
    def _check_bid_value(who: str, bid: object, size: int, where: str = "") -> None:
        if type(bid) is not int or not 0 <= bid <= size:
            at = f"{where}: " if where else ""
            raise ScoreError(f"{at}{who} bid {bid!r}, but a bid is from 0 to {size} (R-BID-RANGE)")

    def _tricks_values(
        self, taken: Sequence[int] | Mapping[int, int], size: int, where: str = ""
    ) -> tuple[int, ...]:
        n = self.rules.players
        at = f"{where}: " if where else ""
        if isinstance(taken, Mapping):
            missing = [self.players[s] for s in range(n) if s not in taken]
            if missing:
                raise ScoreError(f"{at}the tricks taken by {', '.join(missing)} are missing")
            values = [taken[s] for s in range(n)]
        else:
            values = list(taken)
            if len(values) != n:
                raise ScoreError(f"{at}give the tricks taken by each of the {n} players, not {len(values)}")
        for seat, t in enumerate(values):
            if type(t) is not int or not 0 <= t <= size:
                raise ScoreError(
                    f"{at}{self.players[seat]} took {t!r} tricks, "
                    f"but in a hand of {size} a player takes 0 to {size}"
                )
        if sum(values) != size:
            raise ScoreError(
                f"{at}the tricks taken add up to {sum(values)}, but the hand has {_tricks_word(size)}"
            )
        return tuple(values)

    def _tricks_tuple(self, taken: Sequence[int] | Mapping[int, int], view: HandView) -> tuple[int, ...]:
        if not view.bidding_done:
            raise ScoreError(f"enter every bid of hand {view.number} before the tricks taken")
        if view.needs_trump:
            assert view.trump_namer is not None
            raise ScoreError(
                f"{self.players[view.trump_namer]} bid highest and must name trump (a suit or no trump) "
                "before the play (R-TRUMP-BIDDER)"
            )
        return self._tricks_values(taken, view.size)

    def _open_hand(self) -> HandView:
        view = self.current
        if view is None:
            raise ScoreError("the game is over: edit a hand or undo to change the result")
        return view

    def _open_entry(self) -> HandEntry:
        if self._entries and not self._entries[-1].is_complete:
            return self._entries[-1]
        return HandEntry(bids=(None,) * self.rules.players)

    def _check_hand_number(self, hand: int) -> int:
        if type(hand) is not int or not 1 <= hand <= len(self._entries):
            count = len(self._entries)
            span = f"1 to {count}" if count else "none yet"
            raise ScoreError(f"there is no hand {hand!r} on the sheet (hands entered: {span})")
        return hand


def _entry_from(data: Any, number: int) -> HandEntry:
    if not isinstance(data, Mapping):
        raise ScoreError(f"hand {number}: expected a mapping")
    bids = data["bids"]
    tricks = data.get("tricks")
    trump = data.get("trump")
    revokes = data.get("revokes") or []
    if not isinstance(bids, list) or (tricks is not None and not isinstance(tricks, list)):
        raise ScoreError(f"hand {number}: bids and tricks are lists by seat")
    if not isinstance(revokes, list):
        raise ScoreError(f"hand {number}: revokes are a list of seats")
    named = trump is not None
    suit = parse_trump(str(trump)) if named else None
    return HandEntry(
        bids=tuple(bids),
        trump_named=named,
        trump=suit,
        tricks=tuple(tricks) if tricks is not None else None,
        revokes=tuple(revokes),
    )
