"""``ohhell review``: a recorded match reviewed in the terminal, as JSON,
and its mistakes played as puzzles from standard input."""

from __future__ import annotations

import dataclasses
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ohhell import Bid, Card, Play, Record, dump
from ohhell.cli import main
from review_support import bot_match, deal, short_rules

QUICK = ("--budget", "0.03", "--quiet")
"""A thirtieth of the default budget: a short match reviewed in a second."""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def record_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("review") / "match.ohr"
    dump(bot_match(21, sizes=(4, 3)), path)
    return path


def test_review_says_what_each_player_lost_to_decisions_and_to_the_cards(
    capsys: pytest.CaptureFixture[str], record_file: Path
) -> None:
    code, out, err = run(capsys, "review", str(record_file), *QUICK)
    assert code == 0 and err == ""
    for name in ("Ann", "Bob", "Cid", "Dee"):
        assert f"{name} finished " in out and "the table's average" in out
    assert "Final: " in out
    assert "finished" in out and "cards" in out and "decisions" in out and "give or take" in out
    assert "marked decisions:" in out or "no marked decision" in out


def test_review_json_is_the_review_for_tools(capsys: pytest.CaptureFixture[str], record_file: Path) -> None:
    code, out, _ = run(capsys, "review", str(record_file), *QUICK, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["format"] == "ohhell-review 2"
    assert {"summary", "hands", "decisions", "puzzles", "budget", "seed", "record"} <= set(data)
    assert [s["name"] for s in data["summary"]] == ["Ann", "Bob", "Cid", "Dee"]


def test_review_is_the_same_for_the_same_seed_and_kept_beside_the_record(
    capsys: pytest.CaptureFixture[str], record_file: Path
) -> None:
    _, first, _ = run(capsys, "review", str(record_file), *QUICK, "--json", "--no-cache")
    _, again, _ = run(capsys, "review", str(record_file), *QUICK, "--json", "--no-cache")
    assert first == again
    assert Path(f"{record_file}.review.json").exists()


def test_review_shows_progress_on_standard_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "m.ohr"
    dump(bot_match(22, sizes=(3, 2)), path)
    code, out, err = run(capsys, "review", str(path), "--budget", "0.03")
    assert code == 0
    assert err.splitlines()[-1] == "reviewed hand 2 of 2" and "reviewed hand 1 of 2" in err
    assert "reviewed" not in out


def test_review_of_one_seat(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "m.ohr"
    dump(bot_match(21, sizes=(4, 3)), path)
    code, out, _ = run(capsys, "review", str(path), *QUICK, "--seat", "cid", "--all")
    assert code == 0
    assert "Cid's cards were worth" in out and "Ann's cards" not in out
    assert "Cid's decisions:" in out and "Review every player" in out


def test_puzzles_read_answers_from_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A dealer held off 1 by the hook (R-HOOK) with the two top trumps bid 0:
    # a blunder, and the puzzle of it. A wrong answer, then the right one.
    path = tmp_path / "hook.ohr"
    rules = short_rules((2,))
    actions = [deal(["AS KS", "2H 3H", "4D 5D", "6C 7C"], "2S"), Bid(1, 1), Bid(2, 0), Bid(3, 0), Bid(0, 0)]
    dump(Record(rules, ("Ann", "Bob", "Cid", "Dee"), tuple(actions)), path)
    monkeypatch.setattr(sys, "stdin", io.StringIO("7\n0\n"))
    code, out, _ = run(capsys, "review", str(path), *QUICK, "--seat", "Ann", "--puzzles")
    assert code == 0
    assert "Hand 1: a bid of 0, best 2" in out or "Ann bid 0; best 2" in out
    assert (
        "Puzzle 1 of 1" in out and "Your cards: spades A K." in out and "The hook forbids a bid of 1." in out
    )
    assert "That is not one of the choices: 0 2." in out
    assert "Not the best: 0" in out and "The best is 2" in out and "0 of 1 right." in out
    monkeypatch.setattr(sys, "stdin", io.StringIO("2\n"))
    code, out, _ = run(capsys, "review", str(path), *QUICK, "--seat", "1", "--puzzles")
    assert "Right: 2 is the best choice." in out and "1 of 1 right." in out


def test_a_record_that_stops_at_a_decision_is_answered_with_the_best_choice(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A position typed as a record: the hooked dealer (R-HOOK) to bid.
    path = tmp_path / "position.ohr"
    rules = short_rules((2,))
    actions = [deal(["AS KS", "2H 3H", "4D 5D", "6C 7C"], "2S"), Bid(1, 1), Bid(2, 0), Bid(3, 0)]
    dump(Record(rules, ("Ann", "Bob", "Cid", "Dee"), tuple(actions)), path)
    code, out, _ = run(capsys, "review", str(path), *QUICK)
    assert code == 0
    assert "Where the record stops, Ann is to bid:" in out
    assert "The expert's choice: 2, 12.0 points expected." in out


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("not a record\n", "line 1: not a game record"),
        (None, "line"),
    ],
)
def test_a_bad_record_exits_2_with_its_line_and_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str | None, words: str
) -> None:
    path = tmp_path / "bad.ohr"
    if text is None:
        dump(bot_match(21), path)
        lines = path.read_text().splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("bid "))
        lines[at] = "bid 1 banana"
        text = "\n".join(lines) + "\n"
    path.write_text(text)
    code, out, err = run(capsys, "review", str(path), *QUICK)
    assert code == 2 and out == ""
    assert err.startswith("ohhell review: ") and words in err


