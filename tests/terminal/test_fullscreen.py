"""The full-screen app of `ohhell play`, driven through Textual's test harness
(`App.run_test`) by key presses and clicks: whole short matches in several
rule sets, bids refused with the reason, the hint, the rules and score-sheet
screens, quit and resume, Ctrl-C, and no hidden card ever on the screen."""

from __future__ import annotations

import asyncio
import html
import io
import math
import re
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("textual", reason="the full-screen app needs Textual: pip install -e '.[tui]'")

from rich.console import Console
from textual.widgets import RichLog, Static

from ohhell import Action, Bid, Card, NameTrump, Observation, Phase, Play, Suit, TrumpMode, load, make_rules
from ohhell.describe import sort_hand
from ohhell.terminal.fullscreen.app import OhHellApp
from ohhell.terminal.fullscreen.layout import need
from ohhell.terminal.fullscreen.screens import FinalScreen, RulesScreen, ScoreScreen
from ohhell.terminal.fullscreen.widgets import CARD_KEYS
from ohhell.terminal.session import Next, Session
from ohhell.view import can_see_hand

SIZE = (100, 30)
CARD_ON_SCREEN = re.compile(r"(10|[2-9JQKA])([♣♦♥♠])")
SUITS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}


def run(coro: Awaitable[Any]) -> Any:
    return asyncio.run(coro)  # type: ignore[arg-type]


def screen_text(app: OhHellApp) -> str:
    """The characters on the screen now, from Textual's SVG screenshot."""
    svg = app.export_screenshot()
    parts = re.findall(r"<text[^>]*>(.*?)</text>", svg, flags=re.S)
    return "".join(html.unescape(t) for t in parts).replace("\xa0", " ")


def hidden_cards(session: Session) -> set[Card]:
    st = session.state
    if st.phase not in (Phase.BID, Phase.TRUMP, Phase.PLAY):
        return set()
    return {c for s in range(st.players) if not can_see_hand(st, session.human, s) for c in st.hands[s]}


def visible_text(app: OhHellApp) -> str:
    """The text of every widget shown now, and of the log since the current
    hand's deal (earlier lines name cards of earlier deals and of the draw for
    dealer, from other packs, which may hold the same card values)."""
    console = Console(width=200, file=io.StringIO(), record=True)
    for widget in app.screen.query(Static):
        if widget.display and all(getattr(a, "display", True) for a in widget.ancestors):
            console.print(widget.content)
    if app.screen is app.screen_stack[0]:
        lines = [strip.text for strip in app.query_one("#log", RichLog).lines]
        start = max((i for i, t in enumerate(lines) if t.startswith("— Hand")), default=len(lines))
        console.print("\n".join(lines[start:]))
    return console.export_text()


def assert_nothing_hidden_shown(app: OhHellApp) -> None:
    text = visible_text(app)
    shown = {Card.parse(rank + SUITS[suit]) for rank, suit in CARD_ON_SCREEN.findall(text)}
    leaked = shown & hidden_cards(app.session)
    assert not leaked, f"hidden cards on the screen: {leaked}"


async def settle(pilot: Any, app: OhHellApp, timeout: float = 20) -> None:
    """Wait until the app waits for the human (or shows a score sheet or the end)."""
    start = time.monotonic()
    while True:
        await pilot.pause(0)
        if app.ready:
            return
        assert time.monotonic() - start < timeout, f"the app did not settle: mode {app.mode()}"


Step = Callable[[Any, OhHellApp], Awaitable[bool]]


def policy(obs: Observation) -> Action:
    """The test's human: a bid near the high cards held, hearts for trump, the
    first playable card as the hand is shown."""
    legal = obs.legal_actions
    if isinstance(legal[0], Bid):
        target = sum(1 for c in obs.hand if c.rank >= 13)
        if obs.rules.trump is TrumpMode.BIDDER:
            target = obs.hand_size  # bid high, to name trump
        return min(legal, key=lambda a: (abs(a.bid - target), a.bid) if isinstance(a, Bid) else (99, 0))
    if isinstance(legal[0], NameTrump):
        return NameTrump(legal[0].seat, Suit.HEARTS)
    if obs.devils_bridge:
        return legal[0]
    playable = {a.card for a in legal if isinstance(a, Play)}
    return Play(legal[0].seat, next(c for c in sort_hand(obs.hand) if c in playable))


def play_without_screen(session: Session) -> None:
    """The same human as ``human_move``, through the session alone."""
    while not session.is_over:
        if session.next() is not Next.HUMAN:
            session.step()
        elif session.in_change_window:
            session.keep_bid()
        else:
            session.act(policy(session.observation()))


