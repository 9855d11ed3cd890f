"""The scorekeeper (issue 6): a game played with real cards, scored from its entries.

Hand facts (dealer, size, bidder, trump), refused entries with their reasons,
the seeds' own scoring examples, edits and undo with everything recalculated,
JSON and CSV, Okenuff's trump, doubling and settlement, teams, tie breaks, and
a cross-check against the engine: random matches fed to the sheet give the
same dealers, sizes, trumps, scores, totals and standings.
"""

from __future__ import annotations

import csv
import io
import json
import random

import pytest

from ohhell.bots.simulate import random_match
from ohhell.cards import Suit
from ohhell.rules import PRESETS, Bidding, Rules, TrumpMode
from ohhell.scorekeeper import KEEP, HandEntry, ScoreError, ScoreGame, parse_trump
from ohhell.scoring import standings
from support import refused_by

NAMES4 = ["Ann", "Bob", "Cid", "Dee"]
PAGAT = PRESETS["pagat"]
COMMON = PRESETS["common"]
OKENUFF = PRESETS["okenuff"]
TENS = PRESETS["classic-tens"]


def play_hand(
    game: ScoreGame, bids: dict[int, int], tricks: list[int], trump: Suit | str | None = ""
) -> None:
    """Enter one hand: bids in bidding order (given by seat), trump if named, tricks by seat."""
    view = game.current
    assert view is not None
    for seat in view.bidding_order:
        game.bid(seat, bids[seat])
    if trump != "":
        assert not isinstance(trump, str)
        game.name_trump(trump)
    game.tricks(tricks)


# --- What the sheet says about each hand ---


def test_dealer_size_first_bidder_and_leader_follow_the_rules() -> None:
    # R-DEALER-ROTATE, R-SEQ-DOWNUP, R-START, R-BID-ORDER, R-LEAD-LEFT.
    game = ScoreGame(PAGAT, NAMES4, first_dealer=2)
    assert len(PAGAT.schedule) == 19
    view = game.current
    assert view is not None
    assert (view.number, view.size, view.dealer, view.first_bidder, view.first_leader) == (1, 10, 2, 3, 3)
    assert view.bidding_order == (3, 0, 1, 2)
    play_hand(game, {0: 1, 1: 2, 2: 3, 3: 2}, [1, 2, 3, 4])
    view = game.current
    assert view is not None
    assert (view.number, view.size, view.dealer, view.first_bidder) == (2, 9, 3, 0)


def test_dealer_leads_under_classic_tens() -> None:
    # R-LEAD-DEALER (001).
    view = ScoreGame(TENS, NAMES4, first_dealer=1).current
    assert view is not None and view.first_leader == view.dealer == 1


def test_first_dealer_from_the_rules_or_given() -> None:
    # R-DEALER-DRAW: the table draws; the sheet needs the result. 004: players choose (common: seat 0).
    assert ScoreGame(COMMON, NAMES4).first_dealer == 0
    with refused_by("R-DEALER-DRAW", ScoreError):
        ScoreGame(PAGAT, NAMES4)
    with pytest.raises(ScoreError, match="seat from 1 to 4, not 5"):  # seats said from 1
        ScoreGame(PAGAT, NAMES4, first_dealer=4)


