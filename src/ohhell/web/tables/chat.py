"""Chat and quick reactions at a table, and the host's say over who may speak.

Seated players and watchers talk in one chat; every line says whether a
watcher wrote it, so each viewer can hide the watchers' lines, one
watcher's (by the name they chat under) or one player's for themselves: a
mute per viewer, sent by the page with its hello and whenever it changes,
and applied here, so a muted line never reaches that viewer. The host may
mute a player or a watcher for everyone (their lines are refused) or remove
a player (a bot takes the seat; their token keeps no seat and no voice at
the table). A mute or a removal follows the person, not only their seat's
token: the addresses their seat connected from (while this server process
ran) are kept, hashed with the table's secret seed so they name nobody and
cannot be matched across tables; a watcher from one of them may not speak,
and nobody from a removed player's addresses may take a seat at that table
again (``barred``). What the table itself says ("Ann left; Bruno, a bot,
plays the seat now") is a notice: a line of kind ``notice`` that every
viewer hears.

Chat takes the same path as an action: a line is checked, stored
(``Store.add_chat``) and only then sent, each connection through its own
queue. What one client can do to the others is bounded three ways:

- a line is one line of at most ``CHAT_MAX`` characters (and every message
  at most 4 KiB, as for any message);
- each connection may say ``PERSON_BURST`` lines at once and one every
  ``1 / PERSON_RATE`` seconds after that; each table's players, and
  separately its watchers, share a budget too (``TABLE_RATE``), so many
  watchers cannot drown the players, and a table's chat costs at most a few
  database writes a second;
- a line is dropped for a connection whose queue is already half full,
  instead of being queued: chat never closes a slow connection, and never
  delays the game's own messages to it.

Nothing the server knows about the game goes into a line: it holds the
words someone typed, their name, their seat, and the time.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import logging
import math
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, Final

from ..protocol import ProtocolError, clean_name, dumps
from ..storage.store import ChatRow, StaleVersion, Store
from .connection import Bucket, Connection

Json = dict[str, Any]
log = logging.getLogger("ohhell.web")

CHAT_MAX: Final = 200  # characters in one line
HISTORY: Final = 50  # lines a newly arrived page is sent
PERSON_RATE: Final = 0.5  # lines a second one connection may say, on average...
PERSON_BURST: Final = 5.0  # ...after this many at once
TABLE_RATE: Final = {"players": 2.0, "watchers": 1.0}  # lines a second, for each side of a table
TABLE_BURST: Final = {"players": 20.0, "watchers": 10.0}
WATCHERS: Final = "watchers"  # in a viewer's mutes: every watcher's line
WATCHER: Final = "watcher:"  # in a viewer's mutes, before a name: that watcher's lines
MUTED_WATCHERS: Final = 50  # watchers one viewer may mute by name
ADDRESSES_PER_SEAT: Final = 16  # addresses kept for one seat's person (a phone moves between networks)
SAME_PLACE: Final = "using the same internet connection as you"
NOTICE: Final = "notice"  # a line's kind: the table's own words, heard by everyone
REACTIONS: Final = {
    "hello": "Hello!",
    "nice": "Nice one!",
    "wow": "Wow!",
    "oops": "Oops!",
    "thanks": "Thanks!",
    "gg": "Good game!",
}
"""The quick reactions: a key the page sends, and the words everyone sees."""


def clean_text(value: object) -> str:
    """A chat line: one line of printable text, trimmed, 1 to CHAT_MAX characters."""
    if not isinstance(value, str):
        raise ProtocolError('"text" must be the words to say')
    text = " ".join(value.split())
    if not text:
        raise ProtocolError("there is nothing to say: the line is empty")
    if len(text) > CHAT_MAX:
        raise ProtocolError(f"a line holds at most {CHAT_MAX} characters; this one has {len(text)}")
    if not text.isprintable():
        raise ProtocolError("the line holds characters that cannot be printed")
    return text


def watcher_key(name: str) -> str:
    """A watcher in a set of mutes: the name they chat under."""
    return WATCHER + name


def parse_mutes(value: object, players: int) -> set[int | str]:
    """A viewer's mutes from the page: seats, "watchers" for every watcher,
    and ``{"watcher": name}`` for one watcher."""
    if value is None:
        return set()
    if not isinstance(value, list) or len(value) > players + 1 + MUTED_WATCHERS:
        raise ProtocolError(
            f'"mute" must list seats, "watchers" for every watcher, and at most {MUTED_WATCHERS} '
            'watchers as {"watcher": name}'
        )
    out: set[int | str] = set()
    for who in value:
        if who == WATCHERS or (type(who) is int and 0 <= who < players):
            out.add(who)
        elif isinstance(who, dict) and set(who) == {"watcher"}:
            out.add(watcher_key(watcher_name(who["watcher"])))
        else:
            raise ProtocolError(
                f'{who!r} is neither a seat from 0 to {players - 1}, "watchers", nor {{"watcher": name}}'
            )
    return out


def line_json(row: ChatRow) -> Json:
    return {
        "number": row.number,
        "seat": row.seat,
        "name": row.name,
        "kind": row.kind,
        "text": row.text,
        "at": round(row.at, 3),
    }


def hears(conn: Connection, who: int | ChatRow | None) -> bool:
    """Does ``conn``'s viewer want this line (or any line from seat ``who``,
    None: a watcher)? A notice is heard by everyone; a watcher's line is not
    heard by a viewer who muted every watcher, or that one by their name."""
    if isinstance(who, ChatRow):
        if who.kind == NOTICE:
            return True
        if who.seat is None and watcher_key(who.name) in conn.muted:
            return False
        who = who.seat
    return (WATCHERS if who is None else who) not in conn.muted


def _wait_words(bucket: Bucket) -> str:
    """When ``bucket`` (just refused) holds a line again: ``in 2 seconds``."""
    seconds = max(1, math.ceil((1 - bucket.level) / bucket.rate)) if bucket.rate > 0 else 0
    if not seconds:
        return "later"
    return f"in {seconds} second{'s' if seconds != 1 else ''}"


def seat_taken_words(person: str, bot: str) -> str:
    """The notice when a bot takes a person's seat for good."""
    return f"{person} left; {bot}, a bot, plays the seat now"


