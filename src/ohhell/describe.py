"""Words for people: the rules of a ``Rules`` value in plain sentences, and
cards, hands, events, score sheets and standings as text.

The front ends share these (the line mode prints them, the terminal app shows
the rules screen from ``describe_rules``), so a rule is worded once. Nothing
here reads a game state: the inputs are rules, observations, hand results and
``Event`` values, which hold only what one seat may know.

>>> from ohhell.rules import PRESETS
>>> describe_rules(PRESETS["pagat"])[0]
'4 players, a standard 52-card pack.'
"""

from __future__ import annotations

import re
import typing
from collections.abc import Sequence
from enum import StrEnum
from typing import Final

from . import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    PRESETS,
    Bid,
    Bidding,
    Card,
    ChangeBid,
    Deck,
    DrawForDealer,
    Event,
    FirstLead,
    IllegalActionError,
    NameTrump,
    Observation,
    Play,
    Rank,
    Rules,
    Scoring,
    Suit,
    TieBreak,
    Trick,
    TrumpMode,
)
from . import Sequence as HandSequence
from .rules import OPTION_WORDS, PRESET_TITLES

SUIT_ORDER: tuple[Suit, ...] = (Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS)
"""How hands are shown: black and red suits alternate."""

_RANK_WORDS = {Rank.ACE: "ace", Rank.KING: "king", Rank.QUEEN: "queen", Rank.JACK: "jack"}


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 exact bid``, ``2 exact bids``, ``-1 point``: a count and its noun in agreement.

    >>> plural(1, "exact bid"), plural(0, "exact bid"), plural(3, "match", "matches")
    ('1 exact bid', '0 exact bids', '3 matches')
    """
    return f"{count} {word if abs(count) == 1 else many or word + 's'}"


# --- Seats as people count them ---


def seat_number(seat: int) -> int:
    """The number a person reads for a seat: seats are counted from 1,
    clockwise (the engine counts from 0)."""
    return seat + 1


def parse_seat(text: str, names: Sequence[str]) -> int:
    """The seat (from 0) a person means: a name (any case, or the start of
    exactly one name) or a seat number counted from 1. Raises ``ValueError``
    with a sentence that says what may be typed.

    >>> parse_seat("bob", ["Ann", "Bob", "Cid"]), parse_seat("3", ["Ann", "Bob", "Cid"])
    (1, 2)
    """
    key = text.strip()
    n = len(names)
    if key.isdigit():
        if 1 <= int(key) <= n:
            return int(key) - 1
        raise ValueError(f"there is no seat {key}: seats are numbered 1 to {n}, clockwise")
    folded = key.casefold()
    exact = [s for s, name in enumerate(names) if name.casefold() == folded]
    if exact:
        return exact[0]
    found = [s for s, name in enumerate(names) if folded and name.casefold().startswith(folded)]
    if len(found) == 1:
        return found[0]
    raise ValueError(f"{text!r} is not one of the players ({', '.join(names)}) nor a seat number 1 to {n}")


def _seat_text(seat: int, names: Sequence[str] | None) -> str:
    return names[seat] if names is not None else str(seat_number(seat))


def rule_options_for_people(rules: Rules, names: Sequence[str] | None = None) -> dict[str, str]:
    """``rules.options()`` with the seats in it (first dealer, teams) as people
    count them: by name when ``names`` are given, else numbered from 1.

    >>> rule_options_for_people(PRESETS["common"].replace(teams=((0, 2), (1, 3))))["teams"]
    '1+3,2+4'
    """
    out = rules.options()
    if rules.first_dealer is not None:
        out["first-dealer"] = _seat_text(rules.first_dealer, names)
    if rules.teams is not None:
        out["teams"] = ",".join("+".join(_seat_text(s, names) for s in team) for team in rules.teams)
    return out


BOT_SEAT_NAMES: Final = ("Ada", "Bruno", "Chloe", "Dev", "Elif", "Femi", "Gus")
"""First names for bots, one for each seat of the largest table, so that the
terminal and the browser call their bots the same way."""


# --- The rule options in words (the command line's help, forms) ---

OPTION_HELP: Final[dict[str, str]] = {
    "players": "how many play",
    "deck": "the pack",
    "sequence": "how the hand sizes run through the match",
    "start_cards": "the largest hand, the first of a down-up sequence",
    "fixed_hands": "how many hands a fixed sequence has",
    "hand_sizes": "every hand's size in order, e.g. 5,4,3, in place of the sequence",
    "first_dealer": "who deals first (draw: everyone cuts and the highest card deals)",
    "trump": "how each hand's trump is found",
    "trump_rotation": "the trump of each hand in turn, when trump rotates",
    "trump_suit": "the trump of every hand, when trump is fixed",
    "bidding": "how the players bid",
    "hook": "the hook: the last bidder may not make the bids add up to the number of tricks",
    "bid_changes": "a bid may be changed until the next player has bid",
    "first_lead": "who leads the first trick",
    "devils_bridge": "Devil's Bridge: every 1-card hand is held to the forehead, seen by all but its owner",
    "scoring": "how a hand scores",
    "no_trump_doubles": "a hand played without trump scores double",
    "tie_break": "what breaks a tie for first place",
    "teams": "partnerships: the team's total decides (none: everyone for themselves)",
}
"""What each rule option does, in plain words, for every name of
``OPTION_NAMES`` (a test checks that none is missing). The values an option
takes are not listed here: ``option_values`` reads them from the ``Rules``
field's type, so they follow the rules as they change."""

