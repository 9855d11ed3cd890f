"""The host's orders to the servers: close a table, bar an address, a notice
to every table (``ohhell admin``; docs/hosting.md, "Admin").

An order is a row in the database the servers already share, so it reaches
every process, on this machine or others, with or without a broker: each
process looks for new orders once a second (``Orders.follow``) and carries
out its part of each: the process holding a table closes it, every process
closes its own sockets from a barred address and tells its own tables a
notice. Bars are rows too (``ohhell_bans``), read by each process when it
starts and after each bar or lift, so a bar holds on every process and
across restarts.
"""

from __future__ import annotations

import ipaddress
import time
from dataclasses import dataclass
from typing import Final

from sqlalchemy import (
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    delete,
    func,
    insert,
    select,
)
from sqlalchemy.engine import Engine

from ..storage.store import seats_t, tables_t

metadata = MetaData()

bans_t = Table(
    "ohhell_bans",
    metadata,
    Column("network", String(64), primary_key=True),  # an address, or a network (10.0.0.0/8)
    Column("reason", Text, nullable=False),
    Column("at", Float, nullable=False),
)

orders_t = Table(
    "ohhell_admin_orders",
    metadata,
    Column("number", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(16), nullable=False),  # close, ban, unban, announce
    Column("target", Text, nullable=False),  # the table, the network, or the notice's words
    Column("at", Float, nullable=False),
)

KINDS: Final = ("close", "ban", "unban", "announce")
MAX_NOTICE: Final = 300  # characters in a notice: a sentence or two
CLOSE_WORDS: Final = "The server's host closed this table."


def network(text: str) -> str:
    """An address or network to bar, in one written form.

    >>> network("203.0.113.7")
    '203.0.113.7/32'
    >>> network("2001:db8::/32")
    '2001:db8::/32'
    >>> network("10.1.2.3/8")
    '10.0.0.0/8'
    """
    try:
        return str(ipaddress.ip_network(text.strip(), strict=False))
    except ValueError:
        raise ValueError(f"{text!r} is not an address (203.0.113.7) or a network (203.0.113.0/24)") from None


def notice_words(text: str) -> str:
    """A notice as the pages will show it: one line of plain text."""
    words = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    if not words:
        raise ValueError("the notice is empty: write what the players should read")
    if len(words) > MAX_NOTICE:
        raise ValueError(f"the notice is {len(words)} characters long: at most {MAX_NOTICE}")
    return words


def give_order(engine: Engine, kind: str, target: str) -> int:
    """Store an order for every server process; returns its number."""
    assert kind in KINDS
    with engine.begin() as db:
        result = db.execute(insert(orders_t).values(kind=kind, target=target, at=time.time()))
        key = result.inserted_primary_key
    return int(key[0]) if key is not None else 0


def ban(engine: Engine, net: str, reason: str) -> bool:
    """Bar ``net`` (``network``'s form) on every process; False if it was barred already."""
    with engine.begin() as db:
        if db.execute(select(bans_t.c.network).where(bans_t.c.network == net)).first() is not None:
            return False
        db.execute(insert(bans_t).values(network=net, reason=reason, at=time.time()))
    give_order(engine, "ban", net)
    return True


def unban(engine: Engine, net: str) -> bool:
    """Lift a bar; False if ``net`` was not barred."""
    with engine.begin() as db:
        gone = db.execute(delete(bans_t).where(bans_t.c.network == net)).rowcount
    if gone:
        give_order(engine, "unban", net)
    return bool(gone)


def barred_networks(engine: Engine) -> list[tuple[str, str, float]]:
    """Every bar: (network, reason, when), oldest first."""
    with engine.connect() as db:
        rows = db.execute(select(bans_t.c.network, bans_t.c.reason, bans_t.c.at).order_by(bans_t.c.at))
        return [(str(r.network), str(r.reason), float(r.at)) for r in rows]


@dataclass(frozen=True)
class Order:
    number: int
    kind: str
    target: str


