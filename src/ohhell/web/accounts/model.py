"""Accounts: a name that lasts, a password, sessions, and the seats played.

An account is optional (``ohhell serve --accounts``): a guest plays exactly
as without one. What is kept, and why so:

- The password only as an argon2id hash (``argon2-cffi``'s defaults, the
  RFC 9106 profile). Hashing is slow and takes 64 MiB on purpose, so it
  runs in a thread and at most ``HASHING_AT_ONCE`` at a time per process:
  a flood of sign-ins queues, it never eats the server's memory.
- Sessions live in the database, so any process serves a signed-in person
  and "sign out everywhere" takes effect on every process at once. The
  browser holds a random token; only its SHA-256 is stored, so a copy of
  the database signs nobody in.
- An unknown name is checked against a hash as costly as a real one, and
  answered in the same words: signing in never tells whether a name exists.
- A deleted account is gone: its row, its sessions, its links to tables.
  The records of the tables it played keep their seats under a pseudonym
  ("Player 3f9a") in place of the name.

The HTTP side (cookies, limits on tries) is routes.py.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Integer,
    String,
    Table,
    Text,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.schema import Index, PrimaryKeyConstraint

from ..errors import TableError
from ..storage.store import metadata, seats_t, tables_t
from . import passkeys, ratings  # noqa: F401 - their tables name accounts: delete() clears them too

NAME_MIN: Final = 3
NAME_MAX: Final = 24
PASSWORD_MIN: Final = 10  # characters: long enough that guessing through the limits is hopeless
PASSWORD_MAX: Final = 200  # characters: a pasted passphrase fits; a megabyte is not hashed
AGENT_MAX: Final = 120
SEEN_EVERY: Final = 60.0  # seconds: a session's "last seen" is written at most this often
SESSION_IDLE: Final = 30 * 86400.0  # seconds unused after which a session ends by itself
HASHING_AT_ONCE: Final = 2
SEATS_AT_ONCE: Final = 200  # seats a browser may hand over in one request

accounts_t = Table(
    "ohhell_accounts",
    metadata,
    Column("id", String(24), primary_key=True),
    Column("name", String(32), nullable=False),  # as the person wrote it
    Column("name_key", String(32), nullable=False, unique=True),  # casefolded: Ann and ANN are one name
    Column("password_hash", Text, nullable=False),  # argon2id, with its parameters and salt
    Column("created", Float, nullable=False),
    Column("disabled", Boolean, nullable=False),  # by the host: cannot sign in
    Column("public", Boolean, nullable=False),  # the profile shown to others
)

sessions_t = Table(
    "ohhell_sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("account_id", String(24), ForeignKey("ohhell_accounts.id"), nullable=False),
    Column("created", Float, nullable=False),
    Column("seen", Float, nullable=False),
    Column("agent", String(120), nullable=False),  # the browser, as it named itself, for the list of sessions
    Index("ix_ohhell_sessions_account_id", "account_id"),
)

account_seats_t = Table(
    "ohhell_account_seats",
    metadata,
    Column("table_id", String(32), ForeignKey("ohhell_tables.id"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("account_id", String(24), ForeignKey("ohhell_accounts.id"), nullable=False),
    Column("at", Float, nullable=False),
    PrimaryKeyConstraint("table_id", "seat"),
    Index("ix_ohhell_account_seats_account_id", "account_id"),
)

WRONG: Final = "that name and password do not match an account"


@dataclass(frozen=True, slots=True)
class Account:
    id: str
    name: str
    created: float
    disabled: bool
    public: bool


def name_key(name: str) -> str:
    """The form two names are compared in: Ann, ANN, " Ann" and Ａｎｎ are one."""
    return unicodedata.normalize("NFKC", name).strip().casefold()


def check_name(name: object) -> str:
    """A name a person may take, or ``TableError`` saying what is wrong."""
    if not isinstance(name, str):
        raise TableError("write a name")
    name = unicodedata.normalize("NFKC", name).strip()
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise TableError(f"a name has {NAME_MIN} to {NAME_MAX} characters")
    if not all(c.isalnum() or c in " _.-" for c in name) or not name[0].isalnum():
        raise TableError(
            "a name has letters, digits, spaces, dots, dashes and underscores, "
            "and begins with a letter or digit"
        )
    if "  " in name:
        raise TableError("a name has no two spaces in a row")
    return name


def check_password(password: object) -> str:
    if not isinstance(password, str):
        raise TableError("write a password")
    if len(password) < PASSWORD_MIN:
        raise TableError(f"a password has at least {PASSWORD_MIN} characters")
    if len(password) > PASSWORD_MAX:
        raise TableError(f"a password has at most {PASSWORD_MAX} characters")
    return password


def session_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def pseudonym(account_id: str) -> str:
    """The name a deleted account's seats keep: the same for all its seats, and
    nothing of the name it had."""
    return "Player " + hashlib.sha256(("deleted:" + account_id).encode()).hexdigest()[:4]


def _account(row: Any) -> Account:
    return Account(row.id, row.name, row.created, bool(row.disabled), bool(row.public))


def seat_owners(engine: Engine, table_id: str) -> dict[int, str]:
    """The accounts that played the table's seats, by seat."""
    query = select(account_seats_t.c.seat, account_seats_t.c.account_id).where(
        account_seats_t.c.table_id == table_id
    )
    with engine.connect() as db:
        return {seat: account for seat, account in db.execute(query).all()}