VALUE_HELP: Final[dict[str, dict[str, str]]] = {
    "deck": {"standard": "52 cards", "australian": "65 cards for 5 players, 78 for 6"},
    "sequence": {
        "down-up": "the largest hand down to 1 and back up",
        "up-down": "1 up to the largest and back down",
        "down": "the largest hand down to 1",
        "up": "1 up to the largest",
        "fixed": "fixed-hands hands of start-cards cards",
    },
    "trump": {
        "turn": "the card after the deal is turned up",
        "rotate": "by trump-rotation",
        "fixed": "trump-suit every hand",
        "bidder": "the highest bidder names it",
        "none": "no trump",
    },
    "trump_suit": {"S": "spades ♠", "H": "hearts ♥", "D": "diamonds ♦", "C": "clubs ♣"},
    "bidding": {
        "sequential": "in turn, the dealer last",
        "simultaneous": "sealed, all at once",
    },
    "first_lead": {"left": "the player left of the dealer", "dealer": "the dealer"},
    "scoring": {
        "pagat": "10 + the bid when exact",
        "river": "10 + the tricks when exact",
        "tens": "10 a trick bid when exact, -10 a trick off",
        "tricks-bonus": "1 a trick, 10 more when exact",
        "fives": "5 + 10 a trick when exact, -5 and -5 a trick off",
        "squares": "10 + the bid squared when exact, minus the square of the tricks off",
        "penalty": "10 + the tricks when exact, -1 a trick off",
        "okenuff": "Al Okenuff's, for 4 players",
    },
    "tie_break": {
        "none": "a shared win",
        "extra-hands": "play more hands",
        "most-exact": "more exact bids wins",
    },
}
"""What some values mean, shown next to them; the values themselves come from
the ``Rules`` field's type, so a value added to the rules is listed even
before it has words here."""


def preset_line(rules: Rules) -> str:
    """A preset in one line of plain words: ``19 hands, 10 cards down to 1 and
    back up; turned trump; the hook; bids may be changed; a bid made exactly
    scores 10 plus the bid``. Read from the rules (and the scoring from their
    description in words), so it says what the preset plays."""
    sizes = rules.schedule
    top = max(sizes)
    if rules.hand_sizes is not None or rules.sequence is HandSequence.FIXED:
        low = min(sizes)
        hands = (
            f"{len(sizes)} hands of {low} to {top} cards"
            if low != top
            else f"{len(sizes)} hands of {top} cards"
        )
    else:
        run = {
            "down-up": f"{top} cards down to 1 and back up",
            "up-down": f"1 card up to {top} and back down",
            "down": f"{top} cards down to 1",
            "up": f"1 card up to {top}",
        }.get(rules.sequence.value, f"up to {top} cards")
        hands = f"{len(sizes)} hands: {run}"
    parts = [hands, _PRESET_TRUMP.get(rules.trump.value, "trump " + rules.trump.value)]
    parts.append("the hook" if rules.hook else "no hook")
    if rules.bid_changes:
        parts.append("bids may be changed")
    if rules.bidding is Bidding.SIMULTANEOUS:
        parts.append("sealed bids")
    scoring = next((line for line in describe_rules(rules) if line.startswith("Scoring: ")), None)
    if scoring is not None:
        parts.append(scoring.removeprefix("Scoring: ").split(";")[0].rstrip("."))
    else:
        words = VALUE_HELP["scoring"].get(rules.scoring.value)
        # In words where there are some ("scoring: Al Okenuff's, for 4 players"), never the option's value.
        parts.append(f"scoring: {words}" if words else f"{rules.scoring.value.replace('-', ' ')} scoring")
    if rules.tie_break.value == "most-exact":
        parts.append("a tie goes to more exact bids")
    elif rules.tie_break.value == "extra-hands":
        parts.append("a tie is played off")
    return "; ".join(parts)


