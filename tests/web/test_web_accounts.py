"""Accounts at the server (web/accounts.py, web/account_routes.py; docs/web.md,
"Accounts"): argon2id, sessions in the database that end on every process,
no telling whether a name exists, tries held off, cross-site posts refused,
and a person's data theirs alone: changed, downloaded, deleted."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("argon2")

from sqlalchemy import create_engine, select

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient
from web_support import from_address, make_app, with_addresses

from ohhell.web.accounts.model import WRONG, accounts_t, pseudonym
from ohhell.web.accounts.routes import COOKIE
from ohhell.web.app import Limits
from ohhell.web.storage.store import seats_t

PASSWORD = "correct horse battery"


def _app(db: Path, **settings: Any) -> Any:
    # The sign-in limits as shipped; the others off (tests make many tables).
    limits = Limits(create=None, sheets=None, connects=None, sockets_per_address=0, spectators_per_table=0)
    return with_addresses(make_app(str(db), limits=limits, **settings))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(_app(tmp_path / "t.db")) as c:
        yield c


def _sign_up(client: TestClient, name: str = "Ann", password: str = PASSWORD, address: str = "ann") -> Any:
    return client.post(
        "/api/account/signup", json={"name": name, "password": password}, headers=from_address(address)
    )


def _sign_in(client: TestClient, name: str, password: str, address: str = "ann") -> Any:
    return client.post(
        "/api/account/signin", json={"name": name, "password": password}, headers=from_address(address)
    )


def _me(client: TestClient) -> Any:
    return client.get("/api/account").json()["account"]


def test_sign_up_stores_argon2id_and_gives_an_httponly_samesite_cookie(
    client: TestClient, tmp_path: Path
) -> None:
    r = _sign_up(client)
    assert r.status_code == 200, r.text
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert "Secure" not in cookie  # plain HTTP here; behind TLS it is Secure
    assert _me(client)["name"] == "Ann"
    engine = create_engine(f"sqlite:///{tmp_path / 't.db'}")
    with engine.connect() as db:
        stored = db.execute(select(accounts_t.c.password_hash)).scalar_one()
    engine.dispose()
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    # The name is one name whatever its case; a short password is refused.
    assert _sign_up(client, "ANN", address="bob").status_code == 409
    assert "at least 10" in _sign_up(client, "Bob", "short", address="bob").json()["error"]


def test_an_unknown_name_and_a_wrong_password_answer_alike(client: TestClient) -> None:
    _sign_up(client)
    client.cookies.clear()
    accounts = client.app.state.server.accounts.accounts  # type: ignore[attr-defined]
    checked: list[str] = []
    hasher = accounts.hasher

    class Counting:  # the hasher, counting the hashes it checks
        def verify(self, stored: str, password: str) -> bool:
            checked.append(stored)
            return bool(hasher.verify(stored, password))

        def __getattr__(self, name: str) -> Any:
            return getattr(hasher, name)

    accounts.hasher = Counting()
    wrong = _sign_in(client, "Ann", "not the password", address="x1")
    unknown = _sign_in(client, "Nobody", "not the password", address="x2")
    assert (
        (wrong.status_code, wrong.json()) == (unknown.status_code, unknown.json()) == (401, {"error": WRONG})
    )
    # Both checked one argon2id hash: as long for a name that does not exist.
    assert len(checked) == 2 and all(h.startswith("$argon2id$") for h in checked)
    assert COOKIE not in wrong.headers.get("set-cookie", "") and _me(client) is None


def test_the_eleventh_wrong_password_in_a_minute_is_held_off_even_with_the_right_one(
    client: TestClient,
) -> None:
    _sign_up(client)
    client.cookies.clear()
    for i in range(10):  # from ten addresses: the account's own count holds them off
        assert _sign_in(client, "Ann", f"guess number {i}", address=f"10.0.0.{i}").status_code == 401
    held = _sign_in(client, "Ann", PASSWORD, address="10.0.1.1")
    assert held.status_code == 429 and "wait a minute" in held.json()["error"]
    # The same name written otherwise is the same account, held off alike.
    for other in ("ANN", " ann ", "Ａｎｎ"):
        assert _sign_in(client, other, "one more guess", address="10.0.1.2").status_code == 429
    # Another account is not held off by Ann's attacker.
    _sign_up(client, "Bob", address="bob")
    client.cookies.clear()
    assert _sign_in(client, "Bob", PASSWORD, address="bob").status_code == 200


def test_a_session_ended_everywhere_is_refused_by_every_process(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    # Two processes on one database: a session made on one is valid on the other.
    with TestClient(_app(db)) as one, TestClient(_app(db)) as other, TestClient(_app(db)) as phone:
        assert _sign_up(one).status_code == 200
        other.cookies.set(COOKIE, one.cookies[COOKIE])
        assert _me(other)["name"] == "Ann"
        assert _sign_in(phone, "Ann", PASSWORD, address="phone").status_code == 200
        r = phone.post("/api/account/signout-everywhere", json={})
        assert r.status_code == 200 and r.json()["signed_out"] == 2
        assert _me(one) is None and _me(other) is None and _me(phone) is None


def test_a_forged_or_cross_site_request_is_refused(client: TestClient) -> None:
    _sign_up(client)
    token = client.cookies[COOKIE]
    # Another site's page: refused before anything is read.
    r = client.post(
        "/api/account/signout-everywhere", json={}, headers={"origin": "https://elsewhere.example"}
    )
    assert r.status_code == 403 and _me(client)["name"] == "Ann"
    # A form's plain text body is not JSON: refused.
    r = client.post(
        "/api/account/password",
        content=b"old=x&new=y",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 400
    # A cookie whose signature was changed signs nobody in.
    value, _, mac = token.rpartition(".")
    client.cookies.clear()
    client.cookies.set(COOKIE, value + "." + ("A" if mac[0] != "A" else "B") + mac[1:])
    assert _me(client) is None


def test_changing_the_password_ends_the_other_sessions(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with TestClient(_app(db)) as laptop, TestClient(_app(db)) as phone:
        _sign_up(laptop)
        _sign_in(phone, "Ann", PASSWORD, address="phone")
        r = laptop.post("/api/account/password", json={"old": "wrong one here", "new": "a new passphrase"})
        assert r.status_code == 403
        r = laptop.post("/api/account/password", json={"old": PASSWORD, "new": "a new passphrase"})
        assert r.status_code == 200
        assert _me(laptop)["name"] == "Ann" and _me(phone) is None
        assert _sign_in(phone, "Ann", PASSWORD, address="phone").status_code == 401
        assert _sign_in(phone, "Ann", "a new passphrase", address="phone").status_code == 200


def test_a_guest_s_seats_become_the_account_s_and_nobody_else_s(client: TestClient) -> None:
    made = client.post("/api/play-now", json={}, headers=from_address("ann")).json()
    _sign_up(client)
    seat = {"table": made["table"], "seat": 0, "token": made["token"]}
    wrong = {**seat, "token": "not-the-token"}
    r = client.post("/api/account/seats", json={"seats": [seat, wrong]})
    assert r.json() == {"linked": 1}
    # Signed in, Play now's seat is the account's by itself.
    client.post("/api/play-now", json={}, headers=from_address("ann"))
    data = client.get("/api/account/data")
    assert data.status_code == 200 and "attachment" in data.headers["content-disposition"]
    body = data.json()
    assert len(body["seats"]) == 2 and body["account"]["name"] == "Ann"
    assert "argon2" not in data.text.replace("argon2id hash", "")  # the hash is never handed out
    # Another account holding the token cannot take the seat.
    client.post("/api/account/signout", json={})
    _sign_up(client, "Bob", address="bob")
    assert client.post("/api/account/seats", json={"seats": [seat]}).json() == {"linked": 0}


def test_a_deleted_account_leaves_a_pseudonym_and_no_way_in(client: TestClient, tmp_path: Path) -> None:
    made = client.post("/api/play-now", json={"name": "Ann"}, headers=from_address("ann")).json()
    _sign_up(client)
    client.post(
        "/api/account/seats", json={"seats": [{"table": made["table"], "seat": 0, "token": made["token"]}]}
    )
    assert client.post("/api/account/delete", json={"password": "not it at all"}).status_code == 403
    r = client.post("/api/account/delete", json={"password": PASSWORD})
    assert r.status_code == 200 and _me(client) is None
    engine = create_engine(f"sqlite:///{tmp_path / 't.db'}")
    with engine.connect() as db:
        assert db.execute(select(accounts_t)).first() is None
        name = db.execute(
            select(seats_t.c.name).where(seats_t.c.table_id == made["table"], seats_t.c.seat == 0)
        )
        kept = name.scalar_one()
    engine.dispose()
    assert kept.startswith("Player ") and "Ann" not in kept and len(kept) == len(pseudonym("x"))
    assert _sign_in(client, "Ann", PASSWORD, address="ann").json() == {"error": WRONG}
    assert _sign_up(client, "Ann").status_code == 200  # the name is free again


def test_the_host_chooses_accounts_off_optional_or_required(tmp_path: Path) -> None:
    with TestClient(_app(tmp_path / "off.db", accounts="off")) as off:
        assert off.get("/api/account").status_code == 404
        assert off.post("/api/play-now", json={}).status_code == 200  # a guest plays as ever
    with TestClient(_app(tmp_path / "req.db", accounts="required")) as required:
        r = required.post("/api/play-now", json={})
        assert r.status_code == 401 and "sign in" in r.json()["error"]
        _sign_up(required)
        assert required.post("/api/play-now", json={}).status_code == 200


def test_a_private_match_s_record_is_its_account_s_on_another_device(tmp_path: Path) -> None:
    from web_support import connect, play_all

    db = tmp_path / "t.db"
    with TestClient(_app(db)) as laptop, TestClient(_app(db)) as phone, TestClient(_app(db)) as stranger:
        _sign_up(laptop)
        made = laptop.post("/api/play-now", json={"level": "random", "preset": "okenuff"}).json()
        with connect(laptop, made["table"], made["token"]) as player:
            assert play_all([player])["obs"]["phase"] == "over"
        record = f"/api/tables/{made['table']}/record"
        assert stranger.get(record).status_code == 403  # a private table: no token, no account
        assert phone.get(record).status_code == 403
        _sign_in(phone, "Ann", PASSWORD, address="phone")
        r = phone.get(record)  # no seat token on this device: the account holds the seat
        assert (
            r.status_code == 200
            and r.text == laptop.get(record, headers={"Authorization": f"Bearer {made['token']}"}).text
        )


def test_a_passkey_answer_that_was_not_asked_for_is_refused_in_words(client: TestClient) -> None:
    import base64
    import json as jsonlib

    options = client.post("/api/account/passkey/options", json={})
    assert options.status_code == 200 and options.headers["cache-control"] == "no-store"
    never = base64.urlsafe_b64encode(
        jsonlib.dumps({"challenge": "bm90LWFza2Vk", "type": "webauthn.get"}).encode()
    )
    forged = {"id": "x", "rawId": "x", "type": "public-key", "response": {"clientDataJSON": never.decode()}}
    r = client.post("/api/account/passkey/signin", json={"credential": forged})
    assert r.status_code == 403 and "expired" in r.json()["error"]
    for bad in ({"credential": "not an object"}, {"credential": {"response": {}}}, {}):
        r = client.post("/api/account/passkey/signin", json=bad)
        assert r.status_code == 400 and r.json()["error"], r.text
    # Adding a passkey needs an account.
    assert client.post("/api/account/passkeys/options", json={}).status_code == 401


def test_a_flood_of_sign_ins_never_keeps_a_signed_in_person_waiting(client: TestClient) -> None:
    # Passwords are hashed in threads of their own: a crowd signing in (each
    # hash made slow here) does not hold up anyone else's requests.
    import threading
    import time

    _sign_up(client)
    accounts = client.app.state.server.accounts.accounts  # type: ignore[attr-defined]
    hasher = accounts.hasher

    class Slow:
        def verify(self, stored: str, password: str) -> bool:
            time.sleep(0.5)
            return bool(hasher.verify(stored, password))

        def __getattr__(self, name: str) -> Any:
            return getattr(hasher, name)

    accounts.hasher = Slow()
    done: list[int] = []

    def sign_in(n: int) -> None:
        _sign_in(client, "Nobody", "a wrong password", address=f"10.9.0.{n}")
        done.append(n)

    crowd = [threading.Thread(target=sign_in, args=(n,)) for n in range(8)]
    for thread in crowd:
        thread.start()
    time.sleep(0.1)
    assert client.get("/api/account").json()["account"]["name"] == "Ann"
    finished_meanwhile = len(done)
    for thread in crowd:
        thread.join()
    assert finished_meanwhile < 4 and len(done) == 8  # answered while the crowd still waited


def test_passkey_requests_are_limited_per_address(client: TestClient) -> None:
    # Each begun ceremony keeps a challenge for a while: one address cannot pile them up.
    answers = [
        client.post("/api/account/passkey/options", json={}, headers=from_address("p")).status_code
        for _ in range(31)
    ]
    assert answers[:30] == [200] * 30 and answers[30] == 429
    assert client.post("/api/account/passkey/options", json={}, headers=from_address("q")).status_code == 200


def test_tries_sent_at_once_are_counted_as_they_come(client: TestClient) -> None:
    # Twenty wrong passwords at once from one address: ten are checked, the
    # rest held off before any hashing (none slips past while others hash).
    import threading

    _sign_up(client)
    client.cookies.clear()
    statuses: list[int] = []

    def guess(n: int) -> None:
        statuses.append(_sign_in(client, "Ann", f"guess {n} wrong", address="10.8.0.1").status_code)

    threads = [threading.Thread(target=guess, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [401] * 10 + [429] * 10, statuses


def test_a_session_cannot_guess_its_account_s_password(client: TestClient) -> None:
    _sign_up(client)
    answers = [
        client.post(
            "/api/account/password", json={"old": f"wrong {n} guess", "new": "another passphrase"}
        ).status_code
        for n in range(10)
    ]
    # Ten wrong guesses, then the eleventh try is held off, whatever it asks.
    assert answers == [403] * 10, answers
    assert client.post("/api/account/delete", json={"password": PASSWORD}).status_code == 429


def test_a_browser_s_cross_site_post_without_origin_is_refused(client: TestClient) -> None:
    _sign_up(client)
    r = client.post("/api/account/signout-everywhere", json={}, headers={"sec-fetch-site": "cross-site"})
    assert r.status_code == 403 and _me(client)["name"] == "Ann"
    r = client.post("/api/account/public", json={"public": True}, headers={"sec-fetch-site": "same-origin"})
    assert r.status_code == 200
