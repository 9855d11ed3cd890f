"""A local match against bots, for any front end (the line mode, the terminal app).

A ``Session`` holds the rules, the seats' names, what sits in each seat (the
human or a bot level), the game state and the file the match is saved to. It
is the only object that touches the state: front ends show
``session.observation()`` (``observe(state, human_seat)``) and the ``Event``
values that ``step`` and ``act`` return, which carry only what the human may
know (a sealed bid has no value, a deal no cards).

- Bots are asked through their seat's observation alone, one action at a time,
  so a front end can show each move as it happens.
- The human's action goes through ``apply``: an illegal one raises
  ``IllegalActionError`` with the rule's reason and changes nothing.
- The record is saved (atomically) after every action, with tags naming what
  sits in each seat and the seed, and ``resume(path)`` rebuilds the session by
  replaying it.
- Randomness never depends on how the match was run: each deal's shuffle comes
  from ``seed`` and the hand number, each bot decision's ``random.Random`` from
  ``seed`` and the position in the log, so a resumed match plays on exactly as
  an uninterrupted one would (for bots that are not bounded by time).
- R-BID-CHANGE: after the human's bid, while the rules still let it be
  changed, the next bot waits ``change_grace`` seconds at most (the referee's
  bounded grace, counted on ``clock``) for the human to change it; ``keep_bid``
  ends the wait at once. A front end shows the wait counting down and goes on
  by itself when it is over: nobody has to press a key for the game to go on.
- Claims (``ohhell.claim``): during the play the human may claim all, none or
  some of the tricks left (``claim``). The referee decides whether the claim
  is certain; if not, the bots are asked (``accepts_claim``). A certain claim
  of every trick left, or one all the others accept, is played out at once; a
  certain claim of fewer tricks hands the human's cards to the referee, which
  plays them as a bot's turn (``next`` says ``BOT``, ``choose`` gives the card
  that keeps the claim). Accepted claims are saved in the record.
- Forced cards: ``forced_play`` is the human's one legal play when there is
  no choice (the only card that follows suit, the last card of the hand, a
  Devil's Bridge card that is the only action); with ``forced_cards`` on, a
  front end plays it for the human (``act``) and says so (``forced_words``).
"""

from __future__ import annotations

import contextlib
import os
import random
import secrets
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Final

from .. import (
    CHANGE_GRACE,
    SEARCH_BUDGET,
    Action,
    Bidding,
    ChangeBid,
    Claim,
    Deal,
    Event,
    GameState,
    IllegalActionError,
    Match,
    Observation,
    Phase,
    Play,
    Record,
    RecordError,
    Rules,
    check_claim,
    claim_possible,
    dump,
    line_holds,
    load,
    new_game,
    observe,
    seeded_chance,
    settling_play,
    tricks_left,
)
from ..bots import Bot, IllegalBotActionError, get_bot, level_refusal, opponent_levels
from ..bots.claims import accepts_claim
from ..describe import BOT_SEAT_NAMES

if TYPE_CHECKING:
    from ..bots.hint import Hint

HUMAN: Final = "human"
"""The kind of the seat a person plays; the other kinds are bot names."""

DEFAULT_LEVEL: Final = "intermediate"


class SessionError(ValueError):
    """A match that cannot be set up or resumed; the message says why."""


class Next(Enum):
    """What the match waits for."""

    HUMAN = "human"  # the human must act (or may still change a bid, within the grace)
    BOT = "bot"  # a bot is to act: call step()
    CHANCE = "chance"  # a draw or a deal: call step()
    OVER = "over"


@dataclass(frozen=True, slots=True)
class ClaimResult:
    """What came of the human's claim of ``tricks`` of the ``left`` tricks left.

    ``certain``: the cards make it sure (accepted at once); ``agreed``: every
    other seat accepted it; otherwise ``refused_by`` names the seats that
    refused, or ``impossible`` says that all accepted a claim no play of the
    cards left can make come true, and nothing changed. ``events`` are the plays that settled the
    hand at once (empty when the human's cards are played turn by turn, or
    when the claim was refused)."""

    tricks: int
    left: int
    certain: bool
    agreed: bool = False
    refused_by: tuple[int, ...] = ()
    impossible: bool = False
    events: tuple[Event, ...] = ()

    @property
    def accepted(self) -> bool:
        return self.certain or self.agreed

    @property
    def settled(self) -> bool:
        """Was the rest of the hand played out at once?"""
        return self.agreed or (self.certain and self.tricks == self.left)


