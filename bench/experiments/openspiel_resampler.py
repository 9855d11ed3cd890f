"""What does OpenSpiel's ``oh_hell`` let its ISMCTS know? A check of its resampler.

OpenSpiel's ISMCTS searches worlds drawn by the game's
``resample_from_infostate(player, sampler)``. A fair draw deals the cards the
player has not seen (the other hands and the undealt stock) at random, so
the cards it gives the other seats differ from world to world: in the
measured setting (4 players, 10 tricks) 30 of 41 unseen cards go to the
other hands, and a fair draw picks exactly the real 30 once in C(41, 30),
about one in 2.3e9.

This plays ``--deals`` deals at random in pyspiel and, at every
``--every``-th decision, draws ``--worlds`` worlds for the seat to act and
counts:

- ``same_cards``: worlds whose other hands hold exactly the cards the other
  seats really hold (only their order among the seats drawn again): the
  stock is known;
- ``void_broken``: worlds that give a seat a card of a suit it has shown it
  lacks;
- ``own_kept``: worlds that keep the seat's own hand (a sanity check).

    python bench/experiments/openspiel_resampler.py [--deals 40] [--worlds 20] [--json]

``open-spiel`` 2.0.2 gives ``same_cards`` in every world: its ISMCTS knows
which cards are undealt, which a player at the table never does (our bots
see only ``ohhell.observe``). docs/performance.md says what that is worth.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import math
import os
import random
from typing import Any

import _bench_path  # noqa: F401  (bench/ on the path: strength, openspiel_bridge)
import pyspiel

from ohhell import Bid, Deal, Observation, Play, apply, new_game, observe
from ohhell.view import unseen_cards
from openspiel_bridge import PLAYERS, action_of, card_of, hands_and_trump, load_game, rules


def check(deals: int, worlds: int, every: int, seed: int) -> dict[str, Any]:
    """Random deals in pyspiel, our engine following each one action by action
    (as the bridge does), so what a seat has seen is read from ``observe``."""
    game = load_game(10)
    rng = random.Random(seed)
    counts: dict[str, float] = {
        "positions": 0,
        "worlds": 0,
        "same_cards": 0,
        "same_cards_if_fair": 0.0,
        "void_broken": 0,
        "own_kept": 0,
    }
    for _ in range(deals):
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        hands, turned = hands_and_trump(state)
        engine = new_game(rules(10, (state.current_player() - 1) % PLAYERS))
        apply(engine, Deal(tuple(tuple(h) for h in hands), turned))
        step = 0
        while not state.is_terminal():
            seat = state.current_player()
            if step % every == 0:
                _count(state, observe(engine, seat), worlds, rng, counts)
            step += 1
            code = rng.choice(state.legal_actions())
            state.apply_action(code)
            apply(engine, Bid(seat, code - 52) if code >= 52 else Play(seat, card_of(code)))
    return counts


def _count(state: Any, obs: Observation, worlds: int, rng: random.Random, counts: dict[str, float]) -> None:
    seat = state.current_player()
    real, _ = hands_and_trump(state)
    others = {action_of(c) for s in range(PLAYERS) if s != seat for c in real[s]}
    counts["positions"] += 1
    # How often a fair draw that ignores voids would give the other hands
    # exactly their real cards (one that respects them does so a little more
    # often, so this is a lower bound). Nearly all of it comes from the last
    # tricks, where few cards are left unseen.
    counts["same_cards_if_fair"] += worlds / math.comb(len(unseen_cards(obs)), len(others))
    for _ in range(worlds):
        sampler = pyspiel.UniformProbabilitySampler(rng.randrange(1 << 30), 0.0, 1.0)
        hands, _ = hands_and_trump(state.resample_from_infostate(seat, sampler))
        dealt = {action_of(c) for s in range(PLAYERS) if s != seat for c in hands[s]}
        counts["worlds"] += 1
        counts["same_cards"] += dealt == others
        counts["own_kept"] += sorted(map(action_of, hands[seat])) == sorted(map(action_of, real[seat]))
        counts["void_broken"] += any(
            c.suit in obs.voids[s] for s in range(PLAYERS) if s != seat for c in hands[s]
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--worlds", type=int, default=20, help="worlds drawn at each position")
    parser.add_argument("--every", type=int, default=3, help="check every k-th decision")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    counts = check(args.deals, args.worlds, args.every, args.seed)
    n = int(counts["worlds"])
    out = {
        "open_spiel": importlib.metadata.version("open_spiel"),
        "setting": f"oh_hell, {PLAYERS} players, 10 tricks",
        **counts,
        "same_cards_share": round(counts["same_cards"] / n, 4),
        "void_broken_share": round(counts["void_broken"] / n, 4),
        "same_cards_if_fair_share": round(counts["same_cards_if_fair"] / n, 4),
        "cores": os.cpu_count(),
    }
    out["same_cards_if_fair"] = round(float(out["same_cards_if_fair"]), 2)
    if args.json:
        print(json.dumps(out, indent=2))
    print(f"OpenSpiel {out['open_spiel']} {out['setting']}: {int(counts['positions'])} positions, {n} worlds")
    print(f"{'worlds whose other hands hold exactly the real cards':<56}{out['same_cards_share']:>8.1%}")
    print(f"{'the same, expected of a fair draw':<56}{out['same_cards_if_fair_share']:>8.1%}")
    print(f"{'worlds giving a seat a suit it has shown it lacks':<56}{out['void_broken_share']:>8.1%}")
    print(f"{'worlds keeping the seat its own hand':<56}{counts['own_kept'] / n:>8.1%}")


if __name__ == "__main__":
    main()
