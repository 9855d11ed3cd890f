"""Count how real hands end against the greedy finish (``ohhell.bots.finish``).

``collect`` plays deals with the expert in every seat. At the start of
every trick it plays the rest of the hand with the greedy policy
(``fastdeal.playout``, every seat chasing its bid) from the true deal, as
the search finishes its simulated hands, and writes for each seat the
tricks left, its bid, the greedy finish's tricks and the tricks it really
took. Most deals are 4 players and 10 cards (the measured setting); the
rest vary the table (3 to 7 players, 3 to 12 cards, common and pagat).

``fit`` counts, for each number of tricks left (1 to 10) and gap between
the greedy finish and the bid (-3 to +3), the share of seats that made the
bid, each share drawn towards the share of the neighbouring numbers of
tricks left (a prior worth ``--prior`` finishes). On the deals held out
(every fifth run of five deals) it reports the Brier score of those
chances against the greedy finish's own verdict (made or not), and with ``--write`` it writes
``data/finish.json``.

    python bench/experiments/finish_model.py collect --deals 600 --jobs 2 --seed 3 --out finish.jsonl
    python bench/experiments/finish_model.py fit finish.jsonl --write

Deterministic from ``--seed`` with fixed budgets.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from selfplay import collect_parser, varied_table, write_records

from ohhell import Phase, Rules, apply, chance_action, new_game, observe, seats_to_ask
from ohhell.bots.expert import ExpertBot
from ohhell.bots.fastdeal import layout, playout, seen_slots, suit_index
from ohhell.bots.finish import FEATURES, MOST_LEFT, WIDEST
from ohhell.bots.shipped import save_weights

WEIGHTS = Path(__file__).resolve().parent.parent / "src" / "ohhell" / "bots" / "data" / "finish.json"
TRAINED_BY = (
    "python bench/experiments/finish_model.py collect --deals 600 --jobs 2 --seed 3 --out finish.jsonl"
    " && python bench/experiments/finish_model.py fit finish.jsonl --write"
)


def table(deal: int, seed: int) -> Rules:
    """The rules of deal ``deal``: mostly the measured setting, else a varied one."""
    return varied_table("finish-model-table", deal, seed)


def play(job: tuple[int, int, dict[str, Any]]) -> list[dict[str, Any]]:
    """One deal of expert self-play; a record per seat and trick."""
    deal, seed, options = job
    rules = table(deal, seed)
    lay = layout(rules)
    n = rules.players
    state = new_game(rules)
    cards = random.Random(f"finish-model-cards:{seed}:{deal}")
    rngs = [random.Random(f"finish-model-bot:{seed}:{deal}:{s}") for s in range(n)]
    bots = [ExpertBot(**options) for _ in range(n)]
    finishes: list[tuple[int, list[int], list[int]]] = []  # tricks left, bids, greedy tricks
    while not state.is_over:
        if state.is_chance:
            apply(state, chance_action(state, cards))
            continue
        seat = seats_to_ask(state)[0]
        obs = observe(state, seat)
        if obs.phase is Phase.PLAY and not obs.trick:
            hands = lay.masks([observe(state, s).hands[s] or () for s in range(n)])
            used = 0
            for hand in hands:
                used |= hand
            _, gone = seen_slots(lay, obs, used)
            unseen = ((1 << lay.size) - 1) & ~gone
            bids = [b or 0 for b in obs.bids]
            left = hands[0].bit_count()
            voids = [sum(1 << int(s) for s in v) for v in obs.voids]
            trump = suit_index(obs.trump)
            greedy = playout(lay, hands, trump, obs.leader, [], list(obs.taken), bids, unseen, voids)
            finishes.append((left, bids, greedy))
        apply(state, bots[seat].choose(obs, rngs[seat]))
    result = state.results[0]
    return [
        {"deal": deal, "players": n, "left": left, "bid": bids[s], "greedy": greedy[s], "took": took}
        for left, bids, greedy in finishes
        for s, took in enumerate(result.tricks)
    ]


def collect(args: argparse.Namespace) -> None:
    options: dict[str, Any] = {"worlds": args.worlds, "simulations": args.simulations}
    jobs = [(d, args.seed, options) for d in range(args.first, args.first + args.deals)]
    write_records(play, jobs, args.jobs, args.out)


def cell(row: dict[str, Any]) -> tuple[int, int]:
    """The row's tricks left and gap, clamped to the table's range."""
    left = min(max(int(row["left"]), 1), MOST_LEFT)
    return left, int(row["greedy"]) - int(row["bid"])


def chances(rows: list[dict[str, Any]], prior: float) -> list[float]:
    """The share made in each cell (``FEATURES`` order), drawn towards its neighbours'."""
    seats: dict[tuple[int, int], int] = defaultdict(int)
    made: dict[tuple[int, int], int] = defaultdict(int)
    for row in rows:
        key = cell(row)
        if abs(key[1]) > WIDEST:
            continue  # never read: a finish further off is taken as a miss
        seats[key] += 1
        made[key] += row["took"] == row["bid"]
    out = []
    lefts = range(1, MOST_LEFT + 1)
    for left in lefts:
        for gap in range(-WIDEST, WIDEST + 1):
            near = (left - 1, left, left + 1)
            if not any(seats[k, gap] for k in near):
                near = tuple(lefts)  # no finish this close: the gap's share over every length
            pooled = (sum(made[k, gap] for k in near) + 0.5) / (sum(seats[k, gap] for k in near) + 1)
            out.append((made[left, gap] + prior * pooled) / (seats[left, gap] + prior))
    return out


