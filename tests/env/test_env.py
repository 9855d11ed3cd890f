"""The research environments (ohhell.env): PettingZoo's api_test and Gymnasium's
env checker for several rule sets, the encoding (no hidden card ever set, a
control that plants a leak), seeds, action ids, clones and sampled worlds."""

from __future__ import annotations

import dataclasses
import random
import re
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, render_test  # noqa: E402

from ohhell import encoding  # noqa: E402
from ohhell.cards import ALL_CARDS, Card  # noqa: E402
from ohhell.encoding import (  # noqa: E402
    ACTION_SIZE,
    BID_BASE,
    CHANGE_BASE,
    KEEP,
    LAYOUT,
    OBSERVATION_SIZE,
    PLAY_BLIND,
    TRUMP_BASE,
    action_from_id,
    action_id,
    cards_in,
    encode,
    legal_action_ids,
)
from ohhell.env import oh_hell_v0  # noqa: E402
from ohhell.env.gym import OhHellGymEnv  # noqa: E402
from ohhell.game import Bid, ChangeBid, GameState, NameTrump, Phase, Play, legal_actions  # noqa: E402
from ohhell.view import Observation, can_see_hand, observe  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs" / "env.md"

VARIANTS: dict[str, dict[str, Any]] = {
    "pagat": {"preset": "pagat"},  # R-BID-CHANGE on: the changer is never asked
    "okenuff": {"preset": "okenuff"},  # R-TRUMP-BIDDER, R-SC-OKENUFF
    "river": {"preset": "river", "players": 3},
    "simultaneous": {"preset": "pagat", "bidding": "simultaneous", "hook": False, "bid_changes": False},
    "devils-bridge": {"preset": "pagat", "players": 5, "devils_bridge": True, "hand_sizes": (2, 1, 1, 3)},
    "australian-5": {"preset": "river", "players": 5, "deck": "australian", "hand_sizes": (13, 6, 1)},
    "australian-6": {"preset": "pagat", "players": 6, "deck": "australian", "hand_sizes": (13, 2)},
    "teams": {"preset": "pagat", "teams": ((0, 2), (1, 3))},
    "classic-tens": {"preset": "classic-tens", "players": 7},  # R-TIE-EXTRA, R-LEAD-DEALER
    "single-deal": {"preset": "pagat", "single_deal": True},
    "single-deal-blind": {"preset": "common", "devils_bridge": True, "single_deal": 1},
    "rotate-final": {
        "preset": "common",
        "trump": "rotate",
        "reward": "final",
        "sequence": "up",
        "start_cards": 5,
    },
}


def _api_test(env: Any, cycles: int) -> None:
    with warnings.catch_warnings():
        # Dict observations with an action mask are PettingZoo's own classic-game
        # convention; api_test still warns that a Box would be "probably" better.
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(env, num_cycles=cycles)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_pettingzoo_api_test_whole_match(name: str) -> None:
    # 1000 cycles of every agent is more steps than any of these matches has,
    # so api_test's play test runs each match to its end (all agents terminate).
    env = oh_hell_v0.env(**VARIANTS[name])
    _api_test(env, 1000)


def test_raw_env_also_passes_api_test() -> None:
    _api_test(oh_hell_v0.raw_env(preset="pagat", single_deal=True, render_mode="ansi"), 200)


@pytest.mark.parametrize(
    "options",
    [
        {"preset": "pagat", "single_deal": True},
        {"preset": "okenuff", "seat": 1, "single_deal": 4},
        {"preset": "pagat", "bidding": "simultaneous", "hook": False, "bid_changes": False, "seat": 3},
        {"preset": "river", "players": 5, "deck": "australian", "hand_sizes": (3, 1), "reward": "final"},
        {"preset": "pagat", "devils_bridge": True, "hand_sizes": (1, 2), "render_mode": "ansi"},
    ],
)
def test_gymnasium_env_checker(options: dict[str, Any]) -> None:
    options = dict(options)
    env = OhHellGymEnv(opponents=("random",), **options)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*render modes.*spec")
        check_env(env)


