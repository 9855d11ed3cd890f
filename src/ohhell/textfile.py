"""The one reader of the text files a person hands to a command: game
records, score sheets.

A file that is not UTF-8 text (an image, a compressed file, text saved in
another encoding) or is far larger than any record is refused with
``NotTextError``, an ``OSError``: every command already says "cannot read
FILE: why" in one line for a file it cannot open, and this is one more such
file. The words say what the file seems to be, so a person who gave the
wrong file sees which one.
"""

from __future__ import annotations

import os

MAX_BYTES = 64 * 1024 * 1024
"""Far above the longest record or sheet (a 1,000-hand match is under 1 MB);
a larger file is not one of ours, and is not read into memory."""

# The first bytes of common files that are not text, and what to call them.
_SIGNATURES = (
    (b"\x1f\x8b", "a gzip-compressed file"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a zip archive"),
    (b"BZh", "a bzip2-compressed file"),
    (b"\xfd7zXZ\x00", "an xz-compressed file"),
    (b"\x28\xb5\x2f\xfd", "a zstd-compressed file"),
    (b"\x7fELF", "a program"),
)


class NotTextError(OSError):
    """A file that is not UTF-8 text; ``strerror`` says what it seems to be
    and what was expected, in one line."""

    def __init__(self, path: str | os.PathLike[str], why: str) -> None:
        super().__init__(None, why, os.fspath(path))


def read_text(path: str | os.PathLike[str], what: str) -> str:
    """The text of the file at ``path``, which should hold ``what`` (say "a
    game record"); raise ``OSError`` when it cannot be opened and
    ``NotTextError`` when it is not UTF-8 text."""
    with open(path, "rb") as f:
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise NotTextError(path, f"the file is over {MAX_BYTES // (1024 * 1024)} MB: too large to be {what}")
    kind = next((name for magic, name in _SIGNATURES if data.startswith(magic)), None)
    if kind is not None:
        raise NotTextError(path, f"this is {kind}, not {what} (which is text)")
    if b"\x00" in data:
        raise NotTextError(path, f"this is a binary file, not {what} (which is text)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise NotTextError(
            path,
            f"line {line} is not UTF-8 text (byte 0x{data[err.start]:02x}): {what} is UTF-8 text; "
            "save it as UTF-8 and try again",
        ) from None
    return text.removeprefix("\ufeff")  # a byte order mark some editors write
