"""One decision reviewed from the deciding seat's observation alone.

``review_decision(obs, chosen, ...)`` takes an ``Observation``, never a game
state: the review of a decision can use only what that seat could see, as
the expert does when it plays (tests/analysis/test_review_trust.py deals the hidden
cards differently and gets the same review).

The expert searches with a fixed number of simulations and a generator
seeded from the review's seed, the decision's version and the seat, so the
same record, seed and budget give the same review on any machine, in any
order, in one process or many.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Sequence
from functools import lru_cache

from .. import Action, Bid, Card, NameTrump, Observation, Play
from ..bots.expert import Evaluation, ExpertBot
from .model import Advice, Budget, ChoiceValue, Decision, Thresholds
from .position import choice_text, kind_of, position_of, same_plays


def derived_seed(*parts: object) -> int:
    """A 64-bit seed from the review's seed and a unit's coordinates: the
    same on every machine and Python (``hash`` of a string is not)."""
    text = " ".join(str(p) for p in ("ohhell-review", *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


CLOSE = 0.25
PLAYOFF = 3
"""The search's favourites (up to ``PLAYOFF`` of them) are close, and
priced against each other, when each had at least ``CLOSE`` of the
simulations of the first."""

WORLD_EVERY = 16
"""Simulations for each deal the search over every choice draws (the
playing expert draws one every 3). A review searches far longer than a bot
thinks in play: a deal for every 16 simulations still gives it 600 deals at
the default budget, takes a third less time, and two reviews with different
seeds agreed on the best choice as often as with a deal every 3."""

PRICE_WORLD_EVERY = 4
"""The same for the searches that price one choice. Two choices priced on
the same deals differ by what the deals have in common, so more deals make
the difference steadier: with a deal every 4 simulations rather than 16,
two reviews named the same best choice on 93% of 1,313 decisions rather
than 91% (docs/analysis.md)."""


PRICE_BATCHES = 8
"""Each pricing search is run as this many searches of an equal share of
``Budget.price_simulations``, the k-th of every choice drawing from the same
generator: the choices still meet the same deals, and the spread of the
difference between two choices over the batches gives that difference's
standard error (the error a loss is shown with)."""


def price_batches(budget: Budget) -> tuple[int, int]:
    """How many batches each pricing search is cut into, and the simulations of each."""
    count = max(2, min(PRICE_BATCHES, budget.price_simulations // 16))
    return count, max(16, budget.price_simulations // count)


def paired_error(a: Sequence[float], b: Sequence[float]) -> float:
    """The standard error of the mean of ``a`` less the mean of ``b``, the
    k-th of each priced on the same deals: the spread of the differences over
    the batches, over the square root of their number."""
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    k = len(diffs)
    mean = sum(diffs) / k
    return math.sqrt(sum((d - mean) ** 2 for d in diffs) / (k - 1) / k)


@lru_cache(maxsize=8)
def analyst(simulations: int, per_world: int = 3) -> ExpertBot:
    """The expert at a fixed budget: the same settings as the bot people play
    against, only counted in simulations rather than seconds (it keeps no
    state between decisions, so one serves every decision)."""
    return ExpertBot(simulations=simulations, per_world=per_world)


def choices_of(obs: Observation) -> list[list[Action]]:
    """The seat's real choices: its legal bids, trump choices or cards, the
    cards that are the same play grouped. Fewer than two: nothing to decide."""
    candidates = [a for a in obs.legal_actions if isinstance(a, (Bid, NameTrump, Play))]
    if not candidates or (isinstance(candidates[0], Play) and candidates[0].card is None):
        return []  # nothing, or the one blind card under Devil's Bridge
    return _groups(obs, candidates)


def review_decision(
    obs: Observation,
    chosen: Action,
    *,
    version: int,
    seed: int = 0,
    budget: Budget | None = None,
    thresholds: Thresholds | None = None,
) -> Decision | None:
    """The expert's review of ``chosen``, one of ``obs.legal_actions`` (a
    bid, trump choice or card); None when the seat had only one choice,
    which costs nothing (a forced card, a bid the hook leaves alone)."""
    if obs.seat is None:
        raise ValueError("a spectator makes no decisions")
    groups = choices_of(obs)
    if len(groups) < 2 or not any(chosen in g for g in groups):
        return None  # one choice (cards that are the same play are one): nothing to review
    marks = thresholds or Thresholds()
    choices, best, loss, error = _examine(obs, groups, chosen, version, seed, budget or Budget(), marks)
    mark = marks.mark(loss, error)
    reach = marks.reach(loss)
    return Decision(
        version=version,
        hand=obs.hand_number + 1,
        seat=obs.seat,
        kind=kind_of(chosen),
        position=position_of(obs),
        choices=choices,
        best=choice_text(best),
        chosen=choice_text(chosen),
        loss=loss,
        mark=mark,
        error=error,
        close=reach if reach != mark else None,
    )


def advise(obs: Observation, *, version: int, seed: int = 0, budget: Budget | None = None) -> Advice | None:
    """The expert's advice for a decision not made yet (where a record
    stops): every choice priced as a review prices them, and the best.
    None when the seat has no choice to make."""
    if obs.seat is None:
        raise ValueError("a spectator makes no decisions")
    groups = choices_of(obs)
    if len(groups) < 2:
        return None
    choices, best, _, _ = _examine(obs, groups, None, version, seed, budget or Budget(), Thresholds())
    return Advice(
        version=version,
        hand=obs.hand_number + 1,
        seat=obs.seat,
        kind=kind_of(best),
        position=position_of(obs),
        choices=choices,
        best=choice_text(best),
    )


def _examine(
    obs: Observation,
    groups: list[list[Action]],
    chosen: Action | None,
    version: int,
    seed: int,
    budget: Budget,
    thresholds: Thresholds,
) -> tuple[tuple[ChoiceValue, ...], Action, float, float]:
    """Every choice's estimate (best first), the best, what ``chosen`` gave
    up against it, and that loss's standard error."""
    expert = analyst(budget.simulations, WORLD_EVERY)
    seat = obs.seat
    ranked = expert.analyse(obs, random.Random(derived_seed(seed, "decision", version, seat)))
    values = _group_values(ranked, groups)
    order = _favourites(groups, values, ranked, isinstance(groups[0][0], Play))
    chosen_group = _group_of(groups, chosen) if chosen is not None else None
    # The search gives a choice it finds poor only a few simulations, too few
    # to price it, and may split its simulations nearly evenly between two
    # good ones. So its favourites, where they are close, and the choice
    # made, where it is not the favourite, are each priced again by searches
    # of their own that play that choice in every simulation, batch by batch
    # with the same generators: they meet the same deals, their differences
    # are not the noise between two sets of deals, and the differences'
    # spread over the batches is their error.
    batches, per_batch = price_batches(budget)
    pricer = analyst(per_batch, PRICE_WORLD_EVERY)
    seeds = [derived_seed(seed, "price", version, seat, k) for k in range(batches)]
    priced: dict[int, tuple[list[float], int]] = {}

    def price(g: int) -> float:
        if g not in priced:
            action = _most_tried(groups[g], ranked)
            found = [pricer.value_of(obs, action, random.Random(s)) for s in seeds]
            priced[g] = ([e.expected for e in found], sum(e.worlds for e in found))
        runs = priced[g][0]
        return sum(runs) / len(runs)

    close = [g for g in order[:PLAYOFF] if values[g][1] >= CLOSE * values[order[0]][1]]
    best_group = max(close, key=lambda g: (price(g), -order.index(g))) if len(close) > 1 else order[0]
    loss = error = 0.0
    if chosen_group is not None and chosen_group != best_group:
        if price(chosen_group) > price(best_group):
            # Priced on the same deals, the choice made did better than the
            # search's favourite: it is the best, and nothing was lost.
            best_group = chosen_group
        else:
            if best_group not in priced:
                price(best_group)
            loss = round(price(best_group) - price(chosen_group), 3)
            error = round(paired_error(priced[best_group][0], priced[chosen_group][0]), 3)
            if thresholds.reach(loss) in ("mistake", "blunder"):
                # A costly decision may become a puzzle: its next choice is
                # priced too, so that a puzzle's answers are priced ones.
                runner_up = next((g for g in order if g not in (best_group, chosen_group)), None)
                if runner_up is not None:
                    price(runner_up)
    errors: dict[int, float] = {}
    if best_group in priced:
        errors[best_group] = 0.0
        for g, (runs, _) in priced.items():
            if g != best_group:
                errors[g] = round(paired_error(priced[best_group][0], runs), 3)
    for g, (runs, worlds) in priced.items():
        values[g] = (round(sum(runs) / len(runs), 3), worlds)
    best = (
        chosen
        if chosen is not None and chosen_group == best_group
        else _most_tried(groups[best_group], ranked)
    )
    choices = []
    for g, group in enumerate(groups):
        value, visits = values[g]
        texts = [choice_text(a) for a in group]
        for text in texts:
            same = tuple(t for t in texts if t != text)
            choices.append(ChoiceValue(text, value, visits, same, errors.get(g)))
    order = sorted(range(len(groups)), key=lambda g: _order_key(g, values, best_group))
    place = {choice_text(a): order.index(g) for g, group in enumerate(groups) for a in group}
    choices.sort(key=lambda c: place[c.choice])
    return tuple(choices), best, loss, error


