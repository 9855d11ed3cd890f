"""The expert and its hints: legal, sensible in positions with a clear answer,
and settling-aware under Okenuff (R-OKENUFF-TABLE)."""

from __future__ import annotations

import math
import random

import pytest

from ohhell import PRESETS, Bid, Deal, NameTrump, Observation, Play, apply, new_game, observe, parse_cards
from ohhell.bots import get_bot
from ohhell.bots.expert import ExpertBot
from ohhell.bots.hint import cost_of, hint
from ohhell.cards import Card, Suit
from ohhell.rules import Rules


def _deal(rules: Rules, hands: list[str], turned: str | None) -> Deal:
    return Deal(tuple(tuple(parse_cards(h)) for h in hands), Card.parse(turned) if turned else None)


def test_ace_of_trump_in_a_one_card_hand_bids_one() -> None:
    # R-BID-RANGE: the ace of trump always wins a 1-card hand; bidding 1 is exact.
    rules = PRESETS["pagat"].replace(hand_sizes=(1,), first_dealer=0)
    state = new_game(rules)
    apply(state, _deal(rules, ["2C", "AS", "3D", "4H"], "5S"))
    bot = get_bot("expert", worlds=30)
    assert bot.choose(observe(state, 1), random.Random(1)) == Bid(1, 1)


def test_the_hook_forces_the_dealer_holding_the_ace_of_trump_to_zero() -> None:
    # R-HOOK: with 0, 0, 0 bid, the dealer may not bid 1; its only bid is 0.
    rules = PRESETS["pagat"].replace(hand_sizes=(1,), first_dealer=0)
    state = new_game(rules)
    apply(state, _deal(rules, ["AS", "2C", "3D", "4H"], "5S"))
    for seat in (1, 2, 3):
        apply(state, Bid(seat, 0))
    assert get_bot("expert", worlds=5).choose(observe(state, 0), random.Random(1)) == Bid(0, 0)


def test_a_made_zero_ducks_under_the_winning_card() -> None:
    # Seat 1 bid 0 and must follow hearts: the 2 keeps it at zero, the ace would not.
    rules = PRESETS["pagat"].replace(hand_sizes=(2,), first_dealer=0, bid_changes=False)
    state = new_game(rules)
    apply(state, _deal(rules, ["KH 3C", "AH 2H", "5D 6D", "7C 8C"], "9S"))
    for seat, bid in ((1, 0), (2, 0), (3, 1), (0, 0)):
        apply(state, Bid(seat, bid))
    apply(state, Play(1, Card.parse("2H")))  # seat 1 leads; a trick later it must follow
    apply(state, Play(2, Card.parse("5D")))
    apply(state, Play(3, Card.parse("7C")))
    apply(state, Play(0, Card.parse("KH")))  # seat 0 wins and leads 3C
    apply(state, Play(0, Card.parse("3C")))
    obs = observe(state, 1)
    assert obs.legal_actions == (Play(1, Card.parse("AH")),)  # forced: nothing to choose
    found = hint(obs, random.Random(2), seconds=0.05)
    assert found is not None and found.action == Play(1, Card.parse("AH"))


def test_the_hint_ranks_every_legal_action_and_prices_a_mistake() -> None:
    rules = PRESETS["pagat"].replace(hand_sizes=(1,), first_dealer=0)
    state = new_game(rules)
    apply(state, _deal(rules, ["2C", "AS", "3D", "4H"], "5S"))
    obs = observe(state, 1)
    found = hint(obs, random.Random(3), seconds=0.05)
    assert found is not None
    assert {e.action for e in found.ranked} == set(obs.legal_actions)
    assert found.action == Bid(1, 1) and found.expected == 11.0  # the ace always wins: 10 + 1
    assert cost_of(obs, Bid(1, 0), random.Random(3), seconds=0.05) == 11.0  # a sure miss scores 0
    assert hint(observe(state, 2), seconds=0.05) is None  # not seat 2's turn


