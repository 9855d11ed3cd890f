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
from collections.abc import Sequence

from . import (
    PRESETS,
    Bid,
    Bidding,
    Card,
    ChangeBid,
    Deck,
    DrawForDealer,
    Event,
    FirstLead,
    HandResult,
    IllegalActionError,
    NameTrump,
    Observation,
    Play,
    Rank,
    Rules,
    Scoring,
    Standing,
    Suit,
    TieBreak,
    Trick,
    TrumpMode,
    sides,
    standings,
)
from . import Sequence as HandSequence

SUIT_ORDER: tuple[Suit, ...] = (Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS)
"""How hands are shown: black and red suits alternate."""

_RANK_WORDS = {Rank.ACE: "ace", Rank.KING: "king", Rank.QUEEN: "queen", Rank.JACK: "jack"}


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
    count = f"{len(sizes)} hand{'s' if len(sizes) != 1 else ''}"
    top = max(sizes)
    if rules.hand_sizes is None:
        match rules.sequence:
            case HandSequence.DOWN_UP:
                return (
                    f"{count}: {top} cards each, then one fewer each hand down to 1, then back up to {top}."
                )
            case HandSequence.UP_DOWN:
                return f"{count}: 1 card each, then one more each hand up to {top}, then back down to 1."
            case HandSequence.DOWN:
                return f"{count}: {top} cards each, then one card fewer each hand down to 1."
            case HandSequence.UP:
                return f"{count}: 1 card each, then one more each hand up to {top}."
            case HandSequence.FIXED:
                return f"{count} of {top} cards each."
    if len(set(sizes)) == 1:
        return f"{count} of {top} card{'s' if top != 1 else ''} each."
    return f"{count}, of {', '.join(str(s) for s in sizes)} cards each."


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


def describe_rules(rules: Rules, names: Sequence[str] | None = None) -> list[str]:
    """The rules in plain sentences, one rule a line, for the ``?`` screen."""
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
            return names[seat] if names is not None else f"seat {seat}"

        teams = " against ".join(" and ".join(who(s) for s in team) for team in rules.teams)
        out.append(f"Teams: {teams}. Everyone bids and scores alone; the team's total decides.")
    out.append(_schedule_words(rules))
    if rules.first_dealer is None:
        out.append(
            "The first dealer is drawn: the highest card deals (a tie draws again). The deal passes left."
        )
    else:
        first = names[rules.first_dealer] if names is not None else f"seat {rules.first_dealer}"
        out.append(f"{first} deals first; the deal passes to the left.")
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


def rules_title(rules: Rules) -> str:
    """``pagat rules, 4 players``, or the nearest preset and the options changed:
    ``pagat rules with hook no, 4 players``."""
    name = min(PRESETS, key=lambda p: len(rules.differences(PRESETS[p])))
    changes = rules.differences(PRESETS[name])
    changes.pop("players", None)
    extra = f" with {', '.join(f'{k} {v}' for k, v in changes.items())}" if changes else ""
    return f"{name} rules{extra}, {rules.players} players"


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
                f"{who(s)} {card_words(c)}" for s, c in enumerate(action.cards) if c is not None
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


# --- Score sheet and standings ---


def result_lines(result: HandResult, totals: Sequence[int], names: Sequence[str]) -> list[str]:
    """One finished hand: bid, tricks, points and the running total of each seat;
    a missed bid is marked ``missed (blob)``."""
    width = max(len(x) for x in names)
    out = []
    for s, name in enumerate(names):
        bid, took, score = result.bids[s], result.tricks[s], result.scores[s]
        mark = "made" if bid == took else "missed (blob)"
        out.append(f"  {name:<{width}}  bid {bid}, took {took}, {mark}: {score} points, total {totals[s]}")
    return out


def running_totals(results: Sequence[HandResult], upto: int) -> list[int]:
    """Each seat's total after the first ``upto`` hands."""
    n = len(results[0].scores) if results else 0
    return [sum(r.scores[s] for r in results[:upto]) for s in range(n)]


def score_sheet_lines(results: Sequence[HandResult], names: Sequence[str]) -> list[str]:
    """The whole score sheet: one line per hand and seat (``bid/took score total``)."""
    if not results:
        return ["No hand has been finished yet."]
    out = []
    for r in results:
        extra = ", tie-break hand" if r.extra else ""
        trump = suit_word(r.trump)
        out.append(f"Hand {r.number} ({r.size} card{'s' if r.size != 1 else ''}, trump {trump}{extra}):")
        out.extend(result_lines(r, running_totals(results, r.number), names))
    return out


def side_name(seats: Sequence[int], names: Sequence[str]) -> str:
    return " and ".join(names[s] for s in seats)


def standings_lines(rules: Rules, obs: Observation, names: Sequence[str]) -> list[str]:
    """Final (or current) places, points and exact bids, then how ties were broken."""
    table = standings(rules, obs.totals, obs.exact)
    out = []
    for row in table:
        exact = f"{row.exact} exact bid{'s' if row.exact != 1 else ''}"
        out.append(f"{row.place}. {side_name(row.seats, names)}: {row.total} points, {exact}")
    out.extend(tie_break_lines(rules, obs, names, table))
    if rules.scoring is Scoring.OKENUFF:
        nets = [sum(t - u for u in obs.totals) for t in obs.totals]  # R-SETTLE
        out.append("Settlement: " + ", ".join(f"{names[s]} {nets[s]:+d}" for s in range(len(names))))
    return out


def tie_break_lines(rules: Rules, obs: Observation, names: Sequence[str], table: list[Standing]) -> list[str]:
    """How the winner was found when the leaders' totals were level."""
    out = []
    first = [row for row in table if row.place == 1]
    level = [row for row in table if row.total == table[0].total]
    extra = sum(1 for r in obs.results if r.extra)
    if extra:
        hands = f"{extra} extra hand{'s' if extra != 1 else ''}"
        out.append(f"The lead was tied after the last scheduled hand: {hands} broke the tie.")
    if len(first) > 1:
        tied = " and ".join(side_name(row.seats, names) for row in first)
        why = "and the same number of exact bids" if rules.tie_break is TieBreak.MOST_EXACT else ""
        out.append(f"{tied} share first place with {first[0].total} points {why}".rstrip() + ".")
    elif len(level) > 1:
        winner = side_name(first[0].seats, names)
        out.append(
            f"{len(level)} sides have {table[0].total} points; {winner} wins on exact bids "
            f"({first[0].exact} against {max(r.exact for r in level[1:])})."
        )
    if len(first) == 1:
        out.append(f"Winner: {side_name(first[0].seats, names)}.")
    if len(sides(rules)) != rules.players:
        out.append("(Team totals are the sums of the team members' scores.)")
    return out


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
