"""The web scorekeeper (issue 6): score sheets of games played with real cards.

``score_routes(server)`` gives the pages and the JSON API (docs/web.md,
"The scorekeeper"); the app adds them to its routes. The model is
``ohhell.scorekeeper.model.ScoreGame``: entries are the truth and the sheet is
recomputed from them, so every request loads the game from its row, applies
one command and, if the model accepts it, writes the row back. A refused
command answers 400 with the model's reason and changes nothing.

Storage: one table, ``ohhell_scoregames``, on the same ``metadata`` as the
tables of web matches (so ``Store`` creates it in the same database):

- ``data``: ``ScoreGame.to_dict()`` as JSON text (the ``ohhell score --file``
  format; its ``summary`` is recomputed on reading).
- ``undo``: the undo history, a JSON list of ``{"what", "hands", "version"}``,
  the ``hands`` as they were before each command, in that version of the
  file form (none: version 1, revokes counted from seat 0) (at most ``MAX_UNDO``). The
  model keeps its history in memory only; storing it here lets ``undo`` take
  back an edit of a past hand, as in the terminal, across requests and
  restarts. When it is empty the model's own ``undo`` removes the last thing
  written.
- ``revision``: counts the changes. A write is ``UPDATE ... WHERE revision =
  the revision read``, so two processes (or two tabs that send the revision
  they saw) cannot both apply a command to the same sheet: the second gets 409.
- ``edit_token_hash``: the SHA-256 of the edit token. Reading is public (a
  read-only link is just the sheet's address); every change needs the token.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any, Final, Protocol

from sqlalchemy import Column, Float, Integer, String, Table, Text, insert, select, update
from sqlalchemy.engine import Engine
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from ... import RulesError
from ...scorekeeper import ScoreError, ScoreGame
from ..sheets import MAX_TOKEN, MAX_UNDO, ScoreRow, apply_entry, new_game, sheet_json
from ..storage.store import Store, metadata
from ..tables.table import TableError, new_token, token_hash
from .guard import Quotas, client_address
from .requests import json_body


class ScoreHost(Protocol):
    """What the score routes need of the server (``app.Server`` is one)."""

    @property
    def store(self) -> Store | None: ...

    @property
    def quotas(self) -> Quotas: ...


STATIC = resources.files("ohhell.web") / "static"

scoregames_t = Table(
    "ohhell_scoregames",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("created", Float, nullable=False),
    Column("updated", Float, nullable=False),
    Column("edit_token_hash", String(64), nullable=False),
    Column("revision", Integer, nullable=False, default=0),
    Column("data", Text, nullable=False),  # ScoreGame.to_dict() as JSON
    Column("undo", Text, nullable=False, default="[]"),  # [{"what", "hands", "version"}], oldest first
)

Json = dict[str, Any]


# --- Storage ---


class Conflict(Exception):
    """Somebody else changed the sheet since it was read."""


SHEET_ID: Final = re.compile(r"[A-Za-z0-9_-]{12}")
"""The shape of every id the server makes (``secrets.token_urlsafe(9)``)."""


def is_sheet_id(value: str) -> bool:
    """Is ``value`` an id the server could have made? Anything else (a NUL,
    a newline, a long string) is no sheet, and never reaches the database."""
    return SHEET_ID.fullmatch(value) is not None


def create_sheet(engine: Engine, game: ScoreGame) -> tuple[str, str]:
    """Store a new sheet; returns (its id, the edit token). Only the token's hash is kept."""
    sheet_id = secrets.token_urlsafe(9)
    token = new_token()
    now = time.time()
    with engine.begin() as db:
        db.execute(
            insert(scoregames_t).values(
                id=sheet_id,
                created=now,
                updated=now,
                edit_token_hash=token_hash(token),
                revision=0,
                data=json.dumps(game.to_dict(), ensure_ascii=False),
                undo="[]",
            )
        )
    return sheet_id, token


def load_sheet(engine: Engine, sheet_id: str) -> ScoreRow | None:
    if not is_sheet_id(sheet_id):
        return None
    with engine.connect() as db:
        row = db.execute(select(scoregames_t).where(scoregames_t.c.id == sheet_id)).first()
    if row is None:
        return None
    return ScoreRow(
        id=row.id,
        created=row.created,
        updated=row.updated,
        edit_token_hash=row.edit_token_hash,
        revision=row.revision,
        data=json.loads(row.data),
        undo=json.loads(row.undo),
    )


def save_sheet(engine: Engine, row: ScoreRow, game: ScoreGame, undo: list[Json]) -> int:
    """Write the game back if nobody changed it since ``row`` was read; the new revision.

    Raises ``Conflict`` when the revision in the database is no longer ``row.revision``.
    """
    with engine.begin() as db:
        done = db.execute(
            update(scoregames_t)
            .where(scoregames_t.c.id == row.id, scoregames_t.c.revision == row.revision)
            .values(
                updated=time.time(),
                revision=row.revision + 1,
                data=json.dumps(game.to_dict(), ensure_ascii=False),
                undo=json.dumps(undo[-MAX_UNDO:], ensure_ascii=False),
            )
        )
    if not done.rowcount:
        raise Conflict("the sheet was changed meanwhile (another device?): reload it and try again")
    return row.revision + 1


