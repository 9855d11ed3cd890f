"""Who sits at a table: the host removing a person, a person leaving, the
host ending the table. A seat a person leaves during the match is played by
a bot for good; everyone at the table is told in a notice the chat keeps."""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlalchemy.exc import SQLAlchemyError

from ..storage.store import SeatRow
from .table import BOT, COVER_LEVEL, HUMAN, OPEN, LiveTable, TableError, bot_name

log = logging.getLogger("ohhell.web")


async def remove(table: LiveTable, seat: int) -> None:
    """The host removes a person: a bot takes the seat for good, and the
    person's token holds no seat and no voice here any more (they may
    still watch), nor does anyone from the addresses they came from
    (chat.py, ``TableChat.bar``). Stored, so a restart keeps it."""
    async with table.lock:
        s = table.seats[seat]
        if s.kind != HUMAN or seat == table.host_seat:
            raise TableError(f"seat {seat + 1} is not another person's seat", "seat")
        _save(lambda: _store_bot(table, seat))  # first: if it fails, nothing changed
        if table.status == "playing":
            _also(lambda: table.played.remove(seat, table.hub.store))  # not a leaver for the ratings
        _also(
            lambda: table.chat.bar(seat)
        )  # their addresses too: a new token or none gives them no voice or seat here
        _unseat(
            table,
            seat,
            "The host removed you from this table: a bot plays your seat. You can watch.",
            f"The host removed {s.name}: {bot_name(seat, COVER_LEVEL)}, a bot, plays the seat now.",
        )


async def leave(table: LiveTable, seat: int) -> None:
    """A person leaves the table: before the match their seat is open
    again; during it a bot plays the seat for good, as when the host
    removes someone. The host ends the table instead (``end``)."""
    async with table.lock:
        s = table.seats[seat]
        if s.kind != HUMAN:
            raise TableError("you have no seat here to leave", "seat")
        if seat == table.host_seat:
            raise TableError("you are the host: end the table instead (it ends for everyone)", "seat")
        if table.status == "lobby":
            name, token_hash = s.name, s.token_hash
            _save(lambda: table.hub.store.set_seat(table.id, SeatRow(seat, None, OPEN, None, None)))
            if token_hash is not None:
                _also(lambda: table.chat.remove(token_hash, left=True))
            s.name, s.kind, s.level, s.token_hash, s.covered = None, OPEN, None, None, False
            for conn in list(table.connections):
                if conn.seat == seat:
                    conn.watch()
                    s.connections -= 1
                    table.spectators += 1
                    conn.post_json({"type": "welcome", "seat": None, "host": False})
            tell(table, f"{name} left the table: the seat is open again.")
            table.broadcast_table()
            return
        if table.status != "playing":
            raise TableError("the match is over: there is nothing to leave", "turn")
        _save(lambda: _store_bot(table, seat))
        _unseat(
            table,
            seat,
            "You left the table: a bot plays your seat. You can still watch.",
            f"{s.name} left the table: {bot_name(seat, COVER_LEVEL)}, a bot, plays the seat now.",
            left=True,
        )


async def end(table: LiveTable, notice: str = "The host ended the table.", *, by_host: bool = True) -> None:
    """The host ends the table for everyone: the match stops where it is
    (status "ended"), its bots stop, and the record so far can still be
    downloaded and replayed. ``notice``: what the table is told (the
    server's host closing a table says so, admin.py, ``by_host`` false).
    A host who ends a match under way has left it, for the ratings: placed
    last, as a leaver is, so ending a match that goes badly costs what
    losing it does (the others are not rated by it)."""
    async with table.lock:
        if table.status not in ("lobby", "playing"):
            raise TableError("the table has ended already", "turn")
        rate = by_host and table.status == "playing" and table.host_seat in table.played.acted()
        if rate:  # first: a restart that finds the table ended rates it alike
            _save(lambda: table.played.end(table.host_seat, table.hub.store))
            _also(lambda: table.played.keep(table.hub.store))
        _save(lambda: table.hub.store.set_status(table.id, "ended"))
        table.claims.drop("withdrawn", "the host ended the table")
        table.status = "ended"
        log.info("table %s: the host ended it", table.id)
        tell(table, notice)
        table.changed_seats()
        table.broadcast_table()
        table.wake.set()
        if rate:
            table.hub.finished(table)


def tell(table: LiveTable, text: str) -> None:
    """A notice to everyone at the table: a line of the chat that every
    viewer hears, stored with it (chat.py's ``announce``)."""
    table.chat.announce(text, list(table.connections))


def _save(write: Callable[[], None]) -> None:
    """A write that must succeed before anything changes in memory: if the
    database refuses it (or is out of reach), the table stays as it was and
    the client is told."""
    try:
        write()
    except SQLAlchemyError as err:
        log.warning("a seat change could not be stored: %s", err)
        raise TableError(
            "the table could not be saved just now: nothing changed, try again", "storage", 503
        ) from err


def _also(write: Callable[[], None]) -> None:
    """A write that follows one already stored (the chat's removals): the
    change goes on if it fails; only a restart would forget it."""
    try:
        write()
    except SQLAlchemyError:
        log.exception("a removal from the chat could not be stored")


def _store_bot(table: LiveTable, seat: int) -> None:
    table.hub.store.set_seat(table.id, SeatRow(seat, bot_name(seat, COVER_LEVEL), BOT, COVER_LEVEL, None))


def _unseat(table: LiveTable, seat: int, to_them: str, to_table: str, *, left: bool = False) -> None:
    """During the match: a bot takes ``seat`` for good and its person's
    token holds no seat and no voice any more (they may still watch).
    Stored already (``_store_bot``), so a restart keeps it. The lock is held."""
    s = table.seats[seat]
    if table.claims.asking is not None and seat in table.claims.asking.waiting:
        table.claims.drop("withdrawn", f"{s.name} left before answering")
    if s.token_hash is not None:
        token_hash = s.token_hash
        _also(lambda: table.chat.remove(token_hash, left=left))
    level = COVER_LEVEL
    s.name, s.kind, s.level, s.token_hash, s.covered = bot_name(seat, level), BOT, level, None, False
    log.info("table %s: seat %d is a bot's now", table.id, seat)
    for conn in list(table.connections):
        if conn.seat == seat:
            conn.watch()
            conn.removed = True
            s.connections -= 1
            table.spectators += 1
            conn.post_json({"type": "error", "code": "removed", "error": to_them})
            conn.post_json({"type": "welcome", "seat": None, "host": False})
            if table.status != "lobby":
                conn.post(table.watcher_state())
    tell(table, to_table)
    table.changed_seats()
    table.broadcast_table()
    if table.status != "lobby":
        table.broadcast_state()
    table.wake.set()


__all__ = ["end", "leave", "remove", "tell"]
