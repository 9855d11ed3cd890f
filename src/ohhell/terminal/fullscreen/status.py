"""The status lines of the full screen: what you are asked now (a bid, a
card, trump), the countdowns (the bid-change grace, the wait for a bid's
second digit), the trick just won, then an error or a note, and the balance
of bids against tricks."""

from __future__ import annotations

import math

from rich.text import Text

from ... import Observation, Trick
from ...describe import balance_words
from ..session import Session
from .widgets import card_text


def status_text(
    session: Session,
    obs: Observation,
    mode: str,
    typed: tuple[str, int],
    waiting: int | None,
    shown_trick: Trick | None,
    thinking: int | None,
    error: str | None,
    note: Text | None,
) -> Text:
    """Up to three lines. ``typed``: the digits of a bid typed so far and the
    seconds left before they are taken as the bid; ``waiting``: while you may
    change your bid, the seat that bids next (it waits)."""
    digits, digit_left = typed
    s = session
    lines: list[Text] = []
    if mode == "bid":
        ask = f"Your bid: press 0-{obs.hand_size} or click"
        if obs.devils_bridge:
            ask = "You see everyone's card but your own. " + ask
        if digits:
            ask += f" (so far {digits}: another digit, or Enter; {digits} in {digit_left} s)"
        if obs.forbidden_bid is not None:
            ask += f". The hook forbids {obs.forbidden_bid}"
        if obs.rules.bidding.value == "simultaneous":
            ask += ". Bids are sealed until all are in"
        lines.append(Text(ask + ".", style="bold"))
    elif mode == "change":
        nxt = s.names[waiting if waiting is not None else s.human]
        left = math.ceil(s.change_left() or 0)
        said = f"You bid {obs.bids[s.human]}. {nxt} bids in {left} s: "
        if digits:
            said += f"so far {digits}: another digit, or Enter ({digits} in {digit_left} s)."
        else:
            said += f"press a digit to change your bid, Enter to let {nxt} bid now."
        lines.append(Text(said, "bold"))
    elif mode == "trump":
        lines.append(Text("You bid highest: name trump, 1 ♣  2 ♦  3 ♥  4 ♠  5 no trump.", style="bold"))
    elif mode == "play":
        if obs.devils_bridge:
            lines.append(Text("Your turn: play the card you cannot see (press 1 or click it).", "bold"))
        else:
            lines.append(Text("Your turn: play a card (playable cards are highlighted).", style="bold"))
    elif mode == "continue" and shown_trick is not None:
        t = shown_trick
        card = t.cards[(t.winner - t.leader) % obs.players]
        who = "You win" if t.winner == s.human else f"{s.names[t.winner]} wins"
        lines.append(Text.assemble((f"{who} the trick with ", "bold"), card_text(card), ". Press Enter."))
    elif mode == "over":
        lines.append(Text("The match is over.", style="bold"))
    elif thinking is not None:
        lines.append(Text(f"{s.names[thinking]} is thinking…", style="italic"))
    else:
        lines.append(Text(""))
    if error:
        lines.append(Text(error, style="bold red"))
    elif note is not None:
        lines.append(note)
    balance = balance_words(obs)
    if balance:
        lines.append(Text(balance[0].upper() + balance[1:] + ".", style="cyan"))
    out = Text()
    for i, line in enumerate(lines[:3]):
        if i:
            out.append("\n")
        out.append_text(line)
    return out
