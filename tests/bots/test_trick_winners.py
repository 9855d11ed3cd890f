"""One rule decides a trick (R-TRICK, R-DECK-AU): the bots' fast paths agree
with the engine on every trick of random matches under every preset.

The fast model (``fastdeal``: slots and bit masks) and the rule-based bots
(``winning_play`` on a started trick) both use the core's ``beats``; these
tests play whole matches and compare them with the winner the engine records,
also for every started trick along the way.
"""

from __future__ import annotations

import random

import pytest

from ohhell import (
    PRESETS,
    Phase,
    Rules,
    RulesError,
    advance_chance,
    apply,
    legal_actions,
    make_rules,
    new_game,
    seats_to_ask,
)
from ohhell.bots.fastdeal import layout, lookup_winner, suit_index
from ohhell.bots.rulebased import winning_play


def _allowed(name: str, players: int) -> bool:
    try:
        make_rules(name, {"players": str(players)})
    except RulesError:
        return False  # Okenuff is for four players only
    return True


CASES = [(name, players) for name in PRESETS for players in (3, 4, 5, 7) if _allowed(name, players)] + [
    ("pagat-australian", 6),
    ("pagat-no-trump", 4),
]


def _rules(name: str, players: int) -> Rules:
    if name == "pagat-australian":
        return make_rules("pagat", {"players": str(players), "deck": "australian"})
    if name == "pagat-no-trump":
        return make_rules("pagat", {"players": str(players), "trump": "none"})
    return make_rules(name, {"players": str(players)})


@pytest.mark.parametrize(("name", "players"), CASES)
def test_fast_paths_agree_with_the_engine_on_every_trick(name: str, players: int) -> None:
    rules = _rules(name, players)
    lay = layout(rules)
    checked = 0
    for seed in range(3):
        rng = random.Random(f"{name}/{players}/{seed}")
        state = new_game(rules)
        while True:
            advance_chance(state, rng)
            if state.is_over:
                break
            if state.phase is not Phase.PLAY:
                seat = rng.choice(seats_to_ask(state))
                apply(state, rng.choice(legal_actions(state, seat)))
                continue
            if not state.trick:  # a new trick: the cards still in hand take distinct slots
                masks = lay.masks(state.hands)
                slots: list[int] = []
                played: list[tuple[int, object]] = []
                leader = state.leader
            seat = state.to_act
            action = rng.choice(legal_actions(state, seat))
            apply(state, action)
            card = state.log[-1].card  # a blind play is logged with its real card
            slot = next(s for s in lay.slots_of[card] if masks[seat] >> s & 1)
            masks[seat] &= ~(1 << slot)
            slots.append(slot)
            played.append((seat, card))
            trump = suit_index(state.trump)
            fast = (leader + lookup_winner(lay, slots, trump)) % players
            rule_based = winning_play(tuple(played), state.trump)[0]  # type: ignore[arg-type]
            assert fast == rule_based, (played, state.trump)
            if len(played) == players:
                assert fast == state.tricks[-1].winner, (played, state.trump)
                checked += 1
    assert checked > 0
