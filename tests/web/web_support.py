"""Helpers for the tests of ``ohhell serve`` (tests/test_web*.py).

Everything here drives the application in-process through Starlette's
``TestClient``; nothing listens on a port.

- ``make_app(db_path_or_url, **settings)``: ``create_app`` with fast test settings
  (no bot delay, a short expert think, no rate limit).
- ``new_table(client, ...)`` / ``play_now(client)``: create tables over HTTP.
- ``connect(client, table, token)``: a context manager opening ``/ws/{table}``,
  saying hello and returning a ``Player`` once the welcome has arrived.
- ``Player``: one WebSocket. ``recv()`` reads one message with a timeout (the
  TestClient's own ``receive_json`` has none and would hang a broken test),
  ``until(pred)`` reads until a message satisfies ``pred`` and fails with the
  messages seen so far; ``state_where(pred)``, ``state_at(version)`` and
  ``my_turn()`` and ``to_move()`` look at the latest state first; ``error()``, ``act()``,
  ``keep()``, ``ping()`` (nothing but table messages may come before the
  pong: a way to prove no state or error was sent to this client).
- ``play_all(players)``: play legal actions (the first legal one) for every
  person until the match is over, keeping bids (R-BID-CHANGE) so the bots go
  on; returns the final state message. Works with any mix of people and bots.
- ``play_out(client, table, token)``: ``play_all`` for one seat.
- ``with_addresses(app)``: the app behind a stand-in for the network, where a
  request's ``x-test-address`` header says which client address it comes
  from (``connect(..., address=...)``, ``from_address(...)``), so one
  TestClient can play several people at several addresses.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import anyio

# Long enough for a first hint on a loaded machine (its thinking process starts
# then); a healthy server answers within a second, so only failures wait this long.
TIMEOUT = 30.0
"""Seconds one message may take before a test fails instead of hanging."""

Json = dict[str, Any]


def make_app(db: str, **settings: Any) -> Any:
    """``create_app`` on ``db`` (a path to an SQLite file, or an SQLAlchemy URL)
    with fast settings; ``settings`` override them."""
    from ohhell.web.app import create_app

    url = db if "://" in db else f"sqlite:///{db}"
    from ohhell.web.app import Limits

    # No creation quotas: tests make many tables from one address (the
    # quotas have tests of their own, tests/web/test_web_limits.py).
    unlimited = Limits(create=None, sheets=None, connects=None, sockets_per_address=0, spectators_per_table=0)
    kwargs: dict[str, Any] = {
        "bot_delay": 0,
        "away_after": 60,
        "think": 0.05,
        "rate": 1e6,
        "limits": unlimited,
    }
    kwargs.update(settings)
    return create_app(url, **kwargs)


ADDRESS_HEADER = "x-test-address"


def with_addresses(app: Any) -> Any:
    """``app`` as seen from many client addresses: a request's
    ``x-test-address`` header becomes its ``scope["client"]`` (the TestClient
    says "testclient" otherwise). ``.state`` is the app's."""

    async def addressed(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            for key, value in scope.get("headers", ()):
                if key.decode("latin-1").lower() == ADDRESS_HEADER:
                    scope = {**scope, "client": (value.decode("latin-1"), 50000)}
        await app(scope, receive, send)

    addressed.state = app.state  # type: ignore[attr-defined]
    return addressed


def from_address(address: str) -> dict[str, str]:
    """Headers for a request from ``address`` (an app ``with_addresses``)."""
    return {ADDRESS_HEADER: address}


def new_table(
    client: Any,
    *,
    preset: str = "pagat",
    options: dict[str, str] | None = None,
    seats: list[str] | None = None,
    seat: int = 0,
    name: str = "Host",
    start: bool = False,
    level: str | None = None,
) -> Json:
    """POST /api/tables; with ``level`` fill the open seats with bots, with
    ``start`` start the match. Returns ``{"table", "seat", "token"}``."""
    body: Json = {"preset": preset, "options": options or {}, "seat": seat, "name": name}
    if seats is not None:
        body["seats"] = seats
    r = client.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    made: Json = r.json()
    if level is not None:
        r = client.post(f"/api/tables/{made['table']}/fill", json={"token": made["token"], "level": level})
        assert r.status_code == 200, r.text
    if start:
        r = client.post(f"/api/tables/{made['table']}/start", json={"token": made["token"]})
        assert r.status_code == 200, r.text
    return made


def join(client: Any, table: str, seat: int, name: str | None = None) -> str:
    """Join an open seat; returns its token."""
    r = client.post(f"/api/tables/{table}/join", json={"seat": seat, "name": name or f"P{seat}"})
    assert r.status_code == 200, r.text
    token: str = r.json()["token"]
    return token


def choices(state: Json) -> list[Json]:
    """A state's legal actions for its seat, bid changes left out (a seat that
    may change its bid is among the ``actors`` though nobody waits for it)."""
    return [a for a in state["obs"]["legal"] if a["kind"] != "change"]


def brief(message: Json) -> str:
    """A message in a few words, for failure reports."""
    if message.get("type") == "state":
        obs = message["obs"]
        return (
            f"state v{message['version']} {obs['phase']} actors={obs['actors']} "
            f"can_change={obs['can_change']} last={message['last']}"
        )
    if message.get("type") == "table":
        seats = [(s["kind"], s["connected"], s["away"]) for s in message["seats"]]
        return f"table {message['status']} v{message['version']} seats={seats}"
    return json.dumps(message)[:300]


class Player:
    """One WebSocket connection to a table, with reads that cannot hang."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.seen: list[Json] = []  # every message received, in order
        self.state: Json | None = None  # the latest state message
        self.table: Json | None = None  # the latest table message
        self.welcome: Json | None = None
        self.pending = False  # play_all: an action sent and not yet applied or refused
        # play_all: a keep sent; a bot may bid first and close the window, and
        # the server then answers the keep with a refusal that is no fault.
        self.keeping = False

    @property
    def seat(self) -> int | None:
        assert self.welcome is not None
        seat: int | None = self.welcome["seat"]
        return seat

    @property
    def version(self) -> int:
        assert self.state is not None, "no state received yet"
        version: int = self.state["version"]
        return version

    @property
    def obs(self) -> Json:
        assert self.state is not None, "no state received yet"
        obs: Json = self.state["obs"]
        return obs

    # --- Reading ---

    def recv(self, timeout: float = TIMEOUT) -> Json:
        """The next message; AssertionError if none comes within ``timeout``."""
        ws = self.ws

        async def get() -> Any:
            with anyio.fail_after(timeout):
                return await ws._send_rx.receive()

        try:
            message = ws.portal.call(get)
        except TimeoutError:
            tail = [brief(m) for m in self.seen[-8:]]
            raise AssertionError(f"no message within {timeout} s; the last ones were {tail}") from None
        ws._raise_on_close(message)
        data: Json = json.loads(message["text"] if message.get("text") is not None else message["bytes"])
        self.seen.append(data)
        if data.get("type") == "state":
            self.state = data
            last = data.get("last") or {}
            if last.get("seat") == self.seat and self.welcome is not None:
                self.pending = False
        elif data.get("type") == "table":
            self.table = data
        elif data.get("type") == "welcome":
            self.welcome = data
        return data

    def until(self, pred: Callable[[Json], bool], what: str = "", limit: int = 2000) -> Json:
        """Read until a message satisfies ``pred``; fail (naming ``what``) after
        ``limit`` messages or when none comes in time."""
        start = len(self.seen)
        for _ in range(limit):
            message = self.recv()
            if pred(message):
                return message
        tail = [brief(m) for m in self.seen[start:][-8:]]
        raise AssertionError(f"{limit} messages without {what or 'the expected one'}: {tail}")

    def state_where(self, pred: Callable[[Json], bool], what: str = "") -> Json:
        """The latest state if it satisfies ``pred``, else read until a state does."""
        if self.state is not None and pred(self.state):
            return self.state
        return self.until(lambda m: m["type"] == "state" and pred(m), what)

    def state_at(self, version: int) -> Json:
        """The latest state if its version is at least ``version``, else read until one is."""
        return self.state_where(lambda m: m["version"] >= version, f"state >= {version}")

    def my_turn(self) -> Json:
        """The latest state if this seat must act in it, else read until such a
        state (after acting, wait for the new state with ``state_at`` first)."""
        return self.state_where(lambda m: self.seat in m["obs"]["actors"], f"seat {self.seat}'s turn")

    def to_move(self) -> Json:
        """The latest state if this seat has something to do in it (a choice
        other than changing its bid, or a bid to keep: ``can_change``), else
        read until such a state."""
        return self.state_where(
            lambda m: m["obs"]["can_change"] or bool(choices(m)), f"something for seat {self.seat} to do"
        )

    def error(self) -> Json:
        """Read until an error; fails if a state with a new version comes first."""
        before = self.state["version"] if self.state else None

        def pred(m: Json) -> bool:
            if m["type"] == "state" and before is not None:
                assert m["version"] == before, f"the table moved on instead of refusing: {m}"
            return m["type"] == "error"

        return self.until(pred, "an error")

    def ping(self) -> None:
        """Send a ping and read up to its pong; anything but ``table`` messages
        (seats coming and going) before it fails: no state, error or hint was
        queued for this client before the pong."""
        self.send({"type": "ping"})
        while True:
            message = self.recv()
            if message == {"type": "pong"}:
                return
            assert message["type"] == "table", f"expected only a pong, got {message}"

    # --- Sending ---

    def send(self, message: Any) -> None:
        if isinstance(message, (str, bytes)):
            if isinstance(message, bytes):
                self.ws.send_bytes(message)
            else:
                self.ws.send_text(message)
        else:
            self.ws.send_json(message)

    def act(self, action: Json, version: int | None = None) -> None:
        """Send an action at ``version`` (default: the latest state's)."""
        v = self.version if version is None else version
        action = {k: v for k, v in action.items() if k != "seat"}
        self.send({"type": "act", "version": v, "action": action})

    def keep(self) -> None:
        self.send({"type": "keep"})
        self.keeping = True


@contextlib.contextmanager
def connect(
    client: Any, table: str, token: str | None = None, hello: bool = True, address: str | None = None
) -> Iterator[Player]:
    """Open ``/ws/{table}``, say hello with ``token`` (a spectator without)
    and read what the server sends on connect: the welcome (after an error
    for a token that holds no seat), the table, and the state unless the
    table is in its lobby. These come together, before anything else.
    ``address``: the client address it comes from (``with_addresses``)."""
    headers = from_address(address) if address is not None else {}
    with client.websocket_connect(f"/ws/{table}", headers=headers) as ws:
        player = Player(ws)
        if hello:
            player.send({"type": "hello", "token": token} if token is not None else {"type": "hello"})
            player.until(lambda m: m["type"] == "welcome", "the welcome")
            first = player.recv()
            assert first["type"] == "table", f"expected the table after the welcome, got {first}"
            if first["status"] != "lobby":
                second = player.recv()
                assert second["type"] == "state", f"expected the state after the table, got {second}"
        yield player


def _sync(player: Player, version: int) -> None:
    def pred(m: Json) -> bool:
        if m["type"] == "error" and player.keeping and "could still be changed" in m["error"]:
            player.keeping = False  # R-BID-CHANGE: the window closed before the keep arrived
            return False
        assert m["type"] != "error", f"seat {player.seat} was refused: {m}"
        return m["type"] == "state" and m["version"] >= version

    if player.state is None or player.version < version:
        player.until(pred, f"state >= {version}")


def play_all(players: list[Player], choose: Callable[[Player], Json] | None = None) -> Json:
    """Play every seated ``player``'s turns until the match is over (any mix of
    people and bots at the table); ``choose`` picks the action (default: the
    first legal one that is not a bid change). A seat whose bid may still be changed keeps it
    (R-BID-CHANGE) so the bots after it go on. Returns the last state seen by
    ``players[0]``."""
    lead = players[0]
    if lead.state is None:
        lead.until(lambda m: m["type"] == "state", "the first state")
    for _ in range(20000):
        version = lead.version
        for p in players:
            _sync(p, version)
        if max(p.version for p in players) > version:
            lead.state_at(max(p.version for p in players))
            continue
        if lead.obs["phase"] == "over":
            return lead.state  # type: ignore[return-value]
        moved = False
        for p in players:
            choices = [a for a in p.obs["legal"] if a["kind"] != "change"]
            if choices and not p.pending:
                p.pending = True
                p.act(choose(p) if choose else choices[0], version)
                moved = True
        for p in players if not moved else ():
            if p.obs["can_change"]:  # nobody else acts: keep the bid so the bots go on
                p.keep()
                p.until(lambda m: m["type"] == "state" and not m["obs"]["can_change"], "the kept bid")
                moved = True
        if not moved or lead.version == version:
            message = lead.recv()
            assert message["type"] != "error", f"refused: {message}"
    raise AssertionError("the match did not end")


def play_out(client: Any, table: str, token: str) -> Json:
    """Connect with ``token`` and play that seat until the match is over."""
    with connect(client, table, token) as player:
        return play_all([player])


class Still:
    """The server's time: it moves only when a test moves it."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t
