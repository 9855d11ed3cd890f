"""The ``ppo`` bot (a policy network shipped with the package, run with NumPy)
and the learning examples: the bot plays whole matches of every preset and
table size with legal actions only, reproducibly, from its own observation;
the Gymnasium environment's flat observation and ``action_masks()``; and the
training and self-play examples at a tiny size when their extra is installed.
Nothing here needs a machine-learning framework unless it skips without one."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import random
import subprocess
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from ohhell import PRESETS, ChangeBid, Observation, make_rules  # noqa: E402
from ohhell.bots import bot_names, get_bot, opponent_levels, play_match  # noqa: E402
from ohhell.bots.ppo import DEFAULT_POLICY, PpoBot, load_policy, policy_path, save_policy, unsupported  # noqa: E402
from ohhell.bots.tournament import run_tournament  # noqa: E402
from ohhell.encoding import ACTION_SIZE, OBSERVATION_SIZE, action_id, encode  # noqa: E402
from ohhell.env.gym import OhHellGymEnv  # noqa: E402
from ohhell.rules import Rules  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


class Recorder:
    """Wraps the ppo bot and keeps every observation it was handed."""

    def __init__(self, bot: PpoBot) -> None:
        self.bot, self.name, self.seen = bot, bot.name, []

    def choose(self, obs: Observation, rng: random.Random) -> Any:
        self.seen.append(obs)
        return self.bot.choose(obs, rng)


def _tables() -> list[tuple[str, Rules]]:
    # Every preset at every table size it allows (R-PLAYERS: 3..7; Okenuff is for 4).
    out = []
    for name, preset in PRESETS.items():
        for n in range(3, 8):
            try:
                out.append((f"{name}-{n}", make_rules(preset.replace(players=n))))
            except ValueError:
                continue
    return out


TABLES = _tables()


def test_the_shipped_policy_is_small_and_says_how_it_was_trained() -> None:
    path = policy_path()
    assert path.name == DEFAULT_POLICY and path.is_file()
    assert path.stat().st_size < 400_000
    meta = load_policy().meta
    assert meta["command"].startswith("python examples/train_ppo.py")
    assert meta["decisions"] > 0 and meta["wall_seconds"] > 0


def test_ppo_is_a_bot_name_but_not_offered_as_company() -> None:
    # play and serve do not install NumPy, so they do not offer the level.
    assert "ppo" in bot_names() and "ppo" not in opponent_levels()
    assert get_bot("ppo").name == "ppo"


@pytest.mark.parametrize(("label", "rules"), TABLES, ids=[t[0] for t in TABLES])
def test_ppo_plays_whole_matches_of_every_preset_and_table_size(label: str, rules: Rules) -> None:
    """Whole matches, every seat the ppo bot: play_match raises
    IllegalBotActionError on any action not in the observation's legal set."""
    assert unsupported(rules) is None
    state = play_match(rules, [get_bot("ppo") for _ in range(rules.players)], random.Random(label))
    assert state.is_over
    assert len(state.results) >= len(rules.schedule)