def test_gymnasium_make_with_intermediate_bots() -> None:
    import gymnasium

    env = gymnasium.make(oh_hell_gym_id(), opponents=("intermediate",), preset="pagat", single_deal=True)
    obs, _ = env.reset(seed=3)
    total, done = 0.0, False
    rng = np.random.default_rng(0)
    while not done:
        obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        total += float(reward)
        assert not truncated
    assert total == info["totals"][0]  # reward="hand": per-hand score changes add up to the total


def oh_hell_gym_id() -> str:
    from ohhell.env.gym import ENV_ID

    return ENV_ID


# --- Random play through the AEC environment, with checks on every view. ---


def _play(env: Any, seed: int, each_step: Any = None) -> list[Any]:
    rng = random.Random(seed)
    env.reset(seed=seed)
    trail = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        trail.append((agent, obs["observation"].tobytes(), reward))
        if terminated or truncated:
            env.step(None)
            continue
        if each_step is not None:
            each_step(env.unwrapped)
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return trail


def allowed_view(state: GameState, seat: int) -> dict[str, Any]:
    """What ``seat`` may see, computed from the true state (not from observe):
    every card field of the vector must match this exactly."""
    n = state.players
    in_hand = state.phase in (Phase.BID, Phase.TRUMP, Phase.PLAY)
    own = Counter(state.hands[seat]) if in_hand and can_see_hand(state, seat, seat) else Counter()
    others = {}
    for r in range(1, encoding.MAX_PLAYERS):
        s = (seat + r) % n if r < n else None
        ok = s is not None and in_hand and can_see_hand(state, seat, s)
        others[r] = Counter(state.hands[s]) if ok and s is not None else Counter()
    played = (
        Counter(c for t in state.tricks for c in t.cards) + Counter(state.trick) if in_hand else Counter()
    )
    trick = {}
    for i, card in enumerate(state.trick if in_hand else []):
        trick[((state.leader + i) % n - seat) % n] = card
    turned = Counter([state.turned]) if in_hand and state.turned is not None else Counter()
    return {"own": own, "others": others, "played": played, "trick": trick, "turned": turned}


def _block(vector: Any, field: str, index: int) -> Counter[Card]:
    a, _ = LAYOUT[field]
    start = a + index * 52
    return Counter(c for i, c in enumerate(ALL_CARDS) for _ in range(round(float(vector[start + i]))))


def assert_no_leak(state: GameState, seat: int, vector: Any) -> None:
    """Every card the vector sets is one ``seat`` may see, in the right place."""
    allowed = allowed_view(state, seat)
    assert Counter(cards_in(vector, "own_hand")) == allowed["own"]
    for r, cards in allowed["others"].items():
        assert _block(vector, "visible_hands", r - 1) == cards, f"relative seat {r}"
    assert Counter(cards_in(vector, "played")) == allowed["played"]
    assert Counter(cards_in(vector, "turned")) == allowed["turned"]
    for r in range(encoding.MAX_PLAYERS):
        want = Counter([allowed["trick"][r]]) if r in allowed["trick"] else Counter()
        assert _block(vector, "trick", r) == want
    # R-BID-SIMULTANEOUS: a sealed bid of another seat is not in the vector.
    if state.phase is Phase.BID and state.rules.bidding.value == "simultaneous":
        a, _ = LAYOUT["bids"]
        for s in range(state.players):
            if s != seat:
                r = (s - seat) % state.players
                row = vector[a + r * (encoding.MAX_HAND + 1) : a + (r + 1) * (encoding.MAX_HAND + 1)]
                assert not row.any(), f"seat {s}'s sealed bid shows in seat {seat}'s vector"


