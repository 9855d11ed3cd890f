"""Chance as data: the draw for the first dealer and each shuffled deal,
built from an injected ``random.Random`` and then applied like any action,
so a match's log replays without randomness."""

from __future__ import annotations

import random

from . import hand as plan
from .cards import ALL_CARDS, Card
from .game import Action, Deal, DrawForDealer, GameState, IllegalActionError, Phase, apply
from .rules import TrumpMode


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
    if state.phase is Phase.DRAW:
        # R-DEALER-DRAW: each contender draws from one shuffled 52-card pack.
        drawn = rng.sample(ALL_CARDS, len(state.contenders))
        cards: list[Card | None] = [None] * state.players
        for seat, card in zip(state.contenders, drawn, strict=True):
            cards[seat] = card
        return DrawForDealer(tuple(cards))
    if state.phase is Phase.DEAL:
        pack = state.rules.pack()  # R-DECK-2: a fresh pack for every deal
        rng.shuffle(pack)
        n, size = state.players, state.hand_size
        hands = deal_from(pack, state.dealer, n, size)
        turned = None
        if state.rules.trump is TrumpMode.TURN and not plan.all_dealt(state.rules, size):
            turned = pack[n * size]  # R-TRUMP-TURN: the next card
        return Deal(hands, turned)
    raise IllegalActionError(f"chance does not act now: the phase is {state.phase}")


def advance_chance(state: GameState, rng: random.Random) -> list[Action]:
    """Apply chance actions until a player must act or the match is over."""
    done: list[Action] = []
    while state.phase is Phase.DRAW or state.phase is Phase.DEAL:
        action = chance_action(state, rng)
        apply(state, action)
        done.append(action)
    return done