def test_players_must_match_the_rules() -> None:
    # R-PLAYERS
    with pytest.raises(ScoreError, match="4 players, but 3 names"):
        ScoreGame(PAGAT, NAMES4[:3], 0)
    with pytest.raises(ScoreError, match="same name"):
        ScoreGame(PAGAT, ["Ann", "ann", "Cid", "Dee"], 0)
    with pytest.raises(ScoreError, match="needs a name"):
        ScoreGame(PAGAT, ["Ann", " ", "Cid", "Dee"], 0)


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        (
            PAGAT.replace(trump=TrumpMode.ROTATE),
            [Suit.SPADES, Suit.DIAMONDS, Suit.CLUBS, Suit.HEARTS, Suit.SPADES],
        ),
        (PAGAT.replace(trump=TrumpMode.ROTATE, trump_rotation=(Suit.HEARTS, None)), [Suit.HEARTS, None] * 2),
        (PAGAT.replace(trump=TrumpMode.FIXED), [Suit.SPADES] * 4),
        (PAGAT.replace(trump=TrumpMode.NONE), [None] * 4),
    ],
)
def test_trump_where_the_rules_fix_it(rules: Rules, expected: list[Suit | None]) -> None:
    # R-TRUMP-ROTATE (Kachuful S, D, C, H; a no-trump step), R-TRUMP-FIXED ("Oh Shit!").
    game = ScoreGame(rules, NAMES4, 0)
    for want in expected:
        view = game.current
        assert view is not None and view.trump_known and view.trump == want
        size = view.size
        bids = {s: 0 for s in range(4)}
        bids[0] = 1 if size != 1 else 0  # the dealer, last, avoids the hook
        play_hand(game, bids, [size, 0, 0, 0])


def test_turned_trump_is_unknown_but_may_be_noted() -> None:
    # R-TRUMP-TURN: the sheet cannot know the turned card; the keeper may note its suit.
    game = ScoreGame(PAGAT, NAMES4, 0)
    view = game.current
    assert view is not None and not view.trump_known
    with pytest.raises(ScoreError, match="always has a suit"):
        game.name_trump(None)
    game.name_trump(Suit.HEARTS)
    assert game.current is not None and game.current.trump is Suit.HEARTS


def test_no_trump_when_every_card_is_dealt() -> None:
    # R-TRUMP-NONE-ALL-DEALT (003): 13 cards to 4 players leaves nothing to turn.
    game = ScoreGame(PAGAT.replace(hand_sizes=(13,)), NAMES4, 0)
    view = game.current
    assert view is not None and view.trump_known and view.trump is None
    with pytest.raises(ScoreError, match="every card is dealt, so there is no trump"):
        game.name_trump(Suit.SPADES)


def test_rotation_trump_cannot_be_named() -> None:
    game = ScoreGame(PAGAT.replace(trump=TrumpMode.ROTATE), NAMES4, 0)
    with pytest.raises(ScoreError, match="by the rotation"):
        game.name_trump(Suit.CLUBS)


# --- Bids ---


def test_bids_go_in_bidding_order() -> None:
    # R-BID-ORDER: left of the dealer first, the dealer last.
    game = ScoreGame(PAGAT, NAMES4, 0)
    with refused_by("R-BID-ORDER", ScoreError, match=r"it is Bob's turn to bid, not Cid's$"):
        game.bid(2, 1)
    game.bid(1, 1)
    with pytest.raises(ScoreError, match="Cid's turn"):
        game.bid(1, 2)
    assert game.entries == (HandEntry(bids=(None, 1, None, None)),)


@pytest.mark.parametrize("bad", [-1, 11, "2", 2.0, True])
def test_bid_out_of_range_is_refused(bad: object) -> None:
    # R-BID-RANGE: 0..cards in hand.
    game = ScoreGame(PAGAT, NAMES4, 0)
    with refused_by("R-BID-RANGE", ScoreError, match=r"a bid is from 0 to 10$"):
        game.bid(1, bad)  # type: ignore[arg-type]
    assert game.entries == ()


def test_the_hook_forbids_the_last_bid_with_its_reason() -> None:
    # R-HOOK, with 002's example: on a 6 deal, bids Two, One, Zero: the dealer may not bid Three.
    rules = PAGAT.replace(hand_sizes=(6,))
    game = ScoreGame(rules, NAMES4, 3)
    for seat, bid in ((0, 2), (1, 1), (2, 0)):
        game.bid(seat, bid)
    view = game.current
    assert view is not None and view.next_bidder == 3 and view.forbidden == 3
    with pytest.raises(ScoreError) as err:
        game.bid(3, 3)
    assert str(err.value) == "the hook forbids Dee to bid 3: the bids would total the 6 tricks"
    assert err.value.rule == "R-HOOK"
    game.bid(3, 4)
    assert game.current is not None and game.current.balance == "over"  # R-BID-ANNOUNCE


