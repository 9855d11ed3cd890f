"""Forced cards in the full screen: the key that turns on or off having a
card you have no choice about played for you, and that card's play.

The session finds the card (``Session.forced_play``: the only legal play);
the app's loop plays it when the option is on, as it plays a bot's move.
The key saves the choice (``settings``), so the next match keeps it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from rich.text import Text
from textual.widgets import RichLog

from ..settings import remember_forced_cards
from ..you_words import forced_words

if TYPE_CHECKING:
    from ... import Event, Play
    from ..session import Session

FORCED_KEY = "o"
"""Turns forced cards on and off (``f`` is a card's key)."""


class ForcedApp(Protocol):
    """What the forced-cards key needs of the app (app.py's ``OhHellApp``)."""

    session: Session
    busy: bool
    note: Text | None

    def mode(self) -> str: ...

    def refresh_view(self) -> None: ...

    def advance(self) -> object: ...

    def query_one(self, selector: str, expect_type: type[RichLog]) -> RichLog: ...


def forced_note(on: bool) -> Text:
    if on:
        return Text(f"A card you have no choice about is played for you ({FORCED_KEY}: off).", "yellow")
    return Text(f"You play every card yourself ({FORCED_KEY}: play forced cards for you).", "yellow")


def toggle_forced(app: ForcedApp) -> None:
    """Turn forced cards on or off, remember the choice, and if it is on and
    your only card is waiting now, play it."""
    s = app.session
    s.forced_cards = not s.forced_cards
    remember_forced_cards(s.forced_cards)
    app.note = forced_note(s.forced_cards)
    app.refresh_view()
    if s.forced_cards and not app.busy and app.mode() == "play" and s.forced_play() is not None:
        app.busy = True
        app.advance()  # its loop plays the card


def play_forced(app: ForcedApp, play: Play) -> Event:
    """Play your only card for you and say so in the log; the app shows the event."""
    app.query_one("#log", RichLog).write(Text(forced_words(play), style="italic"))
    return app.session.act(play)