async def human_move(pilot: Any, app: OhHellApp, turn: int, *, click: bool) -> None:
    """One decision of ``policy``, by key or by click."""
    s = app.session
    obs = s.observation()
    mode = app.mode()
    if mode == "change":
        await (pilot.click("#keep") if click else pilot.press("enter"))
        return
    if mode == "continue":
        await pilot.press("enter")
        return
    if mode not in ("bid", "trump", "play"):
        return
    action = policy(obs)
    if isinstance(action, Bid):
        bid = action.bid
        if click:
            await pilot.click(f"#bid-{bid}")
        else:
            await pilot.press(*str(bid))
            if bid > 0 and bid * 10 <= obs.hand_size:  # "1" of a 10-card hand waits for a second digit
                await pilot.press("enter")
    elif isinstance(action, NameTrump):
        await (pilot.click("#trump-2") if click else pilot.press("3"))
    elif isinstance(action, Play):
        if obs.devils_bridge:
            await (pilot.click("#card-0") if click else pilot.press("1"))
            return
        index = app.slots.index(action.card)  # each card keeps the key it was dealt with
        await (pilot.click(f"#card-{index}") if click else pilot.press(CARD_KEYS[index]))


async def play_through(pilot: Any, app: OhHellApp, *, stop_after: int | None = None) -> int:
    """Play to the final screen (or ``stop_after`` decisions), alternating keys
    and clicks; check the screen for hidden cards at every stop."""
    turn = 0
    while True:
        assert turn < 500, "the match does not end: a move is refused again and again"
        await settle(pilot, app)
        assert_nothing_hidden_shown(app)
        if isinstance(app.screen, FinalScreen):
            return turn
        if isinstance(app.screen, ScoreScreen):
            await (pilot.press("enter") if turn % 2 else pilot.click("#score-table"))
            continue
        if stop_after is not None and turn >= stop_after:
            return turn
        await human_move(pilot, app, turn, click=turn % 3 == 2)
        turn += 1