def test_hook_forbids_nothing_when_the_others_already_overbid() -> None:
    # R-HOOK: if the others bid more than the hand, no bid makes it even.
    game = ScoreGame(PAGAT.replace(hand_sizes=(2,)), NAMES4, 3)
    for seat in (0, 1, 2):
        game.bid(seat, 1)
    assert game.current is not None and game.current.forbidden is None
    game.bid(3, 0)


def test_no_hook_allows_an_even_total() -> None:
    # R-HOOK option off (001).
    game = ScoreGame(PAGAT.replace(hook=False, hand_sizes=(2,)), NAMES4, 3)
    for seat, bid in ((0, 1), (1, 1), (2, 0), (3, 0)):
        game.bid(seat, bid)
    assert game.current is not None and game.current.balance == "even"


def test_simultaneous_bids_in_any_order() -> None:
    # R-BID-SIMULTANEOUS: no order, no hook; each seat bids once.
    rules = PAGAT.replace(bidding=Bidding.SIMULTANEOUS, hook=False, bid_changes=False)
    game = ScoreGame(rules, NAMES4, 0)
    game.bid(3, 2)
    game.bid(0, 4)
    with pytest.raises(ScoreError, match="already"):
        game.bid(3, 1)
    game.bid(2, 3)
    game.bid(1, 1)
    assert game.current is not None and game.current.balance == "even"


def test_bids_after_the_last_are_refused() -> None:
    game = ScoreGame(PAGAT, NAMES4, 0)
    for seat, bid in ((1, 1), (2, 1), (3, 1), (0, 1)):
        game.bid(seat, bid)
    with pytest.raises(ScoreError, match="every player has bid"):
        game.bid(1, 2)


# --- Tricks ---


def test_tricks_must_total_the_hand_size() -> None:
    game = ScoreGame(PAGAT, NAMES4, 0)
    with pytest.raises(ScoreError, match="enter every bid"):
        game.tricks([4, 3, 2, 1])
    for seat, bid in ((1, 1), (2, 1), (3, 1), (0, 1)):
        game.bid(seat, bid)
    with pytest.raises(ScoreError) as err:
        game.tricks([4, 3, 2, 2])
    assert str(err.value) == "the tricks taken add up to 11, but the hand has 10 tricks"
    with pytest.raises(ScoreError, match="each of the 4 players, not 3"):
        game.tricks([4, 3, 3])
    with pytest.raises(ScoreError, match="Bob took -1 tricks"):
        game.tricks([10, -1, 1, 0])
    with pytest.raises(ScoreError, match="tricks taken by Dee are missing"):
        game.tricks({0: 4, 1: 3, 2: 3})
    game.tricks({0: 4, 1: 3, 2: 2, 3: 1})
    assert game.hands[0].tricks == (4, 3, 2, 1)


# --- The seeds' scoring examples ---


def test_pagat_scores_and_blobs() -> None:
    # R-SC-PAGAT (000): exact 10 + bid; a miss scores nothing, marked as a blob.
    game = ScoreGame(PAGAT, NAMES4, 0)
    play_hand(game, {1: 0, 2: 1, 3: 2, 0: 3}, [3, 0, 1, 6])
    hand = game.hands[0]
    assert hand.scores == (13, 10, 11, 0)
    assert hand.missed == (3,) and hand.exact == (0, 1, 2)
    assert game.totals == (13, 10, 11, 0)


def test_common_scoresheet_example() -> None:
    # R-SC-TRICKS-BONUS (004): "+1 point for each trick taken. +10 points for taking the exact number".
    game = ScoreGame(COMMON, NAMES4)
    play_hand(game, {1: 3, 2: 2, 3: 4, 0: 0}, [0, 3, 3, 4])
    assert game.hands[0].scores == (10, 13, 3, 14)
    play_hand(game, {2: 0, 3: 3, 0: 4, 1: 1}, [4, 2, 0, 3])
    assert game.hands[1].scores == (14, 2, 10, 13)
    assert game.running_totals() == [(10, 13, 3, 14), (24, 15, 13, 27)]
    assert game.exact_counts == (2, 1, 1, 2)
    assert game.exact_rates == (1.0, 0.5, 0.5, 1.0)


