"""The OpenSpiel game (ohhell.env.openspiel_game): OpenSpiel's own random
simulation checks on several rule sets and table sizes, agreement with a match
the core plays on its own (legal actions, chance, rewards, returns), hidden
cards and sealed bids never reaching a seat's strings or tensors, worlds
resampled from a seat's information state, and OpenSpiel's ISMCTS playing a
hand. Skipped when OpenSpiel (the ``openspiel`` extra) is not installed."""

from __future__ import annotations

import importlib.util
import random
import re
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from ohhell import (  # noqa: E402
    Bid,
    ChangeBid,
    Deal,
    DrawForDealer,
    Match,
    NameTrump,
    RulesError,
    Suit,
    sides,
)
from ohhell.encoding import action_id  # noqa: E402
from ohhell.env import openspiel_game  # noqa: E402
from ohhell.env.openspiel_game import CHANGE_BASE, KEEP, NUM_ACTIONS, game_rules, load_game  # noqa: E402
from ohhell.env.openspiel_game_table import Observer  # noqa: E402

HAVE_OPENSPIEL = importlib.util.find_spec("pyspiel") is not None
needs_openspiel = pytest.mark.skipif(
    not HAVE_OPENSPIEL, reason="OpenSpiel is not installed: python3 -m pip install -e '.[openspiel]'"
)

if HAVE_OPENSPIEL:
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

DOCS = Path(__file__).resolve().parents[2] / "docs" / "openspiel.md"

# (preset, players, hand_size, options): the rule sets the checks run on.
VARIANTS: dict[str, tuple[str, int, int, str]] = {
    "okenuff-hand": ("okenuff", 4, 3, ""),  # R-TRUMP-BIDDER, R-BID-CHANGE, R-SC-OKENUFF
    "tens-extra": ("classic-tens", 5, 0, "hand-sizes:2/1"),  # R-TIE-EXTRA, R-LEAD-DEALER, 5 players
    "common-3": ("common", 3, 4, ""),  # chosen first dealer, R-TIE-EXACT, 3 players
    "australian-bridge": ("river", 6, 0, "deck:australian hand-sizes:2/1 devils-bridge:yes"),  # R-DECK-AU
    "simultaneous-7": ("pagat", 7, 2, "bidding:simultaneous hook:no bid-changes:no"),  # R-BID-SIMULTANEOUS
    "teams": ("pagat", 4, 2, "teams:0+2/1+3"),  # R-TEAMS
    "all-dealt": ("pagat", 4, 13, "first-dealer:1"),  # R-TRUMP-NONE-ALL-DEALT: no card turned
}


def _game(name: str) -> Any:
    preset, players, size, options = VARIANTS[name]
    return load_game(preset, players, hand_size=size, options=options)


def _chance(state: Any, rng: random.Random) -> None:
    actions, probs = zip(*state.chance_outcomes(), strict=True)
    state.apply_action(rng.choices(actions, probs)[0])


# --- OpenSpiel's own checks ---


@needs_openspiel
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_openspiel_random_simulation_checks(name: str) -> None:
    """OpenSpiel's random simulation test: legal actions sorted and only for
    the player to act, chance probabilities summing to 1, unique action
    strings, clones equal, tensors finite and of the declared size, rewards
    adding up to returns within the utility bounds, length within the bound;
    on each variant's rules (named in VARIANTS)."""
    pyspiel.random_sim_test(_game(name), num_sims=2, serialize=False, verbose=False)