VARIANTS = {
    "pagat": ("pagat", {"hand-sizes": "2,1"}),
    "okenuff": ("okenuff", {"hand-sizes": "2,1"}),
    "simultaneous": (
        "pagat",
        {"bidding": "simultaneous", "hook": "no", "bid-changes": "no", "hand-sizes": "2,1"},
    ),
    "devils-bridge": ("pagat", {"devils-bridge": "yes", "hand-sizes": "2,1"}),
    "teams-7": ("classic-tens", {"teams": "0+2+4,1+3+5+6", "players": "7", "hand-sizes": "2,1"}),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_whole_match_by_keys_and_clicks(tmp_path: Path, variant: str) -> None:
    preset, options = VARIANTS[variant]
    session = Session.new(make_rules(preset, options), seat=1, seed=4, save_path=tmp_path / "m.ohr")
    app = OhHellApp(session, pause=0)

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            assert await play_through(pilot, app) > 0
            text = screen_text(app)
            assert "The match is over" in text and "Final standings" in text and "Score sheet" in text
            await pilot.press("q")
        assert app.return_value == "over"

    run(go())
    assert session.is_over
    assert load(tmp_path / "m.ohr").replay(complete=True).totals == session.state.totals
    if variant == "okenuff":
        assert any(isinstance(a, NameTrump) and a.seat == 1 for a in session.state.log)


def test_bids_marked_the_hook_refused_with_the_reason(tmp_path: Path) -> None:
    rules = make_rules("pagat", {"hand-sizes": "3,2", "first-dealer": "0"})  # seat 0 bids last in hand 1
    for seed in range(1, 30):  # a deal where the hook forbids the human a bid
        probe = Session.new(rules, seed=seed)
        while probe.next() is not Next.HUMAN:
            probe.step()
        if probe.observation().forbidden_bid is not None:
            break
    session = Session.new(rules, seed=seed, save_path=tmp_path / "m.ohr")
    app = OhHellApp(session, pause=0)

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            hook = session.observation().forbidden_bid
            assert hook is not None
            assert app.query_one(f"#bid-{hook}").has_class("forbidden")  # shown as forbidden
            assert f"The hook forbids {hook}" in screen_text(app)
            before = session.moves
            await pilot.press(str(hook))
            await settle(pilot, app)
            assert session.moves == before and "The hook forbids you to bid" in (app.error or "")
            app.error = None
            await pilot.click(f"#bid-{hook}")
            await settle(pilot, app)
            assert session.moves == before and "The hook forbids you" in (app.error or "")
            assert "The hook" in screen_text(app) and "R-" not in screen_text(app)
            await play_through(pilot, app)

    run(go())
    assert session.is_over


def test_a_bid_changed_by_click_then_kept(tmp_path: Path) -> None:
    rules = make_rules("pagat", {"hand-sizes": "3,2", "first-dealer": "3"})  # seat 0 bids first
    session = Session.new(rules, seed=2, save_path=tmp_path / "m.ohr")
    app = OhHellApp(session, pause=0)

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            await pilot.press("1")
            await settle(pilot, app)
            assert app.mode() == "change" and app.query_one("#bid-1").has_class("current")
            assert "change your bid" in screen_text(app)
            await pilot.click("#bid-2")
            await settle(pilot, app)
            assert session.observation().bids[0] == 2 and app.mode() == "change"
            await pilot.press("enter")  # keep 2
            await settle(pilot, app)
            assert app.mode() != "change"
            await play_through(pilot, app)

    run(go())
    assert next(a for a in session.state.log if type(a).__name__ == "ChangeBid").bid == 2


def test_a_card_that_does_not_follow_is_refused(tmp_path: Path) -> None:
    for seed in range(1, 40):
        session = Session.new(make_rules("pagat", {"hand-sizes": "5"}), seed=seed)
        app = OhHellApp(session, pause=0)
        done: list[bool] = []

        async def go(app: OhHellApp = app, session: Session = session, done: list[bool] = done) -> None:
            async with app.run_test(size=SIZE) as pilot:
                for _ in range(20):
                    await settle(pilot, app)
                    obs = session.observation()
                    if app.mode() == "play" and obs.trick:
                        led = obs.trick[0][1].suit
                        cards = app.slots
                        wrong = [i for i, c in enumerate(cards) if c is not None and c.suit is not led]
                        if wrong and any(c is not None and c.suit is led for c in cards):
                            assert app.query_one(f"#card-{wrong[0]}").has_class("illegal")
                            before = session.moves
                            await pilot.press(CARD_KEYS[wrong[0]])
                            await settle(pilot, app)
                            assert session.moves == before
                            assert "You must follow" in (app.error or "") and "R-" not in screen_text(app)
                            done.append(True)
                            return
                    if isinstance(app.screen, ScoreScreen | FinalScreen):
                        return
                    await human_move(pilot, app, 0, click=False)

        run(go())
        if done:
            return
    pytest.fail("no deal let the human try to revoke")


def test_hint_rules_and_score_sheet(tmp_path: Path) -> None:
    session = Session.new(make_rules("okenuff", {"hand-sizes": "3,2"}), seed=5, save_path=tmp_path / "m.ohr")
    app = OhHellApp(session, pause=0, hint_seconds=0.02)

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            await pilot.press("h")
            for _ in range(200):
                await pilot.pause(0.01)
                if app.hinted is not None:
                    break
            assert isinstance(app.hinted, Bid)
            assert app.query_one(f"#bid-{app.hinted.bid}").has_class("hinted")
            assert "Hint: the expert would bid" in screen_text(app)

            await pilot.press("question_mark")
            await settle(pilot, app)
            assert isinstance(app.screen, RulesScreen)
            text = screen_text(app)
            assert "Rules: Okenuff's rules" in text and "highest bidder names a trump suit" in text
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, RulesScreen)

            await pilot.press("s")
            await pilot.pause()
            assert isinstance(app.screen, ScoreScreen)
            await pilot.press("enter")
            await pilot.pause()
            assert not isinstance(app.screen, ScoreScreen)

            await play_through(pilot, app, stop_after=3)  # into the play: a card hint
            while app.mode() != "play":
                await human_move(pilot, app, 0, click=False)
                await settle(pilot, app)
            app.hinted = None
            await pilot.press("h")
            for _ in range(200):
                await pilot.pause(0.01)
                if app.hinted is not None:
                    break
            assert isinstance(app.hinted, Play)
            app_hint_card = app.hinted.card
            slot = app.slots.index(app.hinted.card)
            assert app.query_one(f"#card-{slot}").has_class("hinted")
            assert app.cursor == slot and f"(key {CARD_KEYS[slot]}, or Enter)" in screen_text(app)
            before = session.moves
            await pilot.press("enter")  # Enter plays the hinted card
            await settle(pilot, app)
            log = session.state.log[before:]
            played = [a for a in log if isinstance(a, Play) and a.seat == session.human]
            assert played and played[0].card == app_hint_card

    run(go())


