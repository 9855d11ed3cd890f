"""Forced cards in ``ohhell play``: with the option on, a card the human has
no choice about (the only legal one) is played for them and said so, in the
line mode and in the full screen; ``--forced-cards`` and the full screen's
key remember the choice in ``settings.json``."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ohhell import Play, make_rules
from ohhell.terminal.session import Next, Session
from ohhell.terminal.settings import forced_cards_remembered, settings_path
from ohhell.terminal.you_words import forced_words

SHORT = ("--plain", "--new", "--hand-sizes", "1,1", "--hook", "no", "--seed", "3")


def ohhell(*args: str, stdin: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ohhell.cli", "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "OHHELL_HOME": str(home), "NO_COLOR": "1"},
    )


def test_forced_play_is_the_only_legal_card_and_nothing_else(tmp_path: Path) -> None:
    session = Session.new(make_rules("pagat", {"hand-sizes": "2"}), seed=5, save_path=tmp_path / "m.ohr")
    seen_forced = seen_choice = 0
    while session.next() is not Next.OVER:
        if session.next() is not Next.HUMAN:
            session.step()
            continue
        obs = session.observation()
        forced = session.forced_play()
        if session.in_change_window:
            assert forced is None
            session.keep_bid()
            continue
        if len(obs.legal_actions) == 1 and isinstance(obs.legal_actions[0], Play):
            assert forced == obs.legal_actions[0]
            seen_forced += 1
        else:
            assert forced is None  # a bid, or a choice of cards
            seen_choice += 1
        session.act(obs.legal_actions[0])
    assert seen_forced >= 1 and seen_choice >= 1  # the last card of the hand at least is forced


def test_the_words_name_the_card_or_the_one_you_cannot_see() -> None:
    from ohhell import Card

    assert forced_words(Play(0, Card.parse("4H"))) == "Your only card, the 4 of hearts, is played for you."
    assert forced_words(Play(0, None)) == "Your only card, the one you cannot see, is played for you."


def test_line_mode_with_forced_cards_plays_a_match_on_bids_alone(tmp_path: Path) -> None:
    done = ohhell(*SHORT, "--forced-cards", "yes", stdin="0\n0\n", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Your card" not in done.stdout
    assert done.stdout.count("Your only card, the ") == 2
    assert "You play " in done.stdout
    assert "The match is over" in done.stdout
    assert "The input ended" not in done.stderr


def test_line_mode_without_forced_cards_waits_for_the_card(tmp_path: Path) -> None:
    done = ohhell(*SHORT, "--forced-cards", "no", stdin="0\n0\n", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Your card:" in done.stdout
    assert "Your only card" not in done.stdout
    assert "The match is over" not in done.stdout
    assert "The input ended" in done.stderr


def test_the_choice_is_remembered_across_runs(tmp_path: Path) -> None:
    first = ohhell(*SHORT, "--forced-cards", "yes", stdin="0\n0\n", home=tmp_path)
    assert first.returncode == 0, first.stderr
    assert json.loads((tmp_path / "settings.json").read_text())["forced_cards"] is True
    again = ohhell(*SHORT, stdin="0\n0\n", home=tmp_path)  # no flag: the remembered choice
    assert "Your card" not in again.stdout and "The match is over" in again.stdout
    ohhell(*SHORT, "--forced-cards", "no", stdin="", home=tmp_path)
    off = ohhell(*SHORT, stdin="0\n0\n", home=tmp_path)
    assert "Your card:" in off.stdout and "The match is over" not in off.stdout


def test_settings_path_follows_ohhell_home_and_a_bad_file_means_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OHHELL_HOME", str(tmp_path))
    assert settings_path() == tmp_path / "settings.json"
    assert forced_cards_remembered() is False
    (tmp_path / "settings.json").write_text("{not json")
    assert forced_cards_remembered() is False


def test_full_screen_key_turns_forced_cards_on_plays_the_waiting_card_and_saves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("textual", reason="the full-screen app needs Textual: pip install -e '.[tui]'")
    from textual.widgets import RichLog

    from ohhell.terminal.fullscreen.app import OhHellApp
    from ohhell.terminal.fullscreen.forced import FORCED_KEY
    from ohhell.terminal.fullscreen.screens import FinalScreen, ScoreScreen

    monkeypatch.setenv("OHHELL_HOME", str(tmp_path))
    rules = make_rules("pagat", {"hand-sizes": "1,1", "hook": "no"})
    session = Session.new(rules, seed=3, save_path=tmp_path / "m.ohr")
    app = OhHellApp(session, pause=0, trick_pause=0)
    plays_asked = 0

    async def settle(pilot: object) -> None:
        for _ in range(2000):
            await pilot.pause(0)  # type: ignore[attr-defined]
            if app.ready:
                return
        raise AssertionError(f"the app did not settle: {app.mode()}")

    async def go() -> None:
        nonlocal plays_asked
        async with app.run_test(size=(100, 30)) as pilot:
            footer = "".join(b.binding.description for b in app.active_bindings.values() if b.binding.show)
            assert "Forced cards" in footer
            for _ in range(50):
                await settle(pilot)
                if isinstance(app.screen, FinalScreen):
                    break
                if isinstance(app.screen, ScoreScreen):
                    await pilot.press("enter")
                    continue
                mode = app.mode()
                if mode == "play":  # only before the key: one card, and the option still off
                    plays_asked += 1
                    assert not session.forced_cards
                    await pilot.press(FORCED_KEY)
                elif mode == "bid":
                    await pilot.press("0")
                elif mode == "trump":
                    await pilot.press("5")
                else:
                    await pilot.press("enter")
            assert isinstance(app.screen, FinalScreen)
            log = "\n".join(strip.text for strip in app.query_one("#log", RichLog).lines)
            assert log.count("Your only card, the ") == 2
            await pilot.press("q")

    asyncio.run(go())
    assert session.is_over and plays_asked == 1
    assert forced_cards_remembered() is True

    async def off() -> None:
        again = OhHellApp(Session.new(rules, seed=4, save_path=tmp_path / "n.ohr"), pause=0)
        again.session.forced_cards = True
        async with again.run_test(size=(100, 30)) as pilot:
            await pilot.pause(0)
            await pilot.press(FORCED_KEY)
            assert again.session.forced_cards is False
            await pilot.press("q")

    asyncio.run(off())
    assert forced_cards_remembered() is False


def test_a_devils_bridge_card_is_forced_when_it_is_the_only_action(tmp_path: Path) -> None:
    rules = make_rules("pagat", {"hand-sizes": "1", "devils-bridge": "yes", "hook": "no"})
    session = Session.new(rules, seed=2, save_path=tmp_path / "m.ohr")
    session.forced_cards = True
    while session.next() is not Next.OVER:
        if session.next() is not Next.HUMAN:
            session.step()
        elif session.in_change_window:
            session.keep_bid()
        elif session.observation().phase.value == "play":
            forced = session.forced_play()
            assert forced is not None and forced.card is None  # the card you cannot see
            session.act(forced)
        else:
            assert session.forced_play() is None  # the bid is a choice
            session.act(session.observation().legal_actions[0])
