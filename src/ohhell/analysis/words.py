"""A review in plain words: what each player lost to decisions and to the
cards, the marked decisions, a position shown again, a puzzle's verdict.

The terminal prints these; a page may show them as they are. Points are
rounded to whole numbers where a person reads a total, and to one decimal
where two choices are compared.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .. import Card, Suit
from ..describe import and_list, card_words, hand_words, plural, suit_word
from .explain import Gap, explain
from .model import SURE, Advice, Decision, Position, Review, SeatSummary

_KIND_VERB = {"bid": "bid", "trump": "named trump", "play": "played"}

YOU = "You"
"""The name ``ohhell play`` gives the person: said as "you", "your", "yours"."""


def whose(name: str, *, start: bool = False) -> str:
    """``Ann's``; for the person named You, ``your`` (``Your`` at the start)."""
    if name == YOU:
        return "Your" if start else "your"
    return f"{name}'s"


def whom(name: str) -> str:
    """``Ann``; for the person named You, ``you`` (after a verb)."""
    return "you" if name == YOU else name


def _theirs(name: str) -> str:
    return "yours" if name == YOU else f"{name}'s"


def points(x: float) -> str:
    """``14 points``, ``1 point``, ``0 points``: a total a person reads.

    >>> points(13.6), points(0.7), points(-0.2)
    ('14 points', '1 point', '0 points')
    """
    return plural(round(x), "point")


def choice_words(kind: str, choice: str) -> str:
    """``a bid of 2``, ``no trump``, ``the queen of hearts (QH)``.

    >>> choice_words("bid", "2"), choice_words("trump", "H"), choice_words("play", "10S")
    ('a bid of 2', 'hearts', 'the 10 of spades (10S)')
    """
    if kind == "bid":
        return f"a bid of {choice}"
    if kind == "trump":
        return "no trump" if choice == "NT" else suit_word(Suit.parse(choice))
    return f"the {card_words(Card.parse(choice))} ({choice})"


ASSUMED = (
    "The review prices each choice as the expert (the strongest bot) would: what it expects the player "
    "to score after it, playing on well, with the others playing as the expert would play for them. "
    "Each loss is shown with its error, and a mark is given only where the loss clears its threshold "
    "by twice its error."
)
"""Whose play the review assumes for the others, said with every summary."""


def rounded_parts(parts: Sequence[float], total: int) -> list[int]:
    """``parts`` rounded to whole numbers that add up to ``total`` (the
    parts' sum as printed): each rounded down, then the points still missing
    given one each to the parts with the largest remainders, so the lines of
    a breakdown add up to the total a person reads beside them.

    >>> rounded_parts([-18.6, -40.6, 2.2], -57), rounded_parts([0.4, 0.4, 0.4], 1)
    ([-18, -41, 2], [1, 0, 0])
    """
    floors = [math.floor(x) for x in parts]
    missing = total - sum(floors)
    # Largest remainder first; ties to the earlier part, so the result is fixed.
    by_remainder = sorted(range(len(parts)), key=lambda i: (-(parts[i] - floors[i]), i))
    out = list(floors)
    for k in range(missing):
        out[by_remainder[k % len(parts)]] += 1
    for k in range(-missing):
        out[by_remainder[-1 - k % len(parts)]] -= 1
    return out


def give_or_take(error: float, decimals: int = 0) -> str:
    """``give or take 4``: an error as a person reads it."""
    return f"give or take {round(error)}" if decimals == 0 else f"give or take {error:.{decimals}f}"


def _luck_clear(luck: float, error: float) -> bool:
    """Is a luck clear of its error (past ``SURE`` standard errors)? A smaller
    one may be no more than the estimate's noise, and is not called luck."""
    return abs(luck) >= SURE * error and round(luck) != 0


