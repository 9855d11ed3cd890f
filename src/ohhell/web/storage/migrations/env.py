"""Alembic's environment: the migrations run on the connection schema.py
hands over, in its transaction. ``target_metadata`` is every table the code
declares, so ``alembic revision --autogenerate`` writes what changed and the
tests can check that the migrations build exactly what the code declares."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from ohhell.web.accounts import model, passkeys, ratings
from ohhell.web.serving import admin, scores
from ohhell.web.storage import store

target_metadata = [store.metadata, admin.metadata]
# The score sheets', accounts', ratings' and passkeys' tables are on the store's metadata.
on_the_store = (scores.scoregames_t, model.accounts_t, ratings.ratings_t, passkeys.passkeys_t)
assert all(t.metadata is store.metadata for t in on_the_store)

connection = context.config.attributes.get("connection")
if connection is None:  # run by Alembic's own command line: -x db=URL, or the default SQLite file
    url = context.get_x_argument(as_dictionary=True).get("db") or store.default_url()
    with create_engine(url).begin() as connection:
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        context.run_migrations()
else:
    # render_as_batch: SQLite alters a table by copying it, which Alembic's
    # batch mode does for us.
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    context.run_migrations()