def test_quit_then_resume_ends_as_an_uninterrupted_match(tmp_path: Path) -> None:
    rules = make_rules("pagat", {"hand-sizes": "3,2"})
    whole = Session.new(rules, seed=9)
    play_without_screen(whole)

    path = tmp_path / "m.ohr"
    part = Session.new(rules, seed=9, save_path=path)
    first = OhHellApp(part, pause=0)

    async def half() -> None:
        async with first.run_test(size=SIZE) as pilot:
            await play_through(pilot, first, stop_after=4)
            await pilot.press("q")

    run(half())
    assert first.return_value == "quit"
    assert load(path).actions == tuple(part.state.log) and not part.is_over

    resumed = Session.resume(path)
    second = OhHellApp(resumed, pause=0)

    async def rest() -> None:
        async with second.run_test(size=SIZE) as pilot:
            await settle(pilot, second)
            for _ in range(200):  # the log is drawn a moment after the table
                if "Resumed from" in screen_text(second):
                    break
                await pilot.pause(0.05)
            assert "Resumed from" in screen_text(second)
            await play_through(pilot, second)

    run(rest())
    assert resumed.state.log == whole.state.log


def test_ctrl_c_saves_and_leaves(tmp_path: Path) -> None:
    path = tmp_path / "m.ohr"
    session = Session.new(make_rules("pagat", {"hand-sizes": "3,2"}), seed=3, save_path=path)
    app = OhHellApp(session, pause=0)

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await play_through(pilot, app, stop_after=3)
            await pilot.press("ctrl+c")

    run(go())
    assert app.return_value == "interrupted"
    assert load(path).actions == tuple(session.state.log)


def test_a_finished_trick_stays_until_a_key(tmp_path: Path) -> None:
    session = Session.new(make_rules("pagat", {"hand-sizes": "2"}), seed=6, save_path=tmp_path / "m.ohr")
    app = OhHellApp(session, pause=0, trick_pause=60)

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(30):
                await settle(pilot, app)
                if app.mode() == "continue":
                    text = screen_text(app)
                    assert "the trick with" in text and "wins" in text and "Continue" in text
                    await pilot.press("enter")
                    await settle(pilot, app)
                    assert app.mode() != "continue"
                    return
                await human_move(pilot, app, 0, click=False)
            pytest.fail("no trick was shown")

    run(go())


def test_two_digit_bids_and_arrow_keys(tmp_path: Path) -> None:
    rules = make_rules("pagat", {"hand-sizes": "12,12", "first-dealer": "3", "players": "4"})
    session = Session.new(rules, seed=1, save_path=tmp_path / "m.ohr")
    app = OhHellApp(session, pause=0)

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            await pilot.press("1")  # a bid of 1, 10, 11 or 12: wait for more
            await settle(pilot, app)
            assert app.mode() == "bid" and app.digits == "1" and "so far 1" in screen_text(app)
            await pilot.press("1")
            await settle(pilot, app)
            assert session.observation().bids[0] == 11
            await pilot.press("1", "enter")  # change it to 1
            await settle(pilot, app)
            assert session.observation().bids[0] == 1
            await pilot.press("enter")  # keep
            await settle(pilot, app)
            while app.mode() != "play":
                await human_move(pilot, app, 0, click=False)
                await settle(pilot, app)
            playable = [i for i, c in enumerate(app.slots) if c is not None and c in legal_cards(session)]
            assert app.cursor == playable[0]  # the cursor starts on a playable card
            await pilot.press("right", "right", "left")  # it moves over playable cards only
            assert app.cursor == playable[1 % len(playable)]
            assert app.query_one(f"#card-{app.cursor}").has_class("cursor")
            await pilot.press("left")
            chosen = app.slots[app.cursor]
            before = session.moves
            await pilot.press("enter")
            await settle(pilot, app)
            mine = [a for a in session.state.log[before:] if isinstance(a, Play) and a.seat == session.human]
            assert mine and mine[0].card == chosen

    run(go())


def legal_cards(session: Session) -> set[Card | None]:
    return {a.card for a in session.observation().legal_actions if isinstance(a, Play)}


def test_the_hidden_card_check_catches_a_leak(tmp_path: Path) -> None:
    session = Session.new(make_rules("pagat", {"hand-sizes": "3"}), seed=2)
    app = OhHellApp(session, pause=0)

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            assert_nothing_hidden_shown(app)
            other = session.state.hands[(session.human + 1) % 4][0]
            app.query_one("#status", Static).update(other.pretty)
            await pilot.pause()
            with pytest.raises(AssertionError, match="hidden cards"):
                assert_nothing_hidden_shown(app)

    run(go())


