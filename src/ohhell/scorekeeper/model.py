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
ohhell.scorekeeper.hands.ScoreError: the hook forbids Ann to bid 1: the bids would total the 10 tricks...
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
from dataclasses import replace
from enum import Enum
from typing import Any, Final

from .. import (
    Bidding,
    Rules,
    RulesError,
    Scoring,
    Standing,
    Suit,
    TrumpMode,
    bid_balance,
    hand_follows,
    hook,
    make_rules,
    next_bidder,
    plan_hand,
    score_hand,
    set_trump,
    settlement,
    settlement_net,
    side_totals,
    standings,
    trump_namer,
)
from .hands import (
    HandEntry,
    HandView,
    ScoreError,
    entry_from,
    seats_for_people,
    seats_from_people,
    suit_text,
    suit_word,
    tricks_word,
)

FORMAT: Final = "ohhell-scoresheet"
VERSION: Final = 2
"""The version of the JSON form written. Version 2 counts every seat in the
file from 1, as people do (``first_dealer``, the rules' ``first-dealer`` and
``teams``, revokes, the summary); version 1 counted them from 0 and is still
read. ``from_json`` refuses versions it does not know."""


class _Keep(Enum):
    KEEP = 0


KEEP: Final = _Keep.KEEP
"""``edit(..., trump=KEEP)``: leave the trump entry as it is."""


