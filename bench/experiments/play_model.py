"""Fit the expert's model of play (``ohhell.bots.playmodel``) by self-play.

``collect`` plays deals with the expert in every seat. At every card a seat
chooses among two or more, it writes the model's inputs for each legal card
(``playmodel.features``, read from the public context of ``playmodel.history``,
the same function the expert reads past cards with) and which one was
played. Most deals are 4 players and 10 cards (the measured setting); the
rest vary the table (3 to 7 players, 3 to 12 cards, common and pagat).

``fit`` fits the softmax over the legal cards (a conditional logit, Newton's
method with a small ridge), reports the log-loss and how often the model's
favourite was the card played, on the deals held out (every fifth) against
a uniform pick, and with ``--write`` writes ``data/play_model.json``.

    python bench/experiments/play_model.py collect --deals 400 --jobs 2 --seed 2 --out play.jsonl
    python bench/experiments/play_model.py fit play.jsonl --write

Deterministic from ``--seed`` with fixed budgets.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
from pathlib import Path
from typing import Any

from selfplay import collect_parser, varied_table, write_records

from ohhell import Phase, Play, Rules, apply, chance_action, new_game, observe, seats_to_ask
from ohhell.bots.expert import ExpertBot
from ohhell.bots.fastdeal import Layout, layout
from ohhell.bots.playmodel import FEATURES, PlayContext, features, history
from ohhell.bots.shipped import save_weights

WEIGHTS = Path(__file__).resolve().parent.parent / "src" / "ohhell" / "bots" / "data" / "play_model.json"
TRAINED_BY = (
    "python bench/experiments/play_model.py collect --deals 400 --jobs 2 --seed 2 --out play.jsonl"
    " && python bench/experiments/play_model.py fit play.jsonl --write"
)


def table(deal: int, seed: int) -> Rules:
    """The rules of deal ``deal``: mostly the measured setting, else a varied one."""
    return varied_table("play-model-table", deal, seed)


def play(job: tuple[int, int, dict[str, Any]]) -> list[dict[str, Any]]:
    """One deal of expert self-play; a record per card chosen among several."""
    deal, seed, options = job
    rules = table(deal, seed)
    lay = layout(rules)
    state = new_game(rules)
    cards = random.Random(f"play-model-cards:{seed}:{deal}")
    rngs = [random.Random(f"play-model-bot:{seed}:{deal}:{s}") for s in range(rules.players)]
    bots = [ExpertBot(**options) for _ in range(rules.players)]
    records: list[dict[str, Any]] = []
    while not state.is_over:
        if state.is_chance:
            apply(state, chance_action(state, cards))
            continue
        seat = seats_to_ask(state)[0]
        obs = observe(state, seat)
        action = bots[seat].choose(obs, rngs[seat])
        legal = sorted({a.card for a in obs.legal_actions if isinstance(a, Play) and a.card is not None})
        if obs.phase is Phase.PLAY and len(legal) > 1 and isinstance(action, Play):
            _, ctx = history(obs, lay)
            if ctx is not None:
                slots = [lay.slot(card, ctx.gone) for card in legal]
                records.append(
                    {
                        "deal": deal,
                        "seed": seed,
                        "players": rules.players,
                        "context": dataclasses.asdict(ctx),
                        "legal": slots,
                        "y": legal.index(action.card),  # type: ignore[arg-type]
                    }
                )
        apply(state, action)
    return records


def collect(args: argparse.Namespace) -> None:
    options: dict[str, Any] = {"worlds": args.worlds, "simulations": args.simulations}
    jobs = [(d, args.seed, options) for d in range(args.first, args.first + args.deals)]
    write_records(play, jobs, args.jobs, args.out)


def inputs(row: dict[str, Any], lay: Layout | None = None) -> list[list[float]]:
    """The model's inputs for each legal card of one recorded choice (its
    slots in ``lay``, else in the pack of the deal's own table)."""
    if lay is None:
        lay = layout(table(row["deal"], row["seed"]))
    ctx = PlayContext(**row["context"])
    legal = sum(1 << slot for slot in row["legal"])
    return [features(lay, slot, ctx, legal) for slot in row["legal"]]