def orders_after(engine: Engine, number: int) -> list[Order]:
    with engine.connect() as db:
        rows = db.execute(
            select(orders_t.c.number, orders_t.c.kind, orders_t.c.target)
            .where(orders_t.c.number > number)
            .order_by(orders_t.c.number)
        )
        return [Order(int(r.number), str(r.kind), str(r.target)) for r in rows]


def last_order(engine: Engine) -> int:
    with engine.connect() as db:
        return int(db.execute(select(func.coalesce(func.max(orders_t.c.number), 0))).scalar_one())


def unfinished_closes(engine: Engine) -> list[str]:
    """Tables ordered closed that are still open (no process was running,
    or none held them): the next process to start closes them."""
    with engine.connect() as db:
        rows = db.execute(
            select(orders_t.c.target)
            .join(tables_t, tables_t.c.id == orders_t.c.target)
            .where(orders_t.c.kind == "close", tables_t.c.status.in_(("lobby", "playing")))
            .distinct()
        )
        return [str(r.target) for r in rows]


@dataclass(frozen=True)
class TableLine:
    """One table as ``ohhell admin tables`` lists it."""

    id: str
    status: str
    created: float
    people: list[str]
    bots: int


def open_tables(engine: Engine, everything: bool = False) -> list[TableLine]:
    """Tables in the lobby or being played (``everything``: finished ones
    too), newest first, with their people's names."""
    with engine.connect() as db:
        query = select(tables_t.c.id, tables_t.c.status, tables_t.c.created).order_by(
            tables_t.c.created.desc()
        )
        if not everything:
            query = query.where(tables_t.c.status.in_(("lobby", "playing")))
        tables = list(db.execute(query))
        people: dict[str, list[str]] = {str(t.id): [] for t in tables}
        bots: dict[str, int] = dict.fromkeys(people, 0)
        seats = select(seats_t.c.table_id, seats_t.c.name, seats_t.c.kind).join(
            tables_t, tables_t.c.id == seats_t.c.table_id
        )
        if not everything:  # the seats of the open tables only, however many have ended
            seats = seats.where(tables_t.c.status.in_(("lobby", "playing")))
        for row in db.execute(seats):
            key = str(row.table_id)
            if key not in people:
                continue
            if row.kind == "bot":
                bots[key] += 1
            elif row.kind in ("human", "invited"):
                people[key].append(str(row.name))
    return [TableLine(str(t.id), str(t.status), float(t.created), people[t.id], bots[t.id]) for t in tables]


def table_status(engine: Engine, table_id: str) -> str | None:
    with engine.connect() as db:
        found = db.execute(select(tables_t.c.status).where(tables_t.c.id == table_id)).scalar()
    return None if found is None else str(found)


class Bans:
    """The barred networks, for a quick answer per connection."""

    def __init__(self, networks: list[str] | None = None) -> None:
        self.set(networks or [])

    def set(self, networks: list[str]) -> None:
        parsed = [ipaddress.ip_network(n, strict=False) for n in networks]
        self._networks = parsed
        self._answers: dict[str, bool] = {}

    def __bool__(self) -> bool:
        return bool(self._networks)

    def barred(self, address: str) -> bool:
        if not self._networks:
            return False
        answer = self._answers.get(address)
        if answer is None:
            try:
                ip = ipaddress.ip_address(address)
            except ValueError:
                answer = False  # "unknown" (no peer): nothing to match
            else:
                if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
                    ip = ip.ipv4_mapped  # an IPv4 client of a server listening on "::"
                answer = any(ip.version == n.version and ip in n for n in self._networks)
            if len(self._answers) > 10_000:
                self._answers.clear()
            self._answers[address] = answer
        return answer


__all__ = [
    "CLOSE_WORDS",
    "KINDS",
    "Bans",
    "Order",
    "TableLine",
    "ban",
    "barred_networks",
    "give_order",
    "last_order",
    "network",
    "notice_words",
    "open_tables",
    "orders_after",
    "table_status",
    "unban",
    "unfinished_closes",
]
