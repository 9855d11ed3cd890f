"""The offline site's server, in the browser's worker: tables and score
sheets answered as ``ohhell serve`` answers them, with no threads,
processes or sockets (Pyodide has none).

The page talks to it through ``static/local.js``: ``localApi(method, path,
body)`` becomes ``request`` and each ``LocalSocket`` becomes a connection
number for ``open``, ``receive`` and ``close``. Every entry point returns
what happened as one JSON text (``Outcome``): the answer, the messages for
each connection (the very texts the server's WebSocket would carry, built
by ``web/views.py``), the connections closed, when to call ``step`` again
(a bot's paced move, the dealer) and, when something changed, the whole
state to keep in the browser (IndexedDB) so an unfinished match comes back
after the tab was closed (``LocalServer(saved=...)``).

Bodies are read as the server reads them: the same fields, the same
refusals in words (``TableError`` as ``{"error", "field"}`` with the
status; a rule's refusal as ``{"error", "rule"}``).
"""

from __future__ import annotations

import json
import random
import re
import secrets
import time
from collections.abc import Callable, Iterator
from typing import Any

from ... import RulesError, make_rules, observe
from ... import dumps as dumps_record
from ...bots.hint import hint
from ...scorekeeper import ScoreError, ScoreGame
from .. import sheets
from ..asked import action_asked, name_field, new_table_asked, play_now_asked, seat_to_cover, text_field
from ..errors import TableError
from ..fields import int_field
from ..form import form_options
from ..frames import MAX_RECORD, replay_answer
from ..protocol import (
    Json,
    ProtocolError,
    action_json,
    dumps,
    options_json,
    parse_message,
)
from ..seats import check_all_seated, check_level, seat_plan, seat_to_join
from .table import BOT, HUMAN, OPEN, Conn, LocalTable, Seat, bot_name, new_token, token_hash

SAVED_FORMAT = "ohhell-site-state-1"  # what ``save`` writes; another format starts afresh
KEEP_FINISHED = 20  # finished tables kept (their records stay downloadable); older ones go
MAX_CLOCK = 3600.0  # the server's longest turn clock (tables/table.py), said in /api/options
THINK = 1.0  # the expert's seconds per decision: the worker is busy that long, the page is not
HINT_SECONDS = 1.0
TABLE = re.compile(r"/api/tables/([A-Za-z0-9_-]{1,40})(?:/(join|fill|start|record|rematch))?")
SHEET = re.compile(r"/api/scores/([A-Za-z0-9_-]{1,40})(?:/(entry|verify|export\.csv|export\.json))?")


