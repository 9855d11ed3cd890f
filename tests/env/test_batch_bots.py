"""Shipped bots in the batched simulator (ohhell.env.batch_bots).

The shadow ``GameState`` of each game followed must agree with the batch at
every step, over whole matches of presets and variants with a random learner
and bots at the other seats; a bot sees only ``observe(state, seat)``; the
same seed gives the same games; and an intermediate bot is a real opponent.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from ohhell import (  # noqa: E402
    ALL_CARDS,
    Action,
    DrawForDealer,
    GameState,
    Observation,
    Phase,
    apply,
    new_game,
    observe,
)
from ohhell.bots import IllegalBotActionError, get_bot  # noqa: E402
from ohhell.encoding import KEEP, changer, legal_ids, seat_to_ask  # noqa: E402
from ohhell.env.batch import BatchSimulator  # noqa: E402
from ohhell.env.batch_bots import BatchBots, DriftError, start_match  # noqa: E402
from ohhell.env.encoding import action_from_id  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs"
HEADING = "### Shipped bots as opponents"

# Short schedules, so that matches end within the steps, each with a rule the
# shadow games must follow.
CASES: dict[str, dict[str, Any]] = {
    # R-HOOK, R-TRUMP-TURN, R-LEAD-LEFT, R-DEALER-DRAW; R-BID-CHANGE: the window, bots keeping.
    "pagat": {"preset": "pagat", "hand_sizes": (3, 2, 1)},
    # R-TRUMP-BIDDER: the highest bidder names trump; R-SC-OKENUFF.
    "okenuff": {"preset": "okenuff", "hand_sizes": (4, 2)},
    # R-BID-SIMULTANEOUS: sealed bids, asked in seat order.
    "simultaneous": {
        "preset": "river",
        "bidding": "simultaneous",
        "hook": False,
        "bid_changes": False,
        "hand_sizes": (3, 2),
    },
    # R-DEVILS-BRIDGE on the 1-card hands, 5 players.
    "devils-bridge": {"preset": "pagat", "players": 5, "devils_bridge": True, "hand_sizes": (2, 1, 1)},
    # R-TEAMS: the learner's partner is a bot; R-SC-SQUARES.
    "teams": {"preset": "pagat", "teams": ((0, 2), (1, 3)), "scoring": "squares", "hand_sizes": (3, 2)},
    # R-TIE-EXTRA: ties play extra hands; R-LEAD-DEALER; 3 players.
    "extra-hands": {"preset": "classic-tens", "players": 3, "hand_sizes": (1,)},
    # R-DEALER-ROTATE from a fixed first dealer (no draw); R-SC-TRICKS-BONUS.
    "common": {"preset": "common", "hand_sizes": (2, 3)},
}


def _lineup(players: int, bot: str = "beginner") -> dict[int, Any]:
    return {s: bot for s in range(1, players)}  # the learner holds seat 0


@pytest.mark.parametrize("name", sorted(CASES))
def test_shadow_games_agree_with_the_batch_over_whole_matches(name: str) -> None:
    """R-DEAL, R-BID-ORDER, R-HOOK, R-FOLLOW, R-TRICK, R-TRUMP-BIDDER,
    R-BID-SIMULTANEOUS, R-DEVILS-BRIDGE, R-TEAMS, R-TIE-EXTRA, R-WIN: at every
    step the bot's seat has the batch's legal ids, and the shadow games agree
    on seats, hands, bids, tricks and totals; matches end where the core ends them."""
    games = 4
    sim = BatchSimulator(games, seed=3, **CASES[name])
    bots = BatchBots(sim, _lineup(sim.players), seed=3)
    rng = np.random.default_rng(3)
    finished = 0
    for _ in range(400):
        mask = sim.action_mask()
        asked = bots.to_act_mask()
        for g in range(games):
            seat = int(sim.to_act[g])
            assert asked[g] == (seat != 0)
            # R-BID-CHANGE: the seat asked may be the one that may still change its bid.
            assert seat_to_ask(bots.match(g)) == seat
            assert legal_ids(bots.match(g), seat) == np.flatnonzero(mask[g]).tolist(), (
                f"game {g}: masks differ"
            )
        actions = bots.fill(sim.random_actions(rng))
        before = [bots.state(g) for g in range(games)]
        bots.step(actions)
        bots.check()
        for g in np.flatnonzero(sim.terminations).tolist():
            assert before[g].is_over  # the old shadow game ended with the batch's match
            assert sim.final_totals[g].tolist() == list(before[g].totals)
            assert bots.state(g) is not before[g] and bots.state(g).hand_number == 0
            finished += 1
    assert finished >= games, f"only {finished} matches finished"


def test_same_seed_same_games() -> None:
    """The same seeds give the same actions and totals; another bot seed other choices."""

    def run(bot_seed: int) -> list[Any]:
        sim = BatchSimulator(6, preset="pagat", hand_sizes=(3, 2), seed=7)
        bots = BatchBots(sim, {1: "random", 2: "beginner", 3: "intermediate"}, seed=bot_seed)
        rng = np.random.default_rng(7)
        out = []
        for _ in range(60):
            actions = bots.fill(sim.random_actions(rng))
            bots.step(actions)
            out.append((actions.tolist(), sim.totals.tolist()))
        return out

    assert run(1) == run(1)
    assert run(1) != run(2)


class Spy:
    """Records what it is shown, then plays a random legal action."""

    name = "spy"

    def __init__(self) -> None:
        self.seen: list[Observation] = []

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        self.seen.append(obs)
        return rng.choice(obs.legal_actions)


def _replayed_start(sim: BatchSimulator, game: int) -> GameState:
    """The test's own start of a batch game (as tests/env/test_batch.py starts it)."""
    state = new_game(sim.rules)
    if sim.rules.first_dealer is None:
        low = sorted(ALL_CARDS, key=lambda c: c.rank)  # twos, then threes
        dealer = int(sim.first_dealer[game])
        cards = tuple(ALL_CARDS[-1] if s == dealer else low[s] for s in range(sim.players))
        apply(state, DrawForDealer(cards))
    apply(state, sim.deal_action(game))
    return state


