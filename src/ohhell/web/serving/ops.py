"""What a host runs beside the game: health and the drain (health.py),
metrics (metrics.py), the host's orders and bars (admin.py), the log's
format (logs.py). ``Ops`` is the one object the application starts and
stops with them; ``Gate`` is the middleware in front of every route that
refuses barred addresses, refuses new work while the process hands its
tables over, and keeps each open socket (to close it on a drain or a bar,
and to time actions at it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

from ..tables.seating import end
from ..tables.table import BOT, HUMAN, LiveTable, TableError
from . import admin, logs, metrics
from .guard import client_address
from .health import Health, Server

log = logging.getLogger("ohhell.web")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

SAMPLE_EVERY: Final = 1.0  # seconds between samples of the gauges
ORDERS_EVERY: Final = 1.0  # seconds between looks for the host's orders
LAG_EVERY: Final = 0.5  # seconds between the relay's lag probes
BARRED: Final = 4403  # the close code of a barred address's socket
TOO_MANY: Final = 4429  # the close code of a socket past a limit of sockets at once (app.py)
_OPEN_PATHS: Final = ("/healthz", "/readyz")  # answered to anyone, whatever happens


class Socket:
    """One open WebSocket of this process."""

    __slots__ = ("address", "send", "watch")

    def __init__(self, address: str, send: Send) -> None:
        self.address = address
        self.send = send
        self.watch = metrics.SocketWatch()


class Ops:
    """A server process's health, metrics, orders and bars."""

    def __init__(self) -> None:
        self.sockets: set[Socket] = set()
        self.health = Health(self.close_sockets)
        self.bans = admin.Bans()
        self.server: Server | None = None
        self._last_order = 0
        self._tasks: list[asyncio.Task[None]] = []

    # --- Starting and stopping (the application's lifespan) ---

    async def start(self, server: Server) -> None:
        assert server.store is not None and server.hub is not None
        self.server = server
        logs.configure_from_environment()
        metrics.count_errors()
        engine = server.store.engine
        self.bans.set([n for n, _, _ in await asyncio.to_thread(admin.barred_networks, engine)])
        self._last_order = await asyncio.to_thread(admin.last_order, engine)
        for table_id in await asyncio.to_thread(admin.unfinished_closes, engine):
            await self._close_table(table_id)  # ordered while no process held it
        self.health.start(server)
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._sample()), loop.create_task(self._follow_orders())]
        if server.hub.cluster is not None:
            self._tasks.append(loop.create_task(self._probe_lag()))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []

    # --- The gate in front of the routes ---

    def close_sockets(self, code: int, address_barred: Callable[[str], bool] | None = None) -> None:
        """Close this process's sockets (those of barred addresses only, if given)."""
        for socket in list(self.sockets):
            if address_barred is None or address_barred(socket.address):
                self.sockets.discard(socket)
                asyncio.get_running_loop().create_task(_close(socket.send, code))

    async def _sample(self) -> None:
        while True:
            try:
                self.sample()
            except Exception:
                log.exception("metrics: sampling the tables failed")
            await asyncio.sleep(SAMPLE_EVERY)

    def sample(self) -> None:
        """Set the gauges from the server's state."""
        server = self.server
        if server is None or server.hub is None:
            return
        statuses: Counter[str] = Counter()
        humans = connected = bots = 0
        for table in list(server.hub.tables.values()):
            statuses[table.status] += 1
            for seat in table.seats:
                if seat.kind == HUMAN:
                    humans += 1
                    connected += seat.connections > 0
                elif seat.kind == BOT:
                    bots += 1
        for status in ("lobby", "playing", "over", "ended"):
            metrics.tables.labels(status=status).set(statuses[status])
        metrics.seats.labels(kind="human").set(humans)
        metrics.seats.labels(kind="connected").set(connected)
        metrics.seats.labels(kind="bot").set(bots)
        metrics.sockets.set(len(self.sockets))
        metrics.thinking_waiting.set(server.hub.thinkers.waiting)
        metrics.thinking_running.set(server.hub.thinkers.running)
        metrics.reviews_running.set(len(server.reviews.jobs))

    async def _probe_lag(self) -> None:
        """Now and then a message to this process's own inbox, through the
        broker; the cluster reads its time when it comes back (relay lag)."""
        assert self.server is not None and self.server.hub is not None
        cluster = self.server.hub.cluster
        assert cluster is not None
        while True:
            await asyncio.sleep(LAG_EVERY)
            with contextlib.suppress(Exception):
                cluster.send(cluster.worker, {"t": "lag", "at": time.time()})

    # --- The host's orders ---

    async def _follow_orders(self) -> None:
        while True:
            await asyncio.sleep(ORDERS_EVERY)
            try:
                await self.follow_orders()
            except Exception:
                log.exception("admin: reading the host's orders failed")

    async def follow_orders(self) -> None:
        """Carry out this process's part of each order given since the last look."""
        assert self.server is not None and self.server.store is not None
        engine = self.server.store.engine
        orders = await asyncio.to_thread(admin.orders_after, engine, self._last_order)
        for order in orders:
            self._last_order = order.number
            if order.kind == "announce":
                self.announce(order.target)
            elif order.kind == "close":
                await self._close_table(order.target)
            elif order.kind in ("ban", "unban"):
                self.bans.set([n for n, _, _ in await asyncio.to_thread(admin.barred_networks, engine)])
                self.close_sockets(BARRED, self.bans.barred)
                log.info(
                    "admin: %s %s", "barred" if order.kind == "ban" else "no longer barred", order.target
                )

    def announce(self, words: str) -> None:
        """A notice from the host to everyone at every table held here."""
        assert self.server is not None and self.server.hub is not None
        text = json.dumps({"type": "notice", "text": words})
        count = 0
        for table in list(self.server.hub.tables.values()):
            for conn in list(table.connections):
                conn.post(text)
                count += 1
        log.info("admin: a notice to %d connections", count)

    async def _close_table(self, table_id: str) -> None:
        assert self.server is not None and self.server.hub is not None
        found = await self.server.hub.find(table_id)
        if not isinstance(found, LiveTable):
            return  # no such table, or another process holds it and closes it
        with contextlib.suppress(TableError):  # it had ended already
            await end(found, admin.CLOSE_WORDS, by_host=False)  # nobody's doing: not rated
            log.info("table %s: closed by the server's host", table_id)


