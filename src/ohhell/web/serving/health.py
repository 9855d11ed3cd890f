"""Health for load balancers and orchestrators, and a clean stop
(docs/hosting.md, "Health").

- ``GET /healthz``: the process is alive and its event loop answers
  (nothing else is asked: cheap enough to poll every second).
- ``GET /readyz``: the process can take players: its database answers, its
  broker (if any) still holds its heartbeat, and it is not stopping. 503
  with the reason in words otherwise. The answer is kept for a second, so
  polling it often costs the database one query a second at most.
- On SIGTERM (a rolling restart, an orchestrator moving the process) the
  process drains: ``/readyz`` answers 503 at once, so the balancer sends
  new visitors elsewhere; after ``--drain`` seconds it hands its tables
  over (lets go of them, so another process takes each at once, its bots
  and clocks included), closes every socket with 1012 ("service restart":
  the page reconnects, through the balancer, to a process that serves the
  table by then) and stops. A second SIGTERM stops it at once.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any, Final, Protocol

from sqlalchemy import text
from starlette.requests import Request
from starlette.responses import JSONResponse

from ..cluster.hub import Hub
from ..storage.store import Store
from . import metrics
from .guard import Quotas
from .reviews import Reviews

log = logging.getLogger("ohhell.web")

DRAIN_ENVIRONMENT: Final = "OHHELL_DRAIN"  # seconds between SIGTERM and the hand-over (--drain)
CHECK_TIMEOUT: Final = 2.0  # seconds the database or the broker has to answer /readyz
KEPT: Final = 1.0  # seconds a /readyz answer is kept
RESTART: Final = 1012  # the WebSocket close code the page reconnects after


class Server(Protocol):
    """What health and ops need of the server (app.py's ``Server``)."""

    store: Store | None
    hub: Hub | None
    reviews: Reviews
    quotas: Quotas


class Health:
    """A server process's readiness and its drain; see the module docstring."""

    def __init__(self, close_sockets: Callable[[int], None]) -> None:
        self.close_sockets = close_sockets  # every socket of this process, with this code
        self.draining = False  # SIGTERM came: not ready
        self.closing = False  # the tables are being handed over: nothing new is served
        self.wait = 0.0  # seconds from SIGTERM to the hand-over (--drain), read at start
        self.server: Server | None = None
        self._answer: tuple[float, int, dict[str, Any]] | None = None
        self._stop: Callable[[], None] | None = None
        self._draining: asyncio.Task[None] | None = None

    def start(self, server: Server) -> None:
        """Take over SIGTERM from uvicorn (which stops at once): drain first.
        Only in the main thread of a process uvicorn runs (not under tests'
        in-process clients)."""
        self.server = server
        self.wait = float(os.environ.get(DRAIN_ENVIRONMENT, "0") or 0)
        if threading.current_thread() is not threading.main_thread():
            return
        previous = signal.getsignal(signal.SIGTERM)
        if not callable(previous):
            return  # not run by uvicorn: SIGTERM keeps its default
        loop = asyncio.get_running_loop()
        self._stop = lambda: previous(signal.SIGTERM, None)
        try:
            loop.add_signal_handler(signal.SIGTERM, self.on_sigterm)
        except (NotImplementedError, RuntimeError, ValueError):  # pragma: no cover - no signals here
            self._stop = None

    def on_sigterm(self) -> None:
        if self._draining is not None:
            log.warning("a second SIGTERM: stopping now")
            self._exit()
            return
        self._draining = asyncio.get_running_loop().create_task(self.drain())

    async def drain(self) -> None:
        """Not ready at once; the tables handed over after ``wait`` seconds; then stop."""
        self.draining = True
        metrics.draining.set(1)
        log.info("stopping: not ready from now on; handing the tables over in %g s", self.wait)
        try:
            if self.wait:
                await asyncio.sleep(self.wait)
            await self.hand_over()
        finally:
            self._exit()

    async def hand_over(self) -> None:
        """Hand every table held here to the other processes and close every
        socket with 1012, in this order: nothing new is served; the tables'
        bots and clocks stop; in a cluster this process leaves it (its
        heartbeat goes), so each of its tables is one whose holder is gone and
        another process takes it on its next look, half a second at most,
        whether or not anyone is connected; then the sockets close, and their
        clients reconnect to a process that holds the table or takes it."""
        self.closing = True
        server = self.server
        if server is not None and server.hub is not None:
            hub = server.hub
            held = list(hub.tables.values())
            try:
                if hub.cluster is not None:
                    hub.cluster.on_orphans = None  # take no other process's table from now on
                if hub.relay is not None:
                    for table in held:
                        hub.relay.drop_table(table)  # other processes' clients of these reconnect
                    await asyncio.sleep(0)  # those closes are sent with the next flush
                if hub.cluster is not None:
                    for table in held:
                        if table.driver is not None:
                            table.driver.cancel()
                    hub.tables.clear()  # kept in the holders' list, for others to take
                    await hub.cluster.close()
                else:
                    await hub.close()
            except Exception:
                log.exception("stopping: could not hand every table over")
            log.info("stopping: %d tables handed over", len(held))
        self.close_sockets(RESTART)
        await asyncio.sleep(0.05)  # the closes go out before the process stops

    def _exit(self) -> None:
        if self._stop is not None:
            stop, self._stop = self._stop, None
            stop()

    # --- The routes ---

    async def healthz(self, request: Request) -> JSONResponse:
        return JSONResponse({"alive": True})

    async def readyz(self, request: Request) -> JSONResponse:
        if self.draining:
            return JSONResponse(
                {"ready": False, "reason": "the server is stopping: its tables move to another server"},
                status_code=503,
            )
        now = time.monotonic()
        if self._answer is None or now - self._answer[0] >= KEPT:
            status, body = await self._check()
            self._answer = (time.monotonic(), status, body)
        return JSONResponse(self._answer[2], status_code=self._answer[1])

    async def _check(self) -> tuple[int, dict[str, Any]]:
        server = self.server
        if server is None or server.store is None or server.hub is None:
            return 503, {"ready": False, "reason": "the server is starting"}
        store = server.store

        def ask_database() -> None:
            with store.engine.connect() as db:
                db.execute(text("SELECT 1"))

        try:
            await asyncio.wait_for(asyncio.to_thread(ask_database), CHECK_TIMEOUT)
        except Exception as err:
            log.warning("not ready: the database did not answer (%s)", type(err).__name__)
            return 503, {"ready": False, "reason": "the database does not answer"}
        cluster = server.hub.cluster
        if cluster is not None:
            try:
                beating = await asyncio.wait_for(cluster.still_alive(cluster.worker), CHECK_TIMEOUT)
            except Exception as err:
                log.warning("not ready: the broker did not answer (%s)", type(err).__name__)
                return 503, {"ready": False, "reason": "the broker (Redis) does not answer"}
            if not beating:
                return 503, {"ready": False, "reason": "the broker has lost this server's heartbeat"}
        return 200, {"ready": True}


def drain_seconds(value: float) -> None:
    """``--drain``: passed to the server processes in the environment."""
    os.environ[DRAIN_ENVIRONMENT] = repr(float(value))


__all__ = ["DRAIN_ENVIRONMENT", "RESTART", "Health", "Server", "drain_seconds"]
