"""Chance as data: the draw for the first dealer and each shuffled deal,
built from an injected ``random.Random`` and then applied like any action,
so a match's log replays without randomness."""

from __future__ import annotations

import random
from typing import Final, TypeVar

from . import hand as plan
from .actions import Action, Deal, DrawForDealer
from .cards import ALL_CARDS, Card
from .game import GameState, IllegalActionError, Phase, apply
from .rules import TrumpMode

# Enum members read as globals (several times cheaper than off the class):
# every deal and every driver step asks for them.
_DRAW: Final = Phase.DRAW
_DEAL: Final = Phase.DEAL
_TURN: Final = TrumpMode.TURN

# For each pack size, the steps of a shuffle: (place, choices, random bits).
_STEPS: dict[int, tuple[tuple[int, int, int], ...]] = {}


_T = TypeVar("_T")


def shuffle(pack: list[_T], rng: random.Random) -> None:
    """Shuffle ``pack`` in place exactly as ``rng.shuffle(pack)`` does.

    Every hand starts with a shuffle, and ``random.Random.shuffle`` calls a
    Python helper for each card to draw a place below a bound: half of its
    time goes to those calls. Written out, with each step's bound and bit
    count worked out once per pack size, this makes the same swaps from the
    same random bits (tests/core/test_chance.py checks it against
    ``random.Random.shuffle`` over many seeds and packs), so a seed deals
    what it always dealt. A subclass may make its numbers another way, so
    anything but a plain ``random.Random`` shuffles with its own method.
    """
    if type(rng) is not random.Random:
        rng.shuffle(pack)
        return
    steps = _STEPS.get(len(pack))
    if steps is None:
        steps = _STEPS[len(pack)] = tuple(
            (i, i + 1, (i + 1).bit_length()) for i in range(len(pack) - 1, 0, -1)
        )
    getrandbits = rng.getrandbits
    for i, bound, bits in steps:
        j = getrandbits(bits)
        while j >= bound:  # a place past the bound: draw again, as random does
            j = getrandbits(bits)
        pack[i], pack[j] = pack[j], pack[i]


def deal_from(pack: list[Card], dealer: int, players: int, size: int) -> tuple[tuple[Card, ...], ...]:
    """R-DEAL: deal a pack in its order singly, clockwise, starting left of the dealer.

    Returns the hands by seat; card k of the pack goes to seat dealer + 1 + k.
    """
    first = (dealer + 1) % players
    count = players * size
    hands: list[tuple[Card, ...]] = [()] * players
    for j in range(players):
        hands[(first + j) % players] = tuple(pack[j:count:players])
    return tuple(hands)


def chance_action(state: GameState, rng: random.Random) -> DrawForDealer | Deal:
    """The next chance action (a draw round or a shuffled deal), built from ``rng``."""
    phase = state.phase
    if phase is _DRAW:
        # R-DEALER-DRAW: each contender draws from one shuffled 52-card pack.
        drawn = rng.sample(ALL_CARDS, len(state.contenders))
        cards: list[Card | None] = [None] * state.players
        for seat, card in zip(state.contenders, drawn, strict=True):
            cards[seat] = card
        return DrawForDealer(tuple(cards))
    if phase is _DEAL:
        rules = state.rules
        pack = rules.pack()  # R-DECK-2: a fresh pack for every deal
        shuffle(pack, rng)
        n, size = state.players, state.hand_size
        hands = deal_from(pack, state.dealer, n, size)
        turned = None
        if rules.trump is _TURN and not plan.all_dealt(rules, size):
            turned = pack[n * size]  # R-TRUMP-TURN: the next card
        return Deal(hands, turned)
    raise IllegalActionError(f"chance does not act now: the phase is {state.phase}")


def advance_chance(state: GameState, rng: random.Random) -> list[Action]:
    """Apply chance actions until a player must act or the match is over."""
    done: list[Action] = []
    while state.phase is _DRAW or state.phase is _DEAL:
        action = chance_action(state, rng)
        apply(state, action)
        done.append(action)
    return done
