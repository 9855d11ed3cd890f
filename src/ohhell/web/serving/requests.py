"""Reading JSON request bodies, shared by the match and scorekeeper routes.

Every fault raises ``TableError`` (status 400) naming what was wrong.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..fields import LARGEST, int_field, number_field, shown
from ..protocol import MAX_DEPTH, UnsafeJson, loads_checked
from ..tables.table import TableError

Handler = Callable[[Request], Awaitable[Response]]


def guarded(handler: Handler) -> Handler:
    """``handler`` with a refusal (``TableError``) answered as
    ``{"error": words}`` and its status, for routes that raise nothing else."""

    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except TableError as err:
            return JSONResponse({"error": str(err)}, status_code=err.status)

    return endpoint


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
        # Checked as it is read: every value in it may be relayed to the
        # process holding the table (protocol.loads_checked).
        data = loads_checked(raw)
    except UnsafeJson as err:
        raise TableError(f"the request body cannot be used: {err}", field=err.field) from None
    except RecursionError:
        raise TableError(f"the request body nests more than {MAX_DEPTH} levels deep") from None
    except ValueError as err:  # UnicodeDecodeError too
        raise TableError(f"the request body is not JSON: {err}") from None
    if not isinstance(data, dict):
        raise TableError("the request body must be a JSON object")
    return data


__all__ = ["LARGEST", "MAX_BODY", "guarded", "int_field", "json_body", "number_field", "read_body", "shown"]
