"""Rules as data: player counts, hand sequences, refused combinations, presets, options as text."""

from __future__ import annotations

import dataclasses

import pytest

from ohhell.cards import Suit
from ohhell.rules import (
    KACHUFUL,
    OPTION_NAMES,
    OPTION_WORDS,
    PRESET_TITLES,
    PRESETS,
    START_CARDS,
    Bidding,
    Deck,
    FirstLead,
    Rules,
    RulesError,
    Scoring,
    Sequence,
    TieBreak,
    TrumpMode,
    make_rules,
    parse_option,
    preset_rules,
)

# Hand sequences as the seeds print them.
SEED_DOWNUP_4 = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]  # 003, 4 players
SEED_DOWNUP_7 = [7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7]  # 000 and 001, 7 players
SEED_OKENUFF = [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 13, 13, 13]  # 002: 13 deals, 4 up to 13, last four 13


# --- R-PLAYERS ---


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_three_to_seven_players_accepted(players: int) -> None:
    # R-PLAYERS: 3 to 7 players.
    assert Rules(players=players).players == players


@pytest.mark.parametrize("players", [-1, 0, 1, 2, 8, 9])
def test_other_player_counts_refused(players: int) -> None:
    # R-PLAYERS: anything else is refused with a clear error naming the count.
    with pytest.raises(RulesError, match=rf"3 to 7 players, not {players}\b"):
        Rules(players=players)


def test_player_count_must_be_a_whole_number() -> None:
    # R-PLAYERS
    with pytest.raises(RulesError, match="3 to 7 players"):
        Rules(players="4")  # type: ignore[arg-type]


@pytest.mark.parametrize("players", [3, 5, 6, 7])
def test_okenuff_scoring_needs_exactly_four(players: int) -> None:
    # R-PLAYERS: exactly 4 for Okenuff (002).
    with pytest.raises(RulesError, match=rf"exactly 4 players, not {players}\b"):
        PRESETS["okenuff"].replace(players=players)
    with pytest.raises(RulesError, match="4 players"):
        Rules(players=players, scoring=Scoring.OKENUFF)


def test_rules_error_is_a_value_error() -> None:
    assert issubclass(RulesError, ValueError)


# --- R-START and the sequences ---


@pytest.mark.parametrize(("players", "first"), [(3, 10), (4, 10), (5, 10), (6, 8), (7, 7)])
def test_first_hand_size_by_player_count(players: int, first: int) -> None:
    # R-START: 3-5 players 10 cards, 6 players 8, 7 players 7.
    assert START_CARDS[players] == first
    for sequence in (Sequence.DOWN_UP, Sequence.DOWN):
        schedule = Rules(players=players, sequence=sequence).schedule
        assert schedule[0] == first
        assert max(schedule) == first


def test_down_up_four_players() -> None:
    # R-SEQ-DOWNUP: 4 players give 19 hands, 10..1..10 (003's example).
    schedule = Rules(players=4).schedule
    assert list(schedule) == SEED_DOWNUP_4
    assert len(schedule) == 19


def test_down_up_seven_players() -> None:
    # R-SEQ-DOWNUP: 7 players give 13 hands, 7..1..7 (000's and 001's example).
    schedule = Rules(players=7, sequence=Sequence.DOWN_UP).schedule
    assert list(schedule) == SEED_DOWNUP_7
    assert len(schedule) == 13


@pytest.mark.parametrize(("players", "top"), [(3, 10), (5, 10), (6, 8)])
def test_down_up_other_counts(players: int, top: int) -> None:
    # R-SEQ-DOWNUP: max down to 1 then back up to max.
    expected = [*range(top, 0, -1), *range(2, top + 1)]
    assert list(Rules(players=players).schedule) == expected
    assert len(expected) == 2 * top - 1