class Gate:
    """The middleware in front of every route (the module docstring)."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], ops: Ops) -> None:
        self.app = app
        self.ops = ops

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            if scope["path"] in _OPEN_PATHS:
                await self.app(scope, receive, send)
            elif self.ops.bans and self.ops.bans.barred(client_address(scope)):
                await _refuse(send, 403, "this address may not use this server")
            elif self.ops.health.closing:
                await _refuse(send, 503, "this server is restarting: try again in a moment")
            else:
                await self.app(scope, receive, send)
            return
        if kind != "websocket":
            await self.app(scope, receive, send)
            return
        address = client_address(scope)
        if self.ops.bans.barred(address) or self.ops.health.closing:
            # Accepted, then closed with a code the page understands: a
            # barred address is told so; a client of a stopping server
            # reconnects (and the balancer sends it to another).
            await receive()  # websocket.connect
            await send({"type": "websocket.accept"})
            code = BARRED if self.ops.bans.barred(address) else 1012
            await send({"type": "websocket.close", "code": code})
            return
        socket = Socket(address, send)

        async def receiving() -> Message:
            message = await receive()
            if message["type"] == "websocket.receive":
                socket.watch.received(message.get("text"))
            return message

        async def sending(message: Message) -> None:
            if message["type"] == "websocket.send":
                socket.watch.sent(message.get("text"))
            elif message["type"] == "websocket.close" and message.get("code") == TOO_MANY:
                metrics.count_refusal("at_once")  # sockets per address, or watchers per table
            await send(message)

        self.ops.sockets.add(socket)
        try:
            await self.app(scope, receiving, sending)
        finally:
            self.ops.sockets.discard(socket)


async def _close(send: Send, code: int) -> None:
    with contextlib.suppress(Exception):
        await send({"type": "websocket.close", "code": code})


async def _refuse(send: Send, status: int, words: str) -> None:
    body = json.dumps({"error": words}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 503:
        headers += [(b"retry-after", b"1"), (b"connection", b"close")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


__all__ = ["BARRED", "Gate", "Ops"]