def default_save_path() -> Path:
    """``$OHHELL_HOME/current.ohr``, else ``~/.local/share/ohhell/current.ohr``."""
    home = os.environ.get("OHHELL_HOME")
    folder = Path(home).expanduser() if home else Path.home() / ".local" / "share" / "ohhell"
    return folder / "current.ohr"


def seat_kinds(players: int, seat: int, name: str, levels: Sequence[str]) -> tuple[list[str], list[str]]:
    """The seats' names and kinds of a new match: the human (``name``) in
    ``seat``, the bots' levels in seat order (one level serves them all).
    Raise ``SessionError`` saying what is wrong; front ends call it to check
    their options before anything else."""
    n = players
    if not 0 <= seat < n:  # said as people count seats: from 1
        raise SessionError(f"your seat must be from 1 to {n}, not {seat + 1}")
    levels = [lv.strip().lower() for lv in levels]
    if len(levels) == 1:
        levels = levels * (n - 1)
    if len(levels) != n - 1:
        raise SessionError(f"name one bot level, or one for each of the {n - 1} opponents, not {len(levels)}")
    for level in levels:
        if level not in opponent_levels():
            raise SessionError(f"unknown bot level {level!r}: the levels are {', '.join(opponent_levels())}")
    name = " ".join(name.split()) or "You"
    kinds: list[str] = []
    names: list[str] = []
    bot_names = iter(BOT_SEAT_NAMES)
    for s in range(n):
        if s == seat:
            kinds.append(HUMAN)
            names.append(name)
        else:
            kinds.append(levels.pop(0))
            bot_name = next(bot_names)
            names.append(bot_name if bot_name != name else f"{bot_name} 2")
    return names, kinds


def _rng(seed: int, purpose: str, *numbers: int) -> random.Random:
    # A string seed is hashed with SHA-512 by random.seed, so the stream is the
    # same in every process and on every platform (PYTHONHASHSEED plays no part).
    return random.Random(f"ohhell-play:{seed}:{purpose}:{':'.join(str(n) for n in numbers)}")


