"""What each seat's person did themselves, for the ratings (accounts/ratings.py):
the hints they asked for, the decisions they made, and those a bot made for
them (away, or out of time). Kept in the table's settings, the hints at
once and the counts at each hand's end, so a restart keeps them."""

from __future__ import annotations

import json
from typing import Final, Protocol

HINTED: Final = "hinted"
MOVES: Final = "moves"
REMOVED: Final = "removed"  # seats the host took from their person
ENDED_BY: Final = "ended_by"  # the seat of the host who ended the match, if one did


class Settings(Protocol):
    def set_setting(self, table_id: str, name: str, value: str) -> None: ...


class Played:
    """One table's record of who played its seats."""

    def __init__(self, table_id: str, seats: int, settings: dict[str, str]) -> None:
        self.table_id = table_id
        self.hinted = {int(s) for s in settings.get(HINTED, "").split(",") if s.isdigit()}
        self.removed = {int(s) for s in settings.get(REMOVED, "").split(",") if s.isdigit()}
        ended = settings.get(ENDED_BY, "")
        self.ended_by: int | None = int(ended) if ended.isdigit() else None
        self.own = [0] * seats
        self.covered = [0] * seats
        try:
            kept = json.loads(settings.get(MOVES) or "{}")
            own, covered = [int(n) for n in kept["own"]], [int(n) for n in kept["covered"]]
            if len(own) == len(covered) == seats:
                self.own, self.covered = own, covered
        except (ValueError, KeyError, TypeError):
            pass  # none kept yet, or unreadable: counted from here

    def hint(self, seat: int, store: Settings) -> None:
        if seat not in self.hinted:
            self.hinted.add(seat)
            store.set_setting(self.table_id, HINTED, ",".join(map(str, sorted(self.hinted))))

    def remove(self, seat: int, store: Settings) -> None:
        """The host took ``seat`` from its person: they did not choose to
        leave, so the match does not place them last (nor rate them)."""
        if seat not in self.removed:
            self.removed.add(seat)
            store.set_setting(self.table_id, REMOVED, ",".join(map(str, sorted(self.removed))))

    def end(self, seat: int, store: Settings) -> None:
        """The host at ``seat`` ended the match: for the ratings they left it."""
        self.ended_by = seat
        store.set_setting(self.table_id, ENDED_BY, str(seat))

    def count(self, seat: int, by: str) -> None:
        """A decision for ``seat``, made by its "person" or a bot "cover"ing it."""
        (self.own if by == "person" else self.covered)[seat] += 1

    def keep(self, store: Settings) -> None:
        store.set_setting(self.table_id, MOVES, json.dumps({"own": self.own, "covered": self.covered}))

    def acted(self) -> set[int]:
        """The seats whose person made a decision of their own."""
        return {s for s, own in enumerate(self.own) if own > 0}

    def played(self) -> set[int]:
        """The seats whose person made at least half of their decisions."""
        return {s for s, own in enumerate(self.own) if own > 0 and own >= self.covered[s]}
