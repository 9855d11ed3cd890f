"""Chance: the deal's shuffle makes exactly the swaps ``random.Random.shuffle``
makes, so a seed deals what it always dealt (R-DEAL)."""

from __future__ import annotations

import random
from collections.abc import MutableSequence
from typing import Any

import pytest

from ohhell import PRESETS, Deal, Deck, Rules, TrumpMode, chance_action, deal_from, new_game
from ohhell.chance import shuffle


@pytest.mark.parametrize("size", [1, 2, 3, 13, 52, 65, 78])
def test_shuffle_is_random_shuffle(size: int) -> None:
    # The same permutation from the same seed, and the generator left in the
    # same state (the same bits drawn, redraws included).
    for seed in range(300):
        ours, theirs = random.Random(seed), random.Random(seed)
        pack, expected = list(range(size)), list(range(size))
        shuffle(pack, ours)
        theirs.shuffle(expected)
        assert pack == expected, seed
        assert ours.getstate() == theirs.getstate(), seed


def test_shuffle_lets_a_subclass_shuffle_itself() -> None:
    # A subclass may make its numbers another way: its own shuffle is used.
    class Reversing(random.Random):
        def shuffle(self, x: MutableSequence[Any]) -> None:
            x.reverse()

    pack = list(range(10))
    shuffle(pack, Reversing(1))
    assert pack == list(range(9, -1, -1))


@pytest.mark.parametrize(
    "rules",
    [
        PRESETS["pagat"].replace(first_dealer=2),
        PRESETS["classic-tens"].replace(players=6, deck=Deck.AUSTRALIAN, first_dealer=0),
        PRESETS["common"].replace(trump=TrumpMode.FIXED, hook=False, first_dealer=1),
    ],
    ids=["pagat", "australian-6", "fixed-trump"],
)
def test_a_deal_is_the_seeded_random_shuffle_dealt_singly(rules: Rules) -> None:
    # R-DEAL, R-TRUMP-TURN: chance deals the pack as random.Random.shuffle
    # leaves it, one card at a time from the dealer's left, and turns the next.
    for seed in range(50):
        state = new_game(rules)
        deal = chance_action(state, random.Random(seed))
        assert isinstance(deal, Deal)
        pack = state.rules.pack()
        random.Random(seed).shuffle(pack)
        n, size = state.players, state.hand_size
        assert deal.hands == deal_from(pack, state.dealer, n, size)
        turns = state.rules.trump is TrumpMode.TURN and n * size < len(pack)
        assert deal.turned == (pack[n * size] if turns else None)
