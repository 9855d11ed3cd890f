"""Claims in `ohhell play` (the session, the line mode and the full screen):
a certain claim of every trick left plays the hand out at once; a certain
claim of fewer has the human's cards played for them while the bots play on;
a claim the cards do not settle is put to the bots, who refuse (nothing
changes) or all accept (the hand is played out); claims are saved in the
record, replayed, and kept on resume."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest

from ohhell import (
    Claim,
    GameState,
    IllegalActionError,
    Phase,
    load,
    make_rules,
)
from ohhell.record import dumps
from ohhell.terminal.claim_words import claim_answer, claim_words
from ohhell.terminal.plain import COMMANDS, PlainUI
from ohhell.terminal.session import Next, Session
from support import in_play

NAMES = ("You", "Bruno", "Chloe")


def session_over(state: GameState, path: Path) -> Session:
    session = Session(
        state.rules,
        names=NAMES[: state.players],
        kinds=["human"] + ["intermediate"] * (state.players - 1),
        seed=5,
        save_path=path,
        state=state,
    )
    session.save()
    return session


# The human holds the two top spades and leads: both tricks are theirs whatever happens.
TOP = ("AS KS", "2H 3H", "4H 5H")
# The human holds the three lowest spades, the others higher ones: the human takes none.
LOW = ("2S 3S 4S", "AS KS QS", "JS 10S 9S")
# The ace of spades and a low heart the others can beat: two tricks are not sure.
MIXED = ("AS 2H", "KS 3H", "QH 5H")


def test_a_certain_claim_of_every_trick_plays_the_hand_out_and_replays(tmp_path: Path) -> None:
    session = session_over(in_play(TOP, bids=(2, 0, 0)), tmp_path / "m.ohr")
    at = session.moves
    result = session.claim(2)
    assert result.certain and result.settled and not result.refused_by
    assert [e.action.seat for e in result.events if e.action is not None] == [0, 1, 2, 0, 1, 2]
    assert result.events[-1].result is not None and result.events[-1].result.tricks == (2, 0, 0)
    assert session.is_over
    record = load(tmp_path / "m.ohr")
    assert record.claims == (Claim(0, 2, at),)
    assert "claim 0 2" in dumps(record).splitlines()
    assert record.replay(complete=True).results[-1].tricks == (2, 0, 0)
    assert (
        claim_words(result, NAMES)
        == "You claim the 2 tricks left: certain from the cards, the hand is played out."
    )


def test_a_certain_claim_of_none_plays_your_cards_for_you_while_the_bots_play_on(tmp_path: Path) -> None:
    session = session_over(in_play(LOW), tmp_path / "m.ohr")
    result = session.claim(0)
    assert result.certain and not result.settled and result.events == ()
    assert claim_words(result, NAMES) == (
        "You claim none of the 3 tricks left: certain; your cards are played for you."
    )
    played_for_you = 0
    while not session.is_over:
        assert session.next() is Next.BOT  # never asked again in this hand
        seat = session.bot_seat()
        event = session.step()
        assert event.seat == seat
        played_for_you += seat == 0
    assert played_for_you == 3
    assert session.state.results[-1].tricks[0] == 0
    with pytest.raises(IllegalActionError):
        session.claim(0)  # the hand is over: no claim now
    assert load(tmp_path / "m.ohr").replay(complete=True).results[-1].tricks[0] == 0


def test_a_claim_refused_by_a_bot_changes_nothing(tmp_path: Path) -> None:
    session = session_over(in_play(MIXED), tmp_path / "m.ohr")
    before = session.record()
    result = session.claim(2)
    assert not result.accepted and result.refused_by and result.events == ()
    assert session.record() == before and session.claims == []
    assert session.next() is Next.HUMAN
    words = claim_words(result, NAMES)
    # Which bot refused is not said: its answer comes from its own cards.
    assert not any(NAMES[s] in words for s in range(len(NAMES)) if s != 0)
    assert words.endswith("your claim is refused; play on.")


def test_a_claim_the_bots_all_accept_plays_the_hand_out(tmp_path: Path) -> None:
    # Top trumps: the claim holds in every deal the bots can imagine. The
    # referee's search is given no room, so it cannot call the claim certain
    # and the bots are asked.
    session = session_over(in_play(TOP, turned="2S", bids=(2, 0, 0)), tmp_path / "m.ohr")
    session.claim_budget = 0
    result = session.claim(2)
    assert result.agreed and not result.certain and result.settled
    assert session.is_over and session.state.results[-1].tricks == (2, 0, 0)
    assert claim_words(result, NAMES).endswith("Everyone accepts your claim: the hand is played out.")
    assert load(tmp_path / "m.ohr").claims == (Claim(0, 2, 4),)


def test_a_claim_all_accept_but_the_cards_cannot_make_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Bots judge from what they see; the referee settles only what the real
    # cards can give: here the 2 of hearts cannot take a trick.
    monkeypatch.setattr("ohhell.terminal.session.accepts_claim", lambda *args: True)
    session = session_over(in_play(MIXED), tmp_path / "m.ohr")
    before = session.record()
    result = session.claim(2)
    assert result.impossible and not result.accepted and result.events == ()
    assert session.record() == before and session.next() is Next.HUMAN
    assert claim_words(result, NAMES).endswith("no play of the cards left can end that way; play on.")


def test_a_bad_claim_is_refused_with_the_reason(tmp_path: Path) -> None:
    session = session_over(in_play(LOW), tmp_path / "m.ohr")
    with pytest.raises(IllegalActionError, match="0 to 3"):
        session.claim(4)
    assert claim_answer("all", 3) == 3 and claim_answer("none", 3) == 0 and claim_answer("x", 3) is None


def test_a_claim_is_saved_resumed_and_carried_on(tmp_path: Path) -> None:
    path = tmp_path / "m.ohr"
    session = session_over(in_play(LOW), path)
    session.claim(0)
    session.step()  # your first card, played for you
    again = Session.resume(path)
    assert again.claims == [Claim(0, 0, 4)]
    played_for_you = 0
    while not again.is_over:
        assert again.next() is Next.BOT
        played_for_you += again.bot_seat() == 0
        again.step()
    assert played_for_you == 2
    assert again.state.results[-1].tricks[0] == 0
    assert load(path).claims == (Claim(0, 0, 4),)


def test_the_line_mode_takes_claim_none_at_the_card_prompt(tmp_path: Path) -> None:
    session = session_over(in_play(LOW), tmp_path / "m.ohr")
    out = io.StringIO()
    code = PlainUI(session, io.StringIO("claim none\n"), out, io.StringIO(), echo=True).run()
    text = out.getvalue()
    assert code == 0 and session.is_over, text
    assert "claim" in COMMANDS
    assert (
        "Your card: claim none\nYou claim none of the 3 tricks left: certain; your cards are played for you."
        in text
    )
    assert text.count("You play ") == 3 and text.count("Your card:") == 1
    # One claim a hand is said where the claim is offered, before it is made.
    offered = "Or claim tricks: claim all, claim none or claim a number. One claim a hand:"
    assert offered in text and text.index(offered) < text.index("Your card: claim none")
    assert session.state.results[-1].tricks[0] == 0
    assert load(tmp_path / "m.ohr").claims == (Claim(0, 0, 4),)


def test_the_line_mode_says_the_claim_is_refused(tmp_path: Path) -> None:
    session = session_over(in_play(MIXED), tmp_path / "m.ohr")
    out = io.StringIO()
    PlainUI(session, io.StringIO("claim all\nclaim 7\n"), out, io.StringIO(), echo=True).run()
    text = out.getvalue()
    assert "your claim is refused; play on." in text
    assert text.count("One claim a hand") == 1  # offered once a hand, not again after the refusal
    assert "Not allowed: A claim is for 0 to 2 of the tricks left, not 7." in text
    assert session.claims == [] and session.next() is Next.HUMAN


def test_the_full_screen_claim_key(tmp_path: Path) -> None:
    pytest.importorskip("textual")
    from textual.widgets import Static

    from ohhell.terminal.fullscreen.app import OhHellApp
    from ohhell.terminal.fullscreen.claim import CLAIM_KEY, ClaimScreen

    session = session_over(in_play(LOW), tmp_path / "m.ohr")
    app = OhHellApp(session, pause=0, trick_pause=0)

    async def go() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            assert app.mode() == "play"
            await pilot.press(CLAIM_KEY)
            await pilot.pause()
            assert isinstance(app.screen, ClaimScreen)
            question = app.screen.query_one("#claim-question", Static).content
            assert str(question) == (
                "Claim how many of the 3 tricks left? (digits, a for all, 0 for none) "
                "One claim a hand: if it is refused, you play the hand on."
            )
            await pilot.press("0")
            for _ in range(200):
                await pilot.pause(0.01)
                if session.is_over:
                    break
            assert session.is_over
            assert app.note is not None
            assert (
                str(app.note)
                == "You claim none of the 3 tricks left: certain; your cards are played for you."
            )

    asyncio.run(go())
    assert session.state.results[-1].tricks[0] == 0
    assert load(tmp_path / "m.ohr").claims == (Claim(0, 0, 4),)


def test_the_full_screen_claims_all_with_a_and_escape_claims_nothing(tmp_path: Path) -> None:
    pytest.importorskip("textual")
    from textual.widgets import RichLog, Static

    from ohhell.terminal.fullscreen.app import OhHellApp
    from ohhell.terminal.fullscreen.claim import CLAIM_KEY, ClaimScreen

    session = session_over(in_play(TOP, bids=(2, 0, 0)), tmp_path / "m.ohr")
    app = OhHellApp(session, pause=0, trick_pause=0)

    async def go() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await pilot.press(CLAIM_KEY, "3")  # more than the 2 tricks left: said, and asked again
            await pilot.pause()
            assert isinstance(app.screen, ClaimScreen)
            typed = str(app.screen.query_one("#claim-typed", Static).content)
            assert typed == "There are 2 tricks left: claim 0 to 2, or a for all."
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, ClaimScreen) and app.mode() == "play" and session.claims == []
            await pilot.press(CLAIM_KEY, "a")
            for _ in range(200):
                await pilot.pause(0.01)
                if session.is_over:
                    break
            assert session.is_over and str(app.note) == (
                "You claim the 2 tricks left: certain from the cards, the hand is played out."
            )
            log = "\n".join(strip.text for strip in app.screen_stack[0].query_one("#log", RichLog).lines)
            assert "You play A♠" in log and "You play K♠" in log

    asyncio.run(go())
    assert session.state.results[-1].tricks == (2, 0, 0)


def test_one_claim_a_hand_and_no_card_of_yours_while_your_claim_stands() -> None:
    # A refused claim cannot be tried again in the same hand (the bots'
    # answers come from their cards), and while a claim stands the
    # referee, not the player, plays the claimer's cards.
    from ohhell import Play, line_holds

    for seed in range(60):
        session = Session.new(
            make_rules("pagat", {"players": "3", "hand-sizes": "3", "hook": "no"}),
            levels=("random",),
            seed=seed,
            save_path=None,
            change_grace=0,
        )
        while session.next() is not Next.HUMAN or session.state.phase is not Phase.PLAY:
            if session.next() is Next.HUMAN:
                session.act(session.observation().legal_actions[0])
            else:
                session.step()
        st = session.state
        sure = [k for k in range(3) if line_holds(st, session.human, k) and k < 3]
        if not sure or st.to_act != session.human:
            continue
        session.claim(sure[0])
        card = next(a for a in session.observation().legal_actions if isinstance(a, Play))
        with pytest.raises(IllegalActionError, match="your claim stands"):
            session.act(card)
        with pytest.raises(IllegalActionError, match="claimed in this hand already"):
            session.claim(0)
        return
    raise AssertionError("no deal in 60 gave a certain claim")


def test_ohhell_replay_says_each_claim_where_it_was_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ohhell.cli import main

    path = tmp_path / "m.ohr"
    session = session_over(in_play(LOW, bids=(0, 1, 1)), path)
    assert session.claim(0).accepted  # none of the 3 tricks left: certain from the cards
    while not session.is_over:
        session.step()
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    said = "  At trick 1, You claim none of the 3 tricks left; the cards were played out as claimed."
    assert said in out.splitlines()
    assert out.index("Hand 1:") < out.index(said)
    # Under another name, as any record says it; and in --json, where it happened.
    text = path.read_text(encoding="utf-8").replace("seat 0 You", "seat 0 Cleo")
    path.write_text(text, encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    assert "At trick 1, Cleo claims none of the 3 tricks left;" in capsys.readouterr().out
    assert main(["replay", str(path), "--json"]) == 0
    hand = json.loads(capsys.readouterr().out)["hands"][0]
    assert hand["claims"] == [{"seat": 0, "tricks": 0, "left": 3, "trick": 1}]
