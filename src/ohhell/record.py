"""The game record: a line-oriented text file that replays a match exactly.

A record holds the rules (every option, so a later change of a preset cannot
change an old record's meaning), the seats' names, free tags, and every action
with the deals included, so replaying needs no randomness. Scores, trick
winners and dealers are not stored: they are recomputed. See
docs/record-format.md for the format.

>>> from ohhell.rules import PRESETS
>>> rec = loads(dumps(Record(PRESETS["pagat"], ("Ann", "Bob", "Cid", "Dee"), ())))
>>> rec.seats
('Ann', 'Bob', 'Cid', 'Dee')
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .actions import Action, Bid, ChangeBid, Deal, DrawForDealer, NameTrump, Play
from .cards import Card, CardError, Suit
from .claim import Claim, check_claim
from .game import GameState, IllegalActionError, Phase, actors, apply, new_game
from .rules import OPTION_NAMES, PRESETS, Bidding, Rules, RulesError, format_option, parse_option

MAGIC = "ohhell-record 1"


class RecordError(ValueError):
    """A record that cannot be read or replayed; says where and why. ``line``,
    ``hand`` and ``action`` count from 1; ``rule`` is the rule point (RULES.md)
    an action broke, for docs and tests."""

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        hand: int | None = None,
        action: int | None = None,
        rule: str | None = None,
    ) -> None:
        where = []
        if line is not None:
            where.append(f"line {line}")
        if hand is not None:
            where.append(f"hand {hand}")
        if action is not None:
            where.append(f"action {action}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)
        self.line = line
        self.hand = hand
        self.action = action
        self.rule = rule


@dataclass(frozen=True)
class Record:
    """A match as data: rules, seat names, tags, the action log and the claims
    made in it (``claim.Claim``: each before the action it is ``at``)."""

    rules: Rules
    seats: tuple[str, ...]
    actions: tuple[Action, ...]
    tags: tuple[tuple[str, str], ...] = ()
    lines: tuple[int, ...] = field(default=(), compare=False, repr=False)  # source line per action
    claims: tuple[Claim, ...] = ()
    claim_lines: tuple[int, ...] = field(default=(), compare=False, repr=False)  # source line per claim

    def __post_init__(self) -> None:
        # A name or tag is one line of the file: a line break would smuggle
        # in lines (actions) that the record does not hold.
        for name in self.seats:
            if not _one_line(name):
                raise RecordError(f"a seat name must be one line without outer spaces: {name!r}")
        for key, value in self.tags:
            if not key or any(ch.isspace() for ch in key) or not _one_line(key):
                raise RecordError(f"a tag name must be one word: {key!r}")
            if not _one_line(value):
                raise RecordError(f"the tag {key} must be one line without outer spaces")

    @classmethod
    def from_state(
        cls,
        state: GameState,
        seats: Iterable[str] | None = None,
        tags: Iterable[tuple[str, str]] = (),
        claims: Iterable[Claim] = (),
    ) -> Record:
        names = tuple(seats) if seats is not None else tuple(f"Seat {s + 1}" for s in range(state.players))
        return cls(state.rules, names, tuple(state.log), tuple(tags), claims=tuple(claims))

    def replay(self, *, complete: bool = False) -> GameState:
        """Apply every action to a new match; a broken rule raises RecordError
        naming the line, hand and action number. ``complete`` also refuses a
        record that stops before the match is over."""
        state = new_game(self.rules)
        claims = sorted(enumerate(self.claims), key=lambda c: c[1].at)
        # Each open claim: (its index, the claim, the hand, the claimer's tricks then).
        open_claims: list[tuple[int, Claim, int, int]] = []
        for i in range(len(self.actions) + 1):
            while claims and claims[0][1].at == i:
                k, claim = claims.pop(0)
                try:
                    check_claim(state, claim.seat, claim.tricks)
                except IllegalActionError as err:
                    raise RecordError(
                        seat_words(str(err), self.seats), line=self._claim_line(k), hand=state.hand_number + 1
                    ) from None
                open_claims.append((k, claim, state.hand_number, state.taken[claim.seat] + claim.tricks))
            if i == len(self.actions):
                break
            action = self.actions[i]
            before = state.hand_number
            try:
                apply(state, action)
            except IllegalActionError as err:
                line = self.lines[i] if i < len(self.lines) else None
                raise RecordError(
                    seat_words(str(err), self.seats),
                    line=line,
                    hand=state.hand_number + 1,
                    action=i + 1,
                    rule=err.rule,
                ) from None
            if state.hand_number != before and open_claims:  # the hand ended: did its claims come true?
                final = list(state.results[-1].tricks)
                for k, claim, hand, expected in open_claims:
                    if hand == before and final[claim.seat] != expected:
                        raise RecordError(
                            f"{seat_words(f'seat {claim.seat}', self.seats)} claimed {claim.tricks} of the "
                            "tricks left but ended with "
                            f"{final[claim.seat]} tricks, not {expected}",
                            line=self._claim_line(k),
                            hand=before + 1,
                        )
                open_claims = [c for c in open_claims if c[2] != before]
        if claims:
            raise RecordError(
                "a claim must come before an action of its hand", line=self._claim_line(claims[0][0])
            )
        if complete and state.phase is not Phase.OVER:
            raise RecordError(
                f"the record stops before the match is over: it waits for {describe_next(state, self.seats)}",
                hand=state.hand_number + 1,
                action=len(self.actions),
            )
        return state

    def _claim_line(self, k: int) -> int | None:
        return self.claim_lines[k] if k < len(self.claim_lines) else None


def _one_line(text: str) -> bool:
    # splitlines also breaks on \u2028, \x1c and friends: any of them would
    # turn one field into several record lines on reading.
    return len(text.splitlines()) <= 1 and text == text.strip()


_SEAT = re.compile(r"\bseat (\d+)('s)?")


def seat_words(text: str, names: Sequence[str]) -> str:
    """The engine's words about seats (counted from 0, as records count them)
    said to a person: each seat by its name and its number counted from 1,
    ``Ann (seat 1)``; ``seat 0's`` becomes ``Ann's``."""

    def said(found: re.Match[str]) -> str:
        seat, owner = int(found.group(1)), found.group(2)
        name = names[seat] if seat < len(names) and names[seat] else ""
        if owner:
            return f"{name}'s" if name else f"seat {seat + 1}'s"
        return f"{name} (seat {seat + 1})" if name else f"seat {seat + 1}"

    return _SEAT.sub(said, text)


def describe_next(state: GameState, names: Sequence[str] = ()) -> str:
    """A short phrase for what the match waits for: with ``names``, for a
    person (seats by name, counted from 1); without, for a developer reading
    the engine's counts (seats counted from 0, as the engine counts them)."""
    if state.phase is Phase.DRAW:
        return "the draw for dealer"
    if state.phase is Phase.DEAL:
        return f"the deal of hand {state.hand_number + 1}"
    if state.phase is Phase.OVER:
        return "nothing: the match is over"
    verb = {Phase.BID: "bid", Phase.TRUMP: "name trump", Phase.PLAY: "play"}[state.phase]
    waiting = actors(state)
    if state.phase is Phase.BID and len(waiting) > 1 and state.rules.bidding is Bidding.SIMULTANEOUS:
        if not names:
            return f"seats {', '.join(str(s) for s in waiting)} to {verb}"
        return f"{', '.join(seat_words(f'seat {s}', names) for s in waiting)} to {verb}"
    return (
        f"{seat_words(f'seat {state.to_act}', names)} to {verb}"
        if names
        else f"seat {state.to_act} to {verb}"
    )


