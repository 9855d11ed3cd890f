"""The batched simulator (ohhell.env.batch) against GameState, action by action,
and its Gymnasium vector environment.

The agreement test replays the same random legal actions through a batch and
through one ``GameState`` per game, over every preset and the options the
batch plays, and compares at every step: the seat asked (``seats_to_ask``),
the legal mask (``encoding.action_mask``), the observation (bit for bit
``encoding.to_compact(encode(observe(...)))``, and ``to_full`` of it is
``encode(...)``), trick winners, the scores of every hand, the totals and the
end of the match.
"""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

import gymnasium  # noqa: E402
from gymnasium.utils.passive_env_checker import check_action_space, check_obs, check_observation_space  # noqa: E402
from gymnasium.vector.utils import batch_space  # noqa: E402

from ohhell import (  # noqa: E402
    ALL_CARDS,
    PRESETS,
    Bidding,
    DrawForDealer,
    GameState,
    Match,
    Observation,
    Phase,
    RulesError,
    apply,
    new_game,
    observe,
    sides,
)
from ohhell.encoding import (  # noqa: E402
    ACTION_SIZE,
    BID_BASE,
    CHANGE_BASE,
    KEEP,
    LAYOUT,
    MAX_PLAYERS,
    action_mask,
    encode,
    seat_to_ask,
    take_id,
    to_compact,
    to_full,
)
from ohhell.env.batch import BID, OVER, TRUMP, BatchSimulator, random_legal  # noqa: E402
from ohhell.env.batch_bits import popcount_by_halves  # noqa: E402
from ohhell.env.batch_observe import batch_layout  # noqa: E402
from ohhell.env.batch_vector import OhHellVectorEnv  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs" / "env.md"

# Options beyond the presets, each exercising a rule the presets leave out.
VARIANTS: dict[str, dict[str, Any]] = {
    # R-BID-SIMULTANEOUS: seats asked in seat order, others' bids sealed.
    "simultaneous": {"preset": "river", "bidding": "simultaneous", "hook": False, "bid_changes": False},
    # R-DEVILS-BRIDGE on 1-card hands, 5 players, R-TRUMP-FIXED.
    "devils-bridge": {"preset": "pagat", "players": 5, "devils_bridge": True, "hand_sizes": (2, 1, 3, 1)},
    # R-TEAMS: rewards are the side's; R-SC-SQUARES.
    "teams": {"preset": "pagat", "teams": ((0, 2), (1, 3)), "scoring": "squares", "hand_sizes": (3, 2)},
    # R-TRUMP-ROTATE with a no-trump step, R-SEQ-UP, 3 players, R-SC-FIVES.
    "rotate": {
        "preset": "common",
        "players": 3,
        "trump": "rotate",
        "trump_rotation": ("S", "NT"),
        "sequence": "up",
    },
    # R-TIE-EXTRA on a 1-card schedule, where ties are common; R-SC-PENALTY.
    "extra-hands": {"preset": "classic-tens", "players": 3, "hand_sizes": (1,), "scoring": "penalty"},
    # R-TRUMP-NONE-ALL-DEALT (13 cards to 4 players), R-TRUMP-FIXED at 7 players, no hook.
    "all-dealt": {"preset": "pagat", "hand_sizes": (13,), "hook": False},
    "fixed-7": {"preset": "common", "players": 7, "trump": "fixed", "trump_suit": "H", "hand_sizes": (7, 2)},
    # R-TRUMP-BIDDER with no trump doubling, 3 short hands (R-SC-OKENUFF).
    "okenuff-short": {"preset": "okenuff", "hand_sizes": (6, 7, 8)},
    "single-deal": {"preset": "pagat", "single_deal": 5},
}
CASES: dict[str, dict[str, Any]] = {name: {"preset": name} for name in PRESETS} | VARIANTS


