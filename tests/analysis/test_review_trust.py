"""A review uses only what the deciding seat could see: deal the cards it
could not see differently, consistently with what it saw, and its review
is the same."""

from __future__ import annotations

import random

import pytest

from ohhell import Bid, Deal, GameState, NameTrump, Play, Record, observe, sample_hands
from ohhell.analysis import review_decision, review_record
from review_support import TINY, bot_match


def _other_world(record: Record, version: int, seat: int, rng: random.Random) -> Record:
    """The record up to ``version`` with this hand's hidden cards dealt
    again: the other seats' hands and the undealt cards, drawn from the
    deals ``seat`` cannot tell from the real one (``sample_hands``: the
    cards it saw played, the voids shown, the turned card), so its
    observation is the same."""
    state = Record(record.rules, record.seats, record.actions[:version]).replay()
    obs = observe(state, seat)
    now = sample_hands(obs, rng)
    start = state.hand_log_start
    old = record.actions[start]
    assert isinstance(old, Deal)
    played: list[list[object]] = [[] for _ in range(state.players)]
    for action in record.actions[start:version]:
        if isinstance(action, Play):
            played[action.seat].append(action.card)
    hands = tuple(
        old.hands[s] if s == seat else tuple(now[s]) + tuple(played[s])  # type: ignore[operator]
        for s in range(state.players)
    )
    actions = (*record.actions[:start], Deal(hands, old.turned), *record.actions[start + 1 : version])
    return Record(record.rules, record.seats, actions)


def _state(record: Record) -> GameState:
    return record.replay()


@pytest.mark.parametrize("match_seed", [21, 8])
def test_hidden_cards_do_not_change_the_review(match_seed: int) -> None:
    record = bot_match(match_seed, sizes=(4, 3))
    decisions = [(v, a.seat) for v, a in enumerate(record.actions) if isinstance(a, (Bid, NameTrump, Play))]
    rng = random.Random(match_seed)
    checked = 0
    for version, seat in decisions[:: max(1, len(decisions) // 10)]:
        real = _state(Record(record.rules, record.seats, record.actions[:version]))
        obs = observe(real, seat)
        chosen = record.actions[version]
        review = review_decision(obs, chosen, version=version, seed=2, budget=TINY)
        if review is None:
            continue
        other = _state(_other_world(record, version, seat, rng))
        moved = [
            s for s in range(real.players) if s != seat and sorted(real.hands[s]) != sorted(other.hands[s])
        ]
        assert moved, "the other world deals the hidden cards differently"
        assert observe(other, seat) == obs
        assert review_decision(observe(other, seat), chosen, version=version, seed=2, budget=TINY) == review
        checked += 1
    assert checked >= 3


def test_a_seats_decisions_in_a_whole_review_do_not_depend_on_the_others_cards() -> None:
    # The last hand's hidden cards dealt again for seat 2 at its first card:
    # every review of seat 2's decisions up to there is the same.
    record = bot_match(21, sizes=(4, 3))
    start = max(i for i, a in enumerate(record.actions) if isinstance(a, Deal))
    first_play = next(
        i for i, a in enumerate(record.actions) if i > start and isinstance(a, Play) and a.seat == 2
    )
    other = _other_world(record, first_play, 2, random.Random(5))
    cut = Record(record.rules, record.seats, record.actions[:first_play])
    mine = review_record(cut, seed=3, budget=TINY, seats=[2])
    theirs = review_record(other, seed=3, budget=TINY, seats=[2])
    assert mine.decisions == theirs.decisions and len(mine.decisions) > 0
    assert mine.record != theirs.record  # two different records all the same