def luck_words(name: str, luck: float, error: float) -> str:
    """What the cards gave or cost a player over an average seat, with the error."""
    amount = points(abs(luck))
    more = "more" if luck > 0 else "less"
    cards = f"{whose(name, start=True)} cards were worth"
    if round(luck) == 0:
        return f"{cards} what an average seat's were ({give_or_take(error)})"
    if _luck_clear(luck, error):
        return f"{cards} {amount} {more} than an average seat's ({give_or_take(error)})"
    chance = "too little to tell from chance"
    return f"{cards} {amount} {more} than an average seat's, {give_or_take(error)}: {chance}"


def seat_sentence(summary: SeatSummary, hands: int = 1) -> str:
    """What one player's score owes to the cards, the decisions and the
    rest, in one sentence whose parts add up to the gap to the table's
    average as printed. (``hands``: how many hands were priced; with none,
    the cards are not mentioned. Without every seat reviewed there is no
    table average to compare with: the cards alone are said.)"""
    name = summary.name
    if not hands:
        return f"{name}: no hand finished, so nothing to say of the cards."
    if summary.rest is None:
        return f"{luck_words(name, summary.luck, summary.luck_error)}."
    edge = round(summary.edge)
    decided = summary.edge - summary.luck - summary.rest  # the table's mean loss less the seat's
    cards, decisions, rest = rounded_parts([summary.luck, decided, summary.rest], edge)
    where = (
        "level with the table's average"
        if edge == 0
        else f"{points(abs(edge))} {'above' if edge > 0 else 'below'} the table's average"
    )
    luck_note = give_or_take(summary.luck_error)
    if not _luck_clear(summary.luck, summary.luck_error):
        luck_note += ", too little to tell from chance"
    return (
        f"{name} finished {where}: cards {cards:+d} ({luck_note}), "
        f"decisions {decisions:+d} (against the table's average loss), "
        f"the rest {rest:+d} (how the hidden cards and the others' play fell, "
        f"{give_or_take(summary.rest_error)})."
    )


def loss_sentence(summary: SeatSummary) -> str:
    """``Lost 24 points in all to decisions (give or take 2), 18 of them in marked decisions.``"""
    if summary.loss < 0.5:
        return "Lost almost nothing to decisions."
    head = f"Lost {points(summary.loss)} in all to decisions ({give_or_take(summary.loss_error)})"
    marked = sum(summary.marks.values())
    if not marked:
        return f"{head}, none of it in a marked decision."
    return f"{head}, {round(summary.marked_loss)} of them in the marked decisions."


def marks_sentence(summary: SeatSummary) -> str:
    """``2 blunders, 1 mistake and 4 inaccuracies in 88 decisions (average loss 0.30 points a decision).``"""
    parts = [
        plural(summary.marks.get(m, 0), m, many)
        for m, many in (("blunder", None), ("mistake", None), ("inaccuracy", "inaccuracies"))
        if summary.marks.get(m, 0)
    ]
    reviewed = plural(summary.decisions, "decision")
    average = f"(average loss {summary.average_loss:.2f} points a decision; lower is better)"
    if not parts:
        return f"No marked decision in {reviewed} {average}."
    return f"{and_list(parts)} in {reviewed} {average}."


def gap_lines(gap: Gap, names: Sequence[str]) -> list[str]:
    """Seat ``a`` against seat ``b``: the score gap, and what the cards,
    the decisions and the rest account for, rounded so that they add up to
    the gap as printed."""
    a, b = names[gap.a], names[gap.b]
    if gap.score == 0:
        head = f"{a} and {b} scored the same:"
    else:
        where = "behind" if gap.score < 0 else "ahead of"
        head = f"{a} finished {points(abs(gap.score))} {where} {whom(b)}:"
    luck, loss, rest = rounded_parts([gap.luck, -gap.loss, gap.rest], gap.score)
    cards = (
        f"{whose(a, start=True)} cards were worth {abs(luck)} more than {_theirs(b)}"
        if luck > 0
        else f"{whose(b, start=True)} cards were worth {abs(luck)} more than {_theirs(a)}"
        if luck < 0
        else "the cards were worth about the same"
    )
    cards += f" ({give_or_take(gap.luck_error)}"
    cards += ")" if _luck_clear(gap.luck, gap.luck_error) else ", too little to tell from chance)"
    decided = (
        f"{b} lost {abs(loss)} more than {whom(a)} to decisions"
        if loss > 0
        else f"{a} lost {abs(loss)} more than {whom(b)} to decisions"
        if loss < 0
        else "both lost about the same to decisions"
    )
    return [
        head,
        f"  cards      {luck:+4d}  {cards}",
        f"  decisions  {loss:+4d}  {decided}",
        f"  the rest   {rest:+4d}  how the hidden cards and the others' play fell"
        f" ({give_or_take(gap.error)})",
    ]


