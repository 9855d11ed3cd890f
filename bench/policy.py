"""The greedy playout policy (``fastdeal.choose_card``) as a player.

Every search bot of the project finishes its simulated hands with this
policy and models the other seats by it, so how well it makes its bids is
the ceiling of what the search can see. Deals are 4 players, 10 cards, a
turned trump, with bids from the expert's quick hand estimate.

- Self-play: every seat plays the policy; exact-bid rate and points a seat.
- ``--vs FILE``: a seat swap against another version of the policy. FILE is
  a copy of ``fastdeal.py`` (for instance ``git show REV:src/ohhell/bots/fastdeal.py``);
  in each deal one seat at a time plays this version and the others the
  other one, on the same cards, and the points it gains over the all-other
  baseline are averaged (paired, so the cards' luck cancels).

    python bench/policy.py --deals 5000
    git show 2e0908e:src/ohhell/bots/fastdeal.py > /tmp/old_fastdeal.py
    python bench/policy.py --deals 5000 --vs /tmp/old_fastdeal.py

Deterministic from ``--seed``: the same figures on any machine.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import statistics
from collections.abc import Callable
from types import ModuleType
from typing import Any

from ohhell import make_rules
from ohhell.bots import fastdeal
from ohhell.bots.expert import estimate_tricks

PLAYERS, TRICKS = 4, 10


def load(path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location("other_fastdeal", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "ohhell.bots"  # its relative imports resolve to this install
    spec.loader.exec_module(module)
    return module


def mixed(this: Callable[..., int], other: Callable[..., int], seat: int) -> Callable[..., int]:
    """A choose_card that is ``this`` for ``seat`` and ``other`` for the rest."""

    def choose(*args: Any, **kwargs: Any) -> int:
        return (this if args[8] == seat else other)(*args, **kwargs)

    return choose


def play(
    choose: Callable[..., int],
    lay: fastdeal.Layout,
    hands: list[int],
    trump: int,
    leader: int,
    bids: list[int],
    unseen: int,
) -> list[int]:
    """Tricks taken when every seat plays ``choose`` (the playout looks it up by name)."""
    fastdeal.choose_card = choose  # type: ignore[assignment]
    return fastdeal.playout(lay, list(hands), trump, leader, [], [0] * PLAYERS, bids, unseen, [0] * PLAYERS)


def score(taken: list[int], bids: list[int], seat: int) -> int:
    """Common scoring: a point a trick and 10 for an exact bid."""
    return taken[seat] + (10 if taken[seat] == bids[seat] else 0)


def run(deals: int, seed: int, other: ModuleType | None) -> dict[str, Any]:
    lay = fastdeal.layout(make_rules("common"))
    rng = random.Random(seed)
    mine = fastdeal.choose_card
    theirs = other.choose_card if other is not None else mine
    exact = points = seats = 0
    gains: list[float] = []
    try:
        for d in range(deals):
            slots = list(range(lay.size))
            rng.shuffle(slots)
            hands = [sum(1 << s for s in slots[i * TRICKS : (i + 1) * TRICKS]) for i in range(PLAYERS)]
            turned = slots[PLAYERS * TRICKS]
            trump = lay.suit[turned]
            unseen = ((1 << lay.size) - 1) & ~(1 << turned)
            bids = [max(0, min(TRICKS, round(estimate_tricks(lay, h, trump, PLAYERS)))) for h in hands]
            leader = d % PLAYERS

            base = play(theirs, lay, hands, trump, leader, bids, unseen)
            if other is None:
                exact += sum(base[s] == bids[s] for s in range(PLAYERS))
                points += sum(score(base, bids, s) for s in range(PLAYERS))
                seats += PLAYERS
                continue
            gain = 0.0
            for s in range(PLAYERS):
                taken = play(mixed(mine, theirs, s), lay, hands, trump, leader, bids, unseen)
                gain += score(taken, bids, s) - score(base, bids, s)
                exact += taken[s] == bids[s]
                points += score(taken, bids, s)
                seats += 1
            gains.append(gain / PLAYERS)
    finally:
        fastdeal.choose_card = mine  # type: ignore[assignment]
    out: dict[str, Any] = {
        "deals": deals,
        "seed": seed,
        "exact": exact / seats,
        "points_a_seat": points / seats,
    }
    if gains:
        out["gain_a_deal"] = statistics.mean(gains)
        out["ci95"] = 1.96 * statistics.stdev(gains) / len(gains) ** 0.5
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--vs", help="another version of fastdeal.py to play against")
    args = parser.parse_args()
    out = run(args.deals, args.seed, load(args.vs) if args.vs else None)
    print(json.dumps(out, indent=2))
    if "gain_a_deal" in out:
        print(
            f"\nthis policy, one seat against the other: {out['gain_a_deal']:+.3f} ± {out['ci95']:.3f} a deal"
        )
        print(f"exact bids of the seat playing this policy: {out['exact']:.1%}")
    else:
        print(f"\nself-play: exact {out['exact']:.1%}, {out['points_a_seat']:.2f} points a seat")


if __name__ == "__main__":
    main()
