"""What a table looks like to its clients: the ``state`` message of each
seat, the last action as each seat may see it, the public table (the
``table`` message and ``GET /api/tables/{table}``), its title and its record.

Built from the referee (``ohhell.Match``) and the seats alone, with the
standard library and our core, so that the server (``tables/table.py``) and
the offline site's worker (``web/local``) send the very same messages: one
table page, two transports (docs/site.md). Redaction stays in the core:
every observation comes from ``observe(state, seat)`` and every seen action
from ``Match.seen``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .. import Claim, Match, Play, Record, Rules, observe
from ..describe import describe_rules
from .protocol import Json, observation_json, seen_json, trick_json


class SeatLike(Protocol):
    """What these messages read of a seat (the server's and the worker's ``Seat``)."""

    @property
    def seat(self) -> int: ...

    @property
    def name(self) -> str | None: ...

    @property
    def kind(self) -> str: ...

    @property
    def level(self) -> str | None: ...


def table_seed(seed: int, purpose: str, *numbers: int) -> str:
    """The seed string of a table's deals (purpose "deal", no numbers: see
    ``chance_seed``) and of its bots' choices ("bot", version, seat).

    A string seed is hashed (SHA-512) by ``random.seed``: the same stream in
    every process, so a restarted server deals what it would have dealt, a
    worker process thinks what the server itself would have, and the
    offline site's worker, given the same table seed, deals the same cards
    and its bots choose the same moves."""
    return f"ohhell-serve:{seed}:{purpose}:{':'.join(str(n) for n in numbers)}"


def chance_seed(seed: int) -> str:
    """The seed of a table's referee's chance (``seeded_chance``)."""
    return f"ohhell-serve:{seed}"


def seat_names(seats: Sequence[SeatLike]) -> list[str]:
    """Each seat's name as the others see it; an open seat by its number."""
    return [s.name or f"Seat {s.seat + 1}" for s in seats]


def table_title(seats: Sequence[SeatLike], host_seat: int) -> str:
    """The table's name for people: its host's ("Ann's table"), not its id."""
    host = seats[host_seat].name if 0 <= host_seat < len(seats) else None
    return f"{host}'s table" if host else "A table"


def seen_last(match: Match, viewer: int | None) -> Json | None:
    """The last action as ``viewer`` may see it (docs/web.md): the
    referee's redaction (``view.seen_action``), in the protocol's words."""
    seen = match.seen(viewer)
    if seen is None:
        return None
    out = seen_json(seen)
    st = match.state
    if isinstance(seen, Play) and not st.trick and st.tricks:
        # The play finished a trick: its cards and winner, also for the
        # last trick of a hand, which the next observation no longer holds.
        out["trick"] = trick_json(st.tricks[-1], st.players)
    return out


def state_json(
    match: Match,
    seat: int | None,
    names: Sequence[str],
    *,
    last: Json | None,
    clocks: list[Json],
    change_wait: Json | None,
    claims: Json | None,
) -> Json:
    """The ``state`` message for ``seat`` (None: a watcher): its own
    observation only, never the state."""
    obs = observe(match.state, seat)
    return {
        "type": "state",
        "version": match.version,
        "obs": observation_json(obs, names, can_change=match.can_change(seat)),
        "last": last,
        "clocks": clocks,
        "change_wait": change_wait,
        "claims": claims,
    }


def public_json(
    *,
    table_id: str,
    seats: Sequence[SeatLike],
    host_seat: int,
    status: str,
    listed: bool,
    rematch: Json | None,
    silenced: Sequence[int],
    silenced_watchers: Sequence[str],
    options: dict[str, str],
    rules: Rules,
    version: int,
    clock: float,
    clocks: list[Json],
    spectators: int,
    connected: Sequence[bool],
    away: Sequence[bool],
) -> Json:
    """The public table (``GET /api/tables/{table}`` and the ``table``
    message without its type); ``connected`` and ``away`` by seat."""
    return {
        "table": table_id,
        "title": table_title(seats, host_seat),
        "status": status,
        "public": listed,
        "rematch": rematch,
        "silenced": sorted(silenced),  # seats the host muted for everyone
        "silenced_watchers": sorted(silenced_watchers),  # watchers, by name
        "rules": options,
        "description": describe_rules(rules),
        "host_seat": host_seat,
        "version": version,
        "clock": clock,
        "clocks": clocks,  # fresh here too: a cover or a return restarts one
        # The most cards a hand of this match can have: the page keeps room
        # for that many bid buttons from the start, so nothing moves later.
        "most_cards": max(rules.schedule),
        "spectators": spectators,
        "seats": [
            {
                "seat": s.seat,
                "name": s.name,
                "kind": s.kind,
                "level": s.level,
                "connected": connected[i],
                "away": away[i],
            }
            for i, s in enumerate(seats)
        ],
    }


def table_record(
    match: Match, seats: Sequence[SeatLike], table_id: str, claims: Sequence[Claim], app: str
) -> Record:
    """The game record of the table (``ohhell replay`` reads it); ``app``
    names what kept it ("ohhell serve", "ohhell site")."""
    kinds = ",".join(s.level or "bot" if s.kind == "bot" else "human" for s in seats)
    tags = (("app", app), ("table", table_id), ("kinds", kinds))
    return Record.from_state(match.state, seat_names(seats), tags, claims=list(claims))


def table_message(public: Json) -> Json:
    """The ``table`` message: the public table, typed."""
    return {"type": "table", **public}


__all__ = [
    "SeatLike",
    "chance_seed",
    "public_json",
    "seat_names",
    "seen_last",
    "state_json",
    "table_message",
    "table_record",
    "table_seed",
    "table_title",
]
