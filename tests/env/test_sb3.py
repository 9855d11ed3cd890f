"""The batched simulator as a Stable-Baselines3 VecEnv (``ohhell.env.sb3``).

SB3 has no checker for a VecEnv (``check_env`` takes one Gymnasium env), so
the VecEnv's side of the protocol is checked by hand: spaces, shapes and
dtypes, SB3's same-step reset with ``terminal_observation``, the masks
MaskablePPO reads, a run under SB3's own VecEnv wrappers (``VecMonitor``,
``VecNormalize``, ``VecCheckNan``), and ``check_env`` on a one-game view.
Then MaskablePPO trains on it for a few hundred steps, predicts only legal
actions, reproduces from its seed and plays against itself, and the training
example runs at a tiny size."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")
pytest.importorskip("stable_baselines3", reason="the train extra is not installed: pip install -e '.[train]'")
pytest.importorskip("sb3_contrib", reason="the train extra is not installed: pip install -e '.[train]'")
torch = pytest.importorskip("torch")

import gymnasium  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402
from stable_baselines3.common.env_checker import check_env  # noqa: E402
from stable_baselines3.common.vec_env import VecCheckNan, VecEnv, VecMonitor, VecNormalize  # noqa: E402

from ohhell.env.batch_vector import OhHellVectorEnv  # noqa: E402
from ohhell.env.sb3 import OhHellSB3VecEnv, policy_opponent  # noqa: E402

# One thread: the same floating-point sums every run, and no contention with
# other tests on a small machine.
torch.set_num_threads(1)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

HAND = 2
"""Two-card hands: an episode is one bid and two cards, so matches end often.
Without bid changes (R-BID-CHANGE off), so no seat is asked whether it keeps
its bid and every episode has the same length; the window has tests of its
own (tests/env/test_batch.py)."""
STEPS_PER_EPISODE = 1 + HAND


def _venv(num_envs: int = 16, **kwargs: Any) -> OhHellSB3VecEnv:
    kwargs.setdefault("single_deal", HAND)
    kwargs.setdefault("bid_changes", False)
    return OhHellSB3VecEnv(num_envs, **kwargs)


def _random_legal(masks: Any, rng: Any) -> Any:
    """A uniformly random legal id per row of ``masks``."""
    keys = rng.random(masks.shape) * masks
    return keys.argmax(axis=1)


def _model(venv: VecEnv, seed: int = 0) -> MaskablePPO:
    return MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=16,
        batch_size=64,
        n_epochs=2,
        policy_kwargs={"net_arch": [32, 32]},
        seed=seed,
        device="cpu",
    )


def test_spaces_shapes_and_dtypes() -> None:
    venv = _venv(8, seed=1)
    sim = venv.sim
    assert isinstance(venv, VecEnv)
    assert venv.num_envs == 8
    assert isinstance(venv.observation_space, gymnasium.spaces.Box)
    assert venv.observation_space.shape == (sim.observation_size,)
    assert venv.observation_space.dtype == np.float32
    # The action space is the simulator's, whatever its size.
    assert venv.action_space == gymnasium.spaces.Discrete(sim.action_size)
    assert venv.render_mode is None
    obs = venv.reset()
    assert obs.shape == (8, sim.observation_size) and obs.dtype == np.float32
    assert venv.reset_infos == [{}] * 8
    rng = np.random.default_rng(0)
    for _ in range(3 * STEPS_PER_EPISODE):
        masks = venv.action_masks()
        assert masks.shape == (8, sim.action_size) and masks.dtype == np.int8
        assert masks.any(axis=1).all()  # the learner is asked in every game
        venv.step_async(_random_legal(masks, rng))
        obs, rewards, dones, infos = venv.step_wait()
        assert obs.shape == (8, sim.observation_size) and obs.dtype == np.float32
        assert rewards.shape == (8,) and rewards.dtype == np.float32
        assert dones.shape == (8,) and dones.dtype == np.bool_
        assert isinstance(infos, list) and len(infos) == 8
        assert all(isinstance(i, dict) for i in infos)
        assert all(venv.observation_space.contains(o) for o in obs)


def test_a_finished_match_restarts_in_the_same_step() -> None:
    venv = _venv(16, seed=2)
    lay = venv.sim.layout
    hand = slice(*lay["own_hand"])
    turn = lay["my_turn"][0]
    venv.reset()
    rng = np.random.default_rng(1)
    ended = 0
    for step in range(4 * STEPS_PER_EPISODE):
        obs, _, dones, infos = venv.step(_random_legal(venv.action_masks(), rng))
        # Every episode is a bid and two cards, and all games started together.
        assert dones.all() == ((step + 1) % STEPS_PER_EPISODE == 0)
        assert dones.any() == dones.all()
        # The observation returned is the live game's, for every game.
        assert np.array_equal(obs, venv.sim.observe(venv.seat))
        for i in range(16):
            if not dones[i]:
                assert "terminal_observation" not in infos[i]
                continue
            ended += 1
            last = infos[i]["terminal_observation"]
            assert last.shape == obs[i].shape and last.dtype == np.float32
            assert venv.observation_space.contains(last)
            # The last observation: every card played, nobody asked.
            assert last[hand].sum() == 0 and last[turn] == 0
            # The first of the next match: a new hand, the learner asked.
            assert obs[i][hand].sum() == HAND and obs[i][turn] == 1
        # The masks are those of the observations just returned.
        assert np.array_equal(venv.action_masks(), venv.sim.action_mask(venv.seat))
    assert ended == 4 * 16


def test_rewards_and_episodes_match_the_gymnasium_vector_env_until_the_first_reset() -> None:
    # Same seed, same actions: the same games as OhHellVectorEnv up to the
    # first finished match (after it the two reset at different moments).
    ours = _venv(8, seed=5, reward="final")
    theirs = OhHellVectorEnv(8, single_deal=HAND, seed=5, reward="final", bid_changes=False)
    a_obs, (b_obs, _) = ours.reset(), theirs.reset(seed=None)
    assert np.array_equal(a_obs, b_obs)
    rng = np.random.default_rng(3)
    for _ in range(STEPS_PER_EPISODE):
        actions = _random_legal(ours.action_masks(), rng)
        a_obs, a_rew, a_done, infos = ours.step(actions)
        b_obs, b_rew, b_done, _, _ = theirs.step(actions)
        assert np.array_equal(a_rew, b_rew) and np.array_equal(a_done, b_done)
    assert a_done.all()
    for i in range(8):
        assert np.array_equal(infos[i]["terminal_observation"], b_obs[i])
    # reward="final": the match total, given when it ends
    assert np.array_equal(a_rew, ours.sim.final_totals[:, 0])


def test_sb3_vec_env_wrappers_and_masks_through_them() -> None:
    venv = _venv(16, seed=3)
    wrapped = VecCheckNan(VecNormalize(VecMonitor(venv)), raise_exception=True)
    assert is_masking_supported(wrapped)
    wrapped.reset()
    rng = np.random.default_rng(2)
    episodes = []
    for _ in range(3 * STEPS_PER_EPISODE):
        masks = get_action_masks(wrapped)
        assert masks.shape == (16, venv.sim.action_size) and masks.dtype == np.int8
        assert np.array_equal(masks, venv.action_masks())
        obs, _, dones, infos = wrapped.step(_random_legal(masks, rng))
        assert obs.shape == (16, venv.sim.observation_size)
        episodes += [infos[i]["episode"] for i in np.flatnonzero(dones)]
        # VecNormalize normalises the terminal observation as well.
        assert all("terminal_observation" in infos[i] for i in np.flatnonzero(dones))
    assert len(episodes) == 3 * 16
    assert {e["l"] for e in episodes} == {STEPS_PER_EPISODE}
    assert wrapped.env_method("action_masks", indices=[2, 5])[1].shape == (venv.sim.action_size,)
    wrapped.close()


def test_get_set_attr_env_method_and_wrapping() -> None:
    venv = _venv(4, seed=0)
    venv.reset()
    assert venv.get_attr("seat") == [0] * 4
    assert venv.get_attr("render_mode", indices=[1, 2]) == [None, None]
    assert venv.has_attr("action_masks") and not venv.has_attr("no_such_thing")
    rows = venv.env_method("action_masks")
    assert len(rows) == 4 and np.array_equal(np.stack(rows), venv.action_masks())
    assert np.array_equal(venv.env_method("action_masks", indices=3)[0], venv.action_masks()[3])
    assert venv.env_is_wrapped(gymnasium.Wrapper) == [False] * 4
    venv.set_attr("illegal_action", "raise")
    assert venv.illegal_action == "raise"
    assert venv.seed(9) == [9, 10, 11, 12]
    venv.close()


def test_illegal_actions() -> None:
    venv = _venv(4, seed=4, illegal_penalty=-5.0)
    before = venv.reset()
    masks = venv.action_masks()
    actions = _random_legal(masks, np.random.default_rng(0))
    bad = int(np.flatnonzero(~masks[1])[0])
    actions[1] = bad
    obs, rewards, _, infos = venv.step(actions)
    assert rewards[1] == -5.0 and infos[1] == {"illegal_action": True}
    assert np.array_equal(obs[1], before[1])  # that game is as it was
    assert "illegal_action" not in infos[0]
    strict = _venv(4, seed=4, illegal_action="raise")
    strict.reset()
    with pytest.raises(ValueError, match="illegal action"):
        strict.step(actions)
    with pytest.raises(ValueError, match="illegal_action"):
        _venv(4, illegal_action="ignore")


class OneGame(gymnasium.Env[Any, Any]):
    """One game of the VecEnv as a Gymnasium env, for SB3's ``check_env``."""

    def __init__(self) -> None:
        self.venv = _venv(1)
        self.observation_space = self.venv.observation_space
        self.action_space = self.venv.action_space

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        if seed is not None:
            self.venv.seed(seed)
        return self.venv.reset()[0], {}

    def step(self, action: Any) -> Any:
        obs, rewards, dones, infos = self.venv.step(np.array([action]))
        return obs[0], float(rewards[0]), bool(dones[0]), False, infos[0]

    def action_masks(self) -> Any:
        return self.venv.action_masks()[0]