@pytest.mark.parametrize("name", ["pagat", "devils-bridge"])
def test_a_bot_sees_only_its_seats_observation(name: str) -> None:
    """R-DEVILS-BRIDGE, R-DEAL: each observation a bot gets is ``observe`` of
    its seat in a game replayed apart from the module; other seats' hands are
    hidden (under Devil's Bridge, on a one-card hand, its own instead)."""
    games = 3
    sim = BatchSimulator(games, seed=11, **CASES[name])
    n = sim.players
    spy = Spy()
    bots = BatchBots(sim, {s: spy for s in range(1, n)}, seed=11)
    states = [_replayed_start(sim, g) for g in range(games)]
    rng = np.random.default_rng(11)
    shown = 0
    for _ in range(150):
        wanted = {}
        # R-BID-CHANGE: a bot seat in the bid-change window keeps its bid unasked.
        asked = np.array(
            [
                g
                for g in np.flatnonzero(bots.to_act_mask()).tolist()
                if changer(bots.match(g)) != sim.to_act[g]
            ],
            np.intp,
        )
        for g in asked.tolist():
            wanted[g] = observe(states[g], int(sim.to_act[g]))
        spy.seen.clear()
        learner = sim.random_actions(rng)
        actions = bots.fill(learner)
        assert [o.seat for o in spy.seen] == [int(sim.to_act[g]) for g in asked]
        for g, obs in zip(asked.tolist(), spy.seen, strict=True):
            assert obs == wanted[g]
            seat = obs.seat
            assert seat is not None
            for other in range(n):
                if obs.devils_bridge:  # one card on the forehead: the others' seen
                    assert (obs.hands[other] is None) == (other == seat)
                elif other != seat:
                    assert obs.hands[other] is None
            shown += 1
        seats = sim.to_act.copy()
        bots.step(actions)
        for g in range(games):
            if actions[g] == KEEP:  # keeping one's bid changes nothing in the game
                continue
            apply(states[g], action_from_id(int(actions[g]), int(seats[g])))
            if states[g].is_over:
                states[g] = _replayed_start(sim, g)
            elif states[g].phase is Phase.DEAL:
                apply(states[g], sim.deal_action(g))
    assert shown > 100