def summary_lines(review: Review, seats: Sequence[int] | None = None) -> list[str]:
    """The review's summary: a sentence and the marks for each seat shown,
    then how each stands against the winner (or the winner against the
    runner-up), when every seat was reviewed."""
    shown = [s for s in review.summary if seats is None or s.seat in seats]
    names = review.seats
    out: list[str] = []
    if review.summary:
        ranked = sorted(review.summary, key=lambda s: (-s.score, s.seat))
        scores = ", ".join(f"{s.name} {s.score}" for s in ranked)
        out.append(f"{'Final' if review.finished else 'Scores so far'}: {scores}.")
    out.append(ASSUMED)
    for s in shown:
        out.append(seat_sentence(s, len(review.hands)))
        out.append(f"  {loss_sentence(s)}")
        out.append(f"  {marks_sentence(s)}")
    if len(review.reviewed) == len(names) and review.hands:
        totals = [sum(h.scores[s] for h in review.hands) for s in range(len(names))]
        order = sorted(range(len(totals)), key=lambda s: (-totals[s], s))
        done: set[frozenset[int]] = set()
        for s in shown:
            other = order[1] if s.seat == order[0] else order[0]
            if frozenset((s.seat, other)) in done:
                continue
            done.add(frozenset((s.seat, other)))
            out.append("")
            out.extend(gap_lines(explain(review, s.seat, other), names))
    return out


def decision_line(d: Decision, names: Sequence[str]) -> str:
    """One reviewed decision in a line: what was chosen, what was best, the cost."""
    where = f"Hand {d.hand}"
    if d.kind == "play":
        where += f", trick {len(d.position.tricks) + 1}"
    chosen = d.value_of(d.chosen)
    best = d.value_of(d.best)
    head = f"{where}: {names[d.seat]} {_KIND_VERB[d.kind]} {d.chosen}"
    if d.loss <= 0 or chosen is None or best is None:
        return f"{head}, as good as the best ({d.best})."
    return (
        f"{head}; best {d.best}: {best:.1f} expected against {chosen:.1f}, "
        f"{d.loss:.1f} lost {give_or_take(d.error, 1)}{mark_words(d)}."
    )


def mark_words(d: Decision) -> str:
    """`` (mistake)``, `` (inaccuracy; close to a mistake)``, `` (close to an inaccuracy)``, or nothing."""
    close = f"close to {'an' if d.close == 'inaccuracy' else 'a'} {d.close}" if d.close else ""
    words = "; ".join(w for w in (d.mark or "", close) if w)
    return f" ({words})" if words else ""