def test_tens_scores() -> None:
    # R-SC-TENS (001): 10 per trick bid and won, 10 for a made zero, -10 per trick missed.
    game = ScoreGame(TENS, NAMES4, 0)
    play_hand(game, {1: 0, 2: 3, 3: 4, 0: 2}, [2, 0, 1, 7])
    assert game.hands[0].scores == (20, 10, -20, -30)


def okenuff_13(first_dealer: int = 3) -> ScoreGame:
    return ScoreGame(OKENUFF.replace(hand_sizes=(13,)), NAMES4, first_dealer)


def test_okenuff_overcall_example_with_trump_named() -> None:
    # R-SC-OKENUFF, R-TRUMP-BIDDER (002): "on a 13 hand goes 2, 2, 5, 6, and the player who bid Six
    # ... taking only three tricks ... a total of -25".
    game = okenuff_13()
    for seat, bid in ((0, 2), (1, 2), (2, 5), (3, 6)):
        game.bid(seat, bid)
    view = game.current
    assert view is not None and view.trump_namer == 3 and view.needs_trump
    with pytest.raises(ScoreError, match="Dee bid highest and must name trump"):
        game.tricks([2, 3, 5, 3])
    game.name_trump(Suit.SPADES)
    game.tricks([2, 3, 5, 3])
    assert game.hands[0].scores == (8, -5, 35, -25)
    assert game.hands[0].trump is Suit.SPADES


def test_okenuff_no_trump_doubles_every_score() -> None:
    # R-SC-OKENUFF: "A declaration of no trump doubles all scores for that hand."
    game = okenuff_13()
    play_hand(game, {0: 2, 1: 2, 2: 5, 3: 6}, [2, 3, 5, 3], trump=None)
    assert game.hands[0].no_trump
    assert game.hands[0].scores == (16, -10, 70, -50)


def test_okenuff_penalty_off_when_the_six_came_first() -> None:
    # R-SC-OKENUFF: "2, 6, 5, 1 ... the penalty rule is not in effect".
    game = okenuff_13()
    play_hand(game, {0: 2, 1: 6, 2: 5, 3: 1}, [2, 3, 7, 1], trump=Suit.HEARTS)
    assert game.hands[0].trump_namer == 1
    assert game.hands[0].scores == (8, -15, -10, 6)


def test_okenuff_trump_namer_on_a_tie_is_the_first_in_bidding_order() -> None:
    # R-TRUMP-BIDDER: the first of the highest bidders names trump.
    game = okenuff_13(first_dealer=1)  # Cid bids first
    for seat, bid in ((2, 1), (3, 5), (0, 5), (1, 1)):
        game.bid(seat, bid)
    assert game.current is not None and game.current.trump_namer == 3


def test_trump_is_named_after_the_bidding() -> None:
    game = okenuff_13()
    with pytest.raises(ScoreError, match="after the bidding"):
        game.name_trump(Suit.CLUBS)


def test_revoke_costs_twenty() -> None:
    # R-REVOKE (002): "A revoke produces a 20 point penalty for the offender."
    game = okenuff_13()
    with pytest.raises(ScoreError, match="revoke happens in the play"):
        game.revoke(1)
    for seat, bid in ((0, 2), (1, 2), (2, 5), (3, 6)):
        game.bid(seat, bid)
    game.name_trump(Suit.SPADES)
    game.revoke(1)
    game.tricks([2, 3, 5, 3])
    assert game.hands[0].scores == (8, -25, 35, -25)
    game.revoke(0, hand=1)  # recorded afterwards
    assert game.hands[0].scores == (-12, -25, 35, -25)
    assert game.hands[0].revokes == (1, 0)


