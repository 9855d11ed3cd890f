"""Learn a small bidding model from simulated deals, then test it in a duplicate tournament.

1. Data: single-hand deals of a rule set (default the pagat preset, 4 players)
   played by four intermediate bots. At every bid the seat's observation is
   recorded as the environment's vector (``ohhell.env.encode(observe(state,
   seat))``, 1162 floats) and, once the hand is over, the tricks that seat
   took is its label. The intermediate's own bid steers its play, so a label
   is "tricks taken by the intermediate after bidding what it bid".
2. Model: a small network in NumPy alone (features read from the vector, one
   hidden layer, a softmax over 0..17 tricks masked to the hand size), fitted
   by Adam on cross-entropy. It predicts a distribution P(tricks = k), because
   the bid with the best expected score needs the whole distribution. The test
   split compares it with a baseline by hand size alone and with the
   intermediate's own estimate (its card chances, before the steering it adds
   when it bids).
3. ``ModelBidder``: an intermediate bot whose only change is the bid, the legal
   bid (the hook removes one, R-HOOK) with the best expected score under the
   model's distribution. Every other decision is the intermediate's.
4. Tournament: duplicate deals with the bots rotated through the seats, the
   same deals and seeds as ``ohhell tournament``, reported with
   ``ohhell.bots.tournament``'s result type and table: mean score per hand with 95%
   confidence intervals, exact-bid rates and paired differences.

    python examples/bidding_model.py --train-deals 6000 --test-deals 1000 \\
        --tournament-deals 3000 --jobs 2 --save model.npz
    python examples/bidding_model.py --load model.npz --test-deals 0 \\
        --tournament-deals 400 --bots model,intermediate,beginner

Needs NumPy (``pip install "ohhell[research]"``).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ohhell.bots import play_match, register_bot
from ohhell.bots.rulebased import IntermediateBot
from ohhell.bots.tournament import TournamentResult, deal_rules, format_result, run_tournament
from ohhell.encoding import LAYOUT, MAX_HAND, OBSERVATION_SIZE, encode
from ohhell.game import Action, Bid
from ohhell.rules import PRESETS, Rules
from ohhell.scoring import hand_score
from ohhell.view import Observation

Array = npt.NDArray[np.float64]
CLASSES = MAX_HAND + 1  # tricks 0..17


def _field(x: Array, name: str) -> Array:
    a, b = LAYOUT[name]
    return x[:, a:b]


# --- Features: read from the observation vector only. ---


def features(vectors: npt.ArrayLike) -> Array:
    """Bidding features of encoded observations, shape (n, 1162) -> (n, F).

    The vector's cards are by suit; what matters for tricks is the suit's role,
    so the hand is re-expressed relative to trump: the trump ranks held, the
    side-suit ranks held by the side suit's length (1, 2, 3 or more), the trump
    length, voids and singletons. Then the table: hand size, players, the share
    of the pack dealt, one's place relative to the first lead and to the dealer,
    the bids already made, the hook's forbidden bid and the turned card's rank.
    """
    x = np.atleast_2d(np.asarray(vectors, np.float64))
    hand = _field(x, "own_hand").reshape(-1, 4, 13)
    trump = _field(x, "trump")
    t4 = trump[:, :4]
    lengths = hand.sum(2)
    trump_ranks = (hand * t4[:, :, None]).sum(1)
    side = hand * (1 - t4)[:, :, None]
    side_len = lengths * (1 - t4)
    by_length = [(side * (m[:, :, None])).sum(1) for m in (side_len == 1, side_len == 2, side_len >= 3)]
    trump_len = (lengths * t4).sum(1)
    trump_len_hot = np.eye(8)[np.minimum(trump_len, 7).astype(int)]
    side_void = ((lengths == 0) & (t4 == 0)).sum(1, keepdims=True)
    side_single = ((lengths == 1) & (t4 == 0)).sum(1, keepdims=True)
    size = _field(x, "hand_size_scaled") * MAX_HAND
    players = _field(x, "seat_present").sum(1, keepdims=True)
    dealt = players * size / 52
    bids = _field(x, "bids").reshape(-1, 7, CLASSES) @ np.arange(CLASSES)
    bid_total = bids.sum(1, keepdims=True)
    bidders = _field(x, "has_bid").sum(1, keepdims=True)
    forbidden = _field(x, "forbidden_bid")
    forbidden_at = forbidden @ np.arange(CLASSES)
    turned = _field(x, "turned").reshape(-1, 4, 13).sum(1)
    parts = [
        trump_ranks,
        *by_length,
        trump_len_hot,
        trump[:, 4:5],  # no trump
        side_void,
        side_single,
        _field(x, "hand_size"),
        size / MAX_HAND,
        _field(x, "players"),
        dealt,
        _field(x, "leader"),  # at the bid: the first lead, relative to this seat
        _field(x, "dealer"),
        bid_total / np.maximum(size, 1),
        (bid_total - size) / MAX_HAND,
        bidders / 7,
        forbidden.sum(1, keepdims=True),
        forbidden_at[:, None] / np.maximum(size, 1),
        turned,
    ]
    return np.concatenate(parts, axis=1)


def hand_sizes(vectors: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """The hand size of each encoded observation (its ``hand_size`` one-hot)."""
    x = np.atleast_2d(np.asarray(vectors, np.float64))
    sizes: npt.NDArray[np.int64] = np.rint(_field(x, "hand_size_scaled")[:, 0] * MAX_HAND).astype(np.int64)
    return sizes


def _mask(sizes: npt.NDArray[np.int64]) -> Array:
    # Tricks above the hand size are impossible: -inf before the softmax.
    return np.where(np.arange(CLASSES)[None, :] <= sizes[:, None], 0.0, -np.inf)


def _softmax(z: Array) -> Array:
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    p: Array = e / e.sum(1, keepdims=True)
    return p


# --- The model. ---


@dataclass
class TrickModel:
    """P(tricks = k | observation at the bid), k = 0..17, zero above the hand size.

    ``features`` standardised, one tanh hidden layer (none if ``hidden`` is 0),
    a softmax over the tricks.
    """

    mean: Array
    scale: Array
    w1: Array  # (F, H); (F, 0) without a hidden layer
    b1: Array
    w2: Array  # (H or F, CLASSES)
    b2: Array

    @property
    def hidden(self) -> int:
        return int(self.w1.shape[1])

    def _forward(self, phi: Array) -> tuple[Array, Array]:
        z = (phi - self.mean) / self.scale
        h = np.tanh(z @ self.w1 + self.b1) if self.hidden else z
        return z, h

    def predict(self, vectors: npt.ArrayLike) -> Array:
        """The distribution over 0..17 tricks for each encoded observation, (n, 18)."""
        x = np.atleast_2d(np.asarray(vectors, np.float64))
        _, h = self._forward(features(x))
        return _softmax(h @ self.w2 + self.b2 + _mask(hand_sizes(x)))

    def save(self, path: str) -> None:
        np.savez(path, mean=self.mean, scale=self.scale, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2)

    @classmethod
    def load(cls, path: str) -> TrickModel:
        with np.load(path) as f:
            return cls(*(f[k] for k in ("mean", "scale", "w1", "b1", "w2", "b2")))

    def arrays(self) -> tuple[Array, ...]:
        return (self.mean, self.scale, self.w1, self.b1, self.w2, self.b2)


def fit(
    x: npt.ArrayLike,
    tricks: npt.NDArray[np.int64],
    *,
    hidden: int = 16,
    epochs: int = 60,
    l2: float = 1e-3,
    lr: float = 3e-3,
    batch: int = 256,
    seed: int = 1,
) -> TrickModel:
    """Fit a ``TrickModel`` by Adam on the mean cross-entropy plus an L2 penalty.

    A tenth of the data is held out: training stops once its log loss has not
    improved for 3 epochs, and the parameters of the best epoch are kept.
    """
    rng = np.random.default_rng(seed)
    phi = features(x)
    mask = _mask(hand_sizes(x))
    onehot = np.eye(CLASSES)[tricks]
    mean = phi.mean(0)
    scale = phi.std(0)
    scale[scale < 1e-6] = 1.0  # features constant in the data (other table sizes...)
    z = (phi - mean) / scale
    n, f = z.shape
    order = rng.permutation(n)
    held = order[: max(1, n // 10)] if n >= 20 else order[:0]
    train = order[len(held) :]
    width = hidden or f
    params = {
        "w1": rng.normal(0, 1 / math.sqrt(f), (f, hidden)),
        "b1": np.zeros(hidden),
        "w2": rng.normal(0, 0.1 / math.sqrt(width), (width, CLASSES)),
        "b2": np.zeros(CLASSES),
    }

    def forward(idx: npt.NDArray[np.int64]) -> tuple[Array, Array]:
        h = np.tanh(z[idx] @ params["w1"] + params["b1"]) if hidden else z[idx]
        return h, _softmax(h @ params["w2"] + params["b2"] + mask[idx])

    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(p) for k, p in params.items()}
    best, best_loss, waited, step = dict(params), math.inf, 0, 0
    for _ in range(epochs):
        shuffled = train[rng.permutation(len(train))]
        for at in range(0, len(train), batch):
            idx = shuffled[at : at + batch]
            h, p = forward(idx)
            d_logits = (p - onehot[idx]) / len(idx)
            grads = {"w2": h.T @ d_logits + l2 * params["w2"], "b2": d_logits.sum(0)}
            if hidden:
                d_h = (d_logits @ params["w2"].T) * (1 - h * h)
                grads["w1"] = z[idx].T @ d_h + l2 * params["w1"]
                grads["b1"] = d_h.sum(0)
            step += 1
            for k, g in grads.items():
                m[k] = 0.9 * m[k] + 0.1 * g
                v[k] = 0.999 * v[k] + 0.001 * g * g
                update = (m[k] / (1 - 0.9**step)) / (np.sqrt(v[k] / (1 - 0.999**step)) + 1e-8)
                params[k] = params[k] - lr * update
        if not len(held):
            best = dict(params)
            continue
        _, p = forward(held)
        loss = float(-np.log(np.clip(p[np.arange(len(held)), tricks[held]], 1e-12, 1)).mean())
        if loss < best_loss - 1e-4:
            best, best_loss, waited = dict(params), loss, 0
        else:
            waited += 1
            if waited >= 3:
                break
    return TrickModel(mean, scale, best["w1"], best["b1"], best["w2"], best["b2"])


# --- The bot. ---


def best_bid(dist: Sequence[float], bids: Sequence[int], rules: Rules) -> int:
    """The bid in ``bids`` with the best expected score when P(tricks = t) is
    ``dist[t]``; between equals the one nearest the expected tricks."""
    expected = sum(t * p for t, p in enumerate(dist))

    def value(b: int) -> tuple[float, float]:
        score = sum(p * hand_score(rules.scoring, b, t) for t, p in enumerate(dist) if p > 0)
        return score, -abs(b - expected)

    return max(bids, key=value)


class ModelBidder:
    """The intermediate bot with the model's bid: the legal bid with the best
    expected score under the predicted trick distribution. ``obs.legal_actions``
    already leaves out the bid the hook forbids (R-HOOK), so the best legal bid
    is the next best when the best is forbidden. Cards, trump and Devil's
    Bridge are played by the intermediate."""

    def __init__(self, model: TrickModel, name: str = "model") -> None:
        self.name = name
        self.model = model
        self.inner = IntermediateBot()

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        bids = [a for a in obs.legal_actions if isinstance(a, Bid)]
        if not bids or obs.devils_bridge:
            return self.inner.choose(obs, rng)
        dist = self.model.predict(encode(obs))[0]
        pick = best_bid(dist, [a.bid for a in bids], obs.rules)
        return next(a for a in bids if a.bid == pick)


# --- Data: deals played by intermediate bots, recorded at each bid. ---


def intermediate_estimate(obs: Observation) -> list[float]:
    """The intermediate's own trick distribution at a bid (its card chances,
    before the steering it adds per bid): a diagnostic."""
    return IntermediateBot().trick_estimate(obs)


class _Recorder:
    """Plays as the intermediate and records the observation at its bid."""

    def __init__(self, log: list[tuple[int, npt.NDArray[np.float32], list[float]]]) -> None:
        self.name = "intermediate"
        self.bot = IntermediateBot()
        self.log = log

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        action = self.bot.choose(obs, rng)
        if isinstance(action, Bid):
            self.log.append((action.seat, encode(obs), intermediate_estimate(obs)))
        return action


def _simulate(task: tuple[Rules, str, int, Sequence[int]]) -> list[tuple[Any, ...]]:
    rules, split, seed, indices = task
    rows = []
    for index in indices:
        log: list[tuple[int, npt.NDArray[np.float32], list[float]]] = []
        state = play_match(
            deal_rules(rules, index),
            [_Recorder(log) for _ in range(rules.players)],
            random.Random(f"bidding-model/{seed}/{split}/{index}/bots"),
            chance_rng=random.Random(f"bidding-model/{seed}/{split}/{index}/chance"),
        )
        result = state.results[0]
        for seat, vector, estimate in log:
            padded = [*estimate, *[0.0] * (CLASSES - len(estimate))]
            rows.append((vector, result.tricks[seat], result.bids[seat], padded))
    return rows


@dataclass
class Dataset:
    x: npt.NDArray[np.float32]  # (n, 1162) observation vectors at the bid
    tricks: npt.NDArray[np.int64]  # tricks the seat took
    bids: npt.NDArray[np.int64]  # what the intermediate bid
    estimate: Array  # (n, 18) the intermediate's own distribution


def simulate(rules: Rules, deals: int, seed: int, split: str, jobs: int = 1) -> Dataset:
    """Record every bid of ``deals`` single-hand deals (``deal_rules``: the
    schedule's hand sizes in turn, the dealer moving one seat per deal)."""
    chunks = [range(at, min(at + 50, deals)) for at in range(0, deals, 50)]
    tasks = [(rules, split, seed, c) for c in chunks]
    rows: list[tuple[Any, ...]] = []
    if jobs > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(jobs) as pool:
            for part in pool.map(_simulate, tasks):
                rows.extend(part)
    else:
        for task in tasks:
            rows.extend(_simulate(task))
    if not rows:
        empty = np.zeros((0, OBSERVATION_SIZE), np.float32)
        return Dataset(empty, np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, CLASSES)))
    return Dataset(
        np.stack([r[0] for r in rows]),
        np.array([r[1] for r in rows], np.int64),
        np.array([r[2] for r in rows], np.int64),
        np.array([r[3] for r in rows], np.float64),
    )