class LocalServer:
    """Tables and score sheets in the worker; see the module docstring.

    ``now``: the clock bots are paced on; ``bot_delay``: seconds before each
    bot move; ``think``: the expert's seconds per decision; ``seeds``: the
    tables' seeds in turn (tests), else random; ``saved``: what ``save``
    wrote before."""

    def __init__(
        self,
        *,
        now: Callable[[], float] = time.monotonic,
        bot_delay: float = 0.6,
        think: float = THINK,
        seeds: Iterator[int] | None = None,
        saved: str | None = None,
    ) -> None:
        self.now = now
        self.bot_delay = bot_delay
        self.think = think
        self.seeds = seeds
        self.tables: dict[str, LocalTable] = {}
        self.sheets: dict[str, Json] = {}  # id -> {"row": ScoreRow fields, "token_hash"}
        self.conns: dict[int, Conn] = {}
        self.pending: dict[int, str] = {}  # connections that have not said hello: their table
        self.outbox: list[list[Any]] = []
        self.closed: list[list[int]] = []
        self.dirty = False
        if saved:
            self._load(saved)

    # --- The page's four calls, each answered with an Outcome (JSON text) ---

    def request(self, method: str, path: str, body: str | None = None) -> str:
        """An HTTP request: ``{"status", "json"}`` or ``{"status", "text", "filename"}`` in "answer"."""
        if method.upper() == "POST" and path.split("?", 1)[0] == "/api/replay":
            return self._outcome(_replay(body or ""))
        try:
            data: Json = {}
            if body:
                try:
                    loaded = json.loads(body)
                except ValueError as err:
                    raise TableError(f"the request body is not JSON: {err}") from None
                if not isinstance(loaded, dict):
                    raise TableError("the request body must be a JSON object")
                data = loaded
            answer = self._route(method.upper(), path.split("?", 1)[0], data)
        except TableError as err:
            error: Json = {"error": str(err)}
            if err.field is not None:
                error["field"] = err.field
            answer = {"status": err.status, "json": error}
        except (ScoreError, RulesError) as err:
            answer = {"status": 400, "json": {"error": str(err), "rule": getattr(err, "rule", None)}}
        return self._outcome(answer)

    def open(self, number: int, table_id: str) -> str:
        """A socket opened to ``/ws/{table_id}``; it must say hello first."""
        if table_id not in self.tables:
            self._post(number, {"type": "error", "error": "there is no such table", "code": "bad"})
            self.closed.append([number, 4404])
        else:
            self.pending[number] = table_id
        return self._outcome(None)

    def receive(self, number: int, text: str) -> str:
        """One message from a socket."""
        if number in self.pending:
            self._hello(number, text)
        elif number in self.conns:
            conn = self.conns[number]
            try:
                self._handle(self._table_of(conn), conn, parse_message(text))
            except (ProtocolError, TableError) as err:
                code = err.code if isinstance(err, TableError) else "bad"
                conn.send(dumps({"type": "error", "error": str(err), "code": code}))
        return self._outcome(None)

    def close(self, number: int) -> str:
        self.pending.pop(number, None)
        conn = self.conns.pop(number, None)
        if conn is not None:
            for table in self.tables.values():
                if conn in table.connections:
                    table.detach(conn)
                    table.broadcast_table()
        return self._outcome(None)

    def step(self) -> str:
        """Make at most one move that is due (the dealer's, or a bot's once
        its pause is over), so the worker reads the page's messages between
        moves; "wait" says when to call again."""
        now = self.now()
        waits: list[float] = []
        for table in list(self.tables.values()):
            step = table.automatic()
            if step is None:
                continue
            seat, delay = step
            if seat == -1:
                waits.append(delay)
                continue
            version = table.version
            if delay > 0:
                if table.due is None or table.due[0] != version:
                    table.due = (version, now + delay)
                if now < table.due[1]:
                    waits.append(table.due[1] - now)
                    continue
            if seat is None:
                table.commit(table.match.chance_action())
            else:
                action = table.choose(seat, self.think)
                if action in table.match.legal(seat):
                    table.commit(action)
            self.dirty = True
            waits.append(0.0)
            break
        return self._outcome(None, wait=min(waits) if waits else None)

    def save(self) -> str:
        """Everything to keep, as JSON text (``LocalServer(saved=...)`` reads it)."""
        finished = [t for t in self.tables.values() if t.status in ("over", "ended")]
        drop = {t.id for t in finished[:-KEEP_FINISHED]} if len(finished) > KEEP_FINISHED else set()
        return json.dumps(
            {
                "format": SAVED_FORMAT,
                "tables": [t.to_json() for t in self.tables.values() if t.id not in drop],
                "sheets": self.sheets,
            }
        )

    # --- Outcomes ---

    def _outcome(self, answer: Json | None, wait: float | None = None) -> str:
        out: Json = {"answer": answer, "out": self.outbox, "closed": self.closed, "wait": wait}
        if self.outbox or self.dirty or (answer is not None and answer.get("changed")):
            out["save"] = self.save()
            self.dirty = False
        if answer is not None:
            answer.pop("changed", None)
        self.outbox, self.closed = [], []
        return json.dumps(out)

    def _post(self, number: int, message: Json) -> None:
        self.outbox.append([number, dumps(message)])

    def _load(self, saved: str) -> None:
        try:
            data = json.loads(saved)
            if data.get("format") != SAVED_FORMAT:
                return
            settings = {"now": self.now, "bot_delay": self.bot_delay}
            for row in data.get("tables", []):
                table = LocalTable.from_json(row, **settings)
                self.tables[table.id] = table
            self.sheets = dict(data.get("sheets", {}))
        except (ValueError, KeyError, TypeError):
            # A state this version cannot read (a hand edit, an old format)
            # is set aside, never a worker that cannot start.
            self.tables, self.sheets = {}, {}

    # --- Sockets ---

    def _hello(self, number: int, text: str) -> None:
        table = self.tables[self.pending.pop(number)]
        try:
            hello = parse_message(text)
            if hello["type"] != "hello":
                raise ProtocolError('the first message must be {"type": "hello", "token": ...}')
        except ProtocolError as err:
            self._post(number, {"type": "error", "error": f"no hello: {err}", "code": "bad"})
            self.closed.append([number, 4400])
            return
        token = hello.get("token")
        seat = table.seat_of_token(token if isinstance(token, str) else None)
        if token and seat is None:
            message = "this token holds no seat at this table: you are watching"
            self._post(number, {"type": "error", "error": message, "code": "seat"})
        conn = Conn(number, seat, seat is not None and seat == table.host_seat, self._sender(number))
        self.conns[number] = conn
        table.attach(conn)
        for other in table.connections:
            if other is not conn:
                other.send(dumps({"type": "table", **table.public()}))
        self.dirty = True

    def _sender(self, number: int) -> Callable[[str], None]:
        return lambda text: self.outbox.append([number, text])

    def _table_of(self, conn: Conn) -> LocalTable:
        for table in self.tables.values():
            if conn in table.connections:
                return table
        raise TableError("there is no such table", status=404)  # pragma: no cover - ended with its socket

    def _handle(self, table: LocalTable, conn: Conn, message: Json) -> None:
        """One message from a page at ``table``: what ``tables/messages.py`` does on the server."""
        kind = message["type"]
        if kind == "ping":
            conn.send(dumps({"type": "pong"}))
            return
        if kind in ("chat", "react"):
            raise TableError("There is nobody else at an offline table to talk to.", "chat")
        if kind == "mute":
            return  # nobody else speaks here
        if kind in ("silence", "remove", "claim", "answer"):
            words = {
                "silence": "There is nobody else at an offline table to mute.",
                "remove": "There is nobody else at an offline table to remove.",
                "claim": "Claims are not offered at offline tables: play your cards out.",
                "answer": "There is no claim to answer.",
            }
            raise TableError(words[kind], "claim" if kind in ("claim", "answer") else "seat")
        if kind == "hint":
            self._hint(table, conn)
            return
        if kind not in ("act", "keep", "back", "replace", "leave", "end"):
            raise ProtocolError(
                f"unknown message type {kind!r}: act, keep, back, replace, leave, end, claim, answer, "
                "hint, ping, chat, react, mute, silence or remove"
            )
        if conn.seat is None:
            raise TableError("you are watching: only a seated player may act", "seat")
        self.dirty = True
        if kind == "keep":
            table.keep(conn.seat)
        elif kind == "back":
            if table.seats[conn.seat].covered:
                table.seats[conn.seat].covered = False
                table.broadcast_table()
        elif kind == "replace":
            self._replace(table, conn, message)
        elif kind == "leave":
            self._leave(table, conn)
        elif kind == "end":
            if not conn.host:
                raise TableError("only the table's host may end the table", "seat")
            if table.status not in ("lobby", "playing"):
                raise TableError("the table has ended already", "turn")
            table.status = "ended"
            table.broadcast_table()
        else:
            action, version = action_asked(message, conn.seat)
            table.act(conn.seat, action, version)

    def _replace(self, table: LocalTable, conn: Conn, message: Json) -> None:
        seat = seat_to_cover(message, conn.seat, conn.host, len(table.seats))
        s = table.seats[seat]
        if s.kind != HUMAN:
            raise TableError(f"seat {seat + 1} is not a person's seat", "seat")
        if table.status != "playing":
            raise TableError("the match is not being played", "turn")
        if not s.covered:
            s.covered = True
            table.broadcast_table()

    def _leave(self, table: LocalTable, conn: Conn) -> None:
        assert conn.seat is not None
        s = table.seats[conn.seat]
        if conn.seat == table.host_seat:
            raise TableError("you are the host: end the table instead (it ends for everyone)", "seat")
        if table.status not in ("lobby", "playing"):
            raise TableError("the match is over: there is nothing to leave", "turn")
        if table.status == "lobby":
            s.name, s.kind, s.level, s.token_hash = None, OPEN, None, None
        else:
            s.name, s.kind, s.level, s.token_hash = bot_name(s.seat), BOT, "intermediate", None
        s.covered = False
        s.connections -= 1
        conn.seat, conn.host = None, False
        conn.send(dumps({"type": "welcome", "seat": None, "host": False}))
        table.broadcast_table()
        if table.status != "lobby":
            table.broadcast_state()

    def _hint(self, table: LocalTable, conn: Conn) -> None:
        if conn.seat is None:
            conn.send(dumps({"type": "error", "error": "hints are for seated players", "code": "seat"}))
            return
        version = table.version
        obs = observe(table.match.state, conn.seat)
        if not obs.legal_actions:
            conn.send(dumps({"type": "error", "error": "you have nothing to choose now", "code": "turn"}))
            return
        rng = random.Random(f"hint:{table.id}:{version}:{conn.seat}")
        found = hint(obs, rng, min(self.think, HINT_SECONDS))
        if found is None:  # pragma: no cover - legal actions exist
            return
        ranked = [{"action": action_json(e.action), "expected": round(e.expected, 3)} for e in found.ranked]
        message = {
            "type": "hint",
            "version": version,
            "action": action_json(found.action),
            "expected": round(found.expected, 3),
            "ranked": ranked,
        }
        conn.send(dumps(message))

    # --- HTTP ---

    def _route(self, method: str, path: str, data: Json) -> Json:
        if path == "/api/options" and method == "GET":
            return _ok({**form_options(options_json()), "clock": 0, "max_clock": MAX_CLOCK})
        if path == "/api/lobby" and method == "GET":
            return _ok({"tables": []})  # nobody else can join an offline table: none is listed
        if path == "/api/play-now" and method == "POST":
            return self._play_now(data)
        if path == "/api/tables" and method == "POST":
            return self._new_table(data)
        if path == "/api/scores" and method == "POST":
            return self._new_sheet(data)
        found = TABLE.fullmatch(path)
        if found:
            return self._at_table(method, found.group(1), found.group(2) or "show", data)
        found = SHEET.fullmatch(path)
        if found:
            return self._at_sheet(method, found.group(1), found.group(2) or "show", data)
        # Accounts, ratings and reviews are the server's: as a server with
        # accounts off, these paths do not exist here.
        return {"status": 404, "text": "Not Found"}

    def _seed(self) -> int:
        return next(self.seeds) if self.seeds is not None else secrets.randbelow(2**62)

    def _create(
        self, options: dict[str, str], kinds: list[str], host_seat: int, host_name: str
    ) -> tuple[str, str]:
        rules = make_rules("pagat", options)
        plan = seat_plan(rules, kinds, host_seat)
        token = new_token()
        seats = []
        for seat, (kind, level) in enumerate(plan):
            if kind == HUMAN:
                seats.append(Seat(seat, host_name, HUMAN, None, token_hash(token)))
            else:
                seats.append(Seat(seat, bot_name(seat) if level else None, kind, level, None))
        table_id = secrets.token_urlsafe(9)
        self.tables[table_id] = LocalTable(
            table_id, rules.options(), self._seed(), seats, host_seat, now=self.now, bot_delay=self.bot_delay
        )
        self.dirty = True
        return table_id, token

    def _play_now(self, data: Json) -> Json:
        rules, kinds, name = play_now_asked(data)
        table_id, token = self._create(rules.options(), kinds, 0, name)
        self._start(self.tables[table_id], token)
        return _ok({"table": table_id, "seat": 0, "token": token})

    def _new_table(self, data: Json) -> Json:
        rules, kinds, seat, name = new_table_asked(data)
        table_id, token = self._create(rules.options(), list(kinds), seat, name)
        return _ok({"table": table_id, "seat": seat, "token": token})

    def _host(self, table: LocalTable, data: Json) -> None:
        token = data.get("token")
        seat = table.seat_of_token(token if isinstance(token, str) and len(token) < 200 else None)
        if seat is None or seat != table.host_seat:
            raise TableError("only the table's host may do that", "seat", status=403)

    def _start(self, table: LocalTable, token: str | None) -> None:
        self._host(table, {"token": token})
        if table.status != "lobby":
            raise TableError("the match has already started", status=409)
        check_all_seated([s.kind for s in table.seats])
        table.status = "playing"
        table.match.restart_clock()
        table.broadcast_table()
        table.broadcast_state()
        table.deal()
        self.dirty = True

    def _at_table(self, method: str, table_id: str, op: str, data: Json) -> Json:
        table = self.tables.get(table_id)
        if table is None:
            raise TableError("there is no such table", status=404)
        post = op in ("join", "fill", "start", "rematch")
        if post != (method == "POST"):
            return {"status": 405, "text": "Method Not Allowed"}
        if op == "show":
            return _ok(table.public())
        if op == "record":
            if table.status not in ("over", "ended"):
                raise TableError("the record can be downloaded once the match is over", status=409)
            return {"status": 200, "text": dumps_record(table.record()), "filename": f"ohhell-{table.id}.ohr"}
        if op == "start":
            token = data.get("token")
            self._start(table, token if isinstance(token, str) else None)
        elif op == "fill":
            self._fill(table, data)
        elif op == "join":
            return self._join(table, data)
        elif op == "rematch":
            return self._rematch(table, data)
        return _ok(table.public())

    def _fill(self, table: LocalTable, data: Json) -> None:
        self._host(table, data)
        level = text_field(data, "level", "intermediate")
        if table.status != "lobby":
            raise TableError("the match has started", status=409)
        check_level(level, table.rules)
        for s in table.seats:
            if s.kind == OPEN:
                s.name, s.kind, s.level = bot_name(s.seat), BOT, level
        table.broadcast_table()
        self.dirty = True

    def _join(self, table: LocalTable, data: Json) -> Json:
        seat = int_field(data, "seat") if data.get("seat") is not None else None
        name = name_field(data, "Player") if data.get("name") else None
        if table.status != "lobby":
            raise TableError("the match has started", status=409)
        seat = seat_to_join([s.kind for s in table.seats], seat)
        s = table.seats[seat]
        token = new_token()
        s.name, s.kind, s.token_hash = name or f"Player {seat + 1}", HUMAN, token_hash(token)
        table.broadcast_table()
        self.dirty = True
        return _ok({"table": table.id, "seat": seat, "token": token})

    def _rematch(self, table: LocalTable, data: Json) -> Json:
        """ "Play again": a new table with the same rules and seats, the asker
        its host with the same seat and token; another person's seat opens."""
        token = data.get("token")
        seat = table.seat_of_token(token if isinstance(token, str) else None)
        if seat is None or not isinstance(token, str):
            raise TableError("only a player of this match may ask to play again", "seat", status=403)
        if table.status not in ("over", "ended"):
            raise TableError("a rematch is for a finished match", status=409)
        if table.rematch is not None:
            return _ok({"table": table.rematch["table"], "seat": seat, "token": token})
        kinds = [s.level or BOT if s.kind == BOT else HUMAN for s in table.seats]
        name = table.seats[seat].name or f"Player {seat + 1}"
        new_id, new_token_ = self._create(table.options, kinds, seat, name)
        new = self.tables[new_id]
        new.seats[seat].token_hash = token_hash(token)  # a player keeps their seat and their token
        del new_token_
        table.rematch = {"table": new_id, "by": table.seats[seat].name}
        table.broadcast_table()
        return _ok({"table": new_id, "seat": seat, "token": token})

    # --- Score sheets (web/sheets.py, as the server) ---

    def _new_sheet(self, data: Json) -> Json:
        game = sheets.new_game(data)
        sheet_id = secrets.token_urlsafe(9)
        token = new_token()
        now = time.time()
        self.sheets[sheet_id] = {
            "created": now,
            "updated": now,
            "token_hash": token_hash(token),
            "revision": 0,
            "data": game.to_dict(),
            "undo": [],
        }
        self.dirty = True
        return _ok({"id": sheet_id, "edit_token": token})

    def _at_sheet(self, method: str, sheet_id: str, op: str, data: Json) -> Json:
        kept = self.sheets.get(sheet_id)
        if kept is None:
            raise TableError("there is no such score sheet", status=404)
        row = sheets.ScoreRow(
            sheet_id,
            kept["created"],
            kept["updated"],
            kept["token_hash"],
            kept["revision"],
            kept["data"],
            kept["undo"],
        )
        game = ScoreGame.from_dict(row.data)
        if op == "show":
            return _ok(sheets.sheet_json(game, row))
        if op == "export.csv":
            return {"status": 200, "text": game.to_csv(), "filename": f"ohhell-score-{sheet_id}.csv"}
        if op == "export.json":
            return {"status": 200, "text": game.to_json() + "\n", "filename": f"ohhell-score-{sheet_id}.json"}
        if method != "POST":
            return {"status": 405, "text": "Method Not Allowed"}
        token = data.get("edit_token")
        if not isinstance(token, str) or not token or len(token) > sheets.MAX_TOKEN:
            raise TableError("this sheet is read-only without its edit token", status=403)
        if token_hash(token) != row.edit_token_hash:
            raise TableError("this edit token does not belong to this sheet: it is read-only", status=403)
        if op == "verify":
            return _ok({"id": sheet_id, "editable": True})
        seen = data.get("revision")
        if seen is not None and seen != row.revision:
            raise TableError(
                "the sheet was changed meanwhile (another device?): it has been reloaded", status=409
            )
        game, undo, what = sheets.apply_entry(game, data, row.undo)
        undo = undo[-sheets.MAX_UNDO :]
        kept.update(data=game.to_dict(), undo=undo, revision=row.revision + 1, updated=time.time())
        self.dirty = True
        answer = sheets.sheet_json(game, row, row.revision + 1)
        answer["can_undo"] = bool(undo) or bool(game.entries)
        answer["done"] = what
        return _ok(answer)


def _ok(value: Json) -> Json:
    return {"status": 200, "json": value}


def _replay(text: str) -> Json:
    """``POST /api/replay``: a record's frames for the replay page, as the
    server answers them (web/frames.py), or why the record is refused."""
    raw = text.encode("utf-8", "replace")
    if len(raw) > MAX_RECORD:
        return {"status": 413, "json": {"error": f"a record is at most {MAX_RECORD // 1024} KiB"}}
    done, answer = replay_answer(raw)
    if not done:
        return {"status": 400, "json": {"error": answer.decode()}}
    return {"status": 200, "json": json.loads(answer)}


__all__ = ["LocalServer"]
