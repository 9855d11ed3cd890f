"""The ``ohhell`` command: simulate, replay, and the errors it reports."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from ohhell import PRESETS, load, make_rules
from ohhell.bots.tournament import _Progress
from ohhell.cli import main

GOLDEN = Path(__file__).parents[1] / "golden"
SUMMARY_KEYS = {"games", "hands", "tricks", "actions", "extra_hands", "mean_score", "exact_rate", "wins"}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def players_for(preset: str) -> str:
    return "4" if preset == "okenuff" else "5"


# --- simulate ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_simulate_every_preset_prints_a_summary(capsys: pytest.CaptureFixture[str], preset: str) -> None:
    players = players_for(preset)
    code, out, err = run(
        capsys, "simulate", "--preset", preset, "--players", players, "--games", "3", "--seed", "5"
    )
    assert code == 0 and err == ""
    assert out.startswith("3 matches, ")
    rows = [line.split() for line in out.splitlines() if line.strip()[:1].isdigit() and "%" in line]
    assert [r[0] for r in rows] == [str(s) for s in range(1, int(players) + 1)]  # one row per seat, from 1


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_simulate_json_counts_games_and_hands(capsys: pytest.CaptureFixture[str], preset: str) -> None:
    players = players_for(preset)
    data = run_json(
        capsys, "simulate", "--preset", preset, "--players", players, "--games", "4", "--seed", "9"
    )
    rules = make_rules(preset, {"players": players})
    assert SUMMARY_KEYS | {"seconds", "rules"} <= set(data)
    assert data["games"] == 4
    extra = data["extra_hands"]
    if rules.tie_break.value != "extra-hands":
        assert extra == 0
    # Every scheduled hand of every game, plus any tie-break hands (R-TIE-EXTRA) of the last size.
    assert data["hands"] == 4 * len(rules.schedule) + extra
    assert data["tricks"] == 4 * sum(rules.schedule) + extra * rules.schedule[-1]
    assert len(data["mean_score"]) == len(data["exact_rate"]) == len(data["wins"]) == rules.players
    assert sum(data["wins"]) == pytest.approx(4)  # a shared win is split
    assert all(0 <= r <= 1 for r in data["exact_rate"])
    assert data["rules"] == rules.options()


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--hook", "no"], {"hook": "no"}),
        (["--devils-bridge", "yes"], {"devils-bridge": "yes"}),
        (
            ["--bidding", "simultaneous", "--hook", "no", "--bid-changes", "no"],
            {"bidding": "simultaneous", "hook": "no", "bid-changes": "no"},
        ),
        (["--players", "6", "--deck", "australian"], {"players": "6", "deck": "australian"}),
        (
            ["--trump", "rotate", "--trump-rotation", "S,D,C,H,NT"],
            {"trump": "rotate", "trump-rotation": "S,D,C,H,NT"},
        ),
        (
            ["--scoring", "squares", "--tie-break", "most-exact"],
            {"scoring": "squares", "tie-break": "most-exact"},
        ),
        (["--sequence", "up", "--start-cards", "3"], {"sequence": "up", "start-cards": "3"}),
        # Seats typed from 1 on the command line; the rules (and records) count from 0.
        (["--teams", "1+3,2+4", "--first-lead", "dealer"], {"teams": "0+2,1+3", "first-lead": "dealer"}),
        (["--first-dealer", "2"], {"first-dealer": "1"}),
    ],
)
def test_simulate_options_reach_the_rules(
    capsys: pytest.CaptureFixture[str], options: list[str], expected: dict[str, str]
) -> None:
    data = run_json(capsys, "simulate", "--preset", "pagat", "--games", "2", "--seed", "1", *options)
    for name, value in expected.items():
        assert data["rules"][name] == value
    rules = make_rules("pagat", {k: v for k, v in expected.items()})
    assert data["hands"] == 2 * len(rules.schedule)  # pagat breaks no tie with extra hands


def test_simulate_is_the_same_for_the_same_seed(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("simulate", "--preset", "river", "--hand-sizes", "3,2,1", "--games", "5", "--seed", "42")
    first = run_json(capsys, *argv)
    second = run_json(capsys, *argv)
    other = run_json(capsys, *argv[:-1], "43")
    for data in (first, second, other):
        data.pop("seconds")
    assert first == second
    assert first != other


def test_simulate_record_dir_writes_records_that_replay_to_the_same_totals(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out_dir = tmp_path / "records"
    argv = ["simulate", "--preset", "classic-tens", "--players", "3", "--hand-sizes", "3,1"]
    argv += ["--devils-bridge", "yes", "--games", "4", "--seed", "8", "--record-dir", str(out_dir)]
    summary = run_json(capsys, *argv)
    files = sorted(out_dir.iterdir())
    assert [f.name for f in files] == [f"game-{g:04d}.ohr" for g in range(1, 5)]
    totals = [0, 0, 0]
    hands = 0
    for g, path in enumerate(files, start=1):
        assert ("game", str(g)) in load(path).tags and ("seed", "8") in load(path).tags
        report = run_json(capsys, "replay", str(path))
        assert report["finished"] is True
        hands += len(report["hands"])
        for s in range(3):
            assert report["totals"][s] == sum(h["scores"][s] for h in report["hands"])
            totals[s] += report["totals"][s]
    assert hands == summary["hands"]
    assert summary["mean_score"] == [round(t / 4, 3) for t in totals]


# --- replay -----------------------------------------------------------------------------------------------


def test_replay_prints_each_hand_and_the_standings(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "replay", str(GOLDEN / "pagat-2-1.ohr"))
    assert code == 0 and err == ""
    assert "Hand 1: 2 cards, dealer Bob, trump hearts (turned 5H)" in out
    assert "Hand 2: 1 card" in out or "Hand 2: 1 cards" in out
    assert "1. Bob: 21 points, 2 exact bids" in out
    assert "2. Dee: 20 points" in out


def test_replay_json_of_a_golden_record(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "replay", str(GOLDEN / "okenuff-3-2-6.ohr"))
    want = json.loads((GOLDEN / "okenuff-3-2-6.expected.json").read_text(encoding="utf-8"))
    assert data["finished"] is True
    assert data["seats"] == ["North", "East", "South", "West"]
    assert data["totals"] == want["totals"] and data["exact"] == want["exact"]
    assert [h["scores"] for h in data["hands"]] == [h["scores"] for h in want["hands"]]
    assert data["settlement"] == want["settlement"]  # R-SETTLE
    assert data["standings"][0] == {"place": 1, "seats": [0], "total": 12, "exact": 2}
    assert data["rules"]["scoring"] == "okenuff"


def test_replay_json_marks_the_tie_break_hand(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "replay", str(GOLDEN / "devils-bridge-tie.ohr"))
    assert [h["extra"] for h in data["hands"]] == [False, False, True]  # R-TIE-EXTRA
    assert data["totals"] == [-10, 30, 10]


# --- errors -----------------------------------------------------------------------------------------------


BAD_OPTIONS = [
    (["--hook", "maybe"], "hook"),
    (["--players", "9"], "players"),
    (["--scoring", "golf"], "scoring"),
    (["--deck", "australian"], "Australian"),
    (["--bidding", "simultaneous"], "hook"),
    (["--hand-sizes", "2,x"], "hand sizes"),  # named in words, never "hand_sizes"
    (["--tie-break", "coin"], "a tie for first"),
    (["--first-dealer", "7"], "a seat number from 1 to 4"),
    (["--first-dealer", "0"], "a seat number from 1 to 4"),
    (["--teams", "0+2,1+3"], "put each seat 1 to 4 in exactly one"),
    (["--teams", "1+3,x"], "joined by +"),
    (["--preset", "bridge"], "preset"),
    (["--games", "0"], "--games"),
]


@pytest.mark.parametrize(("argv", "named"), BAD_OPTIONS, ids=[" ".join(a) for a, _ in BAD_OPTIONS])
def test_bad_simulate_options_exit_2_and_name_the_option(
    capsys: pytest.CaptureFixture[str], argv: list[str], named: str
) -> None:
    code, out, err = run(capsys, "simulate", "--games", "1", *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("ohhell simulate: ") and named.lower() in err.lower()


def test_a_bad_preset_names_the_presets(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "simulate", "--preset", "bridge")
    assert code == 2 and "'bridge'" in err and all(name in err for name in PRESETS)


@pytest.mark.parametrize("argv", [["--games", "many"], ["--seed", "x"], ["--colour", "red"]])
def test_unreadable_arguments_exit_2_from_the_parser(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["simulate", *argv])
    assert info.value.code == 2
    assert argv[0] in capsys.readouterr().err


def test_a_mistyped_option_gets_one_clear_line_and_the_commands_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cases = {
        ("simulate", "--games", "ten"): "ohhell simulate: --games takes a whole number, not 'ten'",
        ("simulate", "--gmaes", "3"): "ohhell simulate: --gmaes is not an option of ohhell simulate",
        ("play", "--sead", "3"): "ohhell play: --sead is not an option of ohhell play",
        ("replay",): "ohhell replay: the following arguments are required: file",
    }
    for argv, line in cases.items():
        with pytest.raises(SystemExit) as info:
            main(list(argv))
        err = capsys.readouterr().err
        assert info.value.code == 2 and err.splitlines() == [
            line,
            f"usage: ohhell {argv[0]} [options]{' FILE' if argv[0] == 'replay' else ''} "
            f"(ohhell {argv[0]} --help lists every option)",
        ]


def test_a_corrupt_record_exits_1_with_the_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = (GOLDEN / "pagat-2-1.ohr").read_text(encoding="utf-8")
    lines = text.splitlines()
    at = lines.index("play 1 3C")
    lines[at] = "play 1 3Q"
    path = tmp_path / "corrupt.ohr"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "replay", str(path))
    assert code == 1 and out == ""
    assert err.startswith(f"ohhell replay: {path}: line {at + 1}: ")


def test_an_illegal_record_exits_1_with_line_hand_and_rule(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = (GOLDEN / "pagat-2-1.ohr").read_text(encoding="utf-8")
    lines = text.splitlines()
    at = lines.index("play 0 AS")
    lines[at] = "play 0 KH"  # seat 0 must follow spades
    path = tmp_path / "illegal.ohr"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "replay", str(path))
    assert code == 1
    assert f"line {at + 1}, hand 1, action 9: Ann (seat 1) must follow spades" in err and "R-" not in err


def test_an_unfinished_record_needs_partial(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = (GOLDEN / "pagat-2-1.ohr").read_text(encoding="utf-8")
    lines = text.splitlines()
    path = tmp_path / "unfinished.ohr"
    path.write_text("\n".join(lines[: lines.index("play 3 7C")]) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "replay", str(path))
    assert code == 1 and "stops before the match is over, at hand 2 with" in err
    assert "seat 0" not in err and " (seat 4) to play" in err  # the player by name, seats from 1
    assert err.rstrip().endswith(f"To see it as far as it goes: ohhell replay --partial {path}")
    code, out, _ = run(capsys, "replay", "--partial", str(path))
    assert code == 0 and "(the record stops before the match is over)" in out
    data = run_json(capsys, "replay", "--partial", str(path))
    assert data["finished"] is False and len(data["hands"]) == 1 and data["totals"] == [0, 10, 10, 10]


def test_a_missing_record_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "replay", str(tmp_path / "nothing.ohr"))
    assert code == 2 and "cannot read" in err


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys)
    assert code == 0 and "simulate" in out and "replay" in out


# --- numbers and times as people read them ---------------------------------------------------------------


def test_simulate_prints_whole_wins_as_whole_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    from ohhell.cli.simulate import wins_words

    code, out, _ = run(capsys, "simulate", "--games", "3", "--seed", "2")
    assert code == 0
    wins = [line.split()[-1] for line in out.splitlines() if "%" in line]
    assert len(wins) == 4 and all(w.isdigit() for w in wins) and sum(map(int, wins)) == 3
    assert (wins_words(2.0), wins_words(2.5), wins_words(0.5)) == ("2", "2.5", "0.5")


def test_times_are_printed_with_sensible_precision() -> None:
    from ohhell.bots.tournament import duration_words

    cases = {0.000004: "under 0.01 ms", 0.00045: "0.45 ms", 0.0012: "1.2 ms", 0.012: "12 ms", 1.04: "1.0 s"}
    cases |= {42.4: "42 s", 185: "3 min 5 s"}
    assert {t: duration_words(t) for t in cases} == cases


def test_the_tournament_shows_progress_and_time_left(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "tournament", "--bots", "beginner,random", "--deals", "4", "--seed", "3")
    assert code == 0
    assert re.search(r"deals \[#+\] 4/4, [\d.]+ m?s", err)  # deals done of the total, and the time taken
    assert "median decision" in out and ".000" not in out  # no three-decimal times
    bar = _Progress(10, io.StringIO(), "deals")
    bar.start -= 2.0  # two seconds ago
    bar.drawn -= 1.0  # and not drawn since
    bar.advance(4)
    assert bar.stream is not None and "4/10, 2.0 s, about 3.0 s left" in bar.stream.getvalue()  # type: ignore[attr-defined]
    with pytest.raises(SystemExit):
        main(["tournament", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default 100)" in text and "(default 1)" in text


def test_the_tournament_says_how_long_the_expert_thinks(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        capsys,
        "tournament",
        "--bots",
        "expert,random",
        "--deals",
        "1",
        "--think",
        "0.01",
        "--hand-sizes",
        "1",
    )
    assert code == 0 and "The expert thinks about 0.01 s a decision" in err
