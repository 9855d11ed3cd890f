"""Rules as data: one frozen ``Rules`` value of independent switches, and presets.

Every variant of the seed texts is a field (its rule ID is in the comment), so
variants combine: ``dataclasses.replace(PRESETS["pagat"], hook=False)``. A
combination that cannot be played raises ``RulesError`` with a sentence that
says why, once, when the value is made. ``parse_option`` reads a field from
text; the command line and the game record share it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from .cards import Card, CardError, Suit, australian_deck, standard_deck


class RulesError(ValueError):
    """A rule set that cannot be played, or an option that cannot be read.

    ``str(err)`` is plain words (an option named as people read it, "Hand
    sizes", seats counted from 1); ``rule`` is the rule point's id (RULES.md)
    the refusal rests on, for docs and tests, or None; ``option`` the option
    at fault as the command line and records spell it ("hand-sizes"), or
    None, for a client to point at its own field or flag."""

    def __init__(self, message: str, *, rule: str | None = None, option: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.option = option


class Sequence(StrEnum):
    """How hand sizes run through the match (R-SEQ-*)."""

    DOWN_UP = "down-up"  # R-SEQ-DOWNUP: max down to 1, back up to max
    UP_DOWN = "up-down"  # R-SEQ-UPDOWN: 1 up to max, back down to 1
    DOWN = "down"  # R-SEQ-DOWN: max down to 1
    UP = "up"  # R-SEQ-UP: 1 up to max
    FIXED = "fixed"  # R-SEQ-FIXED: fixed_hands hands of start_cards cards


class Deck(StrEnum):
    STANDARD = "standard"  # R-DECK
    AUSTRALIAN = "australian"  # R-DECK-AU: 65 cards for 5 players, 78 for 6


class TrumpMode(StrEnum):
    TURN = "turn"  # R-TRUMP-TURN (none when all cards are dealt, R-TRUMP-NONE-ALL-DEALT)
    ROTATE = "rotate"  # R-TRUMP-ROTATE: trump_rotation, one step per hand
    FIXED = "fixed"  # R-TRUMP-FIXED: trump_suit every hand
    BIDDER = "bidder"  # R-TRUMP-BIDDER: the highest bidder names a suit or no trump
    NONE = "none"  # every hand without trump (a fixed sequence of only "no trump")


class Bidding(StrEnum):
    SEQUENTIAL = "sequential"  # R-BID-ORDER
    SIMULTANEOUS = "simultaneous"  # R-BID-SIMULTANEOUS


class FirstLead(StrEnum):
    LEFT = "left"  # R-LEAD-LEFT
    DEALER = "dealer"  # R-LEAD-DEALER


class Scoring(StrEnum):
    PAGAT = "pagat"  # R-SC-PAGAT
    RIVER = "river"  # R-SC-RIVER
    TENS = "tens"  # R-SC-TENS
    TRICKS_BONUS = "tricks-bonus"  # R-SC-TRICKS-BONUS
    FIVES = "fives"  # R-SC-FIVES
    SQUARES = "squares"  # R-SC-SQUARES
    PENALTY = "penalty"  # R-SC-PENALTY
    OKENUFF = "okenuff"  # R-SC-OKENUFF


class TieBreak(StrEnum):
    NONE = "none"  # R-WIN: a tie is a shared win
    EXTRA_HANDS = "extra-hands"  # R-TIE-EXTRA
    MOST_EXACT = "most-exact"  # R-TIE-EXACT


KACHUFUL: Final[tuple[Suit | None, ...]] = (Suit.SPADES, Suit.DIAMONDS, Suit.CLUBS, Suit.HEARTS)
"""The Kachuful trump rotation (R-TRUMP-ROTATE): spades, diamonds, clubs, hearts."""

START_CARDS: Final[Mapping[int, int]] = {3: 10, 4: 10, 5: 10, 6: 8, 7: 7}
"""R-START: the first hand size by the number of players."""

MIN_PLAYERS: Final = 3
MAX_PLAYERS: Final = 7
MAX_HANDS: Final = 200
"""The most hands a match may be set to have (the longest seed sequence is 25):
a bound, so that no rule set asks for an endless match or a schedule that
fills memory."""


@dataclass(frozen=True, kw_only=True)
class Rules:
    """A complete rule set. Fields are independent switches; see docs/rules.md."""

    players: int = 4  # R-PLAYERS: 3..7 (4 for Okenuff scoring)
    deck: Deck = Deck.STANDARD  # R-DECK, R-DECK-AU
    sequence: Sequence = Sequence.DOWN_UP  # R-SEQ-*
    start_cards: int | None = None  # R-START when None; the largest hand otherwise
    fixed_hands: int = 10  # R-SEQ-FIXED: number of hands when sequence is FIXED
    hand_sizes: tuple[int, ...] | None = None  # R-SEQ-FIXED, R-SEQ-OKENUFF: explicit list wins
    first_dealer: int | None = None  # R-DEALER-DRAW when None; a chosen seat otherwise (004)
    trump: TrumpMode = TrumpMode.TURN  # R-TRUMP-*
    trump_rotation: tuple[Suit | None, ...] = KACHUFUL  # R-TRUMP-ROTATE; None = a no-trump step
    trump_suit: Suit = Suit.SPADES  # R-TRUMP-FIXED ("Oh Shit!": spades)
    bidding: Bidding = Bidding.SEQUENTIAL  # R-BID-ORDER, R-BID-SIMULTANEOUS
    hook: bool = True  # R-HOOK
    bid_changes: bool = False  # R-BID-CHANGE
    first_lead: FirstLead = FirstLead.LEFT  # R-LEAD-LEFT, R-LEAD-DEALER
    devils_bridge: bool = False  # R-DEVILS-BRIDGE: every 1-card hand is played blind
    scoring: Scoring = Scoring.PAGAT  # R-SC-*
    no_trump_doubles: bool = False  # R-SC-OKENUFF: a hand without trump scores double
    tie_break: TieBreak = TieBreak.NONE  # R-WIN, R-TIE-EXTRA, R-TIE-EXACT
    teams: tuple[tuple[int, ...], ...] | None = None  # R-TEAMS: seats whose scores combine

    schedule: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """The hand size of every scheduled hand, computed once from the fields."""

    def __post_init__(self) -> None:
        _coerce(self)
        object.__setattr__(self, "schedule", _validate(self))

    @property
    def deck_size(self) -> int:
        return 52 if self.deck is Deck.STANDARD else 52 + 13 * (self.players - 4)

    def pack(self) -> list[Card]:
        """A fresh pack for these rules, in a fixed order (R-DECK, R-DECK-AU)."""
        return australian_deck(self.players) if self.deck is Deck.AUSTRALIAN else standard_deck()

    def is_devils_bridge_hand(self, hand_size: int) -> bool:
        """R-DEVILS-BRIDGE: is a hand of this size played with cards on foreheads?"""
        return self.devils_bridge and hand_size == 1

    def replace(self, **changes: Any) -> Rules:
        """A copy with some fields changed, validated again."""
        return dataclasses.replace(self, **changes)

    def options(self) -> dict[str, str]:
        """Every field as text, in the form ``parse_option`` reads back."""
        return {name.replace("_", "-"): format_option(name, getattr(self, name)) for name in OPTION_NAMES}

    def differences(self, other: Rules) -> dict[str, str]:
        """The options (as text) where this rule set differs from ``other``."""
        mine, theirs = self.options(), other.options()
        return {k: v for k, v in mine.items() if theirs[k] != v}


def _sequence(rules: Rules) -> tuple[int, ...]:
    if rules.hand_sizes is not None:
        return tuple(rules.hand_sizes)
    top = rules.start_cards
    if top is None:
        top = 13 if rules.deck is Deck.AUSTRALIAN else START_CARDS.get(rules.players, 10)
    down = tuple(range(top, 0, -1))
    up = tuple(range(1, top + 1))
    match rules.sequence:
        case Sequence.DOWN_UP:
            return down + up[1:]
        case Sequence.UP_DOWN:
            return up + down[1:]
        case Sequence.DOWN:
            return down
        case Sequence.UP:
            return up
        case Sequence.FIXED:
            return (top,) * rules.fixed_hands
    raise RulesError(f"unknown hand sequence {rules.sequence!r}")  # pragma: no cover


_ENUM_FIELDS: Final = {
    "deck": Deck,
    "sequence": Sequence,
    "trump": TrumpMode,
    "bidding": Bidding,
    "first_lead": FirstLead,
    "scoring": Scoring,
    "tie_break": TieBreak,
}


def _coerce(rules: Rules) -> None:
    # Accept the text form of enum fields (Rules(bidding="simultaneous")) and
    # lists for tuples, so the checks below, which compare enum members by
    # identity, never see a plain string.
    for name, kind in _ENUM_FIELDS.items():
        value = getattr(rules, name)
        if not isinstance(value, kind):
            try:
                object.__setattr__(rules, name, _enum_parser(kind)(str(value)))
            except RulesError as err:
                raise RulesError(f"{OPTION_WORDS[name]}: {err}", option=_spelled(name)) from None
    for name in ("hook", "bid_changes", "devils_bridge", "no_trump_doubles"):
        value = getattr(rules, name)
        if isinstance(value, str):
            object.__setattr__(rules, name, _parse_bool(value))
        elif type(value) is not bool:
            raise RulesError(f"{OPTION_WORDS[name]}: answer yes or no, not {value!r}", option=_spelled(name))
    for name in ("players", "fixed_hands", "start_cards", "first_dealer"):
        if type(getattr(rules, name)) is bool:
            raise RulesError(
                f"{OPTION_WORDS[name]}: write a whole number, not a yes or no", option=_spelled(name)
            )
    if rules.hand_sizes is not None and any(type(x) is bool for x in rules.hand_sizes):
        raise RulesError(f"{OPTION_WORDS['hand_sizes']}: {_SIZES_HOW}", option="hand-sizes")
    object.__setattr__(
        rules,
        "trump_rotation",
        tuple(
            t if t is None or isinstance(t, Suit) else _parse_suit_or_none(str(t))
            for t in rules.trump_rotation
        ),
    )
    if not isinstance(rules.trump_suit, Suit):
        object.__setattr__(rules, "trump_suit", _parse_suit(str(rules.trump_suit)))
    if rules.hand_sizes is not None:
        object.__setattr__(rules, "hand_sizes", tuple(rules.hand_sizes))
    if rules.teams is not None:
        object.__setattr__(rules, "teams", tuple(tuple(t) for t in rules.teams))


def _validate(rules: Rules) -> tuple[int, ...]:
    n = rules.players
    if not isinstance(n, int) or not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise RulesError(f"Oh Hell is for 3 to 7 players, not {n!r}", rule="R-PLAYERS")
    if rules.scoring is Scoring.OKENUFF and n != 4:
        raise RulesError(f"Okenuff's rules are for exactly 4 players, not {n}", rule="R-PLAYERS")
    if rules.deck is Deck.AUSTRALIAN and n not in (5, 6):
        raise RulesError(f"Australian packs are for 5 or 6 players, not {n}", rule="R-DECK-AU")
    if rules.start_cards is not None and rules.start_cards < 1:
        raise RulesError(f"the largest hand must have at least 1 card, not {rules.start_cards}")
    # Sizes and counts are bounded before the schedule is built from them, so
    # no number, however large, makes a rule set that fills memory.
    if rules.start_cards is not None and rules.start_cards * n > rules.deck_size:
        raise RulesError(
            f"a hand of {rules.start_cards} cards for {n} players needs {rules.start_cards * n} cards, "
            f"more than the {rules.deck_size}-card pack"
        )
    if rules.fixed_hands > MAX_HANDS:
        raise RulesError(
            f"a match may have at most {MAX_HANDS} hands, not {rules.fixed_hands}", rule="R-SEQ-FIXED"
        )
    if rules.sequence is Sequence.FIXED and rules.fixed_hands < 1:
        raise RulesError(f"a fixed sequence needs at least 1 hand, not {rules.fixed_hands}")
    if rules.hand_sizes is not None and not rules.hand_sizes:
        raise RulesError("an explicit list of hand sizes must name at least one hand")
    hands = len(rules.hand_sizes) if rules.hand_sizes is not None else rules.fixed_hands
    if (rules.hand_sizes is not None or rules.sequence is Sequence.FIXED) and hands > MAX_HANDS:
        raise RulesError(f"a match may have at most {MAX_HANDS} hands, not {hands}", rule="R-SEQ-FIXED")
    if len(rules.trump_rotation) > MAX_HANDS:
        raise RulesError(f"a trump rotation may have at most {MAX_HANDS} steps", rule="R-TRUMP-ROTATE")
    schedule = _sequence(rules)
    for size in schedule:
        if not isinstance(size, int) or size < 1:
            raise RulesError(f"every hand needs at least 1 card, not {size!r}")
    biggest = max(schedule)
    if biggest * n > rules.deck_size:
        raise RulesError(
            f"a hand of {biggest} cards for {n} players needs {biggest * n} cards, "
            f"more than the {rules.deck_size}-card pack"
        )
    if rules.first_dealer is not None and not 0 <= rules.first_dealer < n:
        # Seats are counted from 1 in every message a person reads.
        raise RulesError(
            f"First dealer: choose one of the seats 1 to {n}; seat {rules.first_dealer + 1} does not exist",
            option="first-dealer",
        )
    if rules.bidding is Bidding.SIMULTANEOUS:
        if rules.hook:
            raise RulesError(
                "simultaneous bidding has no last bidder, so it cannot have the hook: set hook off",
                rule="R-HOOK",
            )
        if rules.bid_changes:
            raise RulesError(
                "sealed simultaneous bids cannot be changed after the next bid", rule="R-BID-CHANGE"
            )
    if not rules.trump_rotation:  # refused in every mode, so every rule set round-trips as text
        raise RulesError("a trump rotation must name at least one suit or no-trump step")
    if rules.devils_bridge and 1 not in schedule:
        raise RulesError("Devil's Bridge is played on a 1-card hand, and this sequence has none")
    if rules.teams is not None:
        _validate_teams(rules.teams, n)
    return schedule


def _validate_teams(teams: tuple[tuple[int, ...], ...], n: int) -> None:
    seats = [s for team in teams for s in team]
    if sorted(seats) != list(range(n)):
        # Said with seats counted from 1, as the players count them, and the
        # first seat at fault named (never the teams as Python writes them).
        wrong = next((s for s in seats if not 0 <= s < n), None)
        twice = next((s for s in seats if seats.count(s) > 1), None)
        if wrong is not None:
            fault = f"seat {wrong + 1} does not exist"
        elif twice is not None:
            fault = f"seat {twice + 1} is in more than one team"
        else:
            fault = f"seat {min(set(range(n)) - set(seats)) + 1} is in no team"
        raise RulesError(
            f"Teams must put each of the seats 1 to {n} in exactly one team; {fault}", option="teams"
        )
    if len(teams) < 2:
        raise RulesError("Teams: there must be at least two teams", option="teams")
    if any(not team for team in teams):
        raise RulesError("Teams: a team cannot be empty", option="teams")


# --- Options as text: the command line and the record share these. ---

_YES: Final = {"yes", "true", "on", "1"}
_NO: Final = {"no", "false", "off", "0"}


def _shown(text: str) -> str:
    """``text`` quoted for an error message, cut short: a message never
    repeats a huge value back to whoever sent it."""
    return repr(text) if len(text) <= 40 else repr(text[:37]) + "..."


def _parse_bool(text: str) -> bool:
    low = text.strip().lower()
    if low in _YES:
        return True
    if low in _NO:
        return False
    raise RulesError(f"answer yes or no, not {_shown(text)}")


def _parse_int(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise RulesError(f"write a whole number, not {_shown(text)}") from None


def _parse_optional_int(word: str) -> Callable[[str], int | None]:
    def parse(text: str) -> int | None:
        return None if text.strip().lower() == word else _parse_int(text)

    return parse


_SIZES_HOW: Final = "write whole numbers separated by commas, like 3,2,1"


def _whole_numbers(pieces: list[str], how: str) -> tuple[int, ...]:
    out = []
    for piece in pieces:
        try:
            out.append(int(piece))
        except ValueError:
            raise RulesError(f"{how}; {_shown(piece)} is not a whole number") from None
    return tuple(out)


def _parse_int_list(text: str) -> tuple[int, ...] | None:
    if text.strip().lower() in ("", "none", "auto"):
        return None
    return _whole_numbers(text.replace(" ", "").split(","), _SIZES_HOW)


def _parse_suit_or_none(text: str) -> Suit | None:
    if text.strip().upper() in ("NT", "NONE", "N"):
        return None
    try:
        return Suit.parse(text)
    except CardError as err:
        raise RulesError(f"{err}, or NT for no trump") from None


def _parse_rotation(text: str) -> tuple[Suit | None, ...]:
    return tuple(_parse_suit_or_none(t) for t in text.replace(" ", "").split(","))


def _parse_suit(text: str) -> Suit:
    try:
        return Suit.parse(text)
    except CardError as err:
        raise RulesError(str(err)) from None


_TEAMS_HOW: Final = "write each team's seat numbers joined by +, the teams separated by commas, like 1+3,2+4"


def _parse_teams(text: str) -> tuple[tuple[int, ...], ...] | None:
    if text.strip().lower() in ("", "none"):
        return None
    return tuple(_whole_numbers(team.split("+"), _TEAMS_HOW) for team in text.replace(" ", "").split(","))


def _enum_parser(kind: type[StrEnum]) -> Callable[[str], StrEnum]:
    def parse(text: str) -> StrEnum:
        key = text.strip().lower().replace("_", "-")
        try:
            return kind(key)
        except ValueError:
            allowed = ", ".join(m.value for m in kind)
            raise RulesError(f"expected one of {allowed}, not {_shown(text)}") from None

    return parse


_PARSERS: Final[dict[str, Callable[[str], Any]]] = {
    "players": _parse_int,
    "deck": _enum_parser(Deck),
    "sequence": _enum_parser(Sequence),
    "start_cards": _parse_optional_int("auto"),
    "fixed_hands": _parse_int,
    "hand_sizes": _parse_int_list,
    "first_dealer": _parse_optional_int("draw"),
    "trump": _enum_parser(TrumpMode),
    "trump_rotation": _parse_rotation,
    "trump_suit": _parse_suit,
    "bidding": _enum_parser(Bidding),
    "hook": _parse_bool,
    "bid_changes": _parse_bool,
    "first_lead": _enum_parser(FirstLead),
    "devils_bridge": _parse_bool,
    "scoring": _enum_parser(Scoring),
    "no_trump_doubles": _parse_bool,
    "tie_break": _enum_parser(TieBreak),
    "teams": _parse_teams,
}
OPTION_NAMES: Final[tuple[str, ...]] = tuple(_PARSERS)
"""Field names that are options, in the order records write them."""


def _spelled(name: str) -> str:
    """A field's name as options are spelled: ``hand-sizes``."""
    return name.replace("_", "-")


OPTION_WORDS: Final[dict[str, str]] = {
    "players": "Players",
    "deck": "Pack of cards",
    "sequence": "How hand sizes run",
    "start_cards": "Largest hand",
    "fixed_hands": "Number of hands",
    "hand_sizes": "Hand sizes",
    "first_dealer": "First dealer",
    "trump": "Trump",
    "trump_rotation": "Trump suits in turn",
    "trump_suit": "Trump suit",
    "bidding": "Bidding",
    "hook": "The hook",
    "bid_changes": "Bid changes",
    "first_lead": "First lead",
    "devils_bridge": "Devil's Bridge",
    "scoring": "Scoring",
    "no_trump_doubles": "No trump scores double",
    "tie_break": "A tie for first",
    "teams": "Teams",
}
"""Each option's name in words, which begins a refusal of its value
("Hand sizes: write whole numbers ..."): a person reads the field's name,
never the option's id."""


def format_option(name: str, value: Any) -> str:
    """Write a field's value as text that ``parse_option`` reads back."""
    if value is None:
        return {"start_cards": "auto", "first_dealer": "draw"}.get(name, "none")
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, Suit):
        return value.letter
    if name == "trump_rotation":
        return ",".join("NT" if s is None else s.letter for s in value)
    if name == "teams":
        return ",".join("+".join(str(s) for s in team) for team in value)
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def parse_option(name: str, text: str) -> tuple[str, Any]:
    """Read one option (``"hook"``, ``"no"``) into a field name and value."""
    key = name.strip().lower().replace("-", "_")
    if key not in _PARSERS:
        names = ", ".join(n.replace("_", "-") for n in OPTION_NAMES)
        raise RulesError(f"unknown rule option {_shown(name)}; options are {names}")
    try:
        return key, _PARSERS[key](text)
    except RulesError as err:
        raise RulesError(f"{OPTION_WORDS[key]}: {err}", option=_spelled(key)) from None


