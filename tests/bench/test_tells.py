"""bench/tells.py: a row for every choice OpenSpiel's knowing search makes,
its card records hold the real undealt cards apart from the cards seen, and
the play-model reader finds a tell where one is planted and none where
there is none."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from ohhell import Card

pytest.importorskip("pyspiel")

from support import bench_script


def test_every_choice_is_read_and_the_undealt_cards_are_the_real_ones() -> None:
    bench = bench_script("tells")
    players, size = 3, 4
    tells, cards, bid_records = bench.play((2, 5, 20, players, size, 0.05))
    bids = [r for r in tells if r["kind"] == "bid"]
    plays = [r for r in tells if r["kind"] == "card"]
    # Every seat bids with at least two bids open to it (the hook forbids the
    # dealer one of five); the cards with a choice are some of the 12 played.
    assert len(bids) == players
    assert 1 <= len(plays) <= players * (size - 1)
    assert len(cards) == len(plays)
    assert len(bid_records) == players
    for record in bid_records:
        assert record["hand"].bit_count() == size and 0 <= record["bid"] <= size
        assert record["turned"].bit_count() == 1
        assert (record["hand"] | record["turned"]) & record["undealt"] == 0
    assert all(r["choices"] > 1 and math.isfinite(r["tell"]) for r in tells)
    assert all(0 <= r["tricks_done"] < size for r in plays)
    for record in cards:
        undealt = record["undealt"]
        # 52 cards less three hands of four and the turned card, none of them
        # gone (played or turned) as the table saw it.
        assert undealt.bit_count() == 52 - players * size - 1
        assert undealt & record["context"]["gone"] == 0
        assert 0 <= record["y"] < len(record["legal"])
        assert all(not undealt >> slot & 1 for slot in record["legal"])
        known = bench.knowing(record)
        assert known["context"]["gone"] == record["context"]["gone"] | undealt
        assert record["context"]["gone"] & undealt == 0  # the record itself is unchanged


def _leads(bench: Any, planted: bool, count: int) -> tuple[list[dict[str, Any]], Any]:
    """A seat leads from the king and queen of hearts. With ``planted`` it
    leads the king exactly when the ace is undealt (a seat that knows the
    stock cashes its king then); otherwise it picks at random."""
    rules = bench.rules(10, 0, 4)
    lay = bench.layout(rules)
    slot = {name: lay.slots_of[Card.parse(name)][0] for name in ("AH", "KH", "QH")}
    rng = random.Random(7)
    records = []
    for deal in range(count):
        ace_undealt = rng.random() < 0.5
        king = ace_undealt if planted else rng.random() < 0.5
        context = {
            "seat": 1, "led": -1, "winning": -1, "last": False,
            "need": 1, "left": 10, "gone": 0, "trump": 0,
        }  # fmt: skip
        records.append(
            {
                "deal": deal,
                "context": context,
                "legal": [slot["QH"], slot["KH"]],
                "y": 1 if king else 0,
                "undealt": (1 << slot["AH"]) if ace_undealt else 0,
            }
        )
    return records, lay


def test_the_play_model_reader_finds_a_planted_tell_and_no_other() -> None:
    bench = bench_script("tells")
    records, lay = _leads(bench, True, 400)
    found = bench.summary_of_model(records, lay, 1.0)
    # As the table sees it the lead is a coin toss (log 2 a card); knowing
    # where the ace is, the king's being top of its suit gives it away.
    assert found["held_out_cards"] == 80
    assert abs(found["log_loss_cards_gone_as_seen"] - math.log(2)) < 0.02
    assert found["saving_nats_a_card"] > 0.4
    assert found["saving_nats_a_card"] - found["ci95"] > 0
    records, lay = _leads(bench, False, 2000)
    none = bench.summary_of_model(records, lay, 1.0)
    assert abs(none["saving_nats_a_card"]) < none["ci95"] < 0.2  # nothing read: the interval holds zero


def test_the_tells_are_summed_by_kind_and_by_trick() -> None:
    bench = bench_script("tells")

    def row(kind: str, done: int, tell: float, known: bool, fair: bool) -> dict[str, Any]:
        return {
            "deal": 0, "kind": kind, "tricks_done": done, "choices": 3, "tell": tell,
            "known_favourite": known, "fair_favourite": fair,
        }  # fmt: skip

    rows = [
        row("bid", 0, 1.0, True, False),
        row("bid", 0, 0.0, True, True),
        row("card", 0, 0.5, False, False),
        row("card", 4, -0.1, True, False),
        row("card", 5, 0.3, True, True),
    ]
    out = bench.summary_of_tells(rows)
    assert out["bids"]["decisions"] == 2 and out["bids"]["nats"] == 0.5
    assert out["bids"]["favourite_knowing_the_deal"] == 1.0
    assert out["bids"]["favourite_guessing_the_stock"] == 0.5
    assert out["cards, tricks 1 to 5"]["decisions"] == 2 and out["cards, tricks 1 to 5"]["nats"] == 0.2
    assert out["cards, tricks 6 on"]["decisions"] == 1 and out["cards, tricks 6 on"]["nats"] == 0.3
    assert out["cards"]["decisions"] == 3


def test_a_hand_is_ranked_among_the_cards_still_in_play() -> None:
    bench = bench_script("tells")
    lay = bench.layout(bench.rules(10, 0, 4))

    def mask(names: str) -> int:
        return sum(1 << lay.slots_of[Card.parse(n)][0] for n in names.split())

    # The ace of hearts out of play: the king plays as the ace, the queen as
    # the king; the clubs, with nothing of theirs out, stay as they are.
    assert bench.ranked_in_play(lay, mask("KH QH 2C 9C"), mask("AH")) == mask("AH KH 2C 9C")
    # Cards out below a card do not lift it; two out above lift it two.
    assert bench.ranked_in_play(lay, mask("JS"), mask("2S 3S")) == mask("JS")
    assert bench.ranked_in_play(lay, mask("JS 4S"), mask("AS QS 3S")) == mask("KS 6S")
    assert bench.ranked_in_play(lay, mask("JS"), 0) == mask("JS")


def _bids(bench: Any, planted: bool, count: int) -> tuple[list[dict[str, Any]], Any]:
    """A seat holds the king of hearts and three small cards, spades trump.
    With ``planted`` it bids 1 exactly when the ace of hearts is undealt (a
    seat that knows it has a sure trick), else 0; otherwise it bids 0 or 1
    at random."""
    rules = bench.rules(10, 0, 4)
    lay = bench.layout(rules)

    def mask(names: str) -> int:
        return sum(1 << lay.slots_of[Card.parse(n)][0] for n in names.split())

    rng = random.Random(8)
    records = []
    for deal in range(count):
        ace_undealt = rng.random() < 0.5
        one = ace_undealt if planted else rng.random() < 0.5
        records.append(
            {
                "deal": deal,
                "hand": mask("KH 2C 3D 4S"),
                "turned": mask("5S"),
                "undealt": mask("AH") if ace_undealt else 0,
                "trump": lay.suit[lay.slots_of[Card.parse("5S")][0]],
                "bid": 1 if one else 0,
            }
        )
    return records, lay


def test_the_bid_reader_finds_a_planted_tell_and_no_other() -> None:
    bench = bench_script("tells")
    records, lay = _bids(bench, True, 400)
    found = bench.summary_of_bids(records, lay, 4, 10)
    assert found["held_out_bids"] == 80
    assert found["saving_nats_a_bid"] > 0.2
    assert found["saving_nats_a_bid"] - found["ci95"] > 0
    records, lay = _bids(bench, False, 2000)
    none = bench.summary_of_bids(records, lay, 4, 10)
    assert abs(none["saving_nats_a_bid"]) < none["ci95"] < 0.2  # nothing read: the interval holds zero
