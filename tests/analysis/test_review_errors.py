"""A review that says how sure it is: cards that are the same play get one
price, every loss carries its standard error, a mark is given only where
the error cannot undo it, and the sentences' parts add up to the totals
printed beside them."""

from __future__ import annotations

import math
import re

import pytest

from ohhell import Action, Bid, Card, Observation, Play, Record, observe, parse_cards
from ohhell.analysis import (
    ChoiceValue,
    Decision,
    Gap,
    Review,
    SeatSummary,
    Thresholds,
    explain,
    position_of,
    review_decision,
    review_record,
    same_plays,
)
from ohhell.analysis.decisions import choices_of, paired_error
from ohhell.analysis.words import decision_line, gap_lines, rounded_parts, seat_sentence
from review_support import TINY, bot_match, deal, played, short_rules

# --- Cards that are the same play ---


def _lead(hands: list[str], turned: str) -> tuple[list[Action], Observation]:
    """Seat 1 to lead the first trick of a 3-card hand (seat 0 deals)."""
    rules = short_rules((len(hands[0].split()),), hook=False)
    actions = [deal(hands, turned), Bid(1, 1), Bid(2, 0), Bid(3, 1), Bid(0, 0)]
    return actions, observe(played(rules, actions), 1)


def test_cards_of_two_suits_the_seat_sees_alike_are_one_play() -> None:
    # Spades are trump; no club or diamond is out, and seat 1 holds the 3 of
    # each and nothing else in either suit: swap clubs and diamonds and its
    # view is the same, so leading the one is leading the other.
    actions, obs = _lead(["2C 4C 5D", "3C 3D AH", "4D 6H 7H", "5C 6C KS"], "2S")
    assert same_plays(obs, list(parse_cards("3C 3D AH"))) == [list(parse_cards("3C 3D")), [Card.parse("AH")]]
    assert len(choices_of(obs)) == 2
    by_club = review_decision(obs, Play(1, Card.parse("3C")), version=len(actions), seed=3, budget=TINY)
    by_diamond = review_decision(obs, Play(1, Card.parse("3D")), version=len(actions), seed=3, budget=TINY)
    assert by_club is not None and by_diamond is not None
    # One price for both: the choice made and the best cannot differ between them.
    assert by_club.value_of("3C") == by_club.value_of("3D") == by_diamond.value_of("3D")
    assert by_club.error_of("3C") == by_club.error_of("3D")
    assert (by_club.loss, by_club.error, by_club.mark) == (by_diamond.loss, by_diamond.error, by_diamond.mark)
    same = {c.choice: c.same_as for c in by_club.choices}
    assert same["3C"] == ("3D",) and same["3D"] == ("3C",) and same["AH"] == ()
    assert by_club.best in ("AH", "3C", "3D") and (by_club.best == "AH") == (by_club.loss > 0)


def test_the_swap_and_the_cards_between_join_into_one_play() -> None:
    # 3C~3D by the swap, 3C~4C and 3D~4D with no card between: all four one play.
    _, obs = _lead(["2C 5C 5D 8H", "3C 4C 3D 4D", "2D 6H 7H 9H", "6C 6D KS QS"], "2S")
    assert same_plays(obs, list(parse_cards("3C 4C 3D 4D"))) == [list(parse_cards("3C 4C 3D 4D"))]
    assert len(choices_of(obs)) == 1  # every card the same play: nothing to decide


@pytest.mark.parametrize(
    ("hands", "turned", "why"),
    [
        (["2C 4C 5D", "3C 3D AH", "4D 6H 7H", "5C 6C KS"], "2D", "diamonds are trump"),
        (["2H 4C 5D", "3C 3D AH", "4D 6H 7H", "5C 6C KS"], "2C", "a club is turned"),
        (["2C 4C 5D", "3C 3D 4D", "2D 6H 7H", "5C 6C KS"], "2S", "seat 1 holds more diamonds"),
        (["2C 4C 5D", "3C 3D KC", "4D 6H 7H", "5C 6C KS"], "2S", "seat 1 holds more clubs"),
    ],
)
def test_cards_of_two_suits_told_apart_are_two_plays(hands: list[str], turned: str, why: str) -> None:
    _, obs = _lead(hands, turned)
    groups = same_plays(obs, list(parse_cards("3C 3D")))
    assert groups == [[Card.parse("3C")], [Card.parse("3D")]], why


