"""One module per migration, oldest first by their ``down_revision``."""
