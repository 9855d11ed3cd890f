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


async def read_body(request: Request, limit: int, what: str = "the request body") -> bytes:
    """The body, refused as soon as it passes ``limit`` bytes (by its declared
    length, or while it streams in), so a huge body is never held whole."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise TableError(f"{what} is larger than {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TableError(f"{what} is larger than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object ({} for an empty body)."""
    raw = await read_body(request, MAX_BODY)
    if not raw:
        return {}
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        # A form on another site can post text/plain without asking the
        # browser first; it cannot post JSON that way.
        raise TableError(
            f"the request body must be JSON (Content-Type: application/json), not {kind or 'unnamed'}"
        )
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as err:
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