def test_expert_bots_think_in_a_worker_thread(tmp_path: Path) -> None:
    rules = make_rules("pagat", {"hand-sizes": "2,1"})
    session = Session.new(rules, seed=3, levels=("expert",), think=0.02, save_path=tmp_path / "m.ohr")
    app = OhHellApp(session, pause=0)

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await play_through(pilot, app)

    run(go())
    assert session.is_over and set(session.kinds[1:]) == {"expert"}


# --- Small windows, stable keys, the cursor, Enter, the ▶ marker, the trick's pause, the sheet ----------


def cut_short(app: OhHellApp) -> list[str]:
    """Lines of the screen with a word cut short (Rich's "…")."""
    return [line for line in screen_text_lines(app) if "…" in line]


def screen_text_lines(app: OhHellApp) -> list[str]:
    svg = app.export_screenshot()
    rows: dict[int, str] = {}
    for line, text in re.findall(r'clip-path="url\(#[^)]*line-(\d+)\)">(.*?)</text>', svg, flags=re.S):
        rows[int(line)] = rows.get(int(line), "") + html.unescape(text).replace("\xa0", " ")
    return [rows[k] for k in sorted(rows)]


@pytest.mark.parametrize("players", [4, 7])
def test_a_60_by_20_window_gets_the_compact_layout_with_nothing_cut(tmp_path: Path, players: int) -> None:
    # The largest hand of the pagat preset (10 cards for 4, 7 for 7 players, R-START) and the
    # bots' full names, in 60 columns and 20 rows.
    top = 10 if players == 4 else 7
    rules = make_rules("pagat", {"players": str(players), "hand-sizes": f"{top},{top - 1}"})
    session = Session.new(rules, seed=3, name="Alexandra")
    app = OhHellApp(session, pause=0, trick_pause=0)

    async def go() -> None:
        async with app.run_test(size=(60, 20)) as pilot:
            await settle(pilot, app)
            assert app.layout == "compact" and app.screen.has_class("compact")
            assert not cut_short(app)
            text = screen_text(app)
            for name in session.names:
                assert name in text  # whole names, no "Ada (inter…"
            assert not app.query_one("#log").display or not app.query_one("#log").region.width
            assert len(app.slots) == top
            for i, card in enumerate(app.slots):  # every card on the screen, inside its width
                widget = app.query_one(f"#card-{i}")
                assert card is not None and widget.region.right <= 60 and widget.region.width > 0
            await pilot.press("l")  # the log in place of the players' table
            assert app.query_one("#log").region.width > 40 and "Draw:" in screen_text(app)
            await pilot.press("l")
            await human_move(pilot, app, 0, click=False)
            await play_through(pilot, app, stop_after=12)
            while not isinstance(app.screen, ScoreScreen | FinalScreen):
                await human_move(pilot, app, 0, click=False)
                await settle(pilot, app)
            assert isinstance(app.screen, ScoreScreen)
            # The sheet shares the players among tables that fit; scroll down through it.
            dialog = app.screen.query_one(".dialog")
            seen = ""
            for y in range(0, dialog.max_scroll_y + 1, 5):
                dialog.scroll_to(y=y, animate=False)
                await pilot.pause()
                assert not cut_short(app)
                seen += screen_text(app)
            assert all(name in seen for name in session.names)

    run(go())


def test_a_window_too_small_says_so_and_the_table_comes_back(tmp_path: Path) -> None:
    session = Session.new(make_rules("pagat", {"hand-sizes": "10,9"}), seed=3)
    app = OhHellApp(session, pause=0, trick_pause=0)

    async def go() -> None:
        async with app.run_test(size=(40, 15)) as pilot:
            await settle(pilot, app)
            text = " ".join(screen_text(app).split())  # the notice wraps in 40 columns
            assert "Make the window larger." in text and "40 columns by 15 rows" in text
            least = need(session.rules, session.names, session.kinds, "compact")
            assert least.width > 40 and least.height > 15
            assert f"the table needs at least {least.width} columns and {least.height} rows" in text
            before = session.moves
            await pilot.press("1", "enter")  # the game's keys wait for a window that shows the table
            assert session.moves == before and not cut_short(app)
            await pilot.resize_terminal(100, 30)
            await settle(pilot, app)
            assert app.layout == "full" and "Make the window larger" not in screen_text(app)
            legal = [a.bid for a in session.observation().legal_actions if isinstance(a, Bid)]
            bid = next(b for b in legal if b == 0 or 10 * b > 10)  # one key bids it
            await pilot.press(str(bid))
            await settle(pilot, app)
            assert session.observation().bids[session.human] == bid

    run(go())


