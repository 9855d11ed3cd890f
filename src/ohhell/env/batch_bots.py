"""Shipped bots as opponents in the batched simulator.

>>> import numpy as np
>>> from ohhell.bots import get_bot
>>> from ohhell.env.batch import BatchSimulator
>>> from ohhell.env.batch_bots import BatchBots
>>> sim = BatchSimulator(8, preset="pagat", single_deal=3, seed=1)
>>> bots = BatchBots(sim, {1: "beginner", 2: "beginner", 3: get_bot("intermediate")}, seed=1)
>>> for _ in range(40):
...     learner = sim.random_actions()  # the learner's choice, used where it is asked
...     actions = bots.fill(learner)  # the bots' choices where a bot seat is asked
...     bots.step(actions)  # steps the simulator and keeps every shadow game in step
>>> bots.check()  # every shadow game still agrees with the simulator

A ``BatchSimulator`` game is a few numbers in arrays; a shipped bot
(``ohhell.bots.get_bot``) is Python that reads one seat's ``Observation``. So
``BatchBots`` keeps a core ``GameState`` beside each game it follows (all
games, or the ones given), held by its referee (``ohhell.Match``, the one
driver of a match), started from the simulator's dealer and deal and fed the
same actions, and asks a bot for ``observe(state, seat)`` of its seat:
exactly what that seat would see at a real table, no more (the bot never sees
the arrays, other seats' hands or the pack). Every step goes through
``BatchBots.step``, which steps the simulator and then applies the same
actions, new deals and new matches to the shadow games; ``check`` compares
them with the simulator when in doubt.

The cost is the bots' and ``observe``'s, in Python, one decision at a time
(``bench/batch_bots.py`` measures it): the simulator's million steps a second
are for learner-against-learner games; a trainer mixes in games against bots
for a share of its batch.

R-BID-CHANGE: the batch has no bid-change ids today, and no bot is asked
about a change. Should the simulator gain a bid-change window (ids 76..93
change the bid to 0..17, 94 keeps it; ``sim.action_size > 76``), a bot seat
asked in that window keeps its bid (id 94, ``Match.keep_bid``), and a
learner's change goes to the shadow game as the core's ``ChangeBid``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Final, TypeAlias

import numpy as np
import numpy.typing as npt

from .. import (
    ALL_CARDS,
    Action,
    ChangeBid,
    DrawForDealer,
    GameState,
    Match,
    Observation,
    Phase,
    observe,
    seats_to_ask,
)
from ..bots import Bot, IllegalBotActionError, get_bot
from ..encoding import ACTION_SIZE, CHANGE_BASE, KEEP, action_from_id, action_id, changer
from .batch import OVER, BatchSimulator

IP = npt.NDArray[np.intp]
B8 = npt.NDArray[np.bool_]

# The bid-change window (R-BID-CHANGE): CHANGE_BASE + k changes the bid to k,
# KEEP_BID keeps it; only asked where the simulator's action space has them.
KEEP_BID: Final = KEEP

Lineup: TypeAlias = Mapping[int, Bot | str]
"""The bots of one game by seat: a ``Bot`` or a name for ``get_bot``."""


def draw_for(dealer: int, players: int) -> DrawForDealer:
    """A draw for first dealer that ``dealer`` wins (R-DEALER-DRAW: the highest
    card deals). The batch draws who deals, not the cards, so these stand in:
    the ace of spades for the dealer, twos and threes for the others."""
    low = [c for c in ALL_CARDS if c.rank == 2]
    low += [c for c in ALL_CARDS if c.rank == 3]
    return DrawForDealer(tuple(ALL_CARDS[-1] if s == dealer else low[s] for s in range(players)))


def start_match(sim: BatchSimulator, game: int) -> Match:
    """The referee (``ohhell.Match``) of ``game``'s current match at its start:
    its first dealer and first deal, ready for that game's actions.

    The game must not have been played yet in this match: a batch keeps no
    log, so a match under way cannot be replayed (``ValueError`` says so).
    Chance is the batch's: the match is given each deal (``sim.deal_action``)
    and never shuffles itself."""
    if sim.number[game] != 0 or sim.bid_count[game] != 0 or sim.phase[game] == OVER:
        raise ValueError(
            f"game {game} is under way (hand {int(sim.number[game])}, {int(sim.bid_count[game])} bids): "
            "a shadow game starts with its match"
        )
    # No turn tracking and a still clock: nobody waits on a shadow game, and
    # its bid-change window is closed by the batch's actions, not by time.
    match = Match.new(sim.rules, _batch_chance, track_turns=False, clock=_still)
    if sim.rules.first_dealer is None:
        match.submit(draw_for(int(sim.first_dealer[game]), sim.players))
    match.submit(sim.deal_action(game))
    return match


def _batch_chance(state: GameState) -> random.Random:
    raise RuntimeError("a shadow game's chance is the batch's: submit sim.deal_action(game)")


def _still() -> float:
    return 0.0


class DriftError(RuntimeError):
    """A shadow game no longer agrees with its batch game (a step that went
    around ``BatchBots.step``, such as ``sim.step`` or ``sim.reset`` called directly)."""


class BatchBots:
    """Bots for some seats of some games of ``sim`` (see the module).

    ``bots`` is one lineup (seat -> ``Bot`` or a name for ``get_bot``) for
    every game followed, or one lineup per game followed (in the order of
    ``games``). ``games`` (indices or a [B] bool mask; default all) are the
    games followed: only they cost a ``GameState``. The same name in several
    lineups is one bot object (bots keep no state between decisions). Each
    game's bots draw from their own ``random.Random``, seeded from ``seed``
    and the game's index, so a run with the same seed and the same learner
    actions repeats itself (for bots that choose from the observation and
    the generator alone: not ``expert`` on a time budget; give it
    ``worlds``). Every game followed must be at the start of a match (as
    after ``sim.reset``).
    """

    def __init__(
        self,
        sim: BatchSimulator,
        bots: Lineup | Sequence[Lineup],
        *,
        games: npt.ArrayLike | None = None,
        seed: int | None = None,
    ) -> None:
        self.sim = sim
        b, n = sim.num_games, sim.players
        self.games: IP = _indices(games, b)
        lineups = [bots] * len(self.games) if isinstance(bots, Mapping) else list(bots)
        if len(lineups) != len(self.games):
            raise ValueError(f"{len(lineups)} lineups for {len(self.games)} games")
        named: dict[str, Bot] = {}
        # [B, players]: the bot of each seat of each game, None for the learner's.
        self._bots: list[list[Bot | None]] = [[None] * n for _ in range(b)]
        self.seat_mask: B8 = np.zeros((b, n), np.bool_)
        """[B, players] bool: a bot plays that seat of that game."""
        for g, lineup in zip(self.games.tolist(), lineups, strict=True):
            for seat, bot in lineup.items():
                if not 0 <= seat < n:
                    raise ValueError(f"there is no seat {seat} at a {n}-player table")
                if isinstance(bot, str):
                    if bot not in named:
                        named[bot] = get_bot(bot)
                    bot = named[bot]
                self._bots[g][seat] = bot
                self.seat_mask[g, seat] = True
        # One stream per game of the whole batch, so a game's bots choose the
        # same whichever other games are followed.
        streams = np.random.SeedSequence(seed).spawn(b)
        self._rngs: dict[int, random.Random] = {
            g: random.Random(int(streams[g].generate_state(1, np.uint64)[0])) for g in self.games.tolist()
        }
        self._matches: dict[int, Match] = {g: start_match(sim, g) for g in self.games.tolist()}
        self._followed: B8 = np.zeros(b, np.bool_)
        self._followed[self.games] = True

    # --- Reading ---

    def state(self, game: int) -> GameState:
        """The shadow ``GameState`` of a game followed (read it; do not change it)."""
        return self._matches[game].state

    def match(self, game: int) -> Match:
        """The referee of a game followed (read it; ``step`` is what moves it)."""
        return self._matches[game]

    def observation(self, game: int, seat: int | None = None) -> Observation:
        """``observe`` of a game followed, for ``seat`` or the seat the batch asks."""
        if seat is None:
            seat = int(self.sim.to_act[game])
        return observe(self._matches[game].state, seat)

    def to_act_mask(self) -> B8:
        """[B] bool: a bot plays the seat each game asks now."""
        to_act = self.sim.to_act
        asked: B8 = self.seat_mask[np.arange(self.sim.num_games), np.maximum(to_act, 0)] & (to_act >= 0)
        return asked

    # --- Choosing ---

    def actions(self, games: npt.ArrayLike | None = None) -> IP:
        """The bots' action ids in ``games`` (indices or a [B] bool mask;
        default ``to_act_mask()``), in that order. Each game must ask a bot seat.

        A bot returning an action that is not legal raises
        ``IllegalBotActionError``. In a bid-change window (see the module) the
        bot keeps its bid without being asked."""
        sim = self.sim
        idx = np.flatnonzero(self.to_act_mask()) if games is None else _indices(games, sim.num_games)
        out = np.zeros(len(idx), np.intp)
        to_act = sim.to_act
        for i, g in enumerate(idx.tolist()):
            seat = int(to_act[g])
            bot = self._bots[g][seat] if seat >= 0 else None
            if bot is None:
                raise ValueError(f"game {g} asks seat {seat}, which no bot plays here")
            state = self._matches[g].state
            if sim.action_size > CHANGE_BASE and changer(self._matches[g]) == seat:
                out[i] = KEEP_BID  # R-BID-CHANGE: a right no bot is made to use
                continue
            obs = observe(state, seat)
            action = bot.choose(obs, self._rngs[g])
            if action not in obs.legal_actions or isinstance(action, ChangeBid):
                raise IllegalBotActionError(
                    f"bot {bot.name!r} at seat {seat} of game {g} chose {action!r}, which is not legal"
                )
            out[i] = action_id(action)
        return out

    def fill(self, actions: IP) -> IP:
        """Write the bots' ids into ``actions`` ([B]) where a bot seat is asked,
        keeping the others (the learner's); return ``actions``."""
        idx = np.flatnonzero(self.to_act_mask())
        if len(idx):
            actions[idx] = self.actions(idx)
        return actions

    # --- Stepping ---

    def step(self, actions: npt.ArrayLike, games: npt.ArrayLike | None = None) -> None:
        """``sim.step(actions, games)``, then the same actions, the new deals
        and the new matches in every shadow game, so none drifts. An illegal
        action raises the simulator's ``ValueError`` and changes nothing."""
        sim = self.sim
        a = np.asarray(actions).astype(np.intp, copy=False)
        moved = self._followed.copy()
        if games is not None:
            stepped = np.zeros(sim.num_games, np.bool_)
            stepped[_indices(games, sim.num_games)] = True
            moved &= stepped
        moved &= sim.phase != OVER  # a match held over ignores its action
        idx = np.flatnonzero(moved)
        seats = sim.to_act[idx]
        sim.step(a, games)
        wide = sim.action_size > CHANGE_BASE
        ended, dealt = sim.terminations, sim.new_hand
        for g, seat, aid in zip(idx.tolist(), seats.tolist(), a[idx].tolist(), strict=True):
            match = self._matches[g]
            if not wide or aid < CHANGE_BASE:
                match.submit(_action(aid, seat))
            elif aid == KEEP_BID:
                match.keep_bid(seat)  # R-BID-CHANGE: the next bidder need not wait
            else:
                match.submit(ChangeBid(seat, aid - CHANGE_BASE))
            if ended[g]:
                if not match.is_over:
                    raise DriftError(f"game {g}: the batch ended the match, the shadow game did not")
                if sim.autoreset:
                    self._matches[g] = start_match(sim, g)
            elif dealt[g]:
                phase = match.state.phase
                if phase is not Phase.DEAL:
                    raise DriftError(f"game {g}: the batch dealt a hand, the shadow game is in {phase}")
                match.submit(sim.deal_action(g))

    def reset(self, seed: int | None = None, games: npt.ArrayLike | None = None) -> None:
        """``sim.reset(seed, games)`` and new shadow games for the games followed
        among them (the bots' random streams go on)."""
        self.sim.reset(seed=seed, games=games)
        idx = self.games if games is None else _indices(games, self.sim.num_games)
        for g in idx.tolist():
            if g in self._matches:
                self._matches[g] = start_match(self.sim, g)

    def check(self, games: npt.ArrayLike | None = None) -> None:
        """Raise ``DriftError`` if a shadow game (of ``games``, default all
        followed) differs from its batch game: the seat asked, hand number,
        dealer, hands, bids, tricks taken or totals."""
        sim = self.sim
        idx = self.games if games is None else _indices(games, sim.num_games)
        for g in idx.tolist():
            state = self._matches[g].state
            seat = int(sim.to_act[g])
            asked = seats_to_ask(state)
            if (seat >= 0 and seat not in asked and state.change_seat != seat) or (seat < 0 and asked):
                raise DriftError(f"game {g}: the batch asks seat {seat}, the shadow game {asked}")
            if sim.phase[g] == OVER:
                if not state.is_over:
                    raise DriftError(f"game {g}: the batch's match is over, the shadow game's is not")
                continue
            hands = [sum(1 << c.index for c in h) for h in state.hands]
            bids = [-1 if b is None else b for b in state.bids]
            mine = (state.hand_number, state.dealer, hands, bids, list(state.taken), list(state.totals))
            theirs = (
                int(sim.number[g]),
                int(sim.dealer[g]),
                sim.hands[g].tolist(),
                sim.bids[g].tolist(),
                sim.taken[g].tolist(),
                sim.totals[g].tolist(),
            )
            if mine != theirs:
                raise DriftError(f"game {g}: the shadow game {mine} differs from the batch {theirs}")


def _action(aid: int, seat: int) -> Action:
    if not 0 <= aid < ACTION_SIZE:
        raise ValueError(f"action id {aid} is outside 0..{ACTION_SIZE - 1}")
    return action_from_id(aid, seat)


def _indices(games: npt.ArrayLike | None, num_games: int) -> IP:
    """Game indices from indices or a [B] bool mask (all games for None), as ``sim.step`` reads them."""
    if games is None:
        return np.arange(num_games, dtype=np.intp)
    g = np.asarray(games)
    if g.dtype == np.bool_:
        if g.shape != (num_games,):
            raise ValueError(f"a mask of games has shape ({num_games},), not {g.shape}")
        return np.flatnonzero(g)
    out: IP = g.astype(np.intp).reshape(-1)
    if out.size and (out.min() < 0 or out.max() >= num_games):
        raise ValueError(f"game indices must be 0..{num_games - 1}")
    return out


__all__ = ["CHANGE_BASE", "KEEP_BID", "BatchBots", "DriftError", "draw_for", "start_match"]
