"""``ohhell scoresheet`` (issue 6): the printable PDF score sheet, blank or filled.

Each sheet is rendered with fpdf2 and read back with poppler: ``pdftotext
-layout`` for what is written (one row per hand of the schedule with its size
and dealer, a column group per player, the filled bids, scores and totals) and
``pdftoppm`` for what is drawn (pages, paper shape, ink, grid lines). Without
fpdf2 or poppler-utils the module is skipped, unless OHHELL_TEST_PDF=1, which
makes that a failure (CI must not skip silently).
"""

from __future__ import annotations

import datetime
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ohhell.cli.scoresheet import main
from ohhell.rules import PRESETS, Rules, make_rules
from ohhell.scorekeeper import ScoreGame
from ohhell.scorekeeper.pdf import render, sheet_rows, standings_text
from ohhell.scorekeeper.text import save_sheet as save

REQUIRED = os.environ.get("OHHELL_TEST_PDF") == "1"
MISSING = [b for b in ("pdftotext", "pdftoppm") if shutil.which(b) is None]
try:
    import fpdf  # noqa: F401
except ImportError:  # pragma: no cover - depends on the machine
    MISSING.append("the Python package fpdf2 (pip install 'ohhell[pdf]')")
if MISSING and not REQUIRED:  # pragma: no cover - depends on the machine
    pytest.skip(
        f"the PDF tests need {', '.join(MISSING)} (apt-get install poppler-utils); "
        "OHHELL_TEST_PDF=1 makes this a failure",
        allow_module_level=True,
    )

NAMES4 = ["Ann", "Bob", "Cid", "Dee"]
NAMES7 = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus"]
DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf")
ROW = re.compile(r"^\s*(\d+|tie)\s+(\d+)\s+(\S+)(.*)$")


# ---------------------------------------------------------------- helpers


def pdf_text(path: Path) -> list[str]:
    """The text of each page, laid out as printed."""
    done = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    )
    return [page for page in done.stdout.split("\f") if page.strip()]


def rows_of(page: str) -> list[tuple[str, int, str, list[str]]]:
    """(hand, cards, dealer, the other cells) for each line of the table."""
    out = []
    for line in page.splitlines():
        found = ROW.match(line)
        if found:
            hand, cards, dealer, rest = found.groups()
            out.append((hand, int(cards), dealer, rest.split()))
    return out


def pgm_pages(path: Path, tmp: Path, dpi: int = 50) -> list[tuple[int, int, bytes]]:
    """Render every page with ``pdftoppm -gray`` as PGM: (width, height, pixels) per page."""
    prefix = tmp / f"{path.stem}-img"
    subprocess.run(["pdftoppm", "-gray", "-r", str(dpi), str(path), str(prefix)], check=True)
    pages = []
    for image in sorted(tmp.glob(f"{prefix.name}-*.pgm")):
        data = image.read_bytes()
        magic, width, height, depth, pixels = data.split(maxsplit=4)
        assert magic == b"P5" and depth == b"255"
        w, h = int(width), int(height)
        pages.append((w, h, pixels[: w * h]))
    return pages


def grid_lines(width: int, height: int, pixels: bytes) -> int:
    """How many horizontal lines cross most of the page (merged when adjacent)."""
    count, previous = 0, False
    for y in range(height):
        row = pixels[y * width : (y + 1) * width]
        ruled = sum(1 for p in row if p < 200) > 0.6 * width
        if ruled and not previous:
            count += 1
        previous = ruled
    return count


def solid_dots(width: int, height: int, pixels: bytes, side: int = 5) -> int:
    """How many separate solid dark spots of at least side x side pixels (text strokes and
    ruled lines are thinner)."""
    starts: list[set[int]] = []
    for y in range(height):
        row = pixels[y * width : (y + 1) * width].translate(bytes(1 if p < 128 else 0 for p in range(256)))
        found: set[int] = set()
        for run in re.finditer(rb"\x01{%d,}" % side, row):
            found.update(range(run.start(), run.end() - side + 1))
        starts.append(found)
    spots: list[tuple[int, int]] = []
    for y in range(height - side + 1):
        common = set.intersection(*starts[y : y + side])
        spots.extend((x, y) for x in common)
    clusters: list[tuple[int, int]] = []
    for x, y in spots:
        if not any(abs(x - cx) <= 3 * side and abs(y - cy) <= 3 * side for cx, cy in clusters):
            clusters.append((x, y))
    return len(clusters)


