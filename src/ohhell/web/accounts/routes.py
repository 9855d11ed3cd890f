"""Accounts over HTTP: signing up and in, the session cookie, and what a
signed-in person may do with their account (docs/web.md, "Accounts").

The cookie (``ohhell_session``) is HttpOnly (no script reads it), SameSite=Lax
(another site's page cannot send it with a post), Secure when the page came
over TLS, and signed with a key kept in the database, so every process
knows it and a cookie that was not made here is refused before the database
is asked. Cross-site posts are refused anyway: every post must be JSON, and
the guard refuses another site's ``Origin`` (guard.py).

Wrong passwords are counted per account and per address (``signins``): past
the limit every try is refused before any password is checked, so guessing
costs the guesser time, not the server. Signing in with a name that has no
account takes as long and reads the same as a wrong password.

``--accounts off`` serves none of this; ``required`` lets only signed-in
people make, join or play a table (``seating``).
"""

from __future__ import annotations

import asyncio
import base64
import functools
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Any, Final, Protocol, TypeVar

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from ... import PRESET_TITLES
from ..errors import TableError
from ..serving.guard import Quotas, client_address, trusted_proxies
from ..serving.requests import guarded, json_body
from ..storage.store import Store, meta_t
from . import ratings
from .model import WRONG, Account, Accounts, name_key
from .passkeys import Passkeys
from .profile import public_tables

STATIC = resources.files("ohhell.web") / "static"

COOKIE: Final = "ohhell_session"
COOKIE_DAYS: Final = 30
MODES: Final = ("off", "optional", "required")
LEADERBOARD_LEAST: Final = 5  # rated matches before a player is listed
PROFILE_FRESH: Final = 30.0  # seconds another person's view of a profile is kept
PROFILES_KEPT: Final = 1000  # profiles kept so, at most
HASHING: Final = 2  # threads hashing passwords, per process (argon2id takes 64 MiB each)
HASHING_QUEUE: Final = 64  # sign-ins waiting for them before more are told to try again
T = TypeVar("T")

Handler = Callable[[Request], Awaitable[Response]]


class AccountHost(Protocol):
    store: Store | None
    quotas: Quotas


def _cookie_key(store: Store) -> bytes:
    """The key cookies are signed with: made by the first process that asks,
    kept in the database so that every process has the same."""
    with store.engine.connect() as db:
        found = db.execute(select(meta_t.c.value).where(meta_t.c.name == "cookie_key")).scalar()
    if found is None:
        try:
            with store.engine.begin() as db:
                db.execute(insert(meta_t).values(name="cookie_key", value=secrets.token_hex(32)))
        except IntegrityError:
            pass  # another process made it first
        with store.engine.connect() as db:
            found = db.execute(select(meta_t.c.value).where(meta_t.c.name == "cookie_key")).scalar_one()
    return bytes.fromhex(str(found))


def _sign(key: bytes, token: str) -> str:
    mac = hmac.new(key, token.encode(), hashlib.sha256).digest()[:16]
    return token + "." + base64.urlsafe_b64encode(mac).decode().rstrip("=")


def _unsign(key: bytes, value: str) -> str | None:
    token, _, _ = value.rpartition(".")
    if not token or len(value) > 200:
        return None
    return token if hmac.compare_digest(_sign(key, token), value) else None


def _over_tls(request: Request) -> bool:
    if request.url.scheme == "https":
        return True
    client = request.scope.get("client")
    peer = str(client[0]) if client else ""
    return trusted_proxies().trusts(peer) and request.headers.get("x-forwarded-proto", "") == "https"


