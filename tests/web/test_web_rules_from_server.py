"""The pages compute no rule: whose turn it is, who bids next, whose card is
whose in a trick and whether bids are sealed come from the server, which asks
the core (R-BID-ORDER, R-BID-CHANGE, R-BID-SIMULTANEOUS, R-TRICK)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from ohhell import (
    Bidding,
    Phase,
    advance_chance,
    apply,
    legal_actions,
    make_rules,
    new_game,
    observe,
    seats_to_ask,
)
from ohhell.web.protocol import observation_json

STATIC = Path(__file__).resolve().parents[2] / "src" / "ohhell" / "web" / "static"

RULES = {
    "sequential, bid changes": {"players": "4", "bid-changes": "yes", "hand-sizes": "3,2"},
    "simultaneous": {
        "players": "5",
        "bidding": "simultaneous",
        "hook": "no",
        "bid-changes": "no",
        "hand-sizes": "3,2",
    },
    "trump named": {"players": "3", "trump": "bidder", "hand-sizes": "3,2"},
}


@pytest.mark.parametrize("name", RULES)
def test_every_observation_says_whose_turn_it_is(name: str) -> None:
    rules = make_rules("pagat", RULES[name])
    rng = random.Random(name)
    state = new_game(rules)
    seen_change = 0
    while True:
        advance_chance(state, rng)
        if state.is_over:
            break
        ask = seats_to_ask(state)
        for seat in [None, *range(rules.players)]:
            changer = state.change_seat if state.phase is Phase.BID else None
            can_change = seat is not None and seat == changer and seat not in ask
            data = observation_json(
                observe(state, seat), [f"P{s}" for s in range(rules.players)], can_change=can_change
            )
            assert data["turn"] == list(ask)
            assert data["bids_sealed"] == (rules.bidding is Bidding.SIMULTANEOUS and state.phase is Phase.BID)
            if can_change:
                # R-BID-CHANGE: the change window ends when the next bidder bids.
                assert data["change_until"] == state.to_act
                seen_change += 1
            else:
                assert data["change_until"] is None
            for trick, sent in zip(state.tricks, data["tricks"], strict=True):
                assert sent["plays"] == [
                    [trick.seat_of(i, rules.players), str(c)] for i, c in enumerate(trick.cards)
                ]
        seat = rng.choice(ask)
        apply(state, rng.choice(legal_actions(state, seat)))
    if rules.bid_changes:
        assert seen_change > 0


def test_the_pages_hold_no_turn_or_seat_arithmetic() -> None:
    # The patterns the pages used before the server sent "turn", "change_until",
    # "bids_sealed" and each trick's "plays": seat arithmetic and rule reading.
    forbidden = [
        r"%\s*\w+\.players",  # the next seat, the seat of a card in a trick
        r"leader\s*\+",
        r"seat\s*\+\s*1\)\s*%",  # (not "Seat ${seat + 1}", a 1-based label)
        r"dealer\s*\+",
        r"rules\.bidding",
        r"\.actors\.length",
    ]
    scripts = sorted(STATIC.rglob("*.js"))
    assert any(s.parent.name == "table" for s in scripts)  # the table page's parts too
    for script in scripts:
        text = script.read_text()
        for pattern in forbidden:
            assert not re.search(pattern, text), f"{script.name} works out a rule: /{pattern}/"