@contextlib.contextmanager
def _no_interrupt() -> Iterator[None]:
    """Hold Ctrl-C back while an action is applied and saved, then deliver it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    try:
        previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    except ValueError:  # pragma: no cover - not the main interpreter
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            signal.raise_signal(signal.SIGINT)


class Session:
    """One person against bots at one table; see the module docstring."""

    def __init__(
        self,
        rules: Rules,
        *,
        names: Sequence[str],
        kinds: Sequence[str],
        seed: int,
        save_path: Path | str | None = None,
        think: float = 1.0,
        hint_seconds: float = 0.5,
        state: GameState | None = None,
        change_grace: float = CHANGE_GRACE,
        clock: Callable[[], float] = time.monotonic,
        claims: Sequence[Claim] = (),
    ) -> None:
        n = rules.players
        if len(names) != n or len(kinds) != n:
            raise SessionError(f"a {n}-player match needs {n} names and {n} seat kinds")
        humans = [s for s, k in enumerate(kinds) if k == HUMAN]
        if len(humans) != 1:
            raise SessionError("exactly one seat must be the human's")
        for kind in kinds:
            if kind != HUMAN and kind not in opponent_levels():
                raise SessionError(f"unknown bot level {kind!r}; levels are {', '.join(opponent_levels())}")
            why = level_refusal(kind, rules) if kind != HUMAN else None
            if why:
                raise SessionError(why)
        self.rules = rules
        self.names: tuple[str, ...] = tuple(names)
        self.kinds: tuple[str, ...] = tuple(kinds)
        self.human: int = humans[0]
        self.seed = seed
        self.think = think
        self.hint_seconds = hint_seconds
        self.save_path: Path | None = Path(save_path) if save_path is not None else None
        # The referee: it alone changes the state; deals come from the seed
        # and the hand number, so a resumed match deals what it would have.
        self.match = Match(
            state if state is not None else new_game(rules),
            seeded_chance(f"ohhell-play:{seed}"),
            track_turns=False,
            change_grace=change_grace,
            clock=clock,
        )
        self._bots: dict[int, Bot] = {
            s: get_bot(k, seconds=think) if k == "expert" else get_bot(k)
            for s, k in enumerate(kinds)
            if k != HUMAN
        }
        self.claims: list[Claim] = list(claims)  # accepted claims, saved in the record
        self.claimed_hands: set[int] = set()  # hands the human claimed in: one claim a hand
        # Positions the referee searches to find a claim certain (past them the bots are asked).
        self.claim_budget = SEARCH_BUDGET
        # Play the human's card when it is the only legal one (the front ends do it; see forced_play).
        self.forced_cards = False

    # --- Setting up ---

    @classmethod
    def new(
        cls,
        rules: Rules,
        *,
        seat: int = 0,
        name: str = "You",
        levels: Sequence[str] = (DEFAULT_LEVEL,),
        seed: int | None = None,
        save_path: Path | str | None = None,
        think: float = 1.0,
        hint_seconds: float = 0.5,
        change_grace: float = CHANGE_GRACE,
        clock: Callable[[], float] = time.monotonic,
    ) -> Session:
        """A new match: the human in ``seat``, one bot level per opponent in seat
        order (a single level serves them all), a fresh seed unless one is given."""
        names, kinds = seat_kinds(rules.players, seat, name, levels)
        if seed is None:
            seed = secrets.randbelow(1_000_000_000)
        session = cls(
            rules,
            names=names,
            kinds=kinds,
            seed=seed,
            save_path=save_path,
            think=think,
            hint_seconds=hint_seconds,
            change_grace=change_grace,
            clock=clock,
        )
        session.save()
        return session

    @classmethod
    def resume(
        cls,
        path: Path | str,
        *,
        think: float | None = None,
        hint_seconds: float = 0.5,
        change_grace: float = CHANGE_GRACE,
        clock: Callable[[], float] = time.monotonic,
    ) -> Session:
        """The match saved at ``path``, replayed to where it stopped.

        A record without this module's tags (say one from ``ohhell simulate``)
        is continued with the human in seat 0 and intermediate bots.
        """
        try:
            record = load(path)
            state = record.replay()
        except OSError as err:
            raise SessionError(f"cannot read {path}: {err.strerror or err}") from None
        except RecordError as err:
            raise SessionError(f"{path}: {err}") from None
        tags = dict(record.tags)
        n = record.rules.players
        kinds = tags.get("kinds", "").split(",") if tags.get("kinds") else [HUMAN] + [DEFAULT_LEVEL] * (n - 1)
        try:
            seed = int(tags["seed"]) if "seed" in tags else secrets.randbelow(1_000_000_000)
            saved_think = float(tags.get("think", "1"))
        except ValueError as err:
            raise SessionError(f"{path}: a tag cannot be read: {err}") from None
        return cls(
            record.rules,
            names=record.seats,
            kinds=kinds,
            seed=seed,
            save_path=path,
            think=saved_think if think is None else think,
            hint_seconds=hint_seconds,
            state=state,
            change_grace=change_grace,
            clock=clock,
            claims=record.claims,
        )

    # --- Saving ---

    def record(self) -> Record:
        """The match so far as a game record, with the tags ``resume`` reads."""
        tags = (
            ("app", "ohhell play"),
            ("human", str(self.human)),
            ("kinds", ",".join(self.kinds)),
            ("seed", str(self.seed)),
            ("think", f"{self.think:g}"),
        )
        return Record.from_state(self.state, self.names, tags, claims=self.claims)

    def save(self) -> None:
        """Write the record to ``save_path`` (atomically); nothing without a path."""
        if self.save_path is None:
            return
        self.save_path.parent.mkdir(parents=True, exist_ok=True)
        dump(self.record(), self.save_path)

    # --- What is going on ---

    def observation(self) -> Observation:
        """What the human may know now: the only view a front end shows."""
        return observe(self.state, self.human)

    @property
    def state(self) -> GameState:
        """The match so far (read it; only the referee, ``self.match``, changes it)."""
        return self.match.state

    @property
    def is_over(self) -> bool:
        return self.state.is_over

    @property
    def moves(self) -> int:
        """Actions played so far (deals included): a front end's clock for
        telling whether the match moved on while it was busy."""
        return len(self.state.log)

    @property
    def in_change_window(self) -> bool:
        """R-BID-CHANGE: may the human still change a bid made before the next bidder?"""
        st = self.state
        return (
            st.phase is Phase.BID
            and st.rules.bidding is Bidding.SEQUENTIAL
            and st.change_seat == self.human
            and st.to_act != self.human
        )

    def next(self) -> Next:
        """What the match waits for now."""
        waiting = self.match.waiting()
        if waiting.over:
            return Next.OVER
        if waiting.chance:
            return Next.CHANCE
        if self.human in waiting.to_ask:
            # A certain claim of fewer tricks than were left: the referee plays the human's cards.
            return Next.BOT if self.playing_for_you() is not None else Next.HUMAN
        # R-BID-CHANGE: the next bidder waits for the human's change only for
        # the grace; after it the bot bids (a change typed before then still counts).
        if self.match.change_holds() == self.human:
            return Next.HUMAN
        return Next.BOT

    def change_left(self) -> float | None:
        """R-BID-CHANGE: seconds the next bidder still waits for the human to
        change their bid (0 once the grace is over), or None when there is no
        bid of theirs to change or they kept it."""
        if not self.match.can_change(self.human):
            return None
        return self.match.change_left()

    def hand_events(self) -> list[tuple[Event, Observation]]:
        """The current hand's events from its deal on (the whole match before the
        first deal), each with the human's observation just after it, as they
        were shown: what a front end puts back in its log on resume."""
        log = self.state.log
        start = max((i for i, a in enumerate(log) if isinstance(a, Deal)), default=0)
        again = Match(new_game(self.rules), seeded_chance("replay"), track_turns=False)
        out: list[tuple[Event, Observation]] = []
        for i, action in enumerate(log):
            again.submit(action)
            event = again.last_event(self.human)
            if i >= start and event is not None:
                out.append((event, observe(again.state, self.human)))
        return out

    def bot_seat(self) -> int | None:
        """The bot seat to ask next, if a bot is to act."""
        if self.next() is not Next.BOT:
            return None
        if self.playing_for_you() is not None:
            return self.human
        for seat in self.match.to_ask():
            if seat != self.human:
                return seat
        return None  # pragma: no cover - next() said a bot acts

    def tricks_left(self) -> int:
        """Tricks still to be played in the hand, the one under way included."""
        return tricks_left(self.state)

    def playing_for_you(self) -> Claim | None:
        """The human's claim of this hand whose cards the referee plays, if the
        human is to play now (a certain claim of fewer tricks than were left)."""
        st = self.state
        if st.phase is not Phase.PLAY or st.to_act != self.human:
            return None
        return self.current_claim()

    def current_claim(self) -> Claim | None:
        """The human's accepted claim in the hand being played, if any."""
        st = self.state
        if st.phase is not Phase.PLAY:
            return None
        for claim in reversed(self.claims):
            if claim.seat == self.human and claim.at >= st.hand_log_start:
                return claim
        return None

    def forced_play(self) -> Play | None:
        """The human's only legal action now when it is a card (the only one
        that follows suit, the last of the hand, or a Devil's Bridge card
        that is the only action), else None. The legality is the referee's:
        the observation's legal actions."""
        if self.next() is not Next.HUMAN or self.in_change_window:
            return None
        legal = self.observation().legal_actions
        if len(legal) == 1 and isinstance(legal[0], Play):
            return legal[0]
        return None

    def level(self, seat: int) -> str:
        return self.kinds[seat]

    # --- Acting ---

    def choose(self, seat: int) -> Action:
        """The bot in ``seat``'s choice from its own observation; changes nothing,
        so a front end may run it in a worker thread while it draws the table.
        For the human's seat under a claim it is the card that keeps the claim."""
        claim = self.playing_for_you() if seat == self.human else None
        if claim is not None:
            # R-CLAIM: the claimer's line, from their own view only, as at a web table.
            return settling_play(self.state, claim, line=True)
        bot = self._bots[seat]
        obs = observe(self.state, seat)
        action = bot.choose(obs, _rng(self.seed, "bot", len(self.state.log), seat))
        if action not in obs.legal_actions:
            raise IllegalBotActionError(
                f"bot {bot.name!r} in seat {seat} chose {action!r}, which is not legal"
            )
        return action

    def step(self, action: Action | None = None) -> Event:
        """Play the next chance action or bot action and return what the human sees.

        ``action`` may give a bot's choice made earlier with ``choose`` (it is
        checked again); otherwise the bot is asked now.
        """
        what = self.next()
        if what is Next.CHANCE:
            return self._apply(self.match.chance_action())
        if what is not Next.BOT:
            raise SessionError(f"no bot or chance action is due: the match waits for {what.value}")
        seat = self.bot_seat()
        assert seat is not None
        if action is None:
            action = self.choose(seat)
        elif action.seat != seat or action not in observe(self.state, seat).legal_actions:
            raise IllegalBotActionError(f"{action!r} is not the bot's legal action now")
        return self._apply(action)

    def act(self, action: Action) -> Event:
        """The human's action. Raises ``IllegalActionError`` (the rule's reason)
        and changes nothing if it is not legal now."""
        if action.seat != self.human:
            raise IllegalActionError(
                f"you sit in seat {self.human}, not seat {action.seat}",
                seat=action.seat,
                action=action,
                reason="turn",
            )
        if isinstance(action, Play) and self.playing_for_you() is not None:
            raise IllegalActionError(
                "your claim stands: your cards are played for you",
                seat=self.human,
                action=action,
                reason="claim",
            )
        return self._apply(action)

    def check_claim(self, tricks: int = 0) -> None:
        """Raise ``IllegalActionError`` with the reason if the human may not
        claim ``tricks`` now (a front end asks with 0 before it asks how many)."""
        check_claim(self.state, self.human, tricks)
        # One claim a hand, refused or not: the bots' answers come from their
        # cards, so claims tried again and again would tell what they hold.
        if self.current_claim() is not None or self.state.hand_number in self.claimed_hands:
            raise IllegalActionError("you have claimed in this hand already", seat=self.human, reason="claim")

    def claim(self, tricks: int) -> ClaimResult:
        """The human claims exactly ``tricks`` of the tricks left in the hand.

        Raises ``IllegalActionError`` (with the reason) for a claim that cannot
        be made now. A certain claim is accepted at once; another is put to
        the bots, each answering from its own observation. An accepted claim
        of every trick left, or an agreed one, plays the hand out now (its
        events are in the result); a certain claim of fewer tricks has the
        referee play the human's cards on their turns (see ``next``)."""
        st = self.state
        self.check_claim(tricks)
        self.claimed_hands.add(st.hand_number)
        left = tricks_left(st)
        claim = Claim(self.human, tricks, len(st.log))
        # R-CLAIM: certain when the claimer's own line makes it whatever the others play
        # (the same test as at a web table: ohhell.line_holds).
        if line_holds(st, self.human, tricks, budget=self.claim_budget) is True:
            self.claims.append(claim)
            if tricks < left:
                self.save()
                return ClaimResult(tricks, left, certain=True)
            return ClaimResult(tricks, left, certain=True, events=self._settle(claim, agreed=False))
        shown = tuple(st.hands[self.human])
        refused = tuple(
            seat
            for seat in range(st.players)
            if seat != self.human
            and not accepts_claim(
                observe(st, seat), self.human, tricks, shown, _rng(self.seed, "claim", len(st.log), seat)
            )
        )
        if refused:
            return ClaimResult(tricks, left, certain=False, refused_by=refused)
        # The bots judged from what they see: the referee settles only a claim
        # some play of the real cards can make come true.
        if claim_possible(st, self.human, tricks) is not True:
            return ClaimResult(tricks, left, certain=False, impossible=True)
        self.claims.append(claim)
        return ClaimResult(tricks, left, certain=False, agreed=True, events=self._settle(claim, agreed=True))

    def _settle(self, claim: Claim, *, agreed: bool) -> tuple[Event, ...]:
        """Play the rest of the hand so that ``claim`` comes true."""
        hand = self.state.hand_number
        events: list[Event] = []
        while self.state.phase is Phase.PLAY and self.state.hand_number == hand:
            events.append(self._apply(settling_play(self.state, claim, agreed=agreed, line=not agreed)))
        return tuple(events)

    def keep_bid(self) -> None:
        """R-BID-CHANGE: the human keeps the bid it may still change; bots go on."""
        if not self.in_change_window:
            raise SessionError("there is no bid of yours that could still be changed")
        if self.match.can_change(self.human):  # kept already: nothing more to do
            self.match.keep_bid(self.human)

    def hint(self, seconds: float | None = None, obs: Observation | None = None) -> Hint | None:
        """The expert's suggestion for the human (``ohhell.bots.hint.Hint``), or
        None when the human has no bid, trump or card to choose. A front end may
        pass the observation it took (and call this from a worker thread)."""
        from ..bots.hint import hint

        if obs is None:
            if self.next() is not Next.HUMAN or self.in_change_window:
                return None
            obs = self.observation()
        if not obs.legal_actions or isinstance(obs.legal_actions[0], ChangeBid):
            return None
        secs = self.hint_seconds if seconds is None else seconds
        rng = _rng(self.seed, "hint", obs.hand_number, len(obs.played_cards()), sum(obs.has_bid))
        return hint(obs, rng, seconds=secs)

    def _apply(self, action: Action) -> Event:
        with _no_interrupt():
            self.match.submit(action)
            self.save()
        event = self.match.last_event(self.human)
        assert event is not None
        return event