def test_okenuff_settlement() -> None:
    # R-SETTLE: "Each player settles with every other player on the difference in their final scores."
    game = ScoreGame(OKENUFF.replace(hand_sizes=(4, 5)), NAMES4, 3)
    play_hand(game, {0: 0, 1: 1, 2: 2, 3: 2}, [0, 1, 2, 1], trump=Suit.CLUBS)
    play_hand(game, {1: 2, 2: 0, 3: 1, 0: 1}, [1, 3, 1, 0], trump=None)
    assert game.is_over
    assert game.hands[0].scores == (5, 6, 8, -5)
    assert game.hands[1].scores == (12, -10, -10, -10)  # doubled: no trump named
    assert game.totals == (17, -4, -2, -15)
    assert game.settlement()[0] == [0, 21, 19, 32]
    assert game.settlement_net() == [72, -12, -4, -56]


# --- End of game: standings, tie breaks, teams ---


def test_most_exact_breaks_a_tie() -> None:
    # R-TIE-EXACT (004), R-SC-TRICKS-BONUS: Ann and Cid both have 21; Ann made 2 bids, Cid 1.
    rules = COMMON.replace(players=3, hand_sizes=(10, 10))
    game = ScoreGame(rules, ["Ann", "Bob", "Cid"], 0)
    play_hand(game, {1: 5, 2: 0, 0: 0}, [0, 1, 9])  # 10, 1, 9
    play_hand(game, {2: 2, 0: 1, 1: 0}, [1, 7, 2])  # 11, 7, 12
    assert game.is_over
    assert game.totals == (21, 8, 21) and game.exact_counts == (2, 0, 1)
    rows = game.standings()
    assert [(r.place, r.seats, r.exact) for r in rows] == [(1, (0,), 2), (2, (2,), 1), (3, (1,), 0)]
    # Without the tie break the two share first place (R-WIN).
    data = game.to_dict()
    plain = ScoreGame.from_dict(data | {"rules": data["rules"] | {"tie-break": "none"}})
    assert [r.place for r in plain.standings()] == [1, 1, 3]


def test_equal_totals_and_exact_bids_share_the_place() -> None:
    # R-WIN: a tie the rules do not break is shared.
    game = ScoreGame(PAGAT.replace(players=3, hand_sizes=(1,)), ["Ann", "Bob", "Cid"], 0)
    play_hand(game, {1: 0, 2: 0, 0: 0}, [1, 0, 0])
    assert [r.place for r in game.standings()] == [1, 1, 3]


def test_extra_hands_break_a_tie() -> None:
    # R-TIE-EXTRA (001): "In case of a tie after the last hand, deal another hand at that number of cards".
    rules = TENS.replace(players=3, hand_sizes=(1,))
    game = ScoreGame(rules, ["Ann", "Bob", "Cid"], 0)
    play_hand(game, {1: 0, 2: 0, 0: 0}, [1, 0, 0])  # -10, 10, 10: Bob and Cid tie
    view = game.current
    assert view is not None and view.extra and view.size == 1 and view.dealer == 1
    assert not game.is_over
    play_hand(game, {2: 0, 0: 0, 1: 0}, [0, 1, 0])  # 10, -10, 10: Cid leads alone
    assert game.is_over and game.totals == (0, 0, 20)
    assert game.standings()[0].seats == (2,)
    # An edit that ends the tie after hand 1 would leave hand 2 unplayed: refused, naming it.
    with pytest.raises(ScoreError, match="the edit is refused: hand 2 would not be played"):
        game.edit(1, bids=[1, 1, 1], tricks=[1, 0, 0])
    assert game.totals == (0, 0, 20)
    with pytest.raises(ScoreError, match="the game is over"):
        game.bid(2, 0)


