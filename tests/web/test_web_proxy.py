"""Client addresses behind the shipped balancer (deploy/nginx.conf).

The servers believe ``X-Forwarded-For`` only from the balancers named by
``--forwarded-allow-ips`` (guard.Proxies), and nginx replaces the header with
the address it saw, so every visitor is their own address: not the
balancer's (one limit for the whole site), and not one a client wrote.

The site test runs the shipped nginx configuration itself, only its
upstream servers and listening port changed to loopback ones, in front of
two ``ohhell serve`` processes on PostgreSQL and Redis. Clients bind to
different loopback addresses (Linux answers on the whole of 127/8): nginx
reaches the servers from 127.0.0.1, the one address they trust here, and
every client comes from another. It runs when ``OHHELL_TEST_POSTGRES`` and
``OHHELL_TEST_REDIS`` name the servers and nginx is installed (CI has all
three; with ``OHHELL_TEST_NGINX=1`` a missing nginx fails it), and skips with
the reason otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ohhell.web.app import WATCHERS_PER_ADDRESS
from ohhell.web.errors import TableError
from ohhell.web.serving.guard import Proxies, Quotas, client_address, trust_proxies, trusted_proxies
from support import bench_script

POSTGRES = os.environ.get("OHHELL_TEST_POSTGRES")
REDIS = os.environ.get("OHHELL_TEST_REDIS")
SHIPPED = Path(__file__).resolve().parents[2] / "deploy" / "nginx.conf"
QUOTA = 4  # new tables a minute per address, in the site test
SOCKETS = 3  # WebSockets per address and process, in the site test


# --- Choosing the address ---


def test_a_client_not_behind_a_trusted_proxy_is_its_own_address_whatever_it_writes() -> None:
    proxies = Proxies("10.0.0.2")
    assert proxies.client("203.0.113.7", [b"198.51.100.1"]) == "203.0.113.7"
    assert Proxies().client("127.0.0.1", [b"198.51.100.1"]) == "127.0.0.1"  # none trusted by default


def test_behind_a_trusted_proxy_the_client_is_the_entry_that_proxy_added() -> None:
    proxies = Proxies("10.0.0.2, 10.1.0.0/16")
    # A client wrote the first two; the balancer appended the third.
    assert proxies.client("10.0.0.2", [b"1.2.3.4, 5.6.7.8, 203.0.113.7"]) == "203.0.113.7"
    # Several headers are one list, in order.
    assert proxies.client("10.0.0.2", [b"1.2.3.4", b"203.0.113.7"]) == "203.0.113.7"
    # A chain of trusted proxies: the rightmost entry none of them is.
    assert proxies.client("10.0.0.2", [b"1.2.3.4, 203.0.113.7, 10.1.4.4"]) == "203.0.113.7"
    # Ports and brackets are dropped; an IPv6 client is written the usual way.
    assert proxies.client("10.0.0.2", [b"203.0.113.7:5555"]) == "203.0.113.7"
    assert proxies.client("10.0.0.2", [b"[2001:DB8::1]:443"]) == "2001:db8::1"
    assert proxies.client("10.0.0.2", [b"2001:db8::1"]) == "2001:db8::1"
    # A server listening on "::" sees an IPv4 balancer as a mapped address.
    assert proxies.client("::ffff:10.0.0.2", [b"203.0.113.7"]) == "203.0.113.7"


def test_a_trusted_proxy_s_unreadable_or_missing_header_leaves_the_proxy() -> None:
    proxies = Proxies("10.0.0.2")
    assert proxies.client("10.0.0.2", []) == "10.0.0.2"
    assert proxies.client("10.0.0.2", [b""]) == "10.0.0.2"
    assert proxies.client("10.0.0.2", [b"1.2.3.4, not-an-address"]) == "10.0.0.2"
    # Text that could carry anything into a log or the relay is never the answer.
    assert proxies.client("10.0.0.2", [b"\xff\x00<script>"]) == "10.0.0.2"


def test_an_ipv4_client_of_a_dual_stack_server_is_its_ipv4_address() -> None:
    # A server listening on "::" sees IPv4 clients as ::ffff:a.b.c.d: every
    # per-address limit, bar and count must see the same address either way.
    assert client_address({"client": ("::ffff:127.0.0.2", 5555), "headers": []}) == "127.0.0.2"
    assert client_address({"client": ("::1", 5555), "headers": []}) == "::1"
    assert client_address({"client": ("127.0.0.2", 5555), "headers": []}) == "127.0.0.2"


def test_every_address_is_refused_as_a_proxy_and_so_is_a_misspelt_one() -> None:
    with pytest.raises(ValueError, match="name the balancer"):
        Proxies("*")
    with pytest.raises(ValueError, match="not an address or network"):
        Proxies("10.0.0.2, balancer")
    assert Proxies(" 10.0.0.2 , ::1 ").names == ["10.0.0.2", "::1"]
    assert not Proxies("") and Proxies("127.0.0.1")


def test_client_address_reads_the_header_only_from_the_proxies_trusted() -> None:
    scope = {"type": "http", "client": ("10.0.0.2", 4000), "headers": [(b"x-forwarded-for", b"1.2.3.4")]}
    before = trusted_proxies()
    try:
        assert client_address(scope) == "10.0.0.2"
        trust_proxies(Proxies("10.0.0.2"))
        assert client_address(scope) == "1.2.3.4"
        assert client_address({**scope, "client": ("10.0.0.3", 4000)}) == "10.0.0.3"
    finally:
        trust_proxies(before)


def test_serve_refuses_to_trust_every_address() -> None:
    from ohhell.cli import main

    assert main(["serve", "--forwarded-allow-ips", "*", "--db", "sqlite://"]) == 2


# --- Quotas shared by the processes ---


def test_quotas_kept_in_the_broker_are_one_count_for_every_process() -> None:
    if not REDIS:
        pytest.skip("set OHHELL_TEST_REDIS to keep quotas in Redis")
    pytest.importorskip("redis")
    import redis

    group = secrets.token_hex(6)  # as the database's id: nobody else's keys
    first, second = Quotas(tables="3/minute"), Quotas(tables="3/minute")
    first.share(REDIS, group)
    second.share(REDIS, group)
    try:
        first.take("tables", "198.51.100.1")
        second.take("tables", "198.51.100.1")
        first.take("tables", "198.51.100.1")
        with pytest.raises(TableError, match="too many new tables"):
            second.take("tables", "198.51.100.1")  # its own count alone would allow it
        second.take("tables", "198.51.100.2")  # another address is counted apart
    finally:
        client = redis.Redis.from_url(REDIS)
        for key in client.scan_iter(match=f"ohhell:{group}:*"):
            client.delete(key)
        client.close()


def test_quotas_count_in_the_process_while_the_broker_is_unreachable(caplog: Any) -> None:
    quotas = Quotas(tables="2/minute")
    quotas.share(f"redis://127.0.0.1:{_free_port()}/0", "nobody")  # nothing listens there
    quotas.take("tables", "198.51.100.1")
    quotas.take("tables", "198.51.100.1")
    with pytest.raises(TableError, match="too many new tables"):
        quotas.take("tables", "198.51.100.1")
    assert sum("counting in this process" in r.getMessage() for r in caplog.records) == 1  # once a minute


# --- The shipped balancer in front of two processes ---


@dataclass
class Site:
    bench: Any
    servers: list[Any]
    port: int  # nginx's

    def ask(
        self,
        method: str,
        path: str,
        source: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        port: int | None = None,
    ) -> tuple[int, Any]:
        """One request from ``source`` (a loopback address), through nginx
        unless ``port`` names a server: (status, the JSON answer or text)."""
        connection = http.client.HTTPConnection(
            "127.0.0.1", port or self.port, timeout=15, source_address=(source, 0)
        )
        try:
            sent = {"Content-Type": "application/json", **(headers or {})}
            connection.request(method, path, body=None if body is None else json.dumps(body), headers=sent)
            answer = connection.getresponse()
            text = answer.read().decode()
        finally:
            connection.close()
        try:
            return answer.status, json.loads(text)
        except ValueError:
            return answer.status, text


def _nginx() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if found is None:
        if os.environ.get("OHHELL_TEST_NGINX") == "1":
            pytest.fail("nginx is not installed (OHHELL_TEST_NGINX=1 asks for this test)")
        pytest.skip("install nginx to test the shipped balancer configuration (deploy/nginx.conf)")
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _shipped_config(upstreams: list[int], port: int) -> str:
    """deploy/nginx.conf with only its upstream servers and listening port
    made loopback ones; every other line as shipped."""
    text = SHIPPED.read_text()
    for name, upstream in zip(("server-1:8000", "server-2:8000"), upstreams, strict=True):
        assert text.count(name) == 1, name
        text = text.replace(name, f"127.0.0.1:{upstream}")
    assert text.count("listen 80;") == 1
    return text.replace("listen 80;", f"listen 127.0.0.1:{port};")


@contextlib.contextmanager
def _run_nginx(upstreams: list[int]) -> Iterator[int]:
    binary = _nginx()
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "ohhell.conf").write_text(_shipped_config(upstreams, port))
        # The main configuration a system nginx would have around conf.d: here
        # everything in the temporary directory, nothing of the system's.
        temps = "\n".join(
            f"  {kind}_temp_path {tmp}/{kind};"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        (Path(tmp) / "nginx.conf").write_text(
            ("user root;\n" if os.geteuid() == 0 else "")
            + f"worker_processes 1;\npid {tmp}/nginx.pid;\nerror_log {tmp}/error.log warn;\n"
            + "events { worker_connections 512; }\n"
            + f"http {{\n  access_log off;\n{temps}\n  include {tmp}/ohhell.conf;\n}}\n"
        )
        proc = subprocess.Popen(
            [binary, "-p", tmp, "-c", f"{tmp}/nginx.conf", "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + 15
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"nginx exited: {proc.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
                try:
                    socket.create_connection(("127.0.0.1", port), 0.2).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline, "nginx did not listen in time"
                    time.sleep(0.05)
            yield port
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if proc.stderr is not None:
                proc.stderr.close()


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    if not (POSTGRES and REDIS):
        pytest.skip("set OHHELL_TEST_POSTGRES and OHHELL_TEST_REDIS to test several server processes")
    _nginx()
    pytest.importorskip("redis")
    pytest.importorskip("psycopg")
    bench = bench_script("failover")
    schema = bench.Schema(POSTGRES)
    try:
        limits = ["--create-limit", f"{QUOTA}/minute", "--sockets-per-address", str(SOCKETS)]
        servers = bench.start_servers(schema.url, REDIS, 2, "--forwarded-allow-ips", "127.0.0.1", *limits)
        try:
            with _run_nginx([s.port for s in servers]) as port:
                yield Site(bench, servers, port)
        finally:
            bench.stop_servers(servers)
    finally:
        schema.drop()


LOBBY = {"seats": ["human"] * 4, "name": "Ann"}


def test_a_forged_forwarded_for_changes_nothing_and_two_clients_are_two_addresses(site: Site) -> None:
    # Each request names another address; the server counts them all as the
    # one that connected (both processes together: the quota is in Redis).
    for n in range(QUOTA):
        status, answer = site.ask(
            "POST", "/api/tables", "127.0.0.2", LOBBY, {"X-Forwarded-For": f"10.9.9.{n}"}
        )
        assert status == 200, answer
    status, answer = site.ask("POST", "/api/tables", "127.0.0.2", LOBBY, {"X-Forwarded-For": "10.9.9.99"})
    assert status == 429 and "too many new tables" in answer["error"], answer
    # Another client is another address: its quota is whole.
    for _ in range(QUOTA):
        status, answer = site.ask("POST", "/api/tables", "127.0.0.3", LOBBY)
        assert status == 200, answer


def test_a_client_straight_to_a_server_cannot_name_its_address_either(site: Site) -> None:
    a, b = site.servers
    # Straight to each process in turn, naming nginx's address and others:
    # all counted as 127.0.0.4, once across both processes.
    for n in range(QUOTA):
        server = (a, b)[n % 2]
        forged = {"X-Forwarded-For": "127.0.0.1" if n % 2 else f"10.8.8.{n}", "X-Real-IP": "10.7.7.7"}
        status, answer = site.ask("POST", "/api/tables", "127.0.0.4", LOBBY, forged, port=server.port)
        assert status == 200, answer
    for server in (a, b):
        forged = {"X-Forwarded-For": "10.8.8.99"}
        status, answer = site.ask("POST", "/api/tables", "127.0.0.4", LOBBY, forged, port=server.port)
        assert status == 429, answer


def test_one_client_s_watcher_sockets_never_lock_a_player_out_of_his_seat(site: Site) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, InvalidStatus

    status, made = site.ask("POST", "/api/tables", "127.0.0.5", LOBBY)
    assert status == 200, made
    url = f"ws://127.0.0.1:{site.port}/ws/{made['table']}"

    async def watch(stack: contextlib.AsyncExitStack) -> bool:
        """One more watcher from 127.0.0.6: True if it was let in."""
        try:
            ws = await stack.enter_async_context(connect(url, local_addr=("127.0.0.6", 0), open_timeout=10))
            await ws.send(json.dumps({"type": "hello", "token": ""}))
            welcome = json.loads(await asyncio.wait_for(ws.recv(), 10))
        except (InvalidStatus, ConnectionClosed):
            return False
        return bool(welcome["type"] == "welcome")

    async def attack() -> None:
        async with contextlib.AsyncExitStack() as stack:
            # Watchers until they are refused: each process allows SOCKETS
            # sockets an address, and the table at most WATCHERS_PER_ADDRESS
            # watchers from one address, whichever process they came through.
            let_in = [await watch(stack) for _ in range(2 * SOCKETS + 2)]
            most = min(2 * SOCKETS, WATCHERS_PER_ADDRESS)
            assert let_in.count(True) == most and not let_in[-1], let_in
            # The host, from his own address, still reaches his seat, on
            # whichever process the balancer picks (twice: both of them).
            for _ in range(2):
                async with connect(url, local_addr=("127.0.0.5", 0), open_timeout=10) as ws:
                    await ws.send(json.dumps({"type": "hello", "token": made["token"]}))
                    welcome = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    assert welcome["type"] == "welcome" and welcome["seat"] == made["seat"], welcome

    asyncio.run(attack())


def test_one_client_asking_past_its_quota_gets_no_one_else_a_502(site: Site) -> None:
    statuses: list[int] = []
    held = 0
    others: list[int] = []
    for n in range(QUOTA + 30):
        status, answer = site.ask("POST", "/api/tables", "127.0.0.7", LOBBY)
        statuses.append(status)
        held += status == 429 and "wait a few seconds" in str(answer)
        if n % 3 == 0:
            others.append(site.ask("GET", "/api/lobby", "127.0.0.8")[0])
    assert statuses[:QUOTA] == [200] * QUOTA and set(statuses[QUOTA:]) == {429}, statuses
    # The flood was held off (by nginx's answer, not a cut connection), and
    # the balancer never took a server for dead: nobody else saw a 502.
    assert held, statuses
    assert others == [200] * len(others), others
    status, answer = site.ask("POST", "/api/tables", "127.0.0.8", LOBBY)
    assert status == 200, answer


def test_one_client_s_oversized_uploads_get_no_one_else_a_502(site: Site) -> None:
    # Bodies past the largest request, over and over from two threads: each
    # is refused (413), and the balancer never takes a server for dead.
    import threading

    body = "x" * (1024 * 1024 + 100 * 1024)
    refused: list[int] = []

    def upload() -> None:
        for _ in range(6):
            connection = http.client.HTTPConnection(
                "127.0.0.1", site.port, timeout=15, source_address=("127.0.0.10", 0)
            )
            try:
                connection.request("POST", "/api/replay", body=body, headers={"Content-Type": "text/plain"})
                refused.append(connection.getresponse().status)
            except OSError:
                refused.append(0)  # cut off: the test then fails on the count below
            finally:
                connection.close()

    uploads = [threading.Thread(target=upload) for _ in range(2)]
    for thread in uploads:
        thread.start()
    others = []
    while any(thread.is_alive() for thread in uploads):
        others.append(site.ask("GET", "/api/lobby", "127.0.0.11")[0])
    for thread in uploads:
        thread.join()
    others += [site.ask("GET", "/api/lobby", "127.0.0.11")[0] for _ in range(10)]
    assert refused == [413] * 12, refused
    assert others == [200] * len(others), others


def test_a_page_s_own_post_passes_the_balancer(site: Site) -> None:
    # A browser sends Origin with every post, with the port it sees; nginx
    # must pass the Host on with that port, or the same-origin check refuses.
    origin = {"Origin": f"http://127.0.0.1:{site.port}", "Host": f"127.0.0.1:{site.port}"}
    status, answer = site.ask("POST", "/api/tables", "127.0.0.9", LOBBY, origin)
    assert status == 200, answer
    elsewhere = {"Origin": "http://evil.example", "Host": f"127.0.0.1:{site.port}"}
    status, answer = site.ask("POST", "/api/tables", "127.0.0.9", LOBBY, elsewhere)
    assert status == 403, answer
