"""How much the expert's readings of the table tell it about the hidden cards.

The expert weighs every world it deals by how well the hands in it explain
the others' bids (``inference``, on by default) and, with ``read_play=1``,
the cards they have played (``ohhell.bots.playmodel``). This measures what
each reading is worth before any search: at positions of expert self-play
(the seat to play, a card decision), it deals ``--worlds`` worlds as the
search does, weighs them each way, and scores the chance the weighted
worlds give each hidden card's true holder (the mean log, in nats: higher
is better; uniform worlds are the baseline). It also reports the effective
share of the worlds the weights keep (1 when all weigh alike). For scale, a
last row deals the worlds from the cards the hidden hands really hold: what
knowing the undealt cards is worth, which no bot of ours may know.

    python bench/experiments/inference.py --deals 40 --jobs 2 --seed 1

Deterministic from ``--seed``. Prints JSON, then a short table.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from ohhell import (
    Observation,
    Phase,
    apply,
    chance_action,
    make_rules,
    new_game,
    observe,
    sample_hands,
    seats_to_ask,
)
from ohhell.bots.expert import ExpertBot
from ohhell.bots.fastdeal import Layout, layout

READINGS: dict[str, dict[str, bool]] = {
    "none": {"inference": False, "read_play": False},
    "bids": {"inference": True, "read_play": False},
    "play": {"inference": False, "read_play": True},
    "bids+play": {"inference": True, "read_play": True},
}


def measure(job: tuple[int, dict[str, Any]]) -> dict[str, list[float]]:
    """One deal: per reading, the summed log-chance of the true holders, the
    hidden cards counted, and the summed effective shares of the positions."""
    deal, a = job
    rules = make_rules(a["preset"], {"players": str(a["players"]), "hand-sizes": str(a["hand_size"])})
    lay = layout(rules)
    rng = random.Random(f"inference:{a['seed']}:{deal}")
    state = new_game(rules)
    bots = [ExpertBot(worlds=80, simulations=a["simulations"]) for _ in range(rules.players)]
    readers = {name: ExpertBot(**options) for name, options in READINGS.items()}
    # By reading: the summed log-chances, the cards, the summed kept shares, the positions.
    out = {name: [0.0, 0.0, 0.0, 0.0] for name in [*READINGS, "told the stock"]}
    while not state.is_over:
        if state.is_chance:
            apply(state, chance_action(state, rng))
            continue
        seat = seats_to_ask(state)[0]
        obs = observe(state, seat)
        if obs.phase is Phase.PLAY and len(obs.tricks) >= a["min_tricks"] and rng.random() < a["share"]:
            hidden = [s for s in range(rules.players) if obs.hands[s] is None]
            truth = lay.masks([state.hands[s] if s in hidden else () for s in range(rules.players)])
            worlds = [lay.masks(sample_hands(obs, rng)) for _ in range(a["worlds"])]
            told = _told_the_stock(obs, truth, hidden, lay, rng, a["worlds"])
            ways: list[tuple[str, list[list[int]], Callable[[Sequence[int]], float] | None]] = [
                (name, worlds, reader.world_likelihood(obs, lay)) for name, reader in readers.items()
            ]
            for name, dealt, weigh in [*ways, ("told the stock", told, None)]:
                weights = [weigh(m) if weigh is not None else 1.0 for m in dealt]
                total = sum(weights)
                row = out[name]
                row[2] += total * total / sum(w * w for w in weights) / len(weights)
                row[3] += 1
                for s in hidden:
                    rest = truth[s]
                    while rest:
                        bit = rest & -rest
                        rest ^= bit
                        held = sum(w for w, m in zip(weights, dealt, strict=True) if m[s] & bit)
                        row[0] += math.log(max(held / total, 1e-4))
                        row[1] += 1
        apply(state, bots[seat].choose(obs, rng))
    return out


def _told_the_stock(
    obs: Observation, truth: list[int], hidden: list[int], lay: Layout, rng: random.Random, count: int
) -> list[list[int]]:
    """A reference no bot may use: worlds dealt uniformly from the cards the
    hidden hands really hold (the stock known, as OpenSpiel 2.0.2's
    resampler gives its search), shown voids respected."""
    cards = [slot for s in hidden for slot in range(lay.size) if truth[s] >> slot & 1]
    lacks = {s: sum(lay.suit_mask[int(suit)] for suit in obs.voids[s]) for s in hidden}
    worlds: list[list[int]] = []
    while len(worlds) < count:
        rng.shuffle(cards)
        masks = [0] * obs.players
        at = 0
        for s in hidden:
            k = obs.hand_counts[s]
            masks[s] = sum(1 << slot for slot in cards[at : at + k])
            at += k
        if all(not masks[s] & lacks[s] for s in hidden):
            worlds.append(masks)
    return worlds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--preset", default="common")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--hand-size", type=int, default=10)
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worlds", type=int, default=600, help="worlds dealt at each position")
    parser.add_argument("--share", type=float, default=0.3, help="share of card decisions measured")
    parser.add_argument("--min-tricks", type=int, default=1, help="tricks played before a position counts")
    parser.add_argument("--simulations", type=int, default=500, help="the playing experts' budget")
    args = parser.parse_args()
    settings = {k: v for k, v in vars(args).items() if k not in ("jobs", "deals")}
    totals = {name: [0.0, 0.0, 0.0, 0.0] for name in [*READINGS, "told the stock"]}
    with ProcessPoolExecutor(args.jobs) as pool:
        for done, result in enumerate(pool.map(measure, [(d, settings) for d in range(args.deals)]), 1):
            for name, row in result.items():
                totals[name] = [x + y for x, y in zip(totals[name], row, strict=True)]
            print(f"\r{done}/{args.deals} deals", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    base = totals["none"][0] / totals["none"][1] if totals["none"][1] else 0.0
    report = {
        "settings": {**settings, "deals": args.deals},
        "positions": int(totals["none"][3]),
        "hidden_cards": int(totals["none"][1]),
        "readings": {
            name: {
                "log_chance_of_truth": round(row[0] / row[1], 4) if row[1] else None,
                "gain_over_uniform": round(row[0] / row[1] - base, 4) if row[1] else None,
                "effective_share": round(row[2] / row[3], 3) if row[3] else None,
            }
            for name, row in totals.items()
        },
    }
    print(json.dumps(report, indent=2))
    print(f"\n{'reading':<15} {'nats/card':>10} {'gain':>8} {'kept':>6}", file=sys.stderr)
    readings: dict[str, dict[str, float]] = report["readings"]  # type: ignore[assignment]
    for name, r in readings.items():
        nats, gain, kept = r["log_chance_of_truth"], r["gain_over_uniform"], r["effective_share"]
        print(f"{name:<15} {nats:>10.4f} {gain:>+8.4f} {kept:>6.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
