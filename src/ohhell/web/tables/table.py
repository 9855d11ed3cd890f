"""Live tables: the only place where the server runs rules.

A ``LiveTable`` is rules + seats + the game state rebuilt from the stored log
+ the version (the log's length). ``Hub`` (hub.py, a ``Host``) holds the live tables of
this process, loads one from the database on first use (so a restart resumes
every table where its log stops) and drives the bots.

An action is taken only if the connection holds the seat, the action is one of
the seat's legal actions now and its version is not stale; then it is stored,
applied, and every connection is sent its own seat's observation. One
``asyncio.Lock`` per table orders everything that changes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import random
from dataclasses import dataclass
from typing import Protocol

from ... import (
    Action,
    GameState,
    IllegalActionError,
    Match,
    Phase,
    Play,
    Record,
    Rules,
    apply,
    format_action,
    make_rules,
    new_game,
    observe,
    parse_action,
    seeded_chance,
    settling_play,
)
from ...bots import Bot, get_bot
from ...describe import refusal_words
from .. import views
from ..errors import TableError
from ..protocol import Json, dumps
from ..seats import BOT, COVER_LEVEL, HUMAN, OPEN, SEARCHING, bot_name, new_token, token_hash
from ..storage.store import SeatRow, StaleVersion, Store, TableRow
from .chat import ChatRefused, TableChat, hears, line_json
from .claims import TableClaims
from .connection import QUEUE_LIMIT, SPECTATOR_QUEUE_LIMIT, Connection
from .played import Played
from .thinking import Thinkers, work_owner

log = logging.getLogger("ohhell.web")

INVITED = "invited"  # a rematch's seat kept for the person who held it, until they accept or it starts
QUICK = frozenset({"random", "beginner", "intermediate"})  # built-in levels that answer in microseconds
PRESENCE_INTERVAL = 0.5  # seconds: comings and goings are told at most this often
DEFAULT_CLOCK = 60.0  # seconds a person has for each decision before a bot makes it
MAX_CLOCK = 3600.0
LEFT_ALONE = 300.0  # seconds every person may be gone before the bots stop and wait for them


class Host(Protocol):
    """What a table needs of the hub that holds it (hub.py's ``Hub``)."""

    store: Store
    away_after: float  # seconds a person may be gone before a bot plays for them
    bot_delay: float  # seconds before a bot's move, so people can follow
    think: float  # the expert's seconds per decision
    change_grace: float  # seconds a bot bidding next waits for a person's bid change
    thinkers: Thinkers  # where searching bots think

    def now(self) -> float: ...

    def unload(self, table: LiveTable) -> None: ...

    async def reload(self, table: LiveTable) -> None: ...

    def finished(self, table: LiveTable) -> None: ...


def _seed(seed: int, purpose: str, *numbers: int) -> str:
    return views.table_seed(seed, purpose, *numbers)


def _rng(seed: int, purpose: str, *numbers: int) -> random.Random:
    return random.Random(_seed(seed, purpose, *numbers))


@dataclass
class Seat:
    seat: int
    name: str | None
    kind: str  # OPEN, HUMAN, BOT or INVITED
    level: str | None  # a bot's level
    token_hash: str | None
    connections: int = 0
    gone_since: float = 0.0  # the hub's time (Hub.now) when its last connection closed
    covered: bool = False  # a bot plays for the person until they act again (clock, host)

    def row(self) -> SeatRow:
        return SeatRow(self.seat, self.name, self.kind, self.level, self.token_hash)


class LiveTable:
    """One table in memory; see the module docstring."""

    def __init__(self, hub: Host, row: TableRow) -> None:
        self.hub = hub
        self.id = row.id
        self.options = dict(row.options)
        self.rules: Rules = make_rules("pagat", row.options)
        self.seed = row.seed
        self.clock = row.clock  # seconds a person has per decision; 0: no clock
        self.opened = row.opened  # has a person of the table (not a watcher) ever connected?
        self.listed = row.public  # on the home page's list of open tables while a seat is open
        # The match played again ({"table", "by"}), once someone asked for it.
        self.rematch: Json | None = json.loads(row.rematch) if row.rematch else None
        self.status = row.status
        self.host_seat = row.host_seat
        now = hub.now()
        self.seats = [Seat(s.seat, s.name, s.kind, s.level, s.token_hash, gone_since=now) for s in row.seats]
        state = new_game(self.rules)
        for i, line in enumerate(row.lines):
            try:
                apply(state, parse_action(line))
            except (ValueError, IllegalActionError) as err:
                raise ValueError(
                    f"table {self.id}: stored action {i} ({line!r}) cannot be replayed: {err}"
                ) from None
        self.played = Played(self.id, len(row.seats), row.settings)  # hints and own moves, for the ratings
        # The referee. Deals come from the table's seed and the hand number,
        # so a restarted server deals what it would have dealt. After a
        # restart every seat's turn starts again at the stored version (an
        # action chosen before it is stale) and every clock in full
        # (docs/web.md, "The turn clock").
        self.match = Match(
            state, seeded_chance(views.chance_seed(self.seed)), clock=hub.now, change_grace=hub.change_grace
        )
        if self.state.phase is Phase.OVER and self.status != "over":
            # The server stopped between storing the last action and the status.
            self.status = "over"
            hub.store.set_status(self.id, "over")
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        self.spectators = 0
        self.touched = hub.now()  # when anything last happened here (the hub unloads idle tables)
        self._presence: asyncio.TimerHandle | None = None
        self._away: dict[int, asyncio.TimerHandle] = {}  # per seat: when its gone person counts as away
        self._watch: tuple[tuple[int, int | None], float, str] | None = None
        self.wake = asyncio.Event()
        self.driver: asyncio.Task[None] | None = None
        self.bots: dict[tuple[int, str], Bot] = {}
        self.owner: str | None = None  # the address the bots' searches count against (thinking.py)
        self.chat = TableChat(self.id, hub.store, row.settings, hub.now, secret=f"addresses:{self.seed}")
        self.claims = TableClaims(self, row.settings.get("claims"))
        if self.state.phase is Phase.OVER or (self.status == "ended" and self.played.ended_by is not None):
            hub.finished(self)  # the server may have stopped before the match was rated (once a table)

    def watchers_from(self, address: str) -> int:
        """How many of the table's watchers (no seat) came from ``address``."""
        return sum(1 for c in self.connections if c.seat is None and c.address == address)

    # --- What the table looks like ---

    @property
    def state(self) -> GameState:
        """The match so far (read it; only ``self.match`` changes it)."""
        return self.match.state

    @property
    def version(self) -> int:
        return self.match.version

    def is_away(self, seat: Seat, now: float | None = None) -> bool:
        """A person's seat that a bot plays for now: its player has been gone
        longer than the hub allows, let the clock run out, or was replaced by
        the host."""
        if seat.kind != HUMAN or self.status != "playing":
            return False
        if seat.covered:
            return True
        if seat.connections > 0:
            return False
        now = self.hub.now() if now is None else now
        return now - seat.gone_since >= self.hub.away_after

    def left_alone(self, now: float) -> bool:
        """Has every person's seat been without a connection for
        ``LEFT_ALONE`` seconds? Then nobody is there to play with: the
        bots stop until someone comes back (docs/web.md, "Lifetimes")."""
        people = [s for s in self.seats if s.kind == HUMAN]
        return all(s.connections == 0 and now - s.gone_since >= LEFT_ALONE for s in people)

    def deadline(self, seat: int) -> float | None:
        """When the clock of a person choosing at ``seat`` runs out (monotonic)."""
        s = self.seats[seat]
        if not self.clock or s.kind != HUMAN or self.status != "playing" or self.bot_plays(seat):
            return None
        if sum(1 for other in self.seats if other.kind == HUMAN) < 2:
            return None  # alone with bots: nobody waits, so no clock hurries the player
        if seat not in self.match.to_ask() or not self.match.legal(seat):
            return None  # a bid that may still be changed is a right, not a move owed: no clock
        if self.claims.asking is not None:
            return None  # a claim is put to the others: every clock stands still (resume_clocks)
        return self.match.turn_started[seat] + self.clock

    def resume_clocks(self, paused: float) -> None:
        """The clocks stood still for ``paused`` seconds (a claim was put to
        the others): whoever is to move has that time back, and the pages are
        told the clocks again."""
        for seat in self.match.to_ask():
            self.match.turn_started[seat] += paused
        self.broadcast_table()

    def bot_plays(self, seat: int, now: float | None = None) -> bool:
        """Does a bot choose for ``seat`` now (a bot's seat, or an away person's)?"""
        s = self.seats[seat]
        return s.kind == BOT or self.is_away(s, now) or self.claims.plays_for(seat)

    def _changer_holding_up(self, now: float | None = None) -> int | None:
        """R-BID-CHANGE: the person who may still change their bid, when
        only bots are left to ask: they wait for that person, for the
        referee's short grace (``Match.change_holds``) and no longer, so the
        game never waits on an optional button. A person asked next needs no
        waiting for: their own bid ends the changer's chance."""
        change = self.match.change_holds()
        if change is None:
            return None
        if self.seats[change].kind != HUMAN or self.is_away(self.seats[change], now):
            return None
        if not all(self.bot_plays(seat, now) for seat in self.match.to_ask()):
            return None
        return change

    def clocks(self) -> list[Json]:
        """The running clocks, as seat and milliseconds left, for the pages' countdowns.

        Time left rather than a deadline: the server's clock decides, and a
        browser whose clock is wrong still counts down the right time."""
        now = self.hub.now()
        out = []
        for seat in range(self.rules.players):
            end = self.deadline(seat)
            if end is not None:
                out.append({"seat": seat, "ms": max(0, round((end - now) * 1000))})
        return out

    def public(self) -> Json:
        return views.public_json(
            table_id=self.id,
            seats=self.seats,
            host_seat=self.host_seat,
            status=self.status,
            listed=self.listed,
            rematch=self.rematch,
            silenced=sorted(self.chat.silenced),
            silenced_watchers=sorted(self.chat.silenced_watchers),
            options=self.options,
            rules=self.rules,
            version=self.version,
            clock=self.clock,
            clocks=self.clocks(),
            spectators=self.spectators,
            connected=[s.connections > 0 for s in self.seats],
            away=[self.is_away(s) for s in self.seats],
        )

    @property
    def title(self) -> str:
        """The table's name for people: its host's ("Ann's table"), not its id."""
        return views.table_title(self.seats, self.host_seat)

    def can_change(self, seat: int | None) -> bool:
        """R-BID-CHANGE: may ``seat`` still change its bid (and has not kept it)?"""
        return self.match.can_change(seat)

    def watcher_state(self) -> str:
        """The state a newly arrived watcher is sent: made once per version
        (and second, for the clocks), so a crowd arriving costs little."""
        key = (self.version, self.match.kept_at)
        now = self.hub.now()
        cached = self._watch
        if cached is None or cached[0] != key or now - cached[1] > 1.0:
            cached = self._watch = (key, now, self.state_message(None, None))
        return cached[2]

    def state_message(self, seat: int | None, last: Json | None) -> str:
        message = views.state_json(
            self.match,
            seat,
            views.seat_names(self.seats),
            last=last,
            clocks=self.clocks(),
            change_wait=self.change_wait(),
            claims=self.claims.shown(),
        )
        return dumps(message)

    def change_wait(self) -> Json | None:
        """R-BID-CHANGE: while a bot bidding next waits for a person who may
        change their bid, who waits for whom and for how many milliseconds
        more, so every page counts it down ("Bruno bids in 3 s")."""
        changer = self._changer_holding_up()
        left = self.match.change_left()
        to_ask = self.match.to_ask()
        if changer is None or left is None or not to_ask:
            return None
        return {"seat": changer, "next": to_ask[0], "ms": round(left * 1000)}

    def seen_last(self, viewer: int | None) -> Json | None:
        """The last action as ``viewer`` may see it (``views.seen_last``)."""
        return views.seen_last(self.match, viewer)

    # --- Connections ---

    def table_message(self) -> str:
        return dumps(views.table_message(self.public()))

    def broadcast_table(self) -> None:
        if self._presence is not None:  # this message tells the comings and goings too
            self._presence.cancel()
            self._presence = None
        text = self.table_message()
        for conn in list(self.connections):
            conn.post(text)

    def _presence_changed(self) -> None:
        """Someone came or went: tell everyone once the moment is over, so a
        crowd arriving costs one message per connection, not one per pair."""
        if self._presence is None:
            self._presence = asyncio.get_running_loop().call_later(PRESENCE_INTERVAL, self._flush_presence)

    def _flush_presence(self) -> None:
        self._presence = None
        self.broadcast_table()

    def broadcast_state(self) -> None:
        by_seat: dict[int | None, str] = {}
        for conn in list(self.connections):
            if conn.seat not in by_seat:
                by_seat[conn.seat] = self.state_message(conn.seat, self.seen_last(conn.seat))
            conn.post(by_seat[conn.seat])

    def attach(self, conn: Connection) -> None:
        self.touched = self.hub.now()
        if not self.opened and conn.seat is not None:
            # A person of the table has come: from now on its bots play (a
            # watcher's visit alone starts nothing), after a restart too.
            self.opened = True
            self.hub.store.set_setting(self.id, "opened", "yes")
        conn.post_json({"type": "welcome", "seat": conn.seat, "host": conn.host})
        self.connections.add(conn)
        if conn.seat is not None:
            seat = self.seats[conn.seat]
            was_away = self.is_away(seat)
            seat.connections += 1
            self._away_timer(conn.seat, None)
            if was_away:
                log.info("table %s: seat %d is back", self.id, conn.seat)
                self.broadcast_table()  # the bot stops playing for them: everyone at once (this one too)
            else:
                conn.post(self.table_message())
                self._presence_changed()  # like watchers: a seat coming again and again costs one message
        else:
            self.spectators += 1
            conn.post(self.table_message())
            self._presence_changed()  # the others hear of watchers in a while, all at once
        if self.status != "lobby":
            conn.post(self.state_message(conn.seat, None) if conn.seat is not None else self.watcher_state())
        history = self.chat.history(conn)
        if history is not None:
            conn.post(history)
        self.wake.set()

    def detach(self, conn: Connection) -> None:
        if conn not in self.connections:
            return
        self.touched = self.hub.now()
        self.connections.discard(conn)
        if conn.seat is not None:
            seat = self.seats[conn.seat]
            seat.connections -= 1
            if seat.connections == 0:
                seat.gone_since = self.hub.now()
                # Tell everyone when the seat starts being played by a bot
                # (one timer a seat: a player reconnecting again and again
                # must not leave a pile of them).
                loop = asyncio.get_running_loop()
                self._away_timer(
                    conn.seat, loop.call_later(self.hub.away_after + 0.05, self._announce_away, conn.seat)
                )
            self._presence_changed()
        else:
            self.spectators -= 1
            self._presence_changed()
        self.wake.set()
        if self.status == "over" and not self.connections:
            self.hub.unload(self)  # nothing more happens here; it loads again if opened

    def _away_timer(self, seat: int, handle: asyncio.TimerHandle | None) -> None:
        old = self._away.pop(seat, None)
        if old is not None:
            old.cancel()
        if handle is not None:
            self._away[seat] = handle

    def _announce_away(self, seat: int) -> None:
        self._away.pop(seat, None)
        if self.is_away(self.seats[seat]):
            self.broadcast_table()
            self.wake.set()

    def seat_of_token(self, token: str | None) -> int | None:
        if not token:
            return None
        digest = token_hash(token)
        for s in self.seats:
            # A rematch seat kept for its player is theirs only once they accept it.
            if s.kind == HUMAN and s.token_hash is not None and hmac.compare_digest(s.token_hash, digest):
                return s.seat
        return None

    def invited_seat(self, token: str) -> int | None:
        """The rematch seat kept for the holder of ``token``, if any."""
        digest = token_hash(token)
        for s in self.seats:
            if s.kind == INVITED and s.token_hash is not None and hmac.compare_digest(s.token_hash, digest):
                return s.seat
        return None

    # --- Talking, and the host's say over who sits and speaks ---

    def speak(self, conn: Connection, kind: str, text: str, name: str | None = None) -> None:
        """Say one line (chat or a reaction) from ``conn``: stored, then sent to
        every viewer who has not muted its speaker; ``TableError`` if refused."""
        seat = conn.seat
        if seat is not None:
            name = self.seats[seat].name or f"Seat {seat + 1}"
        try:
            row = self.chat.say(conn, name or "A watcher", kind, text)
        except ChatRefused as err:
            raise TableError(str(err), "chat") from None
        except Exception:
            log.exception("table %s: cannot store a chat line", self.id)
            raise TableError("the line could not be stored; try again", "storage") from None
        self.touched = self.hub.now()
        text = dumps({"type": "chat", **line_json(row)})
        for other in list(self.connections):
            if hears(other, row):
                other.post_optional(text)

    def silence(self, seat: int, on: bool) -> None:
        """The host mutes (or unmutes) a player for everyone: their lines are refused."""
        s = self.seats[seat]
        if s.kind != HUMAN or seat == self.host_seat:
            raise TableError(f"seat {seat + 1} is not another person's seat", "seat")
        self.chat.silence(seat, on)
        self.broadcast_table()

    # --- Acting ---

    def changed_seats(self) -> None:
        """Who sits where changed (seating.py): the watchers' cached state goes."""
        self._watch = None

    def _refusal(self, seat: int, action: Action) -> TableError:
        """Why ``action`` is not taken for ``seat`` now, in words for that
        seat's player: the referee's refusal, which tells no seat anything
        it may not know."""
        try:
            self.match.check(action)
        except IllegalActionError as err:
            names = [s.name or f"Seat {s.seat + 1}" for s in self.seats]
            return TableError(refusal_words(err, names, seat), "turn" if err.reason == "turn" else "illegal")
        return TableError(f"{format_action(action)} is not one of your choices now", "illegal")

    async def act(self, seat: int, action: Action, version: int) -> None:
        """A person's action; ``TableError`` (nothing changed) if refused."""
        async with self.lock:
            if self.status != "playing":
                raise TableError("the match is not being played", "turn")
            if version > self.version or version < self.match.turn_since[seat]:
                raise TableError(
                    f"stale action: it was chosen at version {version}, the table is at {self.version}",
                    "stale",
                )
            if action not in self.match.legal(seat):
                raise self._refusal(seat, action)
            if isinstance(action, Play) and self.claims.plays_for(seat):
                raise TableError("your claim stands: your cards are played for you", "claim")
            if self.seats[seat].covered:
                self.uncover(seat)  # the person acts again: the bot steps aside
            await self.commit(action, by="person")

    def uncover(self, seat: int) -> None:
        """The person at ``seat`` is back in charge of it."""
        s = self.seats[seat]
        if s.covered:
            s.covered = False
            self._watch = None  # the clocks changed
            self.match.restart_clock(seat)  # a fresh clock for the choice at hand
            self.broadcast_table()
            self.wake.set()

    async def cover(self, seat: int) -> None:
        """A bot plays ``seat`` for its person from now on (the host's
        "replace with a bot now", or the clock running out), until they act."""
        s = self.seats[seat]
        if s.kind != HUMAN:
            raise TableError(f"seat {seat + 1} is not a person's seat", "seat")
        if self.status != "playing":
            raise TableError("the match is not being played", "turn")
        if not s.covered:
            s.covered = True
            self._watch = None  # the clocks changed
            log.info("table %s: a bot covers seat %d", self.id, seat)
            self.broadcast_table()
            self.wake.set()

    async def keep(self, seat: int) -> None:
        async with self.lock:
            if not self.can_change(seat):
                raise TableError("there is no bid of yours that could still be changed", "turn")
            self.match.keep_bid(seat)
            text = self.state_message(seat, self.seen_last(seat))  # can_change is false now
            for conn in list(self.connections):
                if conn.seat == seat:
                    conn.post(text)
            self.wake.set()

    async def commit(self, action: Action, by: str | None = None) -> None:
        """Store, then apply and send, one legal action (the lock is held).
        ``by``: "person" when the seat's person chose it, "cover" when a bot
        chose it for a person's seat (counted for the ratings).

        The state changes only once the action is stored, so nothing that
        reads the table meanwhile (a new connection, a hint) can see an
        action the database does not hold. Nothing is stored once the match
        stopped (the host ended it): an answer still on its way then is
        dropped.
        """
        if self.status != "playing":
            raise TableError("the match is not being played", "turn")
        st = self.state
        version = self.version
        # R-DEVILS-BRIDGE: a blind play is stored with its real card, as the log holds it.
        logged = self.match.logged(action)
        try:
            self.hub.store.append(self.id, version, format_action(logged))
        except StaleVersion:
            # Another process stored this version first: our state is behind.
            await self.hub.reload(self)
            raise TableError("stale action: the table moved on; here is where it stands", "stale") from None
        except Exception:
            log.exception("table %s: cannot store version %d", self.id, version)
            raise TableError("the action could not be stored; try again", "storage") from None
        hand = st.hand_number
        self.match.submit(action)
        self.claims.moved()  # a claim being asked is off once the play goes on
        seat = getattr(action, "seat", None)
        if by is not None and isinstance(seat, int):
            self.played.count(seat, by)
        if st.hand_number != hand or st.phase is Phase.OVER:
            self.played.keep(self.hub.store)
        self._after_change()
        if st.phase is Phase.OVER and self.status != "over":
            self.status = "over"
            self.hub.store.set_status(self.id, "over")
            self.hub.finished(self)
            self.broadcast_table()

    def _after_change(self) -> None:
        self.touched = self.hub.now()
        self.broadcast_state()
        self.wake.set()

    # --- The bots and the dealer ---

    def _automatic(self, now: float) -> tuple[int | None, float] | None:
        """Who acts without a person now: (seat or None for chance, delay),
        or None when the table waits for a person. A seat waiting for its
        player to come back gives the delay until it counts as away."""
        st = self.state
        if self.status != "playing" or st.phase is Phase.OVER:
            return None
        if st.is_chance:
            return (None, 0.0)
        if not self.opened or self.left_alone(now):
            # No person of the table has ever come (a watcher's visit does not
            # count), or every one has been gone for long: its bots wait, so
            # tables made and forgotten (or made by a flood) cost no work. A
            # person coming back wakes the table and play goes on.
            return None
        claim_wait = self.claims.waits(now)
        if claim_wait is not None:  # a claim is put to the people here: the bots wait for the answers
            return (-1, claim_wait)
        if self._changer_holding_up(now) is not None:
            # R-BID-CHANGE: the person may still change the bid: the bots
            # wait the short grace the page counts down, then bid.
            left = self.match.change_left() or 0.0
            return (-1, left)
        waits: list[float] = []
        for seat in self.match.to_ask():
            s = self.seats[seat]
            if self.bot_plays(seat, now):
                return (seat, self.hub.bot_delay)
            end = self.deadline(seat)
            if end is not None:
                if now >= end:
                    s.covered = True  # the clock ran out: a bot decides, and goes on until they act
                    log.info("table %s: seat %d ran out of time", self.id, seat)
                    self.broadcast_table()
                    return (seat, 0.0)
                waits.append(end - now)
            if s.connections == 0:
                waits.append(s.gone_since + self.hub.away_after - now)
        if waits:
            return (-1, max(0.0, min(waits)))  # -1: look again after the delay
        return None

    def _level(self, seat: int) -> str:
        s = self.seats[seat]
        return s.level if s.kind == BOT and s.level else COVER_LEVEL

    def _bot(self, seat: int) -> Bot:
        level = self._level(seat)
        key = (seat, level)
        if key not in self.bots:
            self.bots[key] = get_bot(level)
        return self.bots[key]

    async def drive(self) -> None:
        """Deal and play the bots' (and away seats') turns until cancelled."""
        while True:
            self.wake.clear()
            step = self._automatic(self.hub.now())
            if step is None:
                await self.wake.wait()
                continue
            seat, delay = step
            if seat == -1:  # a person is gone: look again when they would count as away
                try:
                    await asyncio.wait_for(self.wake.wait(), delay + 0.01)
                except TimeoutError:
                    self.broadcast_table()  # now the page says a bot plays the seat
                continue
            if delay > 0:
                # A plain pause, not cut short by other events, so people can follow.
                version = self.version
                await asyncio.sleep(delay)
                again = self._automatic(self.hub.now())
                if self.version != version or again is None or again[0] != seat:
                    continue
            version = self.version
            try:
                await self._step(seat)
            except Exception:  # a bug must not stop the table for good
                log.exception("table %s: automatic step failed", self.id)
            # Always give the other tables a turn; if nothing moved (say the
            # database refused the write), wait before trying again.
            await asyncio.sleep(0 if self.version != version else 1.0)

    async def _step(self, seat: int | None) -> None:
        version = self.version
        if seat is None:
            async with self.lock:
                if self.version == version and self.state.is_chance:
                    with contextlib.suppress(TableError):
                        await self.commit(self.match.chance_action())
            return
        level = self._level(seat)
        obs = observe(self.state, seat)
        seed = _seed(self.seed, "bot", version, seat)
        claim = self.claims.of_hand(seat)
        action: Action
        if claim is not None:
            # The seat's certain claim: its cards are played so the claim comes
            # true, by the claimer's line, from their own view (no search).
            action = settling_play(self.state, claim, line=True)
        elif level in SEARCHING:
            # A search takes the server's --think seconds: away from the loop.
            # Its turn at the workers is its people's address's (thinking.py).
            self.owner = work_owner(self.connections, self.owner)
            action = await self.hub.thinkers.choose(
                level, {"seconds": self.hub.think}, obs, seed, owner=self.owner or "", table=self.id
            )
        elif level in QUICK:
            action = self._bot(seat).choose(obs, random.Random(seed))
        else:
            # A bot added from outside may take its time: it thinks in a
            # thread, so the other tables' events go on meanwhile.
            action = await asyncio.to_thread(self._bot(seat).choose, obs, random.Random(seed))
        async with self.lock:
            if self.status != "playing":
                return  # the host ended the table while the bot thought: its answer is dropped
            if self.version != version or action not in self.match.legal(seat):
                return  # the table moved on while the bot thought: ask again
            if not self.bot_plays(seat):
                return  # the player came back (or acted) while the bot thought: the choice is theirs
            if self.claims.asking is not None:
                return  # a claim was put to the table while the bot thought: it waits for the answers
            with contextlib.suppress(TableError):
                await self.commit(action, by="cover" if self.seats[seat].kind == HUMAN else None)

    # --- The lobby ---

    def record(self) -> Record:
        return views.table_record(self.match, self.seats, self.id, self.claims.accepted, "ohhell serve")


def check_clock(seconds: float) -> float:
    """A turn clock in seconds: 0 (none) or up to an hour."""
    if not 0 <= seconds <= MAX_CLOCK:
        raise TableError(f"the clock must be from 0 (no clock) to {MAX_CLOCK:g} seconds, not {seconds:g}")
    return float(seconds)


__all__ = [
    "BOT",
    "COVER_LEVEL",
    "HUMAN",
    "INVITED",
    "OPEN",
    "QUEUE_LIMIT",
    "SPECTATOR_QUEUE_LIMIT",
    "Connection",
    "LiveTable",
    "Seat",
    "TableError",
    "bot_name",
    "check_clock",
    "new_token",
    "token_hash",
]
