"""The reference search bot (``ismcts``): legal, reproducible, and sensible.

Its strength is measured by bench/strength.py, not here.
"""

from __future__ import annotations

import random

import pytest

from ohhell import Bid, Play, apply, make_rules, new_game, observe
from ohhell.bots import get_bot, play_match
from ohhell.cards import parse_cards
from ohhell.game import Deal


def _deal(rules_options: dict[str, str], hands: list[str], turned: str) -> object:
    rules = make_rules("common", rules_options)
    state = new_game(rules)
    apply(state, Deal(tuple(tuple(parse_cards(h)) for h in hands), parse_cards(turned)[0]))
    return state


@pytest.mark.parametrize("nodes", ["shared", "seat"])
def test_decisions_are_reproducible_from_the_seed(nodes: str) -> None:
    rules = make_rules("pagat", {"hand-sizes": "4,3"})
    finals = []
    for _ in range(2):
        bots = [get_bot("ismcts", simulations=30, nodes=nodes) for _ in range(rules.players)]
        state = play_match(rules, bots, random.Random(11))
        finals.append([str(a) for a in state.log])
    assert finals[0] == finals[1]


@pytest.mark.parametrize("nodes", ["shared", "seat"])
def test_it_bids_and_plays_for_a_sure_contract(nodes: str) -> None:
    # R-SC-TRICKS-BONUS: holding the two top trumps in a 2-card hand, bid 2
    # and take both tricks; the other seats can do nothing about it.
    state = _deal(
        {"hand-sizes": "2", "first-dealer": "3", "hook": "no"},
        ["AS KS", "2H 3H", "4H 5H", "6H 7H"],
        "2S",
    )
    bot = get_bot("ismcts", simulations=300, nodes=nodes)
    rng = random.Random(3)
    assert bot.choose(observe(state, 0), rng) == Bid(0, 2)  # type: ignore[arg-type]


@pytest.mark.parametrize("nodes", ["shared", "seat"])
def test_under_sealed_bids_it_searches_its_own_bid(nodes: str) -> None:
    # R-BID-SIMULTANEOUS: the worlds leave the others' sealed bids unmade, so
    # several seats are still to bid in them; the search must start from the
    # asking seat's own bid. Seat 1 holds the two top trumps of a 2-card hand.
    options = {"bidding": "simultaneous", "hook": "no", "bid-changes": "no", "hand-sizes": "2"}
    options["first-dealer"] = "3"
    state = _deal(options, ["2H 3H", "AS KS", "4H 5H", "6H 7H"], "2S")
    apply(state, Bid(0, 0))  # type: ignore[arg-type]
    bot = get_bot("ismcts", simulations=300, nodes=nodes)
    assert bot.choose(observe(state, 1), random.Random(3)) == Bid(1, 2)  # type: ignore[arg-type]


def test_it_refuses_a_budget_of_nothing() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        get_bot("ismcts", simulations=0)


def test_it_refuses_an_unknown_way_of_keying_nodes() -> None:
    with pytest.raises(ValueError, match="'shared' or 'seat'"):
        get_bot("ismcts", nodes="world")


def test_a_single_legal_action_is_taken_without_search() -> None:
    state = _deal({"hand-sizes": "1", "first-dealer": "3", "hook": "no"}, ["AS", "2H", "3H", "4H"], "2S")
    for seat, bid in ((0, 1), (1, 0), (2, 0), (3, 0)):
        apply(state, Bid(seat, bid))  # type: ignore[arg-type]
    obs = observe(state, 0)  # type: ignore[arg-type]
    assert get_bot("ismcts", simulations=1).choose(obs, random.Random(0)) == Play(0, parse_cards("AS")[0])


def test_a_seat_node_never_depends_on_a_bid_still_sealed() -> None:
    # R-BID-SIMULTANEOUS: with nodes=seat a node is what the seat to act knows,
    # so another seat's sealed bid must not tell two of its nodes apart, while
    # its own cards must.
    from ohhell.bots.ismcts import _information_state

    options = {"bidding": "simultaneous", "hook": "no", "bid-changes": "no", "hand-sizes": "2"}
    options["first-dealer"] = "3"
    keys = []
    for first_bid in (0, 2):
        state = _deal(options, ["AS KS", "2H 3H", "4H 5H", "6H 7H"], "2S")
        apply(state, Bid(0, first_bid))  # type: ignore[arg-type]
        keys.append(_information_state(state, 1, [Bid(0, first_bid)]))  # type: ignore[arg-type]
    assert keys[0] == keys[1]
    other = _deal(options, ["AS KS", "2H 4H", "3H 5H", "6H 7H"], "2S")
    apply(other, Bid(0, 0))  # type: ignore[arg-type]
    assert _information_state(other, 1, [Bid(0, 0)]) != keys[0]  # type: ignore[arg-type]
