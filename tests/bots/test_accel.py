"""The compiled greedy playout (ohhell.bots.accel, the optional ``fast``
extra) plays exactly as the pure-Python one, so a bot decides the same
whether or not the extra is installed."""

from __future__ import annotations

import random

import pytest

from ohhell import (
    PRESETS,
    Deck,
    Observation,
    Phase,
    apply,
    chance_action,
    new_game,
    observe,
    seats_to_ask,
)
from ohhell.bots import get_bot
from ohhell.bots import treesearch as treesearch_module
from ohhell.bots.accel import available, compiled_playout
from ohhell.bots.fastdeal import layout, layout_for, playout
from ohhell.bots.treesearch import CardSearch

needs_extra = pytest.mark.skipif(not available(), reason="the optional 'fast' extra (Numba) is not installed")


def _random_position(
    rng: random.Random, lay_suit: tuple[int, ...], suit_mask: tuple[int, ...]
) -> tuple[list[int], int, int, list[int], list[int], list[int], int, list[int]]:
    """Hands part-way through a trick at 3 to 7 players, with random bids,
    tricks taken, voids shown and undealt cards: states the search reaches
    and states it does not, to catch any branch that differs."""
    n = rng.randint(3, 7)
    k = rng.randint(1, min(10, 51 // n))
    pack = list(range(52))
    rng.shuffle(pack)
    hands = [sum(1 << c for c in pack[s * k : (s + 1) * k]) for s in range(n)]
    leader = rng.randrange(n)
    trick: list[int] = []
    for j in range(rng.randint(0, n - 1)):
        seat = (leader + j) % n
        hand = hands[seat]
        if trick:
            hand = hand & suit_mask[lay_suit[trick[0]]] or hand
        cards = [c for c in range(52) if hand >> c & 1]
        card = rng.choice(cards)
        hands[seat] &= ~(1 << card)
        trick.append(card)
    unseen = 0
    for h in hands:
        unseen |= h
    for c in pack[n * k : n * k + rng.randint(0, 52 - n * k)]:
        unseen |= 1 << c
    taken = [rng.randint(0, 2) for _ in range(n)]
    targets = [rng.randint(0, k) for _ in range(n)]
    voids = [rng.randrange(16) if rng.random() < 0.3 else 0 for _ in range(n)]
    return hands, rng.randint(-1, 3), leader, trick, taken, targets, unseen, voids


def _decisions(hand_size: int, seed: int, preset: str = "common", players: int = 4) -> list[Observation]:
    """Every decision of one hand (4 players, common rules unless told) among intermediate bots."""
    state = new_game(PRESETS[preset].replace(players=players, hand_sizes=(hand_size,), first_dealer=0))
    rng = random.Random(seed)
    bot = get_bot("intermediate")
    out = []
    while not state.is_over:
        if state.is_chance:
            apply(state, chance_action(state, rng))
            continue
        obs = observe(state, seats_to_ask(state)[0])
        out.append(obs)
        apply(state, bot.choose(obs, rng))
    return out


@needs_extra
def test_the_compiled_playout_takes_the_same_tricks_as_the_python_one() -> None:
    # R-TRICK, R-FOLLOW, R-TRUMP-TURNED: both read the same beat table and
    # follow the same policy, so every position gives the same tricks.
    lay = layout(PRESETS["common"])
    fast = compiled_playout(lay)
    assert fast is not None
    rng = random.Random(20261126)
    for _ in range(3000):
        hands, trump, leader, trick, taken, targets, unseen, voids = _random_position(
            rng, lay.suit, lay.suit_mask
        )
        expected = playout(
            lay, list(hands), trump, leader, list(trick), list(taken), targets, unseen, list(voids)
        )
        got = fast(list(hands), trump, leader, list(trick), list(taken), targets, unseen, list(voids))
        assert got == expected, (hands, trump, leader, trick, taken, targets, unseen, voids)


@needs_extra
def test_the_search_worlds_play_out_the_same_compiled_or_not() -> None:
    # Worlds the card search really deals, from a game's observations.
    lay = layout(PRESETS["common"])
    fast = compiled_playout(lay)
    assert fast is not None
    checked = 0
    for obs in _decisions(10, 5):
        if obs.phase is Phase.PLAY:
            search = CardSearch(obs, random.Random(checked), None, pool=20)
            for hands, trick, unseen in search.worlds:
                bids = [b or 0 for b in obs.bids]
                voids = search.voids0
                # Both change their lists in place: each gets its own copies.
                slow = playout(
                    lay,
                    list(hands),
                    search.trump,
                    obs.leader,
                    list(trick),
                    list(obs.taken),
                    bids,
                    unseen,
                    list(voids),
                )
                got = fast(
                    list(hands),
                    search.trump,
                    obs.leader,
                    list(trick),
                    list(obs.taken),
                    bids,
                    unseen,
                    list(voids),
                )
                assert got == slow
                checked += 1
    assert checked > 500


@needs_extra
def test_the_expert_decides_the_same_with_and_without_the_compiled_playout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    observations = [obs for obs in _decisions(6, 8) if len(obs.legal_actions) > 1]
    expert = get_bot("expert", worlds=10, simulations=80)
    compiled = [expert.choose(obs, random.Random(3)) for obs in observations]
    monkeypatch.setattr(treesearch_module, "compiled_playout", lambda lay: None)
    monkeypatch.setattr(treesearch_module, "compiled_tree", lambda *args: None)
    python = [expert.choose(obs, random.Random(3)) for obs in observations]
    assert compiled == python
    assert len(observations) > 10


@needs_extra
@pytest.mark.parametrize(
    ("preset", "players", "hand_size"),
    [("common", 4, 10), ("okenuff", 4, 6), ("classic-tens", 3, 8), ("river", 7, 5), ("pagat", 6, 4)],
)
def test_the_compiled_search_weighs_every_action_as_the_python_one(
    monkeypatch: pytest.MonkeyPatch, preset: str, players: int, hand_size: int
) -> None:
    # R-SC-TRICKS-BONUS, R-SETTLE (Okenuff pays differences), R-SC-TENS,
    # R-SC-RIVER, R-SC-PAGAT: the tree walked by compiled code plays the same
    # simulations as the Python walk, so every bid's and card's visits, mean
    # score and share of bids made come out equal to the last bit.
    expert = get_bot("expert", worlds=8, simulations=150)
    observations = [obs for obs in _decisions(hand_size, 17, preset, players) if len(obs.legal_actions) > 1]
    compiled = [expert.analyse(obs, random.Random(i)) for i, obs in enumerate(observations)]
    monkeypatch.setattr(treesearch_module, "compiled_tree", lambda *args: None)
    python = [expert.analyse(obs, random.Random(i)) for i, obs in enumerate(observations)]
    assert compiled == python
    assert any(obs.phase is Phase.BID for obs in observations) and any(
        obs.phase is Phase.PLAY for obs in observations
    )


@needs_extra
@pytest.mark.parametrize(("preset", "hand_size"), [("common", 10), ("okenuff", 6)])
def test_with_overtricks_the_compiled_search_weighs_every_action_as_the_python_one(
    monkeypatch: pytest.MonkeyPatch, preset: str, hand_size: int
) -> None:
    # R-SC-TRICKS-BONUS, R-SETTLE: the simulations in which the others play on
    # for a trick more are drawn once, for both walks, so they stay alike; and
    # the option changes what the search finds.
    expert = get_bot("expert", worlds=8, simulations=150, overtricks=0.5)
    plain = get_bot("expert", worlds=8, simulations=150, overtricks=0)
    observations = [obs for obs in _decisions(hand_size, 19, preset) if len(obs.legal_actions) > 1]
    compiled = [expert.analyse(obs, random.Random(i)) for i, obs in enumerate(observations)]
    without = [plain.analyse(obs, random.Random(i)) for i, obs in enumerate(observations)]
    monkeypatch.setattr(treesearch_module, "compiled_tree", lambda *args: None)
    python = [expert.analyse(obs, random.Random(i)) for i, obs in enumerate(observations)]
    assert compiled == python
    assert compiled != without


@needs_extra
def test_a_full_tree_stops_growing_alike_compiled_or_not(monkeypatch: pytest.MonkeyPatch) -> None:
    # Past its most nodes a tree is walked but not grown; both walks stop at the same node.
    monkeypatch.setattr(treesearch_module, "MAX_NODES", 12)
    obs = next(o for o in _decisions(8, 5) if o.phase is Phase.PLAY and len(o.legal_actions) > 2)
    searches = []
    for tree in (treesearch_module.compiled_tree, lambda *args: None):
        monkeypatch.setattr(treesearch_module, "compiled_tree", tree)
        search = CardSearch(obs, random.Random(4), None, pool=10)
        search.run(simulations=300)
        searches.append(search)
    compiled, python = searches
    assert compiled.arrays is not None and python.arrays is None
    assert compiled.nodes == python.nodes == 12
    assert compiled.ranked() == python.ranked()
    assert (compiled.lo, compiled.hi, compiled.simulations) == (python.lo, python.hi, python.simulations)


def test_a_search_against_the_clock_plays_a_batch_and_deals_worlds_as_it_goes() -> None:
    # Past the deadline already: one batch of 8 simulations, and the pool holds
    # a world for every three of them.
    obs = next(o for o in _decisions(8, 6) if o.phase is Phase.PLAY and len(o.legal_actions) > 1)
    search = CardSearch(obs, random.Random(1), None, pool=1)
    search.run(deadline=0.0)
    assert search.simulations == 8
    assert len(search.worlds) == 3
    assert sum(v.visits for v in search.ranked()) == 8


def test_a_pack_too_big_for_a_64_bit_mask_plays_in_python() -> None:
    # R-DECK-AU: an Australian pack for 5 has 65 cards; the search falls back.
    assert layout_for(Deck.AUSTRALIAN, 5).size > 63
    assert compiled_playout(layout_for(Deck.AUSTRALIAN, 5)) is None


@needs_extra
def test_a_search_with_its_first_card_fixed_prices_it_alike_compiled_or_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # ExpertBot.value_of (a post-game review's price of the card played)
    # fixes the root's card in both walks; every other root card stays untried.
    expert = get_bot("expert", simulations=120)
    observations = [o for o in _decisions(6, 23) if o.phase is Phase.PLAY and len(o.legal_actions) > 1]
    picks = [(o, o.legal_actions[-1]) for o in observations]
    compiled = [expert.value_of(o, a, random.Random(i)) for i, (o, a) in enumerate(picks)]
    monkeypatch.setattr(treesearch_module, "compiled_tree", lambda *args: None)
    python = [expert.value_of(o, a, random.Random(i)) for i, (o, a) in enumerate(picks)]
    assert compiled == python
    assert all(e.worlds == 120 for e in compiled) and len(picks) > 5
