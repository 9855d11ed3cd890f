"""The full screen never stops a person who presses only bids and cards: the
score sheet after a hand goes on by itself after a countdown shown on it (any
key sooner, q saves and quits there), and a first digit that may start a
longer bid is taken as the bid after a short countdown."""

from __future__ import annotations

import asyncio
import html
import re
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("textual", reason="the full-screen app needs Textual: pip install -e '.[tui]'")

from ohhell import Bid, Play, load, make_rules
from ohhell.terminal.fullscreen.app import OhHellApp
from ohhell.terminal.fullscreen.screens import FinalScreen, ScoreScreen
from ohhell.terminal.fullscreen.widgets import CARD_KEYS
from ohhell.terminal.session import Session

SIZE = (100, 30)


def screen_text(app: OhHellApp) -> str:
    svg = app.export_screenshot()
    parts = re.findall(r"<text[^>]*>(.*?)</text>", svg, flags=re.S)
    return "".join(html.unescape(t) for t in parts).replace("\xa0", " ")


async def press_only_bids_and_cards(pilot: Any, app: OhHellApp, seen: set[str], limit: float = 120) -> None:
    """Bid 1 (or 2 when the hook forbids 1) and play the first playable card;
    press nothing else, ever. Notes in ``seen`` what the screen said."""
    s = app.session
    deadline = time.monotonic() + limit
    while not isinstance(app.screen, FinalScreen):
        assert time.monotonic() < deadline, f"the match stopped: {app.mode()}, {type(app.screen).__name__}"
        await pilot.pause(0.05)
        text = screen_text(app)
        if isinstance(app.screen, ScoreScreen):
            said = r"The (next hand|final standings) in \d s\. Any key goes on now; q saves and quits\."
            if re.search(said, text):
                seen.add("sheet countdown")
            continue
        mode = app.mode()
        obs = s.observation()
        if mode == "bid" and not app.digits:
            bid = 1 if Bid(s.human, 1) in obs.legal_actions else 2
            await pilot.press(str(bid))
        elif mode == "bid" and re.search(r"so far 1: another digit, or Enter; 1 in \d s", text):
            seen.add("digit countdown")
        elif mode == "play":
            legal = {a.card for a in obs.legal_actions if isinstance(a, Play)}
            index = next(i for i, c in enumerate(app.slots) if c is not None and c in legal)
            await pilot.press(CARD_KEYS[index])


def test_a_match_pressing_only_bids_and_cards_finishes(tmp_path: Path) -> None:
    # A 10-card hand: its bid of 1 might start 10, so it waits a little for a second digit.
    rules = make_rules("pagat", {"hand-sizes": "10,2", "first-dealer": "3"})
    session = Session.new(rules, seed=4, save_path=tmp_path / "m.ohr", change_grace=0.5)
    app = OhHellApp(session, pause=0, trick_pause=0, sheet_pause=2)
    seen: set[str] = set()

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press_only_bids_and_cards(pilot, app, seen)
            await pilot.press("q")

    asyncio.run(go())
    assert seen == {"sheet countdown", "digit countdown"}
    state = load(tmp_path / "m.ohr").replay()
    assert state.is_over
    bids = [a.bid for a in state.log if isinstance(a, Bid) and a.seat == session.human]
    first = bids[0]
    assert first in (1, 2) and len(bids) >= 2  # the lone "1" was taken as a bid of 1, not lost


def test_on_the_sheet_any_key_goes_on_and_q_saves_and_quits(tmp_path: Path) -> None:
    rules = make_rules("pagat", {"hand-sizes": "1,1,1"})
    session = Session.new(rules, seed=2, save_path=tmp_path / "m.ohr", change_grace=0)
    app = OhHellApp(session, pause=0, trick_pause=0, sheet_pause=600)  # a wait no test sees end

    async def to_sheet(pilot: Any) -> None:
        deadline = time.monotonic() + 60
        while not isinstance(app.screen, ScoreScreen):
            assert time.monotonic() < deadline
            await pilot.pause(0.05)
            obs = session.observation()
            if app.mode() == "bid":
                await pilot.press("0")
            elif app.mode() == "play":
                legal = {a.card for a in obs.legal_actions if isinstance(a, Play)}
                await pilot.press(CARD_KEYS[next(i for i, c in enumerate(app.slots) if c in legal)])

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await to_sheet(pilot)
            assert "The next hand in 600 s" in screen_text(app)
            await pilot.press("x")  # any key: on at once
            await pilot.pause(0.1)
            assert not isinstance(app.screen, ScoreScreen)
            await to_sheet(pilot)
            await pilot.press("q")
            await pilot.pause(0.1)

    asyncio.run(go())
    assert app.return_value == "quit"
    assert len(load(tmp_path / "m.ohr").replay().results) == 2  # saved where it stopped
