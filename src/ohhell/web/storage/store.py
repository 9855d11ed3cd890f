"""The tables' database: SQLAlchemy Core over SQLite (default) or PostgreSQL.

The tables:

- ``ohhell_tables``: one row per table (rules as option text, seed, status).
- ``ohhell_seats``: one row per seat (name, kind, bot level, SHA-256 of the token).
- ``ohhell_actions``: the append-only action log, one record line per action,
  keyed by ``(table_id, version)``. The version is the action's position in
  the log, so two processes that both try to store version 17 of a table
  cannot both succeed: the loser gets ``StaleVersion`` and must reload.
- ``ohhell_table_settings``: what a table keeps that is not a rule (its
  clock, whether it is listed, its rematch, who the host muted or removed).
- ``ohhell_chat``: what was said at a table, the last ``CHAT_KEPT`` lines.
- ``ohhell_reviews``: post-game reviews (web/serving/reviews.py), keyed by the
  record's digest: a finished table's, or a record sent from the replay page.

Every call is one short transaction, made in place on the event loop's
thread. On SQLite (WAL) the log's append takes about 0.1 ms on a held
connection, less than handing it to a thread would cost. On PostgreSQL a
commit waits 1-4 ms for the disk; doing it in a worker thread was measured
and was slower (GIL hand-offs; docs/performance.md), so it stays in place too.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    and_,
    create_engine,
    delete,
    event,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError

from ..serving import metrics

metadata = MetaData()

tables_t = Table(
    "ohhell_tables",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("created", Float, nullable=False),
    Column("rules", Text, nullable=False),  # JSON: {option: text}, every option
    Column("seed", BigInteger, nullable=False),
    Column("status", String(16), nullable=False),  # lobby, playing, over, ended (by the host)
    Column("host_seat", Integer, nullable=False),
)

seats_t = Table(
    "ohhell_seats",
    metadata,
    Column("table_id", String(32), ForeignKey("ohhell_tables.id"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("name", String(64)),
    Column(
        "kind", String(16), nullable=False
    ),  # open, human, bot, invited (a rematch seat kept for its player)
    Column("level", String(32)),
    Column("token_hash", String(64)),
    PrimaryKeyConstraint("table_id", "seat"),
)

actions_t = Table(
    "ohhell_actions",
    metadata,
    Column("table_id", String(32), ForeignKey("ohhell_tables.id"), nullable=False),
    Column("version", Integer, nullable=False),
    Column("line", Text, nullable=False),  # the action as a record line
    Column("at", Float, nullable=False),
    PrimaryKeyConstraint("table_id", "version"),
)


settings_t = Table(
    "ohhell_table_settings",
    metadata,
    Column("table_id", String(32), ForeignKey("ohhell_tables.id"), nullable=False),
    Column("name", String(32), nullable=False),  # "clock": seconds per decision, "public", "opened", ...
    Column("value", Text, nullable=False),
    PrimaryKeyConstraint("table_id", "name"),
)
"""Table settings that are not rules of the game (a table of its own, so a
database made before they existed gains it without a migration)."""

chat_t = Table(
    "ohhell_chat",
    metadata,
    Column("table_id", String(32), ForeignKey("ohhell_tables.id"), nullable=False),
    Column("number", Integer, nullable=False),  # the line's place in the table's chat, from 0
    Column("seat", Integer),  # null: a watcher
    Column("name", String(64), nullable=False),
    Column("kind", String(16), nullable=False),  # chat, reaction
    Column("text", Text, nullable=False),
    Column("at", Float, nullable=False),
    PrimaryKeyConstraint("table_id", "number"),
)
"""What was said at a table (chat and quick reactions): stored before it is
sent, like an action, so a restart or a reconnect shows the same lines."""

meta_t = Table(
    "ohhell_meta",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("value", Text, nullable=False),
)
"""Facts about the database itself: ``group``, the id that server processes
sharing it use to find each other on the broker (cluster.py)."""

reviews_t = Table(
    "ohhell_reviews",
    metadata,
    Column("record", String(64), primary_key=True),  # the record's sha256 (ohhell.analysis.record_digest)
    Column("table_id", String(32), index=True),  # the table reviewed; null: a record sent by a page
    Column("state", String(16), nullable=False),  # running, done, failed
    Column("progress", Text),  # JSON while running: {"done", "total", "hands_done", "hands"}
    Column("review", Text),  # done: the review's JSON; failed: why, in words
    Column("started", Float, nullable=False),  # time.time()
    Column("updated", Float, nullable=False),  # the last progress written (a row left running is stale)
)
"""Reviews, kept so a match is analysed once (and a restart keeps them). The
row is written when a review begins: its primary key is what stops two
server processes from reviewing the same record at once."""

CHAT_KEPT = 200  # lines of chat kept per table; older ones are deleted as new ones come

_APPEND = insert(actions_t)


class StaleVersion(Exception):
    """Another writer stored this version of the table's log first."""


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    name: str | None
    kind: str
    level: str | None
    token_hash: str | None


