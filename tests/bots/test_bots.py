"""Bots: the interface and registry, legal play over every rule set, what a bot
may see, the rule-based bots' rules of thumb, and a measured strength check."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

import pytest

from ohhell import (
    PRESETS,
    Action,
    Bid,
    Card,
    Deal,
    DrawForDealer,
    GameState,
    NameTrump,
    Observation,
    Phase,
    Play,
    Rules,
    Suit,
    apply,
    make_rules,
    new_game,
    observe,
    parse_cards,
    seats_to_ask,
)
from ohhell.bots import (
    BOT_NAMES,
    Bot,
    get_bot,
    play_match,
)
from ohhell.bots.rulebased import trick_distribution
from ohhell.bots.tournament import run_tournament

RULE_BOTS = ("beginner", "intermediate")

# Small schedules keep every case quick while still reaching 1-card hands.
CASES: dict[str, tuple[str, dict[str, str]]] = {
    **{name: (name, {"hand-sizes": "3,1,2"}) for name in PRESETS},
    "okenuff-short": ("okenuff", {"hand-sizes": "4,5"}),
    "devils-bridge": ("pagat", {"hand-sizes": "2,1", "devils-bridge": "yes"}),
    "devils-bridge-bidder": ("pagat", {"hand-sizes": "1", "devils-bridge": "yes", "trump": "bidder"}),
    "australian-5": ("pagat", {"players": "5", "deck": "australian", "hand-sizes": "13,2"}),
    "australian-6": ("classic-tens", {"players": "6", "deck": "australian", "hand-sizes": "13,3"}),
    "simultaneous": (
        "pagat",
        {"bidding": "simultaneous", "hook": "no", "bid-changes": "no", "hand-sizes": "3,1"},
    ),
    "rotate": ("pagat", {"trump": "rotate", "trump-rotation": "S,NT,D", "hand-sizes": "3,2,1"}),
    "fixed": ("pagat", {"trump": "fixed", "trump-suit": "H", "hand-sizes": "3,1"}),
    "no-trump": ("pagat", {"trump": "none", "hand-sizes": "3,1"}),
    "bidder": ("pagat", {"trump": "bidder", "hand-sizes": "4,1", "scoring": "squares"}),
    "teams": ("river", {"teams": "0+2,1+3", "hand-sizes": "3,1"}),
    "no-hook": ("pagat", {"hook": "no", "hand-sizes": "3,1"}),
    "three-players": ("common", {"players": "3", "hand-sizes": "17,1"}),
    "seven-players": ("pagat", {"players": "7", "hand-sizes": "7,1", "scoring": "fives"}),
    "dealer-leads-penalty": ("classic-tens", {"scoring": "penalty", "hand-sizes": "2,1"}),
}


class Checked:
    """Wraps a bot and checks every call: an observation, not the state; the
    hidden hands hidden; and a legal choice."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.calls = 0

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        assert isinstance(obs, Observation) and not isinstance(obs, GameState)
        assert obs.seat is not None and obs.legal_actions
        for seat, hand in enumerate(obs.hands):
            sees = seat != obs.seat if obs.devils_bridge else seat == obs.seat
            assert (hand is not None) == sees, f"seat {obs.seat} sees hand {seat}: {hand}"
        action = self.bot.choose(obs, rng)
        assert action in obs.legal_actions, f"{self.name} chose illegal {action!r}"
        self.calls += 1
        return action


def _rules(case: str) -> Rules:
    preset, options = CASES[case]
    return make_rules(preset, options)


# Search bots get a small budget here: these tests check rules, not strength.
BUDGETS: dict[str, dict[str, object]] = {"expert": {"worlds": 3}, "ismcts": {"simulations": 4}}


def _bot(name: str) -> Bot:
    return get_bot(name, **BUDGETS.get(name, {}))


# --- Interface and registry ---


def test_registry_names_the_bots() -> None:
    assert {"random", "beginner", "intermediate"} <= set(BOT_NAMES)
    for name in BOT_NAMES:
        bot = get_bot(name)
        assert isinstance(bot, Bot)
        assert bot.name == name


def test_get_bot_passes_options_and_refuses_unknown_names() -> None:
    assert get_bot("Beginner", name="Ann").name == "Ann"
    with pytest.raises(ValueError, match="unknown bot 'grandmaster'") as err:
        get_bot("grandmaster")
    for name in BOT_NAMES:
        assert name in str(err.value)