@pytest.mark.parametrize(("players", "top"), [(4, 10), (6, 8), (7, 7)])
def test_up_down(players: int, top: int) -> None:
    # R-SEQ-UPDOWN: 1 up to max and back down to 1.
    schedule = Rules(players=players, sequence=Sequence.UP_DOWN).schedule
    assert list(schedule) == [*range(1, top + 1), *range(top - 1, 0, -1)]
    assert Rules(players=7, sequence=Sequence.UP_DOWN).schedule == (1, 2, 3, 4, 5, 6, 7, 6, 5, 4, 3, 2, 1)


@pytest.mark.parametrize(("players", "top"), [(4, 10), (6, 8), (7, 7)])
def test_down(players: int, top: int) -> None:
    # R-SEQ-DOWN: max down to 1 and stop.
    assert list(Rules(players=players, sequence=Sequence.DOWN).schedule) == list(range(top, 0, -1))
    assert Rules(players=4, sequence=Sequence.DOWN).schedule == (10, 9, 8, 7, 6, 5, 4, 3, 2, 1)


@pytest.mark.parametrize(("players", "top"), [(4, 10), (6, 8), (7, 7)])
def test_up(players: int, top: int) -> None:
    # R-SEQ-UP: 1 up to max and stop.
    assert list(Rules(players=players, sequence=Sequence.UP).schedule) == list(range(1, top + 1))
    assert Rules(players=7, sequence=Sequence.UP).schedule == (1, 2, 3, 4, 5, 6, 7)


def test_start_cards_sets_the_largest_hand() -> None:
    # R-SEQ-DOWNUP with a chosen maximum.
    assert Rules(players=4, start_cards=3).schedule == (3, 2, 1, 2, 3)
    assert Rules(players=4, start_cards=13, sequence=Sequence.UP).schedule == tuple(range(1, 14))


def test_fixed_count_of_fixed_size() -> None:
    # R-SEQ-FIXED: a fixed number of hands of a fixed size (003).
    assert Rules(sequence=Sequence.FIXED, fixed_hands=5, start_cards=6).schedule == (6, 6, 6, 6, 6)
    # The size defaults to R-START, the count to 10.
    assert Rules(players=7, sequence=Sequence.FIXED).schedule == (7,) * 10
    assert Rules(players=6, sequence=Sequence.FIXED, fixed_hands=3).schedule == (8, 8, 8)


def test_explicit_list_of_hand_sizes() -> None:
    # R-SEQ-FIXED: any explicit list of hand sizes; it wins over the sequence.
    for sequence in Sequence:
        rules = Rules(sequence=sequence, hand_sizes=(3, 1, 4, 1, 5))
        assert rules.schedule == (3, 1, 4, 1, 5)
    assert Rules(hand_sizes=(13,)).schedule == (13,)


def test_okenuff_sequence() -> None:
    # R-SEQ-OKENUFF: 13 deals of 4, 5, ..., 12, 13, 13, 13, 13 cards (002).
    schedule = PRESETS["okenuff"].schedule
    assert list(schedule) == SEED_OKENUFF
    assert len(schedule) == 13
    assert schedule[0] == 4
    assert schedule[-4:] == (13, 13, 13, 13)


@pytest.mark.parametrize(("players", "pack"), [(5, 65), (6, 78)])
def test_australian_pack_starts_at_thirteen(players: int, pack: int) -> None:
    # R-DECK-AU: the first deal is 13 cards with the 65- or 78-card pack.
    rules = Rules(players=players, deck=Deck.AUSTRALIAN)
    assert rules.deck_size == pack
    assert rules.schedule[0] == 13
    assert list(rules.schedule) == [*range(13, 0, -1), *range(2, 14)]
    assert 13 * players == pack  # the first deal uses the whole pack


@pytest.mark.parametrize("players", [3, 4, 7])
def test_australian_pack_refused_for_other_counts(players: int) -> None:
    # R-DECK-AU: only for 5 or 6 players.
    with pytest.raises(RulesError, match=rf"5 or 6 players, not {players}\b"):
        Rules(players=players, deck=Deck.AUSTRALIAN)


