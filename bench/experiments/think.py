"""What a longer think changes: the expert's decisions at two budgets.

A longer think can only pay where it decides differently. This bench plays
deals with the expert at a short fixed budget in one seat (its place in
the bidding order changing from deal to deal) and other bots in the other
seats, and at every decision of that seat
with more than one legal action it also asks the expert at a long budget,
and at the short budget again with other random numbers (what the short
think's own noise changes). For each it reports how often the choices
agree and the *model's regret*: the long think's choice less the short
one's, each valued by a second long search (with other random numbers,
so the luck that made the long think choose its card does not count in
the card's favour), in points of the hand. The second search explores less
below a card it visits less, which still leans the figure towards the long
choice: it is an upper bound.

The regret is measured by the search's own model of the game, so it is
what a longer think could buy if that model were right, not a measured
gain: a small regret means a longer think has little to offer, whatever
the opponents; a large one says to measure it at the table
(``strength.py``). Fixed budgets (``simulations=``) make every figure the
same from the same ``--seed``, on any machine and under any load.

    python bench/experiments/think.py --short 4000 --long 64000 --deals 40 --jobs 2
    python bench/experiments/think.py --short 4000 --long 64000 --players 3 --hand-sizes 10 --preset pagat
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import _bench_path  # noqa: F401  (bench/ on the path: strength, openspiel_bridge)

from ohhell import (
    PRESETS,
    Action,
    Bid,
    NameTrump,
    Observation,
    Rules,
    apply,
    chance_action,
    format_action,
    new_game,
    observe,
    seats_to_ask,
)
from ohhell.bots.expert import ExpertBot
from strength import make_bot, mean_ci

Row = dict[str, Any]


def table(preset: str, players: int, size: int, dealer: int) -> Rules:
    return PRESETS[preset].replace(players=players, hand_sizes=(size,), first_dealer=dealer)


def kind_of(action: Action) -> str:
    return "bid" if isinstance(action, Bid) else "trump" if isinstance(action, NameTrump) else "card"


def compare(obs: Observation, short: int, long: int, seed: int) -> tuple[Row, Action]:
    """One decision at both budgets (and the short one again), and the short
    think's choice, which the seat plays.

    A second long search, with other random numbers, values the choices:
    valued by the search that made the long choice, any choice it visited
    less would look worse than it is (the most visited action's mean is
    among the luckiest), and two equally good cards would show a regret.
    The second search still explores less below an action it visits less,
    which pulls that action's mean down, so the regret leans towards the
    long choice: it is an upper bound on what the long think is worth."""
    first = ExpertBot(simulations=short).analyse(obs, random.Random(seed))[0].action
    again = ExpertBot(simulations=short).analyse(obs, random.Random(seed + 1))[0].action
    chosen = ExpertBot(simulations=long).analyse(obs, random.Random(seed + 2))[0].action
    value = {e.action: e.expected for e in ExpertBot(simulations=long).analyse(obs, random.Random(seed + 3))}
    regret, regret_again = value[chosen] - value[first], value[chosen] - value[again]
    if not (math.isfinite(regret) and math.isfinite(regret_again)):
        raise ValueError(f"a choice the long search never tried: {obs.legal_actions}")
    row = {
        "kind": kind_of(first),
        "choices": len(obs.legal_actions),
        "agree": first == chosen,
        "agree_again": first == again,
        "regret": regret,
        "regret_again": regret_again,
    }
    return row, first


def play(job: tuple[int, int, str, int, int, int, int, str]) -> list[Row]:
    """One deal (the first hand of a match); the measured seat plays the
    short think's choice, so its positions are the short think's own."""
    seed, deal, preset, players, size, short, long, others = job
    rules = table(preset, players, size, deal % players)
    seat = (deal // players) % players
    other = make_bot(others)
    state = new_game(rules)
    cards = random.Random(f"think:{seed}:{deal}")
    rngs = [random.Random(f"think:{seed}:{deal}:{s}") for s in range(players)]
    rows: list[Row] = []
    while not state.results:
        if state.is_chance:
            apply(state, chance_action(state, cards))
            continue
        asked = seats_to_ask(state)[0]
        obs = observe(state, asked)
        if asked == seat and len(obs.legal_actions) > 1:
            row, action = compare(obs, short, long, rngs[seat].randrange(1 << 30))
            rows.append({**row, "deal": deal, "played": format_action(action)})
            apply(state, action)
        else:
            apply(state, other.choose(obs, rngs[asked]))
    return rows


def summary(rows: list[Row], deals: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kind in ("bid", "trump", "card", "all"):
        these = [r for r in rows if kind in ("all", r["kind"])]
        if not these:
            continue
        regret, ci = mean_ci([r["regret"] for r in these])
        again, again_ci = mean_ci([r["regret_again"] for r in these])
        out[kind] = {
            "decisions": len(these),
            "agree_long": sum(r["agree"] for r in these) / len(these),
            "agree_short_again": sum(r["agree_again"] for r in these) / len(these),
            "regret_a_decision": regret,
            "regret_ci95": ci,
            "regret_again_a_decision": again,
            "regret_again_ci95": again_ci,
        }
    # A deal's worth: every decision's regret in it, added up.
    by_deal = [0.0] * deals  # a deal with no choice to make counts as no regret
    for r in rows:
        by_deal[r["deal"]] += r["regret"]
    out["regret_a_deal"], out["regret_a_deal_ci95"] = mean_ci(by_deal)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", type=int, default=4000, help="simulations of the short think")
    parser.add_argument("--long", type=int, default=64000, help="simulations of the long think")
    parser.add_argument(
        "--others", default="intermediate", help="the other seats' bot, e.g. expert:simulations=1000"
    )
    parser.add_argument("--preset", default="common")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--hand-sizes", type=int, default=10, help="cards in the hand played")
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.preset not in PRESETS:
        parser.error(f"unknown preset {args.preset!r}; choose from {', '.join(PRESETS)}")
    if args.others.startswith("expert") and not any(k in args.others for k in ("simulations=", "worlds=")):
        parser.error("--others expert thinks by the clock; give it simulations= so the run is reproducible")
    if not 0 < args.short < args.long:
        parser.error("--short must be at least 1 and below --long")
    jobs = [
        (args.seed, d, args.preset, args.players, args.hand_sizes, args.short, args.long, args.others)
        for d in range(args.deals)
    ]
    rows: list[Row] = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for done, found in enumerate(pool.map(play, jobs), 1):
            rows += found
            bar = "#" * (30 * done // args.deals)
            print(f"\r[{bar:.<30}] {done}/{args.deals}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    out = {"args": vars(args), **summary(rows, args.deals)}
    if args.json:
        print(json.dumps(out, indent=2))
    print(
        f"expert at {args.short} against {args.long} simulations, {args.preset}, "
        f"{args.players} players x {args.hand_sizes} cards, {args.deals} deals, others {args.others}"
    )
    print(" kind  decisions  agree long  agree short again  regret a decision ± 95%  (short again)")
    for kind in ("bid", "trump", "card", "all"):
        if kind in out:
            k = out[kind]
            print(
                f"{kind:>5}  {k['decisions']:9d}  {k['agree_long']:10.1%}  {k['agree_short_again']:17.1%}"
                f"  {k['regret_a_decision']:+12.3f} ± {k['regret_ci95']:.3f}"
                f"  ({k['regret_again_a_decision']:+.3f})"
            )
    print(f"the model's regret a deal: {out['regret_a_deal']:+.3f} ± {out['regret_a_deal_ci95']:.3f}")


if __name__ == "__main__":
    main()
