"""The web application: HTTP routes, the WebSocket endpoint and the pages.

``create_app(store_url, ...)`` builds a Starlette application; ``ohhell
serve`` runs it on uvicorn. The routes are described in docs/web.md. Every
handler turns a refused request into ``{"error": ...}`` with a status code,
and nothing a client sends can raise past its own connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from typing import Any

from sqlalchemy.exc import DBAPIError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from .. import (
    CHANGE_GRACE,
    RulesError,
    dumps,
)
from ..analysis import Budget
from .accounts.routes import AccountRoutes, account_routes
from .asked import name_field, new_table_asked, play_now_asked, text_field
from .cluster.broker import Cluster, broker_errors
from .cluster.hub import Hub
from .cluster.relay import Relay
from .protocol import (
    MAX_MESSAGE,
    Json,
    ProtocolError,
    options_json,
    parse_message,
)
from .protocol import dumps as dumps_json
from .serving.guard import Guard, Quotas, client_address
from .serving.ops import Gate, Ops
from .serving.replays import Replays, replay_frames
from .serving.requests import int_field, json_body, number_field, shown
from .serving.reviews import REVIEW_SECONDS, REVIEWS_AT_ONCE, Reviews, bearer, review_routes
from .serving.scores import score_routes
from .serving.site import SiteFiles
from .storage.store import Store
from .tables.chat import parse_mutes
from .tables.connection import QUEUE_LIMIT
from .tables.lobby import creator_key, form_options
from .tables.messages import handle, hint
from .tables.table import (
    DEFAULT_CLOCK,
    MAX_CLOCK,
    Connection,
    LiveTable,
    TableError,
    check_clock,
    token_hash,
)
from .tables.thinking import Thinkers

log = logging.getLogger("ohhell.web")

STATIC = resources.files("ohhell.web") / "static"
HELLO_TIMEOUT = 10.0  # seconds a new WebSocket has to say who it is
RATE = 50.0  # client messages a second, on average, before they are refused
BURST = 200.0  # ...after a burst of this many
SOCKETS_PER_ADDRESS = 64  # WebSockets one client address may hold open at once
SPECTATORS_PER_TABLE = 200  # watchers of one table (its players are never refused)
# The database or the broker not answering (a restart).
STORAGE_ERRORS: tuple[type[BaseException], ...] = (OSError, DBAPIError, *broker_errors())
WATCHERS_PER_ADDRESS = 4  # of those, from one address: one client cannot take every watcher's place
LOBBY_LIFETIME = 24 * 3600.0  # seconds a table may wait in its lobby
IDLE_LIFETIME = 7 * 24 * 3600.0  # seconds an unfinished match may stand still
SWEEP_EVERY = 600  # seconds between looks for expired tables
UNLOAD_EVERY = 60  # seconds between looks for idle tables in memory
IDLE_IN_MEMORY = 300.0  # seconds a table nobody watches stays in memory with nothing happening


def _hold_off(address: str) -> None:
    """Stop answering an address that keeps asking past its quota (under
    ``ohhell serve``'s transport; without it this only marks the address)."""
    from .serving.transport import hold_off

    hold_off(address)


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _token(data: dict[str, Any]) -> str | None:
    token = data.get("token")
    return token if isinstance(token, str) and len(token) < 200 else None


@dataclasses.dataclass(frozen=True)
class Limits:
    """What one client may do (docs/web.md, "Limits"); ``None`` or 0 turns a limit off."""

    rate: float = RATE  # WebSocket messages a second, on average
    create: str | None = "30/minute"  # new tables and seats per client address
    sheets: str | None = "30/minute"  # new score sheets per client address
    connects: str | None = "120/minute"  # new WebSockets per client address
    replays: str | None = "10/minute"  # records replayed per client address (one at a time)
    reviews: str | None = "6/hour"  # reviews begun per client address (one at a time)
    reviews_at_once: int = REVIEWS_AT_ONCE  # reviews made together, per server process
    review_seconds: float = REVIEW_SECONDS  # a review still going after this long is stopped
    sockets_per_address: int = SOCKETS_PER_ADDRESS
    spectators_per_table: int = SPECTATORS_PER_TABLE
    lobby_lifetime: float = LOBBY_LIFETIME
    idle_lifetime: float = IDLE_LIFETIME
    origins: frozenset[str] = frozenset()  # other sites whose pages may use this server


class Server:
    """The application's state: the store, the hub, the settings."""

    def __init__(
        self,
        store_url: str | None,
        *,
        away_after: float,
        bot_delay: float,
        think: float,
        clock: float = DEFAULT_CLOCK,
        change_grace: float = CHANGE_GRACE,
        limits: Limits = Limits(),
        now: Callable[[], float] = time.monotonic,
        think_workers: int = 0,
        broker: str | None = None,
        review_budget: Budget | None = None,
        accounts: str = "optional",
    ) -> None:
        self.store_url = store_url
        self.accounts = AccountRoutes(self, accounts)  # off, optional or required (accounts/routes.py)
        self.broker = broker  # Redis, when several processes serve one database (cluster.py)
        self.relay: Relay | None = None
        self.think_workers = think_workers
        self.now = now  # the time of turn clocks and absences (tests move it by hand)
        self.limits = limits
        self.rate = limits.rate
        self.away_after = away_after
        self.bot_delay = bot_delay
        self.think = think
        self.clock = check_clock(clock)
        self.change_grace = change_grace
        self.quotas = Quotas(
            limits.create,
            limits.sheets,
            limits.connects,
            on_flood=_hold_off,
            replays=limits.replays,
            reviews=limits.reviews,
        )
        self.sockets: Counter[str] = Counter()  # open WebSockets by client address
        self.store: Store | None = None
        self.hub: Hub | None = None
        self._options: str | None = None  # GET /api/options, once made
        self.replays = Replays(self.quotas, processes=think_workers > 0)
        self.reviews = Reviews(
            self.quotas,
            budget=review_budget or Budget(),
            seconds=limits.review_seconds,
            at_once=limits.reviews_at_once,
            processes=think_workers > 0,
        )
        self.ops = Ops()  # health, metrics, the host's orders (ops.py)

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        self.store = Store(self.store_url)
        self.reviews.store = self.store
        self.hub = Hub(
            self.store,
            away_after=self.away_after,
            bot_delay=self.bot_delay,
            think=self.think,
            clock=self.clock,
            change_grace=self.change_grace,
            now=self.now,
            thinkers=Thinkers(self.think_workers),
        )
        if self.broker:
            self.quotas.share(self.broker, self.store.group_id())  # one count for every process
            cluster = Cluster(self.broker, self.store.group_id())
            await cluster.start()
            self.relay = Relay(cluster, self)
            self.relay.start()
            self.hub.join_cluster(cluster, self.relay)
        resumed = await self.hub.resume_all()
        if resumed:
            log.info("%d matches go on when their players come back", resumed)
        sweeper = asyncio.get_running_loop().create_task(self._sweep())
        await self.ops.start(self)
        try:
            yield
        finally:
            await self.ops.stop()
            sweeper.cancel()
            if self.relay is not None:
                await self.relay.close()
            await self.hub.close()
            if self.relay is not None:
                await self.relay.cluster.close()
            self.hub.thinkers.close()
            self.replays.close()
            self.reviews.close()
            self.store.close()

    async def held(self, table_id: str) -> LiveTable | None:
        """The table, if this process holds it (or can take it now)."""
        return await self.tables.get(table_id)

    async def _sweep(self) -> None:
        """Now and then: forget idle tables nobody watches (memory) and
        delete abandoned ones (the database); docs/web.md, "Lifetimes"."""
        expire = bool(self.limits.lobby_lifetime or self.limits.idle_lifetime)
        rounds = 0
        while True:
            self.tables.unload_idle(IDLE_IN_MEMORY)
            if expire and rounds % (SWEEP_EVERY // UNLOAD_EVERY) == 0:
                try:
                    await self.tables.expire(
                        self.limits.lobby_lifetime or float("inf"), self.limits.idle_lifetime or float("inf")
                    )
                except Exception:
                    log.exception("could not expire abandoned tables")
            if rounds % (SWEEP_EVERY // UNLOAD_EVERY) == 0:
                self.reviews.sweep()  # sent records' reviews, whatever the tables' lifetimes
            rounds += 1
            await asyncio.sleep(UNLOAD_EVERY)

    @property
    def tables(self) -> Hub:
        assert self.hub is not None, "the server has not started"
        return self.hub

    # --- Pages ---

    async def page(self, request: Request) -> Response:
        name = {"home": "index.html", "table": "table.html", "replay": "replay.html"}[request.scope["page"]]
        return FileResponse(str(STATIC / name), media_type="text/html")

    # --- The JSON API ---

    async def options(self, request: Request) -> Response:
        # The server's turn clock too: the new-table form starts from it.
        if self._options is None:  # the same answer for the server's life: made once
            # In the form's words: presets by their names, each option's help one sentence.
            answer = form_options(options_json())
            self._options = dumps_json({**answer, "clock": self.clock, "max_clock": MAX_CLOCK})
        return Response(self._options, media_type="application/json")

    async def play_now(self, request: Request) -> Response:
        self.quotas.take("tables", client_address(request.scope))  # before any work on the body
        data = await json_body(request)
        rules, kinds, name = play_now_asked(data)
        table_id, token = self.tables.create(rules, kinds, host_seat=0, host_name=name)
        table = await self.tables.get(table_id)
        assert table is not None
        await self.tables.start(table, token)
        return JSONResponse({"table": table_id, "seat": 0, "token": token})

    async def new_table(self, request: Request) -> Response:
        self.quotas.take("tables", client_address(request.scope))  # before any work on the body
        data = await json_body(request)
        rules, kinds, seat, name = new_table_asked(data)
        clock = number_field(data, "clock", self.clock, "a number of seconds")
        public = data.get("public", False)
        if type(public) is not bool:
            raise TableError(f'"public" must be true (listed on the home page) or false, not {shown(public)}')
        try:
            clock = check_clock(clock)
        except TableError as err:
            raise TableError(str(err), field="clock") from None
        # A listed table keeps who made it, so the list can cap one address's tables.
        creator = {"creator": creator_key(client_address(request.scope))} if public else None
        table_id, token = self.tables.create(
            rules, list(kinds), host_seat=seat, host_name=name, clock=clock, public=public, settings=creator
        )
        return JSONResponse({"table": table_id, "seat": seat, "token": token})

    async def show(self, request: Request) -> Response:
        return await self._at_table(request, "show")

    async def join(self, request: Request) -> Response:
        self.quotas.take("tables", client_address(request.scope))
        return await self._at_table(request, "join", await json_body(request))

    async def rematch(self, request: Request) -> Response:
        self.quotas.take("tables", client_address(request.scope))
        return await self._at_table(request, "rematch", await json_body(request))

    async def lobby(self, request: Request) -> Response:
        return Response(await self.tables.lobby.answer(), media_type="application/json")

    async def fill(self, request: Request) -> Response:
        return await self._at_table(request, "fill", await json_body(request))

    async def start(self, request: Request) -> Response:
        return await self._at_table(request, "start", await json_body(request))

    async def record(self, request: Request) -> Response:
        # A private table's record holds every hand of the match: a seat's
        # token is asked for, in a header (an address gets logged).
        asked: Json = {"token": bearer(request)}
        if asked["token"] is None:
            # A signed-in player of the table needs no token: their account
            # holds the seat (another device of theirs, say).
            asked["account_seat"] = await self.accounts.seat_at(request, request.path_params["table"])
        return await self._at_table(request, "record", asked)

    async def _at_table(self, request: Request, op: str, data: Json | None = None) -> Response:
        """A request about one table, answered by the process that holds it
        (this one, or another through the relay)."""
        table_id = request.path_params["table"]
        found = await self._find(table_id)
        if found is None:
            raise TableError("there is no such table", status=404)
        address = client_address(request.scope)
        if isinstance(found, str):
            assert self.relay is not None
            message = {"op": op, "table": table_id, "data": data or {}, "address": address}
            result = await self.relay.call(found, message)
        else:
            result = await self.table_op(found, op, data or {}, address)
        if "text" in result:
            return PlainTextResponse(
                result["text"], media_type="text/plain; charset=utf-8", headers=result.get("headers")
            )
        if "raw" in result:  # JSON made already (a review, stored as text)
            return Response(result["raw"], status_code=int(result["status"]), media_type="application/json")
        return JSONResponse(result.get("json"), status_code=int(result.get("status", 200)))

    async def _find(self, table_id: str) -> LiveTable | str | None:
        """``Hub.find``, with a broker or database that does not answer (a
        restart) said in one line and answered 503 "try again", not a traceback
        for every page that reconnects meanwhile."""
        try:
            return await self.tables.find(table_id)
        except STORAGE_ERRORS as err:
            log.warning("table %s: cannot be found now (%s: %s)", table_id, type(err).__name__, err)
            words = "the server cannot reach its storage just now: try again in a moment"
            raise TableError(words, status=503) from None

    async def table_op(self, table: LiveTable, op: str, data: Json, address: str) -> Json:
        """What ``_at_table`` asks of a table held here, as JSON-ready answers."""
        try:
            if op == "join":
                # No seat: the first open one (one click on the home page's list).
                seat = int_field(data, "seat") if data.get("seat") is not None else None
                name = name_field(data, "Player") if data.get("name") else None
                barred = table.chat.barred(address)
                if barred:  # the host removed someone from here: no seat for them under a new token
                    raise TableError(barred, "seat", status=403)
                seat, token = await self.tables.join(table, seat, name)
                # Their address is the seat's person's from now, socket or
                # not: a removal in the lobby bars it from the seats here.
                table.chat.joined(seat, address, new_person=True)
                return {"json": {"table": table.id, "seat": seat, "token": token}}
            if op == "rematch":
                table_id, seat, token = await self.tables.rematch(table, _token(data))
                return {"json": {"table": table_id, "seat": seat, "token": token}}
            if op in ("review", "review-status"):  # reviews.py
                return await self.reviews.at_table(table, op == "review", _token(data), address)
            if op == "fill":
                await self.tables.fill(table, _token(data), text_field(data, "level", "intermediate"))
            elif op == "start":
                await self.tables.start(table, _token(data))
            elif op == "record":
                played = table.seat_of_token(_token(data)) is not None or data.get("account_seat") is not None
                if not played and not table.listed:
                    raise TableError(
                        "Only the players of this table can download its record: it is not a public table.",
                        status=403,
                    )
                if table.status not in ("over", "ended"):
                    raise TableError("the record can be downloaded once the match is over", status=409)
                return {
                    "text": dumps(table.record()),
                    "headers": {"Content-Disposition": f'attachment; filename="ohhell-{table.id}.ohr"'},
                }
            elif op != "show":
                raise TableError(f"unknown request {op!r}", status=404)
            return {"json": table.public()}
        except TableError as err:
            answer: Json = {"error": str(err)}
            if err.field is not None:
                answer["field"] = err.field
            return {"status": err.status, "json": answer}
        except RulesError as err:
            return {"status": 400, "json": {"error": str(err)}}

    async def replay(self, request: Request) -> Response:
        # Quotas, one at a time per address, the work in a worker (replays.py).
        return await self.replays.answer(request)

    # --- The WebSocket ---

    async def websocket(self, ws: WebSocket) -> None:
        address = client_address(ws.scope)
        most = self.limits.sockets_per_address
        try:
            if most and self.sockets[address] >= most:
                raise TableError("too many connections from your address", "busy", status=429)
            self.quotas.take("sockets", address)
        except TableError as err:
            await ws.close(code=4429, reason=str(err)[:120])
            return
        self.sockets[address] += 1
        try:
            await self._websocket(ws)
        finally:
            self.sockets[address] -= 1
            if not self.sockets[address]:
                del self.sockets[address]

    async def _websocket(self, ws: WebSocket) -> None:
        await ws.accept()
        table_id = ws.path_params["table"]
        try:
            found = await self._find(table_id)
        except TableError as err:
            with contextlib.suppress(Exception):
                await _send_error(ws, str(err), "busy")
                await ws.close(code=1013)  # "try again later": the page reconnects by itself
            return
        if found is None:
            await _send_error(ws, "there is no such table", "bad")
            await ws.close(code=4404)
            return
        try:
            hello = parse_message(await asyncio.wait_for(_receive(ws), HELLO_TIMEOUT))
            if hello["type"] != "hello":
                raise ProtocolError('the first message must be {"type": "hello", "token": ...}')
        except (TimeoutError, ProtocolError, WebSocketDisconnect) as err:
            with contextlib.suppress(Exception):
                await _send_error(ws, f"no hello: {err}" if str(err) else "no hello", "bad")
                await ws.close(code=4400)
            return

        async def close(code: int) -> None:
            with contextlib.suppress(Exception):
                await ws.close(code)

        def make(seat: int | None, host: bool) -> Connection:
            return Connection(ws.send_text, seat, host=host, close=ws.close)

        conn: Connection | None = None
        allowance, last = BURST, asyncio.get_running_loop().time()  # a token bucket against floods

        async def receive() -> str | None:
            """The client's next message within its rate (None: it left)."""
            nonlocal allowance, last
            while True:
                try:
                    text = await _receive(ws)
                except WebSocketDisconnect:
                    return None
                now = asyncio.get_running_loop().time()
                allowance = min(BURST, allowance + (now - last) * self.rate)
                last = now
                if allowance >= 1:
                    allowance -= 1
                    return text
                if conn is not None:
                    conn.post_json({"type": "error", "error": "too many messages: slow down", "code": "bad"})

        try:
            if isinstance(found, str):
                # Another process holds the table: this one relays (relay.py).
                assert self.relay is not None
                conn = Connection(ws.send_text, None, host=False, close=ws.close)
                conn.limit = QUEUE_LIMIT  # the holder knows the seat; a seat's allowance for all
                conn.start()
                hello = {**hello, "address": client_address(ws.scope)}  # the holder cannot see the socket
                await self.relay.serve(found, table_id, hello, conn, receive, close)
                return
            table = found
            conn = await self.admit(table, hello, ws.send_text, close, make, client_address(ws.scope))
            if conn is None:
                return
            try:
                while not conn.closed:
                    text = await receive()
                    if text is None:
                        break
                    await self.on_text(table, conn, text)
            finally:
                table.detach(conn)
        finally:
            if conn is not None:
                await conn.stop()
            if ws.client_state is WebSocketState.CONNECTED:
                with contextlib.suppress(Exception):
                    await ws.close()

    async def admit(
        self,
        table: LiveTable,
        hello: Json,
        send: Callable[[str], Awaitable[None]],
        close: Callable[[int], Awaitable[None]],
        make: Callable[[int | None, bool], Connection],
        address: str,
    ) -> Connection | None:
        """A client who said hello joins the table's connections (here, or
        from another process through the relay): its seat is the one its
        token holds; None if the table cannot take another watcher.
        ``address`` is the client's (for the quotas and the host's removals)."""
        token = hello.get("token")
        seat = table.seat_of_token(token if isinstance(token, str) else None)
        removed = isinstance(token, str) and bool(token) and token_hash(token) in table.chat.removed

        def error(message: str, code: str) -> str:
            return json.dumps({"type": "error", "error": message, "code": code})

        if removed:
            # Whoever left by themselves is told so, not that the host removed them.
            left = token_hash(str(token)) in table.chat.left
            words = (
                "You left this table: you can watch."
                if left
                else "The host removed you from this table: you can watch."
            )
            await send(error(words, "removed"))
        elif token and seat is None:
            await send(error("this token holds no seat at this table: you are watching", "seat"))
        most = self.limits.spectators_per_table
        full = seat is None and most and table.spectators >= most
        mine = seat is None and table.watchers_from(address) >= WATCHERS_PER_ADDRESS
        if full or mine:
            words = (
                "this table has as many watchers as it can take: try later"
                if full
                else f"your address watches this table from {WATCHERS_PER_ADDRESS} pages already"
            )
            with contextlib.suppress(Exception):
                await send(error(words, "busy"))
                await close(4429)
            return None
        conn = make(seat, seat is not None and seat == table.host_seat)
        conn.address = address
        # The viewer's chat mutes come with the hello, so the chat's history
        # sent on arrival already leaves out whom they muted.
        try:
            conn.muted = parse_mutes(hello.get("mute"), len(table.seats))
        except ProtocolError as err:
            await send(error(str(err), "bad"))
        conn.removed = removed  # removed by the host: may watch, may not speak
        table.chat.arrived(conn)  # a seat's address, so a mute or removal follows its person
        conn.start()
        table.attach(conn)
        return conn

    async def on_text(self, table: LiveTable, conn: Connection, text: str) -> None:
        """One message from a client of ``table``; a refusal is told to it."""
        try:
            message = parse_message(text)
            if message["type"] == "hint":
                if conn.hinting is None or conn.hinting.done():
                    conn.hinting = asyncio.create_task(hint(table, conn, self.tables.thinkers, self.think))
                return
            await handle(table, conn, message)
        except (ProtocolError, TableError) as err:
            code = err.code if isinstance(err, TableError) else "bad"
            conn.post_json({"type": "error", "error": str(err), "code": code})


async def _receive(ws: WebSocket) -> str:
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text = message.get("text")
    if text is None:
        data = message.get("bytes") or b""
        if len(data) > MAX_MESSAGE:
            return "x" * (MAX_MESSAGE + 1)  # refused by parse_message as too long
        try:
            return str(data.decode("utf-8"))
        except UnicodeDecodeError:
            return "\x00"  # not JSON: refused by parse_message
    return str(text)


async def _send_error(ws: WebSocket, message: str, code: str) -> None:
    await ws.send_text(json.dumps({"type": "error", "error": message, "code": code}))


def create_app(
    store_url: str | None = None,
    *,
    away_after: float = 60.0,
    bot_delay: float = 0.6,
    think: float = 1.0,
    clock: float = DEFAULT_CLOCK,
    change_grace: float = CHANGE_GRACE,
    rate: float | None = None,
    limits: Limits | None = None,
    now: Callable[[], float] = time.monotonic,
    think_workers: int = 0,
    broker: str | None = None,
    review_budget: Budget | float = 1.0,
    accounts: str = "optional",
) -> Starlette:
    """The web application; ``store_url`` is an SQLAlchemy URL (SQLite by default).
    ``clock`` is new tables' seconds per decision (0: none); ``change_grace``
    how long a bot bidding next waits for a person who may change their bid; ``limits`` what one
    client may do (``rate``, if given, replaces its messages a second); ``now``
    the time turn clocks run on (seconds, ``time.monotonic`` unless a test
    brings its own); ``think_workers`` the processes the expert thinks in
    (0: threads of this process; ``ohhell serve`` uses processes; records are
    then replayed in worker processes too); ``broker`` a Redis URL when
    several processes serve the same database (cluster.py); ``review_budget``
    how hard a post-game review thinks: a ``Budget``, or a share of the
    default one (reviews.py); ``accounts`` off, optional or required
    (accounts/routes.py)."""
    limits = limits or Limits()
    if rate is not None:
        limits = dataclasses.replace(limits, rate=rate)
    server = Server(
        store_url,
        away_after=away_after,
        bot_delay=bot_delay,
        think=think,
        clock=clock,
        change_grace=change_grace,
        limits=limits,
        now=now,
        think_workers=think_workers,
        broker=broker,
        review_budget=review_budget if isinstance(review_budget, Budget) else Budget.scaled(review_budget),
        accounts=accounts,
    )
    seating = server.accounts.seating

    def guarded(handler: Any) -> Any:
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)  # type: ignore[no-any-return]
            except TableError as err:
                if err.field is not None:
                    return JSONResponse({"error": str(err), "field": err.field}, status_code=err.status)
                return _error(str(err), err.status)
            except RulesError as err:
                return _error(str(err))
            except ClientDisconnect:
                log.info("%s %s: the client went away mid-request", request.method, request.url.path)
                return Response(status_code=400)

        return endpoint

    def page(name: str) -> Any:
        async def endpoint(request: Request) -> Response:
            request.scope["page"] = name
            return await server.page(request)

        return endpoint

    routes = [
        Route("/", page("home")),
        Route("/healthz", server.ops.health.healthz),
        Route("/readyz", server.ops.health.readyz),
        Route("/t/{table}", page("table")),
        Route("/replay", page("replay")),
        Route("/api/options", guarded(server.options)),
        Route("/api/play-now", guarded(seating(server.play_now)), methods=["POST"]),
        Route("/api/tables", guarded(seating(server.new_table)), methods=["POST"]),
        Route("/api/lobby", guarded(server.lobby)),
        Route("/api/tables/{table}", guarded(server.show)),
        Route("/api/tables/{table}/join", guarded(seating(server.join)), methods=["POST"]),
        Route("/api/tables/{table}/fill", guarded(server.fill), methods=["POST"]),
        Route("/api/tables/{table}/start", guarded(server.start), methods=["POST"]),
        Route("/api/tables/{table}/rematch", guarded(server.rematch), methods=["POST"]),
        Route("/api/tables/{table}/record", guarded(server.record)),
        Route("/api/replay", guarded(server.replay), methods=["POST"]),
        *score_routes(server),
        *account_routes(server.accounts),
        *review_routes(server.reviews, server._at_table),
        WebSocketRoute("/ws/{table}", server.websocket),
        Mount("/site", app=SiteFiles()),  # the offline site (ohhell site; docs/site.md)
        Mount("/static", app=StaticFiles(directory=str(STATIC)), name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=server.lifespan,
        middleware=[Middleware(Gate, server.ops), Middleware(Guard, limits.origins)],
    )
    app.state.server = server
    return app


__all__ = ["Limits", "create_app", "replay_frames"]