def test_a_missing_record_and_bad_options_exit_2(
    capsys: pytest.CaptureFixture[str], record_file: Path
) -> None:
    code, _, err = run(capsys, "review", str(record_file.parent / "nowhere.ohr"))
    assert code == 2 and "cannot read" in err
    code, _, err = run(capsys, "review", str(record_file), "--seat", "Zed", *QUICK)
    assert code == 2 and "--seat" in err
    code, _, err = run(capsys, "review", str(record_file), "--budget", "0")
    assert code == 2 and "--budget" in err


def test_the_ohhell_command_reviews_a_match_in_the_terminal(record_file: Path) -> None:
    # The installed command, as a player runs it, in a process of its own.
    done = subprocess.run(
        [sys.executable, "-m", "ohhell", "review", str(record_file), "--budget", "0.03", "--no-cache"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "lost " in done.stdout and "reviewed hand 2 of 2" in done.stderr


def you_blunder_record() -> Record:
    """A record of ``ohhell play`` (the person named You), stopped at a blunder:
    you bid 0 and win the trick with the ace of hearts; the 4 keeps your bid."""
    rules = short_rules((2,))
    cards = [Play(1, Card.parse("2H")), Play(2, Card.parse("3H")), Play(3, Card.parse("5H"))]
    actions = [deal(["AH 4H", "2H 5C", "3H 6C", "5H 7C"], "2S"), Bid(1, 0), Bid(2, 0), Bid(3, 0), Bid(0, 0)]
    return Record(rules, ("You", "Bob", "Cid", "Dee"), (*actions, *cards, Play(0, Card.parse("AH"))))


def you_blunder(path: Path) -> None:
    dump(you_blunder_record(), path)


def test_the_person_named_you_is_said_as_you(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "you.ohr"
    you_blunder(path)
    code, out, _ = run(capsys, "review", str(path), *QUICK)
    assert code == 0 and "Your marked decisions:" in out
    assert "You's" not in out and "gave You" not in out and "than You" not in out


@pytest.mark.parametrize("answer", ["four of hearts", " 4h ", "Four Of  Hearts", "4 H"])
def test_a_puzzle_takes_a_card_by_its_name_or_code_in_any_case_and_spacing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, answer: str
) -> None:
    path = tmp_path / "you.ohr"
    you_blunder(path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"queen of hearts\n{answer}\n"))
    code, out, _ = run(capsys, "review", str(path), *QUICK, "--puzzles")
    assert code == 0 and "Puzzle 1 of 1 (your position):" in out
    assert "That is not one of the choices: AH 4H." in out  # the queen is not in the hand
    assert "Right: 4H is the best choice." in out and "1 of 1 right." in out
    assert "add --puzzles to play them" not in out  # they follow


@pytest.mark.parametrize("typed", ["q\n", "Q\n", "quit\n"])
def test_the_puzzles_can_be_left(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, typed: str
) -> None:
    path = tmp_path / "you.ohr"
    you_blunder(path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(typed + "4H\n"))
    code, out, _ = run(capsys, "review", str(path), *QUICK, "--puzzles")
    assert code == 0 and "q, or two empty lines in a row, leaves the puzzles" in out
    assert "You left the puzzles: 0 of 0 right." in out and "Right:" not in out


def test_two_empty_lines_leave_the_puzzles() -> None:
    from ohhell.analysis import Budget, review_record
    from ohhell.cli.review import play_puzzles

    review = review_record(you_blunder_record(), seed=1, budget=Budget.scaled(0.03), seats=[0])
    twice = dataclasses.replace(review, puzzles=(review.puzzles[0], review.puzzles[0]))  # two puzzles
    out = io.StringIO()
    right = play_puzzles(twice, [0], io.StringIO("\n\n4H\n"), out)
    text = out.getvalue()
    assert right == 0 and "Puzzle 2 of 2" in text and "Skipped (an empty line again leaves" in text
    assert "You left the puzzles: 0 of 0 right." in text and "Right:" not in text


def test_a_cached_review_says_nothing_of_minutes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "you.ohr"
    you_blunder(path)
    monkeypatch.setattr("ohhell.bots.accel.available", lambda: False)
    code, _, err = run(capsys, "review", str(path), "--budget", "0.03")
    assert code == 0 and "this review may take several minutes" in err
    assert "python3 -m pip install -e '.[fast]'" in err  # as the README says it
    for seat in ([], ["--seat", "Bob"]):  # the whole review serves one seat too
        code, _, err = run(capsys, "review", str(path), "--budget", "0.03", *seat)
        assert code == 0 and "minutes" not in err and "reviewed hand" not in err
