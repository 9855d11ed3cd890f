"""A review in plain words: what each player lost to decisions and to the
cards, the marked decisions, a position shown again, a puzzle's verdict.

The terminal prints these; a page may show them as they are. Points are
rounded to whole numbers where a person reads a total, and to one decimal
where two choices are compared.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import Card, Suit
from ..describe import and_list, card_words, hand_words, plural, suit_word
from .explain import Gap, explain
from .model import Advice, Decision, Position, Review, SeatSummary

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


def seat_sentence(summary: SeatSummary, hands: int = 1) -> str:
    """What one player's decisions and cards cost or gave, in one sentence:
    ``Ann lost 14 points to mistakes and 9 to the cards.`` (``hands``: how
    many hands were priced; with none, the cards are not mentioned.)"""
    name = summary.name
    lost = "almost nothing" if summary.loss < 0.5 else points(summary.loss)
    luck = round(summary.luck)
    if not hands:
        return f"{name} lost {lost} to mistakes."
    if luck < 0:
        return f"{name} lost {lost} to mistakes and {-luck} to the cards."
    if luck > 0:
        gave = f"the cards gave {whom(name)} {points(luck)} more than an average seat"
        return f"{name} lost {lost} to mistakes; {gave}."
    return f"{name} lost {lost} to mistakes; the cards were worth what an average seat's were."


def marks_sentence(summary: SeatSummary) -> str:
    """``2 blunders, 1 mistake and 4 inaccuracies in 88 decisions.``"""
    parts = [
        plural(summary.marks.get(m, 0), m, many)
        for m, many in (("blunder", None), ("mistake", None), ("inaccuracy", "inaccuracies"))
        if summary.marks.get(m, 0)
    ]
    reviewed = plural(summary.decisions, "decision")
    if not parts:
        return f"No marked decision in {reviewed}."
    return f"{and_list(parts)} in {reviewed} (on average {summary.accuracy:.2f} points lost a decision)."


def gap_lines(gap: Gap, names: Sequence[str]) -> list[str]:
    """Seat ``a`` against seat ``b``: the score gap, and what the cards,
    the decisions and the rest account for."""
    a, b = names[gap.a], names[gap.b]
    if gap.score == 0:
        head = f"{a} and {b} scored the same."
    else:
        where = "behind" if gap.score < 0 else "ahead of"
        head = f"{a} finished {points(abs(gap.score))} {where} {whom(b)}:"
    luck, loss, rest = round(gap.luck), round(-gap.loss), round(gap.rest)
    cards = (
        f"{whose(a, start=True)} cards were worth {abs(luck)} more than {_theirs(b)}"
        if luck > 0
        else f"{whose(b, start=True)} cards were worth {abs(luck)} more than {_theirs(a)}"
        if luck < 0
        else "the cards were worth about the same"
    )
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
        f" (give or take {round(gap.error)})",
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
    for s in shown:
        out.append(seat_sentence(s, len(review.hands)))
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
    mark = f" ({d.mark})" if d.mark else ""
    return f"{head}; best {d.best}: {best:.1f} expected against {chosen:.1f}, {d.loss:.1f} lost{mark}."


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
            f"In the match {whom(names[d.seat])} chose {d.chosen}: {played:.1f} expected, {d.loss:.1f} lost."
        )
    return out


__all__ = [
    "advice_lines",
    "choice_words",
    "decision_line",
    "gap_lines",
    "marks_sentence",
    "points",
    "position_lines",
    "question",
    "seat_sentence",
    "summary_lines",
    "verdict_lines",
    "whom",
    "whose",
]