_PRESET_TRUMP: Final = {
    "turn": "turned trump",
    "rotate": "trump goes round the suits",
    "fixed": "the same trump every hand",
    "bidder": "the highest bidder names trump",
    "none": "no trump",
}


def _field_type(name: str) -> tuple[object, bool]:
    """The type of a ``Rules`` field without ``None``, and whether it may be None."""
    hint = typing.get_type_hints(Rules)[name]
    args = typing.get_args(hint)
    if type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return rest[0], True
    return hint, False


def option_choices(name: str) -> tuple[str, ...] | None:
    """The words a rule option takes when they are a short list (yes/no, a
    kind, a suit), read from its field's type; None for numbers and lists.

    >>> option_choices("first_lead"), option_choices("hook"), option_choices("hand_sizes")
    (('left', 'dealer'), ('yes', 'no'), None)
    """
    kind, _ = _field_type(name)
    if kind is bool:
        return ("yes", "no")
    if isinstance(kind, type) and issubclass(kind, StrEnum):
        return tuple(m.value for m in kind)
    if kind is Suit:
        return tuple(s.letter for s in reversed(Suit))
    if name == "players":
        return tuple(str(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1))
    return None


def option_values(name: str) -> str:
    """The values a rule option takes, in words, from its field's type (and,
    for an option that may be unset, the word for unset from ``Rules``).

    >>> option_values("bidding")
    'one of sequential (in turn, the dealer last), simultaneous (sealed, all at once)'
    >>> option_values("first_dealer")
    'draw, or a seat number from 1 to the number of players'
    """
    kind, optional = _field_type(name)
    choices = option_choices(name)
    if name == "players":
        text = f"{MIN_PLAYERS} to {MAX_PLAYERS}"
    elif choices is not None and kind is bool:
        text = "yes or no"
    elif choices is not None and kind is Suit:
        text = f"{', '.join(choices[:-1])} or {choices[-1]}"
    elif choices is not None:
        meanings = VALUE_HELP.get(name, {})
        text = "one of " + ", ".join(f"{c} ({meanings[c]})" if c in meanings else c for c in choices)
    elif name == "first_dealer":
        text = "a seat number from 1 to the number of players"
    elif name == "teams":
        text = "teams separated by commas, each its seat numbers (from 1) joined by +, e.g. 1+3,2+4"
    elif typing.get_origin(kind) is tuple and typing.get_args(kind)[0] is int:
        text = "whole numbers separated by commas"
    elif typing.get_origin(kind) is tuple:
        text = "suits (S, H, D, C) and NT for no trump, separated by commas, e.g. S,D,C,H"
    elif kind is int:
        text = "a whole number, at least 1"
    else:  # pragma: no cover - a new kind of field: word it above
        raise TypeError(f"no words for the values of rule option {name!r}")
    if optional:
        unset = Rules().options()[name.replace("_", "-")]
        if name == "start_cards":
            unset += f" ({_auto_start_words()})"
        text = f"{unset}, or {text[0].lower()}{text[1:]}"
    return text