class Accounts:
    """Every account operation on one database (any process may call any)."""

    def __init__(self, engine: Engine, hasher: PasswordHasher | None = None) -> None:
        self.engine = engine
        self.hasher = hasher or PasswordHasher()  # argon2id
        self._hashing = threading.BoundedSemaphore(HASHING_AT_ONCE)
        # An unknown name is checked against this, as costly as a real hash.
        self._dummy = self.hasher.hash(secrets.token_urlsafe(16))

    @contextmanager
    def _slot(self) -> Iterator[None]:
        with self._hashing:
            yield

    # --- Passwords (slow: call from a thread) ---

    def hash(self, password: str) -> str:
        with self._slot():
            return self.hasher.hash(password)

    def _matches(self, stored: str, password: str) -> bool:
        with self._slot():
            try:
                return self.hasher.verify(stored, password)
            except (VerificationError, InvalidHashError):
                return False

    # --- Signing up and in ---

    def sign_up(self, name: object, password: object) -> Account:
        """A new account; ``TableError`` (409) when the name is taken."""
        name = check_name(name)
        hashed = self.hash(check_password(password))
        account = Account(secrets.token_urlsafe(12), name, time.time(), False, False)
        try:
            with self.engine.begin() as db:
                db.execute(
                    insert(accounts_t).values(
                        id=account.id,
                        name=name,
                        name_key=name_key(name),
                        password_hash=hashed,
                        created=account.created,
                        disabled=False,
                        public=False,
                    )
                )
        except IntegrityError:
            raise TableError(f"the name {name} is taken: choose another", status=409) from None
        return account

    def verify(self, name: object, password: object) -> Account | None:
        """The account when the name and password match one that may sign
        in, else None; the same work whether or not the name exists."""
        key = name_key(name) if isinstance(name, str) else ""
        row = None
        if NAME_MIN <= len(key) <= NAME_MAX * 2:
            with self.engine.connect() as db:
                row = db.execute(select(accounts_t).where(accounts_t.c.name_key == key)).first()
        text = password if isinstance(password, str) and len(password) <= PASSWORD_MAX else ""
        matched = self._matches(row.password_hash if row is not None else self._dummy, text)
        if row is None or not matched or row.disabled:
            return None
        if self.hasher.check_needs_rehash(row.password_hash):  # parameters raised since it was made
            with self.engine.begin() as db:
                db.execute(
                    update(accounts_t).where(accounts_t.c.id == row.id).values(password_hash=self.hash(text))
                )
        return _account(row)

    def by_name(self, name: str) -> Account | None:
        with self.engine.connect() as db:
            row = db.execute(select(accounts_t).where(accounts_t.c.name_key == name_key(name))).first()
        return _account(row) if row is not None else None

    def public_names(self) -> dict[str, str]:
        """The accounts whose person chose to be seen, id -> name."""
        query = select(accounts_t.c.id, accounts_t.c.name).where(
            accounts_t.c.public.is_(True), accounts_t.c.disabled.is_(False)
        )
        with self.engine.connect() as db:
            return {account_id: name for account_id, name in db.execute(query).all()}

    def by_id(self, account_id: str) -> Account | None:
        with self.engine.connect() as db:
            row = db.execute(select(accounts_t).where(accounts_t.c.id == account_id)).first()
        return _account(row) if row is not None else None

    # --- Sessions ---

    def open_session(self, account: Account, agent: str = "") -> str:
        """A new session's token (the browser's cookie holds it)."""
        token = secrets.token_urlsafe(32)
        now = time.time()
        with self.engine.begin() as db:
            db.execute(
                insert(sessions_t).values(
                    token_hash=session_hash(token),
                    account_id=account.id,
                    created=now,
                    seen=now,
                    agent="".join(c for c in agent if c.isprintable())[:AGENT_MAX],
                )
            )
        return token

    def session(self, token: str) -> Account | None:
        """The account a session's token signs in, or None (unknown, ended,
        or the account disabled)."""
        found = session_hash(token)
        with self.engine.connect() as db:
            row = db.execute(
                select(accounts_t, sessions_t.c.seen)
                .join(sessions_t, sessions_t.c.account_id == accounts_t.c.id)
                .where(sessions_t.c.token_hash == found)
            ).first()
        now = time.time()
        if row is None or row.disabled or now - row.seen > SESSION_IDLE:
            return None
        if now - row.seen > SEEN_EVERY:
            with self.engine.begin() as db:
                db.execute(update(sessions_t).where(sessions_t.c.token_hash == found).values(seen=now))
        return _account(row)

    def close_session(self, token: str) -> None:
        with self.engine.begin() as db:
            db.execute(delete(sessions_t).where(sessions_t.c.token_hash == session_hash(token)))

    def close_sessions(self, account_id: str, keep: str | None = None) -> int:
        """End every session of the account (but ``keep``'s); how many ended."""
        query = delete(sessions_t).where(sessions_t.c.account_id == account_id)
        if keep is not None:
            query = query.where(sessions_t.c.token_hash != session_hash(keep))
        with self.engine.begin() as db:
            return db.execute(query).rowcount

    # --- Changing and leaving ---

    def change_password(self, account: Account, old: object, new: object, keep: str | None) -> None:
        """A new password after the old one is given; every other session ends."""
        new = check_password(new)
        with self.engine.connect() as db:
            stored = db.execute(
                select(accounts_t.c.password_hash).where(accounts_t.c.id == account.id)
            ).scalar()
        if stored is None or not self._matches(stored, old if isinstance(old, str) else ""):
            raise TableError("the password you have now is not that", status=403)
        self.set_password(account.id, new)
        self.close_sessions(account.id, keep=keep)

    def set_password(self, account_id: str, password: str) -> None:
        hashed = self.hash(password)
        with self.engine.begin() as db:
            db.execute(update(accounts_t).where(accounts_t.c.id == account_id).values(password_hash=hashed))

    def set_public(self, account_id: str, public: bool) -> None:
        with self.engine.begin() as db:
            db.execute(update(accounts_t).where(accounts_t.c.id == account_id).values(public=public))

    def set_disabled(self, account_id: str, disabled: bool) -> None:
        with self.engine.begin() as db:
            db.execute(update(accounts_t).where(accounts_t.c.id == account_id).values(disabled=disabled))
        if disabled:
            self.close_sessions(account_id)

    def delete(self, account_id: str) -> None:
        """Delete the account and everything about its person: its sessions,
        its links to tables; its seats' names become a pseudonym."""
        with self.engine.begin() as db:
            seats = db.execute(
                select(account_seats_t.c.table_id, account_seats_t.c.seat).where(
                    account_seats_t.c.account_id == account_id
                )
            ).all()
            alias = pseudonym(account_id)
            for table_id, seat in seats:
                db.execute(
                    update(seats_t)
                    .where(seats_t.c.table_id == table_id, seats_t.c.seat == seat)
                    .values(name=alias)
                )
            # Every row that names the account (sessions, seats, ratings...),
            # the tables that refer to others first.
            for table in reversed(metadata.sorted_tables):
                if "account_id" in table.c:
                    db.execute(delete(table).where(table.c.account_id == account_id))
            db.execute(delete(accounts_t).where(accounts_t.c.id == account_id))

    # --- Seats played ---

    def link_seat(self, account: Account, table_id: str, seat: int, token_hash: str) -> bool:
        """Make the seat this account's when ``token_hash`` is the seat's (the
        browser holds the seat's token); False when it is not, or the seat is
        already another account's."""
        now = time.time()
        with self.engine.begin() as db:
            held = db.execute(
                select(seats_t.c.token_hash).where(seats_t.c.table_id == table_id, seats_t.c.seat == seat)
            ).scalar()
            if held is None or not secrets.compare_digest(held, token_hash):
                return False
            owner = db.execute(
                select(account_seats_t.c.account_id).where(
                    account_seats_t.c.table_id == table_id, account_seats_t.c.seat == seat
                )
            ).scalar()
            if owner is not None:
                return bool(owner == account.id)
            db.execute(
                insert(account_seats_t).values(table_id=table_id, seat=seat, account_id=account.id, at=now)
            )
        return True

    def seats(self, account_id: str) -> list[tuple[str, int, float, str]]:
        """The account's seats: (table, seat, when linked, the table's status), newest first."""
        with self.engine.connect() as db:
            rows = db.execute(
                select(
                    account_seats_t.c.table_id,
                    account_seats_t.c.seat,
                    account_seats_t.c.at,
                    tables_t.c.status,
                )
                .join(tables_t, tables_t.c.id == account_seats_t.c.table_id)
                .where(account_seats_t.c.account_id == account_id)
                .order_by(account_seats_t.c.at.desc())
            ).all()
        return [(r.table_id, r.seat, r.at, r.status) for r in rows]

    def data(self, account: Account) -> dict[str, Any]:
        """Everything kept about the account, for its person to download."""
        with self.engine.connect() as db:
            sessions = db.execute(
                select(sessions_t.c.created, sessions_t.c.seen, sessions_t.c.agent)
                .where(sessions_t.c.account_id == account.id)
                .order_by(sessions_t.c.created)
            ).all()
        return {
            "account": {"name": account.name, "created": account.created, "public": account.public},
            "sessions": [{"created": s.created, "last_seen": s.seen, "browser": s.agent} for s in sessions],
            "seats": [
                {"table": table_id, "seat": seat, "linked": at, "status": status}
                for table_id, seat, at, status in self.seats(account.id)
            ],
            "note": "The password is kept only as an argon2id hash, which is not included.",
        }

    # --- The host's list ---

    def listing(self) -> list[tuple[Account, int, int]]:
        """Every account with its number of sessions and seats, by name."""
        with self.engine.connect() as db:
            rows = db.execute(select(accounts_t).order_by(accounts_t.c.name_key)).all()
            per_session = select(sessions_t.c.account_id, func.count()).group_by(sessions_t.c.account_id)
            sessions: dict[str, int] = {a: n for a, n in db.execute(per_session).all()}
            per_seat = select(account_seats_t.c.account_id, func.count()).group_by(
                account_seats_t.c.account_id
            )
            seats: dict[str, int] = {a: n for a, n in db.execute(per_seat).all()}
        return [(_account(r), int(sessions.get(r.id, 0)), int(seats.get(r.id, 0))) for r in rows]
