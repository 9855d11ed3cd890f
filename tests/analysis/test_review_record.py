"""A whole record reviewed: the same for the same record and seed (in one
process or several), kept as JSON and read back equal, with every decision
of the reviewed seats and nothing else."""

from __future__ import annotations

import json
import random

import pytest

from ohhell import Bid, Card, ChangeBid, Claim, NameTrump, Play, Record, RecordError, dumps, loads
from ohhell.analysis import FORMAT, Budget, Progress, Review, ReviewError, ReviewTimeout, review_record
from review_support import NAMES, TINY, bot_match, deal, short_rules


@pytest.fixture(scope="module")
def record() -> Record:
    return bot_match(21)


@pytest.fixture(scope="module")
def review(record: Record) -> Review:
    return review_record(record, seed=4, budget=TINY)


def test_the_same_record_and_seed_give_the_same_review(record: Record, review: Review) -> None:
    again = review_record(loads(dumps(record)), seed=4, budget=TINY)
    assert again == review
    assert json.dumps(again.to_json()) == json.dumps(review.to_json())


def test_worker_processes_give_the_same_review(record: Record, review: Review) -> None:
    # Fresh interpreters (each with its own string hashing) price their share
    # of the decisions and playouts; nothing depends on which did what.
    assert review_record(record, seed=4, budget=TINY, jobs=2) == review


def test_another_seed_gives_another_review_of_the_same_decisions(record: Record, review: Review) -> None:
    other = review_record(record, seed=5, budget=TINY)
    assert [(d.version, d.seat) for d in other.decisions] == [(d.version, d.seat) for d in review.decisions]
    assert other != review


def test_the_json_reads_back_equal(review: Review) -> None:
    data = json.loads(json.dumps(review.to_json()))
    assert data["format"] == FORMAT
    assert Review.from_json(data) == review
    with pytest.raises(ReviewError):
        Review.from_json({**data, "format": "something else"})
    with pytest.raises(ReviewError):
        Review.from_json({k: v for k, v in data.items() if k != "hands"})


def test_every_decision_with_a_choice_is_reviewed_and_no_other(record: Record, review: Review) -> None:
    state = record.replay()
    decisions = [a for a in state.log if isinstance(a, (Bid, NameTrump, Play))]
    assert 0 < len(review.decisions) < len(decisions)  # forced cards are skipped
    for d in review.decisions:
        assert len({c.choice for c in d.choices} - {s for c in d.choices for s in c.same_as}) >= 1
        assert len(d.choices) == len(d.position.legal) >= 2
        assert d.chosen in d.position.legal and d.best in d.position.legal
        assert d.loss >= 0 and d.mark == review.thresholds.mark(d.loss, d.error)
        assert d.mark is None or d.loss >= review.thresholds.inaccuracy
        assert d.position.seat == d.seat and d.position.hand == d.hand
    assert [d.version for d in review.decisions] == sorted(d.version for d in review.decisions)


def test_the_summary_adds_up(record: Record, review: Review) -> None:
    state = record.replay()
    assert len(review.hands) == len(state.results) and review.finished
    for h, result in zip(review.hands, state.results, strict=True):
        assert h.scores == result.scores
        assert abs(sum(h.luck)) < 1e-6 * 1000 + 0.01  # luck is against the table's mean
        assert len(h.playouts) == TINY.luck_playouts
    for s in review.summary:
        mine = review.decisions_of(s.seat)
        assert s.decisions == len(mine)
        assert s.loss == pytest.approx(sum(d.loss for d in mine), abs=0.01)
        assert s.score == state.totals[s.seat]
        assert s.rest is not None
        mean_loss = sum(x.loss for x in review.summary) / len(review.summary)
        assert s.edge == pytest.approx(s.luck - (s.loss - mean_loss) + s.rest, abs=0.01)


def test_puzzles_are_each_seats_costliest_mistakes(review: Review) -> None:
    for p in review.puzzles:
        d = p.decision
        assert d.mark in ("mistake", "blunder") and d.best in p.answers and d.chosen not in p.answers
        assert d.version in review.summary_of(d.seat).biggest  # type: ignore[union-attr]
    losses = [p.decision.loss for p in review.puzzles]
    assert losses == sorted(losses, reverse=True)


def test_only_the_seats_asked_for_are_reviewed(record: Record) -> None:
    one = review_record(record, seed=4, budget=TINY, seats=[2])
    assert {d.seat for d in one.decisions} == {2} and one.reviewed == (2,)
    assert [s.seat for s in one.summary] == [2] and one.summary[0].rest is None


def test_progress_counts_every_unit_and_hand(record: Record) -> None:
    seen: list[Progress] = []
    review_record(record, seed=4, budget=TINY, progress=seen.append)
    assert seen[-1].done == seen[-1].total and seen[-1].hands_done == seen[-1].hands == 2
    assert [p.done for p in seen] == list(range(1, seen[-1].total + 1))
    assert [p.hands_done for p in seen] == sorted(p.hands_done for p in seen)


