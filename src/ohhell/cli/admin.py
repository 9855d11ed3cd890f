"""``ohhell admin``: the host's orders to running servers (docs/hosting.md, "Admin").

``tables`` lists the open tables; ``close`` ends one as its host's End
does; ``ban`` and ``unban`` bar an address or a network from every server
process, across restarts; ``announce`` sends a notice to everyone at every
table (before a restart, say). The orders go through the database the
servers use (``--db``, the same as ``ohhell serve``'s), so they reach every
process; each carries them out within about a second (web/serving/admin.py).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

WAIT = 5.0  # seconds ``close`` waits to see the table ended


def add_parser(sub: Any) -> None:
    """Add the ``admin`` subcommand to the ``ohhell`` parser's subparsers."""
    from .common import command_parser, examples

    admin = command_parser(
        sub,
        "admin",
        help="orders to running servers: list or close tables, bar addresses, tell every table",
        description="Orders to the servers that share a database: they carry them out within a second.",
        epilog=examples(
            "ohhell admin tables                                  # the tables in the lobby or being played",
            "ohhell admin close Xy12abCD34ef                      # end a table as its host's End does",
            "ohhell admin ban 203.0.113.7 --reason 'spam in chat' # on every server, across restarts",
            "ohhell admin unban 203.0.113.7",
            "ohhell admin announce 'The server restarts in 5 minutes: your games will go on.'",
            "ohhell admin --db postgresql+psycopg://user@db/ohhell tables",
        ),
    )
    admin.add_argument(
        "--db",
        metavar="URL",
        help="the servers' database, as given to ohhell serve --db (default: the same SQLite file)",
    )
    orders = admin.add_subparsers(dest="order", metavar="ORDER")
    tables = orders.add_parser("tables", help="list the tables in the lobby or being played")
    tables.add_argument("--all", action="store_true", help="finished and ended tables too")
    close = orders.add_parser("close", help="end a table for everyone at it")
    close.add_argument("table", help="the table's id, as in its link /t/ID (one that begins with - after --)")
    ban = orders.add_parser(
        "ban", help="bar an address or a network from every server; without one, list the bars"
    )
    ban.add_argument("address", nargs="?", help="an address (203.0.113.7) or a network (203.0.113.0/24)")
    ban.add_argument("--reason", default="", help="why, for the list of bars")
    unban = orders.add_parser("unban", help="lift a bar")
    unban.add_argument("address", help="the address or network as barred")
    announce = orders.add_parser("announce", help="a notice to everyone at every table")
    announce.add_argument("words", nargs="+", help="what the players read, in plain words")
    admin.set_defaults(func=cmd_admin)


def cmd_admin(args: argparse.Namespace) -> int:
    if args.order is None:
        print("ohhell admin: say what to do: tables, close, ban, unban or announce", file=sys.stderr)
        return 2
    try:
        from ..web.storage.store import Store
    except ImportError as err:
        print(f"ohhell admin needs the web extra ({err.name} is missing)", file=sys.stderr)
        return 2
    try:
        store = Store(args.db, upgrade=False)  # orders never change a schema the servers use
    except Exception as err:
        print(f"ohhell admin: {err}", file=sys.stderr)
        return 2
    try:
        return _carry_out(args, store.engine)
    except ValueError as err:
        print(f"ohhell admin: {err}", file=sys.stderr)
        return 2
    finally:
        store.close()


def _carry_out(args: argparse.Namespace, engine: Any) -> int:
    from ..web.serving import admin

    if args.order == "tables":
        lines = admin.open_tables(engine, args.all)
        if not lines:
            print("No table is open." if not args.all else "No tables.")
        for line in lines:
            age = _age(time.time() - line.created)
            people = ", ".join(line.people) or "nobody yet"
            bots = f" and {line.bots} bot{'s' * (line.bots != 1)}" if line.bots else ""
            print(f"{line.id}  {line.status:<8} made {age} ago  {people}{bots}")
        return 0
    if args.order == "close":
        status = admin.table_status(engine, args.table)
        if status is None:
            raise ValueError(f"there is no table {args.table!r}")
        if status not in ("lobby", "playing"):
            print(f"Table {args.table} is {status} already.")
            return 0
        admin.give_order(engine, "close", args.table)
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if admin.table_status(engine, args.table) == "ended":
                print(f"Table {args.table} is closed.")
                return 0
            time.sleep(0.2)
        print(
            f"Table {args.table} will be closed by the next server to start (none closed it in {WAIT:g} s)."
        )
        return 0
    if args.order == "ban":
        if args.address is None:
            for net, reason, at in admin.barred_networks(engine):
                print(f"{net}  since {time.strftime('%Y-%m-%d %H:%M', time.gmtime(at))} UTC  {reason}")
            return 0
        net = admin.network(args.address)
        if admin.ban(engine, net, " ".join(args.reason.split())[:200]):
            print(f"{net} is barred from every server.")
        else:
            print(f"{net} was barred already.")
        return 0
    if args.order == "unban":
        net = admin.network(args.address)
        print(f"{net} is no longer barred." if admin.unban(engine, net) else f"{net} was not barred.")
        return 0
    words = admin.notice_words(" ".join(args.words))
    admin.give_order(engine, "announce", words)
    print(f"Every table will read: {words}")
    return 0


def _age(seconds: float) -> str:
    """
    >>> _age(90), _age(7200), _age(200000)
    ('1 min', '2 h', '2 days')
    """
    if seconds < 3600:
        return f"{max(0, int(seconds // 60))} min"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h"
    return f"{int(seconds // 86400)} days"
