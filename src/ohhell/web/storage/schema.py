"""The database's schema and its upgrades, by Alembic migrations.

Every table the server keeps is made by a migration (``migrations/versions``),
never by ``create_all``: a host's database made by one release is upgraded in
place by the next, its tables, records, chat and reviews kept. The database
remembers the last migration it went through (Alembic's ``alembic_version``
table).

When a ``Store`` opens a database (``prepare``):

- a database with none of our tables is made from scratch;
- one at the newest revision is used as it is;
- one at an older revision (or made by a release from before migrations,
  which has our tables and no revision) is upgraded when ``upgrade`` is true,
  else refused with the command that upgrades it (``ohhell db upgrade``);
- one at a revision this version does not know (a newer release wrote it)
  is refused: an older program must not write into a newer schema.

On PostgreSQL an advisory lock makes several processes starting at once
(``ohhell serve --workers``) upgrade one after the other: the first does
the work, the others find it done.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Final

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine

if TYPE_CHECKING:  # Alembic loads only when a schema is checked
    from alembic.config import Config

LOCK: Final = 7405601  # the advisory lock's key, one for every process on a database
PREFIX: Final = "ohhell_"  # our tables' names begin with it


class SchemaError(Exception):
    """The database's schema is not one this version can use as it is."""


@dataclass(frozen=True, slots=True)
class Revision:
    """One migration: its id, the one before it, and what it does in words."""

    id: str
    down: str | None
    doc: str


def alembic_config() -> Config:
    """Alembic's settings for our migrations (run on a connection given in
    ``attributes["connection"]``)."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(resources.files("ohhell.web.storage") / "migrations"))
    return config


@functools.cache
def revisions() -> tuple[Revision, ...]:
    """Every migration this version knows, oldest first (read once: they
    are files of this package)."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(alembic_config())
    found = [
        Revision(str(r.revision), r.down_revision if isinstance(r.down_revision, str) else None, r.doc or "")
        for r in script.walk_revisions()
    ]
    return tuple(found[::-1])


def head() -> str:
    """The newest revision: the schema this version reads and writes."""
    return revisions()[-1].id


def current(db: Connection) -> str | None:
    """The revision the database is at; None when it has none (new, or made
    before migrations)."""
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(db).get_current_revision()


def has_tables(db: Connection) -> bool:
    """Whether the database holds any table of ours."""
    return any(name.startswith(PREFIX) for name in inspect(db).get_table_names())


def upgrade(db: Connection, revision: str = "head") -> None:
    """Run the migrations from the database's revision up to ``revision``,
    on this connection (its transaction commits them)."""
    from alembic import command

    config = alembic_config()
    config.attributes["connection"] = db
    command.upgrade(config, revision)


def describe(revision: str | None) -> str:
    """A revision in words, for messages to a host."""
    if revision is None:
        return "a release from before schema upgrades"
    for known in revisions():
        if known.id == revision:
            return f"{revision} ({known.doc})"
    return revision


def prepare(engine: Engine, upgrade_it: bool = True, url_words: str = "") -> tuple[str | None, str] | None:
    """Bring the database to this version's schema, or refuse (see the
    module docstring). ``url_words`` names the database in the command a
    refusal gives (``--db URL``). Returns the revisions before and after
    when an existing database was upgraded, else None."""
    with engine.begin() as db:
        if engine.dialect.name == "postgresql":
            db.execute(text(f"SELECT pg_advisory_xact_lock({LOCK})"))
        at = current(db)
        newest = head()
        if at == newest:
            return None
        known = {r.id for r in revisions()}
        if at is not None and at not in known:
            raise SchemaError(
                f"the database's schema is at revision {at}, which this version of ohhell does not know: "
                "a newer version wrote it; run that version (or newer)"
            )
        if (at is not None or has_tables(db)) and not upgrade_it:
            raise SchemaError(
                f"the database's schema is at {describe(at)}; this version needs {describe(newest)}. "
                f"Back it up, then run: ohhell db upgrade{url_words}"
            )
        existed = at is not None or has_tables(db)
        upgrade(db)
        return (at, newest) if existed else None