def _draw_for(dealer: int, players: int) -> DrawForDealer:
    """A draw for first dealer that ``dealer`` wins (R-DEALER-DRAW: highest card deals)."""
    low = [c for c in ALL_CARDS if c.rank == 2]  # four twos, then threes
    low += [c for c in ALL_CARDS if c.rank == 3]
    cards = [ALL_CARDS[-1] if s == dealer else low[s] for s in range(players)]
    return DrawForDealer(tuple(cards))


def _start(sim: BatchSimulator, game: int) -> GameState:
    """A GameState at the start of the batch game's current match."""
    state = new_game(sim.rules)
    if sim.rules.first_dealer is None:
        apply(state, _draw_for(int(sim.first_dealer[game]), sim.players))
    assert state.phase is Phase.DEAL
    apply(state, sim.deal_action(game))
    return state


class _Referees:
    """A referee (``Match``) over each replayed GameState: it keeps the one thing
    a GameState does not, whether the seat that may change its bid has kept it
    (R-BID-CHANGE), so the seat asked and the ids are the environments' own
    (``encoding.seat_to_ask``, ``legal_ids``, ``take_id``)."""

    def __init__(self) -> None:
        self.matches: dict[int, Match] = {}

    def of(self, state: GameState) -> Match:
        match = self.matches.get(id(state))
        if match is None or match.state is not state:
            match = self.matches[id(state)] = Match(state, random.Random(0), track_turns=False)
        return match

    def asked(self, state: GameState) -> int:
        seat = seat_to_ask(self.of(state))
        assert seat is not None
        return seat

    def take(self, state: GameState, aid: int) -> None:
        match = self.of(state)
        take_id(match, self.asked(state), int(aid))


def _check_view(sim: BatchSimulator, obs: Any, game: int, view: Observation) -> None:
    """The batch row is to_compact(encode(view)) and to_full of it is encode(view),
    bit for bit (one float32 rounding on both sides)."""
    full = encode(view)
    want = to_compact(full, sim.rules)
    for name, (a, b) in sim.layout.items():
        assert obs[a:b].tobytes() == want[a:b].tobytes(), (
            f"field {name} of seat {view.seat}, game {game}: {obs[a:b].tolist()} != {want[a:b].tolist()}"
        )
    assert to_full(obs, sim.rules).tobytes() == full.tobytes()


def _agree(case: dict[str, Any], seed: int, games: int, steps: int) -> tuple[int, int]:
    """Replay random legal actions through both; return the matches finished and
    the bid changes and keeps replayed."""
    sim = BatchSimulator(games, seed=seed, **case)
    n = sim.players
    side = [next(team for team in sides(sim.rules) if s in team) for s in range(n)]
    states = [_start(sim, g) for g in range(games)]
    referees = _Referees()
    rng = np.random.default_rng(seed)
    finished = changes = 0
    for step in range(steps):
        mask = sim.action_mask()
        obs = sim.observe()
        other = (sim.agent_selection + 1 + step % (n - 1)) % n
        others_obs = sim.observe(other)
        others_mask = sim.action_mask(other)
        for g, state in enumerate(states):
            seat = int(sim.to_act[g])
            assert seat == referees.asked(state), f"game {g}: the batch asks seat {seat}"
            view = observe(state, seat)
            assert (mask[g] == action_mask(view)).all(), f"game {g}: masks differ"
            _check_view(sim, obs[g], g, view)
            if step % 3 == g % 3:  # another seat's view, now and then
                _check_view(sim, others_obs[g], g, observe(state, int(other[g])))
            # Only the seat asked gets a mask (as in oh_hell_v0), even where, under
            # R-BID-SIMULTANEOUS, another seat could bid too.
            assert not others_mask[g].any()
        actions = random_legal(mask, rng)
        before = [(len(s.results), len(s.tricks)) for s in states]
        sim.step(actions)
        for g in range(games):
            state = states[g]
            if actions[g] >= CHANGE_BASE:  # R-BID-CHANGE: a change or a keep
                changes += 1
            referees.take(state, actions[g])
            results, tricks = before[g]
            if len(state.tricks) > tricks or len(state.results) > results:  # R-TRICK
                assert sim.trick_winner[g] == state.tricks[-1].winner, f"game {g}: trick winner"
            else:
                assert sim.trick_winner[g] == -1
            if len(state.results) > results:  # R-SC-*, R-TEAMS
                scores = state.results[-1].scores
                want = [sum(scores[s] for s in side[seat]) for seat in range(n)]
                assert sim.rewards[g].tolist() == want, f"game {g}: hand scores"
            else:
                assert not sim.rewards[g].any()
            if state.is_over:  # R-WIN, R-TIE-EXTRA: the batch ends the match where the core does
                assert sim.terminations[g]
                assert sim.final_totals[g].tolist() == state.totals
                assert sim.totals[g].tolist() == [0] * n and sim.number[g] == 0
                states[g] = _start(sim, g)
                finished += 1
                continue
            assert not sim.terminations[g]
            if state.phase is Phase.DEAL:
                assert sim.new_hand[g]
                apply(state, sim.deal_action(g))
            else:
                assert not sim.new_hand[g]
            assert sim.totals[g].tolist() == state.totals
            assert sim.number[g] == state.hand_number and sim.dealer[g] == state.dealer
    return finished, changes


