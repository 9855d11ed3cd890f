"""The expert's model of play (ohhell.bots.playmodel): each past card is read
in the context the table saw when it was played, the shipped weights load,
and a world is weighted by how well its hands explain the cards played
(R-FOLLOW: only the legal cards a world gives a seat compete; R-TRICK: who
won each trick decides the tricks each seat still needed)."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest

from ohhell import (
    PRESETS,
    Bid,
    Deal,
    Observation,
    Phase,
    Play,
    apply,
    make_rules,
    new_game,
    observe,
    parse_cards,
    sample_hands,
)
from ohhell.bots import play_match, playmodel
from ohhell.bots.expert import ExpertBot
from ohhell.bots.fastdeal import layout
from ohhell.cards import Card
from support import decisions


@pytest.mark.parametrize(
    ("preset", "players", "size", "seed"),
    [("common", 4, 10, 1), ("pagat", 5, 7, 2), ("common", 3, 12, 3), ("pagat", 7, 7, 4)],
)
def test_each_card_is_read_in_the_context_it_was_chosen_in(
    preset: str, players: int, size: int, seed: int
) -> None:
    # The context of the card due at a decision (what a model is trained on)
    # is the context the hand's history gives that card once it is played
    # (what the expert reads later): the tricks taken so far (R-TRICK), the
    # suit led and the card winning (R-FOLLOW), the cards gone.
    rules = PRESETS[preset].replace(players=players, hand_sizes=(size,), bid_changes=False)
    lay = layout(rules)
    due: list[playmodel.PlayContext] = []
    last = None
    state = None
    for state, obs in decisions(rules, random.Random(seed)):  # noqa: B007 - read once the match is over
        if obs.phase is Phase.PLAY:
            played, pending = playmodel.history(obs, lay)
            assert pending is not None and pending.seat == obs.seat
            assert [ctx for ctx, _ in played] == due
            due.append(pending)
            last = obs
    assert last is not None and state is not None and state.is_over
    played, pending = playmodel.history(last, lay)
    assert [ctx for ctx, _ in played] == due[:-1] and pending == due[-1]
    assert len(due) == players * size
    # The need each context carries follows the tricks won (R-TRICK).
    result = state.results[-1]
    final = {ctx.seat: ctx for ctx in due[-players:]}
    for s, ctx in final.items():
        won_before_last = result.tricks[s] - (1 if state.tricks[-1].winner == s else 0)
        assert ctx.need == result.bids[s] - won_before_last
        assert ctx.left == 1


def test_the_shipped_weights_load_and_match_the_features() -> None:
    weights = playmodel.weights()
    assert weights is not None, "data/play_model.json is missing or for another model"
    assert len(weights) == len(playmodel.FEATURES)


def _first_trick(ace_held: bool) -> tuple[Observation, list[int]]:
    """Seat 0 bid 1, played last to the first trick and dropped the 3 of
    hearts under the king, where the ace would have won it. Two worlds as
    seat 2 sees them: seat 0 also held the ace of hearts, or it did not."""
    rules = PRESETS["pagat"].replace(hand_sizes=(3,), first_dealer=0, bid_changes=False)
    state = new_game(rules)
    hands = ["3H 4C 4D", "2H 5C 6D", "QH 7C 8D", "KH 9C TD"]
    apply(state, Deal(tuple(tuple(parse_cards(h)) for h in hands), Card.parse("5S")))
    for seat, bid in ((1, 0), (2, 1), (3, 0), (0, 1)):
        apply(state, Bid(seat, bid))
    for seat, card in ((1, "2H"), (2, "QH"), (3, "KH"), (0, "3H")):
        apply(state, Play(seat, Card.parse(card)))
    obs = observe(state, 2)
    lay = layout(rules)
    now = ["4C 4D", "5C 6D", "7C 8D", "9C TD"]
    if ace_held:
        now[0] = "AH 4D"  # the 4 of clubs is in the stock instead
    return obs, lay.masks([parse_cards(h) for h in now])


def test_a_seat_that_needed_a_trick_and_ducked_last_is_read_as_lacking_the_winner() -> None:
    obs, without_ace = _first_trick(ace_held=False)
    _, with_ace = _first_trick(ace_held=True)
    likelihood = playmodel.play_likelihood(obs, layout(obs.rules))
    assert likelihood is not None
    # The worlds differ in seat 0's hand only. Without the ace the 3 was its
    # only legal card; with it, a seat wanting a trick would rather have won.
    ratio = likelihood(with_ace) / likelihood(without_ace)
    assert ratio < 0.5
    # Trust below one: no card rules a world out (a quarter of the chance is
    # a uniform pick among the two hearts).
    assert ratio > 0.25 / 2
    strict = playmodel.play_likelihood(obs, layout(obs.rules), trust=1.0)
    assert strict is not None and strict(with_ace) / strict(without_ace) < ratio


def test_every_world_keeps_a_weight_between_nothing_and_one() -> None:
    rules = PRESETS["common"].replace(players=4, hand_sizes=(10,))
    lay = layout(rules)
    rng = random.Random(11)
    checked = 0
    for _, obs in decisions(rules, rng):
        if obs.phase is Phase.PLAY and obs.tricks:
            likelihood = playmodel.play_likelihood(obs, lay)
            assert likelihood is not None
            for _ in range(20):
                weight = likelihood(lay.masks(sample_hands(obs, rng)))
                assert 0.0 < weight <= 1.0
                checked += 1
    assert checked > 100


def test_without_cards_played_by_a_hidden_hand_there_is_nothing_to_read() -> None:
    obs, _ = _first_trick(ace_held=False)
    lay = layout(obs.rules)
    # A view with every hand shown has nothing hidden to read.
    shown = dataclasses.replace(obs, hands=tuple(h if h is not None else () for h in obs.hands))
    assert playmodel.play_likelihood(shown, lay) is None


def test_a_cards_chance_is_the_softmax_of_its_inputs_over_the_legal_cards() -> None:
    # The likelihood splits each score into the part that reads the table
    # (kept across worlds) and the part that reads the seat's legal cards;
    # put together they must be the model's softmax over ``features``.
    rules = PRESETS["common"].replace(players=4, hand_sizes=(10,))
    lay = layout(rules)
    rng = random.Random(5)
    w = tuple(rng.uniform(-1.5, 1.5) for _ in playmodel.FEATURES)
    checked = 0
    for _, obs in decisions(rules, rng):
        if obs.phase is Phase.PLAY:
            _, ctx = playmodel.history(obs, lay)
            assert ctx is not None
            legal_cards = {a.card for a in obs.legal_actions if isinstance(a, Play)}
            legal = sum(1 << lay.slot(c, ctx.gone) for c in legal_cards if c is not None)
            slots = [s for s in range(lay.size) if legal >> s & 1]
            inputs = [playmodel.features(lay, s, ctx, legal) for s in slots]
            exps = [math.exp(sum(a * b for a, b in zip(w, f, strict=True))) for f in inputs]
            for s, e in zip(slots, exps, strict=True):
                assert playmodel.chance(lay, ctx, w, legal, s) == pytest.approx(e / sum(exps))
                checked += 1
    assert checked > 40


@pytest.mark.parametrize(
    ("preset", "options"),
    [
        ("pagat", {"hand-sizes": "4,3"}),
        # R-DECK-AU: two of every card, so a played card may share a slot's card.
        ("pagat", {"players": "5", "deck": "australian", "hand-sizes": "13,2"}),
        # R-DEVILS-BRIDGE: blind hands tell nothing and are not read.
        ("pagat", {"hand-sizes": "2,1", "devils-bridge": "yes"}),
        ("river", {"teams": "0+2,1+3", "hand-sizes": "3,1"}),
        ("common", {"players": "3", "hand-sizes": "17,1"}),
        ("pagat", {"bidding": "simultaneous", "hook": "no", "bid-changes": "no", "hand-sizes": "3,1"}),
    ],
)
def test_an_expert_reading_the_play_finishes_and_replays_from_its_seed(
    preset: str, options: dict[str, str]
) -> None:
    rules = make_rules(preset, options)
    logs = []
    for _ in range(2):
        bots = [ExpertBot(worlds=8, simulations=40, read_play=True) for _ in range(rules.players)]
        state = play_match(rules, bots, random.Random(3))
        assert state.is_over
        logs.append(list(state.log))
    assert logs[0] == logs[1]