@pytest.mark.parametrize(
    "name", ["pagat", "simultaneous", "devils-bridge", "australian-5", "australian-6", "okenuff", "teams"]
)
def test_observation_vector_never_shows_a_hidden_card(name: str) -> None:
    env = oh_hell_v0.raw_env(**VARIANTS[name])
    checked = [0]

    def check_all(raw: Any) -> None:
        for seat in range(raw.rules.players):
            assert_no_leak(raw.state, seat, raw.observe(f"player_{seat}")["observation"])
            checked[0] += 1

    _play(env, seed=11, each_step=check_all)
    assert env.state.is_over and checked[0] > 0


def test_leak_check_catches_a_planted_leak() -> None:
    # The control: an observation that shows another seat's hand (as a broken
    # redaction would) is caught, and so is a hidden card set in the vector.
    env = oh_hell_v0.raw_env(preset="pagat", first_dealer=0)
    env.reset(seed=5)
    state = env.state
    seat = env.possible_agents.index(env.agent_selection)
    good = observe(state, seat)
    assert_no_leak(state, seat, encode(good))
    leaky = dataclasses.replace(good, hands=tuple(tuple(h) for h in state.hands))
    with pytest.raises(AssertionError):
        assert_no_leak(state, seat, encode(leaky))
    vector = encode(good)
    hidden = state.hands[(seat + 1) % state.players][0]
    vector[LAYOUT["played"][0] + hidden.index] = 1
    with pytest.raises(AssertionError):
        assert_no_leak(state, seat, vector)


def test_devils_bridge_vector_shows_others_not_own() -> None:
    # R-DEVILS-BRIDGE: own hand zero, every other hand encoded; the only id is "play blind".
    env = oh_hell_v0.raw_env(preset="pagat", devils_bridge=True, single_deal=1, first_dealer=0)
    env.reset(seed=2)
    while env.state.phase is not Phase.PLAY:
        env.step(legal_action_ids(env.observation_of(env.agent_selection))[0])
    agent = env.agent_selection
    vector = env.observe(agent)["observation"]
    assert cards_in(vector, "own_hand") == []
    assert len(cards_in(vector, "visible_hands")) == env.rules.players - 1
    assert env.legal_action_ids(agent) == [PLAY_BLIND]


# --- Seeds, ids, clones, sampled worlds ---


def test_same_seed_same_observations() -> None:
    options = VARIANTS["okenuff"]
    first = _play(oh_hell_v0.env(**options), seed=21)
    again = _play(oh_hell_v0.env(**options), seed=21)
    other = _play(oh_hell_v0.env(**options), seed=22)
    assert first == again
    assert first != other


def test_gym_same_seed_same_episode() -> None:
    def episode(seed: int) -> list[Any]:
        env = OhHellGymEnv(opponents=("beginner", "random", "intermediate"), preset="river", single_deal=True)
        obs, _ = env.reset(seed=seed)
        out, done = [obs["observation"].tobytes()], False
        while not done:
            obs, reward, done, _, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
            out.append((obs["observation"].tobytes(), reward))
        return out

    assert episode(4) == episode(4)
    assert episode(4) != episode(5)


def test_action_id_round_trip() -> None:
    """The 95 ids: every one but KEEP is an action of the core (R-BID-CHANGE)."""
    for aid in range(ACTION_SIZE):
        if aid != KEEP:
            assert action_id(action_from_id(aid, 2)) == aid
    assert action_from_id(5, 1) == Play(1, ALL_CARDS[5])
    assert action_from_id(PLAY_BLIND, 0) == Play(0, None)
    assert action_from_id(BID_BASE + 17, 3) == Bid(3, 17)
    assert action_from_id(TRUMP_BASE + 4, 3) == NameTrump(3, None)
    assert action_from_id(CHANGE_BASE + 2, 1) == ChangeBid(1, 2)  # R-BID-CHANGE
    assert (CHANGE_BASE, KEEP, ACTION_SIZE) == (76, 94, 95)
    with pytest.raises(ValueError, match="keep_bid"):  # keeping is the referee's, not an Action
        action_from_id(KEEP, 0)
    with pytest.raises(ValueError, match="outside"):
        action_from_id(ACTION_SIZE, 0)