VARIANTS = {
    # R-DEVILS-BRIDGE: one-card hands played blind, bids from the others' cards.
    "devils-bridge": {"players": 5, "devils_bridge": True, "hand_sizes": (2, 1, 1, 3)},
    # R-BID-SIMULTANEOUS: sealed bids.
    "simultaneous": {"bidding": "simultaneous", "hook": False, "bid_changes": False},
    # R-DECK-AU: two identical cards are one choice.
    "australian-6": {"players": 6, "deck": "australian", "hand_sizes": (13, 7, 1)},
    # R-TEAMS: partners' scores add up.
    "teams": {"teams": ((0, 2), (1, 3))},
    # R-TRUMP-ROTATE and R-LEAD-DEALER.
    "rotate-dealer-leads": {"trump": "rotate", "first_lead": "dealer"},
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_ppo_plays_rule_variants_with_legal_actions(name: str) -> None:
    from ohhell.env.oh_hell_v0 import build_rules

    rules = build_rules("pagat", **VARIANTS[name])
    bots: list[Any] = [get_bot("ppo"), get_bot("random")] * rules.players
    state = play_match(rules, bots[: rules.players], random.Random(name))
    assert state.is_over


def test_ppo_decides_from_its_observation_alone_by_the_masked_argmax() -> None:
    """The bot's action is a function of the Observation it is handed (the
    only input a bot gets): the legal id its network scores highest."""
    rules = make_rules(PRESETS["okenuff"])  # R-TRUMP-BIDDER: bids, trump naming and cards
    spy = Recorder(get_bot("ppo"))  # type: ignore[arg-type]
    play_match(rules, [spy, get_bot("random"), get_bot("random"), get_bot("random")], random.Random(3))
    policy = load_policy()
    kinds = set()
    for obs in spy.seen:
        if len(obs.legal_actions) == 1:
            continue
        scores = policy.scores(encode(obs))
        legal = {action_id(a): a for a in obs.legal_actions if not isinstance(a, ChangeBid)}
        best = max(legal, key=lambda i: (float(scores[i]), -i))
        assert spy.bot.choose(obs, random.Random(0)) == legal[best]
        assert spy.bot.choose(obs, random.Random(99)) == legal[best]  # the rng plays no part
        kinds.add(type(legal[best]).__name__)
    assert {"Bid", "Play"} <= kinds


def test_the_shipped_76_output_policy_keeps_its_bid() -> None:
    """R-BID-CHANGE: the shipped policy scores ids 0..75 only; asked to change or
    keep its bid (ids 76..94) it keeps it, and elsewhere it never picks 76..94."""
    from ohhell.encoding import CHANGE_BASE, KEEP
    from ohhell.env import oh_hell_v0

    bot = PpoBot()
    assert bot.policy.outputs == CHANGE_BASE == 76
    env = oh_hell_v0.raw_env(preset="pagat", hand_sizes=(5, 4))
    env.reset(seed=4)
    windows = 0
    while not env.state.is_over:
        agent = env.agent_selection
        legal = env.legal_action_ids(agent)
        chosen = bot.choose_id(env.observation_of(agent), legal)
        if KEEP in legal:
            windows += 1
            assert chosen == KEEP
        else:
            assert chosen in legal and chosen < CHANGE_BASE
        env.step(chosen)
    assert windows > 0


def test_ppo_matches_are_reproducible() -> None:
    rules = make_rules(PRESETS["river"])

    def match(seed: int) -> list[Any]:
        bots = [get_bot("ppo"), get_bot("beginner"), get_bot("ppo"), get_bot("intermediate")]
        return list(play_match(rules, bots, random.Random(seed)).log)

    assert match(5) == match(5)
    assert match(5) != match(6)


def test_ppo_plays_in_a_tournament() -> None:
    rules = make_rules(PRESETS["pagat"]).replace(hand_sizes=(3, 2))
    result = run_tournament(["ppo", "random"], rules, 4, seed=1, progress=False)
    stats = {s.name: s for s in result.stats}
    assert stats["ppo"].hands > 0 and stats["random"].hands > 0


def test_rules_the_encoding_cannot_hold_are_refused_with_the_reason() -> None:
    # Every rule set the engine accepts fits; these stand-ins show the check.
    too_many = SimpleNamespace(players=8, schedule=(5,))
    too_big = SimpleNamespace(players=3, schedule=(18, 17))
    assert "room for 7 seats, not 8" in str(unsupported(too_many))  # type: ignore[arg-type]
    assert "hands of up to 17 cards, not 18" in str(unsupported(too_big))  # type: ignore[arg-type]


def test_without_numpy_the_bot_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)  # import numpy now raises ImportError
    with pytest.raises(ImportError, match=r"pip install -e '\.\[research\]'"):
        PpoBot()


