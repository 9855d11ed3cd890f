"""Reviewing a whole record: every decision, every hand's luck, the summary.

``review_record`` walks the record once, collecting each decision's
observation (what the seat saw just before it acted) and each hand's state
just after its deal; then it prices them, in this process or in ``jobs``
worker processes, in the record's order; then it adds them up. Every unit
of work has its own seed (``derived_seed``), so the result does not depend
on ``jobs`` or on the machine, only on the record, the seed and the budget.
"""

from __future__ import annotations

import functools
import hashlib
import math
import multiprocessing
import random
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass

from .. import (
    Action,
    Bid,
    ChangeBid,
    Deal,
    GameState,
    Match,
    NameTrump,
    Observation,
    Play,
    Record,
    claim_holds,
    dumps,
    new_game,
    observe,
    seats_to_ask,
    tricks_left,
)
from .decisions import advise, choices_of, review_decision
from .explain import edge_variance
from .luck import hand_values, luck_of, luck_variance, playout_scores
from .model import MARKS, Advice, Budget, Decision, HandLuck, Puzzle, Review, SeatSummary, Thresholds

PUZZLES_PER_SEAT = 3
"""The costliest mistakes and blunders of each seat that become puzzles."""


class ReviewTimeout(RuntimeError):
    """The review ran past its time limit and was stopped."""


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a review is: units of work (decisions and playouts) done, and
    the hands whose every unit is done."""

    done: int
    total: int
    hands_done: int
    hands: int

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0


@dataclass(frozen=True, slots=True)
class _DecisionUnit:
    obs: Observation
    chosen: Action | None  # None: the decision the record stops at, to advise on
    version: int
    hand: int  # 0-based


@dataclass(frozen=True, slots=True)
class _LuckUnit:
    start: GameState
    hand: int  # 0-based
    playout: int


_Unit = _DecisionUnit | _LuckUnit


@dataclass(frozen=True, slots=True)
class _Job:
    seed: int
    budget: Budget
    thresholds: Thresholds


def record_digest(record: Record) -> str:
    """The sha256 of the record as ``ohhell.dumps`` writes it: what a cached
    review is keyed by."""
    return hashlib.sha256(dumps(record).encode()).hexdigest()


def review_record(
    record: Record,
    *,
    seed: int = 1,
    budget: Budget | None = None,
    thresholds: Thresholds | None = None,
    seats: Iterable[int] | None = None,
    jobs: int = 1,
    progress: Callable[[Progress], None] | None = None,
    max_seconds: float | None = None,
) -> Review:
    """Review every decision of ``seats`` (default all) in ``record`` and the
    luck of every finished hand.

    ``budget`` fixes how much the expert thinks (counts, not time);
    ``jobs`` worker processes share the work (the result is the same);
    ``progress`` is called after every unit of work (it may raise to stop
    the review); past ``max_seconds`` the review stops with
    ``ReviewTimeout``. A record that breaks the rules raises ``RecordError``.
    """
    budget = budget or Budget()
    thresholds = thresholds or Thresholds()
    final = record.replay()  # RecordError, with the line, before any work
    reviewed = tuple(sorted(set(range(final.players) if seats is None else seats)))
    if any(not 0 <= s < final.players for s in reviewed):
        raise ValueError(f"seats are 0 to {final.players - 1}")
    units = _units(record, final, set(reviewed), budget)
    results = _run(units, _Job(seed, budget, thresholds), jobs, progress, max_seconds)
    decisions = tuple(r for r in results if isinstance(r, Decision))
    pending = tuple(r for r in results if isinstance(r, Advice))
    playouts: dict[int, list[tuple[int, ...]]] = {}
    for unit, result in zip(units, results, strict=True):
        if isinstance(unit, _LuckUnit):
            assert isinstance(result, tuple)
            playouts.setdefault(unit.hand, []).append(result)
    hands = tuple(_hand_luck(final, h, playouts[h], decisions) for h in range(len(final.results)))
    summary = tuple(
        _summary(final, record.seats, s, decisions, hands, len(reviewed) == final.players, thresholds)
        for s in reviewed
    )
    return Review(
        record=record_digest(record),
        seed=seed,
        budget=budget,
        thresholds=thresholds,
        seats=record.seats,
        reviewed=reviewed,
        finished=final.is_over,
        decisions=decisions,
        hands=hands,
        summary=summary,
        puzzles=_puzzles(decisions, summary, thresholds),
        pending=pending,
    )


# --- Walking the record ---


def _units(record: Record, final: GameState, reviewed: set[int], budget: Budget) -> list[_Unit]:
    """The work in the record's order: each hand's decisions, then its playouts.

    A bid changed before the next seat bid (R-BID-CHANGE) is reviewed as
    the bid finally made, from what the seat saw when it first bid (nothing
    else happens in between). Cards played to settle a claim are the
    program's, not the seat's, and are not reviewed.
    """
    state = new_game(record.rules)
    match = Match(state, random.Random(0), track_turns=False)  # every deal is in the record
    claims = sorted(record.claims, key=lambda c: c.at)
    by_hand: dict[int, list[_Unit]] = {}
    playouts: dict[int, list[_Unit]] = {}
    settled: set[int] = set()  # seats whose cards a claim plays for them this hand
    for version, action in enumerate(record.actions):
        while claims and claims[0].at == version:
            claim = claims.pop(0)
            certain = claim_holds(state, claim.seat, claim.tricks) is True
            # A certain claim of fewer than all the tricks left plays only the
            # claimer's cards; any other claim settles the hand for everyone.
            partial = certain and claim.tricks < tricks_left(state)
            settled |= {claim.seat} if partial else set(range(state.players))
        hand = state.hand_number
        units = by_hand.setdefault(hand, [])
        if isinstance(action, ChangeBid):
            for i, unit in enumerate(units):
                if (
                    isinstance(unit, _DecisionUnit)
                    and isinstance(unit.chosen, Bid)
                    and unit.chosen.seat == action.seat
                ):
                    units[i] = _DecisionUnit(unit.obs, Bid(action.seat, action.bid), unit.version, hand)
        elif (
            isinstance(action, (Bid, NameTrump, Play))
            and action.seat in reviewed
            and not (isinstance(action, Play) and action.seat in settled)
        ):
            obs = observe(state, action.seat)
            if len(choices_of(obs)) > 1:
                units.append(_DecisionUnit(obs, action, version, hand))
        if isinstance(action, Play) and match.legal(action.seat) == (Play(action.seat, None),):
            action = Play(action.seat, None)  # R-DEVILS-BRIDGE: the referee takes a blind card unnamed
        match.submit(action)
        if isinstance(action, Deal):
            settled = set()
            if hand < len(final.results):  # the record holds the end of this hand
                start = state.clone()
                playouts[hand] = [_LuckUnit(start, hand, k) for k in range(budget.luck_playouts)]
    if not final.is_over and not final.is_chance:
        # The record stops at a decision: the seats to act are advised.
        last = by_hand.setdefault(final.hand_number, [])
        for seat in seats_to_ask(final):
            if seat in reviewed and len(choices_of(observe(final, seat))) > 1:
                last.append(_DecisionUnit(observe(final, seat), None, len(record.actions), final.hand_number))
    out: list[_Unit] = []
    for hand in sorted(set(by_hand) | set(playouts)):
        out += by_hand.get(hand, [])
        out += playouts.get(hand, [])
    return out


def _hand_of(unit: _Unit) -> int:
    return unit.hand


# --- Running the units ---


def _work(job: _Job, unit: _Unit) -> Decision | Advice | tuple[int, ...] | None:
    """One unit of work, in this process or a worker."""
    if isinstance(unit, _LuckUnit):
        return playout_scores(
            unit.start,
            seed=job.seed,
            hand=unit.hand,
            playout=unit.playout,
            simulations=job.budget.luck_simulations,
        )
    if unit.chosen is None:
        return advise(unit.obs, version=unit.version, seed=job.seed, budget=job.budget)
    return review_decision(
        unit.obs,
        unit.chosen,
        version=unit.version,
        seed=job.seed,
        budget=job.budget,
        thresholds=job.thresholds,
    )


def _run(
    units: Sequence[_Unit],
    job: _Job,
    jobs: int,
    progress: Callable[[Progress], None] | None,
    max_seconds: float | None,
) -> list[Decision | Advice | tuple[int, ...] | None]:
    deadline = time.monotonic() + max_seconds if max_seconds is not None else None
    hands = sorted({_hand_of(u) for u in units})
    last_of = {h: max(i for i, u in enumerate(units) if _hand_of(u) == h) for h in hands}
    hands_done = 0
    results: list[Decision | Advice | tuple[int, ...] | None] = []
    executor: Executor | None = None
    if jobs > 1 and len(units) > 1:
        # Fresh interpreters, not forks: a review may run inside a threaded
        # server, and a fork copies its locks in whatever state they are.
        executor = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))
    try:
        stream: Iterable[Decision | Advice | tuple[int, ...] | None]
        if executor is None:
            stream = (_work(job, u) for u in units)
        else:
            stream = executor.map(functools.partial(_work, job), units, chunksize=1)
        for i, result in enumerate(stream):
            results.append(result)
            if last_of.get(_hand_of(units[i])) == i:
                hands_done += 1
            if progress is not None:
                progress(Progress(i + 1, len(units), hands_done, len(hands)))
            if deadline is not None and time.monotonic() > deadline:
                raise ReviewTimeout(f"the review took longer than {max_seconds:g} seconds and was stopped")
    finally:
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
    return results


# --- Adding up ---


def _hand_luck(
    final: GameState, hand: int, playouts: Sequence[tuple[int, ...]], decisions: Sequence[Decision]
) -> HandLuck:
    result = final.results[hand]
    values = hand_values(playouts)
    n = final.players
    loss = [0.0] * n
    for d in decisions:
        if d.hand == hand + 1:
            loss[d.seat] += d.loss
    return HandLuck(
        hand=hand + 1,
        size=result.size,
        dealer=result.dealer,
        value=tuple(round(v, 3) for v in values),
        luck=tuple(round(v, 3) for v in luck_of(values)),
        scores=result.scores,
        loss=tuple(round(x, 3) for x in loss),
        playouts=tuple(playouts),
    )


def _summary(
    final: GameState,
    names: Sequence[str],
    seat: int,
    decisions: Sequence[Decision],
    hands: Sequence[HandLuck],
    everyone: bool,
    thresholds: Thresholds,
) -> SeatSummary:
    n = final.players
    totals = [sum(h.scores[s] for h in hands) for s in range(n)]
    edge = totals[seat] - sum(totals) / n
    mine = [d for d in decisions if d.seat == seat]
    loss = sum(d.loss for d in mine)
    luck = sum(h.luck[seat] for h in hands)
    rest: float | None = None
    table_loss = 0.0
    if everyone:
        # Only the finished hands have scores to explain.
        hand_loss = [sum(h.loss[s] for h in hands) for s in range(n)]
        table_loss = sum(hand_loss) / n
        rest = edge - luck + (hand_loss[seat] - table_loss)
    error = math.sqrt(sum(edge_variance(h.playouts, seat) for h in hands))
    luck_error = math.sqrt(sum(luck_variance(h.playouts, seat) for h in hands))
    marks = {m: sum(1 for d in mine if d.mark == m) for m in MARKS}
    # Puzzles only of decisions priced well enough that another seed would
    # not turn a right answer wrong (``Decision.well_priced``).
    costly = sorted(
        (d for d in mine if d.mark in ("mistake", "blunder") and d.well_priced(thresholds)),
        key=lambda d: (-d.loss, d.version),
    )
    return SeatSummary(
        seat=seat,
        name=names[seat],
        score=final.totals[seat],
        edge=round(edge, 3),
        decisions=len(mine),
        loss=round(loss, 3),
        average_loss=round(loss / len(mine), 3) if mine else 0.0,
        luck=round(luck, 3),
        rest=round(rest, 3) if rest is not None else None,
        rest_error=round(error, 3),
        loss_error=round(math.sqrt(sum(d.error**2 for d in mine)), 3),
        marked_loss=round(sum(d.loss for d in mine if d.mark is not None), 3),
        luck_error=round(luck_error, 3),
        table_loss=round(table_loss, 3),
        marks=marks,
        biggest=tuple(d.version for d in costly[:PUZZLES_PER_SEAT]),
    )


def _puzzles(
    decisions: Sequence[Decision], summary: Sequence[SeatSummary], thresholds: Thresholds
) -> tuple[Puzzle, ...]:
    """Each seat's costliest mistakes and blunders, as puzzles, costliest first."""
    by_version = {d.version: d for d in decisions}
    chosen = [by_version[v] for s in summary for v in s.biggest]
    chosen.sort(key=lambda d: (-d.loss, d.version))
    return tuple(Puzzle(d, d.good_answers(thresholds)) for d in chosen)


__all__ = ["PUZZLES_PER_SEAT", "Progress", "ReviewTimeout", "record_digest", "review_record"]
