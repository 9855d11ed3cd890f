"""Claims in the full screen: the claim key asks how many of the tricks left
you claim, and the app says what came of it.

The session decides (``Session.claim``: certain from the cards, or put to the
bots); this module only asks the question (``ClaimScreen``, a small dialog
over the table) and shows the answer. A claim accepted plays the hand out at
once, or has your cards played for you on your turns; the app's usual loop
shows those plays.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import Static

from ... import IllegalActionError
from ...describe import refusal_words
from ..claim_words import claim_question, claim_words

if TYPE_CHECKING:
    from ... import Action
    from ..session import Session


class ClaimingApp(Protocol):
    """What the claim key needs of the app (app.py's ``OhHellApp``), as a
    protocol so this module does not import the app."""

    session: Session
    busy: bool
    error: str | None
    note: Text | None
    hinted: Action | None
    cursor: int | None

    def mode(self) -> str: ...

    def refresh_view(self) -> None: ...

    # Textual's own methods (and the app's worker), whose types are Textual's.
    @property
    def advance(self) -> Any: ...

    @property
    def push_screen(self) -> Any: ...

    @property
    def run_worker(self) -> Any: ...


CLAIM_KEY = "k"
"""The claim key (``c`` is a card's key in a hand of 13 cards or more)."""


class ClaimScreen(ModalScreen[int | None]):
    """Asks how many of the ``left`` tricks you claim: digits (two for 10 or
    more, or one then Enter), ``a`` for all, ``0`` for none; Escape asks
    nothing. Dismissed with the number, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Back"),
        Binding("enter", "commit", "Claim"),
    ]

    def __init__(self, left: int) -> None:
        super().__init__(id="claim")
        self.left = left
        self.digits = ""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text(claim_question(self.left), style="bold"), id="claim-question", classes="fit")
            yield Static(self._line(), id="claim-typed", classes="fit")

    def _line(self, error: str = "") -> Text:
        if error:
            return Text(error, style="bold red")
        if self.digits:
            return Text(f"So far {self.digits}: another digit, or Enter. Escape: no claim.", style="dim")
        return Text("Escape: no claim.", style="dim")

    def on_key(self, event: Key) -> None:
        key = event.character or ""
        if key == "a":
            event.stop()
            self.dismiss(self.left)
        elif key.isdigit() and len(key) == 1:
            event.stop()
            self.digits += key
            value = int(self.digits)
            if value > self.left:
                self.digits = ""
                self.query_one("#claim-typed", Static).update(
                    self._line(f"There are {self.left} tricks left: claim 0 to {self.left}, or a for all.")
                )
            elif value == 0 or value * 10 > self.left or len(self.digits) >= 2:
                self.dismiss(value)
            else:
                self.query_one("#claim-typed", Static).update(self._line())

    def action_commit(self) -> None:
        if self.digits:
            self.dismiss(int(self.digits))

    def action_cancel(self) -> None:
        self.dismiss(None)


def start_claim(app: ClaimingApp) -> None:
    """The claim key: ask how many tricks, on your turn while the cards are played."""
    s = app.session
    if app.mode() != "play":
        app.note = Text("You may claim tricks while the cards are played, on your turn.", "yellow")
        app.refresh_view()
        return
    try:
        s.check_claim()
    except IllegalActionError as err:
        app.error = refusal_words(err, s.names, s.human)
        app.refresh_view()
        return

    def claimed(tricks: int | None) -> None:
        if tricks is not None:
            app.run_worker(make_claim(app, tricks), group="claim", exclusive=True)

    app.push_screen(ClaimScreen(s.tricks_left()), claimed)


async def make_claim(app: ClaimingApp, tricks: int) -> None:
    """Put the claim to the cards (and, if they do not settle it, to the bots),
    say what came of it, and let the app play on."""
    s = app.session
    app.busy = True
    app.error = None
    app.note = Text("Your claim is being checked…", style="italic yellow")
    app.refresh_view()
    try:
        result = await asyncio.to_thread(s.claim, tricks)
    except IllegalActionError as err:
        app.busy = False
        app.error = refusal_words(err, s.names, s.human)
        app.note = None
        app.refresh_view()
        return
    app.note = Text(claim_words(result, s.names), style="bold yellow")
    app.hinted = None
    app.cursor = None
    if result.accepted:  # the plays that settled the hand, then the referee plays your cards
        app.advance(settled=result.events)
    else:
        app.busy = False
        app.refresh_view()
