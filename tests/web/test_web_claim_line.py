"""The card the server plays for a standing claim (docs/web.md, "Claims"):
chosen from the claimer's own view, so it tells nobody where the hidden
cards lie. Whatever the others' hands are, as long as they agree with what
the claimer sees, the server plays the same card; and a claim the referee
calls certain comes true however the others play.

These drive the functions the table calls (``line_holds`` to accept a claim
as certain, ``settling_play`` with ``line`` for each of the claimer's cards) over many
random positions; tests/web/test_web_claims.py plays a standing claim
through the server itself.
"""

from __future__ import annotations

import random

from ohhell import (
    Claim,
    GameState,
    Phase,
    advance_chance,
    apply,
    claimer_play,
    legal_actions,
    line_holds,
    make_rules,
    new_game,
    observe,
    sample_hands,
    seats_to_ask,
    settling_play,
    tricks_left,
)

REDEALS = 12  # deals of the hidden cards tried at each of the claimer's turns


def play_position(seed: int, players: int, size: int) -> GameState:
    """A random hand in its play, some cards already played."""
    rng = random.Random(seed)
    options = {"players": str(players), "hand-sizes": str(size), "hook": "no", "bid-changes": "no"}
    state = new_game(make_rules("pagat", options))
    advance_chance(state, rng)
    while state.phase is not Phase.PLAY:
        apply(state, rng.choice(legal_actions(state, seats_to_ask(state)[0])))
    for _ in range(rng.randrange(players * size // 2)):
        apply(state, rng.choice(legal_actions(state, state.to_act)))
    return state


def redealt(state: GameState, seat: int, rng: random.Random) -> GameState:
    """``state`` with the cards ``seat`` cannot see dealt again, agreeing with
    everything ``seat`` has seen (its hand, the cards played, the voids)."""
    world = state.clone()
    world.hands = [list(hand) for hand in sample_hands(observe(state, seat), rng)]
    assert world.hands[seat] == state.hands[seat]
    return world


def test_the_card_played_for_a_standing_claim_never_depends_on_the_hidden_hands() -> None:
    turns = changed_deals = claims = 0
    for seed in range(60):
        players, size = 3 + seed % 3, 4 + seed % 3
        state = play_position(seed, players, size)
        if state.phase is not Phase.PLAY:
            continue
        rng = random.Random(seed)
        standing = [
            (seat, k)
            for seat in range(players)
            for k in range(tricks_left(state))  # fewer than every trick left: the claim stands
            if line_holds(state, seat, k)
        ]
        if not standing:
            continue
        seat, k = rng.choice(standing)
        claim = Claim(seat, k, len(state.log))
        claims += 1
        hand, start = state.hand_number, state.taken[seat]
        while state.hand_number == hand and state.phase is Phase.PLAY:
            if state.to_act != seat:
                apply(state, rng.choice(legal_actions(state, state.to_act)))  # the others play on freely
                continue
            card = settling_play(state, claim, line=True)
            assert card == claimer_play(observe(state, seat), k - (state.taken[seat] - start))
            for _ in range(REDEALS):
                world = redealt(state, seat, rng)
                changed_deals += world.hands != state.hands
                assert settling_play(world, claim, line=True) == card, (seed, claim)
            turns += 1
            apply(state, card)
        # The claim came true, whatever the others played.
        assert state.results[-1].tricks[seat] - start == k, (seed, claim)
    # Enough positions were tried for the test to mean something, and the
    # re-deals did change the hidden hands.
    assert claims >= 20 and turns >= 40 and changed_deals >= turns * REDEALS // 2, (claims, turns)


def test_the_referee_calls_certain_only_what_the_claimers_line_makes_true() -> None:
    # For every claim in a few small positions: line_holds agrees with the
    # line played against every play of the others, move by move.
    def line_true(state: GameState, claim: Claim, start: int) -> bool:
        if state.phase is not Phase.PLAY or state.hand_number != hand:
            return state.results[-1].tricks[claim.seat] - start == claim.tricks
        moves = (
            [settling_play(state, claim, line=True)]
            if state.to_act == claim.seat
            else legal_actions(state, state.to_act)
        )
        for move in moves:
            after = state.clone()
            apply(after, move)
            if not line_true(after, claim, start):
                return False
        return True

    seen = {True: 0, False: 0}
    for seed in range(12):
        state = play_position(seed + 100, 3, 3)
        if state.phase is not Phase.PLAY:
            continue
        hand = state.hand_number
        for seat in range(3):
            for k in range(tricks_left(state) + 1):
                holds = line_holds(state, seat, k)
                assert holds == line_true(state, Claim(seat, k, len(state.log)), state.taken[seat]), (
                    seed,
                    seat,
                    k,
                )
                seen[bool(holds)] += 1
    assert seen[True] and seen[False]
