"""The expert's card search (ohhell.bots.treesearch): legal, reproducible,
identical cards as one action, and right where a position has one answer."""

from __future__ import annotations

import math
import random
from collections import Counter

from ohhell import (
    PRESETS,
    Bid,
    Deal,
    Deck,
    GameState,
    Phase,
    Play,
    apply,
    chance_action,
    make_rules,
    new_game,
    observe,
    seats_to_ask,
)
from ohhell.bots import get_bot
from ohhell.bots.fastdeal import layout
from ohhell.bots.treesearch import CardSearch
from ohhell.cards import Card, parse_cards
from worlds import SAMPLES, chi_square_limit, consistent_deals, positions


def _play_until_cards(preset: str, options: dict[str, str], seed: int) -> GameState:
    """A state in the play phase, some tricks in, reached by intermediate bots."""
    rules = make_rules(preset, options)
    state = new_game(rules)
    rng = random.Random(seed)
    bot = get_bot("intermediate")
    played = 0
    while not state.is_over:
        if state.is_chance:
            apply(state, chance_action(state, rng))
            continue
        seat = seats_to_ask(state)[0]
        obs = observe(state, seat)
        if obs.phase is Phase.PLAY:
            played += 1
            if played >= 6 and len(obs.legal_actions) > 1:
                return state
        apply(state, bot.choose(obs, rng))
    raise AssertionError("no decision with a choice was reached")


def test_the_search_is_reproducible_from_its_seed_and_plays_a_legal_card() -> None:
    state = _play_until_cards("common", {"players": "4", "hand-sizes": "10"}, seed=3)
    obs = observe(state, seats_to_ask(state)[0])
    bot = get_bot("expert", simulations=120, worlds=10)
    first = bot.choose(obs, random.Random(9))
    assert first in obs.legal_actions
    assert [bot.choose(obs, random.Random(9)) for _ in range(3)] == [first] * 3


def test_identical_cards_of_an_australian_pack_are_one_action() -> None:
    # R-DECK-AU: two copies of a card are one choice; the search must not count
    # the twin as a second action (it would split the twin's visits in two).
    rules = PRESETS["pagat"].replace(
        players=5, deck=Deck.AUSTRALIAN, hand_sizes=(3,), first_dealer=0, bid_changes=False
    )
    state = new_game(rules)
    apply(
        state,
        Deal(
            (
                tuple(parse_cards("2C 3D 4H")),
                tuple(parse_cards("AS 2S 2S")),  # seat 1 holds both 2 of spades
                tuple(parse_cards("5D 6D 7D")),
                tuple(parse_cards("8C 9C 10C")),
                tuple(parse_cards("5H 6H 7H")),
            ),
            Card.parse("JS"),
        ),
    )
    for seat, bid in ((1, 0), (2, 0), (3, 0), (4, 0), (0, 1)):
        apply(state, Bid(seat, bid))
    obs = observe(state, 1)
    search = CardSearch(obs, random.Random(1), None, pool=8)
    search.run(simulations=60)
    lay = layout(rules)
    keys = set(search.root)
    assert keys == {lay.slots_of[Card.parse("AS")][0], lay.slots_of[Card.parse("2S")][0]}
    assert sum(edge[0] for edge in search.root.values()) == 60
    ranked = search.ranked()
    assert {v.card for v in ranked} == {Card.parse("AS"), Card.parse("2S")}


def test_a_seat_that_bid_zero_ducks_rather_than_takes_the_trick() -> None:
    # Seat 1 bid 0; hearts are led and it holds the ace and the two: only the two
    # keeps it at zero whatever the others hold.
    rules = PRESETS["pagat"].replace(hand_sizes=(2,), first_dealer=3, bid_changes=False)
    state = new_game(rules)
    apply(
        state,
        Deal(tuple(tuple(parse_cards(h)) for h in ["KH 3C", "AH 2H", "5D 6D", "7C 8C"]), Card.parse("9S")),
    )
    for seat, bid in ((0, 1), (1, 0), (2, 0), (3, 0)):
        apply(state, Bid(seat, bid))
    apply(state, Play(0, Card.parse("KH")))
    obs = observe(state, 1)
    bot = get_bot("expert", simulations=50, worlds=5)
    assert bot.choose(obs, random.Random(2)) == Play(1, Card.parse("2H"))


def test_the_card_search_deals_every_consistent_world_equally_often() -> None:
    # The search's own sampler (shuffled slots with rejection, the exact
    # sampler behind it) must be as uniform as sample_hands: the same small
    # positions, enumerated exactly, against a chi-square limit.
    for number, obs in enumerate(positions()):
        allowed = consistent_deals(obs)
        hidden = [s for s in range(obs.players) if obs.hands[s] is None]
        search = CardSearch(obs, random.Random(f"card-search:{number}"), None, pool=1)
        lay = search.lay
        seen: Counter[tuple[tuple[str, ...], ...]] = Counter()
        for _ in range(SAMPLES):
            masks, _, _ = search.world()
            assert lay.cards_of(masks[0]) == sorted(obs.hands[0] or (), key=lambda c: (c.suit, c.rank))
            seen[tuple(tuple(sorted(str(c) for c in lay.cards_of(masks[s]))) for s in hidden)] += 1
        assert set(seen) <= set(allowed), "a sampled deal breaks a void or a count"
        expected = SAMPLES / len(allowed)
        chi2 = sum((seen[d] - expected) ** 2 / expected for d in allowed)
        assert chi2 < chi_square_limit(len(allowed) - 1), (number, len(allowed), chi2)


# --- Bids by the search (``BidSearch``) ---