@pytest.mark.parametrize("name", sorted(CASES))
def test_batch_agrees_with_game_state(name: str) -> None:
    """R-DEAL, R-BID-ORDER, R-HOOK, R-FOLLOW, R-TRICK, R-LEAD-LEFT, R-LEAD-DEALER,
    R-TRUMP-TURN, R-TRUMP-BIDDER, R-DEALER-ROTATE, R-SC-*, R-TIE-EXTRA,
    R-BID-CHANGE: the same actions, bid changes and keeps included, give the same
    masks, turns, views, trick winners and scores."""
    case = CASES[name]
    rules = BatchSimulator(1, **case).rules
    short = sum(rules.schedule) < 30  # matches that end within the steps
    finished = changes = 0
    for seed in (1, 2):
        done, changed = _agree(case, seed, games=3, steps=140 if short else 80)
        finished += done
        changes += changed
    if short:
        assert finished > 0, "no match finished: the test did not reach the end of a match"
    if rules.bid_changes and rules.bidding is Bidding.SEQUENTIAL:
        assert changes > 0, "no bid change or keep was replayed"


def test_whole_matches_of_every_preset_end_as_in_the_core() -> None:
    """R-SEQ-*, R-WIN: long enough to end matches of the full schedules; fewer checks a step."""
    for name in PRESETS:
        sim = BatchSimulator(3, preset=name, seed=5)
        states = [_start(sim, g) for g in range(3)]
        referees = _Referees()
        rng = np.random.default_rng(5)
        ended = 0
        while ended < 2:
            mask = sim.action_mask()
            actions = random_legal(mask, rng)
            sim.step(actions)
            for g, state in enumerate(states):
                referees.take(state, actions[g])
                if state.is_over:
                    assert sim.terminations[g] and sim.final_totals[g].tolist() == state.totals
                    states[g] = _start(sim, g)
                    ended += 1
                elif state.phase is Phase.DEAL:
                    apply(state, sim.deal_action(g))
                assert int(sim.to_act[g]) == referees.asked(states[g])


