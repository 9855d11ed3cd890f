"""One table of the offline site: rules, seats, the referee and the bots,
in the worker's one thread.

It holds what ``tables/table.py``'s ``LiveTable`` holds, less what a
browser alone has no use for (a database, other processes, the turn clock,
watchers' quotas): the referee is the core's ``Match``, every message is
built by ``web/views.py`` exactly as the server builds it, and the bots choose
from ``observe(state, seat)`` with the seeds the server uses, so the same
table seed deals the same cards and the same quick bots play the same cards.

Nothing here waits or sleeps: ``LocalServer.step`` asks each table what is
due (``due``) and the worker calls it again when the time comes.
"""

from __future__ import annotations

import dataclasses
import hmac
import random
from collections.abc import Callable
from typing import Any

from ... import (
    CHANGE_GRACE,
    Action,
    IllegalActionError,
    Match,
    Phase,
    Record,
    Rules,
    apply,
    format_action,
    make_rules,
    new_game,
    observe,
    parse_action,
    seeded_chance,
)
from ...bots import Bot, get_bot
from ...describe import refusal_words
from .. import views
from ..errors import TableError
from ..protocol import Json, dumps
from ..seats import BOT, COVER_LEVEL, HUMAN, OPEN, SEARCHING, bot_name, new_token, token_hash

Send = Callable[[str], None]


@dataclasses.dataclass
class Seat:
    seat: int
    name: str | None
    kind: str  # OPEN, HUMAN or BOT
    level: str | None
    token_hash: str | None
    connections: int = 0
    covered: bool = False  # a bot plays for the person until they act again ("replace")


@dataclasses.dataclass(eq=False)
class Conn:
    """One page's socket: its seat (None: watching) and where its messages go."""

    number: int
    seat: int | None
    host: bool
    send: Send
    muted: set[int] = dataclasses.field(default_factory=set)