def check_players(names: Sequence[str], players: int) -> None:
    """Refuse a list of players' names that cannot make a sheet, saying why:
    the wrong number, an empty name, a name given twice (in any case)."""
    if len(names) != players:
        raise ScoreError(f"the rules are for {players} players, but {len(names)} names were given")
    if any(not name for name in names):
        raise ScoreError("every player needs a name")
    seen: dict[str, str] = {}
    for name in names:
        if name.casefold() in seen:
            raise ScoreError(
                f"two players have the same name, {seen[name.casefold()]}: give each a different one"
            )
        seen[name.casefold()] = name


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
        *,
        date: str | None = None,
    ) -> None:
        names = tuple(str(p).strip() for p in players)
        check_players(names, rules.players)
        dealer = rules.first_dealer if first_dealer is None else first_dealer
        if dealer is None:
            raise ScoreError(
                "who deals first? These rules draw for it: draw at the table and give the seat",
                rule="R-DEALER-DRAW",
            )
        if type(dealer) is not int or not 0 <= dealer < rules.players:
            shown = dealer + 1 if type(dealer) is int else repr(dealer)
            raise ScoreError(f"the first dealer must be a seat from 1 to {rules.players}, not {shown}")
        if rules.first_dealer != dealer:
            # The dealer chosen at the table is part of this game's rules, so
            # the sheet, its rules in words and its export name one dealer.
            rules = rules.replace(first_dealer=dealer)
        self.rules: Final = rules
        self.date: Final = date
        """The day the game was played (``YYYY-MM-DD``), when known."""
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
                raise ScoreError(f"{who} has bid already in hand {view.number}", rule="R-BID-SIMULTANEOUS")
        elif seat != view.next_bidder:
            assert view.next_bidder is not None
            raise ScoreError(
                f"it is {self.players[view.next_bidder]}'s turn to bid, not {who}'s", rule="R-BID-ORDER"
            )
        self._check_bid_value(who, bid, view.size)
        if bid == view.forbidden:
            raise ScoreError(
                f"the hook forbids {who} to bid {bid}: the bids would total the {tricks_word(view.size)}",
                rule="R-HOOK",
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
                raise ScoreError(
                    "trump is named after the bidding: enter every bid first", rule="R-TRUMP-BIDDER"
                )
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
            raise ScoreError(f"the edit is refused: {err}", rule=err.rule) from None

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
        summary of what follows from them (ignored on reading). Every seat
        number in it counts from 1, as people count (version 2)."""
        hands = [self._hand_data(entry) for entry in self._entries]

        def seats(values: Sequence[int]) -> list[int]:
            return [s + 1 for s in values]

        summary: dict[str, Any] = {
            "finished": self.is_over,
            "hands": [
                {
                    "hand": v.number,
                    "extra": v.extra,
                    "cards": v.size,
                    "dealer": v.dealer + 1,
                    "first_bidder": v.first_bidder + 1,
                    "trump": suit_text(v.trump) if v.trump_known else None,
                    "balance": v.balance,
                    "scores": list(v.scores) if v.scores is not None else None,
                    "totals": list(v.totals),
                    "missed": seats(v.missed),
                }
                for v in self._views
            ],
            "totals": list(self.totals),
            "exact": list(self.exact_counts),
            "standings": [
                {"place": s.place, "seats": seats(s.seats), "total": s.total, "exact": s.exact}
                for s in self.standings()
            ],
        }
        if self.rules.scoring is Scoring.OKENUFF:
            summary["settlement"] = self.settlement_net()
        out: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "players": list(self.players),
            "first_dealer": self.first_dealer + 1,
        }
        if self.date is not None:
            out["date"] = self.date
        out |= {"rules": seats_for_people(self.rules.options()), "hands": hands, "summary": summary}
        return out

    @staticmethod
    def _hand_data(entry: HandEntry) -> dict[str, Any]:
        return {
            "bids": list(entry.bids),
            "trump": suit_text(entry.trump) if entry.trump_named else None,
            "tricks": list(entry.tricks) if entry.tricks is not None else None,
            "revokes": [s + 1 for s in entry.revokes],
        }

    def hands_data(self) -> list[dict[str, Any]]:
        """The ``hands`` of ``to_dict`` (version 2): what ``with_hands`` reads back."""
        return [self._hand_data(entry) for entry in self._entries]

    def with_hands(self, hands: Sequence[Any], version: int = VERSION) -> ScoreGame:
        """The same game with these hands (as ``hands_data`` wrote them, or
        version 1's, whose revokes count seats from 0); every hand is checked."""
        base = 0 if version == 1 else 1
        try:
            entries = [entry_from(h, i + 1, base) for i, h in enumerate(hands)]
        except (KeyError, TypeError) as err:
            raise ScoreError(f"the hands are incomplete or malformed ({err!r})") from None
        return ScoreGame(self.rules, self.players, self.first_dealer, entries, date=self.date)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ScoreGame:
        """Read a sheet written by ``to_dict`` (version 2, seats from 1) or by an
        older program (version 1, seats from 0); every hand is checked again."""
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            raise ScoreError(f"this is not an {FORMAT} file")
        version = data.get("version")
        if version not in (1, VERSION):
            raise ScoreError(
                f"score sheet version {version!r} is not supported (this program reads 1 to {VERSION})"
            )
        base = 0 if version == 1 else 1
        try:
            options = data["rules"]
            if not isinstance(options, Mapping):
                raise ScoreError("the rules must be a mapping of option to text")
            texts = {str(k): str(v) for k, v in options.items()}
            rules = make_rules(Rules(), texts if base == 0 else seats_from_people(texts))
            players = data["players"]
            if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
                raise ScoreError("players must be a list of names")
            dealer = data["first_dealer"]
            if type(dealer) is not int or not base <= dealer < len(players) + base:
                raise ScoreError(
                    f"first_dealer must be a seat number from {base} to {len(players) - 1 + base}, "
                    f"not {dealer!r}"
                )
            date = data.get("date")
            if date is not None and not isinstance(date, str):
                raise ScoreError(f"the date must be text such as 2024-05-31, not {date!r}")
            entries = [entry_from(h, i + 1, base) for i, h in enumerate(data["hands"])]
            return cls(rules, players, dealer - base, entries, date=date)
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
            trump = suit_text(v.trump) if v.trump_known else ""
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
        return hand_follows(self.rules, k, totals_before)

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
        plan = plan_hand(rules, k, self.first_dealer)
        size, first = plan.size, plan.first_bidder
        bids = entry.bids
        if len(bids) != n:
            raise ScoreError(f"hand {k + 1}: {len(bids)} bids for {n} players")
        done = all(b is not None for b in bids)
        to_bid = forbidden = None
        if not done and rules.bidding is Bidding.SEQUENTIAL:
            to_bid = next_bidder(plan.dealer, bids)
            forbidden = hook(rules, size, bids)
        final = [b for b in bids if b is not None]
        namer = trump_namer(rules, plan.dealer, bids)
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
            extra=plan.extra,
            size=size,
            dealer=plan.dealer,
            first_bidder=first,
            first_leader=plan.first_leader,
            bidding_order=plan.bidding_order,
            bids=bids,
            next_bidder=to_bid,
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
        known, suit = set_trump(rules, k, size)
        match rules.trump:
            case TrumpMode.TURN if known:
                return True, None, "every card is dealt, so there is no trump"
            case TrumpMode.TURN:
                return entry.trump_named, entry.trump, "turned"
            case TrumpMode.ROTATE:
                return True, suit, f"trump is {suit_word(suit)} by the rotation"
            case TrumpMode.FIXED:
                return True, suit, f"{suit_word(suit)} are always trump"
            case TrumpMode.BIDDER:
                return entry.trump_named, entry.trump, "named by the highest bidder"
        return True, None, "every hand is played without trump"

    def _check_entry(self, view: HandView, entry: HandEntry) -> None:
        """Check a whole hand entry (used for every hand after any change)."""
        rules, where = self.rules, f"hand {view.number}"
        for seat, bid in enumerate(entry.bids):
            if bid is not None:
                self._check_bid_value(self.players[seat], bid, view.size, where)
        if rules.bidding is Bidding.SEQUENTIAL:
            entered = [entry.bids[s] is not None for s in view.bidding_order]
            if entered != sorted(entered, reverse=True):
                raise ScoreError(
                    f"{where}: the bids skip a player, but bidding goes clockwise", rule="R-BID-ORDER"
                )
            if rules.hook and view.bidding_done and view.balance == "even":
                last = view.bidding_order[-1]
                raise ScoreError(
                    f"{where}: the hook forbids {self.players[last]}, who bids last, to bid "
                    f"{entry.bids[last]}: the bids would total the {tricks_word(view.size)}",
                    rule="R-HOOK",
                )
        if entry.trump_named:
            if entry.trump is not None and not isinstance(entry.trump, Suit):
                raise ScoreError(f"{where}: {entry.trump!r} is not a suit or no trump")
            if rules.trump is TrumpMode.BIDDER:
                if not view.bidding_done:
                    raise ScoreError(f"{where}: trump is named after the bidding", rule="R-TRUMP-BIDDER")
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
                    f"{where}: {self.players[view.trump_namer]} must name trump before the play",
                    rule="R-TRUMP-BIDDER",
                )
            self._tricks_values(entry.tricks, view.size, where)

    def _check_seat(self, seat: object) -> None:
        if type(seat) is not int or not 0 <= seat < self.rules.players:
            raise ScoreError(f"{seat!r} is not a seat: seats are 0 to {self.rules.players - 1}")

    @staticmethod
    def _check_bid_value(who: str, bid: object, size: int, where: str = "") -> None:
        if type(bid) is not int or not 0 <= bid <= size:
            at = f"{where}: " if where else ""
            raise ScoreError(f"{at}{who} bid {bid!r}, but a bid is from 0 to {size}", rule="R-BID-RANGE")

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
                f"{at}the tricks taken add up to {sum(values)}, but the hand has {tricks_word(size)}"
            )
        return tuple(values)

    def _tricks_tuple(self, taken: Sequence[int] | Mapping[int, int], view: HandView) -> tuple[int, ...]:
        if not view.bidding_done:
            raise ScoreError(f"enter every bid of hand {view.number} before the tricks taken")
        if view.needs_trump:
            assert view.trump_namer is not None
            raise ScoreError(
                f"{self.players[view.trump_namer]} bid highest and must name trump (a suit or no trump) "
                "before the play",
                rule="R-TRUMP-BIDDER",
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
