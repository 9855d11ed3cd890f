"""Clients of a table held by another server process (cluster.py).

The process a browser connected to keeps its WebSocket; the table's holder
runs everything else. On this side (``Relay.serve``) every message the
client sends, once past this process's own limits, goes to the holder's
inbox; what the holder sends back is written to the socket by the usual
``Connection`` queue. On the holder's side the client is a
``RemoteConnection``: a connection like any other to the table, whose
messages go back to the relaying process, batched per turn of the loop
(one copy of a message meant for several of that process's clients).

If the holder dies, the relaying process closes its clients' sockets with
1012 (service restart); the page reconnects by itself, to a process that
holds the table by then. A relayed request (join, start, ...) is answered by
the holder in the same way (``call``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol

from .cluster import BEAT_EVERY, Cluster, Message
from .connection import Connection

if TYPE_CHECKING:
    from .table import LiveTable

log = logging.getLogger("ohhell.web")

RESTART: Final = 1012  # the WebSocket close code for "the server restarts": the page reconnects


class Holder(Protocol):
    """What the relay needs of the server holding tables (app.py's ``Server``)."""

    async def held(self, table_id: str) -> LiveTable | None: ...

    async def admit(
        self,
        table: LiveTable,
        hello: dict[str, Any],
        send: Callable[[str], Awaitable[None]],
        close: Callable[[int], Awaitable[None]],
        make: Callable[[int | None, bool], Connection],
        address: str,
    ) -> Connection | None: ...

    async def on_text(self, table: LiveTable, conn: Connection, text: str) -> None: ...

    async def table_op(self, table: LiveTable, op: str, data: dict[str, Any], address: str) -> Message: ...


class RemoteConnection(Connection):
    """A client of a table held here, connected to another process."""

    def __init__(self, relay: Relay, worker: str, cid: int, seat: int | None, host: bool) -> None:
        super().__init__(self._unused, seat, host)
        self.relay = relay
        self.worker = worker
        self.cid = cid

    @staticmethod
    async def _unused(text: str) -> None:  # pragma: no cover - post() sends
        raise AssertionError("a remote connection sends through its relay")

    def start(self) -> None:
        pass  # its messages go out with the relay's batch, not from a task of its own

    def post(self, text: str) -> None:
        if not self.closed:
            self.relay.out(self.worker, self.cid, text)

    def post_optional(self, text: str) -> None:
        self.post(text)  # the relaying process's own queue drops chat for a slow client

    async def stop(self) -> None:
        if self.hinting is not None:
            self.hinting.cancel()
        self.closed = True


@dataclass
class Remote:
    """Another process's client of a table held here."""

    worker: str
    cid: int
    inbox: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    table: LiveTable | None = None
    conn: Connection | None = None
    task: asyncio.Task[None] | None = None


@dataclass
class Relayed:
    """A client of this process whose table another process holds."""

    holder: str
    table: str
    conn: Connection
    close: Callable[[int], Awaitable[None]]
    gone: asyncio.Event = field(default_factory=asyncio.Event)


class Relay:
    """Both sides of relayed clients for one process; see the module docstring."""

    def __init__(self, cluster: Cluster, server: Holder) -> None:
        self.cluster = cluster
        self.server = server
        self._ids = itertools.count(1)
        self.relayed: dict[int, Relayed] = {}  # clients of this process, by id
        self.remote: dict[tuple[str, int], Remote] = {}  # other processes' clients of tables here
        self._pending: dict[str, dict[str, list[int]]] = {}
        self._flush_soon = False
        self._watch: asyncio.Task[None] | None = None
        cluster.on_message = self.receive

    def start(self) -> None:
        self._watch = asyncio.get_running_loop().create_task(self._watch_holders())

    async def close(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._watch
        for relayed in list(self.relayed.values()):
            with contextlib.suppress(Exception):
                await relayed.close(RESTART)
        for client in list(self.remote.values()):
            self.cluster.send(client.worker, {"t": "close", "c": client.cid, "code": RESTART})
            client.inbox.put_nowait(None)

    # --- This process's clients of tables held elsewhere ---

    async def serve(
        self,
        holder: str,
        table_id: str,
        hello: dict[str, Any],
        conn: Connection,
        receive: Callable[[], Awaitable[str | None]],
        close: Callable[[int], Awaitable[None]],
    ) -> None:
        """Relay one client until it leaves (``receive`` gives None) or its
        holder closes it. ``receive`` applies this process's own limits."""
        cid = next(self._ids)
        relayed = Relayed(holder, table_id, conn, close)
        self.relayed[cid] = relayed
        self.cluster.send(holder, {"t": "attach", "c": cid, "table": table_id, "hello": hello})
        try:
            while not conn.closed and not relayed.gone.is_set():
                text = await receive()
                if text is None:
                    break
                self.cluster.send(holder, {"t": "text", "c": cid, "text": text})
        finally:
            del self.relayed[cid]
            if not relayed.gone.is_set():
                self.cluster.send(holder, {"t": "detach", "c": cid})

    async def _watch_holders(self) -> None:
        """Close the sockets of clients whose table's holder died: they
        reconnect, and find the process that holds the table by then."""
        while True:
            await asyncio.sleep(BEAT_EVERY)
            dead = {r.holder for r in self.relayed.values() if not self.cluster.alive(r.holder)}
            for holder in list(dead):
                if await self.cluster.still_alive(holder):
                    dead.discard(holder)  # started after this process last looked
            for relayed in list(self.relayed.values()):
                if relayed.holder in dead and not relayed.gone.is_set():
                    log.info("table %s: its server went away; its clients reconnect", relayed.table)
                    await self._gone(relayed, RESTART)

    async def _gone(self, relayed: Relayed, code: int) -> None:
        relayed.gone.set()
        await relayed.conn.stop()  # what was queued is sent first
        with contextlib.suppress(Exception):
            await relayed.close(code)

    async def call(self, holder: str, message: Message) -> Message:
        """A request about a table held by ``holder``, answered there."""
        try:
            return await self.cluster.call(holder, {"t": "op", **message})
        except TimeoutError:
            return {"status": 503, "json": {"error": "the table's server did not answer: try again"}}

    # --- Messages from other processes ---

    async def receive(self, message: Message) -> None:
        kind = message.get("t")
        sender = str(message.get("from"))
        if kind == "out":
            for cid in message["c"]:
                relayed = self.relayed.get(cid)
                if relayed is not None:
                    relayed.conn.post(message["text"])
        elif kind == "close":
            relayed = self.relayed.get(message["c"])
            if relayed is not None:
                asyncio.get_running_loop().create_task(self._gone(relayed, int(message.get("code", RESTART))))
        elif kind == "attach":
            self._attach(sender, message)
        elif kind == "text":
            client = self.remote.get((sender, message["c"]))
            if client is not None:
                client.inbox.put_nowait(message["text"])
        elif kind == "detach":
            client = self.remote.pop((sender, message["c"]), None)
            if client is not None:
                client.inbox.put_nowait(None)
        elif kind == "op":
            asyncio.get_running_loop().create_task(self._op(message))

    def _attach(self, worker: str, message: Message) -> None:
        # Registered at once, so the client's next messages (which may come
        # while the table loads) queue up behind its arrival.
        cid = int(message["c"])
        client = Remote(worker, cid)
        self.remote[(worker, cid)] = client
        client.task = asyncio.get_running_loop().create_task(self._serve(client, message))

    async def _serve(self, client: Remote, message: Message) -> None:
        """One remote client: admitted to its table, then its messages in
        order, as if from a socket of this process."""
        worker, cid = client.worker, client.cid
        table = await self.server.held(str(message["table"]))
        if table is None:  # not held here (any more): the client reconnects and finds its holder
            self.remote.pop((worker, cid), None)
            self.cluster.send(worker, {"t": "close", "c": cid, "code": RESTART})
            return

        async def send(text: str) -> None:
            self.out(worker, cid, text)

        async def close(code: int) -> None:
            self.cluster.send(worker, {"t": "close", "c": cid, "code": code})

        def make(seat: int | None, host: bool) -> Connection:
            return RemoteConnection(self, worker, cid, seat, host)

        hello = dict(message["hello"])
        address = str(hello.pop("address", ""))  # the client's, as the relaying process saw it
        conn = await self.server.admit(table, hello, send, close, make, address)
        if conn is None:
            self.remote.pop((worker, cid), None)
            return
        client.table, client.conn = table, conn
        try:
            while True:
                text = await client.inbox.get()
                if text is None or conn.closed:
                    break
                await self.server.on_text(table, conn, text)
        finally:
            self.remote.pop((worker, cid), None)
            table.detach(conn)
            await conn.stop()

    def drop_table(self, table: LiveTable, code: int = RESTART) -> None:
        """A table stops being held here: its remote clients reconnect."""
        for client in list(self.remote.values()):
            if client.table is table:
                self.remote.pop((client.worker, client.cid), None)
                self.cluster.send(client.worker, {"t": "close", "c": client.cid, "code": code})
                client.inbox.put_nowait(None)

    async def _op(self, message: Message) -> None:
        table = await self.server.held(str(message.get("table")))
        if table is None:
            result: Message = {
                "status": 503,
                "json": {"error": "the table moved to another server: try again"},
            }
        else:
            result = await self.server.table_op(
                table, str(message["op"]), dict(message.get("data") or {}), str(message.get("address", ""))
            )
        self.cluster.answer(message, result)

    # --- Sending to other processes' clients ---

    def out(self, worker: str, cid: int, text: str) -> None:
        """Queue ``text`` for one remote client; flushed once per turn of the loop."""
        by_text = self._pending.setdefault(worker, {})
        by_text.setdefault(text, []).append(cid)
        if not self._flush_soon:
            self._flush_soon = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_soon = False
        pending, self._pending = self._pending, {}
        for worker, by_text in pending.items():
            for text, cids in by_text.items():
                self.cluster.send(worker, {"t": "out", "c": cids, "text": text})


__all__ = ["RESTART", "Relay", "RemoteConnection"]