def test_play_match_refuses_an_illegal_choice() -> None:
    class Cheat:
        name = "cheat"

        def choose(self, obs: Observation, rng: random.Random) -> Action:
            return Bid(obs.seat or 0, 99)

    with pytest.raises(RuntimeError, match=r"bot 'cheat' in seat \d chose Bid"):
        play_match(PRESETS["pagat"], [Cheat() for _ in range(4)], random.Random(0))


def test_play_match_needs_one_bot_per_seat() -> None:
    with pytest.raises(ValueError, match="4 bots"):
        play_match(PRESETS["pagat"], [get_bot("random")], random.Random(0))


# --- Every bot finishes every rule set, legally, seeing only its seat ---


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("name", BOT_NAMES)
def test_every_bot_finishes_every_rule_set(name: str, case: str) -> None:
    rules = _rules(case)
    for seed in range(3):
        bots = [Checked(_bot(name)) for _ in range(rules.players)]
        state = play_match(rules, bots, random.Random(seed))
        assert state.is_over
        assert len(state.results) >= len(rules.schedule)
        assert sum(b.calls for b in bots) > 0


@pytest.mark.parametrize("case", ["pagat", "simultaneous", "devils-bridge", "bidder", "australian-5"])
def test_mixed_tables_finish(case: str) -> None:
    rules = _rules(case)
    names = [BOT_NAMES[s % len(BOT_NAMES)] for s in range(rules.players)]
    state = play_match(rules, [Checked(_bot(n)) for n in names], random.Random(7))
    assert state.is_over


def test_a_bot_never_receives_the_state() -> None:
    seen: list[object] = []

    class Spy:
        name = "spy"

        def choose(self, obs: Observation, rng: random.Random) -> Action:
            seen.append(obs)
            # Nothing reachable from the observation's fields is the state.
            for f in dataclasses.fields(obs):
                assert not isinstance(getattr(obs, f.name), GameState)
            hidden = [h for s, h in enumerate(obs.hands) if s != obs.seat]
            if obs.devils_bridge:
                assert obs.hands[obs.seat or 0] is None
            else:
                assert all(h is None for h in hidden)
            return rng.choice(obs.legal_actions)

    for case in ("pagat", "simultaneous", "devils-bridge"):
        rules = _rules(case)
        play_match(rules, [Spy() for _ in range(rules.players)], random.Random(3))
    assert seen and all(type(o) is Observation for o in seen)


def test_only_the_bidder_is_asked_in_sequential_bidding() -> None:
    # R-BID-CHANGE: the seat that may still change its bid is not made to act.
    rules = PRESETS["pagat"].replace(hand_sizes=(3,), first_dealer=0)
    state = new_game(rules)
    apply(state, _deal(rules, ["2C 3C 4C", "AS KS QS", "2D 3D 4D", "2H 3H 4H"], "5S"))
    apply(state, Bid(1, 2))
    assert seats_to_ask(state) == (2,)
    asked: list[int] = []

    class Recorder:
        name = "recorder"

        def choose(self, obs: Observation, rng: random.Random) -> Action:
            asked.append(obs.seat or 0)
            return obs.legal_actions[0]

    simultaneous = make_rules("pagat", {"bidding": "simultaneous", "hook": "no", "bid-changes": "no"})
    play_match(simultaneous.replace(hand_sizes=(2,)), [Recorder() for _ in range(4)], random.Random(1))
    assert asked[:4] == [0, 1, 2, 3]  # all unbid seats, in seat order


def test_random_bot_uses_every_legal_action() -> None:
    state = new_game(PRESETS["pagat"].replace(hand_sizes=(5,), first_dealer=0))
    apply(
        state,
        _deal(state.rules, ["2C 3C 4C 5C 6C", "AS KS QS JS 10S", "2D 3D 4D 5D 6D", "2H 3H 4H 5H 6H"], "7S"),
    )
    obs = observe(state, 1)
    bot, rng = get_bot("random"), random.Random(0)
    assert {bot.choose(obs, rng) for _ in range(300)} == set(obs.legal_actions)


# --- Rules of thumb of the rule-based bots ---


def _deal(rules: Rules, hands: Sequence[str], turned: str | None) -> Deal:
    return Deal(tuple(tuple(parse_cards(h)) for h in hands), Card.parse(turned) if turned else None)


def _one_card_state(hands: Sequence[str], turned: str, bids: Sequence[int] = ()) -> GameState:
    rules = PRESETS["pagat"].replace(hand_sizes=(1,), first_dealer=0)
    state = new_game(rules)
    apply(state, _deal(rules, hands, turned))
    for i, b in enumerate(bids):
        apply(state, Bid((1 + i) % 4, b))
    return state


