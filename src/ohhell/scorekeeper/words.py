"""The title of a score sheet in words: the nearest preset and what this game
changes in it, said as people say it ("hands of 3 and 2 cards", "no hook"),
never as option names. The rules themselves are the core's; this module only
words them."""

from __future__ import annotations

from collections.abc import Sequence

from .. import PRESET_TITLES, PRESETS, Bidding, Deck, FirstLead, Rules, Scoring, TieBreak, TrumpMode
from ..describe import plural, suit_word

_SCHEDULE = ("sequence", "start-cards", "fixed-hands", "hand-sizes")
_TRUMP = ("trump", "trump-rotation", "trump-suit")
_SKIPPED = ("players", "first-dealer")  # said apart: the number of players, the dealer

_SCORING: dict[Scoring, str] = {
    Scoring.PAGAT: "10 plus the bid for an exact bid",
    Scoring.RIVER: "10 plus the tricks for an exact bid",
    Scoring.TENS: "10 a trick bid, minus 10 a trick off",
    Scoring.TRICKS_BONUS: "a point a trick and 10 for an exact bid",
    Scoring.FIVES: "5 plus 10 a trick for an exact bid",
    Scoring.SQUARES: "10 plus the bid squared for an exact bid",
    Scoring.PENALTY: "10 plus the tricks, minus 1 a trick off",
    Scoring.OKENUFF: "Okenuff's scoring table",
}


def hands_phrase(sizes: Sequence[int]) -> str:
    """The hand sizes in a few words.

    >>> hands_phrase((3, 2)), hands_phrase((5,)), hands_phrase((4, 4, 4))
    ('hands of 3 and 2 cards', 'one hand of 5 cards', '3 hands of 4 cards')
    >>> hands_phrase((10, 9, 8, 7, 6, 5, 4, 3, 2, 1))
    '10 hands of 1 to 10 cards'
    """
    if len(sizes) == 1:
        return f"one hand of {plural(sizes[0], 'card')}"
    if len(set(sizes)) == 1:
        return f"{len(sizes)} hands of {plural(sizes[0], 'card')}"
    if len(sizes) <= 6:
        listed = ", ".join(str(s) for s in sizes[:-1]) + f" and {sizes[-1]}"
        return f"hands of {listed} cards"
    return f"{len(sizes)} hands of {min(sizes)} to {max(sizes)} cards"


def _trump_phrase(rules: Rules) -> str:
    match rules.trump:
        case TrumpMode.TURN:
            return "trump turned up"
        case TrumpMode.ROTATE:
            return "trump in turn: " + ", ".join(suit_word(s) for s in rules.trump_rotation)
        case TrumpMode.FIXED:
            return f"{suit_word(rules.trump_suit)} always trump"
        case TrumpMode.BIDDER:
            return "trump named by the highest bidder"
    return "no trump"


def _teams_phrase(rules: Rules, names: Sequence[str] | None) -> str:
    if rules.teams is None:
        return "no teams"

    def who(seat: int) -> str:
        return names[seat] if names is not None else f"seat {seat + 1}"

    return "teams " + " against ".join(" and ".join(who(s) for s in team) for team in rules.teams)


def _phrase(key: str, rules: Rules, names: Sequence[str] | None) -> str:
    match key:
        case "deck":
            return "an Australian pack" if rules.deck is Deck.AUSTRALIAN else "a standard pack"
        case "bidding":
            return "bids all at once" if rules.bidding is Bidding.SIMULTANEOUS else "bids in turn"
        case "hook":
            return "the hook" if rules.hook else "no hook"
        case "bid-changes":
            return "bids may be changed" if rules.bid_changes else "no bid changes"
        case "first-lead":
            return "the dealer leads" if rules.first_lead is FirstLead.DEALER else "left of the dealer leads"
        case "devils-bridge":
            return "Devil's Bridge" if rules.devils_bridge else "no Devil's Bridge"
        case "scoring":
            return "scoring " + _SCORING[rules.scoring]
        case "no-trump-doubles":
            return "no trump doubles the scores" if rules.no_trump_doubles else "no trump scores as usual"
        case "tie-break":
            return {
                TieBreak.NONE: "a tie is shared",
                TieBreak.EXTRA_HANDS: "a tie is played off",
                TieBreak.MOST_EXACT: "a tie goes to more exact bids",
            }[rules.tie_break]
        case "teams":
            return _teams_phrase(rules, names)
    return key.replace("-", " ")  # pragma: no cover - an option added to the rules later


def sheet_title(rules: Rules, names: Sequence[str] | None = None) -> str:
    """``Pagat's rules, 4 players``, or with what the game changes in words
    (the preset by the name people know it by, as the home page says it).

    >>> sheet_title(PRESETS["pagat"].replace(hand_sizes=(3, 2), hook=False))
    "Pagat's rules, 4 players: hands of 3 and 2 cards, no hook"
    """

    def changes(preset: str) -> list[str]:
        return [k for k in rules.differences(PRESETS[preset]) if k not in _SKIPPED]

    preset = min(PRESETS, key=lambda p: len(changes(p)))
    changed = changes(preset)
    phrases: list[str] = []
    if any(k in _SCHEDULE for k in changed):
        phrases.append(hands_phrase(rules.schedule))
    if any(k in _TRUMP for k in changed):
        phrases.append(_trump_phrase(rules))
    phrases += [_phrase(k, rules, names) for k in changed if k not in _SCHEDULE and k not in _TRUMP]
    words = f": {', '.join(phrases)}" if phrases else ""
    return f"{PRESET_TITLES.get(preset, preset)}, {rules.players} players{words}"
