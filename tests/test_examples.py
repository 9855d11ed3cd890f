"""The examples under examples/: the bidding model (examples/bidding_model.py)
run end to end at a tiny size, its distribution, and its bot's bids (R-HOOK)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from ohhell.bots import get_bot, play_match  # noqa: E402
from ohhell.bots.tournament import deal_rules  # noqa: E402
from ohhell.game import Action, Bid, Play  # noqa: E402
from ohhell.rules import PRESETS  # noqa: E402
from ohhell.view import Observation  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "bidding_model.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bidding_model", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bidding_model"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bm() -> ModuleType:
    return _load()


@pytest.fixture(scope="module")
def run(bm: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    path = tmp_path_factory.mktemp("bidding") / "model.npz"
    argv = ["--train-deals", "60", "--test-deals", "10", "--tournament-deals", "20", "--save", str(path)]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert bm.main([*argv, "--json"]) == 0
    return json.loads(out.getvalue()), path


class _Watcher:
    """An intermediate bot that keeps every observation it bids from."""

    def __init__(self, seen: list[Observation]) -> None:
        self.name = "watcher"
        self.bot = get_bot("intermediate")
        self.seen = seen

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        action = self.bot.choose(obs, rng)
        if isinstance(action, Bid):
            self.seen.append(obs)
        return action


@pytest.fixture(scope="module")
def bidding_observations() -> list[Observation]:
    seen: list[Observation] = []
    rules = PRESETS["pagat"]
    for index in range(60):
        play_match(deal_rules(rules, index), [_Watcher(seen) for _ in range(4)], random.Random(index))
    return seen


def test_main_reports_the_test_split_and_the_tournament(run: tuple[dict[str, Any], Path]) -> None:
    out, path = run
    assert path.exists()
    assert out["model"]["train_bids"] == 60 * 4
    predictors = out["test"]["predictors"]
    assert {"model", "intermediate estimate", "hand size only", "intermediate bid"} <= set(predictors)
    for name in ("model", "intermediate estimate", "hand size only"):
        assert set(predictors[name]) == {"log_loss", "mae", "accuracy"}
    tour = out["tournament"]
    assert tour["bots"] == ["model", "intermediate"]
    assert tour["deals"] == 20 and tour["rotations"] == 2
    for row in tour["stats"]:
        assert {"bot", "mean_score_per_hand", "ci95", "exact_rate", "hands"} <= set(row)
        assert row["hands"] == 20 * 2 * 2  # two seats each, two rotations
        assert 0 <= row["exact_rate"] <= 1
        low, high = row["ci95"]
        assert low <= row["mean_score_per_hand"] <= high
    (diff,) = tour["differences"]
    assert (diff["a"], diff["b"]) == ("model", "intermediate")
    assert {"mean", "ci95", "significant"} <= set(diff)


def test_the_distribution_sums_to_one_within_the_hand(
    bm: ModuleType, run: tuple[dict[str, Any], Path], bidding_observations: list[Observation]
) -> None:
    model = bm.TrickModel.load(str(run[1]))
    x = np.stack([bm.encode(obs) for obs in bidding_observations])
    dist = model.predict(x)
    assert dist.shape == (len(x), 18)
    assert np.allclose(dist.sum(1), 1.0)
    assert (dist >= 0).all()
    sizes = np.array([len(obs.hand) for obs in bidding_observations])
    assert (bm.hand_sizes(x) == sizes).all()
    beyond = np.arange(18)[None, :] > sizes[:, None]
    assert (dist[beyond] == 0).all()


def test_model_bidder_bids_legally_under_the_hook(
    bm: ModuleType, run: tuple[dict[str, Any], Path], bidding_observations: list[Observation]
) -> None:
    bot = bm.ModelBidder(bm.TrickModel.load(str(run[1])))
    rng = random.Random(0)
    hooked = 0
    for obs in bidding_observations:
        legal = [a.bid for a in obs.legal_actions if isinstance(a, Bid)]
        hooked += len(legal) < len(obs.hand) + 1  # R-HOOK removed a bid
        assert bot.choose(obs, rng) in obs.legal_actions
    assert hooked > 0


def test_model_bidder_takes_the_next_best_bid_when_the_hook_forbids_the_best(
    bm: ModuleType, run: tuple[dict[str, Any], Path], bidding_observations: list[Observation]
) -> None:
    """A model sure of the forbidden count: the bid is the best legal one instead."""
    model = bm.TrickModel.load(str(run[1]))
    hooked = 0
    for obs in bidding_observations:
        legal = [a.bid for a in obs.legal_actions if isinstance(a, Bid)]
        forbidden = sorted(set(range(len(obs.hand) + 1)) - set(legal))
        if not forbidden:
            continue
        hooked += 1
        sure = np.zeros(18)
        sure[forbidden[0]] = 1.0
        model.predict = lambda _x, sure=sure: sure[None, :]
        action = bm.ModelBidder(model).choose(obs, random.Random(0))
        assert isinstance(action, Bid) and action in obs.legal_actions
        assert action.bid != forbidden[0]
        assert action.bid == bm.best_bid(sure, legal, obs.rules)
    assert hooked > 0


def test_model_bidder_plays_cards_as_the_intermediate(
    bm: ModuleType, run: tuple[dict[str, Any], Path]
) -> None:
    bot = bm.ModelBidder(bm.TrickModel.load(str(run[1])))
    reference = get_bot("intermediate")
    plays: list[tuple[Observation, Action]] = []

    class Spy:
        name = "spy"

        def choose(self, obs: Observation, rng: random.Random) -> Action:
            action = bot.choose(obs, rng)
            if isinstance(action, Play):
                plays.append((obs, action))
            return action

    for index in range(5):
        play_match(deal_rules(PRESETS["pagat"], index), [Spy() for _ in range(4)], random.Random(index))
    assert plays
    for obs, action in plays:
        assert reference.choose(obs, random.Random(0)) == action


def test_save_and_load_give_the_same_model(
    bm: ModuleType, run: tuple[dict[str, Any], Path], tmp_path: Path, bidding_observations: list[Observation]
) -> None:
    model = bm.TrickModel.load(str(run[1]))
    again = tmp_path / "again.npz"
    model.save(str(again))
    x = np.stack([bm.encode(obs) for obs in bidding_observations[:50]])
    assert np.array_equal(model.predict(x), bm.TrickModel.load(str(again)).predict(x))
