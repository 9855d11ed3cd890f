"""The full-screen app of `ohhell play`, driven through Textual's test harness
(`App.run_test`) by key presses and clicks: whole short matches in several
rule sets, bids refused with the reason, the hint, the rules and score-sheet
screens, quit and resume, Ctrl-C, and no hidden card ever on the screen."""

from __future__ import annotations

import asyncio
import html
import io
import re
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
        index = sort_hand(obs.hand).index(action.card)  # type: ignore[arg-type]
        await (pilot.click(f"#card-{index}") if click else pilot.press(CARD_KEYS[index]))


async def play_through(pilot: Any, app: OhHellApp, *, stop_after: int | None = None) -> int:
    """Play to the final screen (or ``stop_after`` decisions), alternating keys
    and clicks; check the screen for hidden cards at every stop."""
    turn = 0
    while True:
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
                        cards = sort_hand(obs.hand)
                        wrong = [i for i, c in enumerate(cards) if c.suit is not led]
                        if wrong and any(c.suit is led for c in cards):
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
            assert "Rules: okenuff rules" in text and "highest bidder names a trump suit" in text
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
            cards = sort_hand(session.observation().hand)
            assert app.query_one(f"#card-{cards.index(app.hinted.card)}").has_class("hinted")

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
            before = session.moves
            await pilot.press("right", "right", "left")  # the cursor on the first card, then Enter plays it
            assert app.query_one("#card-0").has_class("cursor")
            playable = {a.card for a in session.observation().legal_actions if isinstance(a, Play)}
            first = sort_hand(session.observation().hand)[0]
            await pilot.press("enter")
            await settle(pilot, app)
            if first in playable:
                assert session.moves > before
            else:
                assert "must follow" in (app.error or "")

    run(go())


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
