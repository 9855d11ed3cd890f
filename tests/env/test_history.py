"""The perfect-recall information state (ohhell.env.history): its layout and
docs, equal exactly when the seat's information is equal, no hidden card in any
tensor or string (with a control that plants a leak), and the environment's
history mode under PettingZoo's api_test and Gymnasium's env checker."""

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
from pettingzoo.test import api_test  # noqa: E402

from ohhell import (  # noqa: E402
    ALL_CARDS,
    Bidding,
    Card,
    ChangeBid,
    Deal,
    GameState,
    Phase,
    apply,
    legal_actions,
    new_game,
    observe,
    sample_hands,
)
from ohhell.encoding import BID_BASE, CARDS, MAX_HAND, MAX_PLAYERS, encode  # noqa: E402
from ohhell.env import oh_hell_v0  # noqa: E402
from ohhell.env.gym import OhHellGymEnv  # noqa: E402
from ohhell.env.history import (  # noqa: E402
    HISTORY_LAYOUT,
    HISTORY_SIZE,
    history_bounds,
    information_state,
    information_state_string,
)
from ohhell.view import can_see_hand  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs" / "env.md"

VARIANTS: dict[str, dict[str, Any]] = {
    "pagat": {"preset": "pagat"},  # R-BID-CHANGE on
    "simultaneous": {"preset": "pagat", "bidding": "simultaneous", "hook": False, "bid_changes": False},
    "devils-bridge": {"preset": "pagat", "players": 5, "devils_bridge": True, "hand_sizes": (2, 1, 1, 3)},
    "australian-5": {"preset": "river", "players": 5, "deck": "australian", "hand_sizes": (13, 6, 1)},
    "okenuff": {"preset": "okenuff"},  # R-TRUMP-BIDDER
    "seven": {"preset": "classic-tens", "players": 7, "hand_sizes": (7, 3)},
    "three-17": {"preset": "pagat", "players": 3, "hand_sizes": (17, 1)},  # the largest hand
}

CARD_TOKEN = re.compile(r"\b(?:10|[2-9JQKA])[CDHS]\b")


def _play(env: Any, seed: int, each_step: Any = None) -> None:
    rng = random.Random(seed)
    env.reset(seed=seed)
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if each_step is not None:
            each_step(env.unwrapped)
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))


def _api_test(env: Any, cycles: int) -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(env, num_cycles=cycles)


# --- Layout and docs ---


def _section(text: str, title: str) -> str:
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def test_history_layout_is_contiguous_and_documented() -> None:
    at = 0
    for start, end in HISTORY_LAYOUT.values():
        assert start == at and end > start
        at = end
    assert at == HISTORY_SIZE
    # Sized for the largest case: 7 seats, 17 tricks, 52 card ids.
    assert HISTORY_LAYOUT["tricks"][1] - HISTORY_LAYOUT["tricks"][0] == MAX_HAND * MAX_PLAYERS * CARDS
    section = _section(DOCS.read_text(encoding="utf-8"), "Perfect-recall information state")
    rows = re.findall(r"^\| `(\w+)` \| (\d+)[–-](\d+) \|", section, re.M)
    documented = {name: (int(a), int(b) + 1) for name, a, b in rows}
    assert documented == HISTORY_LAYOUT
    assert f"{HISTORY_SIZE} float32 values" in section
    low, high = history_bounds()
    assert low.shape == high.shape == (HISTORY_SIZE,) and (low <= high).all()


def test_string_reads_as_documented() -> None:
    # Seat 1 of a known 4-player deal, dealer 0, after the bids and one trick.
    env = oh_hell_v0.raw_env(preset="pagat", first_dealer=0, hand_sizes=(3,), observation="history")
    env.reset(seed=1)
    while env.state.phase is not Phase.PLAY or len(env.state.tricks) < 1:
        env.step(env.legal_action_ids(env.agent_selection)[0])
    text = env.information_state_string("player_1")
    assert text.startswith("seat 1 of 4 | play | dealer 0 | size 3 | hand ")
    assert re.search(r"\| bids 1:\d+ 2:\d+ 3:\d+ 0:\d+ \| tricks (\d:\w+ ){3}\d:\w+ / \d leads$", text), text
    assert "turned " in text and "trump " in text


# --- Equal exactly when the seat's information is equal ---


def _played_by(state: GameState) -> list[list[Card]]:
    n = state.players
    out: list[list[Card]] = [[] for _ in range(n)]
    for trick in state.tricks:
        for i, card in enumerate(trick.cards):
            out[trick.seat_of(i, n)].append(card)
    for i, card in enumerate(state.trick):
        out[(state.leader + i) % n].append(card)
    return out