def test_standard_pack_size() -> None:
    # R-DECK; R-DECK-2: Okenuff uses a fresh 52-card pack each deal.
    for players in range(3, 8):
        assert Rules(players=players).deck_size == 52
    assert PRESETS["okenuff"].deck is Deck.STANDARD
    assert PRESETS["okenuff"].deck_size == 52


# --- Refused combinations ---


def test_simultaneous_bidding_with_the_hook_refused() -> None:
    # R-BID-SIMULTANEOUS: no last bidder, so no R-HOOK.
    with pytest.raises(RulesError, match=r"simultaneous bidding .*hook"):
        Rules(bidding=Bidding.SIMULTANEOUS)
    with pytest.raises(RulesError, match="hook"):
        make_rules("common", {"bidding": "simultaneous"})
    assert Rules(bidding=Bidding.SIMULTANEOUS, hook=False).hook is False


def test_simultaneous_bidding_with_bid_changes_refused() -> None:
    # R-BID-SIMULTANEOUS with R-BID-CHANGE makes no sense: sealed bids cannot be changed.
    with pytest.raises(RulesError, match="cannot be changed"):
        Rules(bidding=Bidding.SIMULTANEOUS, hook=False, bid_changes=True)
    with pytest.raises(RulesError, match="cannot be changed"):
        make_rules("pagat", {"bidding": "simultaneous", "hook": "no"})
    rules = make_rules("pagat", {"bidding": "simultaneous", "hook": "no", "bid-changes": "no"})
    assert rules.bidding is Bidding.SIMULTANEOUS


@pytest.mark.parametrize(
    ("changes", "needed", "pack"),
    [
        ({"players": 7, "start_cards": 8}, 56, 52),
        ({"players": 4, "hand_sizes": (14,)}, 56, 52),
        ({"players": 6, "start_cards": 9}, 54, 52),
        ({"players": 5, "sequence": Sequence.UP, "start_cards": 11}, 55, 52),
        ({"players": 5, "deck": Deck.AUSTRALIAN, "start_cards": 14}, 70, 65),
        ({"players": 6, "deck": Deck.AUSTRALIAN, "hand_sizes": (1, 14)}, 84, 78),
    ],
)
def test_hand_larger_than_the_pack_refused(changes: dict[str, object], needed: int, pack: int) -> None:
    # R-DECK, R-DECK-AU: a hand that needs more cards than the pack holds is refused.
    with pytest.raises(RulesError, match=rf"needs {needed} cards, more than the {pack}-card pack"):
        Rules(**changes)  # type: ignore[arg-type]


def test_largest_hands_the_pack_allows() -> None:
    # R-DECK: 13 cards each for 4 players uses the whole pack and is allowed.
    assert Rules(players=4, hand_sizes=(13,)).schedule == (13,)
    assert Rules(players=7, start_cards=7).schedule[0] == 7
    assert Rules(players=3, start_cards=17).schedule[0] == 17


def test_devils_bridge_needs_a_one_card_hand() -> None:
    # R-DEVILS-BRIDGE: played on the final 1-card hand.
    with pytest.raises(RulesError, match=r"Devil's Bridge.*1-card hand"):
        Rules(devils_bridge=True, sequence=Sequence.FIXED)
    with pytest.raises(RulesError, match="Devil's Bridge"):
        PRESETS["okenuff"].replace(devils_bridge=True)
    rules = Rules(devils_bridge=True)
    assert rules.is_devils_bridge_hand(1)
    assert not rules.is_devils_bridge_hand(2)
    assert not Rules().is_devils_bridge_hand(1)