def test_a_policy_file_round_trips_and_a_wrong_one_is_refused(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    layers = [
        (rng.normal(size=(OBSERVATION_SIZE, 8)), rng.normal(size=8)),
        (rng.normal(size=(8, ACTION_SIZE)), rng.normal(size=ACTION_SIZE)),
    ]
    save_policy(tmp_path / "p.npz", layers, {"note": "test"})
    policy = load_policy(tmp_path / "p.npz")
    assert policy.meta == {"note": "test"}
    x = rng.random(OBSERVATION_SIZE).astype(np.float32)
    expected = np.tanh(x @ layers[0][0] + layers[0][1]) @ layers[1][0] + layers[1][1]
    assert np.allclose(policy.scores(x), expected, atol=0.05 * np.abs(expected).max())  # float16 weights
    save_policy(tmp_path / "bad.npz", [(np.zeros((10, ACTION_SIZE)), np.zeros(ACTION_SIZE))], {})
    with pytest.raises(ValueError, match="1162-value observation"):
        load_policy(tmp_path / "bad.npz")


# --- The Gymnasium environment's flat form ---


@pytest.mark.parametrize(
    "options",
    [
        {"preset": "pagat", "single_deal": True},
        {"preset": "okenuff", "seat": 2, "single_deal": 3},
        {"preset": "river", "players": 5, "deck": "australian", "hand_sizes": (2, 1)},
        {"preset": "pagat", "single_deal": 2, "observation": "history"},
    ],
)
def test_the_flat_gym_env_passes_the_checker_and_masks_its_actions(options: dict[str, Any]) -> None:
    flat = OhHellGymEnv(opponents=("beginner",), flatten=True, **options)
    nested = OhHellGymEnv(opponents=("beginner",), **options)
    assert flat.observation_space == nested.observation_space["observation"]  # type: ignore[index]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*render modes.*spec")
        check_env(OhHellGymEnv(opponents=("random",), flatten=True, **options))
    vector, _ = flat.reset(seed=11)
    obs, _ = nested.reset(seed=11)
    done, rng = False, np.random.default_rng(0)
    while not done:
        mask = flat.action_masks()
        assert mask.dtype == np.int8 and mask.shape == (ACTION_SIZE,)  # one mask dtype everywhere
        assert np.array_equal(vector, obs["observation"])
        assert np.array_equal(mask, obs["action_mask"])
        assert sorted(np.flatnonzero(mask)) == flat.legal_action_ids()
        action = int(rng.choice(np.flatnonzero(mask)))
        vector, r1, done, _, _ = flat.step(action)
        obs, r2, done2, _, _ = nested.step(action)
        assert (r1, done) == (r2, done2)
    assert not flat.action_masks().any()  # the match is over: nothing is legal


def test_maskable_ppo_reads_the_mask_from_the_env_itself() -> None:
    utils = pytest.importorskip("sb3_contrib.common.maskable.utils", reason="needs the train extra")
    env = OhHellGymEnv(opponents=("random",), flatten=True, single_deal=True)
    env.reset(seed=1)
    assert utils.is_masking_supported(env)
    assert np.array_equal(utils.get_action_masks(env), env.action_masks())


# --- The examples, at a tiny size ---


def _run(script: str, tmp_path: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _needs_training_extra() -> None:
    if importlib.util.find_spec("sb3_contrib") is None:
        pytest.skip("the example needs the train extra (pip install 'ohhell[train]'): sb3-contrib is missing")


def test_the_training_example_runs_and_its_policy_plays(tmp_path: Path) -> None:
    _needs_training_extra()
    out = tmp_path / "tiny.npz"
    summary = _run(
        "train_ppo.py",
        tmp_path,
        *("--steps", "256", "--envs", "2", "--vec", "dummy", "--n-steps", "128", "--batch-size", "64"),
        *("--hand-sizes", "3,1", "--out", str(out)),
    )
    assert summary["decisions"] == 256 and summary["largest_score_gap_after_export"] < 0.05
    policy = load_policy(out)
    assert policy.meta["settings"]["steps"] == 256
    rules = dataclasses.replace(PRESETS["pagat"], hand_sizes=(4, 3))
    bot = PpoBot(path=out)
    state = play_match(
        rules, [bot, get_bot("random"), PpoBot(path=out), get_bot("beginner")], random.Random(1)
    )
    assert state.is_over


def test_the_self_play_example_runs(tmp_path: Path) -> None:
    _needs_training_extra()
    out = tmp_path / "self.npz"
    summary = _run(
        "selfplay_ppo.py",
        tmp_path,
        *("--steps", "256", "--envs", "2", "--refresh", "128", "--n-steps", "128", "--batch-size", "64"),
        *("--hand-sizes", "3,1", "--out", str(out)),
    )
    assert summary["decisions"] == 256
    assert "self-play" in load_policy(out).meta["algorithm"]