def _other_deal(state: GameState, seat: int, rng: random.Random) -> GameState:
    """The same actions replayed on another deal of this hand that ``seat``
    cannot tell from the true one: the unseen cards dealt again (voids kept,
    so every play stays legal), the seen hands and the turned card kept."""
    current = sample_hands(observe(state, seat), rng)
    played = _played_by(state)
    start = state.hand_log_start
    deal = state.log[start]
    assert isinstance(deal, Deal)
    hands = tuple(tuple(current[s]) + tuple(played[s]) for s in range(state.players))
    other = new_game(state.rules)
    for action in [*state.log[:start], Deal(hands, deal.turned), *state.log[start + 1 :]]:
        apply(other, action)
    return other


def _info(state: GameState, seat: int) -> tuple[bytes, str]:
    view = observe(state, seat)
    return information_state(view).tobytes(), information_state_string(view)


@pytest.mark.parametrize("name", ["pagat", "simultaneous", "devils-bridge", "australian-5", "okenuff"])
def test_same_information_same_key_other_deal(name: str) -> None:
    env = oh_hell_v0.raw_env(**VARIANTS[name])
    rng = random.Random(0)
    tally = Counter[str]()

    def check(raw: Any) -> None:
        state: GameState = raw.state
        if state.phase not in (Phase.BID, Phase.TRUMP, Phase.PLAY) or rng.random() > 0.3:
            return
        for seat in range(state.players):
            other = _other_deal(state, seat, rng)
            assert _info(other, seat) == _info(state, seat)  # the seat cannot tell them apart
            tally["same"] += 1
            for s in range(state.players):
                if s == seat or sorted(other.hands[s], key=str) == sorted(state.hands[s], key=str):
                    continue
                # A seat whose own cards differ sees the difference; under
                # R-DEVILS-BRIDGE it does not see its own card, so it does not.
                differs = can_see_hand(state, s, s)
                assert (_info(other, s)[0] != _info(state, s)[0]) is differs
                assert (_info(other, s)[1] != _info(state, s)[1]) is differs
                tally["differs" if differs else "blind"] += 1

    _play(env, seed=5, each_step=check)
    assert tally["same"] > 10 and tally["differs"] + tally["blind"] > 10


def _distinct_choices(state: GameState, seat: int) -> list[Any]:
    # One action per action id: identical cards of an Australian pack are one choice (R-DECK-AU).
    seen, out = set(), []
    for action in legal_actions(state, seat):
        if isinstance(action, ChangeBid):
            continue  # R-BID-CHANGE: checked on its own below
        key = str(action)
        if key not in seen:
            seen.add(key)
            out.append(action)
    return out


@pytest.mark.parametrize("name", ["pagat", "simultaneous", "devils-bridge", "australian-5", "okenuff"])
def test_any_differing_visible_action_changes_the_key(name: str) -> None:
    env = oh_hell_v0.raw_env(**VARIANTS[name])
    tally = Counter[str]()

    def check(raw: Any) -> None:
        state: GameState = raw.state
        actor = raw.possible_agents.index(raw.agent_selection)
        choices = _distinct_choices(state, actor)
        if len(choices) < 2:
            return
        results = []
        for action in choices[:3]:
            after = state.clone()
            apply(after, action)
            results.append([_info(after, s) for s in range(state.players)])
        sealed = state.rules.bidding is Bidding.SIMULTANEOUS and state.bid_count < state.players - 1
        for s in range(state.players):
            keys = [r[s] for r in results]
            if sealed and s != actor:
                # R-BID-SIMULTANEOUS: another seat sees only "has bid" until all are in.
                assert len(set(keys)) == 1
                tally["sealed"] += 1
            else:
                assert len({t for t, _ in keys}) == len(keys)
                assert len({text for _, text in keys}) == len(keys)
                tally["differs"] += 1

    _play(env, seed=6, each_step=check)
    assert tally["differs"] > 20
    if name == "simultaneous":
        assert tally["sealed"] > 0


def test_perfect_recall_keeps_the_order_of_the_tricks() -> None:
    # The compact vector forgets which trick a card fell in; the history does not.
    env = oh_hell_v0.raw_env(preset="pagat", players=3, hand_sizes=(5,), first_dealer=0)
    env.reset(seed=0)
    while len(env.state.tricks) < 2:
        env.step(env.legal_action_ids(env.agent_selection)[0])
    view = observe(env.state, 0)
    swapped = dataclasses.replace(view, tricks=view.tricks[::-1])
    assert encode(view).tobytes() == encode(swapped).tobytes()
    assert information_state(view).tobytes() != information_state(swapped).tobytes()
    assert information_state_string(view) != information_state_string(swapped)


