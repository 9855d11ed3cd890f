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