def play(game: ScoreGame, hands: int, seed: int = 1) -> None:
    """Enter ``hands`` hands of legal random bids and tricks."""
    rnd = random.Random(seed)
    for _ in range(hands):
        view = game.current
        assert view is not None
        for seat in view.bidding_order:
            now = game.current
            assert now is not None
            game.bid(seat, rnd.choice([b for b in range(view.size + 1) if b != now.forbidden]))
        now = game.current
        assert now is not None
        if now.needs_trump:
            game.name_trump(None)
        taken = [0] * game.rules.players
        for _ in range(view.size):
            taken[rnd.randrange(game.rules.players)] += 1
        game.tricks(taken)


def sheet(tmp_path: Path, argv: list[str], name: str = "sheet.pdf") -> Path:
    out = tmp_path / name
    assert main([*argv, "-o", str(out)]) == 0
    assert out.read_bytes().startswith(b"%PDF-")
    return out


# ---------------------------------------------------------------- the blank sheet


def test_blank_pagat_sheet_has_a_row_per_hand_with_size_and_dealer(tmp_path: Path) -> None:
    # R-SEQ-DOWNUP: 4 players play 19 hands, 10 down to 1 and back up to 10.
    # R-DEALER-ROTATE: the deal passes left each hand from the dealer given (seat 1: Ann).
    out = sheet(tmp_path, ["--names", "Ann,Bob,Cid,Dee", "--preset", "pagat", "--dealer", "1"])
    pages = pdf_text(out)
    assert len(pages) == 1
    rows = rows_of(pages[0])
    assert [r[0] for r in rows] == [str(k) for k in range(1, 20)]
    assert [r[1] for r in rows] == [*range(10, 0, -1), *range(2, 11)]
    assert [r[2] for r in rows] == [NAMES4[k % 4] for k in range(19)]
    assert all(r[3] == [] for r in rows)  # blank: nothing to read but hand, cards and dealer
    text = pages[0]
    assert "Oh Hell score sheet: Pagat's rules, 4 players" in text and "Ann deals first" in text
    # a column group per player: the names in seat order over four columns each
    heads = [line for line in text.splitlines() if "Ann" in line and "Dee" in line and "Bob" in line]
    assert heads and heads[0].split() == NAMES4
    sub = [line.split() for line in text.splitlines() if "Took" in line]
    assert sub == [["Bid", "Took", "Score", "Total"] * 4]
    assert "Hand Cards" in text and "Dealer" in text
    assert (
        "Hook: the dealer" in text and "10 + the bid" in text and "R-" not in text
    )  # footer: R-SC-PAGAT, R-HOOK


def test_a_blank_sheet_names_no_dealer_when_the_rules_draw(tmp_path: Path) -> None:
    # R-DEALER-DRAW (pagat): nobody knows the first dealer before the draw, so the
    # sheet names none; the rows are still there, the dealer column blank to fill in.
    # --players with names is the old spelling of --names and still works.
    out = sheet(tmp_path, ["--players", "Ann,Bob,Cid,Dee", "--preset", "pagat"])
    text = pdf_text(out)[0]
    assert "The first dealer is drawn" in text and "deals first" not in text
    lines = [line.split() for line in text.splitlines() if re.match(r"^\s*\d+\s+\d+\s*$", line)]
    assert [int(cells[1]) for cells in lines] == [*range(10, 0, -1), *range(2, 11)]  # hand, cards, no dealer
    # common lets the players choose the first dealer: seat 1 unless --dealer says otherwise.
    out = sheet(tmp_path, ["--names", "Ann,Bob,Cid,Dee", "--preset", "common"], "common.pdf")
    assert "Ann deals first" in pdf_text(out)[0]
    assert [r[2] for r in rows_of(pdf_text(out)[0])[:2]] == ["Ann", "Bob"]


