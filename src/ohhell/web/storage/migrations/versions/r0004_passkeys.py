"""passkeys: an account's WebAuthn credentials, and the one-time challenges of their ceremonies

Revision 0004, after 0003.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ohhell_passkeys",
        sa.Column("credential_id", sa.String(255), primary_key=True),
        sa.Column("account_id", sa.String(24), sa.ForeignKey("ohhell_accounts.id"), nullable=False),
        sa.Column("public_key", sa.Text, nullable=False),
        sa.Column("sign_count", sa.Integer, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("used", sa.Float, nullable=False),
    )
    op.create_index("ix_ohhell_passkeys_account_id", "ohhell_passkeys", ["account_id"])
    op.create_table(
        "ohhell_challenges",
        sa.Column("challenge", sa.String(128), primary_key=True),
        sa.Column("account_id", sa.String(24)),
        sa.Column("expires", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("ohhell_challenges")
    op.drop_table("ohhell_passkeys")
