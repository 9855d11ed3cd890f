"""The server's log lines: plain text, or one JSON object a line
(``ohhell serve --log-format json``; docs/hosting.md, "Logs").

Both formats keep one record on one line whatever it holds: a request's
raw path may carry NUL bytes or newlines, and written as they are they
would cut a line in two or forge another. Plain lines show control
characters escaped (``\\n``, ``\\x00``); JSON escapes them by itself.
Anything that looks like a seat's token (a long run of URL-safe letters)
is written ``[hidden]``: a log is read by more people than a seat's owner.
The server logs no card at all, so no hidden card can reach a log.

A JSON line has ``time`` (UTC), ``level``, ``logger``, ``message``, and
``table`` and ``seat`` when the line is about one ("table ab12: seat 2 is
back"), plus ``error`` (the traceback) when there is one.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
from typing import Final

FORMATS: Final = ("plain", "json")
ENVIRONMENT: Final = "OHHELL_LOG_FORMAT"  # the format and level ("json:info"), for --workers' processes

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_TOKEN = re.compile(r"[A-Za-z0-9_-]{32,}")
_TABLE = re.compile(r"\btable ([A-Za-z0-9_-]{1,32})\b")
_SEAT = re.compile(r"\bseat (\d{1,2})\b")


def _escape(char: re.Match[str]) -> str:
    c = char.group()
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(c) or f"\\x{ord(c):02x}"


def one_line(text: str) -> str:
    r"""``text`` with its control characters escaped and tokens hidden.

    >>> one_line("GET /t/\x00\nERROR forged")
    'GET /t/\\x00\\nERROR forged'
    """
    return _CONTROL.sub(_escape, hide_tokens(text))


def hide_tokens(text: str) -> str:
    return _TOKEN.sub("[hidden]", text)


class PlainFormatter(logging.Formatter):
    """``time level logger: message``, one line a record (a traceback's
    lines follow, each indented, so none can pass for a record of its own)."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = f"{self.formatTime(record)} {record.levelname} {record.name}: {one_line(record.getMessage())}"
        if record.exc_info:
            trace = self.formatException(record.exc_info)
            lines = [_CONTROL.sub(_escape, hide_tokens(t)) for t in trace.splitlines()]
            line += "".join("\n    " + t for t in lines)
        return line


class JsonFormatter(logging.Formatter):
    """One JSON object a line (the module docstring)."""

    def format(self, record: logging.LogRecord) -> str:
        message = hide_tokens(record.getMessage())
        entry: dict[str, object] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": message,
        }
        table = getattr(record, "table", None) or _first(_TABLE, message)
        if table is not None:
            entry["table"] = str(table)
            seat = getattr(record, "seat", None)
            seat = seat if seat is not None else _first(_SEAT, message)
            if seat is not None:
                entry["seat"] = int(seat)
        if record.exc_info:
            entry["error"] = hide_tokens(self.formatException(record.exc_info))
        return json.dumps(entry, ensure_ascii=True)


def _first(pattern: re.Pattern[str], text: str) -> str | None:
    found = pattern.search(text)
    return found.group(1) if found else None


_handler: logging.Handler | None = None


def configure(form: str = "plain", level: str = "warning") -> None:
    """Write the server's records (``ohhell`` and uvicorn's) to standard
    error in ``form``, from ``level`` up; the environment carries the choice
    to ``--workers``' processes (``configure_from_environment``)."""
    global _handler
    if form not in FORMATS:
        raise ValueError(f"--log-format {form!r}: plain or json")
    number = logging.getLevelName(level.upper())
    if not isinstance(number, int):
        raise ValueError(f"--log-level {level!r}: debug, info, warning or error")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if form == "json" else PlainFormatter())
    ours = logging.getLogger("ohhell")
    if _handler is not None:
        ours.removeHandler(_handler)
    ours.addHandler(handler)
    ours.setLevel(number)
    # uvicorn's own lines (its "uvicorn.error" goes up to "uvicorn"), in the same form.
    for name in ("uvicorn", "uvicorn.access"):
        logger = logging.getLogger(name)
        for old in list(logger.handlers):
            logger.removeHandler(old)
        logger.addHandler(handler)
    _handler = handler
    os.environ[ENVIRONMENT] = f"{form}:{level}"


def configure_from_environment() -> bool:
    """In a server process: the format ``ohhell serve`` chose, if any (uvicorn
    set up its own loggers since, so they are set again)."""
    chosen = os.environ.get(ENVIRONMENT)
    if not chosen:
        return False
    form, _, level = chosen.partition(":")
    configure(form, level or "warning")
    return True


__all__ = [
    "FORMATS",
    "JsonFormatter",
    "PlainFormatter",
    "configure",
    "configure_from_environment",
    "one_line",
]
