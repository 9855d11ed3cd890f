"""Screenshots of `ohhell play` for the docs: SVG files next to this script.

Drives the full-screen app through Textual's test harness, as the tests do,
and saves the main screens: bidding, a trick being played, the score sheet,
the final standings, a Devil's Bridge hand and the rules. Seeds are fixed, so
running it again gives the same pictures (unless the bots change).

    python docs/screenshots/make.py [--size 100x30]

Needs the tui extra: python3 -m pip install -e '.[tui]'.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from ohhell import Bid, make_rules
from ohhell.terminal.fullscreen.app import OhHellApp
from ohhell.terminal.fullscreen.screens import FinalScreen, RulesScreen, ScoreScreen
from ohhell.terminal.session import Session

HERE = Path(__file__).parent
OUT = HERE


async def settle(pilot: Any, app: OhHellApp) -> None:
    for _ in range(2000):
        await pilot.pause(0)
        if app.ready:
            await pilot.pause()
            return
    raise RuntimeError(f"the app did not settle: {app.mode()}")


async def move(pilot: Any, app: OhHellApp) -> None:
    """A plain human: bids its aces and kings, names hearts, plays the first playable card."""
    obs = app.session.observation()
    mode = app.mode()
    if mode in ("change", "continue"):
        await pilot.press("enter")
    elif mode == "bid":
        legal = [a.bid for a in obs.legal_actions if isinstance(a, Bid)]
        target = sum(1 for c in obs.hand if c.rank >= 13)
        await pilot.click(f"#bid-{min(legal, key=lambda b: (abs(b - target), b))}")
    elif mode == "trump":
        await pilot.press("3")
    elif mode == "play":
        if obs.devils_bridge:
            await pilot.press("1")
            return
        await pilot.press("enter")  # the cursor starts on the first playable card


async def shoot(size: tuple[int, int]) -> list[Path]:
    saved: list[Path] = []

    def save(app: OhHellApp, name: str) -> None:
        path = OUT / f"{name}.svg"
        path.write_text(
            app.export_screenshot(title=f"ohhell play: {name.replace('-', ' ')}"), encoding="utf-8"
        )
        saved.append(path)

    # A pagat match of a few hands: bidding, a trick, the score sheet, the rules, the end.
    rules = make_rules("pagat", {"hand-sizes": "7,6,5"})
    session = Session.new(rules, seed=4, hint_seconds=0.3)
    app = OhHellApp(session, pause=0)
    shots = {"bidding", "play", "score-sheet", "final-standings"}
    async with app.run_test(size=size) as pilot:
        while shots:
            await settle(pilot, app)
            obs = session.observation()
            screen = app.screen
            if isinstance(screen, FinalScreen):
                save(app, "final-standings")
                shots.discard("final-standings")
                break
            if isinstance(screen, ScoreScreen):
                if obs.hand_number == 2 and "score-sheet" in shots:
                    save(app, "score-sheet")
                    shots.discard("score-sheet")
                await pilot.press("enter")
                continue
            if app.mode() == "bid" and obs.hand_number == 0 and "bidding" in shots and any(obs.has_bid):
                await pilot.press("h")
                for _ in range(300):
                    await pilot.pause(0.01)
                    if app.hinted is not None:
                        break
                save(app, "bidding")
                shots.discard("bidding")
            if app.mode() == "play" and len(obs.trick) >= 2 and "play" in shots and obs.hand_number == 1:
                save(app, "play")
                shots.discard("play")
                await pilot.press("question_mark")
                await settle(pilot, app)
                assert isinstance(app.screen, RulesScreen)
                save(app, "rules")
                await pilot.press("escape")
                await settle(pilot, app)
            await move(pilot, app)

    # Devil's Bridge: a 1-card hand where you see every card but your own.
    rules = make_rules("pagat", {"devils-bridge": "yes", "hand-sizes": "1", "players": "5"})
    session = Session.new(rules, seed=3, name="Sam")
    app = OhHellApp(session, pause=0)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        save(app, "devils-bridge")
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="100x30", help="terminal columns x rows (default 100x30)")
    parser.add_argument("--out", default=str(HERE), help="the folder for the SVG files (default: this one)")
    args = parser.parse_args()
    global OUT
    OUT = Path(args.out)
    columns, rows = (int(x) for x in args.size.split("x"))
    for path in asyncio.run(shoot((columns, rows))):
        print(path)


if __name__ == "__main__":
    main()
