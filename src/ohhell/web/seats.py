"""A table's seats in words and tokens, from the core alone: who may sit
where, how a bot is named, a seat's secret. The server's live tables
(web/tables/table.py) and the offline site's (web/local/table.py) both
seat people and bots by these, so a table is made alike on both.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from typing import Final

from .. import Rules
from ..bots import level_refusal, opponent_levels
from ..describe import BOT_SEAT_NAMES
from .errors import TableError

OPEN, HUMAN, BOT = "open", "human", "bot"
COVER_LEVEL: Final = "intermediate"  # plays a seat its person left, handed over, or is away from
SEARCHING: Final = frozenset({"expert"})  # levels that search for a set time a decision


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def bot_name(seat: int, level: str | None = None) -> str:
    """A bot's name: a first name by seat, as in the terminal. The level is
    not part of it: the page shows it under the name ("bot: expert"), and a
    name with the level in it was cut short on the table ("Chloe (inter…")."""
    return BOT_SEAT_NAMES[seat % len(BOT_SEAT_NAMES)]


def check_level(level: str, rules: Rules) -> None:
    """A bot level the table may have (``level_refusal``: some are made for
    one rule set alone), or ``TableError`` saying why not."""
    if level not in opponent_levels():
        raise TableError(f"unknown bot level {level!r}; levels are {', '.join(opponent_levels())}")
    why = level_refusal(level, rules)
    if why:
        raise TableError(why)


def seat_to_join(kinds: Sequence[str], seat: int | None) -> int:
    """The seat a person joining takes: ``seat``, or the first open one
    (None); ``TableError`` when there is none or it is taken."""
    if seat is None:
        seat = next((s for s, kind in enumerate(kinds) if kind == OPEN), None)
        if seat is None:
            raise TableError("every seat is taken", status=409)
    if not 0 <= seat < len(kinds):
        raise TableError(f"there is no seat {seat + 1}")
    if kinds[seat] != OPEN:
        raise TableError(f"seat {seat + 1} is taken", status=409)
    return seat


def check_all_seated(kinds: Sequence[str]) -> None:
    """A match starts with every seat taken, or ``TableError`` naming the open ones."""
    open_seats = [s for s, kind in enumerate(kinds) if kind == OPEN]
    if open_seats:
        raise TableError(
            f"seat {', '.join(str(s + 1) for s in open_seats)} is still open: "
            "wait for players or fill it with bots",
            status=409,
        )


def seat_plan(rules: Rules, kinds: Sequence[str], host_seat: int) -> list[tuple[str, str | None]]:
    """A new table's seats from what its host asked: each seat's kind
    ("human" for the host's own, OPEN for a person to come, BOT) and a bot's
    level; ``TableError`` saying which seat is wrong."""
    if len(kinds) != rules.players:
        raise TableError(f"a {rules.players}-player table needs {rules.players} seats, not {len(kinds)}")
    if not 0 <= host_seat < rules.players:
        raise TableError(f"your seat must be from 0 to {rules.players - 1}")
    plan: list[tuple[str, str | None]] = []
    for seat, kind in enumerate(kinds):
        if seat == host_seat:
            plan.append((HUMAN, None))
        elif kind == HUMAN:
            plan.append((OPEN, None))
        elif kind in opponent_levels():
            why = level_refusal(kind, rules)
            if why:
                raise TableError(f"seat {seat + 1}: {why}", field="seats")
            plan.append((BOT, kind))
        else:
            raise TableError(
                f"seat {seat}: {kind!r} is neither human nor a bot level ({', '.join(opponent_levels())})"
            )
    return plan


__all__ = [
    "BOT",
    "COVER_LEVEL",
    "HUMAN",
    "OPEN",
    "SEARCHING",
    "bot_name",
    "check_all_seated",
    "check_level",
    "new_token",
    "seat_plan",
    "seat_to_join",
    "token_hash",
]
