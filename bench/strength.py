"""How strong is a bot? Duplicate deals against a chosen opponent.

For each deal, the opponent plays every seat once (the baseline); then, for
each seat in turn, our bot takes that seat and the opponent the others, on
the same cards. The paired difference of a deal is the mean over the seats of
(our score in the seat - the opponent's score in that seat in the baseline):
luck of the cards cancels out. Printed: the mean difference a deal with its
95% confidence interval, the exact-bid rates of ours and theirs, decision
time (median and p95) of both, and the difference by bidding position.

Opponents:
- ``openspiel-ismcts:N``: OpenSpiel's C++ information-set MCTS with N
  simulations, in OpenSpiel's own ``oh_hell`` (one hand of ``--size``
  tricks, ``--players`` 3 to 7, 4 by default; ``--penalty`` for its
  ``off_bid_penalty`` scoring, a point lost a trick off; the ``bench`` extra).
  Its resampler knows which cards are undealt; ``openspiel-ismcts:N,stocks=K``
  plays the same search fairly (``openspiel_bridge.FairStock``: K fair deals
  a decision, N/K simulations each);
  ``--ours bid`` or ``--ours play`` lets our bot make only those decisions
  (an ISMCTS(1000) makes the rest), to see where it gains;
- any of our levels, with options (``intermediate``, ``ismcts:simulations=200``,
  ``expert:worlds=40``), on any preset, player count and hand sizes. A
  seat's score is its total, except under Okenuff's scoring, where players
  settle on the differences: there it is the seat's net after settling.

    python bench/strength.py --bot expert:worlds=80 --opponent openspiel-ismcts:1000 --deals 200 --jobs 2
    python bench/strength.py --bot expert:worlds=40 --opponent intermediate --preset pagat --players 5 \\
        --hand-sizes 7 --deals 200

Budgets are fixed numbers of worlds or simulations, so a run is reproducible
from ``--seed`` whatever ``--jobs`` is; times are measured as the run goes
(they depend on the machine's load; both sides share it).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass
from multiprocessing import Pool
from typing import Any

from botspec import option_value
from ohhell import (
    RulesError,
    Scoring,
    apply,
    chance_action,
    make_rules,
    new_game,
    observe,
    seats_to_ask,
    settlement_net,
)
from ohhell.bots import get_bot
from ohhell.rules import Rules


@dataclass
class Seat:
    score: float
    bid: int | None
    exact: bool
    times: list[float]
    tricks: int | None = None  # taken in the first hand


@dataclass
class Game:
    dealer: int
    seats: list[Seat]


def make_bot(spec: str) -> Any:
    level, _, options = spec.partition(":")
    kwargs: dict[str, Any] = {}
    for item in filter(None, options.split(",")):
        key, _, value = item.partition("=")
        kwargs[key] = option_value(value)
    return get_bot(level, **kwargs)


def play_ours(rules: Rules, deal: int, specs: list[str], seed: int) -> Game:
    """A match (or hand) of our engine, seats by ``specs``; the cards depend
    only on ``seed`` and ``deal``."""
    state = new_game(rules)
    cards = random.Random(f"strength-cards:{seed}:{deal}")
    bots = [make_bot(spec) for spec in specs]
    rngs = [random.Random(f"strength-bot:{seed}:{deal}:{s}") for s in range(rules.players)]
    times: list[list[float]] = [[] for _ in specs]
    dealer: int | None = None
    while not state.is_over:
        if state.is_chance:
            apply(state, chance_action(state, cards))
            if dealer is None and state.phase.value == "bid":
                dealer = state.dealer
            continue
        for seat in seats_to_ask(state):
            t0 = time.perf_counter()
            action = bots[seat].choose(observe(state, seat), rngs[seat])
            times[seat].append(time.perf_counter() - t0)
            apply(state, action)
            break
    first = state.results[0]
    exact = [state.exact[s] / len(state.results) for s in range(rules.players)]
    # What a seat takes home: its total, or under Okenuff, where players settle
    # on the differences (R-SETTLE), its net after settling with every other.
    # A seat that sets another at a cost to itself gains there, not in its total.
    scores = settlement_net(state.totals) if rules.scoring is Scoring.OKENUFF else state.totals
    return Game(
        dealer if dealer is not None else 0,
        [
            Seat(scores[s], first.bids[s], exact[s] >= 1.0, times[s], first.tricks[s])
            for s in range(rules.players)
        ],
    )


def openspiel_opponent(spec: str) -> Any:
    """``openspiel-ismcts:N`` or ``openspiel-ismcts:N,stocks=K`` (played fairly)."""
    import openspiel_bridge as bridge

    sims, *options = (spec.partition(":")[2] or "1000").split(",")
    stocks = 0
    for item in options:
        key, _, value = item.partition("=")
        if key != "stocks" or not value.isdigit():
            raise ValueError(f"unknown option {item!r} for {spec}: the one option is stocks=K")
        stocks = int(value)
    return bridge.OpenSpielISMCTS(int(sims), stocks)


def one_deal(job: tuple[dict[str, Any], int]) -> dict[str, Any]:
    """The baseline and one game per seat for deal ``deal``."""
    args, deal = job
    bot, opponent, seed = args["bot"], args["opponent"], args["seed"]
    if opponent.startswith("openspiel-ismcts"):
        import openspiel_bridge as bridge

        reference = openspiel_opponent(opponent)
        n = int(args["options"]["players"])

        def game(seat: int | None) -> Game:
            players: list[Any] = [reference for _ in range(n)]
            if seat is not None:
                players[seat] = bridge.Ours(bot)
            result = bridge.play_deal(
                deal,
                players,
                size=args["size"],
                ours_decides=args["ours"],
                seed=seed,
                penalty=args["penalty"],
            )
            return Game(
                result.dealer,
                [Seat(r.score, r.bid, r.bid == r.tricks, r.times, r.tricks) for r in result.seats],
            )

    else:
        rules = make_rules(args["preset"], args["options"])
        n = rules.players

        def game(seat: int | None) -> Game:
            specs = [opponent] * n
            if seat is not None:
                specs[seat] = bot
            return play_ours(rules, deal, specs, seed)

    base = game(None)
    ours = [game(s) for s in range(n)]
    diffs = [ours[s].seats[s].score - base.seats[s].score for s in range(n)]
    return {
        "seed": seed,  # with the deal, names its cards (bench/paired.py matches runs by both)
        "deal": deal,
        "dealer": base.dealer,
        "diff": sum(diffs) / n,
        "by_position": {(s - base.dealer - 1) % n: diffs[s] for s in range(n)},
        "ours_exact": sum(ours[s].seats[s].exact for s in range(n)) / n,
        "theirs_exact": sum(seat.exact for seat in base.seats) / n,
        "ours_bids": [ours[s].seats[s].bid for s in range(n)],
        "theirs_bids": [seat.bid for seat in base.seats],
        "ours_scores": [ours[s].seats[s].score for s in range(n)],
        "theirs_scores": [seat.score for seat in base.seats],
        "ours_exacts": [ours[s].seats[s].exact for s in range(n)],
        "theirs_exacts": [seat.exact for seat in base.seats],
        "ours_tricks": [ours[s].seats[s].tricks for s in range(n)],
        "theirs_tricks": [seat.tricks for seat in base.seats],
        "ours_times": [t for s in range(n) for t in ours[s].seats[s].times],
        "theirs_times": [t for seat in base.seats for t in seat.times],
    }


def mean_ci(values: list[float]) -> tuple[float, float]:
    m = statistics.fmean(values)
    if len(values) < 2:
        return m, float("nan")
    return m, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def exact_by_bid(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """For each bid: how often ours and theirs made that bid, and how often exactly."""
    out: dict[str, dict[str, Any]] = {}
    for side in ("ours", "theirs"):
        made: dict[int, list[bool]] = {}
        for r in rows:
            for bid, exact in zip(r[f"{side}_bids"], r[f"{side}_exacts"], strict=True):
                made.setdefault(bid, []).append(exact)
        for bid, flags in made.items():
            entry = out.setdefault(str(bid), {})
            entry[f"{side}_n"] = len(flags)
            entry[f"{side}_exact"] = round(sum(flags) / len(flags), 3)
    return dict(sorted(out.items(), key=lambda kv: int(kv[0])))


def seat_columns(row: dict[str, Any]) -> list[tuple[Any, ...]]:
    """A deal's row seat by seat: (our bid, theirs, our score, theirs, our
    bid exact, theirs exact)."""
    return list(
        zip(
            row["ours_bids"],
            row["theirs_bids"],
            row["ours_scores"],
            row["theirs_scores"],
            row["ours_exacts"],
            row["theirs_exacts"],
            strict=True,
        )
    )


def by_bid_against_theirs(
    rows: list[dict[str, Any]], position: int | None = None
) -> dict[str, dict[str, Any]]:
    """Seats split by how our bid compared with the opponent's on the same
    cards in the same seat (the baseline): lower, the same, higher.

    For each: how many seats, our score minus theirs there, what that adds
    to the difference a deal, and both exact-bid rates. Where the bids agree
    the seats differ by card play alone (in a whole match: the first hand's
    bids). ``position`` (1 = first to bid) keeps only the seats bidding
    there; the shares are then of the difference that position adds a deal."""
    groups: dict[str, list[tuple[float, bool, bool]]] = {"lower": [], "same": [], "higher": []}
    seats = 0
    for r in rows:
        n = len(r["ours_bids"])
        for s, (ours, theirs, a, b, x, y) in enumerate(seat_columns(r)):
            if position is not None and (s - r["dealer"] - 1) % n != position - 1:
                continue
            seats += 1
            if ours is None or theirs is None:
                continue
            key = "lower" if ours < theirs else "same" if ours == theirs else "higher"
            groups[key].append((a - b, x, y))
    out: dict[str, dict[str, Any]] = {}
    for key, items in groups.items():
        if not items:
            continue
        diffs = [d for d, _, _ in items]
        m, ci = mean_ci(diffs)
        out[key] = {
            "seats": len(items),
            "diff": round(m, 3),
            "ci95": round(ci, 3),
            "share_of_diff_per_deal": round(sum(diffs) / seats, 3),
            "exact_ours": round(statistics.fmean(x for _, x, _ in items), 3),
            "exact_theirs": round(statistics.fmean(y for _, _, y in items), 3),
        }
    return out


def same_bid_by_size(rows: list[dict[str, Any]], top: int = 5) -> dict[str, dict[str, Any]]:
    """The seats where our bid was the opponent's on the same cards, by that
    bid (``top`` and over together): the two then differ by their card play
    alone, and the size of the bid says how strong the hand was. For each:
    how many seats, our score minus theirs there (± 95%) and both exact-bid
    rates. Card play that loses only with strong hands points at what the
    stronger hands need (planning the top cards, or knowing where they are),
    not at play in general."""
    groups: dict[int, list[tuple[float, bool, bool]]] = {}
    for r in rows:
        for ours, theirs, a, b, x, y in seat_columns(r):
            if ours is not None and ours == theirs:
                groups.setdefault(min(ours, top), []).append((a - b, x, y))
    out: dict[str, dict[str, Any]] = {}
    for bid, items in sorted(groups.items()):
        m, ci = mean_ci([d for d, _, _ in items])
        out[f"{bid}+" if bid == top else str(bid)] = {
            "seats": len(items),
            "diff": round(m, 3),
            "ci95": round(ci, 3),
            "exact_ours": round(statistics.fmean(x for _, x, _ in items), 3),
            "exact_theirs": round(statistics.fmean(y for _, _, y in items), 3),
        }
    return out


def bid_errors(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """How each side's bids missed: the share of seats that took more tricks
    than they bid and the share that took fewer, and the mean bid, overall
    and by bidding position (first hand of a match). A side that takes more
    than it bids far more often than fewer bids too low, and the other way."""
    out: dict[str, dict[str, Any]] = {}
    for side in ("ours", "theirs"):
        seats: dict[int, list[tuple[int, int]]] = {}
        for r in rows:
            n = len(r[f"{side}_bids"])
            for s, (bid, tricks) in enumerate(
                zip(r[f"{side}_bids"], r.get(f"{side}_tricks", []), strict=False)
            ):
                if bid is not None and tricks is not None:
                    seats.setdefault((s - r["dealer"] - 1) % n, []).append((bid, tricks))

        def shares(items: list[tuple[int, int]]) -> dict[str, Any]:
            return {
                "seats": len(items),
                "over": round(sum(t > b for b, t in items) / len(items), 3),
                "under": round(sum(t < b for b, t in items) / len(items), 3),
                "mean_bid": round(statistics.fmean(b for b, _ in items), 2),
            }

        every = [item for items in seats.values() for item in items]
        if every:
            out[side] = shares(every) | {
                "by_position": {str(p + 1): shares(v) for p, v in sorted(seats.items())}
            }
    return out


def summarise(args: dict[str, Any], rows: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    diff, ci = mean_ci([r["diff"] for r in rows])
    positions: dict[int, list[float]] = {}
    for r in rows:
        for pos, d in r["by_position"].items():
            positions.setdefault(int(pos), []).append(d)
    ours_t = [t for r in rows for t in r["ours_times"]]
    theirs_t = [t for r in rows for t in r["theirs_times"]]
    return {
        "bot": args["bot"],
        "opponent": args["opponent"],
        "ours_decides": args["ours"],
        "setting": (
            f"OpenSpiel oh_hell, {args['options']['players']} players, {args['size']} tricks"
            + (", off_bid_penalty" if args["penalty"] else "")
            if args["opponent"].startswith("openspiel")
            else f"{args['preset']} {args['options']}"
        ),
        "deals": len(rows),
        "seed": args["seed"],
        "diff_per_deal": round(diff, 3),
        "ci95": round(ci, 3),
        "exact_ours": round(statistics.fmean(r["ours_exact"] for r in rows), 3),
        "exact_theirs": round(statistics.fmean(r["theirs_exact"] for r in rows), 3),
        "ms_ours": {
            "median": round(1e3 * quantile(ours_t, 0.5), 1),
            "p95": round(1e3 * quantile(ours_t, 0.95), 1),
        },
        "ms_theirs": {
            "median": round(1e3 * quantile(theirs_t, 0.5), 1),
            "p95": round(1e3 * quantile(theirs_t, 0.95), 1),
        },
        "exact_by_bid": exact_by_bid(rows),
        "by_bid_against_theirs": by_bid_against_theirs(rows),
        # Where each bidding position's difference comes from: its bids or its play.
        "by_bid_against_theirs_by_position": {
            str(p + 1): by_bid_against_theirs(rows, p + 1) for p in sorted(positions)
        },
        "same_bid_by_size": same_bid_by_size(rows),
        "bid_errors": bid_errors(rows),
        "by_bidding_position": {
            str(p + 1): {"diff": round(mean_ci(v)[0], 3), "ci95": round(mean_ci(v)[1], 3)}
            for p, v in sorted(positions.items())
        },
        "cores": os.cpu_count(),
        "jobs": args["jobs"],
        "wall_s": round(seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="expert:worlds=80", help="our bot: level[:option=value,...]")
    parser.add_argument("--opponent", default="openspiel-ismcts:1000")
    parser.add_argument(
        "--ours", choices=["all", "bid", "play"], default="all", help="our decisions (OpenSpiel)"
    )
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--size", type=int, default=10, help="tricks in OpenSpiel's game (default 10)")
    parser.add_argument(
        "--penalty", action="store_true", help="OpenSpiel's off_bid_penalty: a miss loses a point a trick off"
    )
    parser.add_argument("--preset", default="common", help="our rules for an in-project opponent")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument(
        "--hand-sizes", default="10", help="the hands played, e.g. 10 or 7,6,5 ('preset': all)"
    )
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="another rule option"
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--rows", metavar="FILE", help="also write every deal's row (bids, scores) as JSON")
    a = parser.parse_args()
    options = {"players": str(a.players)}
    if a.hand_sizes != "preset":
        options["hand-sizes"] = a.hand_sizes
    for item in a.option:
        key, _, value = item.partition("=")
        options[key] = value
    args = {
        "bot": a.bot,
        "opponent": a.opponent,
        "ours": a.ours,
        "seed": a.seed,
        "size": a.size,
        "penalty": a.penalty,
        "preset": a.preset,
        "options": options,
        "jobs": a.jobs,
    }
    make_bot(a.bot), None if a.opponent.startswith("openspiel") else make_bot(a.opponent)  # fail early
    if a.penalty and not a.opponent.startswith("openspiel"):
        parser.error("--penalty is OpenSpiel's scoring; for our own opponents use --option scoring=penalty")
    if a.opponent.startswith("openspiel"):
        import openspiel_bridge

        try:
            openspiel_bridge.load_game(a.size, a.players)
            openspiel_opponent(a.opponent)
        except ValueError as error:
            parser.error(str(error))
    else:
        try:  # the rules once here, so a bad setting is named before any deal is played
            make_rules(a.preset, options)
        except RulesError as error:
            parser.error(str(error))
    t0 = time.perf_counter()
    rows: list[dict[str, Any]] = []
    jobs = [(args, d) for d in range(a.deals)]
    with Pool(a.jobs) as pool:
        for i, row in enumerate(pool.imap(one_deal, jobs, chunksize=1), start=1):
            rows.append(row)
            done = int(30 * i / a.deals)
            m, ci = mean_ci([r["diff"] for r in rows])
            print(
                f"\r[{'#' * done}{'.' * (30 - done)}] {i}/{a.deals}  {m:+.2f} ± {ci:.2f}",
                end="",
                file=sys.stderr,
            )
    print(file=sys.stderr)
    out = summarise(args, rows, time.perf_counter() - t0)
    if a.rows:
        with open(a.rows, "w") as f:
            json.dump(rows, f)
    if a.json:
        print(json.dumps(out, indent=2))
    print(f"{out['bot']} vs {out['opponent']} ({out['setting']}; ours decide: {out['ours_decides']})")
    print(
        f"{'deals':>6}{'diff/deal':>11}{'± 95%':>8}{'exact ours':>12}{'theirs':>8}{'ms ours':>9}{'theirs':>8}"
    )
    print(
        f"{out['deals']:>6}{out['diff_per_deal']:>+11.2f}{out['ci95']:>8.2f}{out['exact_ours']:>12.1%}"
        f"{out['exact_theirs']:>8.1%}{out['ms_ours']['median']:>9.1f}{out['ms_theirs']['median']:>8.1f}"
    )
    print(
        "exact by bid (ours n/rate, theirs n/rate): "
        + ", ".join(
            f"{b}: {v.get('ours_n', 0)}/{v.get('ours_exact', 0):.0%} {v.get('theirs_n', 0)}/"
            f"{v.get('theirs_exact', 0):.0%}"
            for b, v in out["exact_by_bid"].items()
        )
    )
    print(
        "our bid against theirs on the same cards (seats, our score minus theirs there ± 95%, "
        "share of the difference a deal, exact ours/theirs): "
        + ", ".join(
            f"{k}: {v['seats']}, {v['diff']:+.2f} ± {v['ci95']:.2f}, {v['share_of_diff_per_deal']:+.2f}, "
            f"{v['exact_ours']:.0%}/{v['exact_theirs']:.0%}"
            for k, v in out["by_bid_against_theirs"].items()
        )
    )
    print(
        "the same bid as theirs, by its size (seats, our score minus theirs ± 95%, exact ours/theirs): "
        + ", ".join(
            f"{b}: {v['seats']}, {v['diff']:+.2f} ± {v['ci95']:.2f}, "
            f"{v['exact_ours']:.0%}/{v['exact_theirs']:.0%}"
            for b, v in out["same_bid_by_size"].items()
        )
    )
    print(
        "by bidding position: "
        + ", ".join(f"{p}: {v['diff']:+.2f} ± {v['ci95']:.2f}" for p, v in out["by_bidding_position"].items())
    )
    for side, e in out["bid_errors"].items():
        print(
            f"{side} took more / fewer tricks than bid: {e['over']:.0%} / {e['under']:.0%}, mean bid "
            f"{e['mean_bid']:.2f}; by position "
            + ", ".join(
                f"{p}: {v['over']:.0%}/{v['under']:.0%} bid {v['mean_bid']:.2f}"
                for p, v in e["by_position"].items()
            )
        )


if __name__ == "__main__":
    main()
