"""The referee: one match, for any mix of seats.

``Match`` is the one object above ``game.py`` that changes a ``GameState``.
Every driver goes through it: the terminal session, the web table, bot
matches and tournaments, random simulation and the research environment.
It decides, from the core alone,

- what the match waits for (``waiting``): chance (a draw or a deal), the
  seats whose turn it is (``game.seats_to_ask``), or nothing (the end);
- whether a seat's action is taken (``check``/``submit``), refusing with an
  ``IllegalActionError`` that carries the seat, the action and the rule, and
  that never tells a seat a card it may not see;
- R-BID-CHANGE's window: who may still change a bid, whether they kept it,
  and how long the next bidder waits for them (``change_grace``: a short,
  bounded wait that every front end shows, never a wait for a button);
- the turn clock's inputs: since which version and since when (``clock``)
  each seat's choices have been what they are;
- what each seat may see of the last action (``seen``, via ``view``).

Asking is the driver's: ``run`` asks ``Player`` objects (bots, or anything
with ``choose(observation, rng)``) in turn and stops where a person is due;
the terminal and the web ask people their own way, then ``submit``.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from .actions import CHANCE, Action, Bid, ChangeBid, Deal, DrawForDealer, NameTrump, Play
from .chance import chance_action
from .game import (
    GameState,
    HandResult,
    IllegalActionError,
    Phase,
    Trick,
    apply,
    check,
    legal_actions,
    new_game,
    seats_to_ask,
)
from .rules import Bidding, Rules
from .view import Observation, SeenAction, observe, seen_action

CHANGE_GRACE: Final = 3.0
"""Seconds the next bidder, when a bot, gives a person who may still change
their bid (R-BID-CHANGE) before bidding: long enough to see the bid and
change it, short enough that the game goes on without anyone pressing a
button. Front ends show it counting down; "keep" ends it at once."""


class Player(Protocol):
    """Whatever chooses for a seat from what that seat may know (a bot)."""

    def choose(self, obs: Observation, rng: random.Random) -> Action: ...


Chance = random.Random | Callable[[GameState], random.Random]
"""Where shuffles come from: one stream, or a generator made for each chance
action (so a match rebuilt from its log deals what it would have dealt)."""


def seeded_chance(prefix: str) -> Callable[[GameState], random.Random]:
    """Chance from a string: each draw round and each hand's deal has its own
    generator, the same in every process (random.seed hashes a string with
    SHA-512, so PYTHONHASHSEED plays no part)."""

    def make(state: GameState) -> random.Random:
        if state.phase is Phase.DRAW:
            return random.Random(f"{prefix}:draw:{len(state.draws)}")
        return random.Random(f"{prefix}:deal:{state.hand_number}")

    return make


@dataclass(frozen=True, slots=True)
class Waiting:
    """What the match waits for: ``chance``, the seats ``to_ask``, or ``over``."""

    chance: bool
    to_ask: tuple[int, ...]
    over: bool


@dataclass(frozen=True, slots=True)
class Event:
    """One applied action as one seat may see it (``Match.last_event``).

    ``action`` is ``None`` where that seat may not see it: a sealed bid
    (R-BID-SIMULTANEOUS) or a deal (the seat's cards are in its observation).
    A ``Play`` always names the real card, also one played unseen under
    Devil's Bridge: once played, a card is face up on the table.
    """

    seat: int  # CHANCE for a draw or a deal
    kind: str  # "draw", "deal", "bid", "change", "trump" or "play"
    action: Action | None
    hand_number: int  # 0-based: the hand the action belongs to
    trick: Trick | None = None  # the trick this play completed
    result: HandResult | None = None  # the hand this play finished
    dealer: int | None = None  # for "draw": the first dealer once the draw decides it


class Match:
    """The referee of one match; see the module docstring."""

    def __init__(
        self,
        state: GameState,
        chance: Chance,
        *,
        clock: Callable[[], float] = time.monotonic,
        track_turns: bool = True,
        change_grace: float = CHANGE_GRACE,
    ) -> None:
        if not 0 <= change_grace <= 3600:
            raise ValueError(f"the wait for a bid change must be 0 to 3600 seconds, not {change_grace:g}")
        self.state = state
        self.change_grace = change_grace
        self._chance = chance
        self._clock = clock
        # With track_turns, every seat's choices are worked out after each
        # action, to know when they changed (stale actions, turn clocks);
        # without (bot matches, simulation), only the seats asked are.
        self._track = track_turns
        n = state.players
        now = clock()
        self._legal: list[tuple[Action, ...] | None] = [
            tuple(legal_actions(state, s)) if track_turns else None for s in range(n)
        ]
        self._legal_at = self.version
        # The version at which each seat's choices last changed: an action
        # chosen before it was chosen for another position (stale). After a
        # rebuild every seat starts again at the current version.
        self.turn_since = [self.version] * n
        # When each seat's choices last changed, on ``clock``: a turn
        # clock's start. A rebuilt match gives every clock a fresh start.
        self.turn_started = [now] * n
        self.kept_at: int | None = None  # R-BID-CHANGE: the version at which the changer kept its bid
        # R-BID-CHANGE: when (on ``clock``) the window of the seat that may
        # still change its bid opened; a rebuilt match opens it afresh.
        self._change_opened = now
        self._before: tuple[int, int] | None = None  # hand number and results before the last submit

    @classmethod
    def new(
        cls,
        rules: Rules,
        chance: Chance,
        *,
        clock: Callable[[], float] = time.monotonic,
        track_turns: bool = True,
        change_grace: float = CHANGE_GRACE,
    ) -> Match:
        return cls(new_game(rules), chance, clock=clock, track_turns=track_turns, change_grace=change_grace)

    # --- What the match waits for ---

    @property
    def rules(self) -> Rules:
        return self.state.rules

    @property
    def version(self) -> int:
        """Actions taken so far (draws and deals included)."""
        return len(self.state.log)

    @property
    def is_over(self) -> bool:
        return self.state.phase is Phase.OVER

    def to_ask(self) -> tuple[int, ...]:
        """Whose turn it is (``game.seats_to_ask``); empty under chance or at the end."""
        if self.state.is_chance or self.is_over:
            return ()
        return seats_to_ask(self.state)

    def waiting(self) -> Waiting:
        return Waiting(self.state.is_chance, self.to_ask(), self.is_over)

    def legal(self, seat: int) -> tuple[Action, ...]:
        """The actions ``seat`` may take now (none if it may not act)."""
        if type(seat) is not int or not 0 <= seat < self.state.players:
            return ()
        if self._legal_at != self.version:  # untracked: the state moved on since last asked
            self._legal = [None] * self.state.players
            self._legal_at = self.version
        legal = self._legal[seat]
        if legal is None:
            legal = self._legal[seat] = tuple(legal_actions(self.state, seat))
        return legal

    def actors(self) -> tuple[int, ...]:
        """Every seat that may act now: ``to_ask`` and a seat that may still change its bid."""
        return tuple(s for s in range(self.state.players) if self.legal(s))

    def observe(self, seat: int | None) -> Observation:
        return observe(self.state, seat)

    def seen(self, viewer: int | None, index: int = -1) -> SeenAction | None:
        """Log entry ``index`` (the last by default) as ``viewer`` may see it."""
        if not self.state.log:
            return None
        return seen_action(self.state, index, viewer)

    def last_event(self, viewer: int | None) -> Event | None:
        """The action last taken through ``submit``, as ``viewer`` may see it,
        with the trick and the hand it finished; None before any."""
        if self._before is None or not self.state.log:
            return None
        st = self.state
        hand_number, results = self._before
        done = st.log[-1]  # a blind play is logged with its real card
        seen = self.seen(viewer)  # the one redaction point
        seat = CHANCE if isinstance(done, Deal | DrawForDealer) else done.seat
        event = Event(seat=seat, kind="", action=done, hand_number=hand_number)
        if isinstance(done, DrawForDealer):
            dealer = st.dealer if st.phase is not Phase.DRAW else None
            return dataclasses.replace(event, kind="draw", dealer=dealer)
        if isinstance(done, Deal):
            return dataclasses.replace(event, kind="deal", action=None)
        if isinstance(done, Bid | ChangeBid):
            kind = "bid" if isinstance(done, Bid) else "change"
            return dataclasses.replace(event, kind=kind, action=done if seen == done else None)
        if isinstance(done, NameTrump):
            return dataclasses.replace(event, kind="trump")
        trick = st.tricks[-1] if not st.trick and st.tricks else None
        result = st.results[-1] if len(st.results) > results else None
        return dataclasses.replace(event, kind="play", trick=trick, result=result)

    def waited(self, seat: int) -> float:
        """Seconds, on the clock, since ``seat``'s choices last changed."""
        return self._clock() - self.turn_started[seat]

    def restart_clock(self, seat: int | None = None) -> None:
        """Give ``seat``'s choice at hand a fresh start (a person took their
        seat back), or every seat's (the match starts)."""
        now = self._clock()
        for s in range(self.state.players) if seat is None else (seat,):
            self.turn_started[s] = now

    # --- R-BID-CHANGE: a right, not a turn ---

    def can_change(self, seat: int | None) -> bool:
        """May ``seat`` still change its bid (and has it not kept it)?"""
        st = self.state
        return (
            seat is not None
            and st.phase is Phase.BID
            and st.rules.bidding is Bidding.SEQUENTIAL
            and st.change_seat == seat
            and st.to_act != seat
            and self.kept_at != self.version
        )

    def keep_bid(self, seat: int) -> None:
        """``seat`` keeps the bid it could still change: nobody waits for it now."""
        if not self.can_change(seat):
            raise IllegalActionError(
                "there is no bid of yours that could still be changed",
                seat=seat,
                rule="R-BID-CHANGE",
                reason="no-change",
            )
        self.kept_at = self.version

    def change_left(self) -> float | None:
        """Seconds the next bidder still waits for the seat that may change its
        bid (``change_grace`` from its bid, 0 once over), or None when no
        seat may: then nobody waits for a change.

        The wait is the driver's to honour, for a bot bidding next; a person
        bidding next simply bids when ready, which ends the chance to change."""
        seat = self.state.change_seat
        if not self.can_change(seat):
            return None
        return max(0.0, self._change_opened + self.change_grace - self._clock())

    def change_holds(self) -> int | None:
        """The seat whose chance to change its bid still holds the next bidder
        back (within ``change_grace``), or None."""
        left = self.change_left()
        return self.state.change_seat if left is not None and left > 0 else None

    # --- Taking actions ---

    def chance_action(self) -> DrawForDealer | Deal:
        """The next draw or deal, not yet applied (a store may write it first)."""
        rng = self._chance if isinstance(self._chance, random.Random) else self._chance(self.state)
        return chance_action(self.state, rng)

    def deal(self) -> DrawForDealer | Deal:
        """Apply the next chance action and return it."""
        action = self.chance_action()
        self.submit(action)
        return action

    def check(self, action: Action) -> None:
        """Raise ``IllegalActionError`` if ``action`` is not taken now; change nothing.

        A seat's action is refused with what that seat may know: under
        R-DEVILS-BRIDGE a named card is not checked against a hand its owner
        cannot see, which would tell them what they hold."""
        if isinstance(action, Deal | DrawForDealer):
            check(self.state, action)
            return
        seat = getattr(action, "seat", None)
        if type(seat) is not int or not 0 <= seat < self.state.players:
            check(self.state, action)  # names what is wrong with the seat
            return
        legal = self.legal(seat)
        if action in legal:
            return
        if not legal:
            raise IllegalActionError("it is not your turn", seat=seat, action=action, reason="turn")
        if isinstance(action, Play) and legal == (Play(seat, None),):
            raise IllegalActionError(
                "this hand is played blind: play the card you cannot see",
                seat=seat,
                action=action,
                rule="R-DEVILS-BRIDGE",
                reason="blind",
            )
        check(self.state, action)  # the rule's own refusal
        raise IllegalActionError("that is not one of your choices now", seat=seat, action=action)

    def logged(self, action: Action) -> Action:
        """``action`` as the log will hold it: a blind play with its real card."""
        if isinstance(action, Play) and action.card is None:
            return Play(action.seat, self.state.hands[action.seat][0])
        return action

    def submit(self, action: Action) -> Action:
        """Take ``action`` if legal now and return it as logged; otherwise raise
        ``IllegalActionError`` and change nothing."""
        self.check(action)
        before = (self.state.hand_number, len(self.state.results))
        apply(self.state, action)
        self._before = before
        if isinstance(action, Bid) and self.state.change_seat == action.seat:
            self._change_opened = self._clock()  # R-BID-CHANGE: the window opens with the bid
        if self._track:
            version, now = self.version, self._clock()
            for s in range(self.state.players):
                legal = tuple(legal_actions(self.state, s))
                if legal != self._legal[s]:
                    self._legal[s] = legal
                    self.turn_since[s] = version
                    self.turn_started[s] = now
            self._legal_at = version
        return self.state.log[-1]

    # --- Asking players ---

    def step(
        self,
        players: Sequence[Player | None],
        rng_for: Callable[[int], random.Random],
        *,
        timings: list[list[float]] | None = None,
    ) -> bool:
        """Take one action without a person: a deal, or the choice of the first
        seat to ask that a ``Player`` holds (``None`` in ``players``: a person,
        asked elsewhere). Returns False when the match is over or waits for a
        person. ``rng_for(seat)`` gives the generator the player draws from."""
        if self.is_over:
            return False
        if self.state.is_chance:
            self.deal()
            return True
        for seat in self.to_ask():
            player = players[seat]
            if player is None:
                continue
            obs = observe(self.state, seat)
            start = time.perf_counter()
            action = player.choose(obs, rng_for(seat))
            if timings is not None:
                timings[seat].append(time.perf_counter() - start)
            if action not in obs.legal_actions:
                raise IllegalActionError(
                    f"not legal now (hand {self.state.hand_number + 1}, phase {self.state.phase})",
                    seat=seat,
                    action=action,
                    reason="player",
                )
            self.submit(action)
            return True
        return False

    def run(
        self,
        players: Sequence[Player | None],
        rng_for: Callable[[int], random.Random],
        *,
        timings: list[list[float]] | None = None,
    ) -> GameState:
        """``step`` until the match is over or waits for a person; the state."""
        if len(players) != self.state.players:
            raise ValueError(f"a {self.state.players}-player match needs {self.state.players} players")
        while self.step(players, rng_for, timings=timings):
            pass
        return self.state


__all__ = ["CHANGE_GRACE", "Chance", "Event", "Match", "Player", "Waiting", "seeded_chance"]