def test_under_okenuff_the_expert_values_outcomes_as_settlement_does() -> None:
    # R-SETTLE, R-OKENUFF-TABLE: players settle on differences, so the expert
    # values a hand by its score minus the others' mean; that is what makes
    # setting oneself to set a high bidder pay exactly where the seed's table
    # says (the table itself is checked in test_scoring). A 1-card hand where
    # seat 1 plays last makes the outcome certain.
    rules = PRESETS["okenuff"].replace(hand_sizes=(1,), first_dealer=1, bid_changes=False)
    state = new_game(rules)
    apply(state, _deal(rules, ["3D", "5C", "AS", "2D"], None))
    for seat, bid in ((2, 1), (3, 0), (0, 0), (1, 1)):  # R-HOOK: the dealer may not bid 0
        apply(state, Bid(seat, bid))
    apply(state, NameTrump(2, Suit.SPADES))
    for seat, card in ((2, "AS"), (3, "2D"), (0, "3D")):
        apply(state, Play(seat, Card.parse(card)))
    found = hint(observe(state, 1), random.Random(4), seconds=0.02)
    assert found is not None and found.action == Play(1, Card.parse("5C"))
    # Seat 1 bid 1, takes 0: -5. Seat 2 makes 1: 6; seats 3 and 0 make 0: 5 each.
    assert found.expected == pytest.approx(-5 - (6 + 5 + 5) / 3)


def test_under_other_scoring_the_expert_values_its_own_score() -> None:
    rules = PRESETS["pagat"].replace(hand_sizes=(1,), first_dealer=1, bid_changes=False)
    state = new_game(rules)
    apply(state, _deal(rules, ["3D", "5C", "AS", "2D"], "7S"))
    for seat, bid in ((2, 1), (3, 0), (0, 0), (1, 1)):
        apply(state, Bid(seat, bid))
    for seat, card in ((2, "AS"), (3, "2D"), (0, "3D")):
        apply(state, Play(seat, Card.parse(card)))
    found = hint(observe(state, 1), random.Random(4), seconds=0.02)
    assert found is not None and found.expected == 0  # R-SC-PAGAT: a miss scores 0


def test_the_guessed_bid_of_the_last_bidder_obeys_the_hook() -> None:
    # R-HOOK: when the expert values its bid, the dealer (still to bid) is
    # guessed a bid it may make: never the one that totals the tricks.
    from ohhell.bots.expert import guess_bids, unhook
    from ohhell.bots.fastdeal import layout, suit_index

    rules = PRESETS["pagat"].replace(hand_sizes=(3,), first_dealer=0)
    assert rules.hook
    state = new_game(rules)
    apply(state, _deal(rules, ["AS KS QS", "2C 3C 4C", "2D 3D 4D", "2H 3H 4H"], "5S"))
    apply(state, Bid(1, 0))
    apply(state, Bid(2, 0))
    obs = observe(state, 3)
    lay = layout(rules)
    masks = lay.masks([parse_cards(h) for h in ("AS KS QS", "2C 3C 4C", "2D 3D 4D", "2H 3H 4H")])
    bids, ests = guess_bids(obs, lay, masks, suit_index(obs.trump))
    assert bids[1:3] == [0, 0]  # the bids made stand
    assert bids[0] == 3  # three top trumps: the dealer's hand is worth 3
    for mine in range(4):
        trial = list(bids)
        trial[3] = mine
        unhook(obs, trial, ests)
        assert sum(trial) != 3, (mine, trial)
        assert trial[0] == (2 if mine == 0 else 3)  # moved only when hooked, and down
    # Once the last bidder has bid, its bid is never moved.
    apply(state, Bid(3, 0))
    apply(state, Bid(0, 2))
    trial = [3, 0, 0, 0]  # a world's guess that would be hooked
    unhook(observe(state, 1), trial, ests)
    assert trial == [3, 0, 0, 0]


