"""The trainer on the batched simulator, and what it makes: a policy file that
plays as a bot, as an opponent in the batch and at a web table.

Each test trains for a few seconds on the CPU (one PyTorch thread, a fixed
seed), so the suite needs no GPU and gives the same results on every run.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the trainer needs PyTorch (the train extra)")

from ohhell import PRESETS  # noqa: E402
from ohhell.bots import get_bot, play_match, register_bot  # noqa: E402
from ohhell.bots.learned import LearnedBot, load_policy  # noqa: E402
from ohhell.encoding import KEEP, action_id, encode  # noqa: E402
from ohhell.env.batch import BatchSimulator  # noqa: E402
from ohhell.env.batch_bots import BatchBots  # noqa: E402
from ohhell.learn.arena import Arena, NetOpponent, PolicyFileOpponent, alternate  # noqa: E402
from ohhell.learn.clone import fit, record  # noqa: E402
from ohhell.learn.compact import compact_index  # noqa: E402
from ohhell.learn.net import PolicyValueNet, save_policy_file  # noqa: E402
from ohhell.learn.ppo import REWARD_SCALE, Rollout, Settings, collect, train  # noqa: E402

PAGAT = PRESETS["pagat"]


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    torch.set_num_threads(1)
    torch.manual_seed(0)


def _net(sim: BatchSimulator) -> PolicyValueNet:
    return PolicyValueNet(sim.observation_size, 95, (32, 32))


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A policy trained a few hundred steps on the batch, saved as a file."""
    torch.set_num_threads(1)
    torch.manual_seed(0)
    sims = [BatchSimulator(32, "pagat", single_deal=s, seed=s) for s in (1, 3)]
    sims.append(BatchSimulator(32, "pagat", seed=9))
    arenas = [Arena(s, seed=i, name=f"a{i}") for i, s in enumerate(sims)]
    net = _net(sims[0])
    seen: list[dict[str, Any]] = []
    train(net, arenas, 3, Settings(steps=24, minibatch=512), on_iteration=lambda i, info: seen.append(info))
    assert len(seen) == 3 and all(h["samples"] > 0 for h in seen)
    assert all(np.isfinite(h["value"]) and np.isfinite(h["policy"]) for h in seen)
    path = tmp_path_factory.mktemp("policy") / "tiny.npz"
    save_policy_file(path, net, PAGAT, {"command": "test", "seed": 0})
    return path


def test_the_compact_observation_is_the_full_encoding_at_those_places() -> None:
    """The converter the policy file relies on: the batch's observation of
    every seat equals encode(observe(...)) read at compact_index, exactly,
    through whole hands (each game followed by a shadow match beside the batch)."""
    sim = BatchSimulator(4, "pagat", single_deal=3, seed=5)
    shadows = BatchBots(sim, {}, seed=0)
    index = compact_index(sim.rules)
    for _ in range(40):
        for g in range(sim.num_games):
            for seat in range(sim.players):
                batch = sim.observe(agent=seat)[g]
                assert (encode(shadows.observation(g, seat))[index] == batch).all()
        shadows.step(sim.random_actions())


def test_rewards_reach_each_seats_last_decision_of_the_hand() -> None:
    """Every hand that ends gives its score to each learner seat's decisions in
    it: with a value head fixed at zero and lambda 1, a decision's advantage
    is its seat's score for that hand (zero while the hand goes on), so the
    advantages of the bids add up to the points of the hands that ended."""
    sim = BatchSimulator(16, "pagat", single_deal=2, seed=3)
    net = _net(sim)
    with torch.no_grad():
        net.value.weight.zero_()
        net.value.bias.zero_()
    data = Rollout()
    collect(net, Arena(sim, seed=1), 30, 1.0, "cpu", data)
    assert data.hands > 16
    adv = np.concatenate(data.advantage)
    action = np.concatenate(data.action)
    # R-SC-PAGAT: a made bid of 0..2 scores 10 + bid, a missed one nothing.
    assert {round(float(x), 4) for x in adv} <= {0.0, 1.0, 1.1, 1.2}
    bids = (action >= 53) & (action <= 70)
    assert adv[bids].sum() == pytest.approx(data.points / REWARD_SCALE, abs=1e-3)
    assert data.points > 0


def test_cloning_a_bot_learns_its_choices() -> None:
    data = record(PAGAT, "beginner", 40, seed=2)
    assert len(data.action) > 300
    assert (data.mask[np.arange(len(data.action)), data.action] == 1).all()  # every recorded id was legal
    net = PolicyValueNet(data.obs.shape[1], 95, (64,))
    agree = fit(net, data, epochs=6, batch=256, lr=3e-3, log=lambda *_: None)
    legal = data.mask.sum(axis=1)
    chance = float(np.mean(1 / legal))
    assert agree > chance + 0.15  # far above chance after a few seconds of fitting