def test_a_card_played_of_either_suit_tells_the_suits_apart() -> None:
    # Trick 1 was all hearts but seat 3 showed it has no heart with a club:
    # clubs and diamonds are no longer alike for seat 1.
    rules = short_rules((3,), hook=False)
    hands = ["2H 4C 5D", "3H 3C 3D", "4H 4D 7H", "5C 6C KS"]
    actions = [deal(hands, "2S"), Bid(1, 1), Bid(2, 0), Bid(3, 1), Bid(0, 0)]
    actions += [Play(1, Card.parse("3H")), Play(2, Card.parse("4H")), Play(3, Card.parse("5C"))]
    actions += [Play(0, Card.parse("2H"))]
    state = played(rules, actions)
    obs = observe(state, 2)  # seat 2 won with the 4H and leads
    assert obs.seat == 2 and Play(2, Card.parse("4D")) in obs.legal_actions
    before = observe(played(rules, actions[:5]), 1)
    assert same_plays(before, list(parse_cards("3C 3D"))) == [list(parse_cards("3C 3D"))]
    after = observe(played(rules, actions[:7]), 0)  # seat 0 to play: it saw the 5C
    assert Card.parse("4C") in after.hand and Card.parse("5D") in after.hand
    assert same_plays(after, list(parse_cards("4C 5D"))) == [[Card.parse("4C")], [Card.parse("5D")]]


# --- Errors and marks ---


def test_a_paired_error_is_the_spread_of_the_differences() -> None:
    # The differences 1, 3, 1, 3: mean 2, sample variance 4/3, over 4 batches.
    assert paired_error([5.0, 6.0, 5.0, 6.0], [4.0, 3.0, 4.0, 3.0]) == pytest.approx(math.sqrt(4 / 3 / 4))
    assert paired_error([5.0, 6.0, 7.0], [4.0, 5.0, 6.0]) == 0  # the same deals, the same gap: no error


def test_a_mark_near_a_threshold_is_given_only_when_its_error_cannot_undo_it() -> None:
    marks = Thresholds()
    assert marks.mark(2.6, 0.0) == "mistake"
    assert marks.mark(2.6, 0.3) == "inaccuracy"  # 2.6 - 2 x 0.3 = 2.0: could be under 2.5
    assert marks.mark(3.2, 0.3) == "mistake"  # 3.2 - 0.6 = 2.6: past 2.5 whatever the error
    assert marks.mark(1.2, 0.2) is None and marks.reach(1.2) == "inaccuracy"
    assert marks.mark(5.5, 1.0) == "mistake" and marks.mark(12.0, 0.0) == "blunder"


def _decision(loss: float, error: float, mark: str | None, close: str | None) -> Decision:
    _, obs = _lead(["2C 4C 5D", "3C 3D AH", "4D 6H 7H", "5C 6C KS"], "2S")
    choices = (ChoiceValue("AH", 6.0, 480, (), 0.0), ChoiceValue("3C", 6.0 - loss, 480, ("3D",), error))
    return Decision(0, 1, 1, "play", position_of(obs), choices, "AH", "3C", loss, mark, error, close)


def test_a_close_mark_is_said_to_be_close() -> None:
    line = decision_line(_decision(2.6, 0.3, "inaccuracy", "mistake"), ("Ann", "Bob", "Cid", "Dee"))
    assert line.endswith("2.6 lost give or take 0.3 (inaccuracy; close to a mistake).")
    line = decision_line(_decision(1.1, 0.4, None, "inaccuracy"), ("Ann", "Bob", "Cid", "Dee"))
    assert line.endswith("1.1 lost give or take 0.4 (close to an inaccuracy).")


@pytest.fixture(scope="module")
def record() -> Record:
    return bot_match(21, sizes=(4, 3))


@pytest.fixture(scope="module")
def review(record: Record) -> Review:
    return review_record(record, seed=2, budget=TINY)


def test_every_loss_carries_an_error(review: Review) -> None:
    lost = [d for d in review.decisions if d.loss > 0]
    assert len(lost) >= 5
    for d in review.decisions:
        assert d.error >= 0
        if d.loss > 0:
            # Priced against the best on the same deals, with the error of that difference.
            assert d.error_of(d.chosen) == d.error and d.error_of(d.best) == 0
        else:
            assert d.error == 0
    assert any(d.error > 0 for d in lost)  # the error is measured, not assumed
    data = review.to_json()
    assert all("error" in d and "close" in d for d in data["decisions"])
    assert Review.from_json(data) == review