def test_card_keys_stay_with_their_cards_and_the_cursor_skips_what_cannot_be_played(tmp_path: Path) -> None:
    # R-FOLLOW makes some cards unplayable; the cursor never stops on them.
    for seed in range(1, 40):
        session = Session.new(make_rules("pagat", {"hand-sizes": "6"}), seed=seed)
        app = OhHellApp(session, pause=0, trick_pause=0)
        checked: list[bool] = []

        async def go(app: OhHellApp = app, session: Session = session, checked: list[bool] = checked) -> None:
            async with app.run_test(size=SIZE) as pilot:
                dealt: list[Card | None] = []
                for _ in range(40):
                    await settle(pilot, app)
                    if isinstance(app.screen, ScoreScreen | FinalScreen):
                        return
                    if app.mode() == "play":
                        dealt = dealt or list(app.slots)
                        # every card still held is in the slot (and under the key) it was dealt to
                        for i, card in enumerate(app.slots):
                            assert card is None or card == dealt[i]
                            label = app.query_one(f"#card-{i}", Static).content
                            assert card is None or str(label).startswith(CARD_KEYS[i])
                        legal = legal_cards(session)
                        playable = [i for i, c in enumerate(app.slots) if c is not None and c in legal]
                        assert app.cursor == playable[0]  # the cursor starts on a playable card
                        if len(playable) < sum(c is not None for c in app.slots):
                            for step in range(1, len(playable) + 1):
                                await pilot.press("right")
                                assert app.cursor == playable[step % len(playable)]
                            gone = [i for i, c in enumerate(app.slots) if c is None]
                            if gone:  # the key of a card played plays nothing, and says why
                                before = session.moves
                                await pilot.press(CARD_KEYS[gone[0]])
                                assert session.moves == before and "was played" in (app.error or "")
                                app.error = None
                                checked.append(True)
                                return
                    await human_move(pilot, app, 0, click=False)

        run(go())
        if checked:
            return
    pytest.fail("no deal had a card played, then an unplayable card")


def test_enter_takes_the_hinted_bid(tmp_path: Path) -> None:
    session = Session.new(make_rules("pagat", {"hand-sizes": "3,2"}), seed=5, hint_seconds=0.02)
    app = OhHellApp(session, pause=0, trick_pause=0)
    app_bid: int | None = None

    # The hinted bid is known only once the hint arrives: read it then.
    async def go_and_read() -> None:
        nonlocal app_bid
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            await pilot.press("h")
            for _ in range(200):
                await pilot.pause(0.01)
                if app.hinted is not None:
                    break
            assert isinstance(app.hinted, Bid) and "(Enter takes it)" in screen_text(app)
            app_bid = app.hinted.bid
            await pilot.press("enter")
            await settle(pilot, app)
            assert session.observation().bids[session.human] == app_bid

    run(go_and_read())


def test_the_turn_marker_shows_the_next_bidder_counting_down_while_you_may_change_your_bid(
    tmp_path: Path,
) -> None:
    # R-BID-CHANGE: after your bid the next bidder waits a few seconds, shown counting down, then bids.
    rules = make_rules("pagat", {"hand-sizes": "3,2", "first-dealer": "3"})  # seat 0 bids first
    session = Session.new(rules, seed=2, save_path=tmp_path / "m.ohr", change_grace=2.5)
    app = OhHellApp(session, pause=0, trick_pause=0)

    def marked() -> list[str]:
        return [line.split("▶")[1].split()[0] for line in screen_text_lines(app) if "▶" in line]

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            assert marked() == ["You"]
            await pilot.press("1")
            await settle(pilot, app)
            assert app.mode() == "change" and marked() == ["Ada"]  # Ada bids next and waits
            text = screen_text(app)
            # The count shown depends on how soon the screen is drawn: 3 s, or less on a busy machine.
            said = (
                r"You bid 1\. Ada bids in [123] s: press a digit to change your bid, Enter to let Ada bid now"
            )
            assert re.search(said, text), text
            await pilot.pause(0.7)
            assert "Ada bids in 2 s" in screen_text(app)  # counting down, by itself
            start = time.monotonic()
            while session.observation().bids[1] is None:  # no key pressed: Ada bids when the time is up
                assert time.monotonic() - start < 5, app.mode()
                await pilot.pause(0.05)
            assert time.monotonic() - start > 1  # not before the grace was over
            assert app.mode() != "change"

    run(go())