def test_bid_change_shows_the_final_bid() -> None:
    # R-BID-CHANGE: the key holds the bid as it stands after the change.
    env = oh_hell_v0.raw_env(preset="pagat", first_dealer=0, hand_sizes=(5,))
    env.reset(seed=1)
    env.step(BID_BASE + 1)
    state = env.state
    assert state.change_seat == 1
    changed = state.clone()
    apply(changed, ChangeBid(1, 2))
    for seat in range(state.players):
        assert "bids 1:1" in _info(state, seat)[1]
        assert "bids 1:2" in _info(changed, seat)[1]
        assert _info(state, seat)[0] != _info(changed, seat)[0]


# --- No hidden card leaks ---


def allowed_history(state: GameState, seat: int) -> dict[str, Any]:
    """What the information state of ``seat`` may hold, from the true state
    (not from observe): each hand as dealt where the seat may see it now,
    the turned card, each trick's cards by seat, and the bids shown."""
    n = state.players
    in_hand = state.phase in (Phase.BID, Phase.TRUMP, Phase.PLAY)
    played = _played_by(state) if in_hand else [[] for _ in range(n)]
    dealt = {
        s: Counter(state.hands[s]) + Counter(played[s])
        for s in range(n)
        if in_hand and can_see_hand(state, seat, s)
    }
    tricks: list[dict[int, Card]] = []
    if in_hand:
        for trick in state.tricks:
            tricks.append({trick.seat_of(i, n): c for i, c in enumerate(trick.cards)})
        if state.trick:
            tricks.append({(state.leader + i) % n: c for i, c in enumerate(state.trick)})
    turned = Counter([state.turned]) if in_hand and state.turned is not None else Counter[Card]()
    sealed = state.rules.bidding is Bidding.SIMULTANEOUS and state.phase is Phase.BID
    bids = {
        s: (None if sealed and s != seat else b)
        for s, b in enumerate(state.bids)
        if in_hand and b is not None
    }
    return {"dealt": dealt, "tricks": tricks, "turned": turned, "bids": bids}


def _cards_at(vector: Any, start: int) -> Counter[Card]:
    return Counter(c for i, c in enumerate(ALL_CARDS) for _ in range(round(float(vector[start + i]))))


def assert_no_leak(state: GameState, seat: int, vector: Any, text: str) -> None:
    """Every card the tensor and the string hold is one ``seat`` may see, in its place."""
    n = state.players
    allowed = allowed_history(state, seat)
    o = {name: a for name, (a, _) in HISTORY_LAYOUT.items()}
    # R-DEVILS-BRIDGE: one's own card is not in view, so not in the tensor.
    assert _cards_at(vector, o["own_hand"]) == allowed["dealt"].get(seat, Counter())
    for r in range(1, MAX_PLAYERS):
        s = (seat + r) % n if r < n else None
        want = allowed["dealt"].get(s, Counter()) if s is not None else Counter()
        assert _cards_at(vector, o["visible_hands"] + (r - 1) * CARDS) == want, f"relative seat {r}"
    assert _cards_at(vector, o["turned"]) == allowed["turned"]
    for t in range(MAX_HAND):
        for r in range(MAX_PLAYERS):
            card = allowed["tricks"][t].get((seat + r) % n) if t < len(allowed["tricks"]) and r < n else None
            want = Counter([card]) if card is not None else Counter()
            assert _cards_at(vector, o["tricks"] + (t * MAX_PLAYERS + r) * CARDS) == want
    # R-BID-SIMULTANEOUS: a sealed bid is in neither form.
    order = [(state.dealer + 1 + k) % n for k in range(n)]
    for k, s in enumerate(order):
        row = vector[o["bids"] + k * (MAX_HAND + 1) : o["bids"] + (k + 1) * (MAX_HAND + 1)]
        bid = allowed["bids"].get(s)
        assert (int(np.argmax(row)) if row.any() else None) == bid, f"seat {s}'s bid"
    shown = re.search(r"\| bids ([^|]*)", text)
    if allowed["bids"] or shown:
        assert shown is not None
        want_bids = " ".join(
            f"{s}:{'?' if allowed['bids'][s] is None else allowed['bids'][s]}"
            for s in order
            if s in allowed["bids"]
        )
        assert shown.group(1).strip() == (want_bids or "-")
    # The string names exactly the cards seen: hands as dealt, every trick and the turned card.
    in_text = Counter(Card.parse(m) for m in CARD_TOKEN.findall(text))
    want_text = sum(allowed["dealt"].values(), Counter[Card]()) + allowed["turned"]
    for trick in allowed["tricks"]:
        want_text.update(trick.values())
    assert in_text == want_text


LEAK_VARIANTS = ["pagat", "simultaneous", "devils-bridge", "australian-5", "okenuff", "seven", "three-17"]


