"""The scorekeeper and the game share one plan of a hand (ohhell.hand): over
every preset and 3 to 7 players, a sheet fed with the bids, trump and tricks
of a match the engine played says the same dealer, size, bidding order, hook,
first leader, trump namer, tie-break hands and scores as the engine.

R-DEALER-ROTATE, R-BID-ORDER, R-HOOK, R-LEAD-LEFT, R-LEAD-DEALER,
R-TRUMP-BIDDER, R-TIE-EXTRA.
"""

from __future__ import annotations

import random

import pytest

from ohhell import (
    PRESETS,
    Bid,
    Bidding,
    NameTrump,
    Phase,
    Rules,
    RulesError,
    TrumpMode,
    advance_chance,
    apply,
    forbidden_bid,
    legal_actions,
    make_rules,
    new_game,
    seats_to_ask,
)
from ohhell.scorekeeper import ScoreGame


def _allowed(name: str, players: int) -> Rules | None:
    try:
        return make_rules(name, {"players": str(players), "first-dealer": str(players - 1)})
    except RulesError:
        return None  # Okenuff is for four players only


CASES = [(name, n) for name in PRESETS for n in range(3, 8) if _allowed(name, n) is not None]


@pytest.mark.parametrize(("name", "players"), CASES)
def test_the_sheet_plans_each_hand_as_the_game_plays_it(name: str, players: int) -> None:
    rules = _allowed(name, players)
    assert rules is not None
    if len(rules.schedule) > 12:  # a long match: its first hands and a short one do
        rules = rules.replace(hand_sizes=(rules.schedule[0], rules.schedule[1], 1))
    rng = random.Random(f"{name}/{players}")
    state = new_game(rules)
    sheet = ScoreGame(rules, [f"P{s}" for s in range(players)], first_dealer=rules.first_dealer)
    hands = 0
    while True:
        advance_chance(state, rng)
        if state.is_over:
            break
        view = sheet.current
        assert view is not None
        assert (view.number - 1, view.size, view.dealer, view.extra) == (
            state.hand_number,
            state.hand_size,
            state.dealer,
            state.is_extra_hand,
        )
        if state.phase is Phase.BID:
            seat = rng.choice(seats_to_ask(state))
            if rules.bidding is Bidding.SEQUENTIAL:
                assert view.next_bidder == seat == state.to_act
                assert view.forbidden == forbidden_bid(state, seat)
            bid = rng.choice([a for a in legal_actions(state, seat) if isinstance(a, Bid)])
            apply(state, bid)
            sheet.bid(seat, bid.bid)
            continue
        if state.phase is Phase.TRUMP:
            assert sheet.current is not None and sheet.current.trump_namer == state.trump_namer
            name_it = rng.choice([a for a in legal_actions(state, state.to_act) if isinstance(a, NameTrump)])
            apply(state, name_it)
            sheet.name_trump(name_it.suit)
            continue
        # Play: the first leader is the plan's, then the hand is played out.
        assert state.leader == view.first_leader and not state.trick and not state.tricks
        if rules.trump is TrumpMode.TURN and view.needs_trump is False and not view.trump_known:
            sheet.name_trump(state.trump)  # a turned card, entered as the players see it
        hand = state.hand_number
        while state.hand_number == hand and not state.is_over:
            apply(state, rng.choice(legal_actions(state, state.to_act)))
        result = state.results[-1]
        sheet.tricks(list(result.tricks))
        done = sheet.hands[-1]
        assert done.scores == result.scores and done.trump_namer == result.trump_namer
        assert sheet.totals == tuple(state.totals)
        hands += 1
    assert sheet.is_over and hands == len(state.results) == len(sheet.hands)
