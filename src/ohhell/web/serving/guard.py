"""What stands between the network and the routes (docs/web.md, "Limits").

- ``Guard``: a pure ASGI middleware. Every HTTP response carries the security
  headers; a request or WebSocket whose ``Origin`` is another site is refused
  (browsers always send ``Origin`` on cross-site posts and WebSockets, so this
  stops a page elsewhere from acting with a visitor's browser); an exception
  no route expected becomes one log line and a 500, never a dropped connection.
- ``Quotas``: how many tables, score sheets, seats, replays, reviews and WebSocket
  connections one client address may make in a window, kept by the ``limits``
  library (a moving window in memory, ``WindowStorage``, or in the broker's
  Redis when several processes serve one database), so one client cannot
  fill the database or the event loop.
- ``client_address``: who the client is, believing ``X-Forwarded-For`` only
  from the balancers named by ``ohhell serve --forwarded-allow-ips``
  (``Proxies``).
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from ipaddress import IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network
from typing import Any, Final
from urllib.parse import urlsplit

from limits import RateLimitItem, parse
from limits.errors import StorageError
from limits.storage import MovingWindowSupport, Storage
from limits.strategies import MovingWindowRateLimiter

from ..errors import TableError
from . import metrics

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
# The offline site (/site/) runs Python compiled to WebAssembly in its worker:
# its pages may compile WebAssembly ('wasm-unsafe-eval', which allows no
# JavaScript eval), and nothing else is loosened.
SITE_HEADERS: Final = tuple(
    (k, v.replace(b"script-src 'self'", b"script-src 'self' 'wasm-unsafe-eval'")) for k, v in SECURITY_HEADERS
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
        # No Origin: not a browser, or an old one; a browser that says the
        # request is another site's (Fetch Metadata) is believed.
        return _header(scope, b"sec-fetch-site") != "cross-site"
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
                extra = SITE_HEADERS if scope["path"].startswith("/site/") else SECURITY_HEADERS
                message["headers"] = [*message.get("headers", ()), *extra]
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
SHARED_TIMEOUT: Final = 0.5  # seconds a quota kept in Redis may take before this process counts alone
SHARED_RETRY: Final = 10.0  # seconds a process counts alone after the broker failed

_WORDS: Final = {
    "tables": "new tables or seats",
    "sheets": "new score sheets",
    "sockets": "connections",
    "replays": "replays",
    "reviews": "reviews",
    "signups": "new accounts",
    "challenges": "passkey requests",
}


class WindowStorage(Storage, MovingWindowSupport):
    """Moving windows for the ``limits`` library, kept in this process's
    memory by the thread that asks, with no thread of their own.

    The library's ``MemoryStorage`` drops old entries in a timer thread that
    it starts again whenever the last one has finished, which under a flood is
    nearly every hit; each start waited for the interpreter's lock and stopped
    the event loop for up to 200 ms (docs/performance.md, "Server under abuse").
    Here a key's old entries go when the key is next used, and keys whose
    window has passed go a few at a time as others are used, oldest first, so
    memory stays in proportion to the addresses active in the last window.
    """

    def __init__(self, now: Callable[[], float] = time.time) -> None:
        super().__init__()
        self.now = now  # the library's windows are in time.time() seconds; tests bring their own
        self._events: dict[str, deque[float]] = {}  # key -> times of its entries, oldest first
        # key -> when its newest entry leaves the window; the least recently used first
        self._until: dict[str, float] = {}

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return ValueError

    def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        if amount > limit:
            return False
        now = self.now()
        self._forget_stale(now)
        events = self._window(key, now, expiry)
        if len(events) + amount > limit:
            return False
        events.extend([now] * amount)
        self._until.pop(key, None)  # to the end: the most recently used
        self._until[key] = now + expiry
        return True

    def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        now = self.now()
        events = self._window(key, now, expiry) if key in self._events else None
        return (events[0] if events else now), len(events or ())

    def _window(self, key: str, now: float, expiry: int) -> deque[float]:
        events = self._events.get(key)
        if events is None:
            events = self._events[key] = deque()
        while events and events[0] <= now - expiry:
            events.popleft()
        return events

    def _forget_stale(self, now: float) -> None:
        # Two at most a hit: more than one new key a hit never comes.
        for _ in range(2):
            key = next(iter(self._until), None)
            if key is None or self._until[key] > now:
                return
            del self._until[key]
            self._events.pop(key, None)

    def clear(self, key: str) -> None:
        self._events.pop(key, None)
        self._until.pop(key, None)

    def reset(self) -> int | None:
        count = len(self._events)
        self._events.clear()
        self._until.clear()
        return count

    def check(self) -> bool:
        return True

    # Fixed windows (counters) are not kept: only the moving window is used.
    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        raise NotImplementedError("WindowStorage keeps moving windows only")

    def get(self, key: str) -> int:
        raise NotImplementedError("WindowStorage keeps moving windows only")

    def get_expiry(self, key: str) -> float:
        raise NotImplementedError("WindowStorage keeps moving windows only")


class Quotas:
    """Creation limits per client address (``"30/minute"`` style, from the
    ``limits`` library; ``None`` turns a limit off)."""

    def __init__(
        self,
        tables: str | None = "30/minute",
        sheets: str | None = "30/minute",
        sockets: str | None = "120/minute",
        on_flood: Callable[[str], None] | None = None,
        replays: str | None = "10/minute",
        reviews: str | None = "6/hour",
        signups: str | None = "10/hour",
        signins: str | None = "10/minute",
        challenges: str | None = "30/minute",
    ) -> None:
        self._limiter = MovingWindowRateLimiter(WindowStorage())
        self._shared: MovingWindowRateLimiter | None = None  # in Redis, once share() is called
        self._complained = -3600.0  # when a failing broker was last logged
        self._shared_after = 0.0  # the broker is asked again from then (time.monotonic)
        # Called with an address refused FLOOD times in a row: the server
        # stops answering it for a while (transport.hold_off).
        self.on_flood = on_flood
        self._refused: dict[str, int] = {}
        self._items: dict[str, RateLimitItem | None] = {
            "tables": parse(tables) if tables else None,
            "sheets": parse(sheets) if sheets else None,
            "sockets": parse(sockets) if sockets else None,
            "replays": parse(replays) if replays else None,
            "reviews": parse(reviews) if reviews else None,
            "signups": parse(signups) if signups else None,
            # Wrong passwords, counted per account and per address apart.
            "signins": parse(signins) if signins else None,
            # Passkey ceremonies begun: each keeps a challenge for 5 minutes.
            "challenges": parse(challenges) if challenges else None,
        }

    def share(self, broker: str, group: str) -> None:
        """Keep the windows in the broker's Redis (under ``group``, the
        database's id), so that every process serving one database counts
        one address's creations together: N processes no longer give an
        address N times its quota. If Redis fails, this process counts in
        its own memory until it answers again."""
        from limits.storage import RedisStorage

        storage = RedisStorage(
            broker,
            key_prefix=f"ohhell:{group}:quotas",
            wrap_exceptions=True,
            socket_timeout=SHARED_TIMEOUT,
            socket_connect_timeout=SHARED_TIMEOUT,
        )
        self._shared = MovingWindowRateLimiter(storage)

    def _hit(self, item: RateLimitItem, what: str, address: str) -> bool:
        if self._shared is not None and time.monotonic() >= self._shared_after:
            try:
                return self._shared.hit(item, what, address)
            except StorageError as err:
                # The call waits on the event loop: a broker that fails is
                # left alone for a while rather than waited for on each request.
                now = time.monotonic()
                self._shared_after = now + SHARED_RETRY
                if now - self._complained > 60:  # one line a minute, not one a request
                    self._complained = now
                    log.warning("quotas: the broker failed (%s); counting in this process meanwhile", err)
        return self._limiter.hit(item, what, address)

    def allows(self, what: str, key: str) -> bool:
        """Whether ``key`` (an address, or an account's name) has room left in
        ``what``'s window, without counting anything: tries that must be
        refused before their work is done (a password checked) ask this
        first and ``count`` only the ones that failed."""
        item = self._items[what]
        if item is None:
            return True
        if self._shared is not None and time.monotonic() >= self._shared_after:
            try:
                return self._shared.test(item, what, key)
            except StorageError:
                self._shared_after = time.monotonic() + SHARED_RETRY
        return self._limiter.test(item, what, key)

    def count(self, what: str, key: str) -> None:
        """Count one of ``what`` for ``key`` (see ``allows``)."""
        item = self._items[what]
        if item is not None:
            self._hit(item, what, key)

    def spend(self, what: str, key: str) -> bool:
        """Count one try of ``what`` for ``key`` now, before its work, and say
        whether it had room: tries sent at once are each counted as they
        come, so none slips past the limit while the others are worked on."""
        item = self._items[what]
        return item is None or self._hit(item, what, key)

    def take(self, what: str, address: str) -> None:
        """Count one creation of ``what`` by ``address``; ``TableError`` (429)
        once the address has made its limit's worth in the window."""
        item = self._items[what]
        if item is None or self._hit(item, what, address):
            self._refused.pop(address, None)
            return
        self.refused(address)
        metrics.count_refusal(what)
        raise TableError(
            f"too many {_WORDS[what]} from your address: at most {item.amount} "
            f"per {item.multiples if item.multiples > 1 else ''}{item.GRANULARITY.name}; try again soon",
            "busy",
            status=429,
        )

    def refused(self, address: str) -> None:
        """Count one refusal of ``address``; the FLOODth in a row holds it off."""
        refused = self._refused[address] = self._refused.get(address, 0) + 1
        if refused >= FLOOD and self.on_flood is not None:
            self._refused.pop(address, None)
            self.on_flood(address)
        if len(self._refused) > 10_000:  # a bound on what is remembered
            self._refused.clear()


class Proxies:
    """The balancers whose ``X-Forwarded-For`` is believed: addresses and
    networks (``"10.0.0.2, 192.168.0.0/24"``); none unless named.

    A client that reaches the server straight, or through a proxy not named
    here, is its TCP peer whatever it writes in the header. From a trusted
    proxy the client is the rightmost entry of the header that is not itself
    a trusted proxy: each proxy appends the address it saw, so entries to the
    left of the last untrusted one are whatever a client wrote."""

    def __init__(self, spec: str | Iterable[str] = ()) -> None:
        names = spec.replace(" ", ",").split(",") if isinstance(spec, str) else list(spec)
        self.names = [name.strip() for name in names if name.strip()]
        self.networks: list[IPv4Network | IPv6Network] = []
        for name in self.names:
            if name == "*":
                raise ValueError(
                    "trusting every address would let any client name its own: name the balancer's addresses"
                )
            try:
                self.networks.append(ip_network(name, strict=False))
            except ValueError:
                raise ValueError(
                    f"{name!r} is not an address or network (e.g. 10.0.0.2 or 10.0.0.0/24)"
                ) from None

    def __bool__(self) -> bool:
        return bool(self.networks)

    def trusts(self, address: str) -> bool:
        if not self.networks:
            return False
        try:
            ip = ip_address(address)
        except ValueError:
            return False
        if isinstance(ip, IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped  # an IPv4 balancer seen by a server listening on "::"
        return any(ip in network for network in self.networks)

    def client(self, peer: str, forwarded: Iterable[bytes]) -> str:
        """The client's address: ``peer`` (the TCP peer) unless it is trusted;
        then the rightmost untrusted entry of the ``X-Forwarded-For`` values
        ``forwarded`` (all of the request's, in order). No entry, or one that
        is not an address, leaves the nearest trusted proxy's own address."""
        if not self.trusts(peer):
            return peer
        entries = ",".join(value.decode("latin-1") for value in forwarded).split(",")
        chosen = peer
        for entry in reversed(entries):
            address = _address(entry)
            if address is None:
                return chosen  # unreadable: nothing left of it can be believed
            chosen = address
            if not self.trusts(address):
                return address
        return chosen  # every entry a trusted proxy: the leftmost of them


def _address(entry: str) -> str | None:
    """An entry of X-Forwarded-For as a plain address (a port dropped), or None."""
    entry = entry.strip()
    if entry.startswith("[") and "]" in entry:  # [v6]:port
        entry = entry[1 : entry.index("]")]
    elif entry.count(":") == 1:  # v4:port
        entry = entry.split(":")[0]
    try:
        return str(ip_address(entry))
    except ValueError:
        return None


_proxies = Proxies()  # ohhell serve --forwarded-allow-ips (transport.run sets it in each process)


def trust_proxies(proxies: Proxies) -> None:
    """Believe ``X-Forwarded-For`` from ``proxies`` (and from no one else)."""
    global _proxies
    _proxies = proxies


def trusted_proxies() -> Proxies:
    return _proxies


def forwarded_for(headers: Iterable[tuple[bytes, bytes]]) -> list[bytes]:
    return [value for name, value in headers if name == b"x-forwarded-for"]


def plain_address(text: str) -> str:
    """An address in one written form: an IPv4 client of a server listening
    on "::" (``::ffff:203.0.113.7``) is ``203.0.113.7``, so a bar, a quota or
    a count keyed on it is the same however the server listens."""
    if text.startswith("::ffff:") or text.startswith("::FFFF:"):
        try:
            ip = ip_address(text)
        except ValueError:
            return text
        if isinstance(ip, IPv6Address) and ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
    return text


def client_address(scope: Scope) -> str:
    """The client's address: the TCP peer, or what a trusted balancer says
    the peer was (``Proxies``). Every per-address defence keys on this."""
    client = scope.get("client")
    peer = plain_address(str(client[0])) if client else "unknown"
    if not _proxies:
        return peer
    return plain_address(_proxies.client(peer, forwarded_for(scope.get("headers", ()))))


__all__ = [
    "SECURITY_HEADERS",
    "Guard",
    "Proxies",
    "Quotas",
    "WindowStorage",
    "client_address",
    "forwarded_for",
    "plain_address",
    "same_origin",
    "trust_proxies",
    "trusted_proxies",
]
