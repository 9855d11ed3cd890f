"""Prometheus metrics of a server process (``prometheus-client``, the web extra).

What a host watches (docs/hosting.md, "Metrics"):

- counts from the server's own state, sampled once a second by ``Sampler``
  (tables held and their seats, open sockets, the thinking queue, reviews
  running), so the live tables and their players' code stay untouched;
- the actions taken (``ohhell_actions_total``: every action stored by the
  tables held here, bots' and the dealer's too), whose rate is the actions
  a second;
- the action latency (``ohhell_action_seconds``): from a person's action
  arriving on a socket to the next state written to that socket, measured
  at the socket (``SocketWatch``), relayed or not;
- the relay's lag (a message through the broker and back, twice a second);
- refusals by limit and database and Redis errors (``count_errors``: the
  errors the server logs, told apart by their exception).

Under ``ohhell serve --workers N`` each process writes its values into files
of the folder named by ``PROMETHEUS_MULTIPROC_DIR`` (prometheus-client's
multi-process mode) and ``ohhell serve`` itself, the processes' parent,
answers the scrapes with their sum (``serve_metrics``).
"""

from __future__ import annotations

import glob
import ipaddress
import logging
import os
import re
import time
from collections.abc import Iterable
from typing import Any, Final

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import REGISTRY

MULTIPROC: Final = "PROMETHEUS_MULTIPROC_DIR"

# Gauges: each process's value; under --workers the live processes' sum
# (lag: the largest), so a dead process's last values drop out.
tables = Gauge(
    "ohhell_tables", "Tables held by the process, by status", ["status"], multiprocess_mode="livesum"
)
seats = Gauge(
    "ohhell_seats",
    "Seats at tables held by the process: kind human (with connected), or bot",
    ["kind"],
    multiprocess_mode="livesum",
)
sockets = Gauge("ohhell_sockets", "WebSockets open on the process", multiprocess_mode="livesum")
thinking_waiting = Gauge(
    "ohhell_thinking_waiting", "Bot searches and hints waiting for a worker", multiprocess_mode="livesum"
)
thinking_running = Gauge(
    "ohhell_thinking_running", "Bot searches and hints being worked out", multiprocess_mode="livesum"
)
reviews_running = Gauge(
    "ohhell_reviews_running", "Post-game reviews being made by the process", multiprocess_mode="livesum"
)
relay_lag = Gauge(
    "ohhell_relay_lag_seconds",
    "Time a message takes through the broker and back to the same process (the last one)",
    multiprocess_mode="max",
)
draining = Gauge(
    "ohhell_draining", "1 while the process hands its tables over before it stops", multiprocess_mode="max"
)
# Counters and histograms: summed over processes.
actions = Counter("ohhell_actions", "Actions taken at tables held by the process (people, bots, dealer)")
action_seconds = Histogram(
    "ohhell_action_seconds",
    "From a person's action arriving on a socket to the next state sent on it",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
thinking_seconds = Histogram(
    "ohhell_thinking_seconds",
    "A search's own time (a bot's move, a hint, a claim's check), from its start to its answer",
    buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0),
)
thinking_wait_seconds = Histogram(
    "ohhell_thinking_wait_seconds",
    "How long a search waited in the thinking queue before it started",
    buckets=(0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0),
)
refusals = Counter("ohhell_refusals", "Requests refused by a limit", ["limit"])
errors = Counter("ohhell_errors", "Errors the process logged, by what failed", ["part"])


def count_refusal(limit: str) -> None:
    refusals.labels(limit=limit).inc()


# --- Errors, as the server logs them ---


def _part(record: logging.LogRecord) -> str | None:
    """What failed, for a logged error: "database", "redis", or None (not counted)."""
    if record.exc_info and record.exc_info[1] is not None:
        err: BaseException | None = record.exc_info[1]
        while err is not None:
            module = type(err).__module__
            if module.startswith(("sqlalchemy", "psycopg", "sqlite3")):
                return "database"
            if module.startswith("redis"):
                return "redis"
            err = err.__cause__ or err.__context__
    if record.levelno >= logging.WARNING and record.getMessage().startswith("cluster:"):
        return "redis"  # the cluster's own warnings are all about reaching Redis
    if record.levelno >= logging.ERROR:
        return "other"
    return None