def test_okenuff_overcall_reads_the_highest_earlier_bid() -> None:
    """R-SC-OKENUFF, R-TRUMP-BIDDER: bids 2, 2, 5, 6 in bidding order; the 6
    names trump and, set by two or more, loses 5 more per undertrick after the first."""
    sim = BatchSimulator(64, preset="okenuff", hand_sizes=(8,), seed=8)
    states = [_start(sim, g) for g in range(64)]
    referees = _Referees()
    rng = np.random.default_rng(8)
    for bid in (2, 2, 5, 6):
        for state in states:
            referees.take(state, BID_BASE + bid)
        sim.step(np.full(64, BID_BASE + bid))
        if bid != 6:  # R-BID-CHANGE: each bidder but the last keeps its bid
            for state in states:
                referees.take(state, KEEP)
            sim.step(np.full(64, KEEP))
    assert (sim.phase == TRUMP).all() and (sim.to_act == sim.tables.order[sim.dealer, 3]).all()
    assert (sim.namer_context == 1 + 5).all()
    scores = []
    while not sim.terminations.any():
        actions = random_legal(sim.action_mask(), rng)
        for state, aid in zip(states, actions, strict=True):
            referees.take(state, aid)
        sim.step(actions)
    for g, state in enumerate(states):
        assert sim.rewards[g].tolist() == list(state.results[-1].scores)
        namer = state.results[-1].trump_namer
        scores.append((state.results[-1].tricks[namer], state.results[-1].scores[namer]))
    assert (sim.tables.scores[0, 1 + 5, 6, 3], sim.tables.scores[0, 1 + 4, 6, 3]) == (-25, -15)
    assert any(t <= 4 for t, _ in scores), "no trump namer was set by two: the overcall went untested"


def test_random_actions_are_legal_and_uniform() -> None:
    sim = BatchSimulator(48, preset="okenuff", seed=6)
    rng = np.random.default_rng(6)
    for _ in range(12):  # into bidding, trump naming and play
        sim.step(sim.random_actions(rng))
    mask = sim.action_mask()
    counts = np.zeros(mask.shape)
    draws = 600
    for _ in range(draws):
        chosen = sim.random_actions(rng)
        assert (mask[np.arange(48), chosen] == 1).all()
        counts[np.arange(48), chosen] += 1
    share = counts / draws
    want = mask / mask.sum(axis=1, keepdims=True)
    assert np.abs(share - want).max() < 0.1
    bits = rng.integers(0, 2**63, 1000, dtype=np.uint64)
    assert (popcount_by_halves(bits) == [bin(int(x)).count("1") for x in bits]).all()


def test_random_actions_are_uniform_in_the_bid_change_window() -> None:
    """R-BID-CHANGE: right after a bid, every other bid of the hand and KEEP are
    equally likely; the mask is exactly those ids."""
    sim = BatchSimulator(64, preset="pagat", single_deal=5, seed=7)
    rng = np.random.default_rng(7)
    sim.step(sim.random_actions(rng))  # the first bid in every game
    assert (sim.changer == sim.to_act).all()
    mask = sim.action_mask()
    current = sim.bids[np.arange(64), sim.to_act]
    for g in range(64):
        want = [CHANGE_BASE + b for b in range(6) if b != current[g]] + [KEEP]
        assert np.flatnonzero(mask[g]).tolist() == want
    counts = np.zeros(mask.shape)
    draws = 600
    for _ in range(draws):
        chosen = sim.random_actions(rng)
        assert (mask[np.arange(64), chosen] == 1).all()
        counts[np.arange(64), chosen] += 1
    assert np.abs(counts / draws - mask / mask.sum(axis=1, keepdims=True)).max() < 0.1


def test_same_seed_same_games_and_other_seeds_differ() -> None:
    def run(seed: int) -> list[Any]:
        sim = BatchSimulator(16, preset="okenuff", seed=seed)
        rng = np.random.default_rng(0)
        seen = []
        for _ in range(60):
            mask = sim.action_mask()
            seen.append(sim.observe().copy())
            sim.step(random_legal(mask, rng))
        return [*seen, sim.hands.copy(), sim.totals.copy()]

    first, again, other = run(11), run(11), run(12)
    assert all((x == y).all() for x, y in zip(first, again, strict=True))
    assert not (first[0] == other[0]).all()
    sim = BatchSimulator(16, preset="okenuff", seed=11)
    sim.step(sim.random_actions())
    sim.reset(seed=11)  # reset(seed) restarts the stream: the same first deals
    assert (sim.observe() == first[0]).all()