@pytest.mark.parametrize(
    ("teams", "message"),
    [
        (((0, 1), (2,)), "exactly one team"),  # seat 3 left out
        (((0, 1), (1, 2, 3)), "exactly one team"),  # seat 1 twice
        (((0, 1), (2, 4)), "exactly one team"),  # no seat 4
        (((0, 1, 2, 3),), "at least two teams"),
        (((0, 1, 2, 3), ()), "cannot be empty"),
    ],
)
def test_bad_teams_refused(teams: tuple[tuple[int, ...], ...], message: str) -> None:
    # R-TEAMS: each seat in exactly one team, at least two teams, none empty.
    with pytest.raises(RulesError, match=message):
        Rules(players=4, teams=teams)


def test_teams_refusal_counts_seats_from_one() -> None:
    # R-TEAMS: a person reads the seats as they count them, never a Python tuple.
    with pytest.raises(RulesError) as info:
        Rules(players=4, teams=((0, 1, 2, 3, 4),))
    assert str(info.value) == (
        "Teams must put each of the seats 1 to 4 in exactly one team; seat 5 does not exist"
    )
    with pytest.raises(RulesError, match="seat 2 is in more than one team"):
        Rules(players=4, teams=((0, 1), (1, 2, 3)))
    with pytest.raises(RulesError, match="seat 4 is in no team"):
        Rules(players=4, teams=((0, 1), (2,)))


def test_hand_sizes_refusal_says_how_to_write_them() -> None:
    with pytest.raises(RulesError) as info:
        make_rules("pagat", {"hand-sizes": "3;2;1"})
    assert str(info.value).startswith("Hand sizes: write whole numbers separated by commas, like 3,2,1")
    assert "option" not in str(info.value)


def test_every_option_has_words_and_every_preset_a_title() -> None:
    assert set(OPTION_WORDS) == set(OPTION_NAMES)
    assert set(PRESET_TITLES) == set(PRESETS)
    assert PRESET_TITLES["river"] == "Up and Down the River"


def test_good_teams_accepted() -> None:
    # R-TEAMS
    assert Rules(players=4, teams=((0, 2), (1, 3))).teams == ((0, 2), (1, 3))
    assert Rules(players=6, teams=((0, 3), (1, 4), (2, 5))).teams is not None
    assert Rules(players=5, teams=((0, 1, 2), (3, 4))).teams is not None


@pytest.mark.parametrize(("players", "dealer"), [(4, 4), (4, -1), (7, 7), (3, 10)])
def test_first_dealer_out_of_range_refused(players: int, dealer: int) -> None:
    # R-DEALER-DRAW: 004 lets the players choose the first dealer, but it must be a seat.
    # Said with seats counted from 1, as the players count them.
    with pytest.raises(RulesError, match=rf"seats 1 to {players}; seat {dealer + 1} does not exist"):
        Rules(players=players, first_dealer=dealer)


def test_first_dealer_in_range_accepted() -> None:
    # R-DEALER-DRAW: None means draw; a seat means the players chose.
    assert Rules(players=7, first_dealer=6).first_dealer == 6
    assert Rules(players=4, first_dealer=0).first_dealer == 0
    assert Rules().first_dealer is None


def test_empty_trump_rotation_refused() -> None:
    # R-TRUMP-ROTATE: a rotation needs at least one step.
    with pytest.raises(RulesError, match="rotation must name at least one"):
        Rules(trump=TrumpMode.ROTATE, trump_rotation=())


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"start_cards": 0}, "at least 1 card"),
        ({"sequence": Sequence.FIXED, "fixed_hands": 0}, "at least 1 hand"),
        ({"hand_sizes": ()}, "at least one hand"),
        ({"hand_sizes": (3, 0, 2)}, "at least 1 card, not 0"),
    ],
)
def test_empty_hands_and_sequences_refused(changes: dict[str, object], message: str) -> None:
    # R-SEQ-FIXED
    with pytest.raises(RulesError, match=message):
        Rules(**changes)  # type: ignore[arg-type]