def test_legal_ids_match_the_engine_through_whole_matches() -> None:
    """R-BID-CHANGE: the seat that may change its bid is asked for its changes and
    KEEP; every other asked seat for its legal actions (R-DECK-AU: one id per
    distinct card)."""
    windows = 0
    for name in ("pagat", "okenuff", "australian-6", "devils-bridge"):
        env = oh_hell_v0.raw_env(**VARIANTS[name])

        def check(raw: Any) -> None:
            nonlocal windows
            seat = raw.possible_agents.index(raw.agent_selection)
            view = raw.observation_of(raw.agent_selection)
            ids = raw.legal_action_ids(raw.agent_selection)
            mask = raw.observe(raw.agent_selection)["action_mask"]
            assert mask.dtype == np.int8 and ids == np.flatnonzero(mask).tolist()
            engine = legal_actions(raw.state, seat)
            if seat == raw.state.change_seat and raw.match.can_change(seat):
                windows += 1
                changes = [a for a in engine if isinstance(a, ChangeBid)]
                assert ids == [*sorted(action_id(a) for a in changes), KEEP]
                return
            engine = [a for a in engine if not isinstance(a, ChangeBid)]
            assert sorted(action_id(a) for a in engine) == ids
            assert all(action_from_id(i, seat, view) in engine for i in ids)

        _play(env, seed=3, each_step=check)
    assert windows > 0, "no bid-change window was asked"


def test_the_seat_that_may_change_its_bid_is_asked_first() -> None:
    """R-BID-CHANGE: right after its bid a seat is asked to change or keep it,
    before the next bidder; two changes at most, then the next bidder."""
    env = oh_hell_v0.raw_env(preset="pagat", first_dealer=0, hand_sizes=(5,))
    env.reset(seed=1)
    assert env.agent_selection == "player_1"
    env.step(BID_BASE + 1)
    assert env.state.change_seat == 1 and env.agent_selection == "player_1"
    assert env.legal_action_ids("player_1") == [CHANGE_BASE + b for b in (0, 2, 3, 4, 5)] + [KEEP]
    assert not env.observe("player_2")["action_mask"].any()  # the next bidder waits
    env.step(CHANGE_BASE + 3)
    assert env.state.bids[1] == 3 and env.agent_selection == "player_1"
    env.step(CHANGE_BASE + 2)  # the second change is the last (MAX_BID_CHANGES)
    assert env.state.bids[1] == 2 and env.agent_selection == "player_2"
    env.step(BID_BASE + 0)
    assert env.agent_selection == "player_2"
    env.step(KEEP)
    assert env.agent_selection == "player_3" and env.state.change_seat == 2
    with pytest.raises(ValueError, match="legal ids"):
        env.step(KEEP)  # seat 3 has not bid: nothing to keep
    env.step(BID_BASE + 1)
    env.step(KEEP)
    env.step(BID_BASE + 1)  # the dealer bids last: no window after it
    assert env.state.phase is Phase.PLAY and env.agent_selection == "player_1"


def test_the_env_asks_in_the_order_of_the_openspiel_game() -> None:
    """R-BID-CHANGE: the AEC env and the OpenSpiel game's table ask the same seat
    for the same ids at every decision of a match with changes and keeps."""
    from ohhell.env.openspiel_game_table import Table

    rules = oh_hell_v0.build_rules("pagat", hand_sizes=(4, 3))
    env = oh_hell_v0.raw_env(preset=rules)
    env.reset(seed=2)
    table = Table(rules, [(s,) for s in range(4)])
    table.match = env.match  # the same referee, read by both
    rng = random.Random(2)
    asked = 0
    while not env.state.is_over:
        seat = env.possible_agents.index(env.agent_selection)
        assert table.current_player() == seat
        assert table.legal(seat) == env.legal_action_ids(env.agent_selection)
        env.step(rng.choice(env.legal_action_ids(env.agent_selection)))
        asked += 1
    assert asked > 0