def size_baseline(train: Dataset) -> Callable[[npt.ArrayLike], Array]:
    """P(tricks | hand size) counted on the training set (add-one smoothed)."""
    table = np.ones((CLASSES, CLASSES))
    np.add.at(table, (hand_sizes(train.x), train.tricks), 1.0)
    table += _mask(np.arange(CLASSES))  # -inf where impossible
    table = np.where(np.isfinite(table), table, 0.0)
    table /= table.sum(1, keepdims=True)
    return lambda x: table[hand_sizes(x)]


def evaluate(dist: Array, tricks: npt.NDArray[np.int64]) -> dict[str, float]:
    """Log loss, MAE of the expected tricks, accuracy of the most likely count."""
    n = len(tricks)
    p = np.clip(dist[np.arange(n), tricks], 1e-12, 1.0)
    expected = dist @ np.arange(CLASSES)
    return {
        "log_loss": round(float(-np.log(p).mean()), 4),
        "mae": round(float(np.abs(expected - tricks).mean()), 4),
        "accuracy": round(float((dist.argmax(1) == tricks).mean()), 4),
    }


# --- The tournament: the model's bidder registered as a bot, played by ohhell's tournament. ---


def tournament(
    names: Sequence[str], rules: Rules, deals: int, seed: int, model: TrickModel | None, jobs: int = 1
) -> TournamentResult:
    """Duplicate deals between ``names`` ("model" is the ``ModelBidder``), every
    deal replayed once per rotation of the bots through the seats: the same
    deals and seeds as ``ohhell tournament --seed``."""
    if "model" in names:
        if model is None:
            raise ValueError("the bot 'model' needs a model")
        register_bot("model", lambda **_: ModelBidder(model), opponent=False)
    return run_tournament(list(names), rules, deals, seed, jobs, progress=False)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="pagat", choices=sorted(PRESETS))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--train-deals", type=int, default=6000, help="deals recorded for training")
    parser.add_argument("--test-deals", type=int, default=1000, help="deals recorded for the test split")
    parser.add_argument("--tournament-deals", type=int, default=1500, help="duplicate deals (0: none)")
    parser.add_argument("--bots", default="model,intermediate", help="tournament bots ('model': ModelBidder)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hidden", type=int, default=16, help="hidden units (0: a linear softmax)")
    parser.add_argument("--epochs", type=int, default=60, help="at most; early stopping")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (same results as 1)")
    parser.add_argument("--save", metavar="FILE.npz", help="save the fitted model")
    parser.add_argument("--load", metavar="FILE.npz", help="load a model instead of training one")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    return parser.parse_args(argv)