class ErrorCounter(logging.Handler):
    """Counts the errors the server logs (``ohhell_errors_total``) by what
    failed, without a line in the code that logs them."""

    def emit(self, record: logging.LogRecord) -> None:
        part = _part(record)
        if part is not None:
            errors.labels(part=part).inc()


_counter = ErrorCounter(logging.WARNING)


def count_errors() -> None:
    """Count the errors logged under ``ohhell`` from now on (once per process)."""
    logger = logging.getLogger("ohhell")
    if _counter not in logger.handlers:
        logger.addHandler(_counter)


# --- The latency of actions, seen at the socket ---

_ACT = re.compile(r'"type"\s*:\s*"act"')


class SocketWatch:
    """One WebSocket's pending action: the time a person's action came in,
    until the next state (or a refusal) goes out on the same socket."""

    __slots__ = ("since",)

    def __init__(self) -> None:
        self.since: float | None = None

    def received(self, text: str | None) -> None:
        if text is not None and self.since is None and _ACT.search(text[:64]):
            self.since = time.perf_counter()

    def sent(self, text: str | None) -> None:
        if self.since is None or text is None:
            return
        head = text[:24]
        if head.startswith('{"type":"state"') or head.startswith('{"type": "state"'):
            action_seconds.observe(time.perf_counter() - self.since)
            self.since = None
        elif '"error"' in head:
            self.since = None  # refused: no state follows


# --- Serving the scrapes ---


def parse_address(text: str) -> tuple[str, int]:
    """``--metrics``'s value: ``PORT`` (on 127.0.0.1) or ``HOST:PORT``.

    >>> parse_address("9108")
    ('127.0.0.1', 9108)
    >>> parse_address("0.0.0.0:9108")
    ('0.0.0.0', 9108)
    >>> parse_address("[::1]:9108")
    ('::1', 9108)
    """
    host, _, port = text.strip().rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--metrics {text!r}: write a port (9108) or an address and a port (127.0.0.1:9108)")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        if host != "localhost":
            raise ValueError(f"--metrics {text!r}: {host!r} is not an address to listen on") from None
    return host, int(port)


def prepare_multiprocess(folder: str | None) -> str:
    """Under ``--workers``: the folder the processes write their values in
    (the host's ``PROMETHEUS_MULTIPROC_DIR``, or a new one), emptied of a
    previous run's files, and named in the environment the processes inherit.
    Call it before the processes start."""
    import tempfile

    folder = folder or tempfile.mkdtemp(prefix="ohhell-metrics-")
    os.makedirs(folder, exist_ok=True)
    for old in glob.glob(os.path.join(folder, "*.db")):
        os.remove(old)
    os.environ[MULTIPROC] = folder
    return folder


class _Processes:
    """prometheus-client's sum over the processes' files, after forgetting
    the live gauges of processes that died (uvicorn starts a new one)."""

    def __init__(self, folder: str) -> None:
        from prometheus_client.multiprocess import MultiProcessCollector

        self.folder = folder
        self._sum = MultiProcessCollector(None, path=folder)  # type: ignore[no-untyped-call]

    def collect(self) -> Iterable[Any]:
        from prometheus_client import multiprocess

        for path in glob.glob(os.path.join(self.folder, "gauge_live*_*.db")):
            pid = path.rsplit("_", 1)[-1][: -len(".db")]
            if pid.isdigit() and not _alive(int(pid)):
                multiprocess.mark_process_dead(int(pid), self.folder)  # type: ignore[no-untyped-call]
        return self._sum.collect()  # type: ignore[no-untyped-call,no-any-return]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - someone else's process
        return True
    return True


def serve_metrics(host: str, port: int) -> None:
    """Answer scrapes on ``host``:``port`` from a thread of this process:
    this process's metrics, or (multi-process mode) every process's sum."""
    from prometheus_client import start_http_server

    folder = os.environ.get(MULTIPROC)
    registry: CollectorRegistry = REGISTRY
    if folder:
        registry = CollectorRegistry()
        registry.register(_Processes(folder))
    start_http_server(port, addr=host, registry=registry)


__all__ = [
    "SocketWatch",
    "count_errors",
    "count_refusal",
    "parse_address",
    "prepare_multiprocess",
    "serve_metrics",
]
