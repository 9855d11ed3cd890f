"""The full screen at the sizes people's terminals have: at 80x24 every
dealer's D is shown whole next to the longest name and level; at 60x20 the
footer still shows the way out (q)."""

from __future__ import annotations

import asyncio
import html
import re
from pathlib import Path

import pytest

pytest.importorskip("textual", reason="the full-screen app needs Textual: pip install -e '.[tui]'")

from ohhell import make_rules
from ohhell.terminal.fullscreen.app import OhHellApp
from ohhell.terminal.fullscreen.layout import COMPACT, FULL
from ohhell.terminal.session import Session

CELL = 12.2
"""The width of a character cell in Textual's SVG screenshot."""


def screen_lines(app: OhHellApp) -> list[str]:
    """The screen's rows as text, each character in its column, from Textual's
    SVG screenshot (each piece of text names its row and starts at its column)."""
    width, height = app.size
    grid = [[" "] * width for _ in range(height)]
    pieces = re.findall(
        r'<text[^>]* x="([\d.]+)"[^>]*line-(\d+)\)">(.*?)</text>', app.export_screenshot(), re.S
    )
    for x, row, text in pieces:
        column = round(float(x) / CELL) - 1  # the screen starts one cell in
        for i, char in enumerate(html.unescape(text).replace("\xa0", " ")):
            if 0 <= column + i < width and int(row) < height:
                grid[int(row)][column + i] = char
    return ["".join(row).rstrip() for row in grid]


def first_screen(tmp_path: Path, size: tuple[int, int], dealer: int) -> tuple[list[str], str | None]:
    rules = make_rules("pagat", {"first-dealer": str(dealer)})
    session = Session.new(rules, seed=1, save_path=tmp_path / f"m{dealer}.ohr")
    app = OhHellApp(session, pause=0)

    async def go() -> tuple[list[str], str | None]:
        async with app.run_test(size=size) as pilot:
            for _ in range(400):  # until the bid is asked and the footer drawn
                await pilot.pause(0.05)
                if app.mode() == "bid" and screen_lines(app)[-1]:
                    break
            return screen_lines(app), app.layout

    return asyncio.run(go())


@pytest.mark.parametrize("dealer", [1, 2, 3])
def test_at_80x24_the_dealers_d_is_whole(tmp_path: Path, dealer: int) -> None:
    lines, layout = first_screen(tmp_path, (80, 24), dealer)
    name = ("Ada", "Bruno", "Chloe")[dealer - 1]
    assert layout == FULL
    assert any(re.search(rf"\b{name} \(intermediate\) D\b", line) for line in lines), "\n".join(lines)
    assert "…" not in "\n".join(lines[:6])  # no name or level cut short
    assert "q Save & quit" in lines[-1]


def test_at_60x20_the_footer_keeps_the_quit_key(tmp_path: Path) -> None:
    lines, layout = first_screen(tmp_path, (60, 20), 3)
    assert layout == COMPACT
    assert lines[-1].lstrip().startswith("q Save & quit") and "l Log" in lines[-1], lines[-1]
    assert any(re.search(r"\bChloe D\b", line) for line in lines)