def test_reset_of_some_games_leaves_the_others() -> None:
    sim = BatchSimulator(8, preset="pagat", seed=3)
    for _ in range(30):
        sim.step(sim.random_actions())
    hands, totals = sim.hands.copy(), sim.totals.copy()
    chosen = np.zeros(8, bool)
    chosen[[1, 5]] = True
    sim.reset(games=chosen)
    assert (sim.hands[~chosen] == hands[~chosen]).all() and (sim.totals[~chosen] == totals[~chosen]).all()
    assert (sim.number[chosen] == 0).all() and (sim.phase[chosen] == BID).all()  # the first hand
    assert (sim.bids[chosen] == -1).all()
    sizes = [int(sim.size[g]) for g in (1, 5)]
    assert [bin(int(h)).count("1") for g in (1, 5) for h in sim.hands[g]] == [
        s for s in sizes for _ in range(4)
    ]


def test_autoreset_and_held_over_matches() -> None:
    """R-WIN: a finished match starts anew at once, or waits for reset with autoreset=False."""
    sim = BatchSimulator(32, preset="pagat", single_deal=2, seed=4)
    ends = 0
    for _ in range(40):
        sim.step(sim.random_actions())
        done = sim.terminations
        ends += int(done.sum())
        assert (sim.number[done] == 0).all() and (sim.totals[done] == 0).all()
        assert (sim.action_mask().sum(axis=1) > 0).all()  # every game asks someone
    assert ends >= 32
    held = BatchSimulator(4, preset="pagat", single_deal=1, autoreset=False, seed=4)
    # 8 actions a 1-card hand and 3 to 9 bid changes or keeps (R-BID-CHANGE);
    # then the over games ignore theirs.
    for _ in range(20):
        held.step(held.random_actions())
    assert (held.phase == OVER).all() and (held.agent_selection == -1).all()
    assert not held.action_mask().any()
    obs = held.observe()
    at = held.layout["phase"][0]
    assert (obs[:, at + 5] == 1).all()
    held.reset(games=[2])
    assert held.phase.tolist() == [OVER, OVER, BID, OVER]


def test_a_finished_match_shows_as_the_core_shows_it() -> None:
    """R-WIN: with autoreset=False a finished match stays over: no seat asked,
    and every seat's view is encode(observe(...)) of the finished GameState."""
    sim = BatchSimulator(3, preset="classic-tens", hand_sizes=(2, 1), autoreset=False, seed=2)
    states = [_start(sim, g) for g in range(3)]
    referees = _Referees()
    rng = np.random.default_rng(2)
    while not all(state.is_over for state in states):
        actions = random_legal(sim.action_mask(), rng)
        sim.step(actions)
        for g, state in enumerate(states):
            if not state.is_over:
                referees.take(state, actions[g])
                if state.phase is Phase.DEAL:
                    apply(state, sim.deal_action(g))
    assert (sim.phase == OVER).all() and not sim.action_mask().any()
    for seat in range(4):
        obs = sim.observe(seat)
        for g, state in enumerate(states):
            _check_view(sim, obs[g], g, observe(state, seat))


def test_masks_and_observations_have_their_shape_and_bounds() -> None:
    sim = BatchSimulator(64, preset="okenuff", seed=2)
    low, high = sim.observation_bounds()
    for _ in range(50):
        mask = sim.action_mask()
        obs = sim.observe()
        assert mask.shape == (64, ACTION_SIZE) and mask.dtype == np.int8
        assert obs.shape == (64, sim.observation_size) and obs.dtype == np.float32
        assert ((obs >= low) & (obs <= high)).all()
        assert (mask.sum(axis=1) >= 1).all()
        sim.step(random_legal(mask, np.random.default_rng(0)))
    assert batch_layout(sim.rules) == sim.layout
    assert sim.observation_size == 552  # 4 players, no Devil's Bridge, no teams: see docs/env.md
    assert set(sim.layout) <= set(LAYOUT) | {"devils_bridge_now"}
    assert MAX_PLAYERS == 7


