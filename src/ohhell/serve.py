"""``ohhell serve``: the web server (Starlette on uvicorn, the ``web`` extra).

Tables live in an SQL database: an embedded SQLite file unless ``--db`` names
another SQLAlchemy URL (PostgreSQL for hosting). Every accepted action is
stored before anyone is told of it, so a restarted server resumes each table
where it stopped. See docs/web.md.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_serve_parser(sub: Any) -> None:
    """Add the ``serve`` subcommand to the ``ohhell`` parser's subparsers."""
    serve = sub.add_parser(
        "serve",
        help="run the web server: play in the browser, alone or with friends",
        description="Serve Oh Hell in the browser (http://127.0.0.1:8000 unless told otherwise).",
    )
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="the port (default 8000)")
    serve.add_argument(
        "--db",
        metavar="URL",
        help="an SQLAlchemy database URL, e.g. postgresql+psycopg://user@host/ohhell "
        "(default: sqlite file $OHHELL_HOME/ohhell.db or ~/.local/share/ohhell/ohhell.db)",
    )
    serve.add_argument(
        "--away",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="how long a player may be gone before a bot plays their seat (default 60)",
    )
    serve.add_argument(
        "--bot-delay",
        type=float,
        default=0.6,
        metavar="SECONDS",
        help="a pause before each bot move so people can follow the play (default 0.6)",
    )
    serve.add_argument(
        "--think",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="the expert's time per decision (default 1)",
    )
    serve.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn  # noqa: F401 - the web extra's server

        from .web.app import create_app
    except ImportError as err:
        print(
            f"ohhell serve needs the web extra ({err.name} is missing): python3 -m pip install 'ohhell[web]'",
            file=sys.stderr,
        )
        return 2
    for name in ("away", "bot_delay", "think"):
        if getattr(args, name) < 0:
            print(f"ohhell serve: --{name.replace('_', '-')} cannot be negative", file=sys.stderr)
            return 2
    try:
        from .web.store import Store

        Store(args.db).close()  # a bad --db URL fails here, with its reason, not inside uvicorn
        app = create_app(args.db, away_after=args.away, bot_delay=args.bot_delay, think=args.think)
    except Exception as err:  # a bad --db URL names itself
        print(f"ohhell serve: {err}", file=sys.stderr)
        return 2
    print(f"ohhell serve: http://{args.host}:{args.port}/  (Ctrl-C stops)", flush=True)
    run(app, args.host, args.port)
    return 0


def run(app: Any, host: str, port: int) -> None:
    """Serve ``app`` with uvicorn as ``ohhell serve`` does (bench/server.py too)."""
    import gc

    import uvicorn

    # A server holds many long-lived objects (tables, states, logs), and the
    # default collector thresholds made it stop for 10-175 ms dozens of times
    # a minute at 1,000 seats; freezing what start-up built and collecting the
    # youngest generation less often took p99 from 79 to 51 ms (docs/performance.md).
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    # Messages are small (about 1 KiB); compressing each one cost 9% of the
    # server's time at 1,000 seats, so frames go as they are.
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level="warning",
        ws_max_size=65536,
        ws_per_message_deflate=False,
    )
