"""bench/experiments/tells.py: a row for every choice OpenSpiel's knowing search makes,
its card records hold the real undealt cards apart from the cards seen, and
the play-model reader finds a tell where one is planted and none where
there is none."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from ohhell import Card, Observation

pytest.importorskip("pyspiel")

from support import bench_script


def test_every_choice_is_read_and_the_undealt_cards_are_the_real_ones() -> None:
    bench = bench_script("experiments/tells")
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
    bench = bench_script("experiments/tells")
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


def test_the_tells_are_summed_by_kind_by_trick_and_by_deal() -> None:
    bench = bench_script("experiments/tells")

    def row(deal: int, kind: str, done: int, tell: float, known: bool, fair: bool) -> dict[str, Any]:
        return {
            "deal": deal, "kind": kind, "tricks_done": done, "choices": 3, "tell": tell,
            "known_favourite": known, "fair_favourite": fair,
        }  # fmt: skip

    rows = [
        row(0, "bid", 0, 1.0, True, False),
        row(1, "bid", 0, 0.0, True, True),
        row(0, "card", 0, 0.5, False, False),
        row(1, "card", 4, -0.1, True, False),
        row(1, "card", 5, 0.3, True, True),
    ]
    out = bench.summary_of_tells(rows, 4)
    assert out["bids"]["decisions"] == 2 and out["bids"]["nats"] == 0.5
    assert out["bids"]["favourite_knowing_the_deal"] == 1.0
    assert out["bids"]["favourite_guessing_the_stock"] == 0.5
    assert out["cards, tricks 1 to 5"]["decisions"] == 2 and out["cards, tricks 1 to 5"]["nats"] == 0.2
    assert out["cards, tricks 6 on"]["decisions"] == 1 and out["cards, tricks 6 on"]["nats"] == 0.3
    assert out["cards"]["decisions"] == 3
    # A deal's tells summed, three quarters of them the others' at 4 players:
    # deal 0 (1.0 + 0.5) x 3/4 = 1.125, deal 1 (0 - 0.1 + 0.3) x 3/4 = 0.15.
    deal = out["a deal, the others' choices"]
    assert deal["deals"] == 2 and deal["nats"] == round((1.125 + 0.15) / 2, 4)


def test_the_interval_takes_a_deal_s_choices_together() -> None:
    bench = bench_script("experiments/tells")
    # Ten deals whose choices all agree within the deal: as independent draws
    # the interval would shrink with the 50 choices, taken by deal it is the
    # interval of ten values.
    values = [float(d % 2) for d in range(10) for _ in range(5)]
    deals = [d for d in range(10) for _ in range(5)]
    mean, ci = bench.clustered_mean_ci(values, deals)
    per_deal_mean, per_deal_ci = bench.mean_ci([float(d % 2) for d in range(10)])
    assert mean == per_deal_mean == 0.5
    assert abs(ci - per_deal_ci) < 1e-12
    assert ci > bench.mean_ci(values)[1] * 2
    assert math.isnan(bench.clustered_mean_ci([1.0, 2.0], [3, 3])[1])


def test_the_tell_is_the_log_ratio_of_the_two_searches_chances(monkeypatch: pytest.MonkeyPatch) -> None:
    # The two readers stubbed with fixed shares: the real deal's search puts
    # 0.8 on the lowest legal action, the fair guess 0.2; the rest is spread.
    # The fair guess must be handed the seat's observation, never the deal.
    bench = bench_script("experiments/tells")
    seen: list[Any] = []

    def shares(legal: list[int], top: float) -> dict[int, float]:
        rest = (1 - top) / (len(legal) - 1)
        return {a: top if a == min(legal) else rest for a in legal}

    def knowing(state: Any, seed: int, simulations: int) -> dict[int, float]:
        return shares(state.legal_actions(), 0.8)

    class Guess:
        def __init__(self, simulations: int, stocks: int, seed: int) -> None:
            pass

        def policy(self, spiel: Any, obs: Any) -> dict[int, float]:
            seen.append(obs)
            return shares(spiel.legal_actions(), 0.2)

    monkeypatch.setattr(bench, "search_policy", knowing)
    monkeypatch.setattr(bench, "FairStock", Guess)
    players, size, uniform = 3, 4, 0.05
    tells, cards, _ = bench.play((2, 5, 20, players, size, uniform))
    assert len(seen) == len(tells)
    for obs in seen:
        assert isinstance(obs, Observation)
        assert [h is None for h in obs.hands] == [s != obs.seat for s in range(players)]
    for r in tells:
        # Which action the seat took is the real search's; its chance under
        # each stub is known, whichever it was.
        n = r["choices"]
        low_known, low_fair = 0.8, 0.2
        rest_known, rest_fair = 0.2 / (n - 1), 0.8 / (n - 1)
        candidates = {
            math.log(0.95 * a + uniform / n) - math.log(0.95 * b + uniform / n)
            for a, b in ((low_known, low_fair), (rest_known, rest_fair))
        }
        assert min(abs(r["tell"] - c) for c in candidates) < 1e-12
        took_lowest = abs(r["tell"] - max(candidates)) < 1e-12
        assert r["known_favourite"] == took_lowest
        if took_lowest and n < 5:  # the fair guess favours another (0.8 / (n - 1) > 0.2 each)
            assert not r["fair_favourite"]
    first_card = next(r for r in tells if r["kind"] == "card")
    assert first_card["tricks_done"] == 0  # the opening lead: no trick done yet
    assert len(cards) == sum(r["kind"] == "card" for r in tells)


def test_a_hand_is_ranked_among_the_cards_still_in_play() -> None:
    bench = bench_script("experiments/tells")
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
    bench = bench_script("experiments/tells")
    records, lay = _bids(bench, True, 400)
    found = bench.summary_of_bids(records, lay, 4, 10)
    assert found["held_out_bids"] == 80
    assert found["saving_nats_a_bid"] > 0.2
    assert found["saving_nats_a_bid"] - found["ci95"] > 0
    records, lay = _bids(bench, False, 2000)
    none = bench.summary_of_bids(records, lay, 4, 10)
    assert abs(none["saving_nats_a_bid"]) < none["ci95"] < 0.2  # nothing read: the interval holds zero
