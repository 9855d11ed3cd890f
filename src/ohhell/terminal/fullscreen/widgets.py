"""Widgets of the terminal app: clickable cards and choice chips, and the text
(Rich renderables) of cards, the players' table and the score sheet.

Everything drawn here comes from an ``Observation`` or from public hand
results: the app never hands a widget the game state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text
from textual.events import Click
from textual.message import Message
from textual.widgets import Static

from ... import Card, Event, HandResult, NameTrump, Observation, Phase, Play, Suit, Trick, standings
from ...describe import plural

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

    def show(
        self,
        card: Card | None,
        *,
        legal: bool,
        neutral: bool = False,
        blind: bool = False,
        keyed: bool = True,
    ) -> None:
        """Show ``card`` (``None`` and ``blind``: the back of one's own unseen card),
        marked playable or not (``neutral``: not the time to play). ``keyed``:
        with its key on top; while bidding the digits are bids, so no card shows
        a key that a digit would not play."""
        key = (card, legal, neutral, blind, keyed)
        if key == self._key:
            return  # unchanged: no repaint
        self._key = key
        self.card = card
        label = Text(CARD_KEYS[self.index] if keyed else " ", style="dim")
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


TABLE_WIDTH = 8


def hand_over_view(obs: Observation, result: HandResult) -> Observation:
    """``obs`` as the table shows it while the hand just over is on screen:
    that hand's number, size, dealer, bids and tricks (the state has already
    passed the deal to the next dealer)."""
    return replace(
        obs,
        phase=Phase.PLAY,
        hand_number=result.number - 1,
        hand_size=result.size,
        dealer=result.dealer,
        extra_hand=result.extra,
        trump=result.trump,
        turned=result.turned,
        trump_decided=True,
        bids=result.bids,
        has_bid=(True,) * obs.players,
        taken=result.tricks,
        actors=(),
        legal_actions=(),
    )


def players_table(
    obs: Observation,
    names: Sequence[str],
    kinds: Sequence[str],
    shown_trick: Trick | None,
    *,
    turn: set[int] | None = None,
    levels: bool = True,
) -> Table:
    """Each player's name, level (unless ``levels`` is off: the compact layout),
    bid, tricks and score, the card on the table. ``▶`` marks ``turn``, by
    default the seats whose turn it is."""
    n = obs.players
    table = Table(expand=True, box=None, padding=(0, 1), show_edge=False)
    table.add_column("", width=1)
    table.add_column("Player", ratio=3, no_wrap=True)
    table.add_column("Bid", justify="right")
    table.add_column("Took", justify="right")
    table.add_column("Score", justify="right")
    # As wide from the start as its widest cell ("10♥ wins"), so that the
    # columns do not shift when a trick's winner is shown.
    table.add_column("Table", justify="center", min_width=TABLE_WIDTH)
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
    if turn is None:
        turn = set()
        if shown_trick is None and obs.actors:
            # Sequential bidding lists the seat that may still change its bid second.
            simultaneous = obs.rules.bidding.value == "simultaneous"
            turn = set(obs.actors) if simultaneous or obs.phase.value != "bid" else {obs.actors[0]}
    for seat in range(n):
        marker = Text("▶", style="bold yellow") if seat in turn else Text("")
        name = Text(names[seat], style="bold" if seat == obs.seat else "")
        if kinds[seat] != "human" and levels:
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


SHEET_CAPTION = "b/t: bid/took, * a missed bid (a blob); pts: the hand's points; tot: the total"


def score_sheets(
    results: Sequence[HandResult], names: Sequence[str], width: int = 200, *, title: str | None = None
) -> list[Table]:
    """Every finished hand: bid/took, the hand's points and the running total
    per player, under the player's name. When all the players do not fit in
    ``width`` columns, the players are shared among several tables, each
    with the hand column, rather than cut short.

    Every cell of a player's column has the same width and a line under the
    name says what each number is, so the numbers stand under their names."""
    totals = [0] * len(names)
    rows: list[tuple[Text, list[tuple[str, bool]]]] = []
    for r in results:
        hand = Text(f"{r.number}{'+' if r.extra else ''}: {r.size} ")
        hand.append_text(
            Text(r.trump.symbol, style=suit_style(r.trump)) if r.trump is not None else Text("NT")
        )
        cells = []
        for s in range(len(names)):
            totals[s] += r.scores[s]
            cells.append((f"{r.bids[s]}/{r.tricks[s]}", r.bids[s] == r.tricks[s]))
            cells.append((str(r.scores[s]), True))
            cells.append((str(totals[s]), True))
        rows.append((hand, cells))
    # One width per kind of number, the same for every player: b/t, pts, tot.
    widths = [3, 3, 3]
    for _, cells in rows:
        for i, (text, _) in enumerate(cells):
            widths[i % 3] = max(widths[i % 3], len(text))
    w_bt, w_pts, w_tot = widths
    legend = f"{'b/t':>{w_bt}}  {'pts':>{w_pts}} {'tot':>{w_tot}}"
    caption = SHEET_CAPTION + ("; + a tie-break hand" if any(r.extra for r in results) else "")

    def table(seats: Sequence[int], first: bool, last: bool) -> Table:
        out = Table(
            title=title if first else None,
            caption=caption if last else None,
            caption_justify="left",
            header_style="bold",
            box=box.SIMPLE_HEAD,
            padding=(0, 1),
        )
        out.add_column("Hand", justify="left", no_wrap=True)
        for s in seats:
            header = Text.assemble((names[s], "bold"), "\n", (legend, "dim"))
            out.add_column(header, justify="center", no_wrap=True)
        for hand, cells in rows:
            line: list[Text | str] = [hand]
            for s in seats:
                (bt, made), (pts, _), (tot, _) = cells[3 * s : 3 * s + 3]
                cell = Text(f"{bt:>{w_bt}}")
                cell.append(" " if made else "*", style="" if made else "bold red")
                cell.append(f" {pts:>{w_pts}} {tot:>{w_tot}}")
                line.append(cell)
            out.add_row(*line)
        return out

    # As few tables as fit the width, the players shared out as evenly as can be;
    # each table is measured as Rich will draw it (padding, edges and all).
    console = Console(width=1000)
    seats = list(range(len(names)))
    for count in range(1, len(names) + 1):
        size = -(-len(names) // count)
        groups = [seats[k : k + size] for k in range(0, len(seats), size)]
        tables = [table(g, i == 0, i == len(groups) - 1) for i, g in enumerate(groups)]
        if all(console.measure(t).maximum <= width for t in tables):
            break
    return tables


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


def log_lines(event: Event, obs: Observation, names: Sequence[str], you: int) -> list[Text]:
    """The log's lines for one event (``obs``: the observation after it)."""

    def who(seat: int) -> str:
        return "You" if seat == you else names[seat]

    def verb(seat: int, mine: str, theirs: str) -> str:
        return f"{who(seat)} {mine if seat == you else theirs}"

    out: list[Text] = []
    action = event.action
    if event.kind == "deal":
        dealt = plural(obs.hand_size, "card")
        out.append(
            Text(f"— Hand {obs.hand_number + 1}: {verb(obs.dealer, 'deal', 'deals')} {dealt} —", "bold")
        )
    elif event.kind == "draw" and action is not None:
        line = Text("Draw: ")
        cards = [(seat, c) for seat, c in enumerate(getattr(action, "cards", ())) if c is not None]
        for k, (seat, card) in enumerate(cards):
            line.append(f"{', ' if k else ''}{'you' if seat == you else names[seat]} ")
            line.append_text(card_text(card))
        out.append(line)
        if event.dealer is not None:
            out.append(Text(verb(event.dealer, "deal", "deals") + " first."))
    elif event.kind in ("bid", "change"):
        if action is None:
            out.append(Text(f"{who(event.seat)} bid (sealed)"))
        else:
            said = (
                verb(event.seat, "bid", "bids")
                if event.kind == "bid"
                else verb(event.seat, "change", "changes")
            )
            out.append(
                Text(f"{said}{'' if event.kind == 'bid' else ' the bid to'} {getattr(action, 'bid', '?')}")
            )
    elif event.kind == "trump" and isinstance(action, NameTrump):
        out.append(Text.assemble(verb(event.seat, "name", "names") + " ", suit_text(action.suit)))
    elif event.kind == "play" and isinstance(action, Play) and action.card is not None:
        out.append(Text.assemble(verb(event.seat, "play", "plays") + " ", card_text(action.card)))
        if event.trick is not None:
            out.append(Text(f"  → {verb(event.trick.winner, 'win', 'wins')} the trick", "green"))
    if event.result is not None:
        r = event.result
        made = ", ".join(who(i) for i in range(len(names)) if r.bids[i] == r.tricks[i]) or "nobody"
        out.append(Text(f"Hand {r.number} over; made their bids: {made}", style="bold"))
    return out