def make_rules(preset: str | Rules = "pagat", options: Mapping[str, str] | None = None) -> Rules:
    """A preset (by name or value) with options given as text applied on top.

    >>> make_rules("pagat", {"hook": "no", "players": "5"}).hook
    False
    """
    base = preset if isinstance(preset, Rules) else preset_rules(preset)
    changes = dict(parse_option(k, v) for k, v in (options or {}).items())
    return dataclasses.replace(base, **changes)


def preset_rules(name: str) -> Rules:
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesError(f"unknown preset {_shown(name)}; presets are {', '.join(PRESETS)}") from None


PRESETS: Final[dict[str, Rules]] = {
    # 000, pagat.com: turned trump, hook, left leads, 10 + bid, changes until the next bid.
    "pagat": Rules(bid_changes=True, scoring=Scoring.PAGAT),
    # 001 main text: the dealer leads, 10 per trick bid or missed, ties play extra hands.
    "classic-tens": Rules(first_lead=FirstLead.DEALER, scoring=Scoring.TENS, tie_break=TieBreak.EXTRA_HANDS),
    # 002, Al Okenuff: 4 players, 13 deals of 4..13, the highest bidder names trump.
    "okenuff": Rules(
        hand_sizes=(4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 13, 13, 13),
        trump=TrumpMode.BIDDER,
        bid_changes=True,
        scoring=Scoring.OKENUFF,
        no_trump_doubles=True,
    ),
    # 003 "Standard": 10 + tricks taken, bid changes until the next bid.
    "river": Rules(bid_changes=True, scoring=Scoring.RIVER),
    # 004: the players choose the first dealer; 1 a trick + 10 exact; most exact bids breaks ties.
    "common": Rules(first_dealer=0, scoring=Scoring.TRICKS_BONUS, tie_break=TieBreak.MOST_EXACT),
}
"""The named rule sets, one per seed text (see docs/rules.md)."""

PRESET_TITLES: Final[dict[str, str]] = {
    "pagat": "Pagat's rules",
    "classic-tens": "Classic tens",
    "okenuff": "Okenuff's rules",
    "river": "Up and Down the River",
    "common": "Common house rules",
}
"""Each preset's name for people, shown wherever a person reads it; the key
(the preset's id) stays in records, on the command line and in the API."""