def test_a_normalised_bid_model_gives_each_world_a_probability_over_the_bids() -> None:
    # R-BID-RANGE: with bid_normalize=1 a world's weight is the chance that the
    # bidder's hand in it makes each legal bid, so over the bids 0..hand size
    # the weights of one world add up to one (with trust 1, no constant part).
    import dataclasses

    from ohhell.bots.expert import ExpertBot, estimate_tricks, guess_bids
    from ohhell.bots.fastdeal import layout, suit_index

    rules = PRESETS["pagat"].replace(hand_sizes=(3,), first_dealer=0)
    hands = ["AS KS 2C", "3C 4C 5C", "2D 3D 4D", "2H 3H 4H"]
    state = new_game(rules)
    apply(state, _deal(rules, hands, "5S"))
    apply(state, Bid(1, 1))
    obs = observe(state, 2)
    lay = layout(rules)
    masks = lay.masks([parse_cards(h) for h in hands])
    expert = ExpertBot(bid_scale=1.2, bid_shift=-0.4, bid_spread=0.7, bid_trust=1.0, bid_normalize=True)
    weights = []
    for bid in range(4):
        likelihood = expert._bid_likelihood(dataclasses.replace(obs, bids=(None, bid, None, None)), lay)
        assert likelihood is not None
        weights.append(likelihood(masks))
    assert sum(weights) == pytest.approx(1.0)
    # The bid expected of seat 1's hand (1.2 x its estimate - 0.4) is the likeliest.
    expected = 1.2 * estimate_tricks(lay, masks[1], suit_index(obs.trump), 4) - 0.4
    assert max(range(4), key=weights.__getitem__) == round(expected)
    # guess_bids guesses the bids still to come by the same form of expectation
    # (the expert passes it guess_scale and guess_shift).
    guessed, _ = guess_bids(obs, lay, masks, suit_index(obs.trump), 1.2, -0.4)
    dealer = 1.2 * estimate_tricks(lay, masks[0], suit_index(obs.trump), 4) - 0.4
    assert guessed[0] == max(0, min(3, round(dealer)))


def test_a_fixed_simulation_budget_fixes_the_flat_decisions_too() -> None:
    # R-TRUMP-BIDDER: under Okenuff trump is named by the highest bidder, so the
    # bids are made, and trump named, by flat playouts rather than the tree. A
    # budget of simulations (no time) fixes how many worlds those see too, so
    # they are as reproducible from the seed as the searched decisions.
    rules = PRESETS["okenuff"].replace(hand_sizes=(5,), first_dealer=0, bid_changes=False)
    state = new_game(rules)
    apply(state, _deal(rules, ["AS KS QS 2H 3D", "5C 6C 7C 8C 9C", "2S 3S 4S 5S 6S", "2D 4D 6D 8D TD"], None))
    bot = get_bot("expert", simulations=200)  # and the default seconds=1, which must not rule
    bids = [bot.analyse(observe(state, 1), random.Random(s)) for s in (5, 5)]
    assert [(e.action, e.expected) for e in bids[0]] == [(e.action, e.expected) for e in bids[1]]
    # A world for every four simulations (candidates clearly worse are dropped sooner).
    assert max(e.worlds for e in bids[0]) == 50
    for seat, bid in ((1, 1), (2, 0), (3, 1), (0, 2)):
        apply(state, Bid(seat, bid))
    naming = bot.analyse(observe(state, 0), random.Random(6))
    assert {type(e.action) for e in naming} == {NameTrump}
    assert max(e.worlds for e in naming) == 50