def test_simultaneous_bids_are_asked_in_seat_order_and_sealed() -> None:
    # R-BID-SIMULTANEOUS: each unbid seat in turn, bids hidden until all are in.
    env = oh_hell_v0.raw_env(**VARIANTS["simultaneous"], first_dealer=2)
    env.reset(seed=1)
    asked = []
    while env.state.phase is Phase.BID:
        asked.append(env.agent_selection)
        env.step(BID_BASE + 2)
        if env.state.phase is Phase.BID:
            vector = env.observe(env.agent_selection)["observation"]
            a, b = LAYOUT["sealed"]
            assert vector[a:b].sum() == len(asked)
    assert asked == ["player_0", "player_1", "player_2", "player_3"]


def test_illegal_action_raises_and_changes_nothing() -> None:
    env = oh_hell_v0.env(preset="pagat")
    env.reset(seed=9)
    before = env.unwrapped.state_clone()
    with pytest.raises(ValueError, match=r"cannot take action 0 \(play 2C\): no card may be played now"):
        env.step(0)
    assert env.unwrapped.state.log == before.log
    gym_env = OhHellGymEnv(opponents=("random",), illegal_action="raise", single_deal=True)
    gym_env.reset(seed=1)
    with pytest.raises(ValueError, match="not legal"):
        gym_env.step(PLAY_BLIND)
    soft = OhHellGymEnv(opponents=("random",), single_deal=True)
    soft.reset(seed=1)
    log = list(soft.aec.state.log)
    _, reward, done, _, info = soft.step(PLAY_BLIND)
    assert reward == -1.0 and not done and "illegal_action" in info and soft.aec.state.log == log


def test_state_clone_is_independent() -> None:
    env = oh_hell_v0.raw_env(preset="pagat")
    env.reset(seed=4)
    clone = env.state_clone()
    assert clone is not env.state and clone.hands == env.state.hands
    env.step(legal_action_ids(env.observation_of(env.agent_selection))[0])
    assert len(clone.log) == len(env.state.log) - 1
    clone.hands[0].clear()
    assert env.state.hands[0]


def test_sample_world_respects_what_the_agent_knows() -> None:
    # Voids shown are respected, one's own hand and the played cards are kept.
    env = oh_hell_v0.raw_env(preset="pagat", players=3, single_deal=True)
    rng = random.Random(0)
    worlds = 0

    def check(raw: Any) -> None:
        nonlocal worlds
        agent = raw.agent_selection
        seat = raw.possible_agents.index(agent)
        view: Observation = raw.observation_of(agent)
        world = raw.sample_world(agent, rng)
        assert world.hands[seat] == list(view.hand)
        for s in range(raw.rules.players):
            assert len(world.hands[s]) == view.hand_counts[s]
            assert not any(c.suit in view.voids[s] for c in world.hands[s])
        # The sampled world allows what the agent may do (KEEP is the referee's, R-BID-CHANGE).
        ids = sorted(action_id(a) for a in legal_actions(world, seat))
        assert ids == [i for i in raw.legal_action_ids(agent) if i != KEEP]
        worlds += 1

    _play(env, seed=8, each_step=check)
    assert worlds > 20


def test_rewards_add_up_to_the_totals() -> None:
    # reward="hand": each hand's score as it ends; "final": the total once. R-TEAMS: the side's sum.
    for options in (VARIANTS["pagat"], VARIANTS["teams"], {**VARIANTS["river"], "reward": "final"}):
        env = oh_hell_v0.raw_env(**options)
        trail = _play(env, seed=2)
        got = Counter()
        for agent, _, reward in trail:
            got[agent] += reward
        for seat, agent in enumerate(env.possible_agents):
            side = env.side_of(seat)
            assert got[agent] == sum(env.state.totals[s] for s in side)