def test_replace_validates_again() -> None:
    # R-PLAYERS: a variant of a preset is checked like any rule set.
    with pytest.raises(RulesError, match="not 8"):
        PRESETS["pagat"].replace(players=8)
    with pytest.raises(RulesError, match="not 2"):
        dataclasses.replace(PRESETS["river"], players=2)


def test_rules_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        PRESETS["pagat"].players = 5  # type: ignore[misc]


# --- Variants of 001 and 003 as plain switches ---


def test_kachuful_rotation_and_fixed_trump() -> None:
    # R-TRUMP-ROTATE: Kachuful is spades, diamonds, clubs, hearts (000).
    assert KACHUFUL == (Suit.SPADES, Suit.DIAMONDS, Suit.CLUBS, Suit.HEARTS)
    rotate = make_rules("pagat", {"trump": "rotate"})
    assert rotate.trump is TrumpMode.ROTATE and rotate.trump_rotation == KACHUFUL
    with_nt = make_rules("pagat", {"trump": "rotate", "trump-rotation": "S,D,C,H,NT"})
    assert with_nt.trump_rotation == (*KACHUFUL, None)
    # R-TRUMP-FIXED: "Oh Shit!" has spades always trump.
    oh_shit = make_rules("pagat", {"trump": "fixed"})
    assert oh_shit.trump is TrumpMode.FIXED and oh_shit.trump_suit is Suit.SPADES


def test_no_hook_variant() -> None:
    # R-HOOK: 001's option to play without the restriction on the dealer.
    assert make_rules("classic-tens", {"hook": "no"}).hook is False


# --- Presets and their seeds ---


@pytest.mark.parametrize("name", ["pagat", "classic-tens", "okenuff", "river", "common"])
def test_every_seed_preset_exists_and_validates(name: str) -> None:
    preset = PRESETS[name]
    assert preset_rules(name) is preset
    fields = {f.name: getattr(preset, f.name) for f in dataclasses.fields(preset) if f.init}
    rebuilt = Rules(**fields)  # validates again from scratch
    assert rebuilt == preset
    assert rebuilt.schedule == preset.schedule


def test_presets_are_exactly_the_seed_presets() -> None:
    assert set(PRESETS) == {"pagat", "classic-tens", "okenuff", "river", "common"}


def _common_fields(rules: Rules) -> None:
    """What 000, 001, 003 and 004 share."""
    assert rules.deck is Deck.STANDARD  # R-DECK
    assert rules.sequence is Sequence.DOWN_UP and rules.hand_sizes is None  # R-SEQ-DOWNUP
    assert rules.start_cards is None  # R-START
    assert list(rules.schedule) == SEED_DOWNUP_4
    assert rules.trump is TrumpMode.TURN  # R-TRUMP-TURN
    assert rules.bidding is Bidding.SEQUENTIAL  # R-BID-ORDER
    assert rules.hook is True  # R-HOOK
    assert rules.devils_bridge is False
    assert rules.teams is None
    assert rules.no_trump_doubles is False


def test_pagat_preset_matches_seed_000() -> None:
    rules = PRESETS["pagat"]
    _common_fields(rules)
    assert rules.first_dealer is None  # R-DEALER-DRAW: draw cards, highest deals
    assert rules.bid_changes is True  # R-BID-CHANGE: "changed only if the next player ... has not yet bid"
    assert rules.first_lead is FirstLead.LEFT  # R-LEAD-LEFT
    assert rules.scoring is Scoring.PAGAT  # R-SC-PAGAT
    assert rules.tie_break is TieBreak.NONE  # R-WIN


def test_classic_tens_preset_matches_seed_001() -> None:
    rules = PRESETS["classic-tens"]
    _common_fields(rules)
    assert rules.first_lead is FirstLead.DEALER  # R-LEAD-DEALER: "The play begins with the dealer"
    assert rules.scoring is Scoring.TENS  # R-SC-TENS
    assert rules.tie_break is TieBreak.EXTRA_HANDS  # R-TIE-EXTRA
    assert rules.bid_changes is False  # 001 does not allow changes


