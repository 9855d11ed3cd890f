"""bench/openspiel_bridge.py: our engine follows OpenSpiel's ``oh_hell`` deal
by deal, in both of OpenSpiel's scorings, so a strength figure measured
there is scored by our rules too."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import openspiel_bridge as bridge


@pytest.mark.parametrize("penalty", [False, True])
def test_a_deal_scores_alike_in_both_games(penalty: bool) -> None:
    # R-SC-TRICKS-BONUS (OpenSpiel's default), R-SC-PENALTY (its off_bid_penalty):
    # play_deal checks the engine's scores against pyspiel's returns itself.
    seen_miss = False
    for deal in range(6):
        players = [bridge.Ours("intermediate"), bridge.OpenSpielISMCTS(20), bridge.Ours("beginner")]
        result = bridge.play_deal(deal, players, size=5, seed=3, penalty=penalty)
        for seat in result.seats:
            if seat.bid == seat.tricks:
                assert seat.score == 10 + seat.tricks
            elif penalty:
                seen_miss = True
                assert seat.score == -abs(seat.bid - seat.tricks)
            else:
                seen_miss = True
                assert seat.score == seat.tricks
    assert seen_miss


def test_the_bridge_refuses_a_game_openspiel_cannot_deal() -> None:
    with pytest.raises(ValueError, match="3 to 7 players"):
        bridge.load_game(size=20, players=4, penalty=True)


def test_the_fair_search_reads_only_its_seats_observation() -> None:
    # Two deals the seat to bid first cannot tell apart (the other hands and
    # the undealt stock swapped around, its own hand and the turned card
    # kept): the fair search must search the same worlds in both. (Its choice
    # is not compared: OpenSpiel's search breaks ties by the order of its
    # hash tables, which follows where they sit in memory, so one state
    # searched twice may come out otherwise.)
    import random

    from ohhell import observe

    size, n = 5, 4
    chance = random.Random(11)
    spiel, engine = bridge.new_deal(chance, size, n)
    hands, turned = bridge.hands_and_trump(spiel, n)
    seat = spiel.current_player()
    pool = [c for s in range(n) if s != seat for c in hands[s]]
    taken = {bridge.action_of(c) for h in hands for c in h} | {bridge.action_of(turned)}
    pool += [bridge.card_of(a) for a in range(52) if a not in taken]
    chance.shuffle(pool)
    other = [list(h) for h in hands]
    for s in range(n):
        if s != seat:
            other[s], pool = pool[:size], pool[size:]
    history = spiel.history()
    twin = bridge.redeal(spiel, [[bridge.action_of(c) for c in h] for h in other])
    assert twin.information_state_string(seat) == spiel.information_state_string(seat)
    assert twin.history() != history  # what a search that peeked would see differ

    obs = observe(engine, seat)
    fair = bridge.OpenSpielISMCTS(200, stocks=4)
    searched = [[w.history() for w in fair.bot(5).worlds(state, obs)] for state in (spiel, twin)]
    assert searched[0] == searched[1]
    assert len({tuple(h) for h in searched[0]}) == 4  # four different deals of the hidden cards
    assert all(h != history and h != twin.history() for h in searched[0])


def test_a_fair_deal_plays_through() -> None:
    # The fair search rebuilds OpenSpiel's state in each world it deals and
    # checks it against the seat's information state: a whole deal with its
    # bids, voids and tricks, at every seat.
    players = [bridge.OpenSpielISMCTS(40, stocks=4)] * 3 + [bridge.Ours("intermediate")]
    for deal in range(2):
        result = bridge.play_deal(deal, players, size=6, seed=2)
        assert sum(seat.tricks for seat in result.seats) == 6


def test_the_fair_search_refuses_more_stocks_than_simulations() -> None:
    with pytest.raises(ValueError, match="stocks must be 0 to the 10 simulations"):
        bridge.OpenSpielISMCTS(10, stocks=11)


def test_both_searches_give_shares_of_the_legal_actions_that_sum_to_one() -> None:
    import random

    from ohhell import observe

    spiel, engine = bridge.new_deal(random.Random(4), 4, 3)
    legal = set(spiel.legal_actions())
    knowing = bridge.search_policy(spiel, 1, 60)
    fair = bridge.FairStock(60, 3, 2).policy(spiel, observe(engine, spiel.current_player()))
    for shares in (knowing, fair):
        assert set(shares) <= legal and shares
        assert abs(sum(shares.values()) - 1.0) < 1e-9
