"""Hand-made positions with a known best choice: the review names it, and
marks the choice against it by what it costs."""

from __future__ import annotations

import random

from ohhell import Bid, Card, Play, observe, parse_cards
from ohhell.analysis import Thresholds, review_decision, same_plays
from ohhell.analysis.decisions import choices_of
from review_support import TINY, deal, played, short_rules


def test_a_dealer_held_off_its_bid_by_the_hook_is_told_the_bid_it_can_make() -> None:
    # R-HOOK: bids of 1, 0, 0 in a 2-card hand forbid the dealer 1. Holding
    # the two top trumps it takes both tricks whatever happens: 2 scores 12
    # (R-SC-PAGAT), 0 scores nothing. Bidding 0 is a blunder and 2 is best.
    rules = short_rules((2,))
    actions = [deal(["AS KS", "2H 3H", "4D 5D", "6C 7C"], "2S"), Bid(1, 1), Bid(2, 0), Bid(3, 0)]
    obs = observe(played(rules, actions), 0)
    assert obs.forbidden_bid == 1
    bad = review_decision(obs, Bid(0, 0), version=len(actions), seed=3, budget=TINY)
    assert bad is not None
    assert bad.best == "2" and bad.chosen == "0"
    assert bad.mark == "blunder" and 11 < bad.loss <= 12.0
    assert [c.choice for c in bad.choices] == ["2", "0"]  # the forbidden 1 is no choice
    good = review_decision(obs, Bid(0, 2), version=len(actions), seed=3, budget=TINY)
    assert good is not None and good.loss == 0 and good.mark is None and good.best == "2"


def test_a_bid_the_hook_leaves_alone_is_not_reviewed() -> None:
    # R-HOOK: "where the hook leaves only one legal bid, that is the bid": a
    # dealer with bids of 0, 0, 0 in a 1-card hand must bid 0, ace of trump or not.
    rules = short_rules((1,))
    actions = [deal(["AS", "2H", "4D", "6C"], "2S"), Bid(1, 0), Bid(2, 0), Bid(3, 0)]
    obs = observe(played(rules, actions), 0)
    assert obs.legal_actions == (Bid(0, 0),)
    assert review_decision(obs, Bid(0, 0), version=len(actions), budget=TINY) is None


def _last_tricks(bid: int) -> list[object]:
    """Seat 1 leads its only small trump (R-TRICK: nobody else has a spade,
    so all three show the void, R-FOLLOW) and wins, loses a diamond, and is
    last to play to a club trick holding the ace of trumps and the ace of
    hearts, with the last trick to come."""
    return [
        deal(["6H 7D JC 7H", "5S 4D AS AH", "2H KD KC 3H", "4H 6D QC 5H"], "2S"),
        Bid(1, bid),
        Bid(2, 1),
        Bid(3, 0),
        Bid(0, 0),
        *(Play(s, Card.parse(c)) for s, c in ((1, "5S"), (2, "2H"), (3, "4H"), (0, "6H"))),
        *(Play(s, Card.parse(c)) for s, c in ((1, "4D"), (2, "KD"), (3, "6D"), (0, "7D"))),
        *(Play(s, Card.parse(c)) for s, c in ((2, "KC"), (3, "QC"), (0, "JC"))),
    ]


def test_the_trump_is_kept_for_the_last_trick_when_one_more_trick_is_wanted() -> None:
    # Seat 1 bid 2 and has 1. Ruffing now takes this trick, and then its ace
    # of hearts takes the last (no one else can trump: R-TRICK, voids shown),
    # 3 tricks: a miss. Throwing the ace of hearts keeps the ace of trumps
    # for the last trick: exactly 2, 12 points (R-SC-PAGAT), whatever the
    # hidden cards are.
    rules = short_rules((4,), hook=False)
    actions = _last_tricks(2)
    obs = observe(played(rules, actions), 1)
    assert obs.taken[1] == 1 and {Play(1, Card.parse("AS")), Play(1, Card.parse("AH"))} == set(
        obs.legal_actions
    )
    ruff = review_decision(obs, Play(1, Card.parse("AS")), version=len(actions), seed=5, budget=TINY)
    assert ruff is not None and ruff.best == "AH" and ruff.mark == "blunder"
    assert ruff.loss == 12.0  # certain either way: the whole made bid
    keep = review_decision(obs, Play(1, Card.parse("AH")), version=len(actions), seed=5, budget=TINY)
    assert keep is not None and keep.loss == 0 and keep.mark is None