class AccountRoutes:
    """The account routes of one server process."""

    def __init__(self, server: AccountHost, mode: str = "optional") -> None:
        if mode not in MODES:
            raise ValueError(f"accounts {mode!r}: say off, optional or required")
        self.server = server
        self.mode = mode
        self._accounts: Accounts | None = None
        self._key: bytes | None = None
        self.least = LEADERBOARD_LEAST  # rated matches before a player is listed
        # A profile's statistics replay up to 50 matches: one at a time, in a
        # thread of their own, and a public profile's kept a while, so asking
        # for profiles over and over cannot slow the server for others.
        self._profiling = ThreadPoolExecutor(1, thread_name_prefix="ohhell-profile")
        self._seen: dict[str, tuple[float, dict[str, Any]]] = {}
        self._hash_pool: ThreadPoolExecutor | None = None
        self._hash_waiting = 0

    @property
    def accounts(self) -> Accounts:
        if self._accounts is None:
            assert self.server.store is not None, "the store opens with the application"
            self._accounts = Accounts(self.server.store.engine)
            self._key = _cookie_key(self.server.store)
        return self._accounts

    async def _hashing(self, work: Callable[..., T], *args: Any) -> T:
        """Work that hashes a password, in threads of its own (``HASHING``):
        argon2id is slow and large on purpose, and sign-ins run through the
        common threads would keep every other thread's work (sessions,
        ratings) waiting behind them. At most ``HASHING_QUEUE`` wait; more
        are told to try again."""
        if self._hash_waiting >= HASHING_QUEUE:
            raise TableError(
                "the server is busy signing people in: try again in a moment", "busy", status=503
            )
        if self._hash_pool is None:
            self._hash_pool = ThreadPoolExecutor(HASHING, thread_name_prefix="ohhell-password")
        self._hash_waiting += 1
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._hash_pool, functools.partial(work, *args))
        finally:
            self._hash_waiting -= 1

    # --- The session of a request ---

    def _token(self, request: Request) -> str | None:
        value = request.cookies.get(COOKIE)
        if not value:
            return None
        self.accounts  # noqa: B018 - makes the key
        assert self._key is not None
        return _unsign(self._key, value)

    async def signed_in(self, request: Request) -> Account | None:
        """The account whose session the request carries, or None."""
        if self.mode == "off":
            return None
        token = self._token(request)
        if token is None:
            return None
        return await asyncio.to_thread(self.accounts.session, token)

    async def seat_at(self, request: Request, table_id: str) -> int | None:
        """The seat the signed-in person's account played at the table, if any."""
        from .model import seat_owners

        account = await self.signed_in(request)
        if account is None or len(table_id) > 32:
            return None
        owners = await asyncio.to_thread(seat_owners, self.accounts.engine, table_id)
        return next((seat for seat, owner in owners.items() if owner == account.id), None)

    def _with_session(self, response: Response, request: Request, token: str) -> Response:
        assert self._key is not None
        response.set_cookie(
            COOKIE,
            _sign(self._key, token),
            max_age=COOKIE_DAYS * 86400,
            path="/",
            httponly=True,
            samesite="lax",
            secure=_over_tls(request),
        )
        response.headers["cache-control"] = "no-store"
        return response

    @staticmethod
    def _without_session(response: Response) -> Response:
        response.delete_cookie(COOKIE, path="/")
        response.headers["cache-control"] = "no-store"
        return response

    async def _account(self, request: Request) -> Account:
        account = await self.signed_in(request)
        if account is None:
            raise TableError("you are not signed in", status=401)
        return account

    # --- Routes ---

    async def me(self, request: Request) -> Response:
        account = await self.signed_in(request)
        body: dict[str, Any] = {"accounts": self.mode, "account": None}
        if account is not None:
            rating = await asyncio.to_thread(ratings.rating_of, self.accounts.engine, account.id)
            presets = await asyncio.to_thread(ratings.preset_ratings, self.accounts.engine, account.id)
            held = await asyncio.to_thread(self.passkeys.held, account.id)
            body["account"] = {
                "passkeys": len(held),
                "name": account.name,
                "public": account.public,
                "created": account.created,
                "rating": _rating_json(rating),
                "presets": _presets_json(presets),
            }
        response = JSONResponse(body)
        response.headers["cache-control"] = "no-store"
        return response

    async def _signed_in_as(self, account: Account, request: Request) -> Response:
        """A new session for ``account``, its cookie on the answer."""
        agent = request.headers.get("user-agent", "")
        token = await asyncio.to_thread(self.accounts.open_session, account, agent)
        return self._with_session(JSONResponse({"account": {"name": account.name}}), request, token)

    async def sign_up(self, request: Request) -> Response:
        data = await json_body(request)
        self.server.quotas.take("signups", client_address(request.scope))
        account = await self._hashing(self.accounts.sign_up, data.get("name"), data.get("password"))
        return await self._signed_in_as(account, request)

    async def sign_in(self, request: Request) -> Response:
        data = await json_body(request)
        name = data.get("name")
        address = client_address(request.scope)
        keys = [f"address:{address}"]
        if isinstance(name, str) and len(name) <= 100:
            # The account's own key: every way of writing the name counts as one.
            keys.append("name:" + name_key(name))
        # Every try counts, as it comes and before its password is checked:
        # tries sent at once cannot slip past the limit while others hash.
        if not all(self.server.quotas.spend("signins", key) for key in keys):
            raise TableError("too many wrong passwords: wait a minute and try again", "busy", status=429)
        account = await self._hashing(self.accounts.verify, name, data.get("password"))
        if account is None:
            raise TableError(WRONG, status=401)
        return await self._signed_in_as(account, request)

    async def sign_out(self, request: Request) -> Response:
        token = self._token(request)
        if token is not None:
            await asyncio.to_thread(self.accounts.close_session, token)
        return self._without_session(JSONResponse({"signed_out": True}))

    async def sign_out_everywhere(self, request: Request) -> Response:
        account = await self._account(request)
        ended = await asyncio.to_thread(self.accounts.close_sessions, account.id)
        return self._without_session(JSONResponse({"signed_out": ended}))

    def _guessing(self, account: Account) -> None:
        """A password given inside a session (to change it, to delete the
        account) counts as a sign-in try: a stolen session cannot guess it."""
        if not self.server.quotas.spend("signins", "name:" + name_key(account.name)):
            raise TableError("too many wrong passwords: wait a minute and try again", "busy", status=429)

    async def password(self, request: Request) -> Response:
        account = await self._account(request)
        self._guessing(account)
        data = await json_body(request)
        keep = self._token(request)
        await self._hashing(self.accounts.change_password, account, data.get("old"), data.get("new"), keep)
        return JSONResponse({"changed": True})

    async def public(self, request: Request) -> Response:
        account = await self._account(request)
        data = await json_body(request)
        if type(data.get("public")) is not bool:
            raise TableError('"public" must be true or false')
        await asyncio.to_thread(self.accounts.set_public, account.id, data["public"])
        return JSONResponse({"public": data["public"]})

    async def delete(self, request: Request) -> Response:
        account = await self._account(request)
        self._guessing(account)
        data = await json_body(request)
        confirmed = await self._hashing(self.accounts.verify, account.name, data.get("password"))
        if confirmed is None or confirmed.id != account.id:
            raise TableError("give your password to delete the account", status=403)
        await asyncio.to_thread(self.accounts.delete, account.id)
        return self._without_session(JSONResponse({"deleted": True}))

    async def data(self, request: Request) -> Response:
        account = await self._account(request)
        body = await asyncio.to_thread(self.accounts.data, account)
        engine = self.accounts.engine
        overall = await asyncio.to_thread(ratings.rating_of, engine, account.id)
        presets = await asyncio.to_thread(ratings.preset_ratings, engine, account.id)
        body["ratings"] = {
            "overall": _rating_json(overall),
            "presets": _presets_json(presets),
            "matches": await asyncio.to_thread(ratings.history, engine, account.id),
        }
        return Response(
            json.dumps(body, indent=2, ensure_ascii=False),
            media_type="application/json",
            headers={
                "content-disposition": 'attachment; filename="ohhell-account.json"',
                "cache-control": "no-store",
            },
        )

    async def history(self, request: Request) -> Response:
        """The signed-in person's rated matches and their rating after each."""
        account = await self._account(request)
        rows = await asyncio.to_thread(ratings.history, self.accounts.engine, account.id)
        stats = await self._profile(account.id, own=True)
        return JSONResponse({"matches": rows, "statistics": stats}, headers={"cache-control": "no-store"})

    def _statistics(self, account_id: str, own: bool = True) -> dict[str, Any]:
        from .profile import statistics

        assert self.server.store is not None
        return statistics(self.server.store, account_id, own=own)

    async def _profile(self, account_id: str, *, own: bool) -> dict[str, Any]:
        """The statistics of a profile: its owner's fresh, another's as seen
        within ``PROFILE_FRESH`` seconds."""
        now = time.monotonic()
        kept = self._seen.get(account_id)
        if not own and kept is not None and now - kept[0] < PROFILE_FRESH:
            return kept[1]
        loop = asyncio.get_running_loop()
        stats = await loop.run_in_executor(self._profiling, self._statistics, account_id, own)
        if not own:
            if len(self._seen) >= PROFILES_KEPT:
                self._seen.clear()
            self._seen[account_id] = (now, stats)
        return stats

    async def player(self, request: Request) -> Response:
        """A player's public profile: the same 404 for a name that does not
        exist and for one whose person keeps it private."""
        name = request.path_params["name"]
        account = await asyncio.to_thread(self.accounts.by_name, name) if len(name) <= 64 else None
        me = await self.signed_in(request)
        if (
            account is None
            or account.disabled
            or not (account.public or (me is not None and me.id == account.id))
        ):
            raise TableError("no such player, or their profile is private", status=404)
        engine = self.accounts.engine
        rating = await asyncio.to_thread(ratings.rating_of, engine, account.id)
        presets = await asyncio.to_thread(ratings.preset_ratings, engine, account.id)
        rows = await asyncio.to_thread(ratings.history, engine, account.id)
        own = me is not None and me.id == account.id
        stats = await self._profile(account.id, own=own)
        if not own:  # a private table's id is its players' alone (its names, its watching)
            assert self.server.store is not None
            ids = [str(r["table"]) for r in rows]
            public = await asyncio.to_thread(public_tables, self.server.store, ids)
            rows = [{**r, "table": r["table"] if r["table"] in public else None} for r in rows]
        body = {
            "name": account.name,
            "rating": _rating_json(rating),
            "presets": _presets_json(presets),
            "matches": rows,
            "statistics": stats,
        }
        return JSONResponse(body)

    async def leaderboard(self, request: Request) -> Response:
        """The best ratings of the players who chose to be seen, with at least
        ``least`` rated matches and one in the last 30 days, and
        the bots' landmarks among them: overall, or in one preset's matches
        (``?preset=river``); ``presets`` names those with players enough
        for a board of their own."""
        preset = request.query_params.get("preset") or None
        if preset is not None and preset not in PRESET_TITLES:
            raise TableError(
                f"there is no preset called {preset[:40]!r}: the presets are {', '.join(PRESET_TITLES)}",
                status=400,
            )
        names = await asyncio.to_thread(self.accounts.public_names)
        since = time.time() - 30 * 86400
        engine = self.accounts.engine
        rows = await asyncio.to_thread(
            functools.partial(ratings.leaderboard, preset=preset),
            engine,
            names,
            least=self.least,
            since=since,
        )
        listed = await asyncio.to_thread(ratings.presets_listed, engine, names, least=self.least, since=since)
        return JSONResponse(
            {
                "least": self.least,
                "days": 30,
                "preset": preset,
                "presets": [{"preset": p, "title": PRESET_TITLES[p]} for p in listed],
                "rows": rows,
            }
        )

    # --- Passkeys (passkeys.py) ---

    @property
    def passkeys(self) -> Passkeys:
        return Passkeys(self.accounts.engine)

    @staticmethod
    def _party(request: Request) -> tuple[str, str]:
        """The relying party (the host name the browser reached) and the origin."""
        host = request.headers.get("host", "")
        name = request.url.hostname or ""
        return name, f"{'https' if _over_tls(request) else 'http'}://{host}"

    async def _credential(self, request: Request) -> dict[str, Any]:
        data = await json_body(request)
        credential = data.get("credential")
        if not isinstance(credential, dict):
            raise TableError('"credential" must be the browser\'s answer, as JSON')
        return credential

    async def passkey_options(self, request: Request) -> Response:
        """Begin adding a passkey to the signed-in account."""
        account = await self._account(request)
        self.server.quotas.take("challenges", client_address(request.scope))
        rp_id, _ = self._party(request)
        options = await asyncio.to_thread(self.passkeys.register_options, account.id, account.name, rp_id)
        return Response(options, media_type="application/json", headers={"cache-control": "no-store"})

    async def passkey_add(self, request: Request) -> Response:
        account = await self._account(request)
        credential = await self._credential(request)
        rp_id, origin = self._party(request)
        await asyncio.to_thread(self.passkeys.register, account.id, credential, rp_id, origin)
        return JSONResponse({"passkeys": len(await asyncio.to_thread(self.passkeys.held, account.id))})

    async def passkey_sign_in_options(self, request: Request) -> Response:
        """Begin signing in with a passkey (the browser offers the ones it holds)."""
        address = client_address(request.scope)
        if not self.server.quotas.allows("signins", f"address:{address}"):
            raise TableError("too many tries: wait a minute and try again", "busy", status=429)
        self.server.quotas.take("challenges", address)  # each one is kept for a while
        rp_id, _ = self._party(request)
        options = await asyncio.to_thread(self.passkeys.sign_in_options, rp_id)
        return Response(options, media_type="application/json", headers={"cache-control": "no-store"})

    async def passkey_sign_in(self, request: Request) -> Response:
        credential = await self._credential(request)
        rp_id, origin = self._party(request)
        address = f"address:{client_address(request.scope)}"
        if not self.server.quotas.allows("signins", address):
            raise TableError("too many tries: wait a minute and try again", "busy", status=429)
        try:
            account_id = await asyncio.to_thread(self.passkeys.sign_in, credential, rp_id, origin)
        except TableError:
            self.server.quotas.count("signins", address)
            raise
        account = await asyncio.to_thread(self.accounts.by_id, account_id)
        if account is None or account.disabled:
            raise TableError("this passkey's account cannot sign in", status=401)
        return await self._signed_in_as(account, request)

    async def seats(self, request: Request) -> Response:
        """Make the seats whose tokens this browser holds the account's (a
        guest who signs up keeps the matches they played)."""
        from ..tables.table import token_hash

        account = await self._account(request)
        data = await json_body(request)
        held = data.get("seats")
        if not isinstance(held, list) or len(held) > 200:
            raise TableError('"seats" must be a list of at most 200 {"table", "seat", "token"}')
        linked = 0
        for item in held:
            if not isinstance(item, dict):
                raise TableError('each of "seats" is {"table", "seat", "token"}')
            table, seat, token = item.get("table"), item.get("seat"), item.get("token")
            if not (isinstance(table, str) and len(table) <= 32 and type(seat) is int and 0 <= seat < 64):
                raise TableError('each of "seats" is {"table", "seat", "token"}')
            if not isinstance(token, str) or len(token) > 200:
                raise TableError("a seat's token is text")
            if await asyncio.to_thread(self.accounts.link_seat, account, table, seat, token_hash(token)):
                linked += 1
        return JSONResponse({"linked": linked})

    def seating(self, handler: Handler) -> Handler:
        """A route that gives a seat (Play now, a new table, a join): refused
        to a guest where accounts are required, and the seat made the
        signed-in person's, so their history holds it without a step of
        theirs."""
        from ..tables.table import token_hash

        async def endpoint(request: Request) -> Response:
            account = await self.signed_in(request)  # None when off, or a guest
            if account is None and self.mode == "required":
                raise TableError("sign in to play on this server", status=401)
            response = await handler(request)
            if account is None or response.status_code != 200:
                return response
            try:
                given = json.loads(bytes(response.body))
                table, seat, token = given["table"], given["seat"], given["token"]
            except (ValueError, KeyError, TypeError):
                return response
            if isinstance(token, str):
                await asyncio.to_thread(self.accounts.link_seat, account, table, seat, token_hash(token))
            return response

        return endpoint