@pytest.mark.parametrize("name", RULE_BOTS)
def test_the_ace_of_trump_bids_one_in_a_one_card_hand(name: str) -> None:
    state = _one_card_state(["2C", "AS", "3D", "4H"], "5S")
    assert get_bot(name).choose(observe(state, 1), random.Random(0)) == Bid(1, 1)


@pytest.mark.parametrize("name", RULE_BOTS)
def test_the_hook_can_force_the_ace_of_trump_to_bid_zero(name: str) -> None:
    # R-HOOK: the dealer's 1 would make the bids total the one trick.
    state = _one_card_state(["AS", "2C", "3D", "4H"], "5S", bids=[0, 0, 0])
    assert get_bot(name).choose(observe(state, 0), random.Random(0)) == Bid(0, 0)


@pytest.mark.parametrize("name", RULE_BOTS)
def test_devils_bridge_bids_from_the_cards_in_sight(name: str) -> None:
    rules = PRESETS["pagat"].replace(hand_sizes=(1,), first_dealer=0, devils_bridge=True)
    # Seat 1 leads and sees only low cards: most cards it could hold win.
    weak = new_game(rules)
    apply(weak, _deal(rules, ["2C", "QS", "2D", "2H"], "3S"))
    assert get_bot(name).choose(observe(weak, 1), random.Random(0)) == Bid(1, 1)
    # Seat 2 sees the ace and king of trump: its own card almost never wins.
    strong = new_game(rules)
    apply(strong, _deal(rules, ["AS", "KS", "9H", "2H"], "3S"))
    apply(strong, Bid(1, 1))
    assert get_bot(name).choose(observe(strong, 2), random.Random(0)) == Bid(2, 0)
    for _ in range(3):
        apply(strong, get_bot(name).choose(observe(strong, strong.to_act), random.Random(0)))
    assert strong.phase is Phase.PLAY
    assert get_bot(name).choose(observe(strong, strong.to_act), random.Random(0)) == Play(strong.to_act, None)


@pytest.mark.parametrize("name", RULE_BOTS)
def test_the_bidder_names_his_long_strong_suit(name: str) -> None:
    rules = make_rules("pagat", {"trump": "bidder", "hand-sizes": "5", "first-dealer": "0"})
    state = new_game(rules)
    hands = ["2C 3C 4D 5S 6S", "AH KH QH 10H 2D", "3D 5D 6C 7C 8S", "4C 9S 10S 3H 7D"]
    apply(state, _deal(rules, hands, None))
    for seat, bid in ((1, 4), (2, 0), (3, 0), (0, 0)):
        apply(state, Bid(seat, bid))
    assert state.phase is Phase.TRUMP and state.to_act == 1
    assert get_bot(name).choose(observe(state, 1), random.Random(0)) == NameTrump(1, Suit.HEARTS)


def test_the_beginner_names_no_trump_with_a_balanced_hand_of_aces() -> None:
    rules = PRESETS["okenuff"].replace(hand_sizes=(4,), first_dealer=0)
    state = new_game(rules)
    apply(state, _deal(rules, ["2C 3C 4D 5S", "AH AS AD AC", "3D 5D 6C 7C", "4C 9S 10S 3H"], None))
    for seat, bid in ((1, 4), (2, 0), (3, 0), (0, 1)):
        apply(state, Bid(seat, bid))
    assert get_bot("beginner").choose(observe(state, 1), random.Random(0)) == NameTrump(1, None)


def _play_state(hands: Sequence[str], turned: str, bids: Sequence[int], plays: Sequence[str]) -> GameState:
    rules = PRESETS["pagat"].replace(hand_sizes=(len(parse_cards(hands[0])),), first_dealer=0)
    state = new_game(rules)
    apply(state, _deal(rules, hands, turned))
    for i, b in enumerate(bids):
        apply(state, Bid((1 + i) % 4, b))
    for card in plays:
        apply(state, Play(state.to_act, Card.parse(card)))
    return state


@pytest.mark.parametrize("name", RULE_BOTS)
def test_a_made_bid_ducks_with_the_highest_losing_card(name: str) -> None:
    # Seat 0 bid 0; diamonds led and topped by the ace: the queen is the card to shed.
    hands = ["QD 9D 2C", "AD 3C 4C", "5D 5C 6C", "6D 7C 8C"]
    state = _play_state(hands, "2S", [1, 0, 1, 0], ["AD", "5D", "6D"])
    assert state.to_act == 0
    assert get_bot(name).choose(observe(state, 0), random.Random(0)) == Play(0, Card.parse("QD"))