def test_a_review_past_its_time_stops() -> None:
    with pytest.raises(ReviewTimeout):
        review_record(bot_match(21), seed=4, budget=TINY, max_seconds=0.0)


def test_a_changed_bid_is_reviewed_as_the_bid_finally_made() -> None:
    # R-BID-CHANGE: a bid changed before the next seat bids is one decision,
    # the bid finally made, from what the seat saw when it first bid.
    rules = short_rules((3,), hook=False, bid_changes=True)
    actions = [deal(["2C 3C 4C", "AS KS QS", "5D 6D 7D", "8H 9H 10H"], "2S"), Bid(1, 0), ChangeBid(1, 3)]
    actions += [Bid(2, 0), Bid(3, 0), Bid(0, 0)]
    record = Record(rules, NAMES, tuple(actions))
    review = review_record(record, seed=1, budget=TINY, seats=[1])
    bids = [d for d in review.decisions if d.kind == "bid"]
    assert [(d.version, d.chosen) for d in bids] == [(1, "3")]
    assert bids[0].best == "3" and bids[0].loss == 0


def test_the_cards_a_claim_plays_are_not_reviewed() -> None:
    # After trick 1 the dealer claims both tricks left (it holds the two top
    # trumps): the cards after the claim are played to settle it, not chosen.
    rules = short_rules((3,), hook=False)
    actions = [deal(["AS KS 2C", "2H 9H 5D", "3H 10H 6D", "4H JH 7D"], "3S")]
    actions += [Bid(1, 0), Bid(2, 0), Bid(3, 0), Bid(0, 2)]
    first_trick = [(1, "2H"), (2, "3H"), (3, "4H"), (0, "2C")]
    settled = [(3, "JH"), (0, "AS"), (1, "9H"), (2, "10H"), (0, "KS"), (1, "5D"), (2, "6D"), (3, "7D")]
    actions += [Play(s, Card.parse(c)) for s, c in first_trick]
    at = len(actions)
    actions += [Play(s, Card.parse(c)) for s, c in settled]
    record = Record(rules, NAMES, tuple(actions), claims=(Claim(0, 2, at),))
    record.replay()
    review = review_record(record, seed=1, budget=TINY)
    plays = [d.version for d in review.decisions if d.kind == "play"]
    assert plays and all(v < at for v in plays)
    without_claim = review_record(Record(rules, NAMES, tuple(actions)), seed=1, budget=TINY)
    assert any(d.version >= at for d in without_claim.decisions if d.kind == "play")


def test_a_record_that_breaks_the_rules_is_refused_with_its_line() -> None:
    text = dumps(bot_match(21)).replace("bid 1 ", "bid 1 9", 1)
    with pytest.raises(RecordError, match="line"):
        review_record(loads(text), budget=TINY)


def test_a_budget_too_small_is_refused() -> None:
    with pytest.raises(ReviewError):
        Budget(simulations=4)
    with pytest.raises(ReviewError):
        Budget(luck_playouts=1)


@pytest.mark.parametrize(
    ("preset", "changes"),
    [
        ("okenuff", {"hand_sizes": (3, 2)}),  # R-TRUMP-BIDDER: trump named by the highest bidder
        ("classic-tens", {"players": 5, "deck": "australian", "hand_sizes": (3,)}),  # R-DECK-AU
        ("pagat", {"devils_bridge": True, "hand_sizes": (2, 1)}),  # R-DEVILS-BRIDGE
        ("common", {"bidding": "simultaneous", "hook": False, "hand_sizes": (3,)}),  # R-BID-SIMULTANEOUS
        ("river", {"players": 3, "trump": "rotate", "hand_sizes": (4,), "teams": None}),  # R-TRUMP-ROTATE
    ],
)
def test_every_kind_of_rules_is_reviewed(preset: str, changes: dict[str, object]) -> None:
    from ohhell import PRESETS
    from ohhell.bots import get_bot, play_match

    rules = PRESETS[preset].replace(first_dealer=0, **changes)
    bots = [get_bot("intermediate" if s % 2 else "random") for s in range(rules.players)]
    state = play_match(rules, bots, random.Random(7))
    record = Record.from_state(state, tuple(f"P{s + 1}" for s in range(rules.players)))
    review = review_record(record, seed=1, budget=TINY)
    assert review.finished and len(review.hands) == len(state.results) and review.decisions
    assert Review.from_json(json.loads(json.dumps(review.to_json()))) == review
    kinds = {d.kind for d in review.decisions}
    assert "play" in kinds and ("trump" in kinds) == (preset == "okenuff")