def _auto_start_words() -> str:
    """``10 cards for 3 to 5 players, 8 for 6, 7 for 7``: the largest hand
    when none is set, read from the rules for each number of players."""
    groups: list[tuple[int, list[int]]] = []
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        top = max(Rules(players=n).schedule)
        if groups and groups[-1][0] == top:
            groups[-1][1].append(n)
        else:
            groups.append((top, [n]))
    parts = []
    for i, (top, counts) in enumerate(groups):
        who = str(counts[0]) if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
        parts.append(f"{top} cards for {who} players" if i == 0 else f"{top} for {who}")
    australian = max(Rules(players=5, deck=Deck.AUSTRALIAN).schedule)
    return ", ".join(parts) + f"; {australian} on an Australian pack"


def option_help(name: str) -> str:
    """A rule option's help: what it does, then the values it takes.

    >>> option_help("hook")
    'the hook: the last bidder may not make the bids add up to the number of tricks: yes or no'
    """
    return f"{OPTION_HELP[name]}: {option_values(name)}"


# --- Cards ---


def suit_word(suit: Suit | None) -> str:
    """``hearts``; ``no trump`` for None."""
    return "no trump" if suit is None else suit.name.lower()


def card_words(card: Card) -> str:
    """A card for a screen reader: ``ace of spades``, ``10 of hearts``.

    >>> card_words(Card.parse("10H")), card_words(Card.parse("QS"))
    ('10 of hearts', 'queen of spades')
    """
    rank = _RANK_WORDS.get(card.rank, card.rank.symbol)
    return f"{rank} of {suit_word(card.suit)}"


_WORD_RANKS = {word: rank for rank, word in _RANK_WORDS.items()}
_NUMBER_WORDS = {
    w: str(n)
    for n, w in enumerate(("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"), 2)
}
_CARD_WORDS = re.compile(r"(?:the\s+)?(\w+)\s+of\s+(\w+)")


def card_from_words(text: str) -> Card | None:
    """The card ``card_words`` names, read back (``the queen of spades``,
    ``10 of hearts``, ``six of heart``); None when the text is not in that form.

    >>> card_from_words("the queen of spades"), card_from_words("six of heart"), card_from_words("QS")
    (Card.parse("QS"), Card.parse("6H"), None)
    """
    found = _CARD_WORDS.fullmatch(text.strip().lower())
    if found is None:
        return None
    rank_word, suit_word_ = found.groups()
    rank = _WORD_RANKS.get(rank_word)
    symbol = rank.symbol if rank is not None else _NUMBER_WORDS.get(rank_word, rank_word)
    for suit_text in (suit_word_, suit_word_ + "s"):  # "heart" as well as "hearts"
        try:
            return Card.parse(symbol + Suit.parse(suit_text).letter)
        except ValueError:
            continue
    return None


def sort_hand(cards: Sequence[Card]) -> list[Card]:
    """By suit (spades, hearts, clubs, diamonds), high cards first."""
    return sorted(cards, key=lambda c: (SUIT_ORDER.index(c.suit), -c.rank))


def hand_words(cards: Sequence[Card]) -> str:
    """``spades A 10 4; hearts K 7``: grouped by suit, high first.

    >>> hand_words([Card.parse(c) for c in ("4S", "KH", "AS", "10S", "7H")])
    'spades A 10 4; hearts K 7'
    """
    groups: list[str] = []
    for suit in SUIT_ORDER:
        ranks = [c.rank.symbol for c in sort_hand(cards) if c.suit is suit]
        if ranks:
            groups.append(f"{suit_word(suit)} {' '.join(ranks)}")
    return "; ".join(groups) if groups else "no cards"


# --- Rules in plain sentences ---


def _schedule_words(rules: Rules) -> str:
    sizes = rules.schedule
    count = plural(len(sizes), "hand")
    top = max(sizes)
    cards = plural(top, "card")
    if rules.hand_sizes is None:
        match rules.sequence:
            case HandSequence.DOWN_UP:
                return f"{count}: {cards} each, then one fewer each hand down to 1, then back up to {top}."
            case HandSequence.UP_DOWN:
                return f"{count}: 1 card each, then one more each hand up to {top}, then back down to 1."
            case HandSequence.DOWN:
                return f"{count}: {cards} each, then one card fewer each hand down to 1."
            case HandSequence.UP:
                return f"{count}: 1 card each, then one more each hand up to {top}."
            case HandSequence.FIXED:
                return f"{count} of {cards} each."
    if len(set(sizes)) == 1:
        return f"{count} of {cards} each."
    listed = ", ".join(str(s) for s in sizes[:-1]) + f" and {sizes[-1]}"
    return f"{count}, of {listed} cards each."