def test_okenuff_preset_matches_seed_002() -> None:
    rules = PRESETS["okenuff"]
    assert rules.players == 4  # R-PLAYERS: "Players - Four"
    assert rules.deck is Deck.STANDARD  # R-DECK-2: a fresh 52-card pack each deal
    assert list(rules.schedule) == SEED_OKENUFF  # R-SEQ-OKENUFF
    assert rules.first_dealer is None  # R-DEALER-DRAW: "Cut for dealer, ace is high"
    assert rules.trump is TrumpMode.BIDDER  # R-TRUMP-BIDDER
    assert rules.bidding is Bidding.SEQUENTIAL and rules.hook is True  # R-HOOK: the dealer's restriction
    assert rules.bid_changes is True  # R-BID-CHANGE: "before the player at his left bids"
    assert rules.first_lead is FirstLead.LEFT  # R-LEAD-LEFT: "Eldest hand makes the opening lead"
    assert rules.scoring is Scoring.OKENUFF  # R-SC-OKENUFF
    assert rules.no_trump_doubles is True  # R-SC-OKENUFF: no trump doubles all scores
    assert rules.tie_break is TieBreak.NONE  # R-WIN
    assert rules.teams is None and rules.devils_bridge is False


def test_river_preset_matches_seed_003_standard() -> None:
    rules = PRESETS["river"]
    _common_fields(rules)
    assert rules.first_dealer is None  # R-DEALER-DRAW: "Players draw cards; highest card deals first"
    assert rules.bid_changes is True  # R-BID-CHANGE: "only if the next player has not yet bid"
    assert rules.first_lead is FirstLead.LEFT  # R-LEAD-LEFT
    assert rules.scoring is Scoring.RIVER  # R-SC-RIVER: 003 "Standard Scoring"
    assert rules.tie_break is TieBreak.NONE  # R-WIN


def test_common_preset_matches_seed_004() -> None:
    rules = PRESETS["common"]
    _common_fields(rules)
    # R-DEALER-DRAW: 004 "The players decide who will be the first dealer".
    assert rules.first_dealer is not None
    assert rules.first_lead is FirstLead.LEFT  # R-LEAD-LEFT
    assert rules.scoring is Scoring.TRICKS_BONUS  # R-SC-TRICKS-BONUS
    assert rules.tie_break is TieBreak.MOST_EXACT  # R-TIE-EXACT


@pytest.mark.parametrize("name", ["pagat", "classic-tens", "river", "common"])
@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_seed_presets_play_with_every_player_count(name: str, players: int) -> None:
    # R-PLAYERS with R-SEQ-DOWNUP: the 3-7 player seeds accept every count.
    rules = make_rules(name, {"players": str(players)})
    top = START_CARDS[players]
    assert rules.schedule == (*range(top, 0, -1), *range(2, top + 1))


def test_unknown_preset_refused() -> None:
    with pytest.raises(RulesError, match="unknown preset 'bridge'"):
        preset_rules("bridge")
    with pytest.raises(RulesError, match="'bridge'"):
        make_rules("bridge")


# --- Options as text ---


def test_make_rules_with_text_options() -> None:
    rules = make_rules(
        "pagat",
        {
            "players": "5",
            "hook": "no",
            "scoring": "squares",
            "sequence": "up_down",
            "trump": "rotate",
            "trump-rotation": "S, D, C, H, NT",
            "teams": "0+2, 1+3+4",
            "first-dealer": "2",
            "first_lead": "Dealer",
            "tie-break": "most-exact",
            "devils-bridge": "on",
        },
    )
    assert rules.players == 5
    assert rules.hook is False
    assert rules.scoring is Scoring.SQUARES
    assert rules.sequence is Sequence.UP_DOWN
    assert rules.trump_rotation == (Suit.SPADES, Suit.DIAMONDS, Suit.CLUBS, Suit.HEARTS, None)
    assert rules.teams == ((0, 2), (1, 3, 4))
    assert rules.first_dealer == 2
    assert rules.first_lead is FirstLead.DEALER
    assert rules.tie_break is TieBreak.MOST_EXACT
    assert rules.devils_bridge is True
    assert rules.bid_changes is True  # kept from the preset