def position_lines(p: Position, names: Sequence[str], you: bool = True) -> list[str]:
    """A position shown again, from the deciding seat's side (``you``)."""
    n = len(p.bids)
    me = p.seat

    def who(s: int) -> str:
        return "you" if you and s == me else names[s]

    out = [f"Hand {p.hand}: {plural(p.hand_size, 'card')} each, {who(p.dealer)} dealing."]
    if not p.trump_decided:
        out.append("Trump: to be named by the highest bidder.")
    else:
        trump = suit_word(Suit.parse(p.trump)) if p.trump is not None else "no trump"
        turned = f" (turned {p.turned})" if p.turned is not None else ""
        named = f" (named by {who(p.trump_namer)})" if p.trump_namer is not None and p.turned is None else ""
        out.append(f"Trump: {trump}{turned}{named}.")
    order = [(p.dealer + 1 + i) % n for i in range(n)]
    bids = ", ".join(f"{who(s)} {p.bids[s] if p.bids[s] is not None else '-'}" for s in order)
    out.append(f"Bids: {bids}.")
    for i, t in enumerate(p.tricks, start=1):
        cards = ", ".join(f"{who((t.leader + j) % n)} {c}" for j, c in enumerate(t.cards))
        out.append(f"Trick {i}: {cards}; {who(t.winner)} won.")
    if p.tricks:
        out.append("Taken: " + ", ".join(f"{who(s)} {p.taken[s]}" for s in order) + ".")
    if p.trick:
        out.append(
            f"Trick {len(p.tricks) + 1} so far: " + ", ".join(f"{who(s)} {c}" for s, c in p.trick) + "."
        )
    own = p.hands[me]
    owner = "Your" if you else whose(names[me], start=True)
    if own is not None:
        out.append(f"{owner} cards: {hand_words([Card.parse(c) for c in own])}.")
    else:  # a blind hand: every card but one's own in sight
        others = "; ".join(f"{names[s]} {', '.join(h)}" for s, h in enumerate(p.hands) if h is not None)
        out.append(f"{owner} own card is hidden; in sight: {others}.")
    if p.phase == "bid" and p.forbidden_bid is not None:
        out.append(f"The hook forbids a bid of {p.forbidden_bid}.")
    out.append(f"Choices: {' '.join(p.legal)}.")
    return out


def advice_lines(a: Advice, names: Sequence[str]) -> list[str]:
    """Where a record stops with a decision to make: the position and the
    expert's choice, every choice with its expected score."""
    verb = {"bid": "bid", "trump": "name trump", "play": "play"}[a.kind]
    out = [f"Where the record stops, {names[a.seat]} is to {verb}:"]
    out.extend(f"  {line}" for line in position_lines(a.position, names, you=False))
    best = a.value_of(a.best)
    worth = f", {best:.1f} points expected" if best is not None else ""
    out.append(f"The expert's choice: {a.best}{worth}.")
    priced = [f"{c.choice} {c.expected:.1f}" for c in a.choices if c.expected is not None]
    out.append(f"Every choice, expected points: {', '.join(priced)}.")
    return out


def question(p: Position) -> str:
    """The puzzle's prompt for the position's kind of decision."""
    if p.phase == "bid":
        return "Your bid: "
    if p.phase == "trump":
        return "Trump (a suit letter, or NT): "
    return "Your card: "


def verdict_lines(d: Decision, answer: str, answers: Sequence[str], names: Sequence[str]) -> list[str]:
    """What a puzzle's answer was worth against the best and the match's choice."""
    best = d.value_of(d.best)
    mine = d.value_of(answer)
    played = d.value_of(d.chosen)
    out = []
    if answer in answers:
        out.append(f"Right: {answer} is {'the best choice' if answer == d.best else 'as good as the best'}.")
    else:
        worth = f" ({mine:.1f} expected)" if mine is not None else ""
        out.append(f"Not the best: {answer}{worth}.")
    if best is not None:
        others = [a for a in answers if a != d.best]
        also = f" ({' and '.join(others)} as good)" if others else ""
        out.append(f"The best is {d.best}, {best:.1f} expected{also}.")
    if played is not None:
        out.append(
            f"In the match {whom(names[d.seat])} chose {d.chosen}: {played:.1f} expected, "
            f"{d.loss:.1f} lost {give_or_take(d.error, 1)}."
        )
    return out


__all__ = [
    "ASSUMED",
    "advice_lines",
    "choice_words",
    "decision_line",
    "gap_lines",
    "give_or_take",
    "loss_sentence",
    "luck_words",
    "mark_words",
    "marks_sentence",
    "points",
    "position_lines",
    "question",
    "rounded_parts",
    "seat_sentence",
    "summary_lines",
    "verdict_lines",
    "whom",
    "whose",
]
