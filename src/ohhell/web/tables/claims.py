"""Claims at a table: a person says how many of the tricks left they take.

The rules of a claim are the core's (``ohhell.claim``); this module runs them
at a table. The server sees every hand, so:

- a claim the claimer's line makes certain (``line_holds``: the card the
  server plays for them is chosen from their own view) is accepted at once;
- any other claim is put to the others with the claimer's cards shown (as a
  player who claims lays their hand down): bots answer by the cards they can
  see (``bots.claims.accepts_claim``), people accept or refuse within
  ``CLAIM_WAIT`` seconds (no answer is a refusal). While a claim is asked the
  bots wait; a card played meanwhile withdraws it.

A seat makes at most one claim a hand (refused or not: a refusal tells
something of the cards, and a claim tried again and again would tell more),
and no claim is made while another stands in the hand. A bot's refusal does
not say which bot refused. An accepted claim is stored with the table (a
restart keeps it) and goes into the game record; each seat's claim of the
hand, refused or not, is stored too, so neither a restart nor a move of the
table to another process gives a second one. A claim of every trick left,
or one the others agreed to, is settled at once: the rest of the hand is
played out (``settling_play``) so that it comes true. A certain claim of
fewer tricks hands the claimer's cards to the server, which plays them by
the claimer's line so that the claim comes true while the others play on.

Every search here (the certainty, each bot's answer, the settling cards)
runs where the expert thinks (thinking.py's ``Thinkers``: worker processes
under ``ohhell serve``), in the turn of the claimer's address, never on the
event loop; one address has at most ``CLAIMS_PER_ADDRESS`` claims being
worked out at once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol

from ... import (
    Card,
    Claim,
    IllegalActionError,
    Match,
    Phase,
    Play,
    check_claim,
    claim_possible,
    line_holds,
    observe,
    settling_play,
    tricks_left,
)
from ...bots.claims import accepts_claim
from ..errors import TableError
from .thinking import work_owner

if TYPE_CHECKING:
    from ... import Action, GameState
    from ..protocol import Json
    from ..storage.store import Store
    from .connection import Connection
    from .thinking import Thinkers

log = logging.getLogger("ohhell.web")

CLAIM_WAIT: Final = 30.0  # seconds the people at the table have to answer a claim


class _Seat(Protocol):
    seat: int
    kind: str


class _Hub(Protocol):
    store: Store
    thinkers: Thinkers

    def now(self) -> float: ...


class ClaimTable(Protocol):
    """What claims need of a table (table.py's ``LiveTable``)."""

    id: str
    seed: int
    status: str
    lock: asyncio.Lock
    wake: asyncio.Event
    connections: set[Connection]
    owner: str | None

    @property
    def hub(self) -> _Hub: ...

    @property
    def state(self) -> GameState: ...

    @property
    def version(self) -> int: ...

    @property
    def seats(self) -> Sequence[_Seat]: ...

    def bot_plays(self, seat: int, now: float | None = None) -> bool: ...

    async def commit(self, action: Action) -> None: ...

    def broadcast_state(self) -> None: ...

    def broadcast_table(self) -> None: ...

    def resume_clocks(self, paused: float) -> None: ...


@dataclass
class Asking:
    """A claim put to the others, waiting for the people's answers."""

    claim: Claim
    left: int  # tricks left when it was made
    shown: tuple[Card, ...]  # the claimer's cards, laid down
    waiting: set[int]  # people who have not answered yet
    until: float  # the table's clock: no answer by then is a refusal
    owner: str  # the claimer's address: the claim's searches count against it
    since: float = 0.0  # the table's clock when it was put: move clocks stand still from then


class TableClaims:
    """One table's claims: those accepted (stored) and the one being asked."""

    def __init__(self, table: ClaimTable, stored: str | None) -> None:
        self.table = table
        kept = json.loads(stored or "[]")
        if isinstance(kept, list):  # stored before the tries were kept: the accepted claims only
            kept = {"accepted": kept}
        self.accepted: list[Claim] = [Claim(*row) for row in kept.get("accepted", [])]
        self.asking: Asking | None = None
        # (hand, seat): one claim a seat a hand. Stored with the accepted
        # claims, so a restart or another process taking the table keeps it.
        self.tried: set[tuple[int, int]] = {(hand, seat) for hand, seat in kept.get("tried", [])}

    def _store(self) -> None:
        """Keep the accepted claims and this hand's tries with the table."""
        hand = self.table.state.hand_number
        kept = {
            "accepted": [[c.seat, c.tricks, c.at] for c in self.accepted],
            "tried": sorted([h, seat] for h, seat in self.tried if h == hand),
        }
        self.table.hub.store.set_setting(self.table.id, "claims", json.dumps(kept))

    # --- What the table shows ---

    def of_hand(self, seat: int) -> Claim | None:
        """``seat``'s accepted claim in the hand being played, if any."""
        st = self.table.state
        if st.phase is not Phase.PLAY:
            return None
        for claim in self.accepted:
            if claim.seat == seat and claim.at >= st.hand_log_start:
                return claim
        return None

    def plays_for(self, seat: int) -> bool:
        """Does the server play ``seat``'s cards (its certain claim)?"""
        return self.of_hand(seat) is not None

    def shown(self) -> Json | None:
        """The claim being asked and this hand's accepted claims, for the
        state message (a page that connects late sees them too)."""
        st = self.table.state
        out: Json = {
            "made": [
                {"seat": c.seat, "tricks": c.tricks}
                for c in self.accepted
                if c.at >= st.hand_log_start and st.phase is Phase.PLAY
            ]
        }
        if self.asking is not None:
            out["asking"] = self._asked_json(self.asking)
        return out if out["made"] or self.asking is not None else None

    def _asked_json(self, a: Asking) -> Json:
        left_ms = max(0, round((a.until - self.table.hub.now()) * 1000))
        return {
            "seat": a.claim.seat,
            "tricks": a.claim.tricks,
            "left": a.left,
            "cards": [str(c) for c in a.shown],
            "waiting": sorted(a.waiting),
            "ms": left_ms,
        }

    def _tell(self, message: Json) -> None:
        for conn in list(self.table.connections):
            conn.post_json({"type": "claim", **message})

    # --- Making and answering a claim ---

    async def make(self, seat: int, tricks: int) -> None:
        """``seat`` claims ``tricks`` of the tricks left (``TableError`` if not now)."""
        table = self.table
        async with table.lock:
            st = table.state
            if table.status != "playing":
                raise TableError("the match is not being played", "turn")
            try:
                check_claim(st, seat, tricks)
            except IllegalActionError as err:
                raise TableError(str(err), "claim") from None
            if self.asking is not None:
                raise TableError("a claim is being answered: wait for it", "claim")
            if any(self.of_hand(s) is not None for s in range(st.players)):
                raise TableError("a claim stands in this hand already: play it out", "claim")
            if (st.hand_number, seat) in self.tried:
                raise TableError("you have claimed in this hand already: one claim a hand", "claim")
            owner = self._owner(seat)
            with table.hub.thinkers.claiming(owner):
                self.tried.add((st.hand_number, seat))
                self._store()
                await self._decide(Claim(seat, tricks, table.version), owner)

    async def _decide(self, claim: Claim, owner: str) -> None:
        """Accept, ask or refuse a claim just made (the lock is held, so the
        state stands still while the searches run away from the loop)."""
        table = self.table
        st = table.state
        seat, tricks = claim.seat, claim.tricks
        left = tricks_left(st)
        think = table.hub.thinkers
        if await think.work(line_holds, st.clone(), seat, tricks, owner=owner, table=table.id):
            await self._accept(claim, left, agreed=False, owner=owner)
            return
        possible = await think.work(claim_possible, st.clone(), seat, tricks, owner=owner, table=table.id)
        if not possible:
            # Nobody is asked to judge a claim that cannot come true, however the cards are played.
            self._tell(_decided(claim, left, "refused", why="no play of the cards left can end that way"))
            return
        shown = tuple(st.hands[seat])
        people = {
            s.seat
            for s in table.seats
            if s.seat != seat and s.kind == "human" and not table.bot_plays(s.seat)
        }
        bots = [s for s in range(st.players) if s != seat and s not in people]
        for other in bots:
            rng = random.Random(f"ohhell-claim:{table.seed}:{table.version}:{other}")
            obs = observe(st, other)
            yes = await think.work(accepts_claim, obs, seat, tricks, shown, rng, owner=owner, table=table.id)
            if not yes:
                # Which bot refused is not said: its answer comes from its own cards.
                self._tell(_decided(claim, left, "refused", why="the cards do not make it sure"))
                return
        if not people:
            await self._agreed(claim, left, owner)
            return
        now = table.hub.now()
        self.asking = Asking(claim, left, shown, people, now + CLAIM_WAIT, owner, since=now)
        self._tell({"status": "asked", **self._asked_json(self.asking)})
        table.broadcast_table()  # the move clocks stand still while the others answer
        table.wake.set()

    def _stop_asking(self) -> None:
        """The claim being asked is settled or off: the move clocks go on
        from where they stood when it was put (the claimer's time is not
        spent while the others judge their cards)."""
        a = self.asking
        self.asking = None
        if a is not None:
            self.table.resume_clocks(self.table.hub.now() - a.since)

    def _owner(self, seat: int) -> str:
        """The address a claim's searches count against: the claimer's own
        connection's, else the one the table's bots think for."""
        for conn in self.table.connections:
            if conn.seat == seat and conn.address:
                return conn.address
        return work_owner(self.table.connections, self.table.owner) or ""

    async def answer(self, seat: int, accept: bool) -> None:
        """A person's answer to the claim being asked."""
        async with self.table.lock:
            a = self.asking
            if a is None or seat not in a.waiting or self.table.status != "playing":
                raise TableError("there is no claim for you to answer", "claim")
            if not accept:
                self._stop_asking()
                self._tell(_decided(a.claim, a.left, "refused", by=seat))
                self.table.wake.set()
                return
            a.waiting.discard(seat)
            if a.waiting:
                self._tell({"status": "asked", **self._asked_json(a)})
                return
            self._stop_asking()
            # No room asked for: the claim had its room when made, and its
            # last searches wait in the claimer's turn like any other.
            await self._agreed(a.claim, a.left, a.owner)

    def waits(self, now: float) -> float | None:
        """While a claim is asked, the seconds the bots still wait for the
        answers; at the end an unanswered claim is refused (0 then)."""
        a = self.asking
        if a is None:
            return None
        if now < a.until:
            return a.until - now
        self._stop_asking()
        self._tell(_decided(a.claim, a.left, "refused", by=min(a.waiting), why="no answer"))
        return 0.0

    def moved(self) -> None:
        """An action was taken: a claim still being asked is off."""
        self.drop("withdrawn")

    def drop(self, status: str = "withdrawn", why: str = "") -> None:
        """A claim still being asked is off (the play went on, someone left,
        the table ended); the bots go on."""
        a = self.asking
        if a is not None:
            self._stop_asking()
            self._tell(_decided(a.claim, a.left, status, why=why))
            self.table.wake.set()

    async def _agreed(self, claim: Claim, left: int, owner: str) -> None:
        """Everyone agreed: settle it, if any play of the cards can make it."""
        table = self.table
        st = table.state
        possible = await table.hub.thinkers.work(
            claim_possible, st.clone(), claim.seat, claim.tricks, owner=owner, table=table.id
        )
        if not possible:
            why = "no play of the cards left can end that way"
            self._tell(_decided(claim, left, "refused", why=why))
            table.wake.set()
            return
        await self._accept(claim, left, agreed=True, owner=owner)

    async def _accept(self, claim: Claim, left: int, *, agreed: bool, owner: str) -> None:
        """Keep the claim (stored, told) and settle what is settled now. The lock is held."""
        table = self.table
        if table.status != "playing":
            return
        self._tell(_decided(claim, left, "accepted", agreed=agreed))
        if agreed or claim.tricks == left:
            # Settled first, then kept: if a card cannot be stored half way,
            # no claim is kept that the cards played so far do not bear out.
            plays: list[Play] = await table.hub.thinkers.work(
                settling_plays, table.state.clone(), claim, agreed, owner=owner, table=table.id
            )
            for play in plays:
                await table.commit(play)
        self.accepted.append(claim)
        self._store()
        table.broadcast_state()
        table.wake.set()


def settling_plays(state: GameState, claim: Claim, agreed: bool) -> list[Play]:
    """The cards that play out the rest of the hand so that ``claim`` comes
    true (``settling_play`` one after another), on ``state``, a copy: one
    search job for the whole hand instead of one a card."""
    # A referee of its own on the copy checks each card as the table's will;
    # the hand ends before anything is dealt, so its chance is never asked.
    referee = Match(state, random.Random(0), track_turns=False)
    hand = state.hand_number
    plays = []
    while state.hand_number == hand and state.phase is Phase.PLAY:
        play = settling_play(state, claim, agreed=agreed, line=True)
        referee.submit(play)
        plays.append(play)
    return plays


def _decided(
    claim: Claim, left: int, status: str, *, by: int | None = None, agreed: bool = False, why: str = ""
) -> Json:
    return {
        "status": status,
        "seat": claim.seat,
        "tricks": claim.tricks,
        "left": left,
        "by": by,
        "agreed": agreed,
        "why": why,
    }


__all__ = ["CLAIM_WAIT", "TableClaims", "settling_plays"]