def test_marks_follow_the_loss_less_twice_its_error(review: Review) -> None:
    marks = review.thresholds
    for d in review.decisions:
        assert d.mark == marks.mark(d.loss, d.error)
        assert d.close == (marks.reach(d.loss) if marks.reach(d.loss) != d.mark else None)
        if d.mark is not None:
            assert d.loss - 2 * d.error >= getattr(marks, d.mark)


def test_the_named_best_is_never_priced_below_the_choice_made(review: Review) -> None:
    for d in review.decisions:
        best, chosen = d.value_of(d.best), d.value_of(d.chosen)
        assert best is not None and chosen is not None
        assert best >= chosen
        assert d.loss == pytest.approx(max(0.0, best - chosen), abs=0.002)


def test_puzzles_come_only_from_well_priced_decisions(review: Review) -> None:
    for p in review.puzzles:
        d = p.decision
        assert d.mark in ("mistake", "blunder") and d.well_priced(review.thresholds)
        assert d.chosen not in p.answers and d.best in p.answers
    # A decision whose next choice is within its error of an inaccuracy is not one.
    d = _decision(3.0, 0.1, "mistake", None)
    unsure = ChoiceValue("3D", 5.2, 480, (), 0.3)  # 0.8 below the best, give or take 0.3
    assert not Decision(**{**_fields(d), "choices": (*d.choices, unsure)}).well_priced(Thresholds())
    assert d.well_priced(Thresholds())


def _fields(d: Decision) -> dict[str, object]:
    return {name: getattr(d, name) for name in Decision.__slots__}


# --- Sentences that add up ---


def _numbers(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"[+-]\d+", text)]


def test_the_seat_sentences_parts_add_up_to_the_gap_as_printed(review: Review) -> None:
    for s in review.summary:
        sentence = seat_sentence(s, len(review.hands))
        edge = round(s.edge)
        parts = _numbers(sentence.split(":", 1)[1])
        assert len(parts) == 3 and sum(parts) == edge, sentence
        said = re.search(r"finished (\d+) points? (above|below)", sentence)
        if edge:
            assert said is not None and int(said[1]) * (1 if said[2] == "above" else -1) == edge
        assert f"give or take {round(s.luck_error)}" in sentence


def test_the_pair_lines_add_up_to_the_gap_as_printed(review: Review) -> None:
    names = review.seats
    for a in range(len(names)):
        for b in range(len(names)):
            if a != b:
                gap = explain(review, a, b)
                head, *rows = gap_lines(gap, names)
                parts = [int(re.findall(r"[+-]\d+", row)[0]) for row in rows]
                assert len(parts) == 3 and sum(parts) == gap.score, (head, rows)
                assert str(abs(gap.score)) in head if gap.score else "scored the same" in head


def test_the_docs_example_adds_up() -> None:
    # The gap of 57 the docs once split as -19, -41, +2 (it added up to 58).
    gap = Gap(2, 3, -57, luck=-18.6, loss=40.6, rest=2.2, error=34.0, luck_error=5.0)
    rows = gap_lines(gap, ("Ann", "Bob", "Cid", "Dee"))[1:]
    parts = [int(re.findall(r"[+-]\d+", row)[0]) for row in rows]
    assert sum(parts) == -57 and parts == [-18, -41, 2]
    assert rounded_parts([0.5, 0.5], 1) == [1, 0] and rounded_parts([-0.5, -0.5], -1) == [0, -1]


def test_a_luck_within_its_error_is_not_called_a_fact() -> None:
    summary = SeatSummary(
        seat=0,
        name="Ann",
        score=80,
        edge=-34.0,
        decisions=80,
        loss=3.0,
        average_loss=0.04,
        luck=-3.0,
        rest=-33.5,
        rest_error=30.0,
        loss_error=0.5,
        luck_error=3.5,
        table_loss=5.5,
    )
    sentence = seat_sentence(summary, 19)
    assert "cards -3 (give or take 4, too little to tell from chance)" in sentence
    assert sum(_numbers(sentence.split(":", 1)[1])) == -34
    fields = {name: getattr(summary, name) for name in SeatSummary.__slots__}
    sure = seat_sentence(SeatSummary(**{**fields, "luck": -12.0, "rest": -24.5}), 19)
    assert "cards -12 (give or take 4)," in sure
