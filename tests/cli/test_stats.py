"""``ohhell stats``: your results against the bots from the matches saved in
``$OHHELL_HOME`` and any records named (cli/stats.py)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ohhell import Record, dump, make_rules
from ohhell.bots import get_bot, play_match
from ohhell.cli import main


def _saved(home: Path, name: str, seed: int, level: str, finished: bool = True) -> list[int]:
    """A match of one person (seat 0) against three bots of ``level``, saved
    as ``ohhell play`` saves it; the person's exact bids and hands."""
    rules = make_rules("okenuff")
    state = play_match(rules, [get_bot("beginner")] + [get_bot(level)] * 3, random.Random(seed))
    log = state.log if finished else state.log[:30]
    record = Record(rules, ("You", "B", "C", "D"), tuple(log), (("kinds", f"human,{level},{level},{level}"),))
    dump(record, home / name)
    return [sum(r.bids[0] == r.tricks[0] for r in state.results), len(state.results)]


def test_stats_count_each_level_exact_bids_and_a_rating(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OHHELL_HOME", str(tmp_path))
    a = _saved(tmp_path, "current-20261201-100000.ohr", 1, "intermediate")
    b = _saved(tmp_path, "current-20261202-100000.ohr", 2, "intermediate")
    c = _saved(tmp_path, "current-20261203-100000.ohr", 3, "random")
    _saved(tmp_path, "current.ohr", 4, "random", finished=False)  # still being played: left out
    assert main(["stats"]) == 0
    out = capsys.readouterr().out
    assert "3 finished matches against bots (1 other records left out)" in out
    rows = {
        line.split()[0]: line.split()
        for line in out.splitlines()
        if line.split()[:1] in (["intermediate"], ["random"])
    }
    assert rows["intermediate"][1] == "2" and rows["random"][1] == "1"
    exact, hands = a[0] + b[0] + c[0], a[1] + b[1] + c[1]
    assert f"Exact bids: {exact} of {hands} hands" in out
    assert "no reviewed match yet" in out
    assert "Rating against the bots: " in out and "(3 matches)" in out


def test_stats_refuse_a_named_file_that_is_not_a_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OHHELL_HOME", str(tmp_path))
    bad = tmp_path / "notes.txt"
    bad.write_text("not a record\n")
    assert main(["stats", str(bad)]) == 2


def test_stats_with_nothing_saved_say_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OHHELL_HOME", str(tmp_path / "none"))
    assert main(["stats"]) == 0
    assert "No finished match against bots yet" in capsys.readouterr().out