def _arrays(rows: list[dict[str, Any]], lay: Layout | None = None) -> tuple[Any, Any, Any]:
    """The choices padded to one width: inputs, which are real, which was played."""
    import numpy as np

    width = max(len(r["legal"]) for r in rows)
    x = np.zeros((len(rows), width, len(FEATURES)))
    real = np.zeros((len(rows), width), dtype=bool)
    for i, r in enumerate(rows):
        x[i, : len(r["legal"])] = inputs(r, lay)
        real[i, : len(r["legal"])] = True
    y = np.array([r["y"] for r in rows])
    return x, real, y


def _chances(w: Any, x: Any, real: Any) -> Any:
    import numpy as np

    z = np.where(real, x @ w, -np.inf)
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def fit_weights(rows: list[dict[str, Any]], ridge: float, lay: Layout | None = None) -> list[float]:
    """The conditional logit by Newton's method (NumPy, a few dozen weights)."""
    import numpy as np

    x, real, y = _arrays(rows, lay)
    w = np.zeros(len(FEATURES))
    chosen = x[np.arange(len(y)), y]
    for _ in range(50):
        p = _chances(w, x, real)
        mean = np.einsum("nk,nkd->nd", p, x)
        gradient = (mean - chosen).sum(axis=0) + ridge * w
        second = np.einsum("nk,nkd,nke->de", p, x, x) - mean.T @ mean
        step = np.linalg.solve(second + ridge * np.eye(len(w)), gradient)
        w -= step
        if float(np.abs(step).max()) < 1e-9:
            break
    return [float(v) for v in w]


def losses(w: list[float], rows: list[dict[str, Any]], lay: Layout | None = None) -> list[float]:
    """Each choice's log-loss under the weights ``w``: minus the log of the
    chance they give the card played."""
    import numpy as np

    x, real, y = _arrays(rows, lay)
    p = _chances(np.array(w), x, real)
    return [float(v) for v in -np.log(p[np.arange(len(y)), y])]


def _report(w: list[float], rows: list[dict[str, Any]]) -> dict[str, float]:
    import numpy as np

    x, real, y = _arrays(rows)
    p = _chances(np.array(w), x, real)
    picked = p[np.arange(len(y)), y]
    uniform = 1.0 / real.sum(axis=1)
    return {
        "choices": len(rows),
        "log_loss_model": round(float(-np.log(picked).mean()), 4),
        "log_loss_uniform": round(float(-np.log(uniform).mean()), 4),
        "top_card_played_model": round(float((p.argmax(axis=1) == y).mean()), 4),
        "top_card_played_uniform": round(float(uniform.mean()), 4),
    }


def fit(args: argparse.Namespace) -> None:
    rows = []
    for path in args.files:
        with open(path) as lines:
            rows += [json.loads(line) for line in lines if line.strip()]
    held = [r for r in rows if r["deal"] % 5 == 4]
    train = [r for r in rows if r["deal"] % 5 != 4]
    w = fit_weights(train, args.ridge)
    report: dict[str, Any] = {"samples": len(rows), "held_out": _report(w, held)}
    by_players = {}
    for n in sorted({r["players"] for r in held}):
        by_players[str(n)] = _report(w, [r for r in held if r["players"] == n])
    report["held_out_by_players"] = by_players
    report["weights"] = dict(zip(FEATURES, (round(v, 4) for v in w), strict=True))
    print(json.dumps(report, indent=2))
    h = report["held_out"]
    print(
        f"held out: log-loss {h['log_loss_model']} (uniform {h['log_loss_uniform']}), "
        f"favourite played {h['top_card_played_model']:.1%} (uniform {h['top_card_played_uniform']:.1%})",
        file=sys.stderr,
    )
    if args.write:
        final = fit_weights(rows, args.ridge)  # the shipped weights use every deal
        save_weights(WEIGHTS, FEATURES, final, len(rows), TRAINED_BY)
        print(f"wrote {WEIGHTS}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    collect_parser(sub, "play deals and write the choices as JSON lines", deals=400, seed=1, simulations=1000)
    f = sub.add_parser("fit", help="fit the model on collected choices")
    f.add_argument("files", nargs="+")
    f.add_argument("--ridge", type=float, default=1.0)
    f.add_argument("--write", action="store_true", help="write the package's weights file")
    args = parser.parse_args()
    if args.command == "collect":
        collect(args)
    else:
        fit(args)


if __name__ == "__main__":
    main()
