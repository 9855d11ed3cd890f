"""The home page's list of open tables (``GET /api/lobby``).

A host marks a table public when making it; while it waits in its lobby
with a seat open it is listed here with its rules, the seats still free and
who sits already, so anyone can join it in one click. A private table (the
default) is never listed: its link is the only way in. The list is read
from the database, where joining writes first, so it is right for every
server process sharing the database; one answer is kept for a second, so a
crowd on the home page costs one query a second.
"""

from __future__ import annotations

import functools
import json
import time
from typing import Any, Final

from .. import make_rules
from ..describe import rules_title
from .protocol import dumps
from .store import Store

LISTED: Final = 50  # open tables shown at most, newest first
FRESH: Final = 1.0  # seconds one answer is served again

Json = dict[str, Any]


@functools.lru_cache(maxsize=512)
def _rules_words(options: str) -> str:
    """``pagat rules with hook no, 4 players``: a table's rules in a line (the
    same options come again and again: worded once)."""
    return rules_title(make_rules("pagat", json.loads(options)))


def open_tables(store: Store, limit: int = LISTED) -> list[Json]:
    """The public tables with a seat free, newest first."""
    out = []
    for table_id, created, options, host_seat, seats in store.open_tables(limit):
        free = [s.seat for s in seats if s.kind == "open"]
        if not free:
            continue  # full: the host starts it soon, nobody else can join
        host = next((s.name for s in seats if s.seat == host_seat), None)
        out.append(
            {
                "table": table_id,
                "title": f"{host}'s table" if host else "A table",
                "rules": _rules_words(json.dumps(options, sort_keys=True)),
                "seats": len(seats),
                "seats_free": len(free),
                "players": [{"name": s.name, "bot": s.kind == "bot"} for s in seats if s.kind != "open"],
                "created": created,
            }
        )
    return out


class Lobby:
    """``GET /api/lobby``'s answer, made at most once a second."""

    def __init__(self, store: Store, now: Any = time.monotonic) -> None:
        self.store = store
        self.now = now
        self._made: tuple[float, str] | None = None

    def answer(self) -> str:
        now = self.now()
        if self._made is None or now - self._made[0] >= FRESH:
            self._made = (now, dumps({"tables": open_tables(self.store)}))
        return self._made[1]

    def changed(self) -> None:
        """A table was listed, joined or started here: the next answer is fresh."""
        self._made = None


__all__ = ["Lobby", "open_tables"]
