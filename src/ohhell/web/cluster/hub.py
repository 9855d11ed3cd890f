"""The live tables of one server process: loading, creating, joining, expiring.

A table is loaded from the database the first time someone asks for it, so a
restart resumes every table where its stored log stops (table.py holds what
happens at one table).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Callable

from ... import CHANGE_GRACE, Rules
from ..seats import check_all_seated, check_level, seat_plan, seat_to_join
from ..storage.store import SeatRow, Store
from ..tables.lobby import Lobby
from ..tables.table import (
    BOT,
    COVER_LEVEL,
    DEFAULT_CLOCK,
    HUMAN,
    INVITED,
    OPEN,
    LiveTable,
    Seat,
    TableError,
    bot_name,
    check_clock,
    new_token,
    token_hash,
)
from ..tables.thinking import Thinkers
from .broker import Cluster
from .relay import Relay

log = logging.getLogger("ohhell.web")


class Hub:
    """The live tables of this server process."""

    def __init__(
        self,
        store: Store,
        *,
        away_after: float = 60.0,
        bot_delay: float = 0.6,
        think: float = 1.0,
        clock: float = DEFAULT_CLOCK,
        change_grace: float = CHANGE_GRACE,
        now: Callable[[], float] = time.monotonic,
        thinkers: Thinkers | None = None,
    ) -> None:
        self.store = store
        self.thinkers = thinkers or Thinkers(0)
        # The time that turn clocks and absences are measured in (seconds);
        # tests put a clock of their own here to move time by hand.
        self.now = now
        self.away_after = away_after
        self.bot_delay = bot_delay
        self.think = think
        self.clock = check_clock(clock)  # the clock of new tables unless they choose
        self.change_grace = change_grace  # seconds a bot bidding next waits for a bid change
        self.tables: dict[str, LiveTable] = {}
        self._loading = asyncio.Lock()
        self.cluster: Cluster | None = None  # other processes serving the same database, if any
        self.relay: Relay | None = None
        self.lobby = Lobby(store)  # the home page's list of open public tables
        self.rating = True  # finished matches are rated (off with accounts off)
        self._rating: set[asyncio.Task[None]] = set()

    def finished(self, table: LiveTable) -> None:
        """The match at ``table`` is over, or its host ended it: rate it
        (accounts/ratings.py), in a thread.
        Rating is once per table whoever calls, so a restart that finds the
        match over again changes nothing."""
        if not self.rating:
            return
        seats = [(s.kind, s.level) for s in table.seats]
        totals = list(table.state.totals)
        played = table.played
        # People at two seats who came from one address may be one person
        # playing two accounts: neither is rated by the match.
        seen = {s: set(table.chat.seen.get(s, ())) for s in range(len(table.seats))}
        shared = {s for s in seen for t in seen if s != t and seen[s] & seen[t]}
        # What each seat's person did, read now (the thread must not read a table that moves on).
        did = (played.played(), played.acted(), set(played.removed), played.ended_by)
        args = (table.id, table.rules, seats, totals, set(played.hinted) | shared, did)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a table loaded outside the server (a tool): rated in place
            self._rate(*args)
            return
        task = loop.create_task(asyncio.to_thread(self._rate, *args))
        self._rating.add(task)
        task.add_done_callback(self._rating.discard)

    def _rate(
        self,
        table_id: str,
        rules: Rules,
        seats: list[tuple[str, str | None]],
        totals: list[int],
        unrated: set[int],
        did: tuple[set[int], set[int], set[int], int | None],
    ) -> None:
        from ..accounts.model import seat_owners
        from ..accounts.ratings import rate_finished

        try:
            owners = seat_owners(self.store.engine, table_id)
            outcome = rate_finished(
                self.store.engine,
                table_id,
                rules,
                seats,
                totals,
                owners,
                unrated=unrated,
                played=did[0],
                acted=did[1],
                removed=did[2],
                ended_by=did[3],
                cover=COVER_LEVEL,
            )
            log.info("table %s: %s", table_id, outcome)
        except Exception:
            log.exception("table %s: the match could not be rated", table_id)

    def join_cluster(self, cluster: Cluster, relay: Relay) -> None:
        """Serve alongside other processes on the same database (cluster.py):
        a table is loaded here only while this process holds it."""
        self.cluster = cluster
        self.relay = relay
        cluster.on_lost = self._check_held
        cluster.on_orphans = self._take
        relay.rematch_seat = self.take_rematch_seat

    async def find(self, table_id: str) -> LiveTable | str | None:
        """The table if this process holds it (loaded now if need be), the
        id of the process that does, or None if there is no such table."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        if not table_id.replace("-", "").replace("_", "").isalnum() or len(table_id) > 32:
            return None
        if self.cluster is not None:
            holder = await self.cluster.claim(table_id)
            if holder != self.cluster.worker:
                return holder
        return await self._load(table_id)

    async def get(self, table_id: str) -> LiveTable | None:
        """The table, if this process holds it or can take it now."""
        found = await self.find(table_id)
        return None if found is None or isinstance(found, str) else found

    async def _load(self, table_id: str) -> LiveTable | None:
        async with self._loading:
            table = self.tables.get(table_id)
            if table is None:
                row = self.store.load(table_id)
                if row is None:
                    if self.cluster is not None:
                        await self.cluster.release(table_id)
                    return None
                table = LiveTable(self, row)
                self.tables[table_id] = table
                self._start(table)
        return table

    async def _take(self, table_ids: list[str]) -> None:
        """Tables whose holder died, now held here: load them, so their
        matches go on even with nobody connected (their clients reconnect)."""
        for table_id in table_ids:
            try:
                table = await self.get(table_id)
            except Exception:
                log.exception("table %s: cannot take it over", table_id)
                continue
            if table is not None:
                log.info("table %s: taken over from a server that went away", table_id)

    async def _check_held(self) -> None:
        """After this process missed its heartbeat: drop the tables another
        process took meanwhile (their clients reconnect to it)."""
        assert self.cluster is not None
        for table in list(self.tables.values()):
            # Kept if still ours or held by nobody (Redis itself restarted).
            if await self.cluster.claim(table.id) != self.cluster.worker:
                self.drop(table)

    def drop(self, table: LiveTable) -> None:
        """Stop serving a table another process holds now: its clients here
        and elsewhere are closed, and reconnect to the holder."""
        log.warning("table %s: held by another server now; letting it go", table.id)
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
        if table.driver is not None:
            table.driver.cancel()
        if self.relay is not None:
            self.relay.drop_table(table)
        for conn in list(table.connections):
            asyncio.get_running_loop().create_task(conn.hang_up())

    def _start(self, table: LiveTable) -> None:
        if table.driver is None:
            table.driver = asyncio.get_running_loop().create_task(table.drive())

    async def reload(self, table: LiveTable) -> None:
        """Rebuild ``table`` from the database (after another writer moved it on)."""
        if self.cluster is not None and await self.cluster.holder(table.id) != self.cluster.worker:
            self.drop(table)  # another process took it: it is that one's to run
            return
        row = self.store.load(table.id)
        if row is None:  # pragma: no cover - tables are never deleted
            return
        fresh = LiveTable(self, row)
        table.match = fresh.match  # every turn starts at the stored version, with a full clock
        table.status = fresh.status
        table.claims.accepted = fresh.claims.accepted  # another process may have accepted one
        table.claims.tried = fresh.claims.tried  # or had one made: one claim a hand still
        table.seats = [
            Seat(s.seat, s.name, s.kind, s.level, s.token_hash, old.connections, old.gone_since, old.covered)
            for s, old in zip(fresh.seats, table.seats, strict=True)
        ]
        table.broadcast_table()
        table.broadcast_state()

    def unload(self, table: LiveTable) -> None:
        """Forget a table nobody watches (its log stays stored)."""
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
        if table.driver is not None:
            table.driver.cancel()
        if self.cluster is not None:
            asyncio.get_running_loop().create_task(self.cluster.release(table.id))

    def unload_idle(self, seconds: float) -> int:
        """Forget tables nobody is connected to where nothing happened for
        ``seconds`` (they load again, exactly as stored, when opened), so
        tables made and left cost no memory. Returns how many went."""
        now = self.now()
        idle = [
            t
            for t in self.tables.values()
            if not t.connections and now - t.touched >= seconds and not t.lock.locked()
        ]
        for table in idle:
            self.unload(table)
        return len(idle)

    async def resume_all(self) -> int:
        """Load every match being played that someone has opened, so its bots
        go on after a restart (one nobody opened waits until someone does)."""
        ids = self.store.table_ids("playing", opened=True)
        for table_id in ids:
            await self.get(table_id)
        return len(ids)

    async def expire(self, lobby_lifetime: float, idle_lifetime: float) -> list[str]:
        """Delete lobbies older than ``lobby_lifetime`` seconds and unfinished
        matches idle longer than ``idle_lifetime`` (docs/web.md, "Lifetimes")."""
        now = time.time()
        gone = await asyncio.to_thread(self.store.expire, now - lobby_lifetime, now - idle_lifetime)
        for table_id in gone:
            table = self.tables.get(table_id)
            if table is not None:
                for conn in list(table.connections):
                    conn.post_json({"type": "error", "error": "this table has expired", "code": "gone"})
                self.unload(table)
        if gone:
            log.info("expired %d abandoned tables", len(gone))
        return gone

    async def close(self) -> None:
        for table in self.tables.values():
            if table.driver is not None:
                table.driver.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await table.driver
        if self.cluster is not None:
            # Let go at once, so another process takes each table on its next
            # look instead of waiting for this one's heartbeat to lapse.
            for table_id in list(self.tables):
                await self.cluster.release(table_id)
        self.tables.clear()

    # --- Creating and joining ---

    def create(
        self,
        rules: Rules,
        kinds: list[str],
        *,
        host_seat: int,
        host_name: str,
        seed: int | None = None,
        clock: float | None = None,
        public: bool = False,
        settings: dict[str, str] | None = None,
    ) -> tuple[str, str]:
        """A new table in the lobby; returns (table id, the host's token).
        A ``public`` table is listed on the home page while a seat is open;
        ``settings`` are stored with it (``Store.create``)."""
        plan = seat_plan(rules, kinds, host_seat)
        table_id = secrets.token_urlsafe(9)
        token = new_token()
        rows = []
        for seat, (kind, level) in enumerate(plan):
            if kind == HUMAN:
                rows.append(SeatRow(seat, host_name, HUMAN, None, token_hash(token)))
            else:
                rows.append(SeatRow(seat, bot_name(seat) if level else None, kind, level, None))
        seed = secrets.randbelow(2**62) if seed is None else seed
        clock = self.clock if clock is None else check_clock(clock)
        self.store.create(
            table_id, rules.options(), seed, host_seat, rows, clock=clock, public=public, settings=settings
        )
        if public:
            self.lobby.changed()
        return table_id, token

    async def join(self, table: LiveTable, seat: int | None, name: str | None) -> tuple[int, str]:
        """A person takes ``seat`` (None: the first open one); returns the
        seat and its token. ``name`` None: "Player" and the seat's number."""
        async with table.lock:
            if table.status != "lobby":
                raise TableError("the match has started", status=409)
            seat = seat_to_join([s.kind for s in table.seats], seat)
            name = name or f"Player {seat + 1}"
            s = table.seats[seat]
            token = new_token()
            row = SeatRow(seat, name, HUMAN, None, token_hash(token))
            if not self.store.claim_seat(table.id, row):
                raise TableError(f"seat {seat + 1} is taken", status=409)
            s.name, s.kind, s.token_hash = name, HUMAN, row.token_hash
            s.gone_since = self.now()
            table.broadcast_table()
            if table.listed:
                self.lobby.changed()
            return seat, token

    async def fill(self, table: LiveTable, token: str | None, level: str) -> None:
        async with table.lock:
            self._host(table, token)
            if table.status != "lobby":
                raise TableError("the match has started", status=409)
            check_level(level, table.rules)
            for s in table.seats:
                if s.kind == OPEN:
                    s.name, s.kind, s.level = bot_name(s.seat, level), BOT, level
                    self.store.set_seat(table.id, s.row())
            table.broadcast_table()
            if table.listed:
                self.lobby.changed()

    async def start(self, table: LiveTable, token: str | None) -> None:
        async with table.lock:
            self._host(table, token)
            if table.status != "lobby":
                raise TableError("the match has already started", status=409)
            check_all_seated([s.kind for s in table.seats])
            # A rematch's seats that nobody took back: bots play them.
            for s in table.seats:
                if s.kind == INVITED:
                    s.name, s.kind, s.level, s.token_hash = (
                        bot_name(s.seat, COVER_LEVEL),
                        BOT,
                        COVER_LEVEL,
                        None,
                    )
                    self.store.set_seat(table.id, s.row())
            table.status = "playing"
            now = self.now()
            for s in table.seats:
                s.gone_since = now
            table.match.restart_clock()
            self.store.set_status(table.id, "playing")
            if table.listed:
                self.lobby.changed()
            table.broadcast_table()
            table.broadcast_state()
            table.wake.set()

    async def rematch(self, table: LiveTable, token: str | None) -> tuple[str, int, str]:
        """ "Play again" after ``table``'s match: the first player to ask makes
        a new table with the same rules, seats and clock, and hosts it; every
        other person's seat is kept for them (``INVITED``) until they ask too,
        and the bots keep theirs. Returns (new table, seat, token): a player
        keeps their seat and their token."""
        seat = table.seat_of_token(token)
        if seat is None or token is None:
            raise TableError("only a player of this match may ask to play again", "seat", status=403)
        async with table.lock:
            if table.status not in ("over", "ended"):
                raise TableError("a rematch is for a finished match", status=409)
            if table.rematch is None:
                table_id = self._new_rematch(table, seat, token)
                table.rematch = {"table": table_id, "by": table.seats[seat].name}
                self.store.set_setting(table.id, "rematch", json.dumps(table.rematch))
                table.broadcast_table()
                return table_id, seat, token
            table_id = str(table.rematch["table"])
        found = await self.find(table_id)
        if isinstance(found, str):
            # The new table is held by another process (the first player's
            # page opened it there): that one keeps the seat for this player.
            return await self._rematch_elsewhere(found, table_id, seat, token)
        if found is None:
            raise TableError("the rematch has expired", status=404)
        return await self.take_rematch_seat(found, seat, token)

    async def _rematch_elsewhere(
        self, holder: str, table_id: str, seat: int, token: str
    ) -> tuple[str, int, str]:
        assert self.relay is not None
        message = {"op": "rematch-seat", "table": table_id, "data": {"seat": seat, "token": token}}
        answer = await self.relay.call(holder, message)
        status = int(answer.get("status", 200))
        body = answer.get("json") or {}
        if status != 200:
            raise TableError(str(body.get("error", "the rematch could not be joined")), status=status)
        return str(body["table"]), int(body["seat"]), token

    async def take_rematch_seat(self, fresh: LiveTable, seat: int, token: str) -> tuple[str, int, str]:
        """A player of the finished match takes back their seat at ``fresh``,
        its rematch held here (the seat kept for them, ``INVITED``)."""
        async with fresh.lock:
            if fresh.seat_of_token(token) == seat:
                return fresh.id, seat, token  # asked twice: nothing more to do
            kept = fresh.invited_seat(token)
            if (
                kept is None
                or fresh.status != "lobby"
                or not self.store.accept_seat(fresh.id, kept, token_hash(token))
            ):
                raise TableError("the rematch has started without you: you can watch it", status=409)
            s = fresh.seats[kept]
            s.kind, s.gone_since = HUMAN, self.now()
            fresh.broadcast_table()
            return fresh.id, kept, token

    def _new_rematch(self, table: LiveTable, seat: int, token: str) -> str:
        rows = []
        for s in table.seats:
            if s.seat == seat:
                rows.append(SeatRow(s.seat, s.name, HUMAN, None, token_hash(token)))
            elif s.kind == HUMAN:
                rows.append(SeatRow(s.seat, s.name, INVITED, None, s.token_hash))
            else:
                rows.append(SeatRow(s.seat, s.name, BOT, s.level or COVER_LEVEL, None))
        table_id = secrets.token_urlsafe(9)
        self.store.create(
            table_id, table.rules.options(), secrets.randbelow(2**62), seat, rows, clock=table.clock
        )
        log.info("table %s: played again as %s", table.id, table_id)
        return table_id

    def _host(self, table: LiveTable, token: str | None) -> None:
        if table.seat_of_token(token) != table.host_seat:
            raise TableError("only the table's host may do that", "seat", status=403)


__all__ = ["Hub"]