def test_teams_combine_scores() -> None:
    # R-TEAMS (003): team totals decide the standings.
    rules = PRESETS["river"].replace(teams=((0, 2), (1, 3)), hand_sizes=(3,))
    game = ScoreGame(rules, NAMES4, 0)
    play_hand(game, {1: 1, 2: 1, 3: 0, 0: 0}, [0, 1, 2, 0])  # 10, 11, 0, 10
    assert game.totals == (10, 11, 0, 10)
    assert game.side_totals() == (10, 21)
    rows = game.standings()
    assert [(r.seats, r.total) for r in rows] == [((1, 3), 21), ((0, 2), 10)]
    assert game.side_name(rows[0].seats) == "Bob + Dee"


# --- Edit and undo ---


def two_hands() -> ScoreGame:
    game = ScoreGame(PAGAT, NAMES4, 0)
    play_hand(game, {1: 1, 2: 2, 3: 3, 0: 0}, [0, 1, 2, 7])  # 10, 11, 12, 0
    play_hand(game, {2: 0, 3: 3, 0: 3, 1: 2}, [3, 2, 0, 4])  # 13, 12, 10, 0
    return game


def test_edit_a_past_hand_recalculates_everything() -> None:
    game = two_hands()
    assert game.totals == (23, 23, 22, 0)
    game.edit(1, tricks=[1, 1, 2, 6])  # Ann now misses, Bob makes 1
    assert game.hands[0].scores == (0, 11, 12, 0)
    assert game.hands[1].totals == (13, 23, 22, 0)
    assert game.totals == (13, 23, 22, 0)
    game.edit(2, bids=[3, 1, 0, 4])
    assert game.hands[1].scores == (13, 0, 10, 14)
    assert game.totals == (13, 11, 22, 14)
    assert game.exact_counts == (1, 1, 2, 1)


def test_edit_refuses_bad_entries_and_changes_nothing() -> None:
    game = two_hands()
    before = game.entries
    with pytest.raises(ScoreError, match="add up to 10, but the hand has 9"):
        game.edit(2, tricks=[3, 2, 0, 5])
    with pytest.raises(ScoreError, match="hand 1: the hook forbids Ann, who bids last, to bid 4"):
        game.edit(1, bids=[4, 1, 2, 3])
    with pytest.raises(ScoreError, match="no hand 3 on the sheet"):
        game.edit(3, tricks=[1, 1, 1, 5])
    with pytest.raises(ScoreError, match="a turned card always has a suit"):
        game.edit(1, trump=None)
    assert game.entries == before


def test_undo_takes_back_entries_and_edits() -> None:
    game = two_hands()
    game.edit(1, tricks=[1, 1, 2, 6])
    assert game.undo() == "the edit of hand 1"
    assert game.totals == (23, 23, 22, 0)
    assert game.undo() == "tricks of hand 2"
    assert game.current is not None and game.current.number == 2 and game.current.bidding_done
    assert game.undo() == "Bob's bid"
    assert game.current is not None and game.current.next_bidder == 1
    game.bid(1, 1)
    for _ in range(4):
        game.undo()
    assert len(game.entries) == 1 and game.current is not None and game.current.number == 2
    assert game.undo() == "tricks of hand 1"


def test_undo_after_loading_removes_the_last_entry() -> None:
    game = ScoreGame.from_json(two_hands().to_json())
    assert game.undo() == "tricks of hand 2"
    assert game.undo() == "Bob's bid"
    assert game.entries[-1].bids == (3, None, 0, 3)
    for _ in range(3):
        game.undo()
    assert len(game.entries) == 1
    empty = ScoreGame(PAGAT, NAMES4, 0)
    with pytest.raises(ScoreError, match="nothing to undo"):
        empty.undo()


def test_edit_revokes_and_trump() -> None:
    game = okenuff_13()
    play_hand(game, {0: 2, 1: 2, 2: 5, 3: 6}, [2, 3, 5, 3], trump=Suit.SPADES)
    game.edit(1, trump=None)
    assert game.hands[0].scores == (16, -10, 70, -50)
    game.edit(1, revokes=[2, 2])
    assert game.hands[0].scores == (16, -10, 30, -50)
    game.edit(1, revokes=[], trump=KEEP)
    assert game.hands[0].scores == (16, -10, 70, -50)


