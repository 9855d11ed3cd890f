"""What stands between the network and the routes (docs/web.md, "Limits").

- ``Guard``: a pure ASGI middleware. Every HTTP response carries the security
  headers; a request or WebSocket whose ``Origin`` is another site is refused
  (browsers always send ``Origin`` on cross-site posts and WebSockets, so this
  stops a page elsewhere from acting with a visitor's browser); an exception
  no route expected becomes one log line and a 500, never a dropped connection.
- ``Quotas``: how many tables, score sheets, seats and WebSocket connections
  one client address may make in a window, kept by the ``limits`` library (a moving window in
  memory), so one client cannot fill the database or the event loop.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final
from urllib.parse import urlsplit

from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from .table import TableError

log = logging.getLogger("ohhell.web")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

SECURITY_HEADERS: Final[tuple[tuple[bytes, bytes], ...]] = (
    # The pages load only their own scripts and sockets, and may not be
    # framed by another site (clickjacking). Inline style attributes stay
    # allowed: the pages place seats and colour players with them.
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; "
        b"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    # Table links hold no secret (tokens stay in the browser), but a page's
    # address is still nobody else's business.
    (b"referrer-policy", b"same-origin"),
)
_UNSAFE: Final = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def same_origin(scope: Scope, allowed: frozenset[str] = frozenset()) -> bool:
    """Does the request come from this site's own pages (or from no browser
    at all: no ``Origin`` header)? ``allowed`` lists other origins to trust."""
    origin = _header(scope, b"origin")
    if origin is None:
        return True
    if origin in allowed:
        return True
    host = _header(scope, b"host")
    parts = urlsplit(origin)
    return host is not None and parts.scheme in ("http", "https") and parts.netloc == host


class Guard:
    """Security headers, the same-origin check and a last-resort error line."""

    def __init__(self, app: ASGIApp, allowed_origins: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.allowed = allowed_origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "websocket":
            if not same_origin(scope, self.allowed):
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": 4403, "reason": "cross-site connection"})
                return
            await self.app(scope, receive, send)
            return
        if kind != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] in _UNSAFE and not same_origin(scope, self.allowed):
            await _json(send, 403, b'{"error":"requests from another site are refused"}')
            return
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message["headers"] = [*message.get("headers", ()), *SECURITY_HEADERS]
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception:
            log.exception("%s %s failed", scope["method"], scope["path"])
            if not started:
                await _json(send, 500, b'{"error":"the server failed on this request; it has been logged"}')


async def _json(send: Send, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), *SECURITY_HEADERS],
        }
    )
    await send({"type": "http.response.body", "body": body})


FLOOD: Final = 10  # refusals in a row before an address is held off

_WORDS: Final = {"tables": "new tables or seats", "sheets": "new score sheets", "sockets": "connections"}


class Quotas:
    """Creation limits per client address (``"30/minute"`` style, from the
    ``limits`` library; ``None`` turns a limit off)."""

    def __init__(
        self,
        tables: str | None = "30/minute",
        sheets: str | None = "30/minute",
        sockets: str | None = "120/minute",
        on_flood: Callable[[str], None] | None = None,
    ) -> None:
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        # Called with an address refused FLOOD times in a row: the server
        # stops answering it for a while (transport.hold_off).
        self.on_flood = on_flood
        self._refused: dict[str, int] = {}
        self._items: dict[str, RateLimitItem | None] = {
            "tables": parse(tables) if tables else None,
            "sheets": parse(sheets) if sheets else None,
            "sockets": parse(sockets) if sockets else None,
        }

    def take(self, what: str, address: str) -> None:
        """Count one creation of ``what`` by ``address``; ``TableError`` (429)
        once the address has made its limit's worth in the window."""
        item = self._items[what]
        if item is None or self._limiter.hit(item, what, address):
            self._refused.pop(address, None)
            return
        refused = self._refused[address] = self._refused.get(address, 0) + 1
        if refused >= FLOOD and self.on_flood is not None:
            self._refused.pop(address, None)
            self.on_flood(address)
        if len(self._refused) > 10_000:  # a bound on what is remembered
            self._refused.clear()
        raise TableError(
            f"too many {_WORDS[what]} from your address: at most {item.amount} "
            f"per {item.multiples if item.multiples > 1 else ''}{item.GRANULARITY.name}; try again soon",
            "busy",
            status=429,
        )


def client_address(scope: Scope) -> str:
    """The client's address (after uvicorn's trusted proxy headers)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


__all__ = ["SECURITY_HEADERS", "Guard", "Quotas", "client_address", "same_origin"]
