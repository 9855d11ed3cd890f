"""The terminal's leftovers from play-testing: the standings say "you" for
the human whatever their name, the table behind a hand's score sheet still
shows that hand, the players' table does not widen when a trick's winner is
shown, and the line mode says why it stopped on stderr, not in the game."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from rich.console import Console

from ohhell import Bid, Card, Deal, GameState, Phase, Play, apply, make_rules, new_game, observe, parse_cards
from ohhell.cli.play import final_words
from ohhell.terminal.plain import PlainUI
from ohhell.terminal.session import Session

NAMES = ("Ann", "Bruno", "Chloe")


def dealt(hands: tuple[str, ...], bids: tuple[int, ...]) -> GameState:
    """One hand dealt as given, seat 0 (the human) bidding and leading first; Chloe deals."""
    size = len(hands[0].split())
    options = {"players": "3", "hand-sizes": str(size), "first-dealer": "2", "hook": "no"}
    state = new_game(make_rules("pagat", options))
    apply(state, Deal(tuple(tuple(parse_cards(h)) for h in hands), Card.parse("2C")))
    for seat, bid in enumerate(bids):
        apply(state, Bid(seat, bid))
    return state


def session_over(state: GameState, path: Path | None = None) -> Session:
    kinds = ["human", "intermediate", "intermediate"]
    return Session(state.rules, names=NAMES, kinds=kinds, seed=3, save_path=path, state=state)


def test_the_standings_say_you_for_the_human_whatever_their_name(tmp_path: Path) -> None:
    won = session_over(dealt(("AS KS", "2H 3H", "4H 5H"), (2, 0, 0)), tmp_path / "won.ohr")
    won.claim(2)  # Ann takes both tricks: 12 points against 10 and 10
    out = io.StringIO()
    assert PlainUI(won, io.StringIO(""), out, io.StringIO()).run() == 0
    text = out.getvalue()
    assert "1. Ann (you): 12 points, 1 exact bid" in text and "You win." in text
    assert "Winner" not in text
    assert "You win." in final_words(won) and "Winner" not in final_words(won)
    shared = session_over(dealt(("2S 3S", "AS KS", "JS 10S"), (0, 0, 0)))
    shared.claim(0)  # Bruno takes both tricks: Ann and Chloe share first place
    while not shared.is_over:
        shared.step()
    assert "You and Chloe share first place with 10 points." in final_words(shared)


def test_the_stop_at_the_end_of_piped_input_goes_to_stderr(tmp_path: Path) -> None:
    session = session_over(dealt(("2S 3S", "AS KS", "JS 10S"), (0, 0, 0)), tmp_path / "m.ohr")
    out, err = io.StringIO(), io.StringIO()
    assert PlainUI(session, io.StringIO(""), out, err).run() == 0
    assert "Your card:" in out.getvalue() and "The input ended" not in out.getvalue()
    assert err.getvalue() == (
        f"The input ended: the match is saved in {tmp_path / 'm.ohr'}.\n"
        f"To continue it: ohhell play --resume {tmp_path / 'm.ohr'}\n"
    )


def test_the_table_column_keeps_its_width_when_a_winner_is_shown() -> None:
    pytest.importorskip("textual")
    from ohhell.terminal.fullscreen.widgets import players_table

    state = dealt(("10H 2S", "3H 4S", "5H 6S"), (1, 0, 0))
    for seat, card in enumerate(("10H", "3H", "5H")):
        apply(state, Play(seat, Card.parse(card)))
    obs = observe(state, 0)
    kinds = ("human", "intermediate", "intermediate")

    def header(trick: object) -> str:
        console = Console(width=80, file=io.StringIO(), record=True)
        console.print(players_table(obs, NAMES, kinds, trick))  # type: ignore[arg-type]
        return console.export_text().splitlines()[0]

    assert "wins" not in header(None)
    assert header(state.tricks[-1]) == header(None)


def test_the_table_behind_the_hands_score_sheet_shows_that_hand(tmp_path: Path) -> None:
    pytest.importorskip("textual")
    from textual.widgets import Static

    from ohhell.terminal.fullscreen.app import OhHellApp
    from ohhell.terminal.fullscreen.claim import CLAIM_KEY
    from ohhell.terminal.fullscreen.screens import ScoreScreen

    options = {"players": "3", "hand-sizes": "2,1", "first-dealer": "2", "hook": "no", "bid-changes": "no"}
    session = Session.new(make_rules("pagat", options), name="Ann", seed=1, levels=("random",))
    app = OhHellApp(session, pause=0, trick_pause=0)

    def table_lines() -> list[str]:
        console = Console(width=100, file=io.StringIO(), record=True)
        console.print(app.screen_stack[0].query_one("#players", Static).content)
        return console.export_text().splitlines()

    async def go() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            for _ in range(400):
                await pilot.pause(0.01)
                if isinstance(app.screen, ScoreScreen):
                    break
                if app.mode() == "bid":
                    await pilot.press("0")
                elif app.mode() == "play":
                    await pilot.press(CLAIM_KEY, "a")  # not always certain: then play a card
                    await pilot.pause(0.05)
                    if app.mode() == "play":
                        await pilot.press("enter")
            assert isinstance(app.screen, ScoreScreen)
            result = session.observation().results[-1]
            assert session.state.dealer != result.dealer  # the state has passed the deal on
            lines = table_lines()

            def row(seat: int) -> str:
                return next(line for line in lines if session.names[seat] in line)

            assert " D" in row(result.dealer) and " D" not in row(session.state.dealer), lines
            title = str(app.screen_stack[0].query_one("#title", Static).content)
            assert "Hand 1 of 2" in title
            for seat in range(3):  # the bids and tricks of the hand just over
                assert row(seat).split()[-3:-1] == [str(result.bids[seat]), str(result.tricks[seat])], lines
            await pilot.press("enter")  # the sheet closed: the next hand's dealer
            for _ in range(100):
                await pilot.pause(0.01)
                if session.state.phase is not Phase.DEAL:
                    break
            await pilot.pause(0.05)
            lines = table_lines()
            assert " D" in row(session.state.dealer), lines

    asyncio.run(go())