def test_make_rules_special_words() -> None:
    rules = make_rules("common", {"first-dealer": "draw", "start-cards": "5", "hand-sizes": "none"})
    assert rules.first_dealer is None and rules.start_cards == 5 and rules.hand_sizes is None
    rules = make_rules(rules, {"start-cards": "auto", "hand-sizes": "3,2,1", "trump-suit": "hearts"})
    assert rules.start_cards is None and rules.schedule == (3, 2, 1)
    assert rules.trump_suit is Suit.HEARTS


@pytest.mark.parametrize("text", ["yes", "TRUE", "on", "1", " Yes "])
def test_yes_words(text: str) -> None:
    assert parse_option("hook", text) == ("hook", True)


@pytest.mark.parametrize("text", ["no", "False", "OFF", "0"])
def test_no_words(text: str) -> None:
    assert parse_option("devils-bridge", text) == ("devils_bridge", False)


def test_make_rules_without_options_gives_the_preset() -> None:
    assert make_rules() == PRESETS["pagat"]
    assert make_rules("okenuff", {}) == PRESETS["okenuff"]


VARIANTS: list[dict[str, str]] = [
    {"hook": "no"},  # 001 no hook
    {"bidding": "simultaneous", "hook": "no", "bid-changes": "no"},  # 001, 003 simultaneous
    {"players": "5", "deck": "australian"},  # 001 Australian, 65 cards
    {"players": "6", "deck": "australian", "devils-bridge": "yes"},  # 78 cards, Devil's Bridge
    {"trump": "fixed", "trump-suit": "S"},  # Oh Shit!
    {"trump": "rotate", "trump-rotation": "S,D,C,H,NT"},  # Kachuful with a no-trump step
    {"sequence": "fixed", "fixed-hands": "7", "start-cards": "5"},  # 003 fixed hands
    {"hand-sizes": "1,3,5,3,1", "first-dealer": "2"},
    {"teams": "0+2,1+3", "scoring": "penalty"},  # 003 team play
    {"players": "7", "sequence": "up", "scoring": "fives", "first-lead": "dealer"},
    {"players": "3", "sequence": "down", "scoring": "squares", "tie-break": "extra-hands"},
    {"sequence": "up-down", "scoring": "tricks-bonus", "tie-break": "most-exact"},
]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_preset_options_round_trip(name: str) -> None:
    preset = PRESETS[name]
    options = preset.options()
    assert set(options) == {n.replace("_", "-") for n in OPTION_NAMES}
    assert all(isinstance(v, str) for v in options.values())
    # From any other preset, the full option set rebuilds this one.
    for base in PRESETS:
        assert make_rules(base, options) == preset
    assert preset.differences(make_rules(name, options)) == {}


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items()))
def test_variant_options_round_trip(preset: str, variant: dict[str, str]) -> None:
    try:
        rules = make_rules(preset, variant)
    except RulesError:
        # Only Okenuff refuses these (its 4 players, 13-card deals, no 1-card hand).
        assert preset == "okenuff"
        return
    assert make_rules("pagat", rules.options()) == rules
    assert make_rules(preset, rules.differences(PRESETS[preset])) == rules


def test_differences_name_only_the_changed_options() -> None:
    rules = make_rules("pagat", {"hook": "no", "players": "6"})
    assert rules.differences(PRESETS["pagat"]) == {"hook": "no", "players": "6"}
    assert PRESETS["river"].differences(PRESETS["pagat"]) == {"scoring": "river"}


