"""``ohhell score``: the line-by-line scorekeeper driven with scripted input.

Bad entries are re-asked with the reason, the sheet is saved after every entry
and resumed, and a saved sheet exports as CSV and JSON.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ohhell.cli.score import main
from ohhell.scorekeeper import ScoreGame
from ohhell.scorekeeper.text import chart_text, sheet_text, standings_text


@pytest.fixture(autouse=True)
def data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Sheets without a file are saved under $OHHELL_HOME: a folder of the test's own."""
    home = tmp_path / "home"
    monkeypatch.setenv("OHHELL_HOME", str(home))
    return home


def run(argv: list[str], lines: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, stdin=io.StringIO("".join(f"{line}\n" for line in lines)), stdout=out)
    return code, out.getvalue()


SHORT = ["--preset", "common", "--sequence", "fixed", "--fixed-hands", "2", "--start-cards", "5"]


def test_a_whole_game_with_refusals_re_asked(tmp_path: Path) -> None:
    # R-HOOK, R-BID-RANGE, tricks total, R-BID-ANNOUNCE, R-SC-TRICKS-BONUS, R-TIE-EXACT.
    path = tmp_path / "game.json"
    lines = [
        "",  # Enter: the preset's first dealer (Ann, seat 0)
        "9",  # out of range
        "two",  # not a number
        "2",
        "1",
        "1",
        "1",  # the hook: 2 + 1 + 1 + 1 = 5
        "0",
        "2 1 1 2",  # adds up to 6
        "0 2 1 2",
        "1",
        "1",
        "1",
        "1",
        "1 2 1 1",
        "sheet",
        "chart",
        "quit",
    ]
    code, text = run([*SHORT, "--names", "Ann,Bob,Cid,Dee", "--file", str(path)], lines)
    assert code == 0
    assert "Hand 1 of 2: 5 cards each. Ann deals; Bob bids first; Bob leads." in text
    assert "Bid for Ann (0-5, not 1 (the hook)): " in text
    assert "Refused: Bob bid 9, but a bid is from 0 to 5\n" in text
    assert "Refused: 'two' is not a bid" in text
    assert "Refused: the hook forbids Ann to bid 1: the bids would total the 5 tricks\n" in text
    assert "Bids: Bob 2, Cid 1, Dee 1, Ann 0. 4 bid for 5: under." in text
    assert "Refused: the tricks taken add up to 6, but the hand has 5 tricks" in text
    assert "missed (blob)" in text
    assert "Hand 2 of 2: 5 cards each. Bob deals; Cid bids first" in text
    assert "The game is over." in text
    game = ScoreGame.from_json(path.read_text())
    assert game.is_over
    assert game.hands[0].scores == (10, 12, 11, 2)
    assert game.hands[1].scores == (11, 2, 11, 11)
    assert game.totals == (21, 14, 22, 13)
    assert "1. Cid: 22 points, 2 exact bids" in text
    assert "Exact bids: Ann 100%, Bob 50%, Cid 100%, Dee 50%" in text
    assert "hands across, totals up" in text