def test_the_trump_is_played_at_once_when_every_trick_is_wanted() -> None:
    # The same cards, but seat 1 bid 3: now the ruff is the only way to make it.
    rules = short_rules((4,), hook=False)
    actions = _last_tricks(3)
    obs = observe(played(rules, actions), 1)
    thrown = review_decision(obs, Play(1, Card.parse("AH")), version=len(actions), seed=5, budget=TINY)
    assert thrown is not None and thrown.best == "AS" and thrown.mark == "blunder" and thrown.loss == 13.0


def test_cards_that_are_the_same_play_are_one_choice() -> None:
    # Seat 1 holds 5H and 6H with no heart between them out: either is the
    # same play, so neither is a mistake where the expert chose the other,
    # and a hand of nothing but such cards is no decision at all.
    rules = short_rules((2,), hook=False)
    actions = [deal(["2C 3C", "5H 6H", "4D 5D", "6C 7C"], "2S"), Bid(1, 0), Bid(2, 0), Bid(3, 0), Bid(0, 1)]
    obs = observe(played(rules, actions), 1)
    assert same_plays(obs, list(parse_cards("5H 6H"))) == [list(parse_cards("5H 6H"))]
    assert len(choices_of(obs)) == 1
    assert review_decision(obs, Play(1, Card.parse("6H")), version=len(actions), budget=TINY) is None


def test_a_card_in_the_trick_under_way_keeps_two_cards_apart() -> None:
    # 5H and 7H with the 6H just led: the 7 wins the trick, the 5 does not.
    rules = short_rules((3,), hook=False)
    actions = [
        deal(["2C 3C 4C", "5H 7H 8D", "6H 5D 9D", "6C 7C 8C"], "2S"),
        *(Bid(s, 0) for s in (1, 2, 3)),
        Bid(0, 1),
        Play(1, Card.parse("8D")),
        Play(2, Card.parse("9D")),
        Play(3, Card.parse("6C")),
        Play(0, Card.parse("2C")),
        Play(2, Card.parse("6H")),
        Play(3, Card.parse("7C")),
        Play(0, Card.parse("3C")),
    ]
    obs = observe(played(rules, actions), 1)
    assert same_plays(obs, list(parse_cards("5H 7H"))) == [[Card.parse("5H")], [Card.parse("7H")]]


def test_the_marks_follow_the_documented_thresholds() -> None:
    marks = Thresholds()
    assert [marks.mark(x) for x in (0.0, 0.99, 1.0, 2.49, 2.5, 4.99, 5.0, 30.0)] == [
        None,
        None,
        "inaccuracy",
        "inaccuracy",
        "mistake",
        "mistake",
        "blunder",
        "blunder",
    ]


def test_a_review_of_the_same_position_and_seed_is_the_same_whatever_the_global_generator() -> None:
    rules = short_rules((2,))
    actions = [deal(["AS KS", "2H 3H", "4D 5D", "6C 7C"], "2S"), Bid(1, 1), Bid(2, 0), Bid(3, 0)]
    obs = observe(played(rules, actions), 0)
    random.seed(1)
    first = review_decision(obs, Bid(0, 0), version=4, seed=9, budget=TINY)
    after = random.random()
    random.seed(2)  # the review draws from generators of its own, never the global one
    assert review_decision(obs, Bid(0, 0), version=4, seed=9, budget=TINY) == first
    random.seed(1)
    assert random.random() == after


def test_a_record_that_stops_at_a_decision_gets_the_experts_advice() -> None:
    # A hand-made position typed as a record that stops where the hooked
    # dealer (R-HOOK) is to bid with the two top trumps: the advice is 2.
    from ohhell import Record
    from ohhell.analysis import review_record

    rules = short_rules((2,))
    actions = [deal(["AS KS", "2H 3H", "4D 5D", "6C 7C"], "2S"), Bid(1, 1), Bid(2, 0), Bid(3, 0)]
    review = review_record(Record(rules, ("Ann", "Bob", "Cid", "Dee"), tuple(actions)), budget=TINY)
    (advice,) = review.pending
    assert (advice.seat, advice.kind, advice.best, advice.version) == (0, "bid", "2", len(actions))
    assert [c.choice for c in advice.choices] == ["2", "0"] and advice.value_of("2") == 12.0
    assert not review.finished and review.hands == ()
