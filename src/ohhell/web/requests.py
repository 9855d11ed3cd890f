"""Reading JSON request bodies, shared by the match and scorekeeper routes.

Every fault raises ``TableError`` (status 400) naming what was wrong.
"""

from __future__ import annotations

import json
from typing import Any, Final

from starlette.requests import Request

from .table import TableError

MAX_BODY: Final = 64 * 1024
"""The largest JSON request body (a new table, a join, a score entry)."""


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object ({} for an empty body)."""
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise TableError(f"the request body is larger than {MAX_BODY} bytes")
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except ValueError as err:
        raise TableError(f"the request body is not JSON: {err}") from None
    if not isinstance(data, dict):
        raise TableError("the request body must be a JSON object")
    return data


def int_field(data: dict[str, Any], key: str, default: int | None = None) -> int:
    """``data[key]`` as a whole number (``default`` when absent, if given)."""
    value = data.get(key, default)
    if type(value) is not int:
        raise TableError(f'"{key}" must be a whole number, not {value!r}')
    return value
