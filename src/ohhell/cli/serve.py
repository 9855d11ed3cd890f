"""``ohhell serve``: the web server (Starlette on uvicorn, the ``web`` extra).

Tables live in an SQL database: an embedded SQLite file unless ``--db`` names
another SQLAlchemy URL (PostgreSQL for hosting). Every accepted action is
stored before anyone is told of it, so a restarted server resumes each table
where it stopped. See docs/web.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    """Add the ``serve`` subcommand to the ``ohhell`` parser's subparsers."""
    from .common import command_parser, examples

    serve = command_parser(
        sub,
        "serve",
        help="run the web server: play in the browser, alone or with friends",
        description="Serve Oh Hell in the browser (http://127.0.0.1:8000 unless told otherwise).",
        epilog=examples(
            "ohhell serve                                   # then open http://127.0.0.1:8000",
            "ohhell serve --host 0.0.0.0 --port 8080        # friends on the network can join",
            "ohhell serve --clock 45 --away 30              # 45 s a move; a bot covers after 30 s away",
            "ohhell serve --db postgresql+psycopg://user@127.0.0.1/ohhell",
            "ohhell serve --db postgresql+psycopg://user@db/ohhell --broker redis://cache:6379/0 --workers 4",
        ),
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
        "--accounts",
        choices=("off", "optional", "required"),
        default="optional",
        help="players' accounts: optional (default: guests play as ever, and may sign up), required "
        "(only signed-in people make or join tables), or off",
    )
    serve.add_argument(
        "--no-upgrade",
        action="store_true",
        help="refuse a database made by an older version instead of upgrading its schema at start "
        "(then back it up and run ohhell db upgrade)",
    )
    serve.add_argument(
        "--broker",
        metavar="URL",
        help="a Redis URL (redis://host:6379/0): several server processes, on this machine or others, "
        "serve the same PostgreSQL database and pass live updates through it (docs/hosting.md)",
    )
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="server processes on this machine sharing the port (default 1; more need --broker and a "
        "PostgreSQL --db)",
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
    serve.add_argument(
        "--clock",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="a person's time for each decision at new tables before a bot makes it for them; "
        "0 for none, at most 3600 (default 60; docs/web.md, The turn clock)",
    )
    serve.add_argument(
        "--bid-change-wait",
        type=float,
        default=3.0,
        metavar="SECONDS",
        help="where a bid may still be changed, how long a bot bidding next waits for the person "
        "who bid (the page counts it down; 0: the bot bids at once; default 3)",
    )
    host = serve.add_argument_group("for the host (docs/hosting.md: Health, Metrics, Logs)")
    host.add_argument(
        "--metrics",
        metavar="[HOST:]PORT",
        help="serve Prometheus metrics at /metrics on a listener of their own, on 127.0.0.1 unless a "
        "host is given (default: none; never on the public port)",
    )
    host.add_argument(
        "--log-format",
        choices=("plain", "json"),
        default="plain",
        help="plain lines, or one JSON object a line (default plain)",
    )
    host.add_argument(
        "--log-level",
        choices=("debug", "info", "warning", "error"),
        default="warning",
        help="the least important lines written: info adds a line for each table taken over, seat "
        "covered by a bot, table ended (default warning)",
    )
    host.add_argument(
        "--drain",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="on SIGTERM, answer /readyz 503 for this long before handing the tables over and "
        "stopping, so the balancer sends no one new meanwhile (default 0)",
    )
    limits = serve.add_argument_group("limits for a public server (docs/web.md, Limits)")
    limits.add_argument(
        "--create-limit",
        default="30/minute",
        metavar="RATE",
        help="new tables and seats one address may make, e.g. 30/minute or 'none' (default 30/minute)",
    )
    limits.add_argument(
        "--sheet-limit",
        default="30/minute",
        metavar="RATE",
        help="new score sheets one address may make (default 30/minute)",
    )
    limits.add_argument(
        "--connect-limit",
        default="120/minute",
        metavar="RATE",
        help="new live connections one address may open (default 120/minute)",
    )
    limits.add_argument(
        "--replay-limit",
        default="10/minute",
        metavar="RATE",
        help="records one address may send to be replayed, one at a time (default 10/minute)",
    )
    limits.add_argument(
        "--review-limit",
        default="6/hour",
        metavar="RATE",
        help="post-game reviews one address may begin, one at a time (default 6/hour)",
    )
    limits.add_argument(
        "--review-time",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="a post-game review still going after this long is stopped (default 300)",
    )
    limits.add_argument(
        "--review-budget",
        type=float,
        default=1.0,
        metavar="SHARE",
        help="how hard a post-game review thinks, as a share of ohhell review's default "
        "(above 0, at most 16; default 1: about 40 s of one core for a match of Pagat's rules)",
    )
    limits.add_argument(
        "--sockets-per-address",
        type=int,
        default=64,
        metavar="N",
        help="live connections one address may hold; 0 for no limit (default 64)",
    )
    limits.add_argument(
        "--spectators-per-table",
        type=int,
        default=200,
        metavar="N",
        help="people watching one table; its players are never refused; 0 for no limit (default 200)",
    )
    limits.add_argument(
        "--lobby-lifetime",
        type=float,
        default=24.0,
        metavar="HOURS",
        help="a table never started is deleted after this long; 0 keeps it (default 24)",
    )
    limits.add_argument(
        "--idle-lifetime",
        type=float,
        default=168.0,
        metavar="HOURS",
        help="an unfinished match with no move for this long is deleted; 0 keeps it (default 168, a week)",
    )
    limits.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="URL",
        help="another site (e.g. https://cards.example) whose pages may use this server; repeatable",
    )
    limits.add_argument(
        "--head-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="a connection must send a request's head within this time (default 10)",
    )
    limits.add_argument(
        "--body-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="a request's body must all come within this time after its head; 0: no limit (default 10)",
    )
    limits.add_argument(
        "--requests-per-address",
        type=int,
        default=32,
        metavar="N",
        help="requests one address may have waiting for an answer at once; 0 for no limit (default 32)",
    )
    limits.add_argument(
        "--forwarded-allow-ips",
        default="",
        metavar="ADDRESSES",
        help="the balancers in front of this server (addresses or networks, comma-separated, e.g. "
        "10.0.0.2 or 10.0.0.0/24) whose X-Forwarded-For header names the client; no one else's is "
        "believed (default: none: each client is the address that connects; docs/hosting.md)",
    )
    serve.set_defaults(func=cmd_serve)


