"""``ohhell score`` while the game is set up: quitting at "Who deals first?"."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from ohhell.cli.score import main

SHORT = ["--preset", "common", "--sequence", "fixed", "--fixed-hands", "2", "--start-cards", "5"]


def run(argv: list[str], lines: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdin=io.StringIO("".join(f"{line}\n" for line in lines)), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("word", ["quit", "q", "QUIT", "exit"])
def test_quit_at_who_deals_first_leaves_without_saving(tmp_path: Path, word: str) -> None:
    path = tmp_path / "g.json"
    code, out, err = run([*SHORT, "--names", "Ann,Bob,Cid", "--file", str(path)], [word, "Bob"])
    assert code == 0 and err == ""
    assert "Who deals first?" in out and "You quit before the game was set up: nothing was saved." in out
    assert "Bob deals" not in out and not path.exists()


def test_a_player_named_q_is_still_chosen_by_name(tmp_path: Path) -> None:
    code, out, _ = run([*SHORT, "--names", "Ann,Q,Cid"], ["q", "quit"])
    assert code == 0 and "You quit before" not in out and "Q deals; Cid bids first" in out


def test_names_given_twice_are_refused_and_asked_again(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    code, out, err = run([*SHORT, "--file", str(path)], ["Ann,Bob,ann", "Ann,Bob,Cid", "Bob"])
    assert code == 0 and err.startswith("The input ended. The sheet is saved")
    assert "  two players have the same name, Ann: give each a different one" in out
    assert out.count("Players in seat order") == 2 and out.count("Who deals first?") == 1
    assert "Bob deals" in out and path.exists()


def test_names_given_twice_stop_at_the_end_of_the_input(tmp_path: Path) -> None:
    # Every answer repeats a name: the questions stop when the input ends.
    code, out, err = run([*SHORT, "--file", str(tmp_path / "g.json")], ["Ann,Ann,Bob"] * 3)
    assert code == 0 and out.count("the same name") == 3 and "Who deals first?" not in out
    assert "The input ended before the game was set up: nothing was saved." in err


def test_names_given_twice_on_the_command_line_are_refused_at_once(tmp_path: Path) -> None:
    code, out, err = run([*SHORT, "--names", "Ann,Bob,ANN", "--file", str(tmp_path / "g.json")], ["Bob"] * 50)
    assert code == 2 and "Who deals first?" not in out
    assert err == "ohhell score: two players have the same name, Ann: give each a different one\n"
