"""preset ratings: each account's rating in each preset's matches, beside its overall one

Revision 0005, after 0004.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ohhell_preset_ratings",
        sa.Column("account_id", sa.String(24), sa.ForeignKey("ohhell_accounts.id"), nullable=False),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("account_id", "preset"),
    )
    op.create_index("ix_ohhell_preset_ratings_preset", "ohhell_preset_ratings", ["preset"])


def downgrade() -> None:
    op.drop_table("ohhell_preset_ratings")
