"""One WebSocket's outgoing side: its seat, its viewer's wishes and its own queue.

Each connection's messages are written by a task of its own, so a slow
browser never holds up a table: a seated connection that falls
``QUEUE_LIMIT`` messages behind is closed (the page reconnects and gets the
current state), a watcher at ``SPECTATOR_QUEUE_LIMIT``. Chat is only sent
while the queue is less than half full (``post_optional``): it is dropped
for a slow client rather than pushing it towards being closed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from ..protocol import Json, dumps

QUEUE_LIMIT = 256  # messages waiting for one slow seated client before it is dropped
BEHIND = 4008  # the close code for a client that fell too far behind
RESTART = 1012  # ...and for "the server restarts": the page reconnects at once
SPECTATOR_QUEUE_LIMIT = 64  # ...and for a spectator, who never holds up a seat


class Bucket:
    """A token bucket: ``rate`` a second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.level = burst
        self.at = now

    def take(self, now: float) -> bool:
        self.level = min(self.burst, self.level + (now - self.at) * self.rate)
        self.at = now
        if self.level < 1:
            return False
        self.level -= 1
        return True


class Connection:
    """One WebSocket: its seat (None for a spectator) and a queue of outgoing
    text, written by its own task so a slow client never holds up a table."""

    def __init__(
        self,
        send: Callable[[str], Any],
        seat: int | None,
        host: bool,
        close: Callable[[int], Any] | None = None,
        address: str = "",
    ) -> None:
        self.seat = seat
        # The client's address: what the host's removals and mutes follow
        # (chat.py) and whose turn at the thinking a hint takes (thinking.py).
        self.address = address
        self.host = host
        self._send = send
        self._close = close
        self.overflowed = False
        self.limit = QUEUE_LIMIT if seat is not None else SPECTATOR_QUEUE_LIMIT
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.closed = False
        # The viewer's chat mutes (seats, and "watchers"), their chat budget,
        # and whether the host removed them from the table (no voice here).
        self.muted: set[int | str] = set()
        self.chat: Bucket | None = None
        self.removed = False
        self.hinting: asyncio.Task[None] | None = None  # the hint being found for this viewer

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._writer())

    def post(self, text: str) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= self.limit:
            # Too far behind: close it; the client reconnects and catches up.
            self.closed = self.overflowed = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(text)

    def post_optional(self, text: str) -> None:
        """Send ``text`` unless the queue is half full: for chat, which a slow
        client may miss but must never be closed for."""
        if not self.closed and self.queue.qsize() < self.limit // 2:
            self.queue.put_nowait(text)

    def watch(self) -> None:
        """This connection holds no seat any more (its player was removed)."""
        self.seat = None
        self.host = False
        self.limit = SPECTATOR_QUEUE_LIMIT

    async def hang_up(self, code: int = RESTART) -> None:
        """Close the client's connection (it reconnects): what was queued goes first."""
        await self.stop()
        if self._close is not None:
            with contextlib.suppress(Exception):
                await self._close(code)

    def post_json(self, message: Json) -> None:
        self.post(dumps(message))

    async def _writer(self) -> None:
        while True:
            text = await self.queue.get()
            if text is None:
                if self.overflowed and self._close is not None:
                    with contextlib.suppress(Exception):
                        await self._close(BEHIND)
                return
            try:
                await self._send(text)
            except Exception:  # the socket went away; the reader sees it too
                self.closed = True
                return

    async def stop(self) -> None:
        if self.hinting is not None:
            self.hinting.cancel()
        self.closed = True
        self.queue.put_nowait(None)
        if self.task is not None:
            with contextlib.suppress(Exception):
                await self.task


__all__ = ["QUEUE_LIMIT", "SPECTATOR_QUEUE_LIMIT", "Bucket", "Connection"]
