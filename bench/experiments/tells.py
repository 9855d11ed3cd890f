"""What OpenSpiel's ISMCTS tells the table about the undealt cards.

OpenSpiel's ISMCTS knows which cards are undealt (``openspiel_resampler.py``)
and decides with that knowledge, so its bids and cards carry some of it
to the table. A fair player can take from them only what its model of that
player decodes. This bench plays deals of OpenSpiel's ``oh_hell`` with the
knowing search in every seat and measures two readers of its choices:

- **The search itself** (an exact model of the player, which no bot at the
  table can run: it would take OpenSpiel's search in every world). At
  every decision with a choice, two more searches of the same kind give
  their visit shares: one in the real deal (other random numbers), one in
  a deal the seat cannot tell from the real one, dealt fairly from its
  observation (the undealt cards mixed in, the voids shown kept;
  ``FairStock``). The log of the ratio of the chances the two give the
  action taken (each mixed with ``--uniform`` of a uniform pick, so that
  no action is impossible) is how much that action favours the real
  undealt cards over a fair guess at them: nats a decision, by bids and
  cards and by tricks done. How often each search's favourite is the action
  taken says the same in plain counts.
- **The expert's model of play** (``ohhell.bots.playmodel``, the features a
  world is weighed by with ``read_play=1``). The knowing search's card
  choices are fitted twice, every fifth deal held out: with the cards gone
  as the table saw them, and with the undealt cards counted as gone as
  well, as a seat that knows them sees it. The held-out log-loss the
  second saves over the first (paired by choice, with its 95% interval) is
  what such a model reads of the undealt cards from a card.
- **The expert's reading of a bid** (``ohhell.bots.expert.trick_estimator``,
  what a world is weighed by). Each bid is fitted as a rounded Gaussian
  over the bids 0 to the hand size around a line in the hand's trick
  estimate, the hand valued once with the cards gone as the table saw them
  (the turned card) and once with the undealt cards gone too: every card is
  then ranked among the cards still in play, so a king whose ace was never
  dealt counts as an ace. The held-out log-loss the second saves is what
  such a reading takes from a bid.

OpenSpiel's search does not replay a deal the same way in another process
(its choices follow the order of its hash tables in memory), so the
figures move a little from run to run; the deals are the same from
``--seed``.

    python bench/experiments/tells.py --deals 300 --jobs 2 --seed 1 --json --rows tells.json
    python bench/experiments/tells.py --read tells.json     # the figures again from the records
    python bench/experiments/tells.py --players 3 --size 10 --deals 150
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import _bench_path  # noqa: F401  (bench/ on the path: strength, openspiel_bridge)
from play_model import fit_weights, losses

from ohhell import Play, observe
from ohhell.bots.expert import trick_estimator
from ohhell.bots.fastdeal import Layout, layout, suit_index
from ohhell.bots.playmodel import history
from openspiel_bridge import (
    FairStock,
    OpenSpielISMCTS,
    card_of,
    follow,
    hands_and_trump,
    load_game,
    new_deal,
    rules,
    search_policy,
    seed_of,
)
from strength import mean_ci

Row = dict[str, Any]


def undealt(lay: Layout, dealt: set[Any]) -> int:
    """The slots of the cards nobody holds and nobody sees (the turned card is seen)."""
    return sum(1 << slot for slot in range(lay.size) if lay.cards[slot] not in dealt)


def play(job: tuple[int, int, int, int, int, float]) -> tuple[list[Row], list[Row], list[Row]]:
    """One deal with the knowing search in every seat: a row for each of its
    decisions with a choice (what it tells), a play-model record for each
    card chosen among several (the context, the legal slots, the card, the
    undealt cards) and a record for each bid (the hand, the turned card, the
    undealt cards, trump, the bid)."""
    deal, seed, simulations, players, size, uniform = job
    spiel, engine = new_deal(random.Random(f"tells-deal:{seed}:{deal}"), size, players)
    hands, turned = hands_and_trump(spiel, players)
    lay = layout(engine.rules)
    stock = undealt(lay, {c for h in hands for c in h} | {turned})
    seats = [OpenSpielISMCTS(simulations).bot(seed_of("tells", seed, deal, s)) for s in range(players)]
    guess = FairStock(simulations, 1, seed_of("tells", seed, deal, 2 * players))
    tells: list[Row] = []
    cards: list[Row] = []
    bids: list[Row] = []
    decision = 0
    while not spiel.is_terminal():
        seat = spiel.current_player()
        legal = spiel.legal_actions()
        code = seats[seat].step(spiel)
        obs = observe(engine, seat)
        if len(legal) > 1:
            decision += 1
            known = search_policy(spiel, seed_of("tells", seed, deal, 3 * players + decision), simulations)
            fair = guess.policy(spiel, obs)
            even = uniform / len(legal)
            p_known = (1 - uniform) * known.get(code, 0.0) + even
            p_fair = (1 - uniform) * fair.get(code, 0.0) + even
            tells.append(
                {
                    "deal": deal,
                    "kind": "bid" if code >= 52 else "card",
                    "tricks_done": len(obs.tricks),
                    "choices": len(legal),
                    "tell": math.log(p_known) - math.log(p_fair),
                    "known_favourite": max(known, key=lambda a: (known[a], -a)) == code,
                    "fair_favourite": max(fair, key=lambda a: (fair[a], -a)) == code,
                }
            )
            if code >= 52:
                bids.append(
                    {
                        "deal": deal,
                        "hand": sum(1 << lay.slot(c, 0) for c in obs.hand),
                        "turned": 1 << lay.slot(turned, 0),
                        "undealt": stock,
                        "trump": suit_index(obs.trump),
                        "bid": code - 52,
                    }
                )
            else:
                _, ctx = history(obs, lay)
                assert ctx is not None
                choices = sorted({a.card for a in obs.legal_actions if isinstance(a, Play)})
                cards.append(
                    {
                        "deal": deal,
                        "context": dataclasses.asdict(ctx),
                        "legal": [lay.slot(c, ctx.gone) for c in choices],
                        "y": choices.index(card_of(code)),
                        "undealt": stock,
                    }
                )
        follow(spiel, engine, code)
    return tells, cards, bids


def knowing(record: Row) -> Row:
    """A play-model record as a seat that knows the undealt cards sees it: they count as gone."""
    context = {**record["context"], "gone": record["context"]["gone"] | record["undealt"]}
    return {**record, "context": context}


def clustered_mean_ci(values: list[float], deals: list[int]) -> tuple[float, float]:
    """The mean of ``values`` with its 95% interval, each deal's values taken
    together: the choices of one deal share its undealt cards, so they are
    not independent draws (the ratio estimator's variance over deals)."""
    by_deal: dict[int, list[float]] = {}
    for value, deal in zip(values, deals, strict=True):
        by_deal.setdefault(deal, []).append(value)
    mean = sum(values) / len(values)
    k = len(by_deal)
    if k < 2:
        return mean, float("nan")
    size = len(values) / k
    spread = sum((sum(v) - mean * len(v)) ** 2 for v in by_deal.values()) / (k - 1)
    return mean, 1.96 * math.sqrt(spread / k) / size


def summary_of_tells(rows: list[Row], players: int) -> dict[str, Any]:
    """What the actions tell, by kind and by tricks done, and in a deal: all
    the tells of a deal summed, less the seat's own share (a seat reads the
    others' choices, ``players - 1`` of ``players``)."""
    groups = {
        "bids": [r for r in rows if r["kind"] == "bid"],
        "cards, tricks 1 to 5": [r for r in rows if r["kind"] == "card" and r["tricks_done"] < 5],
        "cards, tricks 6 on": [r for r in rows if r["kind"] == "card" and r["tricks_done"] >= 5],
        "cards": [r for r in rows if r["kind"] == "card"],
    }
    out: dict[str, Any] = {}
    for name, group in groups.items():
        if not group:
            continue
        m, ci = clustered_mean_ci([r["tell"] for r in group], [r["deal"] for r in group])
        out[name] = {
            "decisions": len(group),
            "nats": round(m, 4),
            "ci95": round(ci, 4),
            "favourite_knowing_the_deal": round(sum(r["known_favourite"] for r in group) / len(group), 4),
            "favourite_guessing_the_stock": round(sum(r["fair_favourite"] for r in group) / len(group), 4),
        }
    per_deal: dict[int, float] = {}
    for r in rows:
        per_deal[r["deal"]] = per_deal.get(r["deal"], 0.0) + r["tell"] * (players - 1) / players
    if per_deal:
        m, ci = mean_ci(list(per_deal.values()))
        out["a deal, the others' choices"] = {
            "deals": len(per_deal),
            "nats": round(m, 4),
            "ci95": round(ci, 4),
        }
    return out


def summary_of_model(records: list[Row], lay: Layout, ridge: float) -> dict[str, Any]:
    """The play model fitted as the table sees the cards gone and as a
    knowing seat does; the held-out log-loss each gives, and the saving."""
    train = [r for r in records if r["deal"] % 5 != 4]
    held = [r for r in records if r["deal"] % 5 == 4]
    if not train or not held:
        return {}
    table_w = fit_weights(train, ridge, lay)
    known_w = fit_weights([knowing(r) for r in train], ridge, lay)
    table_loss = losses(table_w, held, lay)
    known_loss = losses(known_w, [knowing(r) for r in held], lay)
    saving, ci = clustered_mean_ci(
        [a - b for a, b in zip(table_loss, known_loss, strict=True)], [r["deal"] for r in held]
    )
    uniform = [math.log(len(r["legal"])) for r in held]
    return {
        "held_out_cards": len(held),
        "log_loss_uniform": round(sum(uniform) / len(uniform), 4),
        "log_loss_cards_gone_as_seen": round(sum(table_loss) / len(held), 4),
        "log_loss_undealt_known": round(sum(known_loss) / len(held), 4),
        "saving_nats_a_card": round(saving, 4),
        "ci95": round(ci, 4),
    }


def ranked_in_play(lay: Layout, hand: int, gone: int) -> int:
    """``hand`` with each card moved up past the cards of its suit in ``gone``:
    ranked among the cards still in play, as a seat that knows ``gone`` are
    out of it ranks them (a king over an ace that is out plays as the ace)."""
    out = 0
    for suit_mask in lay.suit_mask:
        ladder = [slot for slot in range(lay.size) if suit_mask >> slot & 1]  # by rank, lowest first
        live = [slot for slot in ladder if not gone >> slot & 1]
        lift = len(ladder) - len(live)
        for k, slot in enumerate(live):
            if hand >> slot & 1:
                out |= 1 << ladder[k + lift]
    return out


def _bid_losses(
    train: list[tuple[float, int]], held: list[tuple[float, int]], size: int
) -> tuple[list[float], dict[str, float]]:
    """Bids as a rounded Gaussian over 0..``size`` around ``a x estimate + b``
    (least squares on ``train``, the spread the one of a grid that fits
    ``train`` best): each held-out bid's log-loss, and the fit."""
    n = len(train)
    mx = sum(e for e, _ in train) / n
    my = sum(b for _, b in train) / n
    sxx = sum((e - mx) ** 2 for e, _ in train) or 1.0
    a = sum((e - mx) * (b - my) for e, b in train) / sxx
    b0 = my - a * mx

    def loss(estimate: float, bid: int, spread: float) -> float:
        mu = a * estimate + b0
        z = [math.exp(-((k - mu) ** 2) / (2 * spread**2)) for k in range(size + 1)]
        return -math.log(max(z[bid] / sum(z), 1e-300))

    spread = min((0.3 + 0.05 * k for k in range(40)), key=lambda sd: sum(loss(e, b, sd) for e, b in train))
    return [loss(e, b, spread) for e, b in held], {"scale": a, "shift": b0, "spread": spread}


def summary_of_bids(records: list[Row], lay: Layout, players: int, size: int) -> dict[str, Any]:
    """The bids read by the expert's trick estimate of the hand ranked as the
    table sees it and ranked with the undealt cards out of play."""
    train = [r for r in records if r["deal"] % 5 != 4]
    held = [r for r in records if r["deal"] % 5 == 4]
    if not train or not held:
        return {}
    out: dict[str, Any] = {"held_out_bids": len(held)}
    found: dict[str, list[float]] = {}
    for name, gone in (
        ("seen", lambda r: r["turned"]),
        ("undealt_known", lambda r: r["turned"] | r["undealt"]),
    ):

        def estimate(r: Row, gone: Any = gone) -> float:
            return trick_estimator(lay, r["trump"], players)(ranked_in_play(lay, r["hand"], gone(r)))

        found[name], fit = _bid_losses(
            [(estimate(r), r["bid"]) for r in train], [(estimate(r), r["bid"]) for r in held], size
        )
        out[f"log_loss_{name}"] = round(sum(found[name]) / len(held), 4)
        out[f"fit_{name}"] = {k: round(v, 3) for k, v in fit.items()}
    saving, ci = clustered_mean_ci(
        [a - b for a, b in zip(found["seen"], found["undealt_known"], strict=True)], [r["deal"] for r in held]
    )
    out["log_loss_uniform"] = round(math.log(size + 1), 4)
    out["saving_nats_a_bid"] = round(saving, 4)
    out["ci95"] = round(ci, 4)
    return out


def report_of(records: dict[str, list[Row]], settings: dict[str, Any]) -> dict[str, Any]:
    """The three readers' figures from a run's records."""
    lay = layout(rules(settings["size"], 0, settings["players"]))
    return {
        "settings": settings,
        "the_search_as_reader": summary_of_tells(records["tells"], settings["players"]),
        "the_play_model_as_reader": summary_of_model(records["cards"], lay, settings["ridge"]),
        "the_bid_estimate_as_reader": summary_of_bids(
            records["bids"], lay, settings["players"], settings["size"]
        ),
    }


def print_table(report: dict[str, Any]) -> None:
    print(
        "| the knowing search's choices, read by its visit shares | decisions | tell, nats ± 95% "
        "| its favourite is the action, knowing / guessing the stock |"
    )
    print("| --- | ---: | --- | --- |")
    for name, g in report["the_search_as_reader"].items():
        if "decisions" in g:
            print(
                f"| {name} | {g['decisions']} | {g['nats']:+.3f} ± {g['ci95']:.3f} "
                f"| {g['favourite_knowing_the_deal']:.1%} / {g['favourite_guessing_the_stock']:.1%} |"
            )
        else:
            print(f"| **{name}** | {g['deals']} deals | **{g['nats']:+.2f} ± {g['ci95']:.2f}** | |")
    m = report["the_play_model_as_reader"]
    if m:
        print(
            f"\nthe play model on {m['held_out_cards']} held-out cards: log-loss "
            f"{m['log_loss_cards_gone_as_seen']:.4f} with the cards gone as seen, "
            f"{m['log_loss_undealt_known']:.4f} with the undealt cards known "
            f"(uniform {m['log_loss_uniform']:.4f}): it reads "
            f"{m['saving_nats_a_card']:+.4f} ± {m['ci95']:.4f} nats a card"
        )
    b = report["the_bid_estimate_as_reader"]
    if b:
        print(
            f"the trick estimate on {b['held_out_bids']} held-out bids: log-loss "
            f"{b['log_loss_seen']:.4f} ranking the hand as seen, "
            f"{b['log_loss_undealt_known']:.4f} with the undealt cards out of play "
            f"(uniform {b['log_loss_uniform']:.4f}): it reads "
            f"{b['saving_nats_a_bid']:+.4f} ± {b['ci95']:.4f} nats a bid"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--first", type=int, default=0, help="the first deal's number")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--simulations", type=int, default=1000, help="OpenSpiel's ISMCTS budget")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--size", type=int, default=10, help="tricks in the hand")
    parser.add_argument("--uniform", type=float, default=0.05, help="uniform share mixed into each chance")
    parser.add_argument("--ridge", type=float, default=1.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--rows", help="write the run's records (settings, choices) to this JSON file")
    parser.add_argument("--read", help="no play: the figures from a file --rows wrote")
    args = parser.parse_args()
    if args.read:
        try:
            with open(args.read) as f:
                saved = json.load(f)
            settings, records = saved["settings"], saved["records"]
            assert all(isinstance(records[k], list) for k in ("tells", "cards", "bids"))
        except (OSError, ValueError, KeyError, TypeError, AssertionError) as error:
            parser.error(f"{args.read} is not a file that --rows wrote ({type(error).__name__}: {error})")
        report = report_of(records, settings)
        if args.json:
            print(json.dumps(report, indent=2))
        print_table(report)
        return
    for name in ("deals", "jobs", "simulations"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1, not {getattr(args, name)}")
    if not 0 < args.uniform <= 1:
        parser.error(f"--uniform must be above 0 and at most 1, not {args.uniform}")
    try:
        load_game(args.size, args.players)  # refuses a game OpenSpiel cannot deal, before any work
    except ValueError as error:
        parser.error(str(error))
    jobs = [
        (d, args.seed, args.simulations, args.players, args.size, args.uniform)
        for d in range(args.first, args.first + args.deals)
    ]
    records: dict[str, list[Row]] = {"tells": [], "cards": [], "bids": []}
    with ProcessPoolExecutor(args.jobs) as pool:
        for done, (t, c, b) in enumerate(pool.map(play, jobs, chunksize=1), 1):
            records["tells"] += t
            records["cards"] += c
            records["bids"] += b
            print(f"\r{done}/{args.deals} deals", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    settings = {k: v for k, v in vars(args).items() if k not in ("rows", "read", "json")}
    if args.rows:
        with open(args.rows, "w") as f:
            json.dump({"settings": settings, "records": records}, f)
    report = report_of(records, settings)
    if args.json:
        print(json.dumps(report, indent=2))
    print_table(report)


if __name__ == "__main__":
    main()
