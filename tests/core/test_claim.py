"""Claims (``ohhell.claim``): when a claim is certain, how the rest of the
hand is settled, and claims in the game record."""

from __future__ import annotations

import random

import pytest

from ohhell import (
    Claim,
    GameState,
    IllegalActionError,
    Phase,
    Play,
    Record,
    RecordError,
    advance_chance,
    apply,
    check_claim,
    claim_holds,
    claim_possible,
    dumps,
    legal_actions,
    loads,
    make_rules,
    new_game,
    seats_to_ask,
    settling_play,
    tricks_left,
)
from ohhell.hand import playable
from support import in_play


def random_play_state(seed: int, players: int = 4, size: int = 4) -> GameState:
    """A random hand in its play, some cards already played."""
    rng = random.Random(seed)
    options = {"players": str(players), "hand-sizes": str(size), "hook": "no", "bid-changes": "no"}
    state = new_game(make_rules("pagat", options))
    advance_chance(state, rng)
    while state.phase is not Phase.PLAY:
        seat = seats_to_ask(state)[0]
        apply(state, rng.choice(legal_actions(state, seat)))
    for _ in range(rng.randrange(players * size)):
        apply(state, rng.choice(legal_actions(state, state.to_act)))
        if state.phase is not Phase.PLAY:
            break
    return state if state.phase is Phase.PLAY else random_play_state(seed + 1000, players, size)


def taken_by(before: GameState, after: GameState, seat: int) -> int:
    """Tricks ``seat`` took with the one action between two states."""
    now = after.results[-1].tricks[seat] if after.phase is not Phase.PLAY else after.taken[seat]
    return now - before.taken[seat]


def brute_force(state: GameState, seat: int, need: int) -> bool:
    """The claim decided by the core's own game, move by move (slow, sure):
    the phase leaves PLAY when the hand ends."""
    if state.phase is not Phase.PLAY:
        return need == 0
    to_act = state.to_act
    outcomes = []
    for action in legal_actions(state, to_act):
        child = state.clone()
        apply(child, action)
        took = taken_by(state, child, seat)
        outcomes.append(need - took >= 0 and brute_force(child, seat, need - took))
    return any(outcomes) if to_act == seat else all(outcomes)


def brute_possible(state: GameState, seat: int, need: int) -> bool:
    """Can the hand end with ``seat`` taking ``need`` more, every seat helping?"""
    if state.phase is not Phase.PLAY:
        return need == 0
    for action in legal_actions(state, state.to_act):
        child = state.clone()
        apply(child, action)
        took = taken_by(state, child, seat)
        if need - took >= 0 and brute_possible(child, seat, need - took):
            return True
    return False


def test_a_claim_is_certain_only_when_no_play_of_the_others_can_break_it() -> None:
    # Seat 0 leads the ace and king of spades (trump is clubs, nobody has one).
    state = in_play(("AS KS", "2H 3H", "4H 5H"))
    assert tricks_left(state) == 2
    assert claim_holds(state, 0, 2) is True
    assert claim_holds(state, 0, 1) is False and claim_holds(state, 0, 0) is False
    assert claim_holds(state, 1, 0) is True and claim_holds(state, 2, 0) is True
    # Seat 1 would duck the first heart, but seat 2 can win it and lead the
    # second heart into seat 1's nine: taking none is not certain.
    ducks = in_play(("4H 2S", "2H 9H", "3H 5H"))
    assert claim_holds(ducks, 1, 0) is False


def test_certainty_needs_the_right_card_and_the_search_finds_it() -> None:
    # R-FOLLOW: seat 1 must follow hearts. It can take exactly one trick only
    # by ducking the first (2H under 5H) and winning the second with AH.
    state = in_play(("5H 3H", "2H AH", "4H 6H"))
    assert claim_holds(state, 1, 1) is True
    play = settling_play(state, Claim(1, 1, len(state.log)))
    assert play.seat == 0  # seat 0 is to play: not the claimer's card to choose, any legal one


@pytest.mark.parametrize("seed", range(40))
def test_the_search_agrees_with_the_game_played_out_move_by_move(seed: int) -> None:
    state = random_play_state(seed, players=3 + seed % 2, size=3)
    for seat in range(state.players):
        for tricks in range(tricks_left(state) + 1):
            assert claim_holds(state, seat, tricks) == brute_force(state, seat, tricks), (seed, seat, tricks)


@pytest.mark.parametrize("seed", range(30))
def test_a_certain_claim_comes_true_whatever_the_others_play(seed: int) -> None:
    rng = random.Random(seed)
    state = random_play_state(seed, size=5)
    certain = [
        (seat, k)
        for seat in range(state.players)
        for k in range(tricks_left(state) + 1)
        if claim_holds(state, seat, k)
    ]
    if not certain:
        pytest.skip("no certain claim in this position")  # the next seeds have one
    seat, k = rng.choice(certain)
    claim = Claim(seat, k, len(state.log))
    hand, start = state.hand_number, state.taken[seat]
    while state.hand_number == hand:
        to_act = state.to_act
        action = settling_play(state, claim) if to_act == seat else rng.choice(legal_actions(state, to_act))
        apply(state, action)
    assert state.results[-1].tricks[seat] - start == k


