"""Widgets of the terminal app: clickable cards and choice chips, and the text
(Rich renderables) of cards, the players' table and the score sheet.

Everything drawn here comes from an ``Observation`` or from public hand
results: the app never hands a widget the game state.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.table import Table
from rich.text import Text
from textual.events import Click
from textual.message import Message
from textual.widgets import Static

from ... import Card, HandResult, Observation, Suit, Trick, standings

RED_SUITS = (Suit.HEARTS, Suit.DIAMONDS)
CARD_KEYS = "1234567890abcdefg"
"""The key of each card in the displayed hand, left to right (up to 17 cards)."""


def suit_style(suit: Suit | None) -> str:
    return "bold red" if suit in RED_SUITS else "bold"


def card_text(card: Card) -> Text:
    """``10♥`` in red, ``A♠`` in the default colour."""
    return Text(card.pretty, style=suit_style(card.suit))


def suit_text(suit: Suit | None) -> Text:
    if suit is None:
        return Text("no trump", style="bold")
    return Text(f"{suit.symbol} {suit.name.lower()}", style=suit_style(suit))


class CardWidget(Static):
    """One card of the hand: its key on top, the card below; click to play it."""

    class Chosen(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, index: int) -> None:
        super().__init__("", id=f"card-{index}", classes="card")
        self.index = index
        self.card: Card | None = None
        self._key: object = None

    def show(self, card: Card | None, *, legal: bool, neutral: bool = False, blind: bool = False) -> None:
        """Show ``card`` (``None`` and ``blind``: the back of one's own unseen card),
        marked playable or not (``neutral``: not the time to play)."""
        key = (card, legal, neutral, blind)
        if key == self._key:
            return  # unchanged: no repaint
        self._key = key
        self.card = card
        label = Text(CARD_KEYS[self.index], style="dim")
        if blind:
            face = Text("??", style="bold")
        elif card is None:
            self.display = False
            return
        else:
            face = card_text(card)
        self.display = True
        self.update(Text.assemble(label, "\n", face), layout=False)
        self.set_class(legal and not neutral, "legal")
        self.set_class(not legal and not neutral, "illegal")

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Chosen(self.index))


class Chip(Static):
    """A clickable choice: a bid, a trump suit, keep, continue."""

    class Chosen(Message):
        def __init__(self, value: str) -> None:
            super().__init__()
            self.value = value

    def __init__(self, value: str, label: str | Text, *, id: str) -> None:
        super().__init__(label, id=id, classes="chip")
        self.value = value

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Chosen(self.value))  # a forbidden bid is refused with the reason


def players_table(
    obs: Observation,
    names: Sequence[str],
    kinds: Sequence[str],
    shown_trick: Trick | None,
) -> Table:
    """Each player's name, level, bid, tricks and score, the card on the table."""
    n = obs.players
    table = Table(expand=True, box=None, padding=(0, 1), show_edge=False)
    table.add_column("", width=1)
    table.add_column("Player", ratio=3, no_wrap=True)
    table.add_column("Bid", justify="right")
    table.add_column("Took", justify="right")
    table.add_column("Score", justify="right")
    table.add_column("Table", justify="center", min_width=6)
    if obs.devils_bridge:
        table.add_column("Holds", justify="center")
    if obs.rules.teams is not None:
        table.add_column("Team", justify="center")
    on_table: dict[int, Text] = {}
    if shown_trick is not None:
        for i, card in enumerate(shown_trick.cards):
            seat = shown_trick.seat_of(i, n)
            on_table[seat] = card_text(card)
            if seat == shown_trick.winner:
                on_table[seat].append(" wins", style="bold green")
    else:
        for i, (seat, card) in enumerate(obs.trick):
            on_table[seat] = card_text(card)
            if i == 0:
                on_table[seat].append(" led", style="dim")
    turn: set[int] = set()
    if shown_trick is None and obs.actors:
        # Sequential bidding lists the seat that may still change its bid second.
        simultaneous = obs.rules.bidding.value == "simultaneous"
        turn = set(obs.actors) if simultaneous or obs.phase.value != "bid" else {obs.actors[0]}
    for seat in range(n):
        marker = Text("▶", style="bold yellow") if seat in turn else Text("")
        name = Text(names[seat], style="bold" if seat == obs.seat else "")
        if kinds[seat] != "human":
            name.append(f" ({kinds[seat]})", style="dim")
        if seat == obs.dealer:
            name.append(" D", style="bold cyan")
        if obs.has_bid[seat]:
            bid = Text(str(obs.bids[seat])) if obs.bids[seat] is not None else Text("✓", style="dim")
        else:
            bid = Text("-", style="dim")
        row: list[Text | str] = [marker, name, bid, str(obs.taken[seat]), str(obs.totals[seat])]
        row.append(on_table.get(seat, Text("")))
        if obs.devils_bridge:
            held = obs.hands[seat]
            row.append(Text.assemble(*(card_text(c) for c in held)) if held else Text("?", style="dim"))
        if obs.rules.teams is not None:
            team = next(i for i, t in enumerate(obs.rules.teams) if seat in t)
            row.append(str(team + 1))
        table.add_row(*row)
    return table


def score_sheet(results: Sequence[HandResult], names: Sequence[str]) -> Table:
    """Every finished hand: bid/took, the hand's points and the running total
    per player; a red blob ● marks a missed bid."""
    table = Table(
        title="Score sheet",
        caption="hand: cards, trump; each player: bid/took, points, total; ● a missed bid (a blob)",
        header_style="bold",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
    )
    table.add_column("Hand", justify="left", no_wrap=True)
    for name in names:
        table.add_column(name, justify="right", no_wrap=True)
    totals = [0] * len(names)
    for r in results:
        hand = Text(f"{r.number}{'*' if r.extra else ''}: {r.size} ")
        trump = Text(r.trump.symbol, style=suit_style(r.trump)) if r.trump is not None else Text("NT")
        hand.append_text(trump)
        cells: list[Text | str] = [hand]
        for s in range(len(names)):
            totals[s] += r.scores[s]
            made = r.bids[s] == r.tricks[s]
            cell = Text(f"{r.bids[s]}/{r.tricks[s]}")
            cell.append(" " if made else "●", style="" if made else "bold red")
            cell.append(f" {r.scores[s]:>3} {totals[s]:>4}")
            cells.append(cell)
        table.add_row(*cells)
    if any(r.extra for r in results):
        table.caption = f"{table.caption}; * a tie-break hand"
    return table


def standings_table(obs: Observation, names: Sequence[str]) -> Table:
    table = Table(title="Final standings", header_style="bold", box=box.SIMPLE_HEAD)
    table.add_column("Place", justify="right")
    table.add_column("Player" if obs.rules.teams is None else "Team")
    table.add_column("Points", justify="right")
    table.add_column("Exact bids", justify="right")
    for row in standings(obs.rules, obs.totals, obs.exact):
        who = " + ".join(names[s] for s in row.seats)
        style = "bold green" if row.place == 1 else ""
        table.add_row(str(row.place), Text(who, style=style), str(row.total), str(row.exact))
    return table