@dataclass(frozen=True, slots=True)
class ChatRow:
    number: int
    seat: int | None
    name: str
    kind: str
    text: str
    at: float  # time.time()


@dataclass(frozen=True, slots=True)
class ReviewRow:
    record: str
    table_id: str | None
    state: str  # running, done, failed
    progress: dict[str, int] | None
    text: str | None  # the review's JSON (done) or why it failed (failed)
    started: float
    updated: float


@dataclass(frozen=True, slots=True)
class TableRow:
    id: str
    created: float
    options: dict[str, str]
    seed: int
    status: str
    host_seat: int
    seats: tuple[SeatRow, ...]
    lines: tuple[str, ...]  # the action log, version order
    clock: float = 0.0  # seconds a person has per decision; 0: no clock
    opened: bool = False  # has a person of the table (a seat, not a watcher) ever connected?
    public: bool = False  # listed on the home page while seats are open (else invite-only)
    rematch: str | None = None  # JSON {"table", "by"}: the table of the match played again
    settings: dict[str, str] = field(default_factory=dict)  # every setting stored for the table


def _disconnected(err: BaseException) -> bool:
    """Did ``err`` come from a connection the database closed (a restart)?"""
    return isinstance(err, DBAPIError) and bool(err.connection_invalidated)


def default_url() -> str:
    """``sqlite:///$OHHELL_HOME/ohhell.db``, else ``~/.local/share/ohhell/ohhell.db``."""
    home = os.environ.get("OHHELL_HOME")
    folder = Path(home).expanduser() if home else Path.home() / ".local" / "share" / "ohhell"
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'ohhell.db'}"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets readers go on while a write commits; NORMAL still survives a
    # crash of the process (only a power cut can lose the last commits).
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