def _scoring_words(rules: Rules) -> list[str]:
    match rules.scoring:
        case Scoring.PAGAT:
            out = ["Scoring: a bid made exactly scores 10 plus the bid; a missed bid scores nothing."]
        case Scoring.RIVER:
            out = [
                "Scoring: a bid made exactly scores 10 plus the tricks taken; a missed bid scores nothing."
            ]
        case Scoring.TENS:
            out = [
                "Scoring: a bid made exactly scores 10 for each trick bid (a bid of 0 made scores 10); "
                "a missed bid loses 10 for each trick too many or too few."
            ]
        case Scoring.TRICKS_BONUS:
            out = ["Scoring: 1 point for each trick taken, and 10 more for a bid made exactly."]
        case Scoring.FIVES:
            out = [
                "Scoring: a bid made exactly scores 5 plus 10 for each trick; "
                "a missed bid loses 5, and 5 more for each trick off."
            ]
        case Scoring.SQUARES:
            out = [
                "Scoring: a bid made exactly scores 10 plus the bid squared; "
                "a missed bid loses the square of the tricks off."
            ]
        case Scoring.PENALTY:
            out = [
                "Scoring: a bid made exactly scores 10 plus the tricks taken; "
                "a missed bid loses 1 for each trick off."
            ]
        case Scoring.OKENUFF:
            out = [
                "Scoring (Okenuff): a bid made exactly scores 5, plus 1 + 2 + 3 ... up to the bid with "
                "every step above 5 counted as 5, plus 15 for a bid of 5 or more (0 scores 5, 2 scores 8, "
                "4 scores 15, 7 scores 45); a missed bid loses 5 for each trick off.",
                "The player who named trump with a bid of 6 or more after someone bid 5 or more loses "
                "5 more for each trick short after the first.",
                "At the end every pair of players settles the difference of their scores.",
            ]
    if rules.no_trump_doubles:
        out.append("A hand played without trump scores double.")
    return out


def describe_rules(rules: Rules, names: Sequence[str] | None = None, you: int | None = None) -> list[str]:
    """The rules in plain sentences, one rule a line, for the ``?`` screen;
    the reader's own seat (``you``) is said as "you"."""
    n = rules.players
    out: list[str] = []
    if rules.deck is Deck.AUSTRALIAN:
        extra = rules.deck_size - 52
        out.append(
            f"{n} players, an Australian pack of {rules.deck_size} cards: a standard pack and {extra} more "
            "low cards. Of two identical cards in one trick, the one played later wins."
        )
    else:
        out.append(f"{n} players, a standard 52-card pack.")
    if rules.teams is not None:

        def who(seat: int) -> str:
            if seat == you:
                return "you"
            return names[seat] if names is not None else f"seat {seat_number(seat)}"

        teams = " against ".join(" and ".join(who(s) for s in team) for team in rules.teams)
        out.append(f"Teams: {teams}. Everyone bids and scores alone; the team's total decides.")
    out.append(_schedule_words(rules))
    if rules.first_dealer is None:
        out.append(
            "The first dealer is drawn: the highest card deals (a tie draws again). The deal passes left."
        )
    else:
        first = _first_dealer_words(rules.first_dealer, names, you)
        out.append(f"{first[:1].upper()}{first[1:]}; the deal passes to the left.")
    match rules.trump:
        case TrumpMode.TURN:
            out.append(
                "After the deal the next card is turned up and its suit is trump. "
                "When every card is dealt there is no trump."
            )
        case TrumpMode.ROTATE:
            steps = ", ".join(suit_word(s) for s in rules.trump_rotation)
            out.append(f"Trump goes round hand by hand: {steps}, then again from the start.")
        case TrumpMode.FIXED:
            out.append(f"{suit_word(rules.trump_suit).capitalize()} are trump in every hand.")
        case TrumpMode.BIDDER:
            out.append(
                "No card is turned: after the bidding the highest bidder names a trump suit or no trump "
                "(on a tie, the first of them in bidding order)."
            )
        case TrumpMode.NONE:
            out.append("Every hand is played without trump.")
    if rules.bidding is Bidding.SEQUENTIAL:
        out.append(
            "Each player bids the exact number of tricks they will take, from 0 to the number of cards, "
            "in turn from the left of the dealer; the dealer bids last."
        )
    else:
        out.append(
            "Each player bids the exact number of tricks they will take, all at once: "
            "the bids stay sealed until everyone has bid."
        )
    if rules.hook:
        out.append(
            "The hook: the last bidder may not make the bids add up to the number of tricks, "
            "so someone must miss."
        )
    elif rules.bidding is Bidding.SEQUENTIAL:
        out.append("There is no hook: the bids may add up to the number of tricks.")
    if rules.bid_changes:
        out.append("You may change your bid until the next player has bid.")
    out.append(
        "When all bids are in, everyone is told whether they total under, over or even with the tricks."
    )
    if rules.first_lead is FirstLead.DEALER:
        out.append("The dealer leads the first trick.")
    else:
        out.append("The player left of the dealer leads the first trick.")
    out.append(
        "Follow the suit led if you can; otherwise play any card. The highest trump wins the trick, "
        "else the highest card of the suit led; the winner leads the next trick."
    )
    if rules.devils_bridge:
        out.append(
            "Devil's Bridge: in every 1-card hand you hold your card to your forehead. You see everyone "
            "else's card but not your own, bid from what you see, and play your card unseen."
        )
    out.extend(_scoring_words(rules))
    match rules.tie_break:
        case TieBreak.NONE:
            out.append("The highest total wins; a tie is a shared win.")
        case TieBreak.EXTRA_HANDS:
            last = rules.schedule[-1]
            out.append(
                f"The highest total wins. If the lead is tied after the last hand, more hands of {last} "
                f"card{'s' if last != 1 else ''} are played until one side leads."
            )
        case TieBreak.MOST_EXACT:
            out.append("The highest total wins; a tie goes to the side with more exact bids.")
    return out


