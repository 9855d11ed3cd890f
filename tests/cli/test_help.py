"""The ``ohhell`` command's help: every rule option says what it does and the
values it takes (read from the rules, so it cannot drift from what they
accept), every command ends with examples, ``--version`` answers, the same
thing has the same name in every command, and a chart to a missing folder is
refused before a tournament starts."""

from __future__ import annotations

import argparse
import importlib.util
import math
import re
from pathlib import Path
from typing import Any

import pytest

from ohhell import OPTION_NAMES, PRESETS, Rules, RulesError, __version__, make_rules
from ohhell.cli import build_parser, main
from ohhell.describe import OPTION_HELP, VALUE_HELP, option_choices, option_values

RULE_COMMANDS = ("play", "score", "scoresheet", "simulate", "tournament")
COMMANDS = ("play", "serve", "score", "scoresheet", "simulate", "replay", "review", "tournament")


def help_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as done:
        main([*argv, "--help"])
    assert done.value.code == 0
    return capsys.readouterr().out


def flat(text: str) -> str:
    """The help with its line breaks and indents made single spaces."""
    return " ".join(text.split())


def test_every_rule_option_has_words() -> None:
    assert set(OPTION_HELP) == set(OPTION_NAMES)
    for name in OPTION_NAMES:
        assert OPTION_HELP[name].strip() and option_values(name).strip()
    for name, meanings in VALUE_HELP.items():  # words only for values the rules have
        assert set(meanings) <= set(option_choices(name) or ()), name


@pytest.mark.parametrize("command", RULE_COMMANDS)
def test_every_rule_option_has_help_with_its_values(capsys: pytest.CaptureFixture[str], command: str) -> None:
    text = flat(help_of(capsys, command))
    for name in OPTION_NAMES:
        flag = "--" + name.replace("_", "-")
        assert flag in text, flag
        assert flat(OPTION_HELP[name]) in text, flag
        assert flat(option_values(name)) in text, flag
        for choice in option_choices(name) or ():
            assert re.search(rf"\b{re.escape(choice)}\b", text), (flag, choice)
    for preset in PRESETS:
        assert preset in text


def test_the_listed_values_are_the_values_the_rules_take() -> None:
    # Every value the help lists is accepted, and one it does not list is refused.
    for name in OPTION_NAMES:
        choices = option_choices(name)
        if choices is None:
            continue
        flag = name.replace("_", "-")
        base = "pagat" if name != "players" else Rules()
        for choice in choices:
            options = {flag: choice}
            if name == "bidding" and choice == "simultaneous":
                options |= {"hook": "no", "bid-changes": "no"}
            if name == "deck" and choice == "australian":
                options |= {"players": "5"}
            if name == "scoring" and choice == "okenuff":
                options |= {"players": "4"}
            assert make_rules(base, options) is not None
        with pytest.raises(RulesError):
            make_rules("pagat", {flag: "no-such-value"})


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_examples(capsys: pytest.CaptureFixture[str], command: str) -> None:
    text = help_of(capsys, command)
    examples = text[text.index("Examples:") :].splitlines()[1:]
    lines = [line.strip() for line in examples if line.strip()]
    assert len(lines) >= 2 and all(line.startswith(f"ohhell {command}") for line in lines)


def test_the_main_help_has_examples_and_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of(capsys)
    assert "Examples:" in text and "ohhell play" in text and "--version" in text
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"ohhell {__version__}"


def test_seats_are_counted_from_1_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    play = flat(help_of(capsys, "play"))
    assert "--seat N your seat, counted clockwise from 1" in play
    assert "a seat number from 1 to the number of players" in play  # --first-dealer
    assert "e.g. 1+3,2+4" in play  # --teams
    score = flat(help_of(capsys, "score"))
    assert "a name or a seat number counted from 1" in score  # --dealer