async def _page(request: Request) -> Response:
    """The account pages: one page, which reads its address (account.js)."""
    return FileResponse(str(STATIC / "account.html"), media_type="text/html")


def _presets_json(presets: dict[str, ratings.Rating]) -> list[dict[str, Any]]:
    """An account's rating in each preset, in the presets' order."""
    return [
        {"preset": name, "title": title, **_rating_json(presets[name])}
        for name, title in PRESET_TITLES.items()
        if name in presets
    ]


def _rating_json(rating: ratings.Rating) -> dict[str, Any]:
    return {
        "rating": rating.shown,
        "provisional": rating.provisional,
        "matches": rating.matches,
        "standing": ratings.standing_words(rating),
    }


def account_routes(routes: AccountRoutes) -> list[Route]:
    """The account API, to add to ``create_app``'s routes (none when off)."""
    if routes.mode == "off":
        return []
    post = ["POST"]
    return [
        Route("/account", _page),
        Route("/players/{name}", _page),
        Route("/leaderboard", _page),
        Route("/api/account", guarded(routes.me)),
        Route("/api/account/signup", guarded(routes.sign_up), methods=post),
        Route("/api/account/signin", guarded(routes.sign_in), methods=post),
        Route("/api/account/signout", guarded(routes.sign_out), methods=post),
        Route("/api/account/signout-everywhere", guarded(routes.sign_out_everywhere), methods=post),
        Route("/api/account/password", guarded(routes.password), methods=post),
        Route("/api/account/public", guarded(routes.public), methods=post),
        Route("/api/account/delete", guarded(routes.delete), methods=post),
        Route("/api/account/data", guarded(routes.data)),
        Route("/api/account/seats", guarded(routes.seats), methods=post),
        Route("/api/account/history", guarded(routes.history)),
        Route("/api/account/passkeys/options", guarded(routes.passkey_options), methods=post),
        Route("/api/account/passkeys", guarded(routes.passkey_add), methods=post),
        Route("/api/account/passkey/options", guarded(routes.passkey_sign_in_options), methods=post),
        Route("/api/account/passkey/signin", guarded(routes.passkey_sign_in), methods=post),
        Route("/api/players/{name}", guarded(routes.player)),
        Route("/api/leaderboard", guarded(routes.leaderboard)),
    ]
