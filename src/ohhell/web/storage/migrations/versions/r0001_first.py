"""the tables of the first release with upgrades

Tables, seats, actions, settings, chat, reviews, score sheets, bans, orders.

Revision 0001, the first. A database made before upgrades existed has some
or all of these tables already (each was made when a release first needed
it): each is made only where it is missing, so such a database reaches this
revision with its rows untouched.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _tables() -> list[tuple[str, Callable[[], None]]]:
    def tables() -> None:
        op.create_table(
            "ohhell_tables",
            sa.Column("id", sa.String(32), primary_key=True),
            sa.Column("created", sa.Float, nullable=False),
            sa.Column("rules", sa.Text, nullable=False),
            sa.Column("seed", sa.BigInteger, nullable=False),
            sa.Column("status", sa.String(16), nullable=False),
            sa.Column("host_seat", sa.Integer, nullable=False),
        )

    def seats() -> None:
        op.create_table(
            "ohhell_seats",
            sa.Column("table_id", sa.String(32), sa.ForeignKey("ohhell_tables.id"), nullable=False),
            sa.Column("seat", sa.Integer, nullable=False),
            sa.Column("name", sa.String(64)),
            sa.Column("kind", sa.String(16), nullable=False),
            sa.Column("level", sa.String(32)),
            sa.Column("token_hash", sa.String(64)),
            sa.PrimaryKeyConstraint("table_id", "seat"),
        )

    def actions() -> None:
        op.create_table(
            "ohhell_actions",
            sa.Column("table_id", sa.String(32), sa.ForeignKey("ohhell_tables.id"), nullable=False),
            sa.Column("version", sa.Integer, nullable=False),
            sa.Column("line", sa.Text, nullable=False),
            sa.Column("at", sa.Float, nullable=False),
            sa.PrimaryKeyConstraint("table_id", "version"),
        )

    def settings() -> None:
        op.create_table(
            "ohhell_table_settings",
            sa.Column("table_id", sa.String(32), sa.ForeignKey("ohhell_tables.id"), nullable=False),
            sa.Column("name", sa.String(32), nullable=False),
            sa.Column("value", sa.Text, nullable=False),
            sa.PrimaryKeyConstraint("table_id", "name"),
        )

    def chat() -> None:
        op.create_table(
            "ohhell_chat",
            sa.Column("table_id", sa.String(32), sa.ForeignKey("ohhell_tables.id"), nullable=False),
            sa.Column("number", sa.Integer, nullable=False),
            sa.Column("seat", sa.Integer),
            sa.Column("name", sa.String(64), nullable=False),
            sa.Column("kind", sa.String(16), nullable=False),
            sa.Column("text", sa.Text, nullable=False),
            sa.Column("at", sa.Float, nullable=False),
            sa.PrimaryKeyConstraint("table_id", "number"),
        )

    def meta() -> None:
        op.create_table(
            "ohhell_meta",
            sa.Column("name", sa.String(32), primary_key=True),
            sa.Column("value", sa.Text, nullable=False),
        )

    def reviews() -> None:
        op.create_table(
            "ohhell_reviews",
            sa.Column("record", sa.String(64), primary_key=True),
            sa.Column("table_id", sa.String(32)),
            sa.Column("state", sa.String(16), nullable=False),
            sa.Column("progress", sa.Text),
            sa.Column("review", sa.Text),
            sa.Column("started", sa.Float, nullable=False),
            sa.Column("updated", sa.Float, nullable=False),
        )
        op.create_index("ix_ohhell_reviews_table_id", "ohhell_reviews", ["table_id"])

    def scoregames() -> None:
        op.create_table(
            "ohhell_scoregames",
            sa.Column("id", sa.String(32), primary_key=True),
            sa.Column("created", sa.Float, nullable=False),
            sa.Column("updated", sa.Float, nullable=False),
            sa.Column("edit_token_hash", sa.String(64), nullable=False),
            sa.Column("revision", sa.Integer, nullable=False),
            sa.Column("data", sa.Text, nullable=False),
            sa.Column("undo", sa.Text, nullable=False),
        )

    def bans() -> None:
        op.create_table(
            "ohhell_bans",
            sa.Column("network", sa.String(64), primary_key=True),
            sa.Column("reason", sa.Text, nullable=False),
            sa.Column("at", sa.Float, nullable=False),
        )

    def orders() -> None:
        op.create_table(
            "ohhell_admin_orders",
            sa.Column("number", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("kind", sa.String(16), nullable=False),
            sa.Column("target", sa.Text, nullable=False),
            sa.Column("at", sa.Float, nullable=False),
        )

    return [
        ("ohhell_tables", tables),
        ("ohhell_seats", seats),
        ("ohhell_actions", actions),
        ("ohhell_table_settings", settings),
        ("ohhell_chat", chat),
        ("ohhell_meta", meta),
        ("ohhell_reviews", reviews),
        ("ohhell_scoregames", scoregames),
        ("ohhell_bans", bans),
        ("ohhell_admin_orders", orders),
    ]


def upgrade() -> None:
    present = set(sa.inspect(op.get_bind()).get_table_names())
    for name, make in _tables():
        if name not in present:
            make()


def downgrade() -> None:
    for name, _ in reversed(_tables()):
        op.drop_table(name)
