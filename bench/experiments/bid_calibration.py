"""Fit the expert's bid calibration (``ohhell.bots.calibration``) by self-play.

The expert judges a bid by how often greedy playouts make it; its real card
play is a search, which makes some bids more often and others less. This
script measures by how much and fits the small model that corrects it.

``collect`` plays deals with the expert in every seat, its bids valued by
flat playouts (calibration and the bid search off: the records hold the raw
share of the playouts that ``calibrate=1`` corrects, not the bid search's,
which is a different quantity). At each bid it writes the share
of playouts that made the bid it chose, the bid, the hand size and, once the
hand is over, whether the bid was made. With probability ``--explore`` a seat
bids one of the expert's three best bids at random instead of the best, so
the data covers bids next to the chosen one, which is what the correction
must rank. Most deals are 4 players and 10 cards (the measured setting);
the rest vary the table (3 to 6 players, 3 to 12 cards, common and pagat).

``fit`` fits a logistic regression on ``calibration.FEATURES`` (Newton's
method with a small ridge), reports the log-loss and the made rates by bid
on the deals held out (every fifth), and writes ``data/bid_calibration.json``.

    python bench/experiments/bid_calibration.py collect --deals 2500 --jobs 2 --out calib.jsonl
    python bench/experiments/bid_calibration.py fit calib.jsonl --write

Deterministic from ``--seed`` with fixed budgets.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from selfplay import collect_parser, varied_table, write_records

from ohhell import Bid, Phase, Rules, apply, chance_action, new_game, observe, seats_to_ask
from ohhell.bots.calibration import FEATURES, features
from ohhell.bots.expert import ExpertBot
from ohhell.bots.shipped import save_weights

WEIGHTS = Path(__file__).resolve().parent.parent / "src" / "ohhell" / "bots" / "data" / "bid_calibration.json"


def table(deal: int, seed: int) -> Rules:
    """The rules of deal ``deal``: mostly the measured setting, else a varied one."""
    return varied_table("calibration-table", deal, seed, players=(3, 4, 5, 6))


def play(job: tuple[int, int, float, dict[str, Any]]) -> list[dict[str, Any]]:
    """One deal of expert self-play; a record per seat's bid."""
    deal, seed, explore, options = job
    rules = table(deal, seed)
    state = new_game(rules)
    cards = random.Random(f"calibration-cards:{seed}:{deal}")
    rngs = [random.Random(f"calibration-bot:{seed}:{deal}:{s}") for s in range(rules.players)]
    # Flat bids, whatever the default: the bid search reports its own share
    # (of its simulations under a bid), and it counts visits, not worlds, so
    # the exploration below would never leave its best bid.
    bots = [ExpertBot(calibrate=False, bid_search=False, **options) for _ in range(rules.players)]
    records: dict[int, dict[str, Any]] = {}
    while not state.is_over:
        if state.is_chance:
            apply(state, chance_action(state, cards))
            continue
        seat = seats_to_ask(state)[0]
        obs = observe(state, seat)
        if obs.phase is Phase.BID and len(obs.legal_actions) > 1:
            ranked = [e for e in bots[seat].analyse(obs, rngs[seat]) if e.made is not None]
            pick = ranked[0]
            if rngs[seat].random() < explore:
                # Among the bids still searched at the end (pruned ones saw fewer worlds).
                full = [e for e in ranked[:3] if e.worlds == ranked[0].worlds]
                pick = rngs[seat].choice(full)
            assert isinstance(pick.action, Bid) and pick.made is not None
            records[seat] = {
                "deal": deal,
                "players": rules.players,
                "hand_size": obs.hand_size,
                "position": (seat - obs.dealer - 1) % rules.players,
                "bid": pick.action.bid,
                "made_share": pick.made,
                "worlds": pick.worlds,
                "best": ranked[0].action == pick.action,
            }
            apply(state, pick.action)
            continue
        apply(state, bots[seat].choose(obs, rngs[seat]))
    result = state.results[-1]
    for seat, record in records.items():
        record["made"] = result.tricks[seat] == record["bid"]
    return list(records.values())


def collect(args: argparse.Namespace) -> None:
    options: dict[str, Any] = {"worlds": args.worlds, "simulations": args.simulations}
    jobs = [(d, args.seed, args.explore, options) for d in range(args.first, args.first + args.deals)]
    write_records(play, jobs, args.jobs, args.out)


