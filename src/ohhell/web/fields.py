"""Fields of a JSON request body read as numbers, with refusals in words.

Shared by the server's routes (``serving/requests.py``) and the offline
site's worker (``web/local``), which has only the standard library and our
core, so both refuse a bad field with the same words. Every fault raises
``TableError`` (status 400) naming the field.
"""

from __future__ import annotations

import math
from typing import Any, Final

from .errors import TableError

LARGEST: Final = 2**31
"""No whole number a route reads (a seat, a bid, a hand, a revision) comes near
this; a larger one is refused before anything computes with it or echoes it."""


def shown(value: object, most: int = 40) -> str:
    """``repr(value)``, cut short: an error message never echoes a huge value whole."""
    if isinstance(value, int) and abs(value) >= 10**most:
        return f"a number of more than {most} digits"
    text = repr(value)
    return text if len(text) <= most else text[: most - 3] + "..."


def int_field(data: dict[str, Any], key: str, default: int | None = None) -> int:
    """``data[key]`` as a whole number (``default`` when absent, if given)."""
    value = data.get(key, default)
    if type(value) is not int:
        raise TableError(f'"{key}" must be a whole number, not {shown(value)}')
    if not -LARGEST < value < LARGEST:
        raise TableError(f'"{key}" is far too large a number')
    return value


def number_field(data: dict[str, Any], key: str, default: float, what: str = "a number") -> float:
    """``data[key]`` as a finite number (``default`` when absent): a whole
    number too large for a float (401 digits), NaN or infinity (JSON's
    ``1e401`` reads as infinity) is refused naming the field, never a 500."""
    value = data.get(key, default)
    if type(value) not in (int, float):
        raise TableError(f'"{key}" must be {what}, not {shown(value)}', field=key)
    try:
        number = float(value)
    except OverflowError:
        raise TableError(f'"{key}" is far too large a number', field=key) from None
    if not math.isfinite(number):
        raise TableError(f'"{key}" must be {what}, not {shown(value)}', field=key)
    return number


__all__ = ["LARGEST", "int_field", "number_field", "shown"]