def database_words(url: str) -> str:
    """Where the tables are kept, for the start line: the SQLite file's path,
    or the database's URL without its password.

    >>> database_words("sqlite:////srv/ohhell/ohhell.db")
    'Tables are stored in /srv/ohhell/ohhell.db'
    >>> database_words("postgresql+psycopg://ann:secret@db.example/ohhell")
    'Tables are stored in the database postgresql+psycopg://ann:***@db.example/ohhell'
    """
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database in (None, "", ":memory:"):
            return "Tables are kept in memory only: they are lost when the server stops"
        return f"Tables are stored in {Path(parsed.database).resolve()}"
    return f"Tables are stored in the database {parsed.render_as_string(hide_password=True)}"


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn  # noqa: F401 - the web extra's server

        from ..web.app import create_app
    except ImportError as err:
        print(
            f"ohhell serve needs the web extra ({err.name} is missing): python3 -m pip install -e '.[web]'",
            file=sys.stderr,
        )
        return 2
    numbers = (
        "away",
        "bot_delay",
        "think",
        "clock",
        "bid_change_wait",
        "sockets_per_address",
        "spectators_per_table",
        "lobby_lifetime",
        "idle_lifetime",
        "head_timeout",
        "body_timeout",
        "requests_per_address",
        "review_time",
        "drain",
    )
    if args.workers < 1:
        print("ohhell serve: --workers must be 1 or more", file=sys.stderr)
        return 2
    if args.workers > 1 and not args.broker:
        print(
            "ohhell serve: --workers needs --broker redis://host:port/0 (the processes tell each other "
            "what happens at their tables through it) and a PostgreSQL --db",
            file=sys.stderr,
        )
        return 2
    for name in numbers:
        if getattr(args, name) < 0:
            print(f"ohhell serve: --{name.replace('_', '-')} cannot be negative", file=sys.stderr)
            return 2
    from ..web.tables.table import MAX_CLOCK

    if not args.review_time > 0:  # NaN too: a review is always bounded in time
        print("ohhell serve: --review-time is a number of seconds above 0", file=sys.stderr)
        return 2
    if not 0 < args.review_budget <= 16:  # NaN too
        print(
            "ohhell serve: --review-budget is a share of the default, above 0 and at most 16", file=sys.stderr
        )
        return 2
    if not args.clock <= MAX_CLOCK:  # NaN too
        print(f"ohhell serve: --clock is at most {MAX_CLOCK:g} seconds (0: no clock)", file=sys.stderr)
        return 2
    if args.metrics:
        from ..web.serving.metrics import parse_address

        try:
            parse_address(args.metrics)
        except ValueError as err:
            print(f"ohhell serve: {err}", file=sys.stderr)
            return 2
    try:
        from limits import parse

        from ..web.app import Limits
        from ..web.serving.guard import Proxies
        from ..web.storage.store import Store
        from ..web.tables.thinking import default_workers

        try:
            proxies = Proxies(args.forwarded_allow_ips)
        except ValueError as err:
            raise ValueError(f"--forwarded-allow-ips: {err}") from None

        rates = {}
        for name in ("create_limit", "sheet_limit", "connect_limit", "replay_limit", "review_limit"):
            text = getattr(args, name).strip().lower()
            rates[name] = None if text in ("none", "0", "off") else text
            if rates[name] is not None:
                try:
                    parse(text)
                except ValueError:
                    raise ValueError(
                        f"--{name.replace('_', '-')} {text!r}: write a rate like 30/minute, or none"
                    ) from None
        limits = Limits(
            create=rates["create_limit"],
            sheets=rates["sheet_limit"],
            connects=rates["connect_limit"],
            replays=rates["replay_limit"],
            reviews=rates["review_limit"],
            review_seconds=args.review_time,
            sockets_per_address=args.sockets_per_address,
            spectators_per_table=args.spectators_per_table,
            lobby_lifetime=args.lobby_lifetime * 3600,
            idle_lifetime=args.idle_lifetime * 3600,
            origins=frozenset(o.rstrip("/") for o in args.allow_origin),
        )
        # A bad --db URL fails here, with its reason, not inside uvicorn; an
        # older schema is upgraded here, once, before any worker starts.
        store = Store(args.db, upgrade=not args.no_upgrade)
        where = database_words(store.url)
        if store.upgraded is not None:
            from ..web.storage.schema import describe

            before, after = store.upgraded
            where += f"\nohhell serve: upgraded the database from {describe(before)} to {describe(after)}"
        shared = store.engine.dialect.name != "sqlite"
        store.close()
        if args.broker and not shared:
            raise ValueError(
                "--broker is for several processes sharing one database: give a PostgreSQL --db "
                "(an SQLite file belongs to one process)"
            )
        if args.broker:
            check_broker(args.broker)
        settings = {
            "store_url": args.db,
            "away_after": args.away,
            "bot_delay": args.bot_delay,
            "think": args.think,
            "clock": args.clock,
            "change_grace": min(args.bid_change_wait, 3600.0),
            "think_workers": max(1, default_workers() // args.workers),
            "broker": args.broker,
            "review_budget": args.review_budget,
            "accounts": args.accounts,
        }
        app = create_app(**settings, limits=limits)
    except Exception as err:  # a bad --db URL or limit names itself
        print(f"ohhell serve: {err}", file=sys.stderr)
        return 2
    print(f"ohhell serve: http://{args.host}:{args.port}/  (Ctrl-C stops)", flush=True)
    print(f"ohhell serve: {where}", flush=True)
    if args.broker:
        print(
            f"ohhell serve: live updates between processes go through {hide_password(args.broker)}",
            flush=True,
        )
    guard = {
        "head_timeout": args.head_timeout,
        "body_timeout": args.body_timeout,
        "per_address": args.sockets_per_address,
        "requests_per_address": args.requests_per_address,
        "proxies": proxies,
    }
    if args.workers > 1:
        from ..web.cluster.workers import run_workers

        print(f"ohhell serve: {args.workers} processes share the port", flush=True)
        if not start_ops(args):
            return 2
        run_workers(settings, limits, args.host, args.port, args.workers, **guard)
    else:
        run(app, args.host, args.port, ops=args, **guard)
    return 0


def hide_password(url: str) -> str:
    """A URL as it may be printed.

    >>> hide_password("redis://:secret@cache:6379/0")
    'redis://:***@cache:6379/0'
    >>> hide_password("redis://127.0.0.1:6379/0")
    'redis://127.0.0.1:6379/0'
    """
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return parts._replace(netloc=f"{user}:***@{host}{port}").geturl()


def check_broker(url: str) -> None:
    """Refuse a broker this server cannot reach, naming why, before serving."""
    try:
        import redis
    except ImportError:
        raise ValueError(
            "--broker needs the cluster extra (redis is missing): python3 -m pip install -e '.[cluster]'"
        ) from None
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=5)
        client.ping()
        client.close()
    except (ValueError, redis.RedisError) as err:
        raise ValueError(f"--broker {hide_password(url)}: {err}") from None