def _fit(xs: list[list[float]], ys: list[bool], ridge: float) -> list[float]:
    """Logistic regression by Newton's method (NumPy, a few features)."""
    import numpy as np

    x = np.array(xs)
    y = np.array(ys, dtype=float)
    # Start from, and shrink towards, no correction: chance = the playouts' share.
    identity = np.zeros(x.shape[1])
    identity[1] = 1.0
    w = identity.copy()
    penalty = ridge * np.eye(x.shape[1])
    penalty[0, 0] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (p - y) + penalty @ (w - identity)
        hessian = (x * (p * (1 - p))[:, None]).T @ x + penalty
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if float(np.abs(step).max()) < 1e-9:
            break
    return [float(v) for v in w]


def _chance(w: list[float], f: list[float]) -> float:
    return 1.0 / (1.0 + math.exp(-sum(a * b for a, b in zip(w, f, strict=True))))


def _log_loss(ps: list[float], ys: list[bool]) -> float:
    eps = 1e-6
    return -sum(math.log(max(eps, p if y else 1 - p)) for p, y in zip(ps, ys, strict=True)) / len(ys)


def fit(args: argparse.Namespace) -> None:
    rows = []
    for path in args.files:
        with open(path) as lines:
            rows += [json.loads(line) for line in lines if line.strip()]
    xs = [features(r["made_share"], r["bid"], r["hand_size"], r["worlds"]) for r in rows]
    ys = [bool(r["made"]) for r in rows]
    held = [i for i, r in enumerate(rows) if r["deal"] % 5 == 4]
    train = [i for i, r in enumerate(rows) if r["deal"] % 5 != 4]
    w = _fit([xs[i] for i in train], [ys[i] for i in train], args.ridge)
    raw = [min(max(rows[i]["made_share"], 1e-3), 1 - 1e-3) for i in held]
    cal = [_chance(w, xs[i]) for i in held]
    report: dict[str, Any] = {
        "samples": len(rows),
        "held_out": len(held),
        "log_loss_raw": round(_log_loss(raw, [ys[i] for i in held]), 4),
        "log_loss_calibrated": round(_log_loss(cal, [ys[i] for i in held]), 4),
        "weights": dict(zip(FEATURES, (round(v, 4) for v in w), strict=True)),
        "by_bid": {},
    }
    groups: dict[int, list[int]] = defaultdict(list)
    for i in held:
        groups[min(rows[i]["bid"], 6)].append(i)
    for bid, idx in sorted(groups.items()):
        report["by_bid"][f"{bid}+" if bid == 6 else str(bid)] = {
            "n": len(idx),
            "playouts": round(sum(rows[i]["made_share"] for i in idx) / len(idx), 3),
            "calibrated": round(sum(_chance(w, xs[i]) for i in idx) / len(idx), 3),
            "made": round(sum(ys[i] for i in idx) / len(idx), 3),
        }
    print(json.dumps(report, indent=2))
    print(f"\n{'bid':>4} {'n':>5} {'playouts':>9} {'calibrated':>11} {'made':>6}", file=sys.stderr)
    for bid, r in report["by_bid"].items():
        print(
            f"{bid:>4} {r['n']:>5} {r['playouts']:>9.3f} {r['calibrated']:>11.3f} {r['made']:>6.3f}",
            file=sys.stderr,
        )
    print(
        f"log-loss held out: {report['log_loss_raw']} raw, {report['log_loss_calibrated']} calibrated",
        file=sys.stderr,
    )
    if args.write:
        final = _fit(xs, ys, args.ridge)  # the shipped weights use every deal
        trained_by = (
            "python bench/experiments/bid_calibration.py collect --deals 2500 --jobs 2 "
            "--out calib.jsonl && python bench/experiments/bid_calibration.py fit calib.jsonl --write"
        )
        save_weights(WEIGHTS, FEATURES, final, len(rows), trained_by)
        print(f"wrote {WEIGHTS}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    c = collect_parser(
        sub,
        "play self-play deals and record each bid's playout share and outcome",
        deals=2000,
        seed=0,
        simulations=320,
    )
    c.add_argument("--explore", type=float, default=0.3)
    f = sub.add_parser("fit", help="fit the calibration on collected records")
    f.add_argument("files", nargs="+")
    f.add_argument("--ridge", type=float, default=1.0)
    f.add_argument("--write", action="store_true", help="write src/ohhell/bots/data/bid_calibration.json")
    args = parser.parse_args()
    collect(args) if args.command == "collect" else fit(args)


if __name__ == "__main__":
    main()