@pytest.mark.parametrize("seed", range(20))
def test_an_agreed_claim_is_played_out_so_that_it_comes_true_when_it_can(seed: int) -> None:
    state = random_play_state(seed + 500, size=4)
    seat = seed % state.players
    hand, start = state.hand_number, state.taken[seat]
    for k in range(tricks_left(state) + 1):
        trial = state.clone()
        claim = Claim(seat, k, len(trial.log))
        possible = brute_possible(trial, seat, k)  # can the cards end that way at all?
        assert claim_possible(trial, seat, k) == possible
        while trial.hand_number == hand:
            apply(trial, settling_play(trial, claim, agreed=True))
        took = trial.results[-1].tricks[seat] - start
        assert (took == k) == possible, (seed, k, took)


@pytest.mark.parametrize("seed", range(30))
def test_the_follow_rule_is_one_rule(seed: int) -> None:
    # R-FOLLOW: hand.playable and the game's legal plays agree.
    state = random_play_state(seed, players=5, size=6)
    led = state.trick[0].suit if state.trick else None
    cards = playable(state.hands[state.to_act], led)
    legal = [a.card for a in legal_actions(state, state.to_act) if isinstance(a, Play)]
    assert sorted(cards) == sorted(legal)


def test_a_claim_outside_the_play_or_out_of_range_is_refused() -> None:
    state = in_play(("AS KS", "2H 3H", "4H 5H"))
    for seat, tricks, words in ((0, 3, "0 to 2"), (0, -1, "0 to 2"), (5, 0, "no seat")):
        with pytest.raises(IllegalActionError, match=words):
            check_claim(state, seat, tricks)
    bidding = new_game(make_rules("pagat", {"players": "3", "hand-sizes": "2"}))
    advance_chance(bidding, random.Random(1))
    with pytest.raises(IllegalActionError, match="while the cards are played"):
        check_claim(bidding, 0, 0)


def test_a_big_hand_past_the_budget_is_not_known() -> None:
    rng = random.Random(3)
    state = new_game(
        make_rules("pagat", {"players": "4", "hand-sizes": "10", "hook": "no", "bid-changes": "no"})
    )
    advance_chance(state, rng)
    while state.phase is not Phase.PLAY:
        apply(state, legal_actions(state, seats_to_ask(state)[0])[0])
    assert tricks_left(state) == 10
    assert claim_holds(state, 0, 3, budget=50) is None  # not known: the others are asked


def test_claims_in_the_record_round_trip_and_are_checked_on_replay() -> None:
    state = in_play(("AS KS", "2H 3H", "4H 5H"), bids=(2, 0, 0))
    at = len(state.log)
    claim = Claim(0, 2, at)
    while state.phase is Phase.PLAY:
        apply(state, settling_play(state, claim, agreed=True))
    record = Record.from_state(state, ("Ann", "Bob", "Cy"), claims=[claim])
    text = dumps(record)
    assert "claim 0 2\nplay 0 AS" in text
    again = loads(text)
    assert again.claims == (claim,) and again == record
    assert again.replay().results[-1].tricks == (2, 0, 0)
    # A claim that did not come true is refused with its line and why.
    wrong = text.replace("claim 0 2", "claim 1 1")
    with pytest.raises(RecordError) as info:
        loads(wrong).replay()
    line = wrong.splitlines().index("claim 1 1") + 1
    assert f"line {line}" in str(info.value) and "claimed 1 of the tricks left but ended with 0" in str(
        info.value
    )
    # A claim before the cards are played is refused.
    early = text.replace("claim 0 2\n", "").replace("bid 0 2", "claim 0 0\nbid 0 2")
    with pytest.raises(RecordError, match="while the cards are played"):
        loads(early).replay()
    with pytest.raises(RecordError, match="claim SEAT TRICKS"):
        loads(text.replace("claim 0 2", "claim 0"))


def test_a_bot_accepts_a_claim_only_when_its_own_cards_make_it_sure() -> None:
    from ohhell import observe
    from ohhell.bots.claims import accepts_claim

    # Seat 0 shows the two top trumps: whoever holds the rest, it takes both
    # tricks, so seat 1 accepts; a claim of none is refused.
    state = in_play(("AS KS", "2S 3S", "4S 5S"), turned="7S")
    shown = state.hands[0]
    obs = observe(state, 1)
    assert accepts_claim(obs, 0, 2, shown, random.Random(1)) is True
    assert accepts_claim(obs, 0, 0, shown, random.Random(1)) is False
    # The ace and queen of spades: sure in the real deal (seat 2 has no
    # king), not from seat 2's cards and the shown ones alone (seat 1 might
    # hold the king): a careful bot refuses.
    state = in_play(("AS QS", "2H 3H", "4H 5H", "6H 7H"), turned="7S")
    assert claim_holds(state, 0, 2) is True
    assert accepts_claim(observe(state, 2), 0, 2, state.hands[0], random.Random(1)) is False