# --- JSON and CSV ---


def test_json_round_trip() -> None:
    game = okenuff_13()
    play_hand(game, {0: 2, 1: 2, 2: 5, 3: 6}, [2, 3, 5, 3], trump=None)
    text = game.to_json()
    data = json.loads(text)
    assert data["format"] == "ohhell-scoresheet" and data["version"] == 2
    # Seats in the file count from 1: Dee, the fourth player, deals first.
    assert data["first_dealer"] == 4 and data["rules"]["first-dealer"] == "4"
    assert data["hands"][0] == {"bids": [2, 2, 5, 6], "trump": "NT", "tricks": [2, 3, 5, 3], "revokes": []}
    assert data["summary"]["settlement"] == game.settlement_net()
    again = ScoreGame.from_json(text)
    assert again.rules == game.rules and again.players == game.players
    assert again.entries == game.entries and again.totals == game.totals
    assert again.to_json() == text


def test_json_in_progress_round_trip() -> None:
    game = ScoreGame(PAGAT, NAMES4, 1)
    game.bid(2, 3)
    game.name_trump(Suit.DIAMONDS)
    again = ScoreGame.from_json(game.to_json())
    assert again.entries == game.entries
    assert again.current is not None and again.current.next_bidder == 3


def test_json_refuses_bad_sheets() -> None:
    good = json.loads(two_hands().to_json())
    with pytest.raises(ScoreError, match="version 99"):
        ScoreGame.from_json(json.dumps(good | {"version": 99}))
    with pytest.raises(ScoreError, match="not an ohhell-scoresheet"):
        ScoreGame.from_json("{}")
    with pytest.raises(ScoreError, match="not JSON"):
        ScoreGame.from_json("{")
    tampered = json.loads(json.dumps(good))
    tampered["hands"][1]["tricks"] = [3, 2, 0, 5]
    with pytest.raises(ScoreError, match="hand 2: the tricks taken add up to 10"):
        ScoreGame.from_json(json.dumps(tampered))
    with pytest.raises(ScoreError, match="rules cannot be read"):
        ScoreGame.from_json(json.dumps(good | {"rules": {"players": "9"}}))
    with pytest.raises(ScoreError, match="malformed"):
        ScoreGame.from_json(json.dumps({k: v for k, v in good.items() if k != "hands"}))


def test_csv_content() -> None:
    game = two_hands()
    game.bid(3, 1)
    rows = list(csv.DictReader(io.StringIO(game.to_csv())))
    assert len(rows) == 3
    first = rows[0]
    assert (first["hand"], first["cards"], first["dealer"], first["first bidder"]) == (
        "1",
        "10",
        "Ann",
        "Bob",
    )
    assert (first["balance"], first["Ann bid"], first["Ann took"], first["Ann made"]) == (
        "under",
        "0",
        "0",
        "yes",
    )
    assert (first["Dee score"], first["Dee made"], first["Bob total"]) == ("0", "no", "11")
    assert rows[1]["Ann total"] == "23"
    assert rows[2]["Dee bid"] == "1" and rows[2]["Dee took"] == ""


def test_parse_trump() -> None:
    assert parse_trump("♠") is Suit.SPADES and parse_trump("no trump") is None
    with pytest.raises(ScoreError, match="NT for no trump"):
        parse_trump("X")


# --- The engine cross-check ---

CROSS_RULES = [
    *PRESETS.values(),
    PAGAT.replace(trump=TrumpMode.ROTATE, trump_rotation=(Suit.SPADES, None), no_trump_doubles=True),
    TENS.replace(players=3, hand_sizes=(1, 1, 1)),
    PAGAT.replace(bidding=Bidding.SIMULTANEOUS, hook=False, bid_changes=False, players=5),
    PRESETS["river"].replace(teams=((0, 2), (1, 3)), trump=TrumpMode.FIXED, trump_suit=Suit.HEARTS),
    PAGAT.replace(deck="australian", players=5, no_trump_doubles=True, scoring="squares"),
    COMMON.replace(players=7, scoring="fives"),
]


