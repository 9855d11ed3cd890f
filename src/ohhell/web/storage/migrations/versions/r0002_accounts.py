"""accounts, their sessions and the seats they played

Revision 0002, after 0001. A person may keep an account (a name and a
password hash); a signed-in browser holds a session (only its hash is
stored, so a copy of the database signs nobody in); an account's seats link
it to the tables it played, for its history and its ratings.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ohhell_accounts",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("name_key", sa.String(32), nullable=False, unique=True),
        sa.Column("password_hash", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("disabled", sa.Boolean, nullable=False),
        sa.Column("public", sa.Boolean, nullable=False),
    )
    op.create_table(
        "ohhell_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.String(24), sa.ForeignKey("ohhell_accounts.id"), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("seen", sa.Float, nullable=False),
        sa.Column("agent", sa.String(120), nullable=False),
    )
    op.create_index("ix_ohhell_sessions_account_id", "ohhell_sessions", ["account_id"])
    op.create_table(
        "ohhell_account_seats",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("ohhell_tables.id"), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("account_id", sa.String(24), sa.ForeignKey("ohhell_accounts.id"), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("table_id", "seat"),
    )
    op.create_index("ix_ohhell_account_seats_account_id", "ohhell_account_seats", ["account_id"])


def downgrade() -> None:
    op.drop_table("ohhell_account_seats")
    op.drop_table("ohhell_sessions")
    op.drop_table("ohhell_accounts")
