"""The ``ohhell`` command: simulate, replay, and the errors it reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ohhell import PRESETS, load, make_rules
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
    (["--hand-sizes", "2,x"], "hand-sizes"),  # named as the flag is spelled, not "hand_sizes"
    (["--tie-break", "coin"], "tie-break"),
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
    assert err.startswith("ohhell simulate: ") and named in err


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
    assert (
        f"line {at + 1}, hand 1, action 9: " in err and "seat 0 must follow spades" in err and "R-" not in err
    )


def test_an_unfinished_record_needs_partial(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = (GOLDEN / "pagat-2-1.ohr").read_text(encoding="utf-8")
    lines = text.splitlines()
    path = tmp_path / "unfinished.ohr"
    path.write_text("\n".join(lines[: lines.index("play 3 7C")]) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "replay", str(path))
    assert code == 1 and "stops before the match is over" in err
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