def run(args: argparse.Namespace, log: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Train (or load), evaluate and play; everything measured, as plain data."""
    rules = PRESETS[args.preset].replace(players=args.players)
    out: dict[str, Any] = {"preset": args.preset, "players": args.players, "seed": args.seed}
    start = time.perf_counter()
    train = None
    if args.load:
        model = TrickModel.load(args.load)
        out["model"] = {"loaded": args.load, "hidden": model.hidden}
    else:
        train = simulate(rules, args.train_deals, args.seed, "train", args.jobs)
        bids = len(train.tricks)
        log(f"recorded {bids} bids from {args.train_deals} deals ({time.perf_counter() - start:.0f} s)")
        model = fit(train.x, train.tricks, hidden=args.hidden, epochs=args.epochs, seed=args.seed)
        out["model"] = {"train_deals": args.train_deals, "train_bids": bids, "hidden": args.hidden}
        log(f"fitted the model ({time.perf_counter() - start:.0f} s)")
    if args.save:
        model.save(args.save)
        out["model"]["saved"] = args.save
    if args.test_deals > 0:
        test = simulate(rules, args.test_deals, args.seed, "test", args.jobs)
        predicted = model.predict(test.x)
        rows = {"model": evaluate(predicted, test.tricks)}
        rows["intermediate estimate"] = evaluate(test.estimate, test.tricks)
        if train is not None:
            rows["hand size only"] = evaluate(size_baseline(train)(test.x), test.tricks)
        # The intermediate's bid as a point prediction: accuracy is its exact-bid rate.
        rows["intermediate bid"] = {
            "mae": round(float(np.abs(test.bids - test.tricks).mean()), 4),
            "accuracy": round(float((test.bids == test.tricks).mean()), 4),
        }
        out["test"] = {"deals": args.test_deals, "bids": len(test.tricks), "predictors": rows}
        log(f"evaluated on {len(test.tricks)} test bids ({time.perf_counter() - start:.0f} s)")
    if args.tournament_deals > 0:
        names = [b.strip().lower() for b in args.bots.split(",") if b.strip()]
        result = tournament(names, rules, args.tournament_deals, args.seed, model, args.jobs)
        out["tournament"] = result.as_dict()
        out["tournament_table"] = format_result(result)
        log(f"tournament done ({time.perf_counter() - start:.0f} s)")
    out["seconds"] = round(time.perf_counter() - start, 1)
    return out


def format_test(test: dict[str, Any]) -> str:
    lines = [
        f"Test split: {test['bids']} bids of {test['deals']} deals, predicting the tricks taken",
        "",
        f"{'predictor':<24}{'log loss':>9}{'MAE':>8}{'accuracy':>10}",
    ]
    for name, row in test["predictors"].items():
        loss = f"{row['log_loss']:.3f}" if "log_loss" in row else "-"
        lines.append(f"{name:<24}{loss:>9}{row['mae']:>8.3f}{row['accuracy']:>10.1%}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    out = run(args, log=lambda s: print(s, file=sys.stderr))
    if args.json:
        print(json.dumps({k: v for k, v in out.items() if k != "tournament_table"}, indent=2))
        return 0
    if "test" in out:
        print(format_test(out["test"]))
        print()
    if "tournament" in out:
        print(out["tournament_table"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