def test_sb3_check_env_on_one_game() -> None:
    check_env(OneGame(), warn=True)


def test_maskable_ppo_learns_and_predicts_legal_actions() -> None:
    venv = _venv(16)
    model = _model(VecMonitor(venv), seed=1)
    model.learn(512)
    assert model.num_timesteps == 512
    assert len(model.ep_info_buffer) > 0  # VecMonitor saw whole episodes
    obs = venv.reset()
    for _ in range(2 * STEPS_PER_EPISODE):
        masks = venv.action_masks()
        actions, _ = model.predict(obs, action_masks=masks)
        assert masks[np.arange(16), actions].all()
        venv.set_attr("illegal_action", "raise")
        obs, _, _, _ = venv.step(actions)


def _trained_parameters(seed: int) -> Any:
    model = _model(_venv(8), seed=seed)
    model.learn(256)
    return torch.cat([p.detach().reshape(-1) for p in model.policy.parameters()])


def test_the_seed_reproduces() -> None:
    # The environment alone: seed(), then reset, then the same actions.
    runs = []
    for _ in range(2):
        venv = _venv(8)
        venv.seed(11)
        seen = [venv.reset()]
        rng = np.random.default_rng(0)
        for _ in range(2 * STEPS_PER_EPISODE):
            obs, rewards, dones, _ = venv.step(_random_legal(venv.action_masks(), rng))
            seen += [obs, rewards, dones]
        runs.append(seen)
    assert all(np.array_equal(a, b) for a, b in zip(*runs, strict=True))
    # A model: the same seed gives the same weights after learning.
    first = _trained_parameters(3)
    assert torch.equal(first, _trained_parameters(3))
    assert not torch.equal(first, _trained_parameters(4))


