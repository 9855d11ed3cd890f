"""What the home page reads: its list of open tables (``GET /api/lobby``)
and the new-table form's words (``form_options``, in ``GET /api/options``).

A host marks a table public when making it; while it waits in its lobby
with a seat open it is listed here with its rules, the seats still free and
who sits already, so anyone can join it in one click. A private table (the
default) is never listed: its link is the only way in. At most
``PER_CREATOR`` tables made from one address, and ``PER_NAME`` under one
host's name, are listed (the newest), so one client making tables as fast as
its quota allows cannot push everyone else's off the list. The list is read
from the database, where joining writes first, so it is right for every
server process sharing the database; one answer is kept for a second, so a
crowd on the home page costs one query a second.

The form's words are for people: each option's help is one sentence on what
it does (the command line's help lists the values; a form's list shows them
already), each choice a few plain words, and ``shown_when`` says which
options matter only under some values of another (the trump rotation only
when trump rotates), so the page hides the others without knowing a rule.
They live in ``web/form.py`` (the offline site answers with them too) and
are named here as before.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from typing import Any, Final

from ..form import CHOICE_WORDS, FORM_HELP, SHOWN_WHEN, form_options, rules_words
from ..protocol import dumps
from ..storage.store import Store

LISTED: Final = 50  # open tables shown at most, newest first
PER_CREATOR: Final = 3  # ...of them made from one address
PER_NAME: Final = 3  # ...of them under one host's name (letter case aside)
FRESH: Final = 1.0  # seconds one answer is served again

Json = dict[str, Any]


def creator_key(address: str) -> str:
    """What a public table stores of the address that made it (its ``creator``
    setting), to cap its listings: a hash, so the database does not show
    addresses at a glance (a hash of an address is no secret: it can be
    found by trying addresses)."""
    return hashlib.sha256(f"ohhell-creator:{address}".encode()).hexdigest()[:24]


def open_tables(store: Store, limit: int = LISTED) -> list[Json]:
    """The public tables with a seat free, newest first, at most
    ``PER_CREATOR`` from one address and ``PER_NAME`` under one host name."""
    out = []
    listed = store.open_tables(limit, per_creator=PER_CREATOR, per_name=PER_NAME)
    for table_id, created, options, host_seat, seats in listed:
        free = [s.seat for s in seats if s.kind == "open"]
        if not free:
            continue  # full: the host starts it soon, nobody else can join
        host = next((s.name for s in seats if s.seat == host_seat), None)
        out.append(
            {
                "table": table_id,
                "title": f"{host}'s table" if host else "A table",
                "rules": rules_words(json.dumps(options, sort_keys=True)),
                "seats": len(seats),
                "seats_free": len(free),
                "players": [{"name": s.name, "bot": s.kind == "bot"} for s in seats if s.kind != "open"],
                "created": created,
            }
        )
    return out


class Lobby:
    """``GET /api/lobby``'s answer, made at most once a second, in a thread.

    The query is work in proportion to the public tables waiting (about 40 ms
    at 10,000 of them on SQLite, which waits in C with the interpreter's lock
    released), so it is made beside the event loop, once for every request
    that asks while it is being made.
    """

    def __init__(self, store: Store, now: Any = time.monotonic) -> None:
        self.store = store
        self.now = now
        self._made: tuple[float, str] | None = None
        self._making: asyncio.Future[str] | None = None
        self._changes = 0  # how many times a table was listed, joined or started here

    async def answer(self) -> str:
        now = self.now()
        if self._made is not None and now - self._made[0] < FRESH:
            return self._made[1]
        if self._making is None:
            self._making = asyncio.ensure_future(self._make(now))
        # Shielded: one visitor leaving does not cancel the others' answer.
        return await asyncio.shield(self._making)

    async def _make(self, now: float) -> str:
        changes = self._changes
        try:
            made = await asyncio.to_thread(lambda: dumps({"tables": open_tables(self.store)}))
        finally:
            self._making = None
        if changes == self._changes:  # else a table changed meanwhile: not kept
            self._made = (now, made)
        return made

    def changed(self) -> None:
        """A table was listed, joined or started here: the next answer is fresh."""
        self._made = None
        self._changes += 1


__all__ = ["CHOICE_WORDS", "FORM_HELP", "SHOWN_WHEN", "Lobby", "creator_key", "form_options", "open_tables"]