@pytest.mark.parametrize("rules", CROSS_RULES, ids=lambda r: f"{r.scoring}-{r.trump}-{r.players}")
def test_the_sheet_agrees_with_the_engine(rules: Rules) -> None:
    # Random matches played by the engine, then their bids, trump and tricks fed to the sheet:
    # the same dealer, size, extra hands, trump, scores, totals, exact bids and standings.
    extra_seen = 0
    for seed in range(12):
        rng = random.Random(seed)
        state = random_match(rules, rng)
        game = ScoreGame(rules, [f"P{s}" for s in range(rules.players)], state.results[0].dealer)
        for result in state.results:
            view = game.current
            assert view is not None
            assert (view.number, view.size, view.dealer, view.extra) == (
                result.number,
                result.size,
                result.dealer,
                result.extra,
            )
            order = list(view.bidding_order)
            if rules.bidding is Bidding.SIMULTANEOUS:
                rng.shuffle(order)
            for seat in order:
                game.bid(seat, result.bids[seat])
            if rules.trump is TrumpMode.BIDDER:
                assert game.current is not None and game.current.trump_namer == result.trump_namer
                game.name_trump(result.trump)
            elif rules.trump is TrumpMode.TURN and result.turned is not None:
                game.name_trump(result.trump)
            game.tricks(list(result.tricks))
            hand = game.hands[-1]
            assert hand.trump_known and hand.trump == result.trump
            assert hand.scores == result.scores
            extra_seen += result.extra
        assert game.is_over
        assert game.totals == tuple(state.totals)
        assert list(game.exact_counts) == state.exact
        assert game.standings() == standings(rules, state.totals, state.exact)
        assert ScoreGame.from_json(game.to_json()).totals == game.totals
    if rules.hand_sizes == (1, 1, 1):
        assert extra_seen, "the tie-break rule set should have played extra hands"


def test_a_version_1_file_still_loads() -> None:
    # Version 1 counted seats from 0 and could say "draw" beside the dealer picked.
    old = {
        "format": "ohhell-scoresheet",
        "version": 1,
        "players": NAMES4,
        "first_dealer": 2,
        "rules": PAGAT.replace(hand_sizes=(2, 1)).options(),
        "hands": [{"bids": [1, 0, 1, 1], "trump": None, "tricks": [1, 0, 1, 0], "revokes": [3]}],
    }
    assert old["rules"]["first-dealer"] == "draw"
    game = ScoreGame.from_dict(old)
    assert game.first_dealer == 2 and game.rules.first_dealer == 2  # Cid, R-DEALER-DRAW done at the table
    assert game.entries[0].revokes == (3,)  # Dee
    data = game.to_dict()
    assert (data["version"], data["first_dealer"], data["rules"]["first-dealer"]) == (2, 3, "3")
    assert data["hands"][0]["revokes"] == [4]
    assert ScoreGame.from_dict(data).entries == game.entries


def test_teams_in_the_file_count_from_1() -> None:
    # R-TEAMS: the file's teams are written as the command line takes them.
    game = ScoreGame(PAGAT.replace(teams=((0, 2), (1, 3))), NAMES4, 1)
    data = game.to_dict()
    assert data["rules"]["teams"] == "1+3,2+4" and data["first_dealer"] == 2
    assert ScoreGame.from_dict(data).rules == game.rules


def test_a_bad_first_dealer_in_a_file_is_refused_in_seats_from_1() -> None:
    data = ScoreGame(PAGAT, NAMES4, 0).to_dict() | {"first_dealer": 0}
    with pytest.raises(ScoreError, match="a seat number from 1 to 4, not 0"):
        ScoreGame.from_dict(data)


def test_the_date_is_kept() -> None:
    game = ScoreGame(PAGAT, NAMES4, 0, date="2026-11-27")
    assert ScoreGame.from_json(game.to_json()).date == "2026-11-27"
    assert "date" not in ScoreGame(PAGAT, NAMES4, 0).to_dict()