def test_resume_edit_undo_and_export(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    run([*SHORT, "--names", "Ann,Bob,Cid,Dee", "--dealer", "Dee", "--file", str(path)], ["1", "1", "1", "1"])
    game = ScoreGame.from_json(path.read_text())  # saved after every entry
    assert game.entries[0].bids == (1, 1, 1, 1) and game.first_dealer == 3
    code, text = run(
        ["--file", str(path)],
        [
            "1 1 1 2",
            "edit 1 tricks 0 1 1 3",
            "edit 1 bids 1 1 1 2",  # the hook: the dealer Dee may not make it 5
            "edit 1 frogs 1",
            "undo",
            "revoke Cid 1",
            "standings",
            "quit",
        ],
    )
    assert code == 0
    assert "Resuming the game in" in text
    assert "Hand 1 changed; totals now: Ann 0, Bob 11, Cid 11, Dee 3" in text
    assert "Refused: the edit is refused: hand 1: the hook forbids Dee, who bids last, to bid 2" in text
    assert "Refused: 'frogs': edit bids, tricks, trump or revokes" in text
    assert "Undone: the edit of hand 1." in text
    assert "Revoke by Cid: -20. The offender" in text
    game = ScoreGame.from_json(path.read_text())
    assert game.hands[0].scores == (11, 11, -9, 2)
    code, csv_text = run(["--file", str(path), "--export", "csv"], [])
    assert code == 0
    assert csv_text.splitlines()[1].startswith("1,5,Dee,Ann,,under,,1,1,yes,11,11")
    code, json_text = run(["--file", str(path), "--export", "json"], [])
    assert code == 0 and json.loads(json_text)["hands"][0]["revokes"] == [3]  # Cid, seat 3


def test_okenuff_trump_no_trump_and_settlement() -> None:
    # R-TRUMP-BIDDER, R-SC-OKENUFF doubling, R-SETTLE.
    lines = [
        "Dee",
        "0",
        "1",
        "2",
        "2",
        "1 2 1 0",  # trump not named yet: taken as a trump answer and refused
        "nt",
        "0 1 2 1",
        "standings",
        "quit",
    ]
    code, text = run(["--preset", "okenuff", "--hand-sizes", "4,5", "--names", "Ann,Bob,Cid,Dee"], lines)
    assert code == 0
    assert "Cid bid highest: trump? (C, D, H, S or NT): " in text
    assert "Refused: '1 2 1 0' is not a suit" in text
    assert "Trump: no trump." in text
    assert "(no trump: every score of this hand is doubled)" in text
    assert "Settlement: Ann +12, Bob +20, Cid +36, Dee -68" in text


def test_bad_setup_is_asked_again() -> None:
    code, text = run(["--preset", "pagat"], ["Ann, Bob", "Ann, Bob, Cid", "Zed", "Cid", "quit"])
    assert code == 0
    assert "Oh Hell is for 3 to 7 players, not 2\n" in text
    assert "'Zed' is not one of the players (Ann, Bob, Cid)" in text
    assert "Hand 1 of 19: 10 cards each. Cid deals; Ann bids first" in text


def test_simultaneous_bids_by_name() -> None:
    # R-BID-SIMULTANEOUS: any order, "NAME N".
    argv = ["--bidding", "simultaneous", "--hook", "no", "--bid-changes", "no", "--names", "A1,B2,C3"]
    code, text = run([*argv, "--dealer", "A1"], ["C3 4", "2", "A1 3", "quit"])
    assert code == 0
    assert "Bids: B2 2, C3 4, A1 3. 9 bid for 10: under" in text
    assert "Refused" not in text


def test_command_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--export", "csv"], [])[0] == 2
    assert "--export prints a saved sheet" in capsys.readouterr().err
    path = tmp_path / "g.json"
    path.write_text("{}")
    assert run(["--file", str(path)], [])[0] == 2
    assert "not an ohhell-scoresheet" in capsys.readouterr().err
    real = tmp_path / "real.json"
    run([*SHORT, "--names", "A,B,C", "--dealer", "A", "--file", str(real)], ["quit"])
    assert run(["--file", str(real), "--scoring", "tens"], [])[0] == 2
    err = capsys.readouterr().err
    assert "holds another game: its rules have scoring tricks-bonus" in err
    assert f"To continue it: ohhell score --file {real}" in err
    assert run(["--file", str(real), "--names", "A,B,D"], [])[0] == 2
    assert "its players are A, B, C" in capsys.readouterr().err
    assert run(["--file", str(real), "--dealer", "2"], [])[0] == 2
    assert "A deals first in it" in capsys.readouterr().err
    assert run(["--names", "A,B,C", "--scoring", "frogs"], [])[0] == 2
    assert "expected one of" in capsys.readouterr().err


def test_export_from_the_prompt(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    code, text = run([*SHORT, "--names", "A,B,C"], ["", f"export csv {target}", "export json", "quit"])
    assert code == 0
    assert target.read_text().startswith("hand,cards,dealer")
    assert '"format": "ohhell-scoresheet"' in text


def test_text_views_of_an_empty_sheet() -> None:
    from ohhell.rules import PRESETS

    game = ScoreGame(PRESETS["common"], ["Ann", "Bob", "Cid", "Dee"])
    assert chart_text(game) == "No hand is finished yet."
    assert sheet_text(game).startswith("hand cards dealer")
    assert "(the game is not over yet)" in standings_text(game)


def test_runs_as_a_program(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    result = subprocess.run(
        [sys.executable, "-m", "ohhell.cli.score", *SHORT, "--names", "A,B,C", "--file", str(path)],
        input="\n1\n1\n1\nhelp\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "undo " in result.stdout and "export csv|json" in result.stdout
    assert json.loads(path.read_text())["hands"][0]["bids"] == [1, 1, 1]


def test_registers_as_a_subcommand(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import argparse

    from ohhell.cli.score import add_parser

    parser = argparse.ArgumentParser(prog="ohhell")
    sub = parser.add_subparsers(dest="command")
    add_parser(sub)
    args = parser.parse_args(["score", *SHORT, "--names", "A,B,C", "--dealer", "B"])
    monkeypatch.setattr(sys, "stdin", io.StringIO("2\nquit\n"))
    assert args.func(args) == 0
    assert "Hand 1 of 2: 5 cards each. B deals; C bids first" in capsys.readouterr().out


def test_the_command_it_prints_continues_the_sheet_and_so_does_the_first(tmp_path: Path) -> None:
    # The first command, run again, resumes; so does the shorter one printed on quitting.
    path = tmp_path / "tuesday.json"
    first = [*SHORT, "--names", "Ann,Bob,Cid,Dee", "--dealer", "Dee", "--file", str(path)]
    code, text = run(first, ["1", "quit"])
    assert code == 0
    printed = f"ohhell score --file {path}"
    assert f"The sheet is saved in {path}. To continue it: {printed}" in text
    code, text = run(first, ["1", "quit"])  # the same command again
    assert code == 0 and f"Resuming the game in {path}." in text and "Refused" not in text
    code, text = run(printed.split()[2:], ["1", "quit"])  # the command it printed
    assert code == 0 and f"Resuming the game in {path}." in text
    assert ScoreGame.from_json(path.read_text()).entries[0].bids == (1, 1, 1, None)


def test_a_sheet_without_a_file_is_warned_about_and_offered_a_save(tmp_path: Path, data_folder: Path) -> None:
    argv = [*SHORT, "--names", "A,B,C", "--dealer", "A"]
    target = tmp_path / "kept.json"
    code, text = run(argv, ["1", "quit", str(target)])
    assert code == 0
    assert "Note: this sheet is not saved to a file. Type save FILE" in text
    assert "The sheet is not saved. Save it? Type a file name, Enter for" in text
    assert f"The sheet is saved in {target}. To continue it: ohhell score --file {target}" in text
    assert ScoreGame.from_json(target.read_text()).entries[0].bids[1] == 1

    code, text = run(argv, ["1", "quit", "no"])  # said no: nothing written
    assert code == 0 and "The sheet was not saved." in text
    assert not data_folder.exists()

    code, text = run(argv, ["1", "quit", ""])  # Enter: the file offered, in the data folder
    saved = sorted((data_folder / "sheets").glob("sheet-*.json"))
    assert code == 0 and len(saved) == 1 and f"ohhell score --file {saved[0]}" in text

    out, err = io.StringIO(), io.StringIO()  # the input ends: saved anyway, never lost
    code = main(argv, stdin=io.StringIO("1\n"), stdout=out, stderr=err)
    assert code == 0 and "The input ended; the sheet was not saved yet, so it is saved in" in err.getvalue()
    assert "The input ended" not in out.getvalue()  # the stop message is not mixed with the answers
    assert len(list((data_folder / "sheets").glob("sheet-*.json"))) == 2

    code, text = run(argv, ["quit"])  # nothing entered: nothing to offer
    assert code == 0 and "Save it?" not in text


def test_save_starts_saving_after_every_entry(tmp_path: Path) -> None:
    target = tmp_path / "later.json"
    code, text = run([*SHORT, "--names", "A,B,C", "--dealer", "A"], ["1", f"save {target}", "0", "quit"])
    assert code == 0
    assert f"Saved in {target}, and from now on after every entry." in text
    assert "Save it?" not in text  # saved already: quitting just says where
    assert ScoreGame.from_json(target.read_text()).entries[0].bids == (None, 1, 0)
    code, text = run([*SHORT, "--names", "A,B,C", "--dealer", "A"], ["1", f"save {target}", "quit", "no"])
    assert f"{target} exists already: choose another name" in text


def test_players_by_seat_number_from_1(tmp_path: Path) -> None:
    # The dealer asked for by seat number; "revoke 3" is the third player, Cid (R-REVOKE).
    code, text = run(
        [*SHORT, "--names", "Ann,Bob,Cid"], ["4", "2", "1", "1", "0", "revoke 3", "rules", "quit", "no"]
    )
    assert code == 0
    assert "Who deals first? A name or a seat number 1 to 3" in text
    assert "there is no seat 4: seats are numbered 1 to 3" in text
    assert "Hand 1 of 2: 5 cards each. Bob deals; Cid bids first" in text
    assert "Revoke by Cid: -20." in text
    # The sheet's rules name the dealer chosen at the start (Bob), not the
    # preset's default, so the rules and the export agree with the hands.
    assert "first-dealer: Bob" in text


def test_plurals_and_the_charts_shared_totals() -> None:
    from ohhell.rules import PRESETS

    game = ScoreGame(PRESETS["common"].replace(hand_sizes=(3, 3)), ["Ann", "Bob", "Cid", "Dee"], 0)
    for seat in game.current.bidding_order:  # type: ignore[union-attr]
        game.bid(seat, 1 if seat in (1, 3) else 0)
    game.tricks([0, 1, 1, 1])  # R-SC-TRICKS-BONUS: Ann 10, Bob 11, Cid 1 (missed), Dee 11
    standings = standings_text(game)
    assert "Bob: 11 points, 1 exact bid\n" in standings and "1 exact bids" not in standings
    assert "Cid: 1 point, 0 exact bids" in standings
    chart = chart_text(game, height=4)
    assert "* several players, named below" in chart
    assert "* at hand 1: Ann 10, Bob 11, Dee 11" in chart  # 10 and 11 fall on one line
    assert "Totals after hand 1: Bob 11, Dee 11, Ann 10, Cid 1" in chart


def test_the_export_names_one_first_dealer(tmp_path: Path) -> None:
    # R-DEALER-DRAW (004, the players choose): the dealer chosen at the start is the one in the
    # exported rules too (no "first-dealer: 0" beside "first_dealer: 2").
    target = tmp_path / "sheet.json"
    code, _ = run([*SHORT, "--names", "Ann,Bob,Cid", "--dealer", "Cid", "--file", str(target)], ["quit"])
    assert code == 0
    data = json.loads(target.read_text())
    game = ScoreGame.from_json(target.read_text())
    assert game.first_dealer == 2
    assert game.rules.first_dealer == 2
    assert '"first-dealer": "0"' not in json.dumps(data)


def run_both(argv: list[str], lines: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdin=io.StringIO("".join(f"{line}\n" for line in lines)), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_the_stop_message_of_piped_input_goes_to_stderr(tmp_path: Path) -> None:
    path = tmp_path / "piped.json"
    code, out, err = run_both([*SHORT, "--names", "A,B,C", "--dealer", "A", "--file", str(path)], ["1"])
    assert code == 0
    assert f"The input ended. The sheet is saved in {path}. To continue it: ohhell score --file {path}" in err
    assert "The input ended" not in out and "Bid for" in out
    code, out, err = run_both([*SHORT], [])  # ended before the names: said on stderr, nothing saved
    assert code == 0 and "nothing was saved" in err and "nothing was saved" not in out


@pytest.mark.parametrize("given", ["Cid", "cid", "3"])
def test_first_dealer_takes_a_name_or_a_seat_from_1_and_is_not_asked_again(
    tmp_path: Path, given: str
) -> None:
    # R-DEALER-DRAW done at the table: --first-dealer is --dealer (a name or a seat counted from 1).
    path = tmp_path / "g.json"
    code, text = run(["--names", "Ann,Bob,Cid,Dee", "--first-dealer", given, "--file", str(path)], ["quit"])
    assert code == 0 and "Who deals first" not in text
    assert "Cid deals; Dee bids first" in text
    data = json.loads(path.read_text())
    assert data["first_dealer"] == 3 and data["rules"]["first-dealer"] == "3"  # both count from 1


def test_dealer_and_first_dealer_together_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, text = run(["--names", "Ann,Bob,Cid,Dee", "--first-dealer", "2", "--dealer", "Cid"], [])
    assert code == 2 and text == ""
    assert "--dealer and --first-dealer both say who deals first: give only one" in capsys.readouterr().err


def test_first_dealer_draw_asks_who_won_the_draw() -> None:
    code, text = run(
        ["--names", "Ann,Bob,Cid,Dee", "--preset", "common", "--first-dealer", "draw"], ["Bob", "quit"]
    )
    assert code == 0 and "Who deals first?" in text and "Bob deals; Cid bids first" in text


def test_the_sheet_sets_the_blob_mark_apart_and_explains_only_what_appears() -> None:
    import re

    from ohhell.rules import PRESETS

    game = ScoreGame(PRESETS["common"].replace(hand_sizes=(4, 3)), ["Ann", "Bob", "Cid", "Dee"])
    for seat, bid in ((1, 2), (2, 0), (3, 1), (0, 0)):
        game.bid(seat, bid)
    game.tricks([0, 4, 0, 0])  # R-SC-TRICKS-BONUS: Bob bid 2 and took 4, a blob worth 4
    text = sheet_text(game)
    assert "2/4   +4 *" in text and "0/0  +10" in text
    assert not re.search(r"\d\*", text) and not re.search(r"\*[+-]", text)  # never "2/4*+4"
    assert "* a missed bid (a blob)" in text
    assert "extra hand" not in text  # no extra hand on this sheet: nothing to explain

    # R-TIE-EXTRA: Bob and Cid tie for first after the only hand, so an extra hand follows.
    tied = ScoreGame(
        PRESETS["pagat"].replace(players=3, hand_sizes=(1,), tie_break="extra-hands"),
        ["Ann", "Bob", "Cid"],
        0,
    )
    for seat in (1, 2, 0):
        tied.bid(seat, 0)
    tied.tricks([1, 0, 0])
    tied.bid(tied.current.first_bidder, 0)
    assert tied.hands[-1].extra
    text = sheet_text(tied)
    assert "+ after the hand number: an extra hand to break a tie" in text
    assert re.search(r"^\s+2\+ ", text, re.M)