def sheet_ids(engine: Engine) -> list[str]:
    with engine.connect() as db:
        return [r.id for r in db.execute(select(scoregames_t.c.id).order_by(scoregames_t.c.created))]


# --- The sheet as JSON ---


class ScoreRoutes:
    """The handlers; ``server.store`` is looked up at request time (after the lifespan)."""

    def __init__(self, server: ScoreHost) -> None:
        self.server = server

    @property
    def engine(self) -> Engine:
        store = self.server.store
        assert store is not None, "the server has not started"
        return store.engine

    def _row(self, request: Request) -> ScoreRow:
        sheet_id = request.path_params["sheet"]
        # Checked before the database: PostgreSQL refuses a NUL in a string
        # with an error, which was a 500 with the raw path in the log.
        row = load_sheet(self.engine, sheet_id) if is_sheet_id(sheet_id) else None
        if row is None:
            raise TableError("there is no such score sheet", status=404)
        return row

    @staticmethod
    def _game(row: ScoreRow) -> ScoreGame:
        try:
            return ScoreGame.from_dict(row.data)
        except ScoreError as err:  # pragma: no cover - only a hand-edited database
            raise TableError(f"the stored sheet cannot be read: {err}", status=500) from None

    @staticmethod
    def _check_token(row: ScoreRow, data: Json) -> None:
        token = data.get("edit_token")
        if not isinstance(token, str) or not token or len(token) > MAX_TOKEN:
            raise TableError("this sheet is read-only without its edit token", status=403)
        if not hmac.compare_digest(token_hash(token), row.edit_token_hash):
            raise TableError("this edit token does not belong to this sheet: it is read-only", status=403)

    async def page(self, request: Request) -> Response:
        return FileResponse(str(STATIC / "score.html"), media_type="text/html")

    async def create(self, request: Request) -> Response:
        data = await json_body(request)
        self.server.quotas.take("sheets", client_address(request.scope))
        game = new_game(data)
        sheet_id, token = create_sheet(self.engine, game)
        return JSONResponse({"id": sheet_id, "edit_token": token})

    async def show(self, request: Request) -> Response:
        row = self._row(request)
        return JSONResponse(sheet_json(self._game(row), row))

    async def verify(self, request: Request) -> Response:
        data = await json_body(request)
        row = self._row(request)
        self._check_token(row, data)
        return JSONResponse({"id": row.id, "editable": True})

    async def entry(self, request: Request) -> Response:
        data = await json_body(request)
        row = self._row(request)
        self._check_token(row, data)
        seen = data.get("revision")
        if seen is not None and seen != row.revision:
            raise TableError(
                "the sheet was changed meanwhile (another device?): it has been reloaded", status=409
            )
        game, undo, what = apply_entry(self._game(row), data, row.undo)
        try:
            revision = save_sheet(self.engine, row, game, undo)
        except Conflict as err:
            raise TableError(str(err), status=409) from None
        answer = sheet_json(game, row, revision)
        answer["can_undo"] = bool(undo) or bool(game.entries)
        answer["done"] = what
        return JSONResponse(answer)

    async def export_csv(self, request: Request) -> Response:
        row = self._row(request)
        return PlainTextResponse(
            self._game(row).to_csv(),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="ohhell-score-{row.id}.csv"'},
        )

    async def export_json(self, request: Request) -> Response:
        row = self._row(request)
        return Response(
            self._game(row).to_json() + "\n",
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="ohhell-score-{row.id}.json"'},
        )


Handler = Callable[[Request], Awaitable[Response]]


def _guarded(handler: Handler) -> Handler:
    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except TableError as err:
            return JSONResponse({"error": str(err)}, status_code=err.status)
        except (ScoreError, RulesError) as err:
            # The words are for the scorer; the rule point is for programs (docs/web.md).
            return JSONResponse({"error": str(err), "rule": err.rule}, status_code=400)

    return endpoint


def score_routes(server: ScoreHost) -> list[Route]:
    """The scorekeeper's pages and API, to add to ``create_app``'s routes."""
    h = ScoreRoutes(server)
    return [
        Route("/score", h.page),
        Route("/score/{sheet}", h.page),
        Route("/api/scores", _guarded(h.create), methods=["POST"]),
        Route("/api/scores/{sheet}", _guarded(h.show)),
        Route("/api/scores/{sheet}/verify", _guarded(h.verify), methods=["POST"]),
        Route("/api/scores/{sheet}/entry", _guarded(h.entry), methods=["POST"]),
        Route("/api/scores/{sheet}/export.csv", _guarded(h.export_csv)),
        Route("/api/scores/{sheet}/export.json", _guarded(h.export_json)),
    ]


__all__ = [
    "Conflict",
    "ScoreRow",
    "apply_entry",
    "create_sheet",
    "is_sheet_id",
    "load_sheet",
    "new_game",
    "save_sheet",
    "score_routes",
    "scoregames_t",
    "sheet_ids",
    "sheet_json",
]