def test_the_players_names_are_names_in_both_scorekeeping_commands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # One word for one thing: --names; scoresheet's old --players A,B,C still works, unadvertised.
    for command in ("score", "scoresheet"):
        text = flat(help_of(capsys, command))
        assert "--names A,B,C the players in seat order, clockwise, comma-separated" in text
        assert "--players N how many play" in text
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sheet = sub.choices["scoresheet"].parse_args(["--players", "Ann,Bob,Cid", "-o", "x.pdf"])
    assert sheet.rule_players == "Ann,Bob,Cid"  # read as names by the command (tests/scorekeeper)


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="the chart needs matplotlib")
@pytest.mark.parametrize(
    ("plot", "message"),
    [
        ("no/such/folder/chart.png", "the folder no/such/folder does not exist"),
        (".", "that is a folder"),
        ("chart.frog", "end the name with one"),
    ],
)
def test_a_chart_that_cannot_be_saved_is_refused_before_the_tournament(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    plot: str,
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    code = main(
        ["tournament", "--bots", "random,random", "--deals", "2", "--hand-sizes", "1", "--plot", plot]
    )
    captured = capsys.readouterr()
    assert code == 2 and message in captured.err and "Traceback" not in captured.err
    assert captured.out == "" and "deals [" not in captured.err  # refused before any deal was played


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="the chart needs matplotlib")
def test_a_chart_is_saved_where_it_is_asked_for(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    chart = tmp_path / "chart.png"
    argv = ["tournament", "--bots", "random,random", "--deals", "2", "--hand-sizes", "1", "--quiet"]
    assert main([*argv, "--plot", str(chart)]) == 0
    out = capsys.readouterr().out
    assert chart.read_bytes().startswith(b"\x89PNG") and f"chart saved to {chart}" in out
    assert "2 deals (single hands) x 2 rotations" in out


def test_the_trick_pause_takes_seconds_or_key() -> None:
    parser = build_parser()
    assert parser.parse_args(["play", "--trick-pause", "key"]).trick_pause == math.inf
    assert parser.parse_args(["play", "--trick-pause", "2.5"]).trick_pause == 2.5
    assert parser.parse_args(["play"]).trick_pause == 3.0


def test_the_wait_for_a_bid_change_is_an_option(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # R-BID-CHANGE: how long the next bidder waits for a change is the player's to choose.
    from ohhell.cli.play import _session

    text = flat(help_of(capsys, "play"))
    assert "--bid-change-wait SECONDS" in text and "(default 3; 0: the next bidder goes on at once)" in text
    parser = build_parser()
    assert parser.parse_args(["play"]).bid_change_wait == 3.0
    monkeypatch.setenv("OHHELL_HOME", str(tmp_path))
    args = parser.parse_args(["play", "--bid-change-wait", "10", "--new", "--seed", "1"])
    started = _session(args)
    assert started is not None and started[0].match.change_grace == 10
    started[1].release()  # the save is let go, as when the match closes
    args = parser.parse_args(["play", "--resume", "--bid-change-wait", "0"])
    started = _session(args)
    assert started is not None and started[0].match.change_grace == 0
    started[1].release()
    for bad in ("-1", "soon", "nan"):
        with pytest.raises(SystemExit):
            parser.parse_args(["play", "--bid-change-wait", bad])
        assert "--bid-change-wait" in capsys.readouterr().err


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="the chart needs matplotlib")
def test_the_chart_counts_deals_in_whole_numbers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib.pyplot as plt

    drawn: list[Any] = []
    close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig: (drawn.append(fig), close(fig)))
    argv = ["tournament", "--bots", "random,random", "--deals", "3", "--hand-sizes", "1", "--quiet"]
    assert main([*argv, "--plot", str(tmp_path / "chart.png")]) == 0
    race = drawn[0].axes[2]
    low, high = race.get_xlim()
    ticks = [t for t in race.get_xticks() if low <= t <= high]
    assert ticks and all(float(t).is_integer() for t in ticks), ticks  # no deal 1.5 or 2.5