def brier(rows: list[dict[str, Any]], table_: list[float] | None) -> float:
    """Mean squared error of the chance of a make (``table_``; None: the greedy verdict)."""
    total = 0.0
    for row in rows:
        left, gap = cell(row)
        if table_ is None:
            p = 1.0 if row["greedy"] == row["bid"] else 0.0
        elif abs(gap) > WIDEST:
            p = 0.0
        else:
            p = table_[(left - 1) * (2 * WIDEST + 1) + gap + WIDEST]
        total += (p - (row["took"] == row["bid"])) ** 2
    return total / max(1, len(rows))


def fit(args: argparse.Namespace) -> None:
    rows = []
    for path in args.files:
        with open(path) as lines:
            rows += [json.loads(line) for line in lines if line.strip()]
    held = [r for r in rows if r["deal"] // 5 % 5 == 4]  # every fifth run of five deals
    train = [r for r in rows if r["deal"] // 5 % 5 != 4]
    fitted = chances(train, args.prior)
    report: dict[str, Any] = {
        "samples": len(rows),
        "held_out": len(held),
        "brier_model": round(brier(held, fitted), 4),
        "brier_greedy_verdict": round(brier(held, None), 4),
    }
    by_left = {}
    for left in range(MOST_LEFT, 0, -1):
        rows_left = [r for r in held if cell(r)[0] == left]
        by_left[str(left)] = {
            "finishes": len(rows_left),
            "brier_model": round(brier(rows_left, fitted), 4),
            "brier_greedy_verdict": round(brier(rows_left, None), 4),
        }
    report["held_out_by_left"] = by_left
    final = chances(rows, args.prior)  # the shipped chances use every deal
    report["chances"] = dict(zip(FEATURES, (round(v, 3) for v in final), strict=True))
    print(json.dumps(report, indent=2))
    print(f"{'left':>4} " + " ".join(f"{gap:>+6d}" for gap in range(-WIDEST, WIDEST + 1)), file=sys.stderr)
    width = 2 * WIDEST + 1
    for left in range(MOST_LEFT, 0, -1):
        line = " ".join(f"{v:6.2f}" for v in final[(left - 1) * width : left * width])
        print(f"{left:>4} {line}", file=sys.stderr)
    print(
        f"held out: Brier {report['brier_model']} (the greedy verdict {report['brier_greedy_verdict']})",
        file=sys.stderr,
    )
    if args.write:
        save_weights(WEIGHTS, FEATURES, final, len(rows), TRAINED_BY)
        print(f"wrote {WEIGHTS}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    collect_parser(sub, "play deals, write the finishes as JSON lines", deals=600, seed=1, simulations=1000)
    f = sub.add_parser("fit", help="count the chances on collected finishes")
    f.add_argument("files", nargs="+")
    f.add_argument("--prior", type=float, default=6.0, help="finishes the neighbours' share is worth")
    f.add_argument("--write", action="store_true", help="write the package's chances file")
    args = parser.parse_args()
    if args.command == "collect":
        collect(args)
    else:
        fit(args)


if __name__ == "__main__":
    main()