def test_self_play_with_the_learners_own_policy() -> None:
    venv = _venv(8, seed=6)
    model = _model(venv, seed=2)
    opponent = policy_opponent(model)
    calls = []

    def counted(observations: Any, masks: Any) -> Any:
        actions = np.asarray(opponent(observations, masks))
        calls.append(len(actions))
        # The opponents' choices are legal for their own seats.
        assert masks[np.arange(len(actions)), actions].all()
        return actions

    venv.set_opponent(counted)
    assert venv.opponent is counted
    model.learn(256)
    assert sum(calls) >= 256  # every learner step has other seats acting
    venv.set_opponent("random")
    with pytest.raises(ValueError, match="opponent"):
        venv.set_opponent("nobody")


def test_the_batch_training_example_runs(tmp_path: Path) -> None:
    out = tmp_path / "tiny.zip"
    done = subprocess.run(
        [
            *(sys.executable, str(EXAMPLES / "train_batch_sb3.py")),
            *("--steps", "256", "--games", "16", "--n-steps", "16", "--batch-size", "64", "--epochs", "1"),
            *("--hand-size", "3", "--opponent", "self", "--out", str(out)),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["decisions"] == 256 and summary["decisions_per_second"] > 0
    model = MaskablePPO.load(out, device="cpu")
    assert model.observation_space.shape == (OhHellSB3VecEnv(1).sim.observation_size,)


def test_a_frozen_opponent_stays_as_it_was() -> None:
    venv = _venv(8, seed=7)
    model = _model(venv, seed=3)
    venv.reset()
    obs, masks = venv.sim.observe(), venv.sim.action_mask()
    frozen = policy_opponent(model, frozen=True, deterministic=True)
    before = np.asarray(frozen(obs, masks))
    assert np.array_equal(before, policy_opponent(model, deterministic=True)(obs, masks))
    weights = torch.cat([p.detach().reshape(-1) for p in model.policy.parameters()])
    venv.set_opponent(frozen)
    model.learn(256)
    assert not torch.equal(weights, torch.cat([p.detach().reshape(-1) for p in model.policy.parameters()]))
    assert np.array_equal(np.asarray(frozen(obs, masks)), before)
