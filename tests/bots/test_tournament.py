"""Duplicate tournaments: seating, deal rules, determinism (also across worker
processes), the statistics, and the ``tournament`` command."""

from __future__ import annotations

import argparse
import importlib.util
import json
import math

import pytest

from ohhell import PRESETS, Suit, make_rules
from ohhell.bots.tournament import (
    deal_rules,
    format_result,
    mean_ci,
    run_tournament,
    seating,
)
from ohhell.cli.tournament import add_parser

SMALL = PRESETS["pagat"].replace(hand_sizes=(3, 1, 2))


def test_every_bot_sits_in_every_seat_once() -> None:
    for bots, players in ((4, 4), (3, 4), (5, 4), (2, 6), (1, 3)):
        seats = [seating(bots, players, r) for r in range(bots)]
        for seat in range(players):
            column = [row[seat] for row in seats]
            assert sorted(column) == list(range(bots))


def test_deal_rules_follow_the_schedule_and_move_the_dealer() -> None:
    rules = make_rules("pagat", {"hand-sizes": "3,1", "devils-bridge": "yes", "tie-break": "extra-hands"})
    first, second, third = (deal_rules(rules, i) for i in range(3))
    assert (first.schedule, second.schedule, third.schedule) == ((3,), (1,), (3,))
    assert (first.first_dealer, second.first_dealer, third.first_dealer) == (0, 1, 2)
    assert not first.devils_bridge and second.devils_bridge  # R-DEVILS-BRIDGE: 1-card hands only
    assert first.tie_break.value == "none"
    rotate = make_rules("pagat", {"trump": "rotate", "trump-rotation": "S,NT,D", "hand-sizes": "2,2,2,2"})
    assert [deal_rules(rotate, i).trump_rotation for i in range(4)] == [
        (Suit.SPADES,),
        (None,),
        (Suit.DIAMONDS,),
        (Suit.SPADES,),
    ]


def test_same_seed_same_result_and_another_seed_differs() -> None:
    bots = ["beginner", "random"]
    one = run_tournament(bots, SMALL, 12, seed=5, progress=False)
    two = run_tournament(bots, SMALL, 12, seed=5, progress=False)
    other = run_tournament(bots, SMALL, 12, seed=6, progress=False)
    assert one.as_dict(timing=False) == two.as_dict(timing=False)
    assert one.per_deal == two.per_deal
    assert other.per_deal != one.per_deal


def test_worker_processes_give_the_same_result() -> None:
    bots = ["intermediate", "beginner", "random"]
    single = run_tournament(bots, SMALL, 20, seed=3, jobs=1, progress=False)
    pooled = run_tournament(bots, SMALL, 20, seed=3, jobs=2, progress=False)
    assert pooled.as_dict(timing=False) == single.as_dict(timing=False)
    assert pooled.per_deal == single.per_deal


def test_result_counts_hands_decisions_and_differences() -> None:
    result = run_tournament(["intermediate", "random"], SMALL, 6, seed=1, progress=False)
    assert result.rotations == 2 and result.deals == 6
    for stats in result.stats:
        assert stats.hands == 6 * 4  # 2 rotations x 2 seats each, one hand per deal
        assert stats.decisions > 0 and stats.median_ms >= 0 and stats.p95_ms >= stats.median_ms
        assert 0 <= stats.exact_rate <= 1
        assert stats.ci_low <= stats.mean <= stats.ci_high
    (diff,) = result.differences
    assert (diff.a, diff.b) == ("intermediate", "random")
    means = {s.name: s.mean for s in result.stats}
    assert diff.mean == pytest.approx(means["intermediate"] - means["random"])
    data = result.as_dict()
    json.dumps(data)  # JSON-ready
    assert data["stats"][0]["bot"] == "intermediate" and "p95_decision_ms" in data["stats"][0]
    assert "bot" in format_result(result)