def test_empty_rotation_refused_in_every_trump_mode() -> None:
    # R-TRUMP-ROTATE: an empty rotation is refused even when trump does not
    # rotate, so every Rules value reads back from its options (a game record
    # stores every option as text).
    for mode in TrumpMode:
        with pytest.raises(RulesError, match="rotation must name at least one"):
            Rules(trump=mode, trump_rotation=())


@pytest.mark.parametrize("name", ["colour", "schedule", "jokers"])
def test_unknown_option_refused(name: str) -> None:
    with pytest.raises(RulesError, match=f"unknown rule option '{name}'"):
        make_rules("pagat", {name: "yes"})


@pytest.mark.parametrize(
    ("option", "text", "fault", "quoted"),
    [
        ("hook", "maybe", "yes or no", "maybe"),
        ("bid-changes", "", "yes or no", ""),
        ("players", "four", "whole number", "four"),
        ("scoring", "golf", "expected one of pagat", "golf"),
        ("sequence", "sideways", "expected one of down-up", "sideways"),
        ("deck", "tarot", "expected one of standard", "tarot"),
        ("trump", "random", "expected one of turn", "random"),
        ("trump-suit", "X", "not a suit", "X"),
        ("trump-rotation", "S,X", "not a suit", "X"),
        ("teams", "0+1,2+x", "whole number", "x"),
        ("hand-sizes", "4,a", "whole number", "a"),
        ("first-dealer", "someone", "whole number", "someone"),
        ("start-cards", "lots", "whole number", "lots"),
        ("fixed-hands", "1.5", "whole number", "1.5"),
        ("tie-break", "coin", "expected one of none", "coin"),
        ("first-lead", "right", "expected one of left", "right"),
    ],
)
def test_bad_option_value_names_the_option(option: str, text: str, fault: str, quoted: str) -> None:
    with pytest.raises(RulesError) as info:
        make_rules("pagat", {option: text})
    message = str(info.value)
    # The field in words, as the form names it, never the option's id.
    assert message.startswith(f"{OPTION_WORDS[option.replace('-', '_')]}:")
    assert fault in message
    assert repr(quoted) in message


def test_readable_option_that_breaks_a_rule_is_refused() -> None:
    # R-PLAYERS: the value reads, the rule set does not validate.
    with pytest.raises(RulesError, match="not 9"):
        make_rules("pagat", {"players": "9"})
    # R-DECK-AU
    with pytest.raises(RulesError, match="not 4"):
        make_rules("pagat", {"deck": "australian"})


def test_a_match_has_a_bounded_number_of_hands() -> None:
    # R-SEQ-FIXED: a fixed sequence or a list of hand sizes is refused beyond
    # MAX_HANDS at once, before any schedule is built (a server takes rule
    # options from anyone).
    from ohhell.rules import MAX_HANDS

    assert make_rules("pagat", {"sequence": "fixed", "fixed-hands": str(MAX_HANDS)}).schedule[-1] == 10
    with pytest.raises(RulesError, match="at most 200 hands"):
        make_rules("pagat", {"sequence": "fixed", "fixed-hands": "1000000000"})
    with pytest.raises(RulesError, match="at most 200 hands"):
        make_rules("pagat", {"hand-sizes": ",".join(["1"] * (MAX_HANDS + 1))})


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"hand-sizes": "2,x"}, "hand-sizes"),
        ({"tie-break": "coin"}, "tie-break"),
        ({"teams": "0+1+2+3+4"}, "teams"),
        ({"first-dealer": "9"}, "first-dealer"),
    ],
)
def test_a_refusal_carries_the_option_as_spelled(options: dict[str, str], option: str) -> None:
    # The words name the field for people; the command line names its flag from .option.
    with pytest.raises(RulesError) as info:
        make_rules("pagat", options)
    assert info.value.option == option and option not in str(info.value)