class LocalTable:
    """One table of the offline site; see the module docstring."""

    def __init__(
        self,
        table_id: str,
        options: dict[str, str],
        seed: int,
        seats: list[Seat],
        host_seat: int,
        *,
        status: str = "lobby",
        lines: list[str] | None = None,
        rematch: Json | None = None,
        opened: bool = False,
        now: Callable[[], float],
        bot_delay: float = 0.6,
        change_grace: float = CHANGE_GRACE,
    ) -> None:
        self.id = table_id
        self.options = dict(options)
        self.rules: Rules = make_rules("pagat", options)
        self.seed = seed
        self.seats = seats
        self.host_seat = host_seat
        self.status = status
        self.rematch = rematch
        self.opened = opened  # has a person of the table connected? Before, its bots wait (as on the server)
        state = new_game(self.rules)
        for line in lines or []:
            apply(state, parse_action(line))
        self.bot_delay = bot_delay  # seconds before a bot's move, so the page can follow
        self.match = Match(
            state, seeded_chance(views.chance_seed(seed)), clock=now, change_grace=change_grace
        )
        self.connections: list[Conn] = []
        self.bots: dict[tuple[int, str], Bot] = {}
        self.due: tuple[int, float] | None = None  # (version, when) a bot's paced move is due
        self.chat: list[Json] = []

    # --- What the table looks like (views.py, as the server) ---

    @property
    def version(self) -> int:
        return self.match.version

    def names(self) -> list[str]:
        return views.seat_names(self.seats)

    def public(self) -> Json:
        return views.public_json(
            table_id=self.id,
            seats=self.seats,
            host_seat=self.host_seat,
            status=self.status,
            listed=False,
            rematch=self.rematch,
            silenced=[],
            silenced_watchers=[],
            options=self.options,
            rules=self.rules,
            version=self.version,
            clock=0.0,  # no turn clock offline: nobody else waits (docs/site.md)
            clocks=[],
            spectators=sum(1 for c in self.connections if c.seat is None),
            connected=[s.connections > 0 for s in self.seats],
            away=[self.is_away(s) for s in self.seats],
        )

    def is_away(self, seat: Seat) -> bool:
        return seat.kind == HUMAN and self.status == "playing" and seat.covered

    def state_message(self, seat: int | None) -> str:
        last = views.seen_last(self.match, seat)
        return dumps(
            views.state_json(
                self.match,
                seat,
                self.names(),
                last=last,
                clocks=[],
                change_wait=self.change_wait(),
                claims=None,
            )
        )

    def first_state(self, seat: int | None) -> str:
        """The state a page is sent when it connects: no last action, as on the server."""
        message = views.state_json(
            self.match, seat, self.names(), last=None, clocks=[], change_wait=self.change_wait(), claims=None
        )
        return dumps(message)

    def record(self) -> Record:
        return views.table_record(self.match, self.seats, self.id, [], "ohhell site")

    # --- Connections ---

    def broadcast_table(self) -> None:
        text = dumps(views.table_message(self.public()))
        for conn in list(self.connections):
            conn.send(text)

    def broadcast_state(self) -> None:
        by_seat: dict[int | None, str] = {}
        for conn in list(self.connections):
            if conn.seat not in by_seat:
                by_seat[conn.seat] = self.state_message(conn.seat)
            conn.send(by_seat[conn.seat])

    def attach(self, conn: Conn) -> None:
        conn.send(dumps({"type": "welcome", "seat": conn.seat, "host": conn.host}))
        self.connections.append(conn)
        if conn.seat is not None:
            self.seats[conn.seat].connections += 1
            self.opened = True
        conn.send(dumps(views.table_message(self.public())))
        if self.status != "lobby":
            conn.send(self.first_state(conn.seat))
        if self.chat:
            conn.send(dumps({"type": "chat_history", "lines": list(self.chat)}))

    def detach(self, conn: Conn) -> None:
        if conn in self.connections:
            self.connections.remove(conn)
            if conn.seat is not None:
                self.seats[conn.seat].connections -= 1

    def seat_of_token(self, token: str | None) -> int | None:
        if not token:
            return None
        digest = token_hash(token)
        for s in self.seats:
            if s.kind == HUMAN and s.token_hash is not None and hmac.compare_digest(s.token_hash, digest):
                return s.seat
        return None

    # --- Acting ---

    def act(self, seat: int, action: Action, version: int) -> None:
        """A person's action; ``TableError`` (nothing changed) if refused, in the server's words."""
        if self.status != "playing":
            raise TableError("the match is not being played", "turn")
        if version > self.version or version < self.match.turn_since[seat]:
            raise TableError(
                f"stale action: it was chosen at version {version}, the table is at {self.version}", "stale"
            )
        if action not in self.match.legal(seat):
            try:
                self.match.check(action)
            except IllegalActionError as err:
                code = "turn" if err.reason == "turn" else "illegal"
                raise TableError(refusal_words(err, self.names(), seat), code) from None
            raise TableError(f"{format_action(action)} is not one of your choices now", "illegal")
        if self.seats[seat].covered:
            self.seats[seat].covered = False  # the person acts again: the bot steps aside
            self.broadcast_table()
        self.commit(action)

    def keep(self, seat: int) -> None:
        if not self.match.can_change(seat):
            raise TableError("there is no bid of yours that could still be changed", "turn")
        self.match.keep_bid(seat)
        text = self.state_message(seat)
        for conn in self.connections:
            if conn.seat == seat:
                conn.send(text)

    def commit(self, action: Action) -> None:
        st = self.match.state
        self.match.submit(action)
        self.due = None
        self.broadcast_state()
        if st.phase is Phase.OVER and self.status != "over":
            self.status = "over"
            self.broadcast_table()
        self.deal()

    def deal(self) -> None:
        """Chance's turn (the draw for dealer, a deal) is taken at once, as
        the server's dealer takes it: no pause, and no person awaited."""
        if self.status == "playing" and self.match.state.is_chance:
            self.commit(self.match.chance_action())

    # --- The dealer and the bots ---

    def bot_plays(self, seat: int) -> bool:
        s = self.seats[seat]
        return s.kind == BOT or self.is_away(s)

    def changer_holding_up(self) -> int | None:
        """R-BID-CHANGE: the person who may still change their bid while only
        bots are left to ask: they wait the referee's short grace for them
        (``Match.change_holds``), as on the server."""
        change = self.match.change_holds()
        if change is None or self.bot_plays(change) or self.seats[change].kind != HUMAN:
            return None
        if not all(self.bot_plays(seat) for seat in self.match.to_ask()):
            return None
        return change

    def change_wait(self) -> Json | None:
        """Who waits for whom and how many milliseconds more (the server's ``change_wait``)."""
        changer = self.changer_holding_up()
        left = self.match.change_left()
        to_ask = self.match.to_ask()
        if changer is None or left is None or not to_ask:
            return None
        return {"seat": changer, "next": to_ask[0], "ms": round(left * 1000)}

    def automatic(self) -> tuple[int | None, float] | None:
        """Who acts without a person now, and after how long: (seat, or None
        for chance; seconds), seat -1 to look again after the wait; None
        when the table waits for a person."""
        st = self.match.state
        if self.status != "playing" or st.phase is Phase.OVER:
            return None
        if st.is_chance:
            return (None, 0.0)
        if not self.opened:
            return None  # as on the server: nobody has come, the bots wait
        if self.changer_holding_up() is not None:
            return (-1, self.match.change_left() or 0.0)
        for seat in self.match.to_ask():
            if self.bot_plays(seat):
                return (seat, self.bot_delay)
        return None

    def level(self, seat: int) -> str:
        s = self.seats[seat]
        return s.level if s.kind == BOT and s.level else COVER_LEVEL

    def choose(self, seat: int, think: float) -> Action:
        """The bot's move at ``seat``, from its own observation, seeded as on the server."""
        level = self.level(seat)
        options: dict[str, Any] = {"seconds": think} if level in SEARCHING else {}
        key = (seat, level)
        if key not in self.bots or options:
            self.bots[key] = get_bot(level, **options)
        obs = observe(self.match.state, seat)
        seed = views.table_seed(self.seed, "bot", self.version, seat)
        return self.bots[key].choose(obs, random.Random(seed))

    # --- Kept in the browser ---

    def to_json(self) -> Json:
        return {
            "id": self.id,
            "options": self.options,
            "seed": self.seed,
            "host_seat": self.host_seat,
            "status": self.status,
            "rematch": self.rematch,
            "opened": self.opened,
            "seats": [[s.name, s.kind, s.level, s.token_hash] for s in self.seats],
            # R-DEVILS-BRIDGE: the log as stored holds a blind play's real card.
            "lines": [format_action(a) for a in self.match.state.log],
        }

    @classmethod
    def from_json(cls, data: Json, **settings: Any) -> LocalTable:
        seats = [Seat(i, name, kind, level, th) for i, (name, kind, level, th) in enumerate(data["seats"])]
        return cls(
            str(data["id"]),
            dict(data["options"]),
            int(data["seed"]),
            seats,
            int(data["host_seat"]),
            status=str(data["status"]),
            lines=list(data["lines"]),
            rematch=data.get("rematch"),
            opened=bool(data.get("opened", False)),
            **settings,
        )


__all__ = ["BOT", "HUMAN", "OPEN", "Conn", "LocalTable", "Seat", "bot_name", "new_token", "token_hash"]
