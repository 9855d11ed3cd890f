"""``ohhell db``: the server database's schema, for a host (docs/hosting.md, "Upgrades").

``upgrade`` brings a database made by an older release to this version's
schema (``ohhell serve`` does it by itself at start unless told
``--no-upgrade``); ``current`` says which revision a database is at;
``history`` lists the revisions this version knows.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(sub: Any) -> None:
    """Add the ``db`` subcommand to the ``ohhell`` parser's subparsers."""
    from .common import command_parser, examples

    db = command_parser(
        sub,
        "db",
        help="the server database's schema: upgrade it, say where it is, list the upgrades",
        description=(
            "The server's database keeps its tables in a schema that a new version may change. "
            "Back the database up, then upgrade it (ohhell serve upgrades by itself at start "
            "unless given --no-upgrade)."
        ),
        epilog=examples(
            "ohhell db current                                        # the default SQLite file",
            "ohhell db upgrade --db postgresql+psycopg://user@db/ohhell",
            "ohhell db history",
        ),
    )
    db.add_argument(
        "--db",
        metavar="URL",
        help="the database, as given to ohhell serve --db (default: the same SQLite file)",
    )
    orders = db.add_subparsers(dest="order", metavar="ORDER")
    orders.add_parser("upgrade", help="bring the database to this version's schema")
    orders.add_parser("current", help="say which revision the database is at")
    orders.add_parser("history", help="list the revisions this version knows, oldest first")
    db.set_defaults(func=cmd_db)


def cmd_db(args: argparse.Namespace) -> int:
    if args.order is None:
        print("ohhell db: say what to do: upgrade, current or history", file=sys.stderr)
        return 2
    try:
        from sqlalchemy import create_engine

        from ..web.storage import schema
        from ..web.storage.store import Store, default_url
    except ImportError as err:
        print(f"ohhell db needs the web extra ({err.name} is missing)", file=sys.stderr)
        return 2
    if args.order == "history":
        for revision in schema.revisions():
            print(f"{revision.id}  {revision.doc}")
        return 0
    try:
        engine = create_engine(args.db or default_url())
        try:
            with engine.connect() as db:
                at = schema.current(db)
                empty = at is None and not schema.has_tables(db)
        finally:
            engine.dispose()
        if args.order == "upgrade":
            store = Store(args.db, upgrade=True)
            store.close()
            if empty:
                print(f"Made the database's tables at {schema.describe(schema.head())}.")
            elif at == schema.head():
                print(f"The database is at {schema.describe(at)}: nothing to do.")
            else:
                newest = schema.describe(schema.head())
                print(f"Upgraded the database from {schema.describe(at)} to {newest}.")
        elif empty:
            print("The database holds no tables of ohhell yet: ohhell serve or ohhell db upgrade makes them.")
        elif at == schema.head():
            print(f"{schema.describe(at)}: this version's schema.")
        else:
            print(f"{schema.describe(at)}: older than this version's {schema.head()}; run ohhell db upgrade.")
        return 0
    except Exception as err:  # a bad URL, a database that does not answer, a newer schema
        print(f"ohhell db: {err}", file=sys.stderr)
        return 2
