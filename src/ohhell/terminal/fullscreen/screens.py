"""The app's other screens: the score sheet, the rules, the final standings."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.events import Click, Key, Resize
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Static

from ... import HandResult, Observation, Rules, Scoring, Standing, standings
from ...describe import describe_rules, rules_title
from ..you_words import tie_break_for_you
from .widgets import score_sheets, standings_table


class ScoreScreen(ModalScreen[None]):
    """The score sheet, shown after every hand and on ``s``; any key goes back.
    ``heading`` is its one title (the sheet's table has none of its own). In a
    narrow window the players are shared among several tables.

    After a hand (``wait`` seconds given) it goes on by itself when the
    countdown shown on it ends, so a person who presses only bids and cards
    is never stopped; any key goes on sooner, and ``q`` saves and quits."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "close", "Continue"),
        Binding("escape", "close", "Continue", show=False),
        Binding("space", "close", "Continue", show=False),
        Binding("s", "close", "Continue", show=False),
        Binding("q", "app.save_quit", "Save & quit"),  # the table's q works here too
    ]

    def __init__(
        self,
        results: Sequence[HandResult],
        names: Sequence[str],
        heading: str,
        *,
        wait: float | None = None,
        then: str = "The next hand",
    ) -> None:
        super().__init__(id="scores")
        self.results = results
        self.names = names
        self.heading = heading
        self.wait = wait if wait is not None and math.isfinite(wait) else None
        self.then = then
        self.left = math.ceil(self.wait) if self.wait is not None else 0

    def compose(self) -> ComposeResult:
        # The dialog's frame, padding and a scroll bar take 6 columns; the
        # tables get the rest, sharing out the players if need be.
        tables = score_sheets(self.results, self.names, self.app.size.width - 6)
        self._drawn_width = self.app.size.width
        dialog = VerticalScroll(classes="dialog")
        # Auto width would not measure a Rich table in full.
        dialog.styles.width = min(self.app.size.width, max(_width(t) for t in tables) + 6)
        with dialog:
            yield Static(Text(self.heading, style="bold"), id="score-heading", classes="fit")
            yield Static(Group(*tables), id="score-table")
            yield Static(self.go_on_text(), id="score-go-on", classes="fit")
        yield Footer()

    def go_on_text(self) -> Text:
        if self.wait is None:
            return Text("Press Enter or click to continue.", style="dim")
        return Text(
            f"{self.then} in {self.left} s. Any key goes on now; q saves and quits.",
            style="bold",
        )

    def on_mount(self) -> None:
        if self.wait is not None:
            self.set_interval(self.wait / self.left if self.left else 0.01, self.tick)

    def tick(self) -> None:
        self.left -= 1
        if self.left <= 0:
            self.dismiss(None)
            return
        self.query_one("#score-go-on", Static).update(self.go_on_text())

    def on_key(self, event: Key) -> None:
        if self.wait is None or event.key in ("q", "ctrl+c"):
            return  # q and Ctrl-C: the app's keys, which save and leave
        event.stop()
        event.prevent_default()
        self.dismiss(None)

    def on_resize(self, event: Resize) -> None:
        if getattr(self, "_drawn_width", None) != self.app.size.width:
            self.refresh(recompose=True)

    def action_close(self) -> None:
        self.dismiss(None)

    def on_click(self, event: Click) -> None:
        self.dismiss(None)


def _width(renderable: Table) -> int:
    return Console(width=400).measure(renderable).maximum


class RulesScreen(ModalScreen[None]):
    """The rules of the match in plain sentences (``?``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back"),
        Binding("enter", "close", "Back", show=False),
        Binding("question_mark", "close", "Back", show=False),
        Binding("q", "close", "Back", show=False),
    ]

    def __init__(self, rules: Rules, names: Sequence[str], you: int | None = None) -> None:
        super().__init__(id="rules")
        self.rules = rules
        self.names = names
        self.you = you

    def compose(self) -> ComposeResult:
        lines = [Text(f"Rules: {rules_title(self.rules)}", style="bold"), Text("")]
        for sentence in describe_rules(self.rules, self.names, self.you):
            lines.append(Text(f"• {sentence}"))
        lines.extend([Text(""), Text("Press Escape to go back to the game.", style="dim")])
        with VerticalScroll(classes="dialog"):
            yield Static(Group(*lines), id="rules-text", classes="fit")
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)


LEAVE_WORDS = "Press q or Escape to leave; the standings are printed again when you do."


class FinalScreen(Screen[None]):
    """The final standings, how a tie was broken, and the whole score sheet.
    It stays until q or Escape (said on it): Enter, pressed out of habit after
    the last card, must not take the standings away."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "leave", "Quit"),
        Binding("escape", "leave", "Quit", show=False),
        Binding("enter", "stay", show=False),
    ]

    def __init__(self, obs: Observation, names: Sequence[str], saved: str) -> None:
        super().__init__(id="final")
        self.obs = obs
        self.names = names
        self.saved = saved

    def compose(self) -> ComposeResult:
        rules = self.obs.rules
        you = self.obs.seat if self.obs.seat is not None else -1
        notes = [Text(line) for line in tie_break_for_you(rules, self.obs, self.names, you, self._table())]
        if rules.scoring is Scoring.OKENUFF:
            nets = [sum(t - u for u in self.obs.totals) for t in self.obs.totals]  # R-SETTLE
            settle = ", ".join(f"{self.names[s]} {nets[s]:+d}" for s in range(len(self.names)))
            notes.append(Text(f"Settlement: {settle}"))
        if self.saved:
            notes.append(Text(self.saved, style="dim"))
        self._drawn_width = self.app.size.width
        with VerticalScroll(classes="final"):
            yield Static(Text("The match is over", style="bold"), id="final-heading")
            yield Static(Text(LEAVE_WORDS, style="bold"), id="final-leave")
            yield Static(standings_table(self.obs, self.names), id="standings")
            yield Static(Group(*notes), id="tie-break")
            sheets = score_sheets(self.obs.results, self.names, self.app.size.width - 4, title="Score sheet")
            yield Static(Group(*sheets), id="final-scores")
        yield Footer()

    def on_resize(self, event: Resize) -> None:
        if getattr(self, "_drawn_width", None) != self.app.size.width:
            self.refresh(recompose=True)

    def _table(self) -> list[Standing]:
        return standings(self.obs.rules, self.obs.totals, self.obs.exact)

    def action_leave(self) -> None:
        self.app.exit("over")

    def action_stay(self) -> None:
        self.notify(LEAVE_WORDS, timeout=4)