@needs_openspiel
def test_openspiel_random_simulation_of_a_whole_match_with_serialization() -> None:
    """The default game is the whole pagat match (R-SEQ-DOWNUP, R-DEALER-DRAW,
    R-BID-CHANGE); states also survive OpenSpiel's serialization."""
    game = pyspiel.load_game("python_ohhell")
    assert game.num_players() == 4 and game.num_distinct_actions() == NUM_ACTIONS
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@needs_openspiel
def test_game_strings_and_parameters() -> None:
    game = pyspiel.load_game("python_ohhell(preset=okenuff,players=4,hand_size=2,options=first-dealer:0)")
    assert pyspiel.load_game(str(game)).get_parameters() == game.get_parameters()
    assert game.rules == game_rules("okenuff", 4, 2, "first-dealer:0")
    assert game.rules.schedule == (2,) and game.rules.first_dealer == 0
    # R-PLAYERS: Okenuff's scoring is for 4 players; the core's refusal comes through.
    with pytest.raises(RulesError, match="exactly 4 players"):
        game_rules("okenuff", 5)
    with pytest.raises(ValueError, match="name:value"):
        game_rules("pagat", 4, options="hook")
    # R-TIE-EXTRA: one hand has no tie-break hands after it.
    assert game_rules("classic-tens", 4, hand_size=3).tie_break.value == "none"


def test_without_openspiel_the_module_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openspiel_game, "pyspiel", None)
    with pytest.raises(ImportError, match=r"pip install -e '\.\[openspiel\]'"):
        load_game("pagat", 3, hand_size=1)


# --- Agreement with a match the core plays ---


