"""The bots' fast deal model must agree with the core engine (DESIGN: a fast
internal representation inside a search bot must agree with the core)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ohhell import PRESETS, Phase, Rules, actors, advance_chance, apply, legal_actions, make_rules, new_game
from ohhell.bots.fastdeal import choose_card, layout, lookup_winner, playout, suit_index
from ohhell.cards import Card, parse_cards
from ohhell.game import GameState, Play

RULE_SETS = {
    "pagat-4": PRESETS["pagat"].replace(first_dealer=0),
    "river-7": make_rules("river", {"players": "7", "first-dealer": "0"}),
    "australian-5": make_rules("pagat", {"players": "5", "deck": "australian", "first-dealer": "0"}),
    "australian-6": make_rules("pagat", {"players": "6", "deck": "australian", "first-dealer": "0"}),
    "no-trump": make_rules("pagat", {"trump": "none", "first-dealer": "0"}),
}


def _to_play(rules: Rules, rng: random.Random) -> GameState:
    state = new_game(rules)
    advance_chance(state, rng)
    while state.phase is not Phase.PLAY:
        apply(state, rng.choice(legal_actions(state, actors(state)[0])))
        advance_chance(state, rng)
    return state


@pytest.mark.parametrize("name", RULE_SETS)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_trick_winners_agree_with_the_engine(name: str, seed: int) -> None:
    # R-TRICK, and R-DECK-AU for identical cards (the later one wins).
    rules = RULE_SETS[name]
    rng = random.Random(seed)
    state = _to_play(rules, rng)
    lay = layout(rules)
    masks = lay.masks(state.hands)
    trump = suit_index(state.trump)
    hand = state.hand_number
    while state.hand_number == hand and not state.is_over:
        leader, slots = state.leader, []
        for _ in range(rules.players):
            action = rng.choice(legal_actions(state, state.to_act))
            slot = next(s for s in lay.slots_of[action.card] if masks[action.seat] >> s & 1)
            masks[action.seat] &= ~(1 << slot)
            slots.append(slot)
            apply(state, action)
        fast = (leader + lookup_winner(lay, slots, trump)) % rules.players
        # The engine keeps the hand's tricks until the next deal, last hand included.
        assert fast == state.tricks[-1].winner


def test_identical_cards_the_later_one_wins() -> None:
    # R-DECK-AU: of two identical cards in one trick the second played wins.
    lay = layout(RULE_SETS["australian-6"])
    two_c = Card.parse("2C")
    first, second = lay.slots_of[two_c]
    assert lookup_winner(lay, [first, second], -1) == 1
    assert lookup_winner(lay, [second, first], -1) == 1


@pytest.mark.parametrize("name", RULE_SETS)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), targets=st.lists(st.integers(0, 10), min_size=7, max_size=7))
def test_greedy_playout_plays_legal_cards_and_every_trick(name: str, seed: int, targets: list[int]) -> None:
    # R-FOLLOW: every card the policy picks is one the engine would accept.
    rules = RULE_SETS[name]
    rng = random.Random(seed)
    state = _to_play(rules, rng)
    lay = layout(rules)
    masks = lay.masks(state.hands)
    trump = suit_index(state.trump)
    n = rules.players
    hand = state.hand_number
    while state.hand_number == hand:
        seat = state.to_act
        trick = []
        used = 0
        for m in masks:
            used |= m
        for c in state.trick:
            slot = lay.slot(c, used)
            used |= 1 << slot
            trick.append(slot)
        slot = choose_card(
            lay, masks[seat], trick, trump, targets[seat] - state.taken[seat], 99, used, [0] * n, seat
        )
        card = lay.cards[slot]
        assert any(a.card is card for a in legal_actions(state, seat))
        masks[seat] &= ~(1 << slot)
        apply(state, Play(seat, card))
    start = lay.masks(_to_play(rules, random.Random(seed)).hands)
    unseen = (1 << lay.size) - 1
    taken = playout(lay, start, trump, 1 % n, [], [0] * n, targets, unseen, [0] * n)
    assert sum(taken) == state.results[-1].size


def test_masks_give_identical_cards_distinct_slots() -> None:
    lay = layout(RULE_SETS["australian-5"])
    hands = [parse_cards("2C 2C"), parse_cards("3D")]
    a, b = lay.masks(hands)
    assert bin(a).count("1") == 2 and not a & b
    with pytest.raises(ValueError, match="more often than the pack"):
        lay.masks([parse_cards("2C 2C 2C")])


def _slots(lay_cards: str, lay: object) -> int:
    from ohhell.bots.fastdeal import Layout

    assert isinstance(lay, Layout)
    return sum(1 << lay.slots_of[c][0] for c in parse_cards(lay_cards))


def test_greedy_policy_ducks_a_trick_its_top_trump_will_take_later() -> None:
    # R-TRICK: the top trump wins whatever trick it is played to, so a seat
    # that needs one trick and holds it does not take another with a side ace.
    lay = layout(PRESETS["pagat"])
    hand = _slots("AS AH 2H 3C", lay)
    unseen = (1 << lay.size) - 1
    trick = [lay.slots_of[parse_cards("KH")[0]][0]]
    card = choose_card(lay, hand, trick, int(parse_cards("AS")[0].suit), 1, 4, unseen, [0] * 4, 1, False)
    assert lay.cards[card] == parse_cards("2H")[0]
    # Without the top trump the same seat takes the trick with its ace.
    hand = _slots("QS AH 2H 3C", lay)
    card = choose_card(lay, hand, trick, int(parse_cards("QS")[0].suit), 1, 4, unseen, [0] * 4, 1, False)
    assert lay.cards[card] == parse_cards("AH")[0]


def test_greedy_policy_ruffs_low_when_no_later_seat_is_out_of_the_suit() -> None:
    # R-FOLLOW: later seats that still hold the led suit must follow it and
    # cannot overruff, so a seat chasing a trick ruffs with its lowest trump.
    lay = layout(PRESETS["pagat"])
    trump = int(parse_cards("2S")[0].suit)
    hand = _slots("2S AS 5D", lay)
    unseen = (1 << lay.size) - 1
    trick = [lay.slots_of[parse_cards("AH")[0]][0]]
    card = choose_card(lay, hand, trick, trump, 2, 3, unseen, [0] * 4, 1, False)
    assert lay.cards[card] == parse_cards("2S")[0]
    # Once the next seat has shown it is out of hearts, it may overruff: the
    # ace of trumps, which nothing beats, takes the trick instead.
    voids = [0, 0, 1 << int(parse_cards("AH")[0].suit), 0]
    card = choose_card(lay, hand, trick, trump, 2, 3, unseen, voids, 1, False)
    assert lay.cards[card] == parse_cards("AS")[0]


def test_greedy_policy_sheds_the_card_fewest_unseen_cards_beat() -> None:
    # R-FOLLOW: out of the led suit, a seat that wants no more tricks throws
    # its most dangerous card: here the king of a suit whose ace is gone
    # before a queen of a suit whose ace and king are still out.
    lay = layout(PRESETS["pagat"])
    hand = _slots("KD QC 2C", lay)
    unseen = ((1 << lay.size) - 1) & ~_slots("AD", lay)
    trick = [lay.slots_of[parse_cards("5H")[0]][0]]
    card = choose_card(lay, hand, trick, -1, 0, 3, unseen, [0] * 4, 1, False)
    assert lay.cards[card] == parse_cards("KD")[0]
