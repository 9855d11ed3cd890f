"""ratings: each account's, each rated match's changes, and which tables were rated

Revision 0003, after 0002.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ohhell_ratings",
        sa.Column("account_id", sa.String(24), sa.ForeignKey("ohhell_accounts.id"), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_table(
        "ohhell_rated_tables",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("ohhell_tables.id"), primary_key=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("outcome", sa.Text, nullable=False),
    )
    op.create_table(
        "ohhell_rating_changes",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("ohhell_tables.id"), nullable=False),
        sa.Column("account_id", sa.String(24), sa.ForeignKey("ohhell_accounts.id"), nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("sigma_before", sa.Float, nullable=False),
        sa.Column("mu_after", sa.Float, nullable=False),
        sa.Column("sigma_after", sa.Float, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("table_id", "account_id"),
    )
    op.create_index("ix_ohhell_rating_changes_account_id", "ohhell_rating_changes", ["account_id"])


def downgrade() -> None:
    op.drop_table("ohhell_rating_changes")
    op.drop_table("ohhell_rated_tables")
    op.drop_table("ohhell_ratings")