def _bid_position(hands: list[str], turned: str, bids: tuple[int, ...] = ()) -> GameState:
    rules = PRESETS["pagat"].replace(hand_sizes=(len(hands[0].split()),), first_dealer=0)
    state = new_game(rules)
    apply(state, Deal(tuple(tuple(parse_cards(h)) for h in hands), Card.parse(turned)))
    for k, bid in enumerate(bids):
        apply(state, Bid((1 + k) % 4, bid))
    return state


def test_the_bid_search_bids_what_a_sure_hand_takes() -> None:
    # R-BID-RANGE: three top trumps in a 3-card hand take every trick; three
    # low cards of a suit led by nobody's need take none.
    strong = _bid_position(["2C 3C 4C", "AS KS QS", "2D 3D 4D", "2H 3H 4H"], "5S")
    weak = _bid_position(["AS KS QS", "2C 3C 4C", "2D 3D 4D", "AH KH QH"], "5S")
    bot = get_bot("expert", worlds=20, bid_search=1)
    assert bot.choose(observe(strong, 1), random.Random(1)) == Bid(1, 3)
    assert bot.choose(observe(weak, 1), random.Random(1)) == Bid(1, 0)


def test_the_bid_search_offers_only_bids_the_hook_allows() -> None:
    # R-HOOK: after 1, 1 and 0 the dealer of a 3-card hand may not bid 1, so
    # the search ranks every other bid and never that one, even holding one
    # sure trick.
    state = _bid_position(["AS 2C 3C", "KH QH 2H", "KD QD 2D", "4C 5C 6C"], "5S", (1, 1, 0))
    obs = observe(state, 0)
    assert Bid(0, 1) not in obs.legal_actions
    ranked = get_bot("expert", bid_simulations=60, bid_search=1).analyse(obs, random.Random(2))
    assert {e.action for e in ranked} == set(obs.legal_actions)
    assert all(e.made is not None and 0.0 <= e.made <= 1.0 for e in ranked)
    assert sum(e.worlds for e in ranked) == 60  # the search's simulations, not flat worlds


def test_under_a_time_budget_the_bid_search_plays_every_bid() -> None:
    # However short the think, a hint can price every bid: none is left unvisited.
    hands = [
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC",
        "2D 3D 4D 5D 6D 7D 8D 9D TD JD",
        "2H 3H 4H 5H 6H 7H 8H 9H TH JH",
        "2S 3S 4S 5S 6S 7S 8S 9S TS JS",
    ]
    state = _bid_position(hands, "AS")
    ranked = get_bot("expert", seconds=0.0, bid_search=1).analyse(observe(state, 1), random.Random(3))
    assert len(ranked) == 11 and all(e.worlds >= 1 for e in ranked)  # more bids than a first batch
    assert all(math.isfinite(e.expected) for e in ranked)


def test_with_trump_still_to_name_the_bids_stay_flat() -> None:
    # R-TRUMP-BIDDER: the trump is unknown while bids are made, so the bid
    # search (which plays the hand in a known trump) is not used: every bid is
    # valued over the same worlds.
    rules = PRESETS["okenuff"].replace(hand_sizes=(3,), first_dealer=0)
    state = new_game(rules)
    apply(
        state,
        Deal(tuple(tuple(parse_cards(h)) for h in ["AS KS QS", "2C 3C 4C", "2D 3D 4D", "2H 3H 4H"]), None),
    )
    obs = observe(state, 1)
    assert not obs.trump_decided
    ranked = get_bot("expert", worlds=12, bid_search=1).analyse(obs, random.Random(4))
    assert {e.action for e in ranked} == set(obs.legal_actions)
    assert all(e.worlds <= 12 for e in ranked) and max(e.worlds for e in ranked) == 12


def test_the_bid_search_is_reproducible_from_its_seed() -> None:
    state = _bid_position(["2C 3C 4C KD", "AS 9H QS 5D", "2D 3D 4D 6H", "2H 3H 4H 9C"], "5S")
    bot = get_bot("expert", bid_simulations=200, worlds=10, bid_search=1)
    first = bot.analyse(observe(state, 1), random.Random(5))
    again = bot.analyse(observe(state, 1), random.Random(5))
    assert first == again
    assert sum(e.worlds for e in first) == 200  # every simulation went to one bid


def test_with_overtricks_the_others_play_on_for_one_more_trick_in_that_share_of_simulations() -> None:
    # R-SC-TRICKS-BONUS: the finish of a simulation chases each seat's target;
    # with ``overtricks`` every other seat's target is its bid plus one in about
    # that share of the simulations (our own stays our bid), while every
    # score is still read at the bids made.
    state = _play_until_cards("common", {"players": "4", "hand-sizes": "10"}, seed=3)
    obs = observe(state, seats_to_ask(state)[0])
    me = obs.seat
    bids = [b if b is not None else 0 for b in obs.bids]
    raised = tuple(b if s == me else b + 1 for s, b in enumerate(bids))
    for share, lowest, highest in ((0.0, 0, 0), (0.5, 0.4, 0.6), (1.0, 1, 1)):
        search = CardSearch(obs, random.Random(7), None, pool=20, overtricks=share)
        search.arrays = None  # the Python walk, whose finish is watched here
        seen: list[tuple[int, ...]] = []
        finish = search.finish

        def watched(*args: object, finish: object = finish, seen: list[tuple[int, ...]] = seen) -> list[int]:
            seen.append(tuple(args[5]))  # type: ignore[arg-type]
            return finish(*args)  # type: ignore[operator, no-any-return]

        search.finish = watched
        search.run(simulations=400)
        assert set(seen) <= {tuple(bids), raised}
        assert lowest <= seen.count(raised) / len(seen) <= highest
        assert search.bidsets == [tuple(bids)]  # the scores: the bids made
