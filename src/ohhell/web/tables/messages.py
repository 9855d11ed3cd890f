"""What a client of a table may ask over its WebSocket (docs/web.md,
"WebSocket"): its actions, its answers to claims, the host's say over the
seats, chat and mutes; and hints (``hint``: they share the thinking with
the bots).
"""

from __future__ import annotations

from ... import observe
from ..asked import action_asked, seat_to_cover
from ..errors import TableError
from ..protocol import Json, ProtocolError, action_json
from . import seating
from .chat import REACTIONS, clean_text, parse_mutes, watcher_name
from .connection import Connection
from .table import LiveTable
from .thinking import Thinkers


async def handle(table: LiveTable, conn: Connection, message: Json) -> None:
    """One message from a client of ``table`` (not a hint): ``TableError`` or
    ``ProtocolError`` if refused, nothing changed."""
    kind = message["type"]
    if kind == "ping":
        conn.post_json({"type": "pong"})
        return
    if kind in ("chat", "react", "mute", "silence", "remove"):
        await _social(table, conn, message)
        return
    if kind not in ("act", "keep", "back", "replace", "leave", "end", "claim", "answer"):
        raise ProtocolError(
            f"unknown message type {kind!r}: act, keep, back, replace, leave, end, claim, answer, "
            "hint, ping, chat, react, mute, silence or remove"
        )
    if conn.seat is None:
        raise TableError("you are watching: only a seated player may act", "seat")
    if kind == "claim":
        tricks = message.get("tricks")
        if type(tricks) is not int:
            raise ProtocolError('"tricks" must be how many of the tricks left you claim (0 for none)')
        await table.claims.make(conn.seat, tricks)
        return
    if kind == "answer":
        accept = message.get("accept")
        if type(accept) is not bool:
            raise ProtocolError('"accept" must be true (accept the claim) or false (refuse it)')
        await table.claims.answer(conn.seat, accept)
        return
    if kind == "leave":
        await seating.leave(table, conn.seat)
        return
    if kind == "end":
        if not conn.host:
            raise TableError("only the table's host may end the table", "seat")
        await seating.end(table)
        return
    if kind == "keep":
        await table.keep(conn.seat)
        return
    if kind == "back":
        table.uncover(conn.seat)
        return
    if kind == "replace":
        await table.cover(seat_to_cover(message, conn.seat, conn.host, len(table.seats)))
        return
    action, version = action_asked(message, conn.seat)
    await table.act(conn.seat, action, version)


async def _social(table: LiveTable, conn: Connection, message: Json) -> None:
    """Chat, reactions, a viewer's mutes, and the host's mute and removal (chat.py)."""
    kind = message["type"]
    if kind == "chat":
        name = None if conn.seat is not None else watcher_name(message.get("name"))
        table.speak(conn, "chat", clean_text(message.get("text")), name)
    elif kind == "react":
        reaction = message.get("reaction")
        if not isinstance(reaction, str) or reaction not in REACTIONS:
            raise ProtocolError(f'"reaction" must be one of {", ".join(REACTIONS)}')
        name = None if conn.seat is not None else watcher_name(message.get("name"))
        table.speak(conn, "reaction", REACTIONS[reaction], name)
    elif kind == "mute":
        who = message.get("who")
        (muted,) = parse_mutes([who], len(table.seats))
        on = message.get("on", True)
        if type(on) is not bool:
            raise ProtocolError('"on" must be true (mute) or false (hear again)')
        (conn.muted.add if on else conn.muted.discard)(muted)
    else:  # the host's: "silence" (mute for everyone) and "remove"
        if not conn.host:
            raise TableError("only the table's host may do that", "seat")
        if kind == "silence" and "watcher" in message:  # a watcher, by the name they chat under
            on = message.get("on", True)
            if type(on) is not bool:
                raise ProtocolError('"on" must be true (mute) or false (let them speak again)')
            table.chat.silence_watcher(watcher_name(message["watcher"]), on)
            return
        seat = message.get("seat")
        if type(seat) is not int or not 0 <= seat < len(table.seats):
            raise ProtocolError(f'"seat" must be a seat from 0 to {len(table.seats) - 1}')
        if kind == "remove":
            await seating.remove(table, seat)
        else:
            on = message.get("on", True)
            if type(on) is not bool:
                raise ProtocolError('"on" must be true (mute) or false (let them speak again)')
            table.silence(seat, on)


__all__ = ["handle"]


async def hint(table: LiveTable, conn: Connection, thinkers: Thinkers, think: float) -> None:
    """A hint for ``conn``'s seat, searched where the bots think (each takes
    its turn as the asking address's); the match is then not rated for it."""
    if conn.seat is None:
        conn.post_json({"type": "error", "error": "hints are for seated players", "code": "seat"})
        return
    version = table.version
    obs = observe(table.state, conn.seat)
    if not obs.legal_actions:
        conn.post_json({"type": "error", "error": "you have nothing to choose now", "code": "turn"})
        return
    seed = f"hint:{table.id}:{version}:{conn.seat}"
    # Hints share the workers with every table's bots: each takes its
    # turn as the asking address's (a few at a time; thinking.py).
    try:
        found = await thinkers.hint(obs, seed, min(think, 1.0), owner=conn.address, table=table.id)
    except TableError as err:
        conn.post_json({"type": "error", "error": str(err), "code": err.code})
        return
    if found is None:  # pragma: no cover - legal actions exist
        return
    table.played.hint(conn.seat, table.hub.store)
    conn.post_json(
        {
            "type": "hint",
            "version": version,
            "action": action_json(found.action),
            "expected": round(found.expected, 3),
            "ranked": [
                {"action": action_json(e.action), "expected": round(e.expected, 3)} for e in found.ranked
            ],
        }
    )