@pytest.mark.parametrize("name", RULE_BOTS)
def test_a_needed_trick_is_won_cheaply_by_the_last_player(name: str) -> None:
    # Seat 0 needs two tricks: the nine wins this one and the king is kept.
    hands = ["KD 9D 2C", "5D 3C 4C", "6D 5C 6C", "8D 7C 8C"]
    state = _play_state(hands, "2S", [0, 0, 0, 2], ["5D", "6D", "8D"])
    assert get_bot(name).choose(observe(state, 0), random.Random(0)) == Play(0, Card.parse("9D"))


@pytest.mark.parametrize("name", RULE_BOTS)
def test_every_trick_needed_leads_the_top_trump(name: str) -> None:
    hands = ["AS KS 2S", "5D 3C 4C", "6D 5C 6C", "8D 7C 8C"]
    state = _play_state(hands, "3S", [0, 0, 1, 3], ["3C", "5C", "7C"])
    # Seat 0 is void in clubs and needs all three tricks: it ruffs, then leads
    # trumps from the top.
    ruff = get_bot(name).choose(observe(state, 0), random.Random(0))
    assert isinstance(ruff, Play) and ruff.card is not None and ruff.card.suit is Suit.SPADES
    apply(state, ruff)
    assert state.to_act == 0
    lead = get_bot(name).choose(observe(state, 0), random.Random(0))
    assert isinstance(lead, Play) and lead.card == max(state.hands[0], key=lambda c: c.rank)


def test_intermediate_keeps_the_boss_trump_for_the_last_trick() -> None:
    # Seat 0 bid 1 and holds the boss trump and the only heart; clubs are led
    # and it has none. Ruffing now would leave the ace to win a second trick:
    # it throws the ace and keeps the trump for the last trick.
    hands = ["KS AH 2C", "3C 4C 5C", "6C 7C 8C", "9C 10C JC"]
    state = _play_state(hands, "AS", [0, 0, 0, 1], ["3C", "6C", "9C", "2C", "10C"])
    assert state.to_act == 0 and state.taken[0] == 0
    assert get_bot("intermediate").choose(observe(state, 0), random.Random(0)) == Play(0, Card.parse("AH"))


def test_trick_distribution_adds_up() -> None:
    dist = trick_distribution([0.5, 0.5, 1.0])
    assert dist == pytest.approx([0.0, 0.25, 0.5, 0.25])


# --- Measured strength (fixed seed, duplicate deals) ---


def test_rule_based_bots_beat_random_and_intermediate_beats_beginner() -> None:
    rules = PRESETS["pagat"].replace(hand_sizes=(5,))
    result = run_tournament(["intermediate", "beginner", "random"], rules, 150, seed=11, progress=False)
    diff = {(d.a, d.b): d for d in result.differences}
    assert diff["intermediate", "random"].ci_low > 0
    assert diff["beginner", "random"].ci_low > 0
    assert diff["intermediate", "beginner"].ci_low > 0


def test_a_bot_never_holds_the_generator_that_deals() -> None:
    # Hidden information: with one shared generator a bot could rewind it and
    # recover every hand. Deals must not change however much randomness a bot
    # draws, and no bot is handed the generator given to play_match.
    given = random.Random(11)
    seen: list[random.Random] = []

    class Greedy:
        name = "greedy"

        def choose(self, obs: Observation, rng: random.Random) -> Action:
            seen.append(rng)
            for _ in range(50):
                rng.random()
            return obs.legal_actions[0]

    class Quiet:
        name = "quiet"

        def choose(self, obs: Observation, rng: random.Random) -> Action:
            return obs.legal_actions[0]

    rules = PRESETS["pagat"].replace(hand_sizes=(3, 2))
    noisy = play_match(rules, [Greedy() for _ in range(4)], given)
    calm = play_match(rules, [Quiet() for _ in range(4)], random.Random(11))
    deals = [a for a in noisy.log if isinstance(a, (Deal, DrawForDealer))]
    assert deals == [a for a in calm.log if isinstance(a, (Deal, DrawForDealer))]
    assert all(r is not given for r in seen)


@pytest.mark.parametrize("name", BOT_NAMES)
def test_decisions_are_reproducible_from_the_seed_at_a_fixed_budget(name: str) -> None:
    # Search bots with a number of worlds or simulations (not seconds) make
    # the same decisions from the same seed, so any measurement can be rerun.
    rules = make_rules("pagat", {"hand-sizes": "3,2"})
    logs = []
    for _ in range(2):
        state = play_match(rules, [_bot(name) for _ in range(rules.players)], random.Random(21))
        logs.append(list(state.log))
    assert logs[0] == logs[1]