def _groups(obs: Observation, candidates: Sequence[Action]) -> list[list[Action]]:
    """The candidates, cards that are the same play grouped (bids and trump
    choices each alone)."""
    if not isinstance(candidates[0], Play):
        return [[a] for a in candidates]
    seat = obs.seat
    assert seat is not None
    cards: list[Card] = [a.card for a in candidates if isinstance(a, Play) and a.card is not None]
    return [[Play(seat, c) for c in group] for group in same_plays(obs, cards)]


def _group_of(groups: Sequence[Sequence[Action]], action: Action) -> int:
    return next(g for g, group in enumerate(groups) if action in group)


def _group_values(
    ranked: Sequence[Evaluation], groups: Sequence[Sequence[Action]]
) -> list[tuple[float | None, int]]:
    """Each group's estimate (its members' means weighted by their
    simulations, rounded) and its simulations."""
    by_action = {e.action: e for e in ranked}
    out: list[tuple[float | None, int]] = []
    for group in groups:
        tried = [by_action[a] for a in group if a in by_action and by_action[a].worlds > 0]
        visits = sum(e.worlds for e in tried)
        value = sum(e.expected * e.worlds for e in tried) / visits if visits else None
        out.append((round(value, 3) if value is not None else None, visits))
    return out


def _favourites(
    groups: Sequence[Sequence[Action]],
    values: Sequence[tuple[float | None, int]],
    ranked: Sequence[Evaluation],
    cards: bool,
) -> list[int]:
    """The groups in the expert's order of preference: by simulations for
    cards (the search splits its simulations among cards that are the same
    play, so a group's total is what the expert would play), else as the
    expert ranked them (by simulations for a searched bid, by estimate for
    a trump choice priced on sampled deals)."""
    if cards:
        return sorted(range(len(groups)), key=lambda g: (-values[g][1], -_rank_key(values[g][0]), g))
    place = {e.action: i for i, e in enumerate(ranked)}
    return sorted(range(len(groups)), key=lambda g: place.get(groups[g][0], len(place)))


def _most_tried(group: Sequence[Action], ranked: Sequence[Evaluation]) -> Action:
    """The member of a group of the same play that the search tried most."""
    tries = {e.action: e.worlds for e in ranked}
    return max(group, key=lambda a: tries.get(a, 0))


def _rank_key(value: float | None) -> float:
    return value if value is not None else float("-inf")


def _order_key(g: int, values: Sequence[tuple[float | None, int]], best: int) -> tuple[int, float, int]:
    """The best group first, then by estimate, then by simulations."""
    value, visits = values[g]
    return (0 if g == best else 1, -_rank_key(value), -visits)


__all__ = [
    "PRICE_BATCHES",
    "WORLD_EVERY",
    "advise",
    "analyst",
    "choices_of",
    "derived_seed",
    "paired_error",
    "price_batches",
    "review_decision",
]