def test_whole_matches() -> None:
    result = run_tournament(["beginner", "random"], SMALL, 3, seed=2, progress=False, matches=True)
    assert result.matches and result.as_dict()["mode"] == "matches"
    for stats in result.stats:
        assert stats.hands == 3 * 2 * 2 * len(SMALL.schedule)  # matches x rotations x seats x hands


def test_the_same_bot_twice_is_two_entries() -> None:
    result = run_tournament(["random", "random"], SMALL, 2, seed=1, progress=False)
    assert result.bots == ("random", "random#2")


def test_mean_ci() -> None:
    mean, _, high = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    assert high - mean == pytest.approx(1.959964 * math.sqrt((5 / 3) / 4))
    assert math.isnan(mean_ci([3.0])[1])


def test_bad_requests_are_refused_clearly() -> None:
    # UnknownBotError is a ValueError; matched by base class because pytest's
    # doctest collection may import ohhell.bots.base a second time.
    with pytest.raises(
        ValueError, match="unknown bot 'grandmaster'; bots are random, beginner, intermediate"
    ):
        run_tournament(["grandmaster"], SMALL, 1, seed=1, progress=False)
    with pytest.raises(ValueError, match="at least 1 deal"):
        run_tournament(["random"], SMALL, 0, seed=1, progress=False)
    with pytest.raises(ValueError, match=r"jobs must be 0 \(every core\) or more, not -1"):
        run_tournament(["random"], SMALL, 1, seed=1, jobs=-1, progress=False)


def test_progress_bar_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    run_tournament(["random"], SMALL, 3, seed=1, progress=True)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "3/3" in captured.err and "[###" in captured.err


# --- The command ---


def _main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="ohhell")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return int(args.func(args))


def test_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["tournament", "--bots", "beginner,random", "--deals", "4", "--seed", "2", "--quiet", "--json"]
    assert _main([*argv, "--hand-sizes", "2", "--players", "5"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bots"] == ["beginner", "random"] and data["rules"]["players"] == "5"
    assert data["deals"] == 4 and len(data["stats"]) == 2


def test_command_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert _main(["tournament", "--bots", "intermediate,random", "--deals", "3", "--hand-sizes", "2"]) == 0
    captured = capsys.readouterr()
    assert "score/hand" in captured.out and "intermediate - random" in captured.out
    assert "3/3" in captured.err


def test_command_names_the_bots_when_one_is_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    assert _main(["tournament", "--bots", "random,deep-blue", "--deals", "1"]) == 2
    err = capsys.readouterr().err
    assert "unknown bot 'deep-blue'" in err and "random, beginner, intermediate" in err


def test_command_reports_rule_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert _main(["tournament", "--players", "9", "--deals", "1"]) == 2
    assert "3 to 7 players" in capsys.readouterr().err


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is not None, reason="matplotlib is installed")
def test_plot_without_matplotlib_fails_before_playing(capsys: pytest.CaptureFixture[str]) -> None:
    assert _main(["tournament", "--deals", "1", "--plot", "chart.png"]) == 2
    captured = capsys.readouterr()
    assert "needs matplotlib" in captured.err and "deals [" not in captured.err


def test_under_okenuff_a_bot_scores_what_it_nets_after_settling() -> None:
    # R-SETTLE: Okenuff's players settle on the differences, so a bot's result
    # is its net. Two bots holding two seats each: what one nets in a deal the
    # other pays. (Under other scoring the results are the bots' own scores.)
    okenuff = PRESETS["okenuff"].replace(hand_sizes=(3, 2))
    result = run_tournament(["intermediate", "random"], okenuff, 4, seed=2, progress=False)
    for deal in result.per_deal:
        first, second = deal
        assert first is not None and second is not None
        assert first + second == pytest.approx(0.0)
    means = {s.name: s.mean for s in result.stats}
    assert means["intermediate"] > 0 > means["random"]
    pagat = run_tournament(["intermediate", "random"], SMALL, 4, seed=2, progress=False)
    assert all(a is not None and b is not None and a + b > 0 for a, b in pagat.per_deal)