def test_illegal_actions_are_refused_and_nothing_changes() -> None:
    """R-HOOK, R-FOLLOW: an illegal id names the game and the legal ids."""
    sim = BatchSimulator(4, preset="pagat", seed=1)
    mask = sim.action_mask()
    actions = random_legal(mask, np.random.default_rng(0))
    bad = actions.copy()
    bad[2] = 0  # a card while bidding
    hands = sim.hands.copy()
    with pytest.raises(ValueError, match="game 2"):
        sim.step(bad)
    assert (sim.hands == hands).all() and (sim.bids == -1).all()
    sim.step(actions)


def test_the_australian_pack_is_refused_by_name() -> None:
    """R-DECK-AU: two of a card do not fit a hand of one bit per card."""
    with pytest.raises(RulesError, match="deck=australian"):
        BatchSimulator(2, preset="river", players=5, deck="australian")


def test_pettingzoo_style_last_gives_each_seat_its_rewards() -> None:
    sim = BatchSimulator(8, preset="pagat", single_deal=1, seed=9)
    got = np.zeros((8, 4))
    for _ in range(20):  # 1-card hands: 4 bids and 4 plays a hand
        obs, reward, _, truncated, info = sim.last()
        assert obs.shape == (8, sim.observation_size) and info["action_mask"].shape == (8, ACTION_SIZE)
        got[np.arange(8), sim.agent_selection] += reward
        assert all(
            sim.observation_space(agent).contains(row) for agent, row in zip(sim.agents, obs, strict=False)
        )
        chosen = sim.random_actions()
        assert all(sim.action_space().contains(int(a)) for a in chosen)
        sim.step(chosen)
    assert got.any() and not truncated.any()


# --- The Gymnasium vector environment ---


def test_vector_env_spaces_and_checks() -> None:
    envs = OhHellVectorEnv(16, seat=1, preset="okenuff", seed=0)
    check_observation_space(envs.single_observation_space)
    check_action_space(envs.single_action_space)
    assert envs.observation_space == batch_space(envs.single_observation_space, 16)
    assert envs.action_space == batch_space(envs.single_action_space, 16)
    obs, infos = envs.reset(seed=1)
    check_obs(obs, envs.observation_space, "reset")
    total = np.zeros(16)
    for _ in range(200):
        masks = envs.action_masks()
        assert masks.dtype == np.int8 and masks.shape == (16, ACTION_SIZE)  # one mask dtype everywhere
        assert (masks == infos["action_mask"]).all()
        actions = envs.sample_legal()
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        check_obs(obs, envs.observation_space, "step")
        assert rewards.dtype == np.float32 and terminated.dtype == bool and not truncated.any()
        assert not infos["illegal_action"].any()
        total += rewards
        # The learner is asked whenever the match goes on: its turn, or (R-BID-CHANGE,
        # not a turn in the observation) whether it keeps its bid.
        asked = (obs[:, envs.layout["my_turn"][0]] == 1) | (infos["action_mask"][:, KEEP] == 1)
        assert asked[~terminated].all()
    assert total.any()


def test_vector_env_seeds_reproduce_and_data_is_fresh() -> None:
    def run() -> list[Any]:
        envs = OhHellVectorEnv(8, seat=0, preset="pagat", single_deal=True)
        obs, _ = envs.reset(seed=5)
        out = [obs]
        rng = np.random.default_rng(1)
        for _ in range(30):
            out.extend(envs.step(envs.sample_legal(rng))[:3])
        return out

    first, again = run(), run()
    assert all((x == y).all() for x, y in zip(first, again, strict=True))
    assert all(not np.shares_memory(x, y) for x, y in itertools.pairwise(first))


