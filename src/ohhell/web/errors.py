"""The refusal every part of a table raises (its own module, so the parts
that table.py uses can raise it without importing table.py)."""

from __future__ import annotations


class TableError(Exception):
    """A request the table refuses; ``code`` says which kind (docs/web.md)."""

    def __init__(self, message: str, code: str = "bad", status: int = 400, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.field = field  # the form's field the refusal is about, when it is one field


__all__ = ["TableError"]