def test_blank_sheet_renders_a_ruled_landscape_page(tmp_path: Path) -> None:
    out = sheet(tmp_path, ["--players", "Ann,Bob,Cid,Dee", "--preset", "pagat"])
    pages = pgm_pages(out, tmp_path)
    assert len(pages) == 1
    width, height, pixels = pages[0]
    assert abs(width / height - 297 / 210) < 0.02  # landscape A4
    ink = sum(255 - p for p in pixels) / (255 * len(pixels))
    assert 0.03 < ink < 0.5  # printed, not empty, not black
    lower = pixels[len(pixels) * 3 // 4 :]
    assert min(lower) < 100  # the table reaches the bottom quarter
    # the table's rules: a line above and below every one of the 19 rows, plus the header's
    assert grid_lines(width, height, pixels) >= 20


def test_the_dealer_and_the_paper_are_options(tmp_path: Path) -> None:
    # R-DEALER-ROTATE from the dealer named; --paper letter is wider than tall and squarer than A4.
    out = sheet(tmp_path, ["--players", "Ann,Bob,Cid,Dee", "--dealer", "cid", "--paper", "letter"])
    rows = rows_of(pdf_text(out)[0])
    assert [r[2] for r in rows[:5]] == ["Cid", "Dee", "Ann", "Bob", "Cid"]
    width, height, _ = pgm_pages(out, tmp_path)[0]
    assert abs(width / height - 279.4 / 215.9) < 0.02


def test_a_rule_option_changes_the_rows(tmp_path: Path) -> None:
    # R-SEQ-UP with 5 players; R-TRUMP-ROTATE shows each hand's trump; R-SEQ-FIXED for a count of players.
    out = sheet(tmp_path, ["--names", "A,B,C,D,E", "--sequence", "up", "--trump", "rotate", "--dealer", "A"])
    rows = rows_of(pdf_text(out)[0])
    assert [r[1] for r in rows] == list(range(1, 11))
    rotation = PRESETS["pagat"].trump_rotation
    symbols = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
    if DEJAVU.is_file():
        expected = [symbols[s.letter] if s is not None else "NT" for s in rotation]
    else:  # pragma: no cover - depends on the machine
        expected = [s.letter if s is not None else "NT" for s in rotation]
    assert [r[3] for r in rows[:4]] == [[t] for t in expected]
    argv = ["--players", "3", "--sequence", "fixed", "--fixed-hands", "4", "--dealer", "1"]
    out = sheet(tmp_path, argv, "three.pdf")
    rows = rows_of(pdf_text(out)[0])
    assert [(r[1], r[2]) for r in rows] == [(10, "Player"), (10, "Player"), (10, "Player"), (10, "Player")]


def test_tie_break_hands_get_spare_rows(tmp_path: Path) -> None:
    # R-TIE-EXTRA (classic-tens): two spare lines for hands of the last size after the 19.
    out = sheet(tmp_path, ["--names", "Ann,Bob,Cid,Dee", "--preset", "classic-tens", "--dealer", "Ann"])
    rows = rows_of(pdf_text(out)[0])
    assert len(rows) == 21
    assert [r[:3] for r in rows[-2:]] == [("tie", 10, "Dee"), ("tie", 10, "Ann")]


def test_seven_players_and_25_hands_fit_one_readable_page(tmp_path: Path) -> None:
    argv = ["--names", ",".join(NAMES7), "--sequence", "fixed", "--fixed-hands", "25", "--start-cards", "7"]
    argv += ["--dealer", "1"]
    out = sheet(tmp_path, argv)
    pages = pdf_text(out)
    assert len(pages) == 1
    rows = rows_of(pages[0])
    assert len(rows) == 25 and [r[2] for r in rows] == [NAMES7[k % 7] for k in range(25)]
    assert [line.split() for line in pages[0].splitlines() if "Took" in line] == [
        ["Bid", "Took", "Score", "Total"] * 7
    ]
    width, height, pixels = pgm_pages(out, tmp_path, dpi=72)[0]
    assert grid_lines(width, height, pixels) >= 26


def test_a_long_game_flows_to_a_second_page_with_the_header_repeated(tmp_path: Path) -> None:
    sizes = ",".join(["5"] * 40)
    out = sheet(tmp_path, ["--names", ",".join(NAMES7), "--hand-sizes", sizes, "--dealer", "1"])
    pages = pdf_text(out)
    assert len(pages) == 2
    numbers = [r[0] for page in pages for r in rows_of(page)]
    assert numbers == [str(k) for k in range(1, 41)]
    for number, page in enumerate(pages, 1):
        assert "Oh Hell score sheet" in page and f"Page {number} of 2" in page
        assert [line.split() for line in page.splitlines() if "Took" in line] == [
            ["Bid", "Took", "Score", "Total"] * 7
        ]
        assert any(line.split() == NAMES7 for line in page.splitlines())
    assert len(pgm_pages(out, tmp_path)) == 2


# ---------------------------------------------------------------- the filled sheet


def test_a_filled_sheet_shows_the_scorekeepers_numbers(tmp_path: Path) -> None:
    # R-SC-PAGAT scores, running totals and the standings (R-WIN) as ScoreGame computes them.
    game = ScoreGame(PRESETS["pagat"], NAMES4, first_dealer=1)
    play(game, 19, seed=7)
    assert game.is_over
    path = tmp_path / "game.json"
    save(game, path)
    out = sheet(tmp_path, ["--from", str(path)])
    text = pdf_text(out)[0]
    rows = rows_of(text)
    assert len(rows) == 19
    for (hand, cards, dealer, cells), view in zip(rows, game.hands, strict=True):
        assert (hand, cards, dealer) == (str(view.number), view.size, game.players[view.dealer])
        assert view.scores is not None and view.tricks is not None
        assert len(cells) == 16  # no trump known: a turned card not noted (R-TRUMP-TURN)
        for seat in range(4):
            bid, took, score, total = cells[4 * seat : 4 * seat + 4]
            assert (int(bid), int(took), int(score)) == (
                view.bids[seat],
                view.tricks[seat],
                view.scores[seat],
            )
            assert int(total) == view.totals[seat]
    last = [int(c) for c in rows[-1][3][3::4]]
    assert tuple(last) == game.totals
    line = standings_text(game)
    assert line.startswith("Final standings: 1. ")
    assert " ".join(line.split()) in " ".join(text.split())
    assert "Blob" in text
    assert "Date ____" not in text  # a filled sheet fills its date: today's, as the file has none
    assert f"Date {datetime.date.today().isoformat()}" in text


def test_a_filled_sheet_gives_the_games_date(tmp_path: Path) -> None:
    game = ScoreGame(PRESETS["pagat"].replace(hand_sizes=(2, 1)), NAMES4, first_dealer=0, date="2026-11-27")
    play(game, 1, seed=3)
    path = tmp_path / "game.json"
    save(game, path)
    text = pdf_text(sheet(tmp_path, ["--from", str(path)]))[0]
    assert "Date 2026-11-27" in text
    blank = pdf_text(sheet(tmp_path, ["--names", ",".join(NAMES4), "--hand-sizes", "3,2"], "blank.pdf"))[0]
    assert "Date ____" in blank  # a blank sheet leaves it to be written in
    assert "hand-sizes" not in blank and "hands of 3 and 2 cards" in blank  # the title in words


def test_blobs_are_drawn_for_missed_bids(tmp_path: Path) -> None:
    # A blob (a solid dot) by the score of each missed bid, and nowhere else.
    rules = make_rules("pagat", {"sequence": "fixed", "fixed-hands": "1"})
    for folder, tricks in (("one", [0, 3, 2, 5]), ("three", [1, 2, 3, 4])):
        game = ScoreGame(rules, NAMES4, 0)
        for seat, bid in ((1, 3), (2, 2), (3, 4), (0, 0)):
            game.bid(seat, bid)
        game.tricks(tricks)
        (tmp_path / folder).mkdir()
        out = tmp_path / folder / "sheet.pdf"
        out.write_bytes(render(game))
        width, height, pixels = pgm_pages(out, tmp_path / folder, dpi=100)[0]
        expected = {"one": 1, "three": 3}[folder]
        assert solid_dots(width, height, pixels) == len(game.hands[0].missed) == expected


def test_an_unfinished_okenuff_sheet_with_a_revoke(tmp_path: Path) -> None:
    # R-SC-OKENUFF (no trump doubles), R-REVOKE marked R, R-SETTLE in the standings line,
    # and blank rows for the hands still to come (R-SEQ-OKENUFF: 13 hands).
    game = ScoreGame(PRESETS["okenuff"], NAMES4, first_dealer=3)
    play(game, 5, seed=3)
    game.revoke(1, 2)
    out = tmp_path / "okenuff.pdf"
    out.write_bytes(render(game))
    text = pdf_text(out)[0]
    rows = rows_of(text)
    assert [r[1] for r in rows] == list(PRESETS["okenuff"].schedule)
    assert [r[2] for r in rows] == [NAMES4[(3 + k) % 4] for k in range(13)]
    filled, blank = rows[:5], rows[5:]
    assert all(r[3][0] == "NT" for r in filled)  # named no trump by the highest bidder (R-TRUMP-BIDDER)
    assert all(r[3] == [] for r in blank)
    bob_score = filled[1][3][1 + 4 * 1 + 2]
    hand2 = game.hands[1]
    assert hand2.scores is not None
    assert bob_score == f"{hand2.scores[1]}R"
    assert [int(t) for t in filled[-1][3][4::4]] == list(game.totals)
    assert "Standings after hand 5" in text and "Settlement" in text and "R-" not in text


def test_teams_and_names_outside_latin1(tmp_path: Path) -> None:
    # R-TEAMS: the standings name sides; the footer lists the teams.
    rules = make_rules("pagat", {"players": "6", "teams": "0+3,1+4,2+5"})
    names = ["Ann", "Bob", "Cid", "Dee", "Łukasz", "Zoë"]
    game = ScoreGame(rules, names, 0)
    play(game, 3)
    out = tmp_path / "teams.pdf"
    out.write_bytes(render(game))
    text = pdf_text(out)[0]
    assert "team 2: Bob + Łukasz" in text if DEJAVU.is_file() else "team 2: Bob + Lukasz" in text
    plain = tmp_path / "plain.pdf"
    plain.write_bytes(render(game, font_dir=tmp_path))  # no DejaVu there: core font, letters
    text = pdf_text(plain)[0]
    assert "team 2: Bob + Lukasz" in text and "Zoë" in text
    assert len(rows_of(text)) == len(rules.schedule)


def test_sheet_rows_follow_the_scorekeeper() -> None:
    # Every row's dealer, size and trump are ScoreGame's own (R-DEALER-ROTATE, R-TRUMP-ROTATE).
    rules = Rules(players=5, trump="rotate", first_dealer=2)
    game = ScoreGame(rules, ["A", "B", "C", "D", "E"])
    rows = sheet_rows(game)
    assert len(rows) == len(rules.schedule)
    play(game, len(rules.schedule), seed=5)
    for row, view in zip(rows, game.hands, strict=True):
        assert (row.view.size, row.view.dealer, row.view.trump) == (view.size, view.dealer, view.trump)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "Ann,Bob", "--preset", "pagat"], "3 to 7 players"),
        (["--players", "Ann,Bob,Cid,Dee,Eve", "--preset", "okenuff"], "exactly 4 players"),
        (["--names", "Ann,Bob,Cid", "--players", "4"], "4 players, but 3 names"),
        (["--players", "Ann,Bob,Cid", "--names", "Ann,Bob,Cid"], "give the names once"),
        (["--names", "Ann,Bob,Cid", "--dealer", "4"], "seats are numbered 1 to 3"),
        (["--names", "Ann,Bob,Cid", "--first-dealer", "0"], "seats are numbered 1 to 3"),
        (["--names", "Ann,Bob,Cid", "--first-dealer", "2", "--dealer", "Bob"], "give only one"),
        (["--players", "Ann,Bob,ann"], "the same name"),
        (["--players", "Ann,Bob,Cid", "--dealer", "Zed"], "not one of the players"),
        (["--preset", "common"], "who plays?"),
        (["--players", "Ann,Bob,Cid", "--preset", "nope"], "unknown preset"),
        (["--players", "Ann,Bob,Cid", "--hook", "maybe"], "yes or no"),
    ],
)
def test_bad_input_exits_2_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    out = tmp_path / "sheet.pdf"
    assert main([*argv, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ohhell scoresheet: ") and message in err
    assert not out.exists()


def test_bad_output_and_bad_source_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no" / "such" / "sheet.pdf"
    assert main(["--players", "Ann,Bob,Cid,Dee", "-o", str(missing)]) == 2
    assert "the folder" in capsys.readouterr().err and not missing.parent.exists()
    assert main(["--players", "Ann,Bob,Cid,Dee", "-o", str(tmp_path)]) == 2
    assert "it is a folder" in capsys.readouterr().err
    game = tmp_path / "game.json"
    save(ScoreGame(PRESETS["common"], NAMES4), game)
    assert main(["--from", str(game), "--preset", "pagat", "-o", str(tmp_path / "x.pdf")]) == 2
    assert "its own rules and players" in capsys.readouterr().err
    assert main(["--from", str(tmp_path / "nope.json"), "-o", str(tmp_path / "x.pdf")]) == 2
    assert "cannot read" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{}", encoding="utf-8")
    assert main(["--from", str(tmp_path / "bad.json"), "-o", str(tmp_path / "x.pdf")]) == 2
    assert "not an ohhell-scoresheet file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:  # argparse: -o is required
        main(["--players", "Ann,Bob,Cid"])
    assert exc.value.code == 2


def test_without_fpdf2_the_error_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "fpdf", None)  # import fpdf now raises ImportError
    assert main(["--players", "Ann,Bob,Cid,Dee", "-o", str(tmp_path / "x.pdf")]) == 2
    assert "ohhell[pdf]" in capsys.readouterr().err


def test_the_module_runs_as_a_command(tmp_path: Path) -> None:
    out = tmp_path / "sheet.pdf"
    done = subprocess.run(
        [sys.executable, "-m", "ohhell.cli.scoresheet", "--players", "Ann,Bob,Cid", "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "blank sheet of 19 rows" in done.stdout and out.is_file()