def start_ops(args: argparse.Namespace) -> bool:
    """Just before serving: the log's format, the drain, and the metrics'
    listener (docs/hosting.md); False (said why) if the listener cannot start."""
    import os

    from ..web.serving import health, logs, metrics

    logs.configure(args.log_format, args.log_level)
    health.drain_seconds(min(args.drain, 3600.0))
    if not args.metrics:
        return True
    host, port = metrics.parse_address(args.metrics)
    if args.workers > 1:
        metrics.prepare_multiprocess(os.environ.get(metrics.MULTIPROC))
    try:
        metrics.serve_metrics(host, port)
    except OSError as err:
        print(f"ohhell serve: --metrics {args.metrics}: {err.strerror or err}", file=sys.stderr)
        return False
    print(f"ohhell serve: metrics at http://{host}:{port}/metrics", flush=True)
    return True


def run(app: Any, host: str, port: int, ops: argparse.Namespace | None = None, **limits: Any) -> None:
    """Serve ``app`` with uvicorn as ``ohhell serve`` does (bench/server.py too):
    see ``ohhell.web.serving.transport``. ``ops``: ``ohhell serve``'s options for the
    log, the drain and the metrics (``start_ops``)."""
    from ..web.serving.transport import run as run_guarded

    if ops is not None and not start_ops(ops):
        raise SystemExit(2)

    run_guarded(app, host, port, **limits)