def test_before_trump_is_named_a_later_bidder_is_guessed_with_its_own_suit_as_trump() -> None:
    # R-TRUMP-BIDDER: trump is named by the highest bidder after the bids, so a
    # seat still to bid cannot know it; it is guessed as bidding for the suit it
    # would name itself (its longest), not the searching seat's longest suit.
    from ohhell.bots.expert import guess_bids, trick_estimator
    from ohhell.bots.fastdeal import layout

    rules = PRESETS["okenuff"].replace(hand_sizes=(3,), first_dealer=0, bid_changes=False)
    hands = ["2C 3C 4C", "AS KS QS", "2D 3D 4D", "2H 3H 4H"]
    state = new_game(rules)
    apply(state, _deal(rules, hands, None))
    obs = observe(state, 1)  # the first to bid: everyone else is still to bid
    assert not obs.trump_decided
    lay = layout(rules)
    masks = lay.masks([parse_cards(h) for h in hands])
    bids, ests = guess_bids(obs, lay, masks, None)
    spades, clubs, diamonds, hearts = 3, 0, 1, 2
    assert lay.suit[lay.slots_of[Card.parse("AS")][0]] == spades
    assert lay.suit[lay.slots_of[Card.parse("2C")][0]] == clubs
    # Seat 0's three low clubs as trump are worth more than as a side suit
    # under the searching seat's spades.
    own = trick_estimator(lay, clubs, 4)(masks[0])
    assert ests[0] == own and own > trick_estimator(lay, spades, 4)(masks[0])
    assert ests[2] == trick_estimator(lay, diamonds, 4)(masks[2])
    assert ests[3] == trick_estimator(lay, hearts, 4)(masks[3])
    assert bids == [min(3, round(e)) for e in ests]  # a guess is a bid a 3-card hand can make
    # Once trump is known every seat is guessed under it.
    named, _ = guess_bids(obs, lay, masks, spades)
    assert named[0] == round(trick_estimator(lay, spades, 4)(masks[0]))


def test_bids_made_before_trump_was_named_are_read_for_the_bidders_own_suit() -> None:
    # R-TRUMP-BIDDER: under Okenuff the bids come before trump is named, so once
    # it is named the worlds are still weighed by how each hand fits its bid
    # for the suit that bidder would have named itself (its longest), not for
    # the trump named later.
    from ohhell.bots.expert import ExpertBot, trick_estimator
    from ohhell.bots.fastdeal import layout

    rules = PRESETS["okenuff"].replace(hand_sizes=(3,), first_dealer=0, bid_changes=False)
    hands = ["2C 3C 4C", "AS KS QS", "2D 3D 5H", "2H 3H 4H"]
    state = new_game(rules)
    apply(state, _deal(rules, hands, None))
    for seat, bid in ((1, 3), (2, 0), (3, 1), (0, 1)):
        apply(state, Bid(seat, bid))
    apply(state, NameTrump(1, Suit.SPADES))
    obs = observe(state, 2)
    assert obs.trump_decided and obs.trump is Suit.SPADES
    lay = layout(rules)
    masks = lay.masks([parse_cards(h) for h in hands])
    spread = 2.0 * 0.8**2
    likelihood = ExpertBot(bid_spread=0.8, bid_trust=1.0)._bid_likelihood(obs, lay)
    assert likelihood is not None

    def fit(seat: int, suit: int) -> float:
        expected = trick_estimator(lay, suit, 4)(masks[seat])
        return math.exp(-((obs.bids[seat] - expected) ** 2) / spread)  # type: ignore[operator]

    clubs, hearts, spades = 0, 2, 3
    own = fit(0, clubs) * fit(1, spades) * fit(3, hearts)
    assert likelihood(masks) == pytest.approx(own)
    assert own != pytest.approx(fit(0, spades) * fit(1, spades) * fit(3, spades))


def test_a_share_of_overtricks_outside_zero_to_one_is_refused_by_name() -> None:
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="overtricks"):
            get_bot("expert", overtricks=bad)
    assert get_bot("expert", overtricks=1).overtricks == 1.0  # type: ignore[attr-defined]