def _first_dealer_words(seat: int, names: Sequence[str] | None, you: int | None) -> str:
    if seat == you:
        return "you deal first"
    return f"{names[seat] if names is not None else f'seat {seat_number(seat)}'} deals first"


def rules_title(rules: Rules, names: Sequence[str] | None = None, you: int | None = None) -> str:
    """``Pagat's rules, 4 players``, or the nearest preset and the options changed,
    in words: ``Pagat's rules, 4 players (hook: no); Bob deals first``. The
    preset by its name for people (``PRESET_TITLES``, as the web page shows it). Seats in
    the options (first dealer, teams) are named, or numbered from 1; the
    reader's own seat (``you``) is "you".

    >>> rules_title(PRESETS["pagat"].replace(hook=False, first_dealer=1), ["Ann", "Bob", "Cid", "Dee"], you=0)
    "Pagat's rules, 4 players (hook: no); Bob deals first"
    """
    name = min(PRESETS, key=lambda p: len(rules.differences(PRESETS[p])))
    shown = None if names is None else [("you" if s == you else n) for s, n in enumerate(names)]
    worded = rule_options_for_people(rules, shown)
    parts, dealer = [], ""
    for key in rules.differences(PRESETS[name]):
        if key == "players":
            continue
        if key == "first-dealer" and rules.first_dealer is not None:
            dealer = "; " + _first_dealer_words(rules.first_dealer, names, you)
            continue
        words = OPTION_WORDS.get(key.replace("-", "_"), key).removeprefix("The ")
        words = words if words.startswith("Devil") else words.lower()
        value = worded[key]
        if key == "teams" and rules.teams is not None and shown is not None:
            value = " against ".join(and_list([shown[s] for s in team]) for team in rules.teams)
        parts.append(f"{words}: {value}")
    extra = f" ({'; '.join(parts)})" if parts else ""
    return f"{PRESET_TITLES.get(name, name)}, {rules.players} players{extra}{dealer}"


def and_list(words: Sequence[str]) -> str:
    """``You, Ada and Bruno``: a list as it is said.

    >>> and_list(["You", "Ada", "Bruno", "Chloe"])
    'You, Ada, Bruno and Chloe'
    """
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


# --- Trump, bids, hands ---