def test_a_newcomer_plays_a_whole_default_match_with_bids_and_cards_only(tmp_path: Path) -> None:
    """``ohhell play``'s defaults (4 players, pagat, intermediate bots) played
    as a newcomer does: a bid when asked, a card when asked, Enter where a
    screen says "press Enter", never the key that keeps a bid. After each bid
    the game must go on by itself (R-BID-CHANGE: a bounded grace)."""
    session = Session.new(make_rules("pagat"), seed=12, save_path=tmp_path / "m.ohr", change_grace=0.05)
    app = OhHellApp(session, pause=0, trick_pause=0)
    pressed: list[str] = []

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            start = time.monotonic()
            while not isinstance(app.screen, FinalScreen):
                # Generous: a whole match of 19 hands on a busy machine; a stuck one never ends.
                assert time.monotonic() - start < 300, f"stuck in mode {app.mode()} after {pressed[-5:]}"
                await settle(pilot, app)
                if isinstance(app.screen, ScoreScreen):  # "Press Enter or click to continue."
                    await pilot.press("enter")
                    continue
                mode = app.mode()
                if mode in ("change", "over", "wait"):
                    await pilot.pause(0.01)  # nothing asked of a newcomer: the game goes on by itself
                    continue
                obs = session.observation()
                if mode == "bid":  # "Your bid: press 0-N or click."
                    bids = [a.bid for a in obs.legal_actions if isinstance(a, Bid)]
                    keys = list(str(1 if 1 in bids else 0))
                    if keys == ["1"] and obs.hand_size >= 10:
                        keys.append("enter")  # "1" of a 10-card hand waits for a second digit or Enter
                elif mode == "play":
                    keys = [CARD_KEYS[app.playable_slots(obs, mode)[0]]]
                else:
                    pytest.fail(f"a newcomer was asked for {mode}")
                pressed.extend(keys)
                await pilot.press(*keys)
            text = screen_text(app)
            assert "The match is over" in text and "Press q or Escape to leave" in text
            await pilot.press("enter")  # out of habit, after the last card: the standings stay
            await pilot.pause(0.05)
            assert isinstance(app.screen, FinalScreen) and app.is_running
            await pilot.press("q")
        assert app.return_value == "over"

    run(go())
    assert session.is_over and "keep" not in pressed
    state = load(tmp_path / "m.ohr").replay(complete=True)
    assert len(state.results) >= len(state.rules.schedule)  # every hand played


def test_a_finished_trick_waits_for_enter_when_told_to(tmp_path: Path) -> None:
    # --trick-pause key: the trick stays however long it takes to read it.
    session = Session.new(make_rules("pagat", {"hand-sizes": "2"}), seed=6)
    app = OhHellApp(session, pause=0, trick_pause=math.inf)

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(30):
                await settle(pilot, app)
                if app.mode() == "continue":
                    for _ in range(20):  # nothing moves on by itself
                        await pilot.pause(0)
                    assert app.mode() == "continue" and "wins" in screen_text(app)
                    await pilot.press("enter")
                    await settle(pilot, app)
                    assert app.mode() != "continue"
                    return
                await human_move(pilot, app, 0, click=False)
            pytest.fail("no trick was shown")

    run(go())


def test_the_score_sheet_says_its_name_once_and_its_numbers_stand_under_the_names(tmp_path: Path) -> None:
    from ohhell.terminal.fullscreen.widgets import score_sheets

    session = Session.new(make_rules("pagat", {"hand-sizes": "2,1"}), seed=4, name="Alexandra")
    app = OhHellApp(session, pause=0, trick_pause=0)

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            await pilot.press("s")
            await pilot.pause()
            assert isinstance(app.screen, ScoreScreen)
            assert screen_text(app).count("Score sheet") == 1
            await pilot.press("enter")
            await play_through(pilot, app)

    run(go())
    results, names = session.state.results, session.names
    for width in (100, 60, 40):
        for table in score_sheets(results, names, width):
            console = Console(width=width, file=io.StringIO(), record=True)
            console.print(table)
            lines = console.export_text().splitlines()
            head = next(i for i, line in enumerate(lines) if "b/t" in line)
            legend, name_line, first_row = lines[head], lines[head - 1], lines[head + 2]
            for start in [m.start() for m in re.finditer("b/t", legend)]:
                end = legend.index("tot", start) + 3
                cell = first_row[start:end]
                assert re.fullmatch(r"\s*\d+/\d+[ *]\s+-?\d+\s+-?\d+", cell), (legend, first_row)
                name = name_line[start - 2 : end + 2].strip()
                assert name in names  # the name over its own numbers
            assert len(lines[head - 1]) <= width