# --- Writing ---


def _cards(cards: Iterable[Card]) -> str:
    return ",".join(str(c) for c in cards)


def format_action(action: Action) -> str:
    """One action as a record line (without the line break)."""
    match action:
        case Play(seat, card):
            return f"play {seat} {card if card is not None else '?'}"
        case Bid(seat, bid):
            return f"bid {seat} {bid}"
        case ChangeBid(seat, bid):
            return f"change {seat} {bid}"
        case NameTrump(seat, suit):
            return f"trump {seat} {suit.letter if suit is not None else 'NT'}"
        case Deal(hands, turned):
            parts = " ".join(f"{s}:{_cards(h)}" for s, h in enumerate(hands))
            return f"deal {parts} turn:{turned if turned is not None else '-'}"
        case DrawForDealer(cards):
            return "draw " + " ".join(str(c) if c is not None else "-" for c in cards)
    raise TypeError(f"not an action: {action!r}")


def dumps(record: Record) -> str:
    """The record as text; ``loads(dumps(r)) == r``."""
    out = [MAGIC]
    preset = next((name for name, r in PRESETS.items() if r == record.rules), None)
    if preset is not None:
        out.append(f"# rules of the preset {preset}")
    for name in OPTION_NAMES:
        out.append(f"rule {name.replace('_', '-')} {format_option(name, getattr(record.rules, name))}")
    for i, name in enumerate(record.seats):
        out.append(f"seat {i} {name}")
    for key, value in record.tags:
        out.append(f"tag {key} {value}")
    hand = 0
    claims = sorted(record.claims, key=lambda c: c.at)
    for i, action in enumerate(record.actions):
        while claims and claims[0].at == i:
            claim = claims.pop(0)
            out.append(f"claim {claim.seat} {claim.tricks}")
        if isinstance(action, Deal):
            hand += 1
            size = len(action.hands[0])
            out.append(f"# hand {hand}: {size} card{'s' if size != 1 else ''}")
        out.append(format_action(action))
    out.extend(f"claim {c.seat} {c.tricks}" for c in claims)  # made after the last action
    return "\n".join(out) + "\n"


