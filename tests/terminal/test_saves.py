"""One ``ohhell play`` at a time on a save: a second window is told which
process holds it and offered a match in a file of its own; the clean-up of
matches set aside never deletes an unfinished or open one."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ohhell import load
from ohhell.terminal.saves import SaveHeldError, SaveLock, free_save, is_held, keep_previous, lock_path

GOLDEN = Path(__file__).parents[1] / "golden"


def finished_record() -> str:
    return (GOLDEN / "pagat-2-1.ohr").read_text(encoding="utf-8")


def unfinished_record() -> str:
    lines = finished_record().splitlines()
    return "\n".join(lines[: lines.index("play 1 3C")]) + "\n"


def test_a_held_save_cannot_be_taken_again_until_it_is_let_go(tmp_path: Path) -> None:
    path = tmp_path / "m.ohr"
    lock = SaveLock.take(path)
    assert is_held(path) and lock_path(path).read_text().strip() == str(os.getpid())
    with pytest.raises(SaveHeldError, match=f"open in another ohhell play \\(process {os.getpid()}\\)"):
        SaveLock.take(path)
    other, other_lock = free_save(path)
    assert other == tmp_path / "m-2.ohr" and is_held(other)
    assert free_save(path)[0] == tmp_path / "m-3.ohr"  # m-2 is held by this test
    other_lock.release()
    lock.release()
    assert not is_held(path)
    SaveLock.take(path).release()


def test_only_finished_matches_set_aside_are_deleted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "my-game.ohr"
    older = [tmp_path / f"my-game-20240101-12000{k}.ohr" for k in range(6)]
    for p in older:
        p.write_text(finished_record())
    older[0].write_text(unfinished_record())  # the oldest, unfinished: may still be resumed
    older[1].write_text("not a record")  # not one it can read: not its to delete
    held = SaveLock.take(older[2])  # open in a window now
    other = tmp_path / "my-game-notes.ohr"  # not one moved aside: never touched
    other.write_text("mine")
    stamps = iter(["20250101-120000", "20250101-120000"])
    monkeypatch.setattr("ohhell.terminal.saves._timestamp", lambda: next(stamps))
    path.write_text(unfinished_record())
    first = keep_previous(path, keep=3)
    path.write_text(finished_record())
    second = keep_previous(path, keep=3)  # the same second: a -2 name
    held.release()
    assert first is not None and second is not None and second.name == "my-game-20250101-120000-2.ohr"
    left = {p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")}
    assert left == {
        older[0].name,
        older[1].name,
        older[2].name,
        older[5].name,
        first.name,
        second.name,
        "my-game-notes.ohr",
    }
    assert first.read_text() == unfinished_record() and other.read_text() == "mine"


def start_play(*args: str, home: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "ohhell", "play", "--plain", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "OHHELL_HOME": str(home), "NO_COLOR": "1"},
    )


def read_until(proc: subprocess.Popen[bytes], words: str, seconds: float = 60) -> str:
    """What the process wrote until ``words`` appear (or the time is up)."""
    assert proc.stdout is not None
    fd, text = proc.stdout.fileno(), ""
    deadline = time.monotonic() + seconds
    while words not in text:
        assert time.monotonic() < deadline and proc.poll() is None, text[-2000:]
        if select.select([fd], [], [], 0.5)[0]:
            text += os.read(fd, 65536).decode()
    return text


def play(*args: str, home: Path, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ohhell", "play", "--plain", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "OHHELL_HOME": str(home), "NO_COLOR": "1"},
        check=False,
    )


def test_a_second_play_on_a_held_save_is_refused_and_both_records_stay_whole(tmp_path: Path) -> None:
    home = tmp_path / "home"
    save = home / "current.ohr"
    first = start_play("--seed", "5", "--hand-sizes", "2,1", home=home)
    try:
        read_until(first, "Your bid")
        before = save.read_bytes()
        held = f"The match saved in {save} is open in another ohhell play (process {first.pid})"

        # A second window declines the match in another file: nothing changes.
        declined = play(home=home, stdin="n\n")
        assert declined.returncode == 1, declined.stdout + declined.stderr
        assert held in declined.stdout and "Nothing was started." in declined.stdout
        assert "Resume it?" not in declined.stdout and "Traceback" not in declined.stderr

        # It accepts: its match is saved in current-2.ohr, the first one's untouched.
        second = play("--seed", "7", "--hand-sizes", "2,1", home=home, stdin="y\n")
        assert (
            held in second.stdout
            and f"Start a new match, saved in {home / 'current-2.ohr'}?" in second.stdout
        )
        assert f"ohhell play --resume {home / 'current-2.ohr'}" in second.stderr

        # --new starts in a file of its own without asking, and sets nothing aside.
        third = play("--new", "--hand-sizes", "1", home=home, stdin="")
        assert held in third.stdout and f"--resume {home / 'current-3.ohr'}" in third.stderr

        # --resume of the held save is refused in one line, saying who holds it.
        resumed = play("--resume", home=home, stdin="")
        assert resumed.returncode == 2 and resumed.stdout == ""
        assert resumed.stderr.splitlines() == [
            f"ohhell play: the match saved in {save} is open in another ohhell play (process {first.pid}): "
            "go on with it in that window, or start another match with: ohhell play --new"
        ]
        assert save.read_bytes() == before
        assert sorted(p.name for p in home.glob("*.ohr")) == ["current-2.ohr", "current-3.ohr", "current.ohr"]

        # The first window plays on, in its own file.
        assert first.stdin is not None
        first.stdin.write(b"0\n")
        first.stdin.close()
        first.wait(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    mine, theirs = load(save), load(home / "current-2.ohr")
    assert dict(mine.tags)["seed"] == "5" and dict(theirs.tags)["seed"] == "7"
    assert any(
        f"bid {dict(mine.tags)['human']} 0" == f"bid {a.seat} {a.bid}"
        for a in mine.actions
        if hasattr(a, "bid")
    )
    mine.replay()
    theirs.replay()
    assert not is_held(save)  # let go when its process ended


def test_an_option_error_is_said_before_the_saved_match_is_touched(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    save = home / "current.ohr"
    save.write_text(unfinished_record())
    for args, words in (
        (["--level", "god"], "--level: unknown bot level 'god': the levels are "),
        (["--think", "-1"], "--think: '-1': the expert needs some time to think"),
        (["--think", "0"], "--think: '0': the expert needs some time to think"),
        (["--new", "--seat", "9"], "--seat takes a number from 1 to 4, not '9'"),
        (["--name", "x" * 40], "--name takes a name of at most 24"),
    ):
        done = play(*args, home=home, stdin="y\n")
        assert done.returncode == 2 and done.stdout == "", (args, done.stdout)
        assert done.stderr.startswith(f"ohhell play: {words}"), (args, done.stderr)
        assert [p.name for p in home.glob("*.ohr")] == ["current.ohr"]
        assert save.read_text() == unfinished_record()
