"""Alembic's migrations of the server's database (schema.py runs them)."""
