"""bench/experiments/play_model.py fits the model of play it claims to (it recovers the
weights of choices drawn from a known model), its records read back into
the model's inputs, and bench/experiments/inference.py scores the readings."""

from __future__ import annotations

import math
import random
from types import ModuleType
from typing import Any

from ohhell import Phase, Play
from ohhell.bots import playmodel
from ohhell.bots.fastdeal import layout
from support import bench_script, decisions


def _drawn_choices(bench: ModuleType, w: list[float], deals: int) -> list[dict[str, Any]]:
    """Records in the script's format from real positions (the intermediate
    plays the cards), but the card recorded is drawn from the model with ``w``."""
    rows: list[dict[str, Any]] = []
    for deal in range(deals):
        rules = bench.table(deal, 1)
        lay = layout(rules)
        rng = random.Random(deal)
        for _, obs in decisions(rules, rng):
            legal = sorted({a.card for a in obs.legal_actions if isinstance(a, Play) and a.card is not None})
            if obs.phase is Phase.PLAY and len(legal) > 1:
                _, ctx = playmodel.history(obs, lay)
                assert ctx is not None
                slots = [lay.slot(card, ctx.gone) for card in legal]
                mask = sum(1 << s for s in slots)
                inputs = [playmodel.features(lay, s, ctx, mask) for s in slots]
                exps = [math.exp(sum(a * b for a, b in zip(w, f, strict=True))) for f in inputs]
                y = rng.choices(range(len(slots)), weights=exps)[0]
                rows.append(
                    {
                        "deal": deal,
                        "seed": 1,
                        "players": rules.players,
                        "context": {f: getattr(ctx, f) for f in ctx.__slots__},
                        "legal": slots,
                        "y": y,
                    }
                )
    return rows


def test_the_fit_recovers_the_model_that_drew_the_choices() -> None:
    bench = bench_script("experiments/play_model")
    truth = [random.Random(i).uniform(-1.0, 1.0) for i in range(len(playmodel.FEATURES))]
    rows = _drawn_choices(bench, truth, 120)
    fitted = bench.fit_weights(rows, 0.01)
    # The model that drew the choices explains them better than a uniform
    # pick and as well as the fit (which may only overfit a little).
    report_true = bench._report(truth, rows)
    report_fit = bench._report(fitted, rows)
    assert report_true["log_loss_model"] < report_true["log_loss_uniform"]
    assert report_fit["log_loss_model"] <= report_true["log_loss_model"] + 1e-9
    assert report_fit["log_loss_model"] > report_true["log_loss_model"] - 0.03
    # The weights the positions inform well are found near the truth (a seat
    # past its bid is rare, so the "over" weights are left loose).
    informed = [
        (a, b) for name, a, b in zip(playmodel.FEATURES, fitted, truth, strict=True) if "over:" not in name
    ]
    errors = sorted(abs(a - b) for a, b in informed)
    assert errors[len(errors) // 2] < 0.3
    assert sum(e < 0.6 for e in errors) >= 0.85 * len(errors), list(
        zip(playmodel.FEATURES, fitted, truth, strict=True)
    )


def test_the_inference_bench_scores_each_reading() -> None:
    bench = bench_script("experiments/inference")
    settings = {
        "preset": "common",
        "players": 4,
        "hand_size": 6,
        "seed": 3,
        "worlds": 60,
        "share": 1.0,
        "min_tricks": 1,
        "simulations": 40,
    }
    result = bench.measure((0, settings))
    assert set(result) == {*bench.READINGS, "told the stock"}
    cards = result["none"][1]
    assert cards > 0 and all(row[1] == cards for row in result.values())
    for log_sum, _, kept, positions in result.values():
        assert log_sum < 0 and 0 < kept <= positions
    # Uniform worlds keep every world; the cards really held tell the most.
    assert result["none"][2] == result["none"][3]
    assert result["told the stock"][0] > result["none"][0]