class TableChat:
    """One table's chat: its recent lines, the host's mutes and removals, the budgets."""

    def __init__(
        self,
        table_id: str,
        store: Store,
        settings: dict[str, str],
        clock: Callable[[], float],
        secret: str = "",
    ) -> None:
        self.table_id = table_id
        self.secret = secret.encode()  # keys the addresses' hashes (the table's seed, never sent)
        self.store = store
        self.clock = clock  # for the budgets (seconds; the hub's clock)
        self.lines: deque[ChatRow] = deque(store.chat(table_id, HISTORY), maxlen=HISTORY)
        self.next = self.lines[-1].number + 1 if self.lines else 0
        # Seats the host muted for everyone, and the tokens (hashed) of people removed.
        self.silenced: set[int] = set(json.loads(settings.get("silenced", "[]")))
        # Watchers the host muted for everyone, by the name they chat under.
        self.silenced_watchers: set[str] = set(json.loads(settings.get("silenced_watchers", "[]")))
        self.removed: set[str] = set(json.loads(settings.get("removed", "[]")))
        # Of those, the ones who left by themselves (not removed by the host): told so when back.
        self.left: set[str] = set(json.loads(settings.get("left", "[]")))
        # The addresses (hashed) removed players connected from, and those of
        # muted players by seat: the person's, whatever token they come with.
        self.removed_addresses: set[str] = set(json.loads(settings.get("removed_addresses", "[]")))
        silenced = json.loads(settings.get("silenced_addresses", "{}"))
        self.silenced_addresses: dict[int, set[str]] = {int(k): set(v) for k, v in silenced.items()}
        self.seen: dict[int, dict[str, None]] = {}  # seat -> addresses its person came from, oldest first
        now = clock()
        self.budgets = {side: Bucket(TABLE_RATE[side], TABLE_BURST[side], now) for side in TABLE_RATE}

    def history(self, conn: Connection) -> str | None:
        """The recent lines ``conn``'s viewer hears, as one message (None if none)."""
        lines = [line_json(row) for row in self.lines if hears(conn, row)]
        return dumps({"type": "chat_history", "lines": lines}) if lines else None

    def say(self, conn: Connection, name: str, kind: str, text: str) -> ChatRow:
        """Check and store one line from ``conn`` (``ChatRefused`` if refused)."""
        if conn.removed:
            raise ChatRefused("the host removed you from this table: you cannot chat here")
        if conn.seat is not None and conn.seat in self.silenced:
            raise ChatRefused("the host has muted you at this table")
        if conn.seat is None and name in self.silenced_watchers:
            raise ChatRefused("the host has muted you at this table")
        if conn.seat is None and conn.address:
            # A removed or muted player back as a watcher (no token, or a new
            # one): known by the address their seat connected from.
            key = self.address_key(conn.address)
            if key in self.removed_addresses:
                raise ChatRefused(f"The host removed a player {SAME_PLACE}: you cannot chat at this table.")
            if any(key in keys for seat, keys in self.silenced_addresses.items() if seat in self.silenced):
                raise ChatRefused(f"The host muted a player {SAME_PLACE}: you cannot chat at this table.")
        now = self.clock()
        if conn.chat is None:
            conn.chat = Bucket(PERSON_RATE, PERSON_BURST, now)
        # The page keeps a refused line in its box: the refusal says when it can go.
        if not conn.chat.take(now):
            raise ChatRefused(
                f"You are chatting too fast: your line is kept; send it {_wait_words(conn.chat)}."
            )
        budget = self.budgets["players" if conn.seat is not None else WATCHERS]
        if not budget.take(now):
            raise ChatRefused(f"The table's chat is busy: your line is kept; send it {_wait_words(budget)}.")
        return self._store(ChatRow(self.next, conn.seat, name, kind, text, time.time()))

    def _store(self, row: ChatRow) -> ChatRow:
        try:
            self.store.add_chat(self.table_id, row)
        except StaleVersion:
            # Another server process spoke first: take its lines and try once more.
            self.lines.extend(r for r in self.store.chat(self.table_id, HISTORY) if r.number >= self.next)
            self.next = self.lines[-1].number + 1
            row = dataclasses.replace(row, number=self.next)
            self.store.add_chat(self.table_id, row)
        self.next += 1
        self.lines.append(row)
        return row

    def announce(self, text: str, connections: Iterable[Connection]) -> ChatRow | None:
        """Say ``text`` for the table itself (a notice, heard by everyone),
        stored like any line and posted to each of ``connections``; None if
        it could not be stored (logged: a lost notice stops nothing)."""
        try:
            row = self._store(ChatRow(self.next, None, "", NOTICE, text, time.time()))
        except Exception:
            log.exception("table %s: cannot store a notice", self.table_id)
            return None
        message = dumps({"type": "chat", **line_json(row)})
        for conn in list(connections):
            conn.post(message)  # not dropped like chat: it says who plays a seat
        return row

    def silence(self, seat: int, on: bool) -> None:
        (self.silenced.add if on else self.silenced.discard)(seat)
        self.store.set_setting(self.table_id, "silenced", json.dumps(sorted(self.silenced)))
        if on:
            self.silenced_addresses.setdefault(seat, set()).update(self.seen.get(seat, ()))
        else:
            self.silenced_addresses.pop(seat, None)
        self._store_silenced_addresses()

    def _store_silenced_addresses(self) -> None:
        keys = {str(seat): sorted(keys) for seat, keys in sorted(self.silenced_addresses.items()) if keys}
        self.store.set_setting(self.table_id, "silenced_addresses", json.dumps(keys))

    def address_key(self, address: str) -> str:
        """An address as the table keeps it: keyed with the table's secret,
        so the stored value names nobody and differs from table to table."""
        return hmac.new(self.secret, address.encode(), hashlib.sha256).hexdigest()[:32]

    def arrived(self, conn: Connection) -> None:
        """A seated connection's address is its person's: kept for the seat
        (a muted seat's is stored at once), so a mute or a removal can follow
        them if they come back without their seat."""
        if conn.seat is not None:
            self.joined(conn.seat, conn.address)

    def joined(self, seat: int, address: str, *, new_person: bool = False) -> None:
        """``seat``'s person came from ``address``: when their seat connects,
        and when they take it over HTTP (``new_person``: a person who posted
        a join but never opened a socket is followed by a removal all the
        same, and the addresses of whoever sat there before and left are not
        theirs)."""
        if new_person:
            self.seen.pop(seat, None)
        if not address:
            return
        key = self.address_key(address)
        seen = self.seen.setdefault(seat, {})
        seen.pop(key, None)
        seen[key] = None
        while len(seen) > ADDRESSES_PER_SEAT:
            del seen[next(iter(seen))]
        if seat in self.silenced and key not in self.silenced_addresses.get(seat, ()):
            self.silenced_addresses.setdefault(seat, set()).add(key)
            self._store_silenced_addresses()

    def bar(self, seat: int) -> None:
        """The host removes the person at ``seat``: the addresses they came
        from may not chat or take a seat here again (stored)."""
        keys = set(self.seen.pop(seat, {}))
        if keys - self.removed_addresses:
            self.removed_addresses |= keys
            self.store.set_setting(
                self.table_id, "removed_addresses", json.dumps(sorted(self.removed_addresses))
            )

    def barred(self, address: str) -> str | None:
        """Why a person from ``address`` may not take a seat here (a removed
        player came from it), or None."""
        if address and self.address_key(address) in self.removed_addresses:
            return f"The host removed a player {SAME_PLACE}: you can watch this table but not take a seat."
        return None

    def silence_watcher(self, name: str, on: bool) -> None:
        """The host mutes (or unmutes) a watcher for everyone, by the name they chat under."""
        (self.silenced_watchers.add if on else self.silenced_watchers.discard)(name)
        self.store.set_setting(self.table_id, "silenced_watchers", json.dumps(sorted(self.silenced_watchers)))

    def remove(self, token_hash: str, *, left: bool = False) -> None:
        """The token holds no seat or voice here any more: the host removed
        its person, or (``left``) they left by themselves."""
        self.removed.add(token_hash)
        self.store.set_setting(self.table_id, "removed", json.dumps(sorted(self.removed)))
        if left:
            self.left.add(token_hash)
            self.store.set_setting(self.table_id, "left", json.dumps(sorted(self.left)))


class ChatRefused(Exception):
    """A line that is not said; the message says why (to its sender only)."""


def watcher_name(value: object) -> str:
    """The name a watcher chats under (they hold no seat to name them);
    ``ProtocolError`` if it is not a name."""
    return clean_name(value) if value else "A watcher"


__all__ = [
    "CHAT_MAX",
    "NOTICE",
    "REACTIONS",
    "WATCHERS",
    "Bucket",
    "ChatRefused",
    "TableChat",
    "clean_text",
    "hears",
    "line_json",
    "parse_mutes",
    "seat_taken_words",
    "watcher_key",
    "watcher_name",
]