def dump(record: Record, path: str | os.PathLike[str]) -> None:
    """Write a record to a file, atomically: a crash never leaves half a record."""
    tmp = f"{os.fspath(path)}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(dumps(record))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


# --- Reading ---

# The one reader of the text files a person hands to a command (game
# records, and score sheets through ``read_text``). A file that is not UTF-8
# text (an image, a compressed file, text saved in another encoding) or is far
# larger than any record is refused with ``NotTextError``, an ``OSError``:
# every command already says "cannot read FILE: why" in one line for a file it
# cannot open, and this is one more such file. The words say what the file
# seems to be, so a person who gave the wrong file sees which one.

MAX_FILE_BYTES = 64 * 1024 * 1024
"""Far above the longest record or sheet (a 1,000-hand match is under 1 MB);
a larger file is not one of ours, and is not read into memory."""

# The first bytes of common files that are not text, and what to call them.
_SIGNATURES = (
    (b"\x1f\x8b", "a gzip-compressed file"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a zip archive"),
    (b"BZh", "a bzip2-compressed file"),
    (b"\xfd7zXZ\x00", "an xz-compressed file"),
    (b"\x28\xb5\x2f\xfd", "a zstd-compressed file"),
    (b"\x7fELF", "a program"),
)


class NotTextError(OSError):
    """A file that is not UTF-8 text; ``strerror`` says what it seems to be
    and what was expected, in one line."""

    def __init__(self, path: str | os.PathLike[str], why: str) -> None:
        super().__init__(None, why, os.fspath(path))


def read_text(path: str | os.PathLike[str], what: str) -> str:
    """The text of the file at ``path``, which should hold ``what`` (say "a
    game record"); raise ``OSError`` when it cannot be opened and
    ``NotTextError`` when it is not UTF-8 text."""
    with open(path, "rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise NotTextError(
            path, f"the file is over {MAX_FILE_BYTES // (1024 * 1024)} MB: too large to be {what}"
        )
    kind = next((name for magic, name in _SIGNATURES if data.startswith(magic)), None)
    if kind is not None:
        raise NotTextError(path, f"this is {kind}, not {what} (which is text)")
    if b"\x00" in data:
        raise NotTextError(path, f"this is a binary file, not {what} (which is text)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise NotTextError(
            path,
            f"line {line} is not UTF-8 text (byte 0x{data[err.start]:02x}): {what} is UTF-8 text; "
            "save it as UTF-8 and try again",
        ) from None
    return text.removeprefix("\ufeff")  # a byte order mark some editors write


def _int(word: str, what: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise ValueError(f"{what} must be a whole number, not {word!r}") from None


def _card(word: str) -> Card:
    return Card.parse(word)


def parse_action(line: str) -> Action:
    """Read one action line; raise ValueError saying what is wrong."""
    words = line.split()
    verb, args = words[0], words[1:]

    def need(k: int, form: str) -> None:
        if len(args) != k:
            raise ValueError(f"'{verb}' takes {form}, got {len(args)} words")

    if verb == "play":
        need(2, "a seat and a card")
        card = None if args[1] == "?" else _card(args[1])
        return Play(_int(args[0], "the seat"), card)
    if verb in ("bid", "change"):
        need(2, "a seat and a number of tricks")
        seat, bid = _int(args[0], "the seat"), _int(args[1], "the bid")
        return Bid(seat, bid) if verb == "bid" else ChangeBid(seat, bid)
    if verb == "trump":
        need(2, "a seat and a suit or NT")
        suit = None if args[1].upper() == "NT" else Suit.parse(args[1])
        return NameTrump(_int(args[0], "the seat"), suit)
    if verb == "draw":
        if not args:
            raise ValueError("'draw' takes a card or - for each seat")
        return DrawForDealer(tuple(None if w == "-" else _card(w) for w in args))
    if verb == "deal":
        if not args or not args[-1].startswith("turn:"):
            raise ValueError("'deal' takes seat:cards for every seat, then turn:card or turn:-")
        turn = args[-1][5:]
        hands = []
        for i, part in enumerate(args[:-1]):
            seat_text, sep, cards = part.partition(":")
            if not sep or _int(seat_text, "the seat") != i:
                raise ValueError(f"'deal' lists the seats in order as 0:cards 1:cards ...; got {part!r}")
            hands.append(tuple(_card(c) for c in cards.split(",") if c))
        return Deal(tuple(hands), None if turn == "-" else _card(turn))
    raise ValueError(
        f"unknown line '{verb}': expected rule, seat, tag, draw, deal, bid, change, trump or play"
    )


def loads(text: str) -> Record:
    """Read a record from text, refusing a bad line with its number and reason.

    This checks the form only; ``Record.replay`` checks the rules.
    """
    lines = text.splitlines()
    first = next((i for i, ln in enumerate(lines) if ln.strip() and not ln.lstrip().startswith("#")), None)
    if first is None or lines[first].strip() != MAGIC:
        raise RecordError(f"not a game record: the first line must be '{MAGIC}'", line=(first or 0) + 1)
    options: dict[str, object] = {}
    seats: dict[int, str] = {}
    tags: list[tuple[str, str]] = []
    actions: list[Action] = []
    at: list[int] = []
    claims: list[Claim] = []
    claim_at: list[int] = []
    for number, raw in enumerate(lines[first + 1 :], start=first + 2):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        verb, _, rest = line.partition(" ")
        try:
            if verb == "rule":
                if actions:
                    raise ValueError("rules must come before the first action")
                name, _, value = rest.strip().partition(" ")
                key, parsed = parse_option(name, value)
                if key in options:
                    raise ValueError(f"the rule {name} is given twice")
                options[key] = parsed
            elif verb == "seat":
                index, _, name = rest.strip().partition(" ")
                seat = _int(index, "the seat")
                if seat in seats or seat != len(seats):
                    raise ValueError(
                        f"the seats are listed once each, in order from 0 as the record counts them: "
                        f"'seat {seat}' came where 'seat {len(seats)}' was expected"
                    )
                seats[seat] = name.strip()
            elif verb == "claim":
                words = rest.split()
                if len(words) != 2:
                    raise ValueError("a claim is 'claim SEAT TRICKS', e.g. claim 2 0")
                claims.append(
                    Claim(_int(words[0], "the seat"), _int(words[1], "the tricks claimed"), len(actions))
                )
                claim_at.append(number)
            elif verb == "tag":
                key, _, value = rest.strip().partition(" ")
                if not key:
                    raise ValueError("a tag needs a name")
                tags.append((key, value.strip()))
            else:
                actions.append(parse_action(line))
                at.append(number)
        except (ValueError, CardError, RulesError) as err:
            raise RecordError(str(err), line=number) from None
    missing = [n for n in OPTION_NAMES if n not in options]
    if missing:
        raise RecordError(f"the record does not give the rule {missing[0].replace('_', '-')}")
    try:
        rules = Rules(**options)  # type: ignore[arg-type]
    except RulesError as err:
        raise RecordError(f"the record's rules cannot be played: {err}") from None
    if len(seats) != rules.players:
        raise RecordError(
            f"the rules are for {rules.players} players but the record names {len(seats)} seats"
        )
    names = tuple(seats[i] for i in range(len(seats)))
    return Record(rules, names, tuple(actions), tuple(tags), tuple(at), tuple(claims), tuple(claim_at))


def load(path: str | os.PathLike[str]) -> Record:
    """Read a record file (see ``loads``); a file that is not text raises
    ``NotTextError`` (an ``OSError``, like a file that cannot be opened)."""
    return loads(read_text(path, "a game record"))