def test_render_ansi_and_observation_text() -> None:
    env = oh_hell_v0.env(preset="okenuff", render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str) and "hand of seat 0" in text
    agent_text = env.unwrapped.text(env.agent_selection)
    assert "Legal:" in agent_text and "hand of seat" not in agent_text


def test_encoding_layout_is_contiguous_and_documented() -> None:
    at = 0
    for start, end in LAYOUT.values():
        assert start == at and end > start
        at = end
    assert at == OBSERVATION_SIZE == encoding.observation_size()
    text = DOCS.read_text(encoding="utf-8")
    # Only the vector's own section: the information state's table has the same form.
    start = text.index("## Observation vector")
    section = text[start : text.index("\n## ", start)]
    rows = re.findall(r"^\| `(\w+)` \| (\d+)[–-](\d+) \|", section, re.M)
    documented = {name: (int(a), int(b) + 1) for name, a, b in rows}
    assert documented == LAYOUT
    assert f"{ACTION_SIZE} ids" in DOCS.read_text(encoding="utf-8")


def test_pettingzoo_render_test_passes_in_every_mode(capsys: pytest.CaptureFixture[str]) -> None:
    # PettingZoo's own check: "human" renders return None (the text is printed), "ansi" a string.
    render_test(
        lambda render_mode=None: oh_hell_v0.env(preset="pagat", single_deal=True, render_mode=render_mode)
    )
    assert "hand of seat 0" in capsys.readouterr().out


def test_human_mode_prints_the_table_after_every_step(capsys: pytest.CaptureFixture[str]) -> None:
    env = oh_hell_v0.env(preset="pagat", single_deal=True, render_mode="human")
    env.reset(seed=3)
    capsys.readouterr()
    obs, _, _, _, _ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    printed = capsys.readouterr().out
    assert "hand of seat" in printed
    assert env.render() is None
    with pytest.raises(ValueError, match="'human', 'ansi' or None"):
        oh_hell_v0.env(render_mode="rgb_array")


def test_an_episode_against_the_expert_is_reproducible_from_its_seed() -> None:
    # Bots named by a string search a fixed budget, not the clock, so a seed
    # fixes every decision however loaded the machine is.
    def episode(seed: int) -> list[int]:
        env = OhHellGymEnv(seat=1, opponents=("expert",), preset="pagat", single_deal=True, hand_sizes=(5,))
        obs, _ = env.reset(seed=seed)
        seen = []
        done = False
        while not done:
            action = int(np.flatnonzero(obs["action_mask"])[0])
            obs, _, done, _, _ = env.step(action)
            seen.append(int(obs["observation"].sum() * 1000))
        seen.extend(env.aec.state.totals)
        return seen

    assert episode(5) == episode(5)


def test_gym_learner_decides_its_bid_change_and_bots_keep_theirs() -> None:
    """R-BID-CHANGE: the learner is asked to change or keep right after its bid;
    the bots are never made to decide and keep theirs."""
    env = OhHellGymEnv(seat=1, opponents=("beginner",), preset="pagat", first_dealer=0, hand_sizes=(4,))
    obs, _ = env.reset(seed=3)
    assert env.legal_action_ids() == [BID_BASE + b for b in range(5)]  # seat 1 bids first
    obs, *_ = env.step(BID_BASE + 1)
    assert env.legal_action_ids() == [CHANGE_BASE + b for b in (0, 2, 3, 4)] + [KEEP]
    assert np.flatnonzero(obs["action_mask"]).tolist() == env.legal_action_ids()
    env.step(CHANGE_BASE + 2)
    env.step(KEEP)  # after one change it may still change once more, or keep
    state = env.aec.state
    assert state.bids[1] == 2 and state.phase is Phase.PLAY  # the bots bid and kept theirs
    assert state.change_seat is None and env.legal_action_ids()[0] < CHANGE_BASE