def _core_playout(name: str, seed: int) -> tuple[Match, list[tuple[int, int, list[int] | None]]]:
    """A match played on the core alone, at random, and the same match as
    OpenSpiel moves: (player, action, the legal ids the core gives the player)."""
    preset, players, size, options = VARIANTS[name]
    rules = game_rules(preset, players, size, options)
    rng = random.Random(seed)
    match = Match.new(rules, random.Random(seed), track_turns=False)
    moves: list[tuple[int, int, list[int] | None]] = []
    n = rules.players
    while not match.is_over:
        st = match.state
        if st.is_chance:
            dealer = st.dealer
            action = match.deal()
            if isinstance(action, DrawForDealer):  # R-DEALER-DRAW: the contenders in seat order
                moves += [(-1, c.index, None) for c in action.cards if c is not None]
            else:  # R-DEAL: one card at a time, clockwise from the dealer's left
                assert isinstance(action, Deal)
                for k in range(n * st.hand_size):
                    moves.append((-1, action.hands[(dealer + 1 + k) % n][k // n].index, None))
                if action.turned is not None:  # R-TRUMP-TURN
                    moves.append((-1, action.turned.index, None))
            continue
        changer = st.change_seat
        if changer is not None and match.can_change(changer):  # R-BID-CHANGE: asked first
            changes = [a for a in match.legal(changer) if isinstance(a, ChangeBid)]
            legal = [*sorted(CHANGE_BASE + a.bid for a in changes), KEEP]
            if rng.random() < 0.3:
                change = rng.choice(changes)
                match.submit(change)
                moves.append((changer, CHANGE_BASE + change.bid, legal))
            else:
                match.keep_bid(changer)
                moves.append((changer, KEEP, legal))
            continue
        seat = match.to_ask()[0]
        choices = [a for a in match.legal(seat) if not isinstance(a, ChangeBid)]
        move = rng.choice(choices)
        moves.append((seat, action_id(move), sorted({action_id(a) for a in choices})))
        match.submit(move)
    return match, moves


@needs_openspiel
@pytest.mark.parametrize(
    ("name", "seed"), [("okenuff-hand", 1), ("tens-extra", 10), ("australian-bridge", 3), ("teams", 4)]
)
def test_agrees_with_the_core_action_by_action(name: str, seed: int) -> None:
    """A match the core plays alone, replayed through the bridge: the same
    player asked, the same legal ids (R-HOOK, R-FOLLOW, R-DECK-AU,
    R-DEVILS-BRIDGE, R-TRUMP-BIDDER), every chance card possible, each hand's
    points as the reward (R-TEAMS: the side's sum) and the totals as returns.
    Seed 10 of tens-extra plays 5 tie-break hands after its 2 (R-TIE-EXTRA)."""
    match, moves = _core_playout(name, seed)
    rules = match.rules
    n = rules.players
    side = [next(s for s in sides(rules) if seat in s) for seat in range(n)]
    by_side = [
        [sum(points[s] for s in side[seat]) for seat in range(n)]
        for points in (r.scores for r in match.state.results)
    ]
    state = _game(name).new_initial_state()
    hands_done, summed = 0, [0.0] * n
    for player, action, legal in moves:
        assert state.current_player() == player
        if player < 0:
            assert dict(state.chance_outcomes()).get(action, 0) > 0
            state.apply_action(action)
            continue
        assert state.legal_actions() == legal
        state.apply_action(action)
        rewards = state.rewards()
        if len(state.table.state.results) > hands_done:
            assert rewards == [float(x) for x in by_side[hands_done]]
            hands_done += 1
        else:
            assert rewards == [0.0] * n
        summed = [a + b for a, b in zip(summed, rewards, strict=True)]
    assert state.is_terminal() and hands_done == len(by_side)
    if name == "tens-extra":
        assert hands_done == 7
    totals = match.state.totals
    assert state.returns() == [float(sum(totals[s] for s in side[seat])) for seat in range(n)]
    assert summed == state.returns()
    assert state.table.state.log == match.state.log


@needs_openspiel
def test_action_ids_are_the_environments_ids() -> None:
    """Ids 0..75 are encoding's (plays by card index, blind play, bids, trump
    names); the bridge adds bid changes and keeps (R-BID-CHANGE)."""
    state = load_game("okenuff", 4, hand_size=1, options="first-dealer:0").new_initial_state()
    rng = random.Random(5)
    while state.is_chance_node():
        _chance(state, rng)
    assert state.current_player() == 1  # R-BID-ORDER: left of the dealer
    assert state.legal_actions() == [action_id(Bid(1, b)) for b in (0, 1)]
    state.apply_action(action_id(Bid(1, 1)))
    assert state.current_player() == 1  # asked whether it keeps its bid
    assert state.legal_actions() == [CHANGE_BASE + 0, KEEP]
    assert state.action_to_string(1, KEEP) == "seat 1: keep the bid"
    state.apply_action(CHANGE_BASE + 0)
    assert state.table.state.bids[1] == 0
    state.apply_action(KEEP)
    assert state.current_player() == 2
    for seat in (2, 3):
        state.apply_action(action_id(Bid(seat, 0)))
        state.apply_action(KEEP)
    # R-HOOK: the dealer may not make the bids total the 1 trick.
    assert state.legal_actions() == [action_id(Bid(0, 0))]
    state.apply_action(action_id(Bid(0, 0)))
    # R-TRUMP-BIDDER: all bid 0, so the first in bidding order names trump.
    assert state.current_player() == 1
    assert state.legal_actions() == [action_id(NameTrump(1, s)) for s in (*Suit, None)]


# --- What a seat may know ---


def _views(state: Any, seat: int) -> tuple[str, list[float], str, list[float]]:
    return (
        state.information_state_string(seat),
        state.information_state_tensor(seat),
        state.observation_string(seat),
        state.observation_tensor(seat),
    )


def _hidden_pair(name: str, seed: int, seat: int) -> tuple[Any, Any, set[int]] | None:
    """Two states at the first bid of a hand that differ only in two cards
    ``seat`` cannot see (in other hands or the undealt stock), and those cards."""
    game = _game(name)
    rng = random.Random(seed)
    state = game.new_initial_state()
    while state.is_chance_node():
        _chance(state, rng)
    core = state.table.state
    history = state.history()
    start = state.table.deal_at
    dealt = history[start:]
    n = core.players
    owners = {k: (core.dealer + 1 + k) % n for k in range(n * core.hand_size)}  # R-DEAL
    seen = [s for s in range(n) if state.table.match.observe(seat).hands[s] is not None]
    hidden = [k for k, owner in owners.items() if owner not in seen]
    undealt = sorted({c.index for c in core.rules.pack()} - set(dealt))
    if not hidden:
        return None
    k = rng.choice(hidden)
    others = [j for j in hidden if owners[j] != owners[k] and dealt[j] != dealt[k]]
    swapped = list(dealt)
    if others and rng.random() < 0.5:
        j = rng.choice(others)
        swapped[k], swapped[j] = swapped[j], swapped[k]
    elif undealt:
        swapped[k] = rng.choice(undealt)
    else:
        return None
    other = game.new_initial_state()
    for action in [*history[:start], *swapped]:
        other.apply_action(action)
    changed = {dealt[k], swapped[k]}
    return state, other, changed


def _shown(state: Any, cards: set[int]) -> bool:
    """Has one of ``cards`` (by index) been played face up this hand?"""
    core = state.table.state
    played = [c for t in core.tricks for c in t.cards] + list(core.trick)
    return any(c.index in cards for c in played)


def _same_views_while_hidden(name: str, seeds: range) -> int:
    """Play pairs of states that differ only in cards the viewing seat cannot
    see, asserting its views stay equal while those cards are hidden; returns
    how many positions were compared."""
    checked = 0
    for seed in seeds:
        seat = seed % VARIANTS[name][1]
        pair = _hidden_pair(name, seed, seat)
        if pair is None:
            continue
        a, b, swapped = pair
        assert str(a) != str(b)  # the states do differ
        rng = random.Random(seed)
        while not a.is_terminal() and not (_shown(a, swapped) or _shown(b, swapped)):
            assert a.current_player() == b.current_player()
            if a.is_chance_node():
                action = rng.choice(sorted(set(dict(a.chance_outcomes())) & set(dict(b.chance_outcomes()))))
            else:
                assert _views(a, seat) == _views(b, seat)
                checked += 1
                # Ids 0..51 play the card with that index: the swapped cards stay in hand.
                choices = sorted((set(a.legal_actions()) & set(b.legal_actions())) - swapped)
                if not choices:
                    break
                action = rng.choice(choices)
            a.apply_action(action)
            b.apply_action(action)
    return checked


@needs_openspiel
@pytest.mark.parametrize(
    "name", ["okenuff-hand", "common-3", "australian-bridge", "teams", "simultaneous-7", "all-dealt"]
)
def test_hidden_cards_never_reach_a_seat(name: str) -> None:
    """Two states that differ only in cards a seat cannot see (another seat's
    hand, the undealt stock; under R-DEVILS-BRIDGE its own card) give that seat
    the same information state and observation, strings and tensors, at every
    step while those cards stay hidden."""
    assert _same_views_while_hidden(name, range(8)) > 10


@needs_openspiel
@pytest.mark.parametrize("piece", ["string", "tensor"])
def test_the_hidden_card_check_finds_a_planted_leak(monkeypatch: pytest.MonkeyPatch, piece: str) -> None:
    """The control: an observer that shows every hand (in its string, or in
    one tensor entry) fails the check above."""
    observer = Observer
    if piece == "string":
        shown = observer.string_from
        monkeypatch.setattr(
            observer, "string_from", lambda o, st, p: shown(o, st, p) + str(st.table.state.hands)
        )
    else:
        fill = observer.set_from

        def leaky(o: Any, st: Any, p: int) -> None:
            fill(o, st, p)
            o.tensor[0] = sum(s * c.index for s, h in enumerate(st.table.state.hands, 1) for c in h)

        monkeypatch.setattr(Observer, "set_from", leaky)
    with pytest.raises(AssertionError):
        _same_views_while_hidden("okenuff-hand", range(4))


@needs_openspiel
def test_sealed_bids_stay_sealed() -> None:
    """R-BID-SIMULTANEOUS: seats bid in seat order, and until the last bid is
    in, another seat's bid changes nothing a seat may see; then all show."""
    game = _game("simultaneous-7")
    rng = random.Random(9)
    a = game.new_initial_state()
    while a.is_chance_node():
        _chance(a, rng)
    b = a.clone()
    first = a.current_player()
    a.apply_action(action_id(Bid(first, 0)))
    b.apply_action(action_id(Bid(first, 2)))
    for _ in range(game.num_players() - 2):
        seat = a.current_player()
        for viewer in range(game.num_players()):
            if viewer != first:
                assert _views(a, viewer) == _views(b, viewer)
        assert _views(a, first) != _views(b, first)
        a.apply_action(action_id(Bid(seat, 1)))
        b.apply_action(action_id(Bid(seat, 1)))
    last = a.current_player()
    a.apply_action(action_id(Bid(last, 1)))
    b.apply_action(action_id(Bid(last, 1)))
    assert a.information_state_string(last) != b.information_state_string(last)


@needs_openspiel
def test_bid_changes_are_recalled() -> None:
    """R-BID-CHANGE: "bid 2, then change to 1" and "bid 1" end with the same
    bids, but each seat's information state tells them apart (perfect recall)."""
    game = load_game("pagat", 3, hand_size=2, options="first-dealer:0")
    rng = random.Random(2)
    a = game.new_initial_state()
    while a.is_chance_node():
        _chance(a, rng)
    b = a.clone()
    a.apply_action(action_id(Bid(1, 2)))
    a.apply_action(CHANGE_BASE + 1)
    a.apply_action(KEEP)
    b.apply_action(action_id(Bid(1, 1)))
    b.apply_action(KEEP)
    assert a.table.state.bids == b.table.state.bids
    for seat in range(3):
        assert a.information_state_string(seat) != b.information_state_string(seat)
        assert a.information_state_tensor(seat) != b.information_state_tensor(seat)
    assert "bidding 1:2 1:>1 1:keep" in a.information_state_string(0)


@needs_openspiel
@pytest.mark.parametrize("name", ["okenuff-hand", "australian-bridge", "simultaneous-7", "teams"])
def test_resampled_worlds_match_the_information_state(name: str) -> None:
    """OpenSpiel's resampling check, in Python: a world resampled for a seat
    gives it the same information state (string and tensor) and the same
    player to act, and its other seats' hidden cards vary (voids shown under
    R-FOLLOW kept; R-BID-SIMULTANEOUS: sealed bids drawn again)."""
    game = _game(name)
    rng = random.Random(11)
    state = game.new_initial_state()
    varied = 0
    while not state.is_terminal():
        if state.is_chance_node():
            _chance(state, rng)
            continue
        for seat in range(game.num_players()):
            world = state.resample_from_infostate(seat, rng)
            assert world.information_state_string(seat) == state.information_state_string(seat)
            assert world.information_state_tensor(seat) == state.information_state_tensor(seat)
            assert world.current_player() == state.current_player()
            varied += str(world) != str(state)
        state.apply_action(rng.choice(state.legal_actions()))
    assert varied > 0


# --- An algorithm on it ---


@needs_openspiel
def test_ismcts_plays_a_whole_hand() -> None:
    """OpenSpiel's ISMCTS with random rollouts plays every seat of a 3-card
    hand: every move legal, worlds drawn by ``resample_from_infostate``, and
    the returns are the core's scores (R-SC-PAGAT)."""
    game = load_game("pagat", 3, hand_size=3, options="first-dealer:0")
    rng = random.Random(7)
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(
        game, evaluator, uct_c=2.0, max_simulations=30, random_state=np.random.RandomState(1)
    )
    worlds = []

    def resample(state: Any, player: int) -> Any:
        worlds.append(player)
        return state.resample_from_infostate(player, rng)

    bot.set_resampler(resample)
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            _chance(state, rng)
            continue
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        moves += 1
    assert moves >= 3 + 3 * 3 and len(worlds) >= 30
    result = state.table.state.results[-1]
    assert state.returns() == [float(s) for s in result.scores]


@needs_openspiel
def test_the_documented_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    """Every Python example of docs/openspiel.md runs as written: loading, the
    random simulation test, ISMCTS, Monte Carlo CFR, the RL environment."""
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(), re.S)
    assert len(blocks) >= 5
    for block in blocks:
        exec(compile(block, str(DOCS), "exec"), {})
    assert "95 8514 1162" in capsys.readouterr().out