def test_vector_env_resets_on_the_next_step() -> None:
    """Gymnasium's NEXT_STEP autoreset: the step after the end gives a new match, reward 0."""
    envs = OhHellVectorEnv(4, seat=0, preset="common", single_deal=1, seed=2)
    envs.reset(seed=2)
    ended = None
    for _ in range(10):
        _, _, terminated, _, _ = envs.step(envs.sample_legal())
        if terminated.any():
            ended = terminated.copy()
            assert not envs.action_masks()[ended].any()
            break
    assert ended is not None
    _, rewards, terminated, _, _ = envs.step(np.zeros(4, int))  # ignored where a match ended
    assert (rewards[ended] == 0).all() and not terminated[ended].any()
    assert envs.action_masks()[ended].any(axis=1).all()  # a new match, the learner asked


def test_vector_env_illegal_action_penalty_or_raise() -> None:
    envs = OhHellVectorEnv(4, seat=0, preset="pagat", seed=3)
    envs.reset(seed=3)
    actions = envs.sample_legal()
    actions[0] = 75  # naming trump is never legal under turned trump (R-TRUMP-TURN)
    _, rewards, _, _, infos = envs.step(actions)
    assert infos["illegal_action"].tolist() == [True, False, False, False] and rewards[0] == -1.0
    strict = OhHellVectorEnv(4, seat=0, preset="pagat", illegal_action="raise", seed=3)
    strict.reset(seed=3)
    with pytest.raises(ValueError, match="game 0"):
        strict.step(actions)


def test_vector_env_with_a_policy_opponent_and_gymnasium_wrappers() -> None:
    calls = []

    def lowest_legal(obs: Any, mask: Any) -> Any:
        calls.append(len(obs))
        return mask.argmax(axis=1)

    envs = OhHellVectorEnv(6, seat=2, preset="river", opponent=lowest_legal, single_deal=3, seed=1)
    wrapped = gymnasium.wrappers.vector.RecordEpisodeStatistics(envs)
    wrapped = gymnasium.wrappers.vector.NormalizeReward(wrapped)
    # Observation wrappers accept only NEXT_STEP (or no) autoreset: this one checks.
    wrapped = gymnasium.wrappers.vector.NormalizeObservation(wrapped)
    wrapped.reset(seed=1)
    episodes = 0
    for _ in range(40):
        _, _, terminated, _, infos = wrapped.step(envs.sample_legal())
        episodes += int(terminated.sum())
        if "episode" in infos:
            assert infos["episode"]["l"][infos["_episode"]].min() >= 1
    assert episodes > 0 and calls
    with pytest.raises(ValueError, match="opponent"):
        OhHellVectorEnv(2, opponent="expert")


def _docs_section() -> str:
    text = DOCS.read_text(encoding="utf-8")
    start = text.index("## The batched simulator")
    return text[start : text.index("\n## ", start + 1)]


def test_the_batch_observation_is_documented() -> None:
    rows = re.findall(r"^\| `(\w+)` \| (\d+)[–-](\d+) \| (\d+) \|", _docs_section(), re.M)
    documented = {name: (int(a), int(b) + 1) for name, a, b, _ in rows}
    assert documented == BatchSimulator(1, preset="pagat").layout
    for n in (3, 5, 7):  # the sizes the docs give by formula
        assert BatchSimulator(1, preset="pagat", players=n).observation_size == 85 * n + 212
        assert (
            BatchSimulator(1, preset="pagat", players=n, devils_bridge=True).observation_size == 137 * n + 161
        )


def test_the_docs_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    for block in re.findall(r"```python\n(.*?)```", _docs_section(), re.S):
        exec(compile(block, str(DOCS), "exec"), {})
    assert "episodes finished" in capsys.readouterr().out