def test_a_random_learner_loses_to_intermediate_bots() -> None:
    """R-SC-PAGAT: over 300 single deals of 3 cards, a uniformly random seat
    scores less on average than each of three intermediate bots."""
    games = 100
    sim = BatchSimulator(games, preset="pagat", single_deal=3, seed=5)
    bots = BatchBots(sim, _lineup(4, "intermediate"), seed=5)
    rng = np.random.default_rng(5)
    scores: list[list[int]] = []
    while len(scores) < 300:
        bots.step(bots.fill(sim.random_actions(rng)))
        scores.extend(sim.final_totals[sim.terminations].tolist())
    mean = np.asarray(scores, float).mean(axis=0)
    assert mean[0] + 2 < mean[1:].min(), f"mean scores by seat {mean.tolist()}"


def test_some_games_and_lineups_by_game() -> None:
    """Only the games followed cost a shadow game and ask bots; each has its lineup."""
    sim = BatchSimulator(5, preset="pagat", hand_sizes=(2,), seed=2)
    bots = BatchBots(sim, [{1: "beginner"}, {1: "random", 2: "random", 3: "random"}], games=[1, 3], seed=2)
    assert bots.seat_mask.tolist() == [
        [False] * 4,
        [False, True, False, False],
        [False] * 4,
        [False, True, True, True],
        [False] * 4,
    ]
    rng = np.random.default_rng(2)
    for _ in range(40):
        asked = bots.to_act_mask()
        assert not asked[[0, 2, 4]].any()
        assert (asked == bots.seat_mask[np.arange(5), sim.to_act]).all()
        bots.step(bots.fill(sim.random_actions(rng)))
        bots.check()
    with pytest.raises(KeyError):
        bots.state(0)


def test_errors_say_what_went_wrong() -> None:
    """A learner seat is no bot's; a match under way cannot be followed; a step
    around BatchBots is found by check; a bot's illegal action is refused."""
    sim = BatchSimulator(2, preset="pagat", hand_sizes=(2,), seed=4)
    bots = BatchBots(sim, {1: "beginner"}, seed=4)
    learner = [g for g in range(2) if not bots.to_act_mask()[g]]
    if learner:
        with pytest.raises(ValueError, match="no bot plays"):
            bots.actions(learner)
    sim.step(sim.random_actions())  # around the bots
    with pytest.raises(DriftError):
        bots.check()
    with pytest.raises(ValueError, match="under way"):
        start_match(sim, 0)
    bots.reset()
    bots.check()

    class Cheat:
        name = "cheat"

        def choose(self, obs: Observation, rng: random.Random) -> Action:
            return action_from_id(53 + 17, obs.seat or 0)  # a bid of 17 with 2 cards

    cheats = BatchBots(sim, {s: Cheat() for s in range(4)})
    with pytest.raises(IllegalBotActionError, match="not legal"):
        cheats.actions()


def test_get_bot_objects_and_names_mix() -> None:
    sim = BatchSimulator(2, preset="pagat", hand_sizes=(1,), seed=9)
    bot = get_bot("beginner")
    bots = BatchBots(sim, {0: bot, 1: "beginner", 2: "beginner", 3: bot}, seed=9)
    assert bots.to_act_mask().all()
    actions = bots.actions()
    assert len(actions) == 2
    bots.step(actions)
    bots.check()


def test_the_docs_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """The section's example in docs/env.md ("Shipped bots as opponents") runs."""
    texts = [p.read_text(encoding="utf-8") for p in sorted(DOCS.glob("*.md"))]
    text = next(t for t in texts if HEADING in t)
    start = text.index(HEADING)
    end = text.find("\n#", start + len(HEADING))
    section = text[start : end if end > 0 else len(text)]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "docs", "exec"), {})
    assert "the learner's mean score" in capsys.readouterr().out