def test_the_guesses_of_the_bids_still_to_come_move_only_the_bids_before_them() -> None:
    # R-BID-RANGE: the first bidder values its bid with the three seats after
    # it guessed; guessed to bid every trick they chase every trick, guessed
    # to bid none they duck them all, and its own tricks move the other way.
    # The last bidder guesses no one: the guesses cannot change its values.
    rules = PRESETS["common"].replace(players=4, hand_sizes=(5,), first_dealer=0)
    state = new_game(rules)
    apply(state, _deal(rules, ["2C 3C 4C 5C 6C", "AH KH QD JD 9S", "2D 3D 4D 5D 6D", "2H 3H 4H 5H 6H"], "7C"))
    first = observe(state, 1)

    def values(obs: Observation, guess_shift: float = 0.0) -> dict[int, float]:
        bot = ExpertBot(simulations=800, guess_shift=guess_shift)
        return {
            e.action.bid: e.expected for e in bot.analyse(obs, random.Random(5)) if isinstance(e.action, Bid)
        }

    def best(found: dict[int, float]) -> int:
        return max(found, key=lambda b: found[b])

    greedy_others = values(first, guess_shift=20.0)  # every seat after it guessed at 5
    meek_others = values(first, guess_shift=-20.0)  # every seat after it guessed at 0
    assert best(meek_others) > best(greedy_others)
    assert meek_others[2] - meek_others[1] > greedy_others[2] - greedy_others[1] + 1
    for seat, bid in ((1, 2), (2, 1), (3, 1)):
        apply(state, Bid(seat, bid))
    last = observe(state, 0)
    assert values(last, guess_shift=20.0) == values(last, guess_shift=-20.0) == values(last)


def test_the_guesses_reach_the_bids_made_before_trump_is_named() -> None:
    # R-TRUMP-BIDDER: under Okenuff the bids come before trump is named, so
    # they are valued by flat playouts, not the bid search; the seats still
    # to bid are guessed there too, and guessing them greedy or meek moves
    # the first bidder's values.
    rules = PRESETS["okenuff"].replace(hand_sizes=(4,), first_dealer=0)
    state = new_game(rules)
    apply(state, _deal(rules, ["2C 3C 4C 5C", "AH KH QD JD", "2D 3D 4D 5D", "2H 3H 4H 5H"], None))
    obs = observe(state, 1)
    assert not obs.trump_decided

    def values(guess_shift: float) -> dict[int, float]:
        ranked = ExpertBot(simulations=400, guess_shift=guess_shift).analyse(obs, random.Random(3))
        return {e.action.bid: e.expected for e in ranked if isinstance(e.action, Bid)}

    greedy_others, meek_others = values(20.0), values(-20.0)
    assert greedy_others.keys() == meek_others.keys()
    assert greedy_others != meek_others


def test_value_of_spends_the_whole_budget_on_the_one_action_it_prices() -> None:
    # A review prices the choice a player made even where the search would
    # seldom try it: every simulation plays that card (or makes that bid).
    rules = PRESETS["pagat"].replace(hand_sizes=(5,), first_dealer=0, bid_changes=False)
    state = new_game(rules)
    apply(
        state, _deal(rules, ["KH 3C 4D 9S 2H", "AH 2S 5C 7D 8H", "5D 6D QC JS 3H", "7C 8C 10D 4S JH"], "9C")
    )
    bid_obs = observe(state, 1)
    expert = ExpertBot(simulations=200)
    bid = expert.value_of(bid_obs, Bid(1, 4), random.Random(3))
    assert bid.action == Bid(1, 4) and bid.worlds == 200
    for seat, made in ((1, 1), (2, 1), (3, 1), (0, 1)):
        apply(state, Bid(seat, made))
    obs = observe(state, 1)
    card = Play(1, Card.parse("8H"))
    priced = expert.value_of(obs, card, random.Random(3))
    assert priced.action == card and priced.worlds == 200
    # The same generator gives the same price; another legal card another.
    assert expert.value_of(obs, card, random.Random(3)) == priced
    assert expert.value_of(obs, Play(1, Card.parse("AH")), random.Random(3)).expected != priced.expected
    with pytest.raises(ValueError, match="not one of the legal actions"):
        expert.value_of(obs, Play(1, Card.parse("KH")), random.Random(3))