def test_a_trained_policy_plays_as_a_bot_level(trained: Path) -> None:
    bot = LearnedBot(path=trained)
    rng = random.Random(3)
    for preset in ("pagat", "okenuff"):  # its own table, and another rule set: still legal
        state = play_match(
            PRESETS[preset].replace(hand_sizes=(3, 2)), [bot, get_bot("beginner"), bot, bot], rng
        )
        assert state.phase.value == "over"


def test_the_file_opponent_in_the_batch_chooses_as_the_bot_does(trained: Path) -> None:
    """One policy, two inputs: the batch's compact observation with the file's
    first-layer rows for it, and the bot's full encoding, choose the same ids
    (R-BID-CHANGE: asked to change or keep, a policy trained without that
    window keeps, as the bot at a table is never asked)."""
    policy = load_policy(trained)
    sim = BatchSimulator(8, "pagat", single_deal=4, seed=11)
    opponent = PolicyFileOpponent(policy, sim.rules)
    arena = Arena(sim, [opponent], seating=alternate(1), seed=0)
    shadows = BatchBots(sim, {}, seed=0)
    bot = LearnedBot(path=trained)
    agreed = kept = 0
    for _ in range(60):
        obs, mask, _role = arena.look()
        choices = opponent.act(arena, np.arange(sim.num_games), obs, mask)
        for g in range(sim.num_games):
            seat = int(sim.to_act[g])
            if choices[g] == KEEP:
                kept += 1
                continue
            view = shadows.observation(g, seat)
            if len(view.legal_actions) > 1:
                assert action_id(bot.choose(view, random.Random(0))) == choices[g]
                agreed += 1
        shadows.step(choices)
    assert agreed > 100 and kept > 0


def test_past_versions_play_as_opponents_in_the_batch(trained: Path) -> None:
    sim = BatchSimulator(32, "pagat", single_deal=3, seed=4)
    net = _net(sim)
    past = _net(sim)
    arena = Arena(sim, [NetOpponent(past)], seating=alternate(1), seed=2)
    data = Rollout()
    collect(net, arena, 40, 0.95, "cpu", data)
    decisions = sum(len(a) for a in data.action)
    # The learner holds two seats of four: about half the decisions are its.
    assert 0.3 < decisions / (32 * 40) < 0.7


def test_a_trained_policy_sits_at_a_web_table(
    trained: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("starlette", reason="the web table needs the web extra")
    from starlette.testclient import TestClient
    from web_support import make_app, new_table, play_out

    from ohhell.bots import base

    # Registered for this test only: other tests see the levels as shipped.
    monkeypatch.setattr(base, "_added", dict(base._added))
    monkeypatch.setattr(base, "_opponents", dict(base._opponents))
    register_bot("tiny-learned", lambda **o: LearnedBot("tiny-learned", path=trained), opponent=True)
    with TestClient(make_app(str(tmp_path / "t.db"))) as client:
        made = new_table(
            client, options={"hand-sizes": "3,2"}, seats=["human"] + ["tiny-learned"] * 3, start=True
        )
        final = play_out(client, made["table"], made["token"])
    assert final["obs"]["phase"] == "over"


def test_the_command_clones_trains_and_writes_a_file_the_bot_plays(tmp_path: Path) -> None:
    """``python -m ohhell.learn`` end to end at a tiny size: clone a bot, a
    value warm-up and a little PPO, then a policy file whose meta tells how it
    was made, and which keeps its bid when the batch's bid-change window asks
    (R-BID-CHANGE: the clone never met the window)."""
    from ohhell.learn.__main__ import main

    out = tmp_path / "tiny.npz"
    args = ["--out", str(out), "--clone-deals", "6", "--clone-epochs", "1", "--iterations", "1"]
    args += ["--value-warmup", "1", "--games", "48", "--league-games", "8", "--steps", "6"]
    args += ["--hidden", "16,16", "--threads", "1", "--seed", "5"]
    assert main(args) == 0
    policy = load_policy(out)
    meta = policy.meta
    assert meta["command"].startswith("python -m ohhell.learn --out")
    assert meta["seed"] == 5 and meta["clone"]["teacher"] == "intermediate" and meta["train_seconds"] >= 0
    assert out.with_suffix(".pt").exists()
    sim = BatchSimulator(64, "pagat", single_deal=3, seed=2)
    first = policy.layers[0][0][compact_index(sim.rules)]
    windows = 0
    for _ in range(30):
        mask = sim.action_mask()
        scores = np.where(mask != 0, policy.scores(sim.observe(), first=first), -np.inf)
        asked = mask[:, KEEP] != 0
        assert (scores[asked].argmax(axis=1) == KEEP).all()
        windows += int(asked.sum())
        sim.step(sim.random_actions())
    assert windows > 0
    state = play_match(PAGAT.replace(hand_sizes=(2,)), [LearnedBot(path=out)] * 4, random.Random(1))
    assert state.phase.value == "over"