def trump_words(obs: Observation) -> str:
    """What trump is this hand, in words."""
    if not obs.trump_decided:
        return "to be named by the highest bidder"
    text = suit_word(obs.trump)
    if obs.turned is not None:
        text += f" (turned {card_words(obs.turned)})"
    return text


def balance_words(obs: Observation) -> str | None:
    """R-BID-ANNOUNCE: ``bids total 7 for 8 tricks: under``, once all are in."""
    if obs.balance is None:
        return None
    total = sum(b for b in obs.bids if b is not None)
    trick = "trick" if obs.hand_size == 1 else "tricks"
    return f"bids total {total} for {obs.hand_size} {trick}: {obs.balance}"


def hook_words(obs: Observation) -> str:
    """The bid prompt's range: ``0-5, not 3 because of the hook``."""
    text = f"0-{obs.hand_size}"
    if obs.forbidden_bid is not None and obs.is_my_turn:
        text += f", not {obs.forbidden_bid} because of the hook"
    return text


# --- Events ---


def event_words(event: Event, names: Sequence[str], you: int) -> list[str]:
    """Sentences for one ``Event`` (``Match.last_event``): ``Bruno plays 9 of spades.``"""

    def who(seat: int) -> str:
        return "You" if seat == you else names[seat]

    def verb(seat: int, mine: str, theirs: str) -> str:
        return f"{who(seat)} {mine if seat == you else theirs}"

    action = event.action
    out: list[str] = []
    match event.kind:
        case "draw":
            assert isinstance(action, DrawForDealer)
            cards = ", ".join(
                f"{'you' if s == you else names[s]} {card_words(c)}"
                for s, c in enumerate(action.cards)
                if c is not None
            )
            out.append(f"Draw for dealer: {cards}.")
            if event.dealer is not None:
                out.append(f"{verb(event.dealer, 'deal', 'deals')} first.")
            else:
                out.append("A tie for the highest card: the tied players draw again.")
        case "deal":
            pass  # the front end describes the new hand from the observation
        case "bid":
            if action is None:
                out.append(f"{verb(event.seat, 'have', 'has')} bid (sealed until everyone has bid).")
            else:
                assert isinstance(action, Bid)
                out.append(f"{verb(event.seat, 'bid', 'bids')} {action.bid}.")
        case "change":
            if action is not None:
                assert isinstance(action, ChangeBid)
                out.append(f"{verb(event.seat, 'change', 'changes')} the bid to {action.bid}.")
        case "trump":
            assert isinstance(action, NameTrump)
            named = "no trump" if action.suit is None else f"{suit_word(action.suit)} as trump"
            out.append(f"{verb(event.seat, 'name', 'names')} {named}.")
        case "play":
            assert isinstance(action, Play) and action.card is not None
            out.append(f"{verb(event.seat, 'play', 'plays')} {card_words(action.card)}.")
            if event.trick is not None:
                out.append(trick_words(event.trick, names, you))
    return out


def trick_words(trick: Trick, names: Sequence[str], you: int) -> str:
    n = len(names)
    card = trick.cards[(trick.winner - trick.leader) % n]
    who = "You win" if trick.winner == you else f"{names[trick.winner]} wins"
    return f"{who} the trick with the {card_words(card)}."


_SEAT = re.compile(r"\bseat (\d+)('s)?")


def refusal_words(err: IllegalActionError, names: Sequence[str], you: int | None = None) -> str:
    """A refused action said to a person: seats by name, the reader's own
    seat (``you``) as "you". The engine words its refusals about numbered
    seats and names the rule only in ``err.rule``, so every front end says
    the same thing the same way."""

    def seat_word(found: re.Match[str]) -> str:
        seat, owner = int(found.group(1)), found.group(2)
        if seat == you:
            if not owner:
                return "you"
            after_not = found.string[max(0, found.start() - 4) : found.start()] == "not "
            return "yours" if after_not else "your"
        name = names[seat] if 0 <= seat < len(names) else f"seat {seat + 1}"
        return name + (owner or "")

    text = _SEAT.sub(seat_word, str(err))
    for third, second in (("you has ", "you have "), ("you does ", "you do "), ("you was ", "you were ")):
        text = text.replace(third, second)
    text = text.replace("its bid", "your bid") if err.seat == you and you is not None else text
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")
