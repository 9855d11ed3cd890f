"""Every command that reads a file refuses one that is not UTF-8 text (an
image, a gzip file, Latin-1 text) in one line with exit 2: no traceback."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ohhell.cli import main

GOLDEN = Path(__file__).parents[1] / "golden"

# Each command that reads a file the person names, and how the file is named.
COMMANDS = {
    "replay": ["replay"],
    "review": ["review"],
    "play --resume": ["play", "--plain", "--resume"],
    "score --file": ["score", "--file"],
    "scoresheet --from": ["scoresheet", "-o", "{out}", "--from"],
}


def not_text_files(folder: Path) -> dict[str, Path]:
    """A PNG image, a gzip file of a real record, and a record saved in Latin-1."""
    record = (GOLDEN / "pagat-2-1.ohr").read_text(encoding="utf-8")
    png = folder / "table.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    packed = folder / "match.ohr.gz"
    packed.write_bytes(gzip.compress(record.encode()))
    latin = folder / "latin.ohr"
    latin.write_bytes(record.replace("seat 0 ", "seat 0 Zoé ", 1).encode("latin-1"))
    return {"binary": png, "gzip": packed, "latin-1": latin}


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OHHELL_HOME", str(tmp_path / "home"))


@pytest.mark.parametrize("kind", ["binary", "gzip", "latin-1"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_file_that_is_not_text_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, kind: str
) -> None:
    path = not_text_files(tmp_path)[kind]
    before = path.read_bytes()
    argv = [a.format(out=tmp_path / "sheet.pdf") for a in COMMANDS[command]] + [str(path)]
    code = main(argv)
    out, err = capsys.readouterr()
    name = argv[0]
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and err.startswith(f"ohhell {name}: cannot read {path}: "), err
    assert "Traceback" not in err and "Error" not in err
    words = {"binary": "PNG image", "gzip": "gzip", "latin-1": "is not UTF-8 text (byte 0xe9)"}[kind]
    assert words in err
    assert path.read_bytes() == before  # refused, not changed
    assert not (tmp_path / "sheet.pdf").exists()


def test_a_resumed_match_from_a_gzip_file_says_so_from_a_real_process(tmp_path: Path) -> None:
    path = not_text_files(tmp_path)["gzip"]
    env = {**os.environ, "OHHELL_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-m", "ohhell", "play", "--resume", str(path)],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"ohhell play: cannot read {path}: this is a gzip-compressed file, not a game record (which is text)"
    ]


def test_a_record_with_a_byte_order_mark_still_reads(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "bom.ohr"
    path.write_bytes(b"\xef\xbb\xbf" + (GOLDEN / "pagat-2-1.ohr").read_bytes())
    assert main(["replay", str(path)]) == 0
    assert "Hand 1:" in capsys.readouterr().out