@pytest.mark.parametrize("name", LEAK_VARIANTS)
def test_information_state_never_shows_a_hidden_card(name: str) -> None:
    env = oh_hell_v0.raw_env(**VARIANTS[name], observation="history")
    checked = Counter[str]()

    def check_all(raw: Any) -> None:
        for seat in range(raw.rules.players):
            agent = f"player_{seat}"
            assert_no_leak(
                raw.state, seat, raw.observe(agent)["observation"], raw.information_state_string(agent)
            )
            checked[raw.state.phase] += 1

    _play(env, seed=11, each_step=check_all)
    assert env.state.is_over and checked[Phase.PLAY] > 0 and checked[Phase.BID] > 0


def _to_phase(env: Any, phase: Phase) -> None:
    while env.state.phase is not phase:
        env.step(env.legal_action_ids(env.agent_selection)[0])


def test_leak_check_catches_a_planted_leak() -> None:
    # The control: a view showing another seat's hand (as a broken redaction
    # would), a card set in the tensor, and a revealed sealed bid are caught.
    env = oh_hell_v0.raw_env(preset="pagat", first_dealer=0)
    env.reset(seed=5)
    state = env.state
    seat = env.possible_agents.index(env.agent_selection)
    good = observe(state, seat)
    assert_no_leak(state, seat, information_state(good), information_state_string(good))
    leaky = dataclasses.replace(good, hands=tuple(tuple(h) for h in state.hands))
    with pytest.raises(AssertionError):
        assert_no_leak(state, seat, information_state(leaky), information_state_string(good))
    with pytest.raises(AssertionError):
        assert_no_leak(state, seat, information_state(good), information_state_string(leaky))
    vector = information_state(good)
    hidden = state.hands[(seat + 1) % state.players][0]
    vector[HISTORY_LAYOUT["tricks"][0] + hidden.index] = 1
    with pytest.raises(AssertionError):
        assert_no_leak(state, seat, vector, information_state_string(good))
    # R-BID-SIMULTANEOUS: a sealed bid shown is a leak too.
    sim = oh_hell_v0.raw_env(**VARIANTS["simultaneous"], first_dealer=0)
    sim.reset(seed=5)
    sim.step(BID_BASE + 2)
    s_state = sim.state
    view = observe(s_state, 1)
    unsealed = dataclasses.replace(view, bids=tuple(s_state.bids))
    with pytest.raises(AssertionError):
        assert_no_leak(s_state, 1, information_state(unsealed), information_state_string(view))
    with pytest.raises(AssertionError):
        assert_no_leak(s_state, 1, information_state(view), information_state_string(unsealed))
    assert_no_leak(s_state, 1, information_state(view), information_state_string(view))


def test_devils_bridge_state_holds_others_cards_not_own() -> None:
    # R-DEVILS-BRIDGE: every other hand is in view and in the state; one's own card is not.
    env = oh_hell_v0.raw_env(preset="pagat", devils_bridge=True, single_deal=1, first_dealer=0)
    env.reset(seed=2)
    _to_phase(env, Phase.PLAY)
    state = env.state
    for seat in range(state.players):
        view = observe(state, seat)
        vector, text = information_state(view), information_state_string(view)
        own = state.hands[seat][0]
        a, b = HISTORY_LAYOUT["own_hand"]
        assert not vector[a:b].any()
        assert "hand blind" in text and f"{seat}:{own}" not in text
        assert own not in [Card.parse(m) for m in CARD_TOKEN.findall(text.split("| seen ")[0])]
        for s in range(state.players):
            if s != seat:
                assert f"{s}:{state.hands[s][0]}" in text


# --- The environment in history mode ---


@pytest.mark.parametrize("name", ["pagat", "simultaneous", "devils-bridge", "australian-5", "okenuff"])
def test_pettingzoo_api_test_history_mode(name: str) -> None:
    _api_test(oh_hell_v0.env(**VARIANTS[name], observation="history"), 1000)


def test_raw_env_history_mode_space_and_string() -> None:
    env = oh_hell_v0.raw_env(preset="pagat", single_deal=True, observation="history")
    _api_test(env, 200)
    env.reset(seed=3)
    space = env.observation_space("player_0")["observation"]
    assert space.shape == (HISTORY_SIZE,)
    obs = env.observe(env.agent_selection)["observation"]
    assert space.contains(obs)
    assert env.information_state_string("player_0").startswith("seat 0 of 4 | bid")
    compact = oh_hell_v0.raw_env(preset="pagat", single_deal=True)
    compact.reset(seed=3)
    assert compact.information_state_string("player_0") == env.information_state_string("player_0")
    with pytest.raises(ValueError, match="observation must be one of compact, history"):
        oh_hell_v0.raw_env(observation="full")


def test_gymnasium_env_checker_history_mode() -> None:
    env = OhHellGymEnv(opponents=("random",), preset="pagat", single_deal=True, observation="history")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*render modes.*spec")
        check_env(env)
    obs, _ = env.reset(seed=1)
    assert obs["observation"].shape == (HISTORY_SIZE,)