class Store:
    """The database behind every table; see the module docstring."""

    def __init__(self, url: str | None = None, upgrade: bool = True) -> None:
        """Open the database and bring its schema to this version's
        (schema.py): with ``upgrade`` false an older schema is refused with
        the command that upgrades it (``schema.SchemaError``)."""
        from . import schema

        self.url = url or default_url()
        # A pooled connection is checked before use: after a restart of the
        # database the dead ones are replaced instead of failing a request.
        self.engine: Engine = create_engine(self.url, future=True, pool_pre_ping=True)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        shown = "" if url is None else f" --db {self.engine.url.render_as_string(hide_password=True)}"
        self.upgraded = schema.prepare(self.engine, upgrade, shown)
        """The revisions before and after, when this opening upgraded the schema."""
        self._writer: Connection | None = None  # used from the event loop's thread only

    def group_id(self) -> str:
        """This database's id, made by the first process that asks: every
        process on the same database gets the same one, however it names
        the database's address."""
        import secrets

        with self.engine.connect() as db:
            found = db.execute(select(meta_t.c.value).where(meta_t.c.name == "group")).scalar()
        if found is None:
            with contextlib.suppress(IntegrityError), self.engine.begin() as db:
                db.execute(insert(meta_t).values(name="group", value=secrets.token_hex(8)))
            with self.engine.connect() as db:
                found = db.execute(select(meta_t.c.value).where(meta_t.c.name == "group")).scalar_one()
        return str(found)

    def close(self) -> None:
        self._drop_writer()
        self.engine.dispose()

    def create(
        self,
        table_id: str,
        options: dict[str, str],
        seed: int,
        host_seat: int,
        seats: Sequence[SeatRow],
        clock: float = 0.0,
        public: bool = False,
        settings: dict[str, str] | None = None,
    ) -> None:
        """Store a new table in its lobby; ``settings`` are more of its
        settings (``set_setting``), written in the same transaction."""
        with self.engine.begin() as db:
            db.execute(
                insert(tables_t).values(
                    id=table_id,
                    created=time.time(),
                    rules=json.dumps(options, sort_keys=True),
                    seed=seed,
                    status="lobby",
                    host_seat=host_seat,
                )
            )
            db.execute(
                insert(seats_t),
                [
                    {
                        "table_id": table_id,
                        "seat": s.seat,
                        "name": s.name,
                        "kind": s.kind,
                        "level": s.level,
                        "token_hash": s.token_hash,
                    }
                    for s in seats
                ],
            )
            if clock:
                db.execute(insert(settings_t).values(table_id=table_id, name="clock", value=repr(clock)))
            if public:
                db.execute(insert(settings_t).values(table_id=table_id, name="public", value="yes"))
            if settings:
                db.execute(
                    insert(settings_t),
                    [{"table_id": table_id, "name": k, "value": v} for k, v in settings.items()],
                )

    def set_seat(self, table_id: str, row: SeatRow) -> None:
        with self.engine.begin() as db:
            db.execute(
                update(seats_t)
                .where(seats_t.c.table_id == table_id, seats_t.c.seat == row.seat)
                .values(name=row.name, kind=row.kind, level=row.level, token_hash=row.token_hash)
            )

    def claim_seat(self, table_id: str, row: SeatRow) -> bool:
        """Give an open seat to a person; False if someone (maybe another
        process) took it first."""
        with self.engine.begin() as db:
            done = db.execute(
                update(seats_t)
                .where(seats_t.c.table_id == table_id, seats_t.c.seat == row.seat, seats_t.c.kind == "open")
                .values(name=row.name, kind=row.kind, level=row.level, token_hash=row.token_hash)
            )
            return bool(done.rowcount)

    def accept_seat(self, table_id: str, seat: int, token_hash: str) -> bool:
        """An invited person takes back their seat (a rematch); False if the
        seat is not theirs or no longer waiting for them."""
        with self.engine.begin() as db:
            done = db.execute(
                update(seats_t)
                .where(
                    seats_t.c.table_id == table_id,
                    seats_t.c.seat == seat,
                    seats_t.c.kind == "invited",
                    seats_t.c.token_hash == token_hash,
                )
                .values(kind="human")
            )
            return bool(done.rowcount)

    def set_status(self, table_id: str, status: str) -> None:
        with self.engine.begin() as db:
            db.execute(update(tables_t).where(tables_t.c.id == table_id).values(status=status))

    def append(self, table_id: str, version: int, line: str) -> None:
        """Store one action as ``version`` of the log; ``StaleVersion`` if taken."""
        row = {"table_id": table_id, "version": version, "line": line, "at": time.time()}
        # The hot path of every action: one statement built once, on a
        # connection held for it (building insert().values() and checking a
        # connection out of the pool cost more than the write; docs/performance.md).
        for attempt in (1, 2):
            if self._writer is None:
                self._writer = self.engine.connect()
            try:
                with self._writer.begin():
                    self._writer.execute(_APPEND, row)
                metrics.actions.inc()  # every action a table takes is stored first, once, by its holder
                return
            except IntegrityError:
                raise StaleVersion(f"version {version} of table {table_id} is already stored") from None
            except Exception as err:
                self._drop_writer()  # the next try starts on a fresh connection
                # The held connection died (the database restarted): nothing
                # was stored, so once more on a fresh one.
                if attempt == 2 or not _disconnected(err):
                    raise

    def _drop_writer(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            with contextlib.suppress(Exception):
                writer.close()

    def load(self, table_id: str) -> TableRow | None:
        try:
            return self._load(table_id)
        except DBAPIError as err:
            if not _disconnected(err):
                raise
            return self._load(table_id)  # once more, on a fresh connection

    def _load(self, table_id: str) -> TableRow | None:
        with self.engine.connect() as db:
            row = db.execute(select(tables_t).where(tables_t.c.id == table_id)).first()
            if row is None:
                return None
            seats = db.execute(
                select(seats_t).where(seats_t.c.table_id == table_id).order_by(seats_t.c.seat)
            ).all()
            lines = db.execute(
                select(actions_t.c.version, actions_t.c.line)
                .where(actions_t.c.table_id == table_id)
                .order_by(actions_t.c.version)
            ).all()
            named = select(settings_t.c.name, settings_t.c.value).where(settings_t.c.table_id == table_id)
            settings = dict(db.execute(named).all())
        for i, (version, _) in enumerate(lines):
            if version != i:
                raise ValueError(f"table {table_id}: the action log skips from version {i - 1} to {version}")
        return TableRow(
            id=row.id,
            created=row.created,
            options=json.loads(row.rules),
            seed=row.seed,
            status=row.status,
            host_seat=row.host_seat,
            seats=tuple(SeatRow(s.seat, s.name, s.kind, s.level, s.token_hash) for s in seats),
            lines=tuple(line for _, line in lines),
            clock=float(settings.get("clock", 0.0)),
            opened=settings.get("opened") == "yes",
            public=settings.get("public") == "yes",
            rematch=settings.get("rematch"),
            settings=settings,
        )

    def expire(self, lobby_before: float, idle_before: float) -> list[str]:
        """Delete tables nobody will come back to: lobbies made before
        ``lobby_before`` and unfinished matches whose last action (or start)
        is older than ``idle_before`` (both ``time.time()`` values). Finished
        matches stay. Returns the deleted tables' ids."""
        last = (
            select(actions_t.c.table_id, func.max(actions_t.c.at).label("at"))
            .group_by(actions_t.c.table_id)
            .subquery()
        )
        with self.engine.begin() as db:
            lobbies = db.execute(
                select(tables_t.c.id).where(tables_t.c.status == "lobby", tables_t.c.created < lobby_before)
            ).all()
            idle = db.execute(
                select(tables_t.c.id)
                .outerjoin(last, last.c.table_id == tables_t.c.id)
                .where(
                    tables_t.c.status.in_(("playing", "ended")),
                    func.coalesce(last.c.at, tables_t.c.created) < idle_before,
                )
            ).all()
            ids = [r.id for r in lobbies] + [r.id for r in idle]
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                for t in (actions_t, seats_t, settings_t, chat_t, reviews_t):
                    db.execute(delete(t).where(t.c.table_id.in_(chunk)))
                db.execute(delete(tables_t).where(tables_t.c.id.in_(chunk)))
        return ids

    # --- Reviews (web/serving/reviews.py) ---

    def review(self, record: str) -> ReviewRow | None:
        """The review of the record whose digest is ``record``, as far as it went."""
        with self.engine.connect() as db:
            r = db.execute(select(reviews_t).where(reviews_t.c.record == record)).first()
        if r is None:
            return None
        progress = json.loads(r.progress) if r.progress else None
        return ReviewRow(r.record, r.table_id, r.state, progress, r.review, r.started, r.updated)

    def begin_review(self, record: str, table_id: str | None, stale_before: float) -> bool:
        """Mark the review of ``record`` as running; False if it is done, or
        running somewhere (another process) and updated since ``stale_before``.
        A failed or stale one is begun again."""
        now = time.time()
        gone = or_(
            reviews_t.c.state == "failed",
            and_(reviews_t.c.state == "running", reviews_t.c.updated < stale_before),
        )
        try:
            with self.engine.begin() as db:
                db.execute(delete(reviews_t).where(reviews_t.c.record == record, gone))
                db.execute(
                    insert(reviews_t).values(
                        record=record, table_id=table_id, state="running", started=now, updated=now
                    )
                )
        except IntegrityError:
            return False
        return True

    def review_progress(self, record: str, progress: dict[str, int]) -> None:
        with self.engine.begin() as db:
            db.execute(
                update(reviews_t)
                .where(reviews_t.c.record == record, reviews_t.c.state == "running")
                .values(progress=json.dumps(progress), updated=time.time())
            )

    def end_review(self, record: str, state: str, text: str) -> None:
        """The review ended: ``done`` with its JSON, or ``failed`` with the reason."""
        with self.engine.begin() as db:
            db.execute(
                update(reviews_t)
                .where(reviews_t.c.record == record)
                .values(state=state, review=text, progress=None, updated=time.time())
            )

    def expire_reviews(self, before: float) -> int:
        """Delete the reviews of records sent by pages (no table) last touched
        before ``before`` (``time.time()``); a table's review goes with its table."""
        with self.engine.begin() as db:
            done = db.execute(
                delete(reviews_t).where(reviews_t.c.table_id.is_(None), reviews_t.c.updated < before)
            )
        return int(done.rowcount or 0)

    def add_chat(self, table_id: str, row: ChatRow) -> None:
        """Store one line of a table's chat; ``StaleVersion`` if its number is
        taken (another process spoke first). Every ``CHAT_KEPT // 2`` lines the
        oldest beyond ``CHAT_KEPT`` go, so a table's chat stays small."""
        values = {
            "table_id": table_id,
            "number": row.number,
            "seat": row.seat,
            "name": row.name,
            "kind": row.kind,
            "text": row.text,
            "at": row.at,
        }
        try:
            with self.engine.begin() as db:
                db.execute(insert(chat_t).values(**values))
                if row.number and row.number % (CHAT_KEPT // 2) == 0:
                    db.execute(
                        delete(chat_t).where(
                            chat_t.c.table_id == table_id, chat_t.c.number < row.number - CHAT_KEPT
                        )
                    )
        except IntegrityError:
            raise StaleVersion(f"chat line {row.number} of table {table_id} is already stored") from None

    def chat(self, table_id: str, last: int) -> list[ChatRow]:
        """The last ``last`` lines of a table's chat, oldest first."""
        query = (
            select(chat_t).where(chat_t.c.table_id == table_id).order_by(chat_t.c.number.desc()).limit(last)
        )
        with self.engine.connect() as db:
            rows = db.execute(query).all()
        return [ChatRow(r.number, r.seat, r.name, r.kind, r.text, r.at) for r in reversed(rows)]

    def setting(self, table_id: str, name: str) -> str | None:
        with self.engine.connect() as db:
            value = db.execute(
                select(settings_t.c.value).where(settings_t.c.table_id == table_id, settings_t.c.name == name)
            ).scalar()
        return None if value is None else str(value)

    def set_setting(self, table_id: str, name: str, value: str) -> None:
        with self.engine.begin() as db:
            db.execute(delete(settings_t).where(settings_t.c.table_id == table_id, settings_t.c.name == name))
            db.execute(insert(settings_t).values(table_id=table_id, name=name, value=value))

    def open_tables(
        self, limit: int, *, per_creator: int = 0, per_name: int = 0
    ) -> list[tuple[str, float, dict[str, str], int, list[SeatRow]]]:
        """The public tables waiting in their lobby with a seat open, newest
        first (at most ``limit``): id, creation time, rule options, host seat
        and seats. Private tables are never listed: their link is their only
        way in. With ``per_creator`` (``per_name``), only that many of the
        newest from one creator (the ``creator`` setting) and from one host
        name are listed, so many tables from one address or under one name
        cannot push the others off the list."""
        public = settings_t.alias("public")
        creator = settings_t.alias("creator")
        host = seats_t.alias("host")
        newest = tables_t.c.created.desc()
        # Full tables are left out here, before the limit: fifty full tables
        # that never start used to fill the list and leave it empty.
        has_open_seat = (
            select(seats_t.c.seat)
            .where(seats_t.c.table_id == tables_t.c.id, seats_t.c.kind == "open")
            .exists()
        )
        # Tables made before the creator was stored are each their own creator.
        by_creator = func.coalesce(creator.c.value, tables_t.c.id)
        by_name = func.lower(func.coalesce(host.c.name, tables_t.c.id))
        candidates = (
            select(
                tables_t.c.id,
                tables_t.c.created,
                tables_t.c.rules,
                tables_t.c.host_seat,
                func.row_number().over(partition_by=by_creator, order_by=newest).label("of_creator"),
                func.row_number().over(partition_by=by_name, order_by=newest).label("of_name"),
            )
            .join(
                public,
                and_(public.c.table_id == tables_t.c.id, public.c.name == "public", public.c.value == "yes"),
            )
            .outerjoin(creator, and_(creator.c.table_id == tables_t.c.id, creator.c.name == "creator"))
            .outerjoin(host, and_(host.c.table_id == tables_t.c.id, host.c.seat == tables_t.c.host_seat))
            .where(tables_t.c.status == "lobby", has_open_seat)
            .subquery()
        )
        query = select(candidates.c.id, candidates.c.created, candidates.c.rules, candidates.c.host_seat)
        if per_creator:
            query = query.where(candidates.c.of_creator <= per_creator)
        if per_name:
            query = query.where(candidates.c.of_name <= per_name)
        query = query.order_by(candidates.c.created.desc()).limit(limit)
        with self.engine.connect() as db:
            rows = db.execute(query).all()
            ids = [r.id for r in rows]
            seats: dict[str, list[SeatRow]] = {i: [] for i in ids}
            if ids:
                for s in db.execute(
                    select(seats_t)
                    .where(seats_t.c.table_id.in_(ids))
                    .order_by(seats_t.c.table_id, seats_t.c.seat)
                ):
                    seats[s.table_id].append(SeatRow(s.seat, s.name, s.kind, s.level, s.token_hash))
        return [(r.id, r.created, json.loads(r.rules), r.host_seat, seats[r.id]) for r in rows]

    def table_ids(self, status: str | None = None, *, opened: bool = False) -> list[str]:
        """Table ids, oldest first; ``opened``: only tables someone has opened."""
        query = select(tables_t.c.id).order_by(tables_t.c.created)
        if status is not None:
            query = query.where(tables_t.c.status == status)
        if opened:
            seen = select(settings_t.c.table_id).where(settings_t.c.name == "opened")
            query = query.where(tables_t.c.id.in_(seen))
        with self.engine.connect() as db:
            return [r.id for r in db.execute(query)]
