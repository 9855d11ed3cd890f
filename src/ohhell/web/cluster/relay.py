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
holds the table by then. If a relaying process dies, the holder lets its
clients go (their seats count as gone, then away, and a bot covers them).
When messages may have been lost (Redis restarted or could not be reached:
``Cluster.on_interrupted``), the clients concerned are closed with 1012 on
both sides, and start again from the table's current state. A relayed
request (join, start, ...) is answered by the holder in the same way
(``call``); one the encoder refuses is answered at once with a 400.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol

from ..errors import TableError
from ..protocol import ProtocolError, dumps, parse_message
from ..tables.connection import Connection
from .broker import BEAT_EVERY, CALL_TIMEOUT, Cluster, Message, Unsendable

if TYPE_CHECKING:
    from ..tables.table import LiveTable

log = logging.getLogger("ohhell.web")

RESTART: Final = 1012  # the WebSocket close code for "the server restarts": the page reconnects
BAD: Final = 4400  # the close code for a hello the server cannot take


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
    answered: bool = False  # has the holder sent it anything yet?


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
        cluster.on_interrupted = self.interrupted
        # A rematch's seat taken back for a player of the finished match
        # (hub.py's take_rematch_seat, set when the hub joins the cluster).
        self.rematch_seat: Callable[[LiveTable, int, str], Awaitable[tuple[str, int, str]]] = (
            self._no_rematches
        )

    @staticmethod
    async def _no_rematches(table: LiveTable, seat: int, token: str) -> tuple[str, int, str]:
        raise TableError("the rematch is not served here: try again", status=503)

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
        try:
            self.cluster.send(holder, {"t": "attach", "c": cid, "table": table_id, "hello": hello})
        except Unsendable:
            conn.post(
                dumps(
                    {
                        "type": "error",
                        "error": "the hello holds a value the server cannot read",
                        "code": "bad",
                    }
                )
            )
            await conn.stop()
            await close(BAD)
            return
        self.relayed[cid] = relayed
        # The holder answers every arrival at once (a welcome, an error, a
        # close). An arrival lost on the way (the holder's inbox was not
        # subscribed again yet after Redis came back) would leave the page
        # waiting for ever: it is closed instead, and reconnects.
        asyncio.get_running_loop().call_later(CALL_TIMEOUT, self._unanswered, cid, relayed)
        try:
            while not conn.closed and not relayed.gone.is_set():
                text = await receive()
                if text is None:
                    break
                try:
                    # Read here as the holder will read it: what it would refuse
                    # (too long, not JSON, unsafe values) never crosses the broker.
                    parse_message(text)
                except ProtocolError as err:
                    conn.post(dumps({"type": "error", "error": str(err), "code": "bad"}))
                    continue
                try:
                    self.cluster.send(holder, {"t": "text", "c": cid, "text": text})
                except Unsendable:  # text from a socket always encodes; refused, not fatal, if not
                    conn.post(
                        dumps({"type": "error", "error": "that message could not be read", "code": "bad"})
                    )
        finally:
            del self.relayed[cid]
            # Even when the holder closed it: a detach it no longer knows is nothing.
            self.cluster.send(holder, {"t": "detach", "c": cid})

    async def _watch_holders(self) -> None:
        """Now and then: close the sockets of clients whose table's holder
        died (they reconnect, and find the process that holds the table by
        then), and let go of the clients of tables here whose relaying
        process died (they count as gone, so a bot covers their seats)."""
        while True:
            await asyncio.sleep(BEAT_EVERY)
            try:
                await self._watch_once()
            except asyncio.CancelledError:
                raise
            except Exception as err:  # Redis away: look again on the next round
                log.warning("cluster: could not look at the other processes: %s", err)

    async def _watch_once(self) -> None:
        others = {r.holder for r in self.relayed.values()} | {c.worker for c in self.remote.values()}
        dead = {w for w in others if not self.cluster.alive(w)}
        for worker in list(dead):
            if await self.cluster.still_alive(worker):
                dead.discard(worker)  # started after this process last looked
        for relayed in list(self.relayed.values()):
            if relayed.holder in dead and not relayed.gone.is_set():
                log.info("table %s: its server went away; its clients reconnect", relayed.table)
                await self._gone(relayed, RESTART)
        for client in list(self.remote.values()):
            if client.worker in dead:
                log.info("a server relaying a client went away: the client is gone")
                self._let_go(client)

    def _let_go(self, client: Remote) -> None:
        """Stop serving another process's client here (it detaches from its table)."""
        if self.remote.get((client.worker, client.cid)) is client:
            del self.remote[(client.worker, client.cid)]
        client.inbox.put_nowait(None)

    def interrupted(self, workers: set[str] | None) -> None:
        """Messages to or from ``workers`` (None: any process) may have been
        lost: close the clients concerned, on both sides, so each page
        reconnects and starts again from the table's current state."""
        for relayed in list(self.relayed.values()):
            if (workers is None or relayed.holder in workers) and not relayed.gone.is_set():
                relayed.gone.set()  # at once: nothing more goes to the holder for it
                asyncio.get_running_loop().create_task(self._gone(relayed, RESTART))
        for client in list(self.remote.values()):
            if workers is None or client.worker in workers:
                self._let_go(client)
                with contextlib.suppress(Unsendable):
                    self.cluster.send(client.worker, {"t": "close", "c": client.cid, "code": RESTART})

    def _unanswered(self, cid: int, relayed: Relayed) -> None:
        if self.relayed.get(cid) is relayed and not relayed.answered and not relayed.gone.is_set():
            log.info(
                "table %s: its server did not answer a client's arrival; the client reconnects", relayed.table
            )
            relayed.gone.set()
            asyncio.get_running_loop().create_task(self._gone(relayed, RESTART))

    async def _gone(self, relayed: Relayed, code: int) -> None:
        relayed.gone.set()
        await relayed.conn.stop()  # what was queued is sent first
        with contextlib.suppress(Exception):
            await relayed.close(code)

    async def call(self, holder: str, message: Message) -> Message:
        """A request about a table held by ``holder``, answered there."""
        try:
            return await self.cluster.call(holder, {"t": "op", **message})
        except Unsendable:
            return {"status": 400, "json": {"error": "the request holds a value the server cannot read"}}
        except TimeoutError:
            return {"status": 503, "json": {"error": "the table's server did not answer: try again"}}

    # --- Messages from other processes ---

    async def receive(self, message: Message) -> None:
        kind = message.get("t")
        sender = str(message.get("from"))
        if kind == "out":
            for cid in message["c"]:
                relayed = self.relayed.get(cid)
                if relayed is not None and not relayed.gone.is_set():
                    relayed.answered = True
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
            else:
                # A client this process let go of (its messages were lost, or
                # its table moved): its page reconnects instead of waiting.
                self.cluster.send(sender, {"t": "close", "c": message["c"], "code": RESTART})
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
        elif message.get("op") == "rematch-seat":  # between processes only (hub.rematch)
            data = dict(message.get("data") or {})
            try:
                table_id, seat, _ = await self.rematch_seat(table, int(data["seat"]), str(data["token"]))
                result = {"json": {"table": table_id, "seat": seat}}
            except TableError as err:
                result = {"status": err.status, "json": {"error": str(err)}}
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
                try:
                    self.cluster.send(worker, {"t": "out", "c": cids, "text": text})
                except Unsendable:  # pragma: no cover - the server's own text always encodes
                    log.warning("a message for %d relayed clients could not be encoded", len(cids))


__all__ = ["RESTART", "Relay", "RemoteConnection"]