def test_leaving_the_final_screen_prints_the_standings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ohhell.cli import main

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    def run_to_the_end(app: OhHellApp) -> str:  # the app, played without a screen, left with q
        play_without_screen(app.session)
        return "over"

    monkeypatch.setattr(OhHellApp, "run", run_to_the_end)
    monkeypatch.setattr("sys.stdin", Terminal(""))
    monkeypatch.setattr("sys.stdout", Terminal())
    path = tmp_path / "m.ohr"
    assert main(["play", "--hand-sizes", "2,1", "--seed", "5", "--save", str(path)]) == 0
    out = sys.stdout.getvalue()  # type: ignore[attr-defined]
    state = load(path).replay(complete=True)
    best = max(state.totals)
    assert out.startswith("The match is over. Final standings:\n1. ")
    assert f"{best} points" in out and ("Winner: " in out or "You win." in out or "share first place" in out)
    assert out.rstrip().endswith(f"The game record is in {path}: ohhell replay {path} shows every hand.")


def test_a_resumed_hand_keeps_its_card_keys_and_its_log(tmp_path: Path) -> None:
    rules = make_rules("pagat", {"hand-sizes": "5,4"})
    path = tmp_path / "m.ohr"
    first = OhHellApp(Session.new(rules, seed=9, save_path=path), pause=0, trick_pause=0)
    shown: dict[str, Any] = {}

    async def half() -> None:
        async with first.run_test(size=SIZE) as pilot:
            while len([a for a in first.session.state.log if isinstance(a, Play) and a.seat == 0]) < 2:
                await settle(pilot, first)
                await human_move(pilot, first, 0, click=False)
            await settle(pilot, first)
            shown["slots"] = list(first.slots)
            shown["log"] = [s.text for s in first.query_one("#log", RichLog).lines]
            await pilot.press("q")

    run(half())
    assert shown["slots"].count(None) == 2  # two cards played: their keys stay empty
    second = OhHellApp(Session.resume(path), pause=0, trick_pause=0)

    async def rest() -> None:
        async with second.run_test(size=SIZE) as pilot:
            await settle(pilot, second)
            assert second.slots == shown["slots"]  # every card under the key it was dealt with
            log = [s.text for s in second.query_one("#log", RichLog).lines]
            hand = shown["log"][max(i for i, t in enumerate(shown["log"]) if t.startswith("— Hand")) :]
            assert log[-len(hand) :] == hand  # this hand's events back in the log, as they were shown

    run(rest())


def test_enter_before_a_bid_says_what_to_do_and_cards_show_no_keys_while_bidding(tmp_path: Path) -> None:
    session = Session.new(make_rules("pagat", {"hand-sizes": "3,2"}), seed=2, save_path=tmp_path / "m.ohr")
    app = OhHellApp(session, pause=0, trick_pause=0)

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            assert app.mode() == "bid"
            before = session.moves
            await pilot.press("enter")
            assert session.moves == before
            assert "To bid, press a digit from 0 to 3 (or click a bid)" in screen_text(app)
            assert app.query_one("#bid-label").display  # the row of numbers says it is the bids
            for i, card in enumerate(app.slots):  # no card key under the bids: digits bid now
                label = str(app.query_one(f"#card-{i}", Static).content)
                assert card is not None and not label.startswith(CARD_KEYS[i])

    run(go())


def test_the_compact_log_opens_at_its_newest_lines_and_escape_closes_it(tmp_path: Path) -> None:
    rules = make_rules("pagat", {"hand-sizes": "10,9"})
    session = Session.new(rules, seed=3, save_path=tmp_path / "m.ohr")
    app = OhHellApp(session, pause=0, trick_pause=0)

    async def go() -> None:
        async with app.run_test(size=(60, 20)) as pilot:
            await play_through(pilot, app, stop_after=8)  # a log longer than the window
            log = app.query_one("#log", RichLog)
            assert app.layout == "compact"
            await pilot.press("l")
            await pilot.pause(0.1)
            assert app.screen.has_class("show-log") and len(log.lines) > log.size.height
            assert log.scroll_y == log.max_scroll_y > 0  # the newest lines in sight
            await pilot.press("escape")
            assert not app.screen.has_class("show-log")

    run(go())
