"""The match as a whole: the draw for dealer, dealing, trump, bad input, and
whole matches played out (rotation, fresh packs, scores, tie breaks, teams).

Bidding is in test_bidding.py and card play in test_play.py. Known deals are
built with ``Deal(hands_by_seat, turned)`` and applied step by step.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

import pytest

from ohhell import (
    ALL_CARDS,
    PRESETS,
    Bid,
    Bidding,
    Card,
    ChangeBid,
    Deal,
    Deck,
    DrawForDealer,
    GameState,
    IllegalActionError,
    NameTrump,
    Phase,
    Play,
    Rules,
    Sequence,
    Suit,
    TieBreak,
    TrumpMode,
    actors,
    advance_chance,
    apply,
    australian_deck,
    chance_action,
    check,
    deal_from,
    is_legal,
    legal_actions,
    new_game,
    observe,
    parse_cards,
    score_hand,
    standard_deck,
    standings,
    winners,
)
from ohhell.scoring import side_totals
from support import dealt, refused_by, snapshot

# --- Helpers ---


def make_deal(hands: str, turned: str | None = None) -> Deal:
    """A deal from text: the hands by seat separated by '|'."""
    return Deal(
        tuple(tuple(parse_cards(h)) for h in hands.split("|")),
        Card.parse(turned) if turned is not None else None,
    )


def play_all(state: GameState, *actions: Any) -> None:
    for action in actions:
        apply(state, action)


def playout(state: GameState, rng: random.Random, stop: Any = None) -> None:
    """Play on with random legal actions (chance from ``rng``) until the match
    is over or ``stop(state)`` is true."""
    while not state.is_over and not (stop and stop(state)):
        if state.is_chance:
            apply(state, chance_action(state, rng))
            continue
        seat = actors(state)[0]  # the seat to act; a bid changer is second
        apply(state, rng.choice(legal_actions(state, seat)))


def trick_winner(cards: tuple[Card, ...], leader: int, players: int, trump: Suit | None) -> int:
    """R-TRICK, written independently of the engine: the highest trump, else the
    highest card of the suit led; of identical cards the later one (R-DECK-AU)."""
    best = 0
    for i in range(1, len(cards)):
        card, top = cards[i], cards[best]
        ruffs = card.suit is trump and top.suit is not trump
        beats = card.suit is top.suit and card.rank >= top.rank
        if ruffs or beats:
            best = i
    return (leader + best) % players


# --- R-DEALER-DRAW, R-DEALER-ROTATE ---


def test_dealer_draw_highest_card_deals() -> None:
    # R-DEALER-DRAW: the highest card deals; the ace is high.
    state = new_game(PRESETS["pagat"])
    assert state.phase is Phase.DRAW and state.contenders == (0, 1, 2, 3)
    assert actors(state) == () and all(legal_actions(state, s) == [] for s in range(4))
    apply(state, DrawForDealer(tuple(parse_cards("5C KD AH 9S"))))
    assert state.phase is Phase.DEAL
    assert state.dealer == 2


def test_dealer_draw_ties_redraw_among_the_tied_only() -> None:
    # R-DEALER-DRAW: a tie for highest (suits do not break it) redraws, and only
    # the tied seats draw again.
    state = new_game(PRESETS["pagat"])
    apply(state, DrawForDealer(tuple(parse_cards("KC KD 2H KS"))))
    assert state.phase is Phase.DRAW
    assert state.contenders == (0, 1, 3)
    before = snapshot(state)
    wrong = DrawForDealer((*parse_cards("AC 3D AH"), None))  # seat 2 draws, seat 3 does not
    with refused_by("R-DEALER-DRAW"):
        apply(state, wrong)
    assert snapshot(state) == before
    apply(state, DrawForDealer((Card.parse("2C"), Card.parse("AD"), None, Card.parse("AS"))))
    assert state.phase is Phase.DRAW and state.contenders == (1, 3)
    apply(state, DrawForDealer((None, Card.parse("3C"), None, Card.parse("4C"))))
    assert state.phase is Phase.DEAL and state.dealer == 3
    assert len(state.draws) == 3 and state.log == state.draws


def test_dealer_draw_refuses_one_card_drawn_twice() -> None:
    # R-DEALER-DRAW: each round is drawn from one pack.
    state = new_game(PRESETS["river"])
    before = snapshot(state)
    with refused_by("R-DEALER-DRAW"):
        apply(state, DrawForDealer(tuple(parse_cards("KC KC 2H 3S"))))
    assert snapshot(state) == before


@pytest.mark.parametrize("seed", range(20))
def test_dealer_draw_from_chance_ends_with_the_highest_card(seed: int) -> None:
    # R-DEALER-DRAW: chance draws distinct cards for the contenders only, and
    # the last round has a single highest card, whose seat deals.
    state = new_game(PRESETS["pagat"].replace(players=7))
    rng = random.Random(seed)
    while state.phase is Phase.DRAW:
        action = chance_action(state, rng)
        assert isinstance(action, DrawForDealer)
        drawing = [s for s, c in enumerate(action.cards) if c is not None]
        assert tuple(drawing) == state.contenders
        assert len({action.cards[s] for s in drawing}) == len(drawing)
        apply(state, action)
    last = state.draws[-1].cards
    top = max(c.rank for c in last if c is not None)
    assert [s for s, c in enumerate(last) if c is not None and c.rank == top] == [state.dealer]


def test_chosen_first_dealer_skips_the_draw() -> None:
    # R-DEALER-DRAW (004): the players may choose the first dealer.
    state = new_game(Rules(first_dealer=2))
    assert state.phase is Phase.DEAL and state.dealer == 2 and state.draws == []
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="no draw for dealer now"):
        apply(state, DrawForDealer(tuple(parse_cards("5C KD AH 9S"))))
    assert snapshot(state) == before
    advance_chance(state, random.Random(1))
    assert state.phase is Phase.BID and state.to_act == 3  # left of seat 2


def test_dealer_rotates_one_seat_clockwise_each_hand() -> None:
    # R-DEALER-ROTATE: the deal passes to the left each hand.
    state = new_game(PRESETS["pagat"].replace(players=5, first_dealer=3))
    playout(state, random.Random(5))
    assert len(state.results) == 19
    assert [r.dealer for r in state.results] == [(3 + i) % 5 for i in range(19)]


# --- R-DEAL, R-DECK-2 ---


def test_deal_from_deals_singly_clockwise_from_left_of_dealer() -> None:
    # R-DEAL: card k of the pack goes to seat dealer + 1 + k.
    pack = standard_deck()  # 2C 3C 4C ... AC 2D ...
    hands = deal_from(pack, 1, 4, 3)
    assert hands[2] == tuple(parse_cards("2C 6C 10C"))
    assert hands[3] == tuple(parse_cards("3C 7C JC"))
    assert hands[0] == tuple(parse_cards("4C 8C QC"))
    assert hands[1] == tuple(parse_cards("5C 9C KC"))  # the dealer gets the last card
    assert deal_from(pack, 2, 3, 2) == (
        tuple(parse_cards("2C 5C")),
        tuple(parse_cards("3C 6C")),
        tuple(parse_cards("4C 7C")),
    )


@pytest.mark.parametrize(
    "rules",
    [PRESETS["pagat"].replace(first_dealer=1), Rules(players=5, deck=Deck.AUSTRALIAN, first_dealer=4)],
    ids=["standard", "australian-5"],
)
def test_every_deal_is_a_fresh_full_pack(rules: Rules) -> None:
    # R-DECK-2, R-DEAL, R-TRUMP-TURN: each deal is a full pack shuffled by the
    # rng, dealt singly from left of the dealer, the next card turned; cards of
    # earlier hands are in the pack again.
    state = new_game(rules)
    rng = random.Random(11)
    seen: Counter[Card] = Counter()
    full = standard_deck() if rules.deck is Deck.STANDARD else australian_deck(rules.players)
    while not state.is_over:
        if state.is_chance:
            twin = random.Random()
            twin.setstate(rng.getstate())
            pack = list(full)
            twin.shuffle(pack)
            n, size = state.players, state.hand_size
            action = chance_action(state, rng)
            assert action == Deal(
                deal_from(pack, state.dealer, n, size),
                pack[n * size] if n * size < len(pack) else None,
            )
            seen.update(c for h in action.hands for c in h)
            apply(state, action)
        else:
            apply(state, legal_actions(state, actors(state)[0])[0])
    assert sum(seen.values()) > len(full)  # more cards were dealt than one pack holds


# --- Trump ---


def test_turned_card_sets_trump_and_everyone_sees_it() -> None:
    # R-TRUMP-TURN: the next card is turned; its suit is trump; all may see it.
    rules = PRESETS["pagat"].replace(first_dealer=0, hand_sizes=(2,))
    state = dealt(rules, "AS 2S | AH 2H | AD 2D | AC 2C", "7H")
    assert state.turned == Card.parse("7H") and state.trump is Suit.HEARTS
    for seat in (0, 1, 2, 3, None):
        view = observe(state, seat)
        assert view.turned == Card.parse("7H") and view.trump is Suit.HEARTS


def test_a_deal_must_turn_a_card_when_cards_are_left() -> None:
    # R-TRUMP-TURN: a deal without its turned card, or turning a dealt card, is refused.
    state = new_game(PRESETS["pagat"].replace(first_dealer=0, hand_sizes=(2,)))
    before = snapshot(state)
    with refused_by("R-TRUMP-TURN"):
        apply(state, make_deal("AS 2S | AH 2H | AD 2D | AC 2C"))
    with pytest.raises(IllegalActionError, match="2H is dealt 2 times"):
        apply(state, make_deal("AS 2S | AH 2H | AD 2D | AC 2C", "2H"))
    assert snapshot(state) == before


def test_no_trump_when_all_cards_are_dealt_four_players() -> None:
    # R-TRUMP-NONE-ALL-DEALT: 4 x 13 cards leaves nothing to turn.
    rules = Rules(first_dealer=0, hand_sizes=(13, 12))
    state = new_game(rules)
    hands = deal_from(standard_deck(), 0, 4, 13)
    before = snapshot(state)
    with refused_by("R-TRUMP-NONE-ALL-DEALT"):
        apply(state, Deal(hands, Card.parse("AS")))
    assert snapshot(state) == before
    assert chance_action(state, random.Random(3)).turned is None  # type: ignore[union-attr]
    apply(state, Deal(hands, None))
    assert state.turned is None and state.trump is None
    assert observe(state, 1).trump is None and observe(state, 1).trump_decided
    # The next hand (12 cards) leaves 4 cards, so a card is turned again.
    playout(state, random.Random(3), stop=lambda s: s.phase is Phase.DEAL)
    assert chance_action(state, random.Random(3)).turned is not None  # type: ignore[union-attr]


@pytest.mark.parametrize("players", [5, 6])
def test_no_trump_on_the_first_australian_hand(players: int) -> None:
    # R-DECK-AU, R-TRUMP-NONE-ALL-DEALT: 65 or 78 cards, 13 each, all dealt.
    rules = Rules(players=players, deck=Deck.AUSTRALIAN, first_dealer=0)
    assert rules.schedule[0] == 13 and rules.deck_size == 13 * players
    state = new_game(rules)
    hands = deal_from(australian_deck(players), 0, players, 13)
    with refused_by("R-TRUMP-NONE-ALL-DEALT"):
        apply(state, Deal(hands, Card.parse("AS")))
    action = chance_action(state, random.Random(2))
    assert isinstance(action, Deal) and action.turned is None
    apply(state, Deal(hands, None))
    assert state.trump is None and state.phase is Phase.BID


def test_trump_rotates_kachuful_order() -> None:
    # R-TRUMP-ROTATE: spades, diamonds, clubs, hearts, then spades again; no card turned.
    rules = Rules(trump=TrumpMode.ROTATE, first_dealer=0, hand_sizes=(1,) * 6)
    state = new_game(rules)
    with pytest.raises(IllegalActionError, match="trump is not turned"):
        apply(state, make_deal("AS | AH | AD | AC", "2C"))
    playout(state, random.Random(4))
    assert [r.trump for r in state.results] == [
        Suit.SPADES,
        Suit.DIAMONDS,
        Suit.CLUBS,
        Suit.HEARTS,
        Suit.SPADES,
        Suit.DIAMONDS,
    ]
    assert all(r.turned is None for r in state.results)


def test_trump_rotation_with_a_no_trump_step() -> None:
    # R-TRUMP-ROTATE: a rotation may include "no trumps" (None).
    rules = Rules(
        trump=TrumpMode.ROTATE, trump_rotation=(Suit.HEARTS, None), first_dealer=2, hand_sizes=(2,) * 5
    )
    state = new_game(rules)
    playout(state, random.Random(8))
    assert [r.trump for r in state.results] == [Suit.HEARTS, None, Suit.HEARTS, None, Suit.HEARTS]


def test_fixed_trump_is_spades_every_hand() -> None:
    # R-TRUMP-FIXED: "Oh Shit!": spades are always trump; no card is turned.
    state = new_game(Rules(trump=TrumpMode.FIXED, first_dealer=1, hand_sizes=(3, 2, 1)))
    playout(state, random.Random(9))
    assert [r.trump for r in state.results] == [Suit.SPADES] * 3
    assert [r.turned for r in state.results] == [None] * 3


OKENUFF = PRESETS["okenuff"].replace(first_dealer=0)
OKENUFF_DEAL = "AS KS QS JS | AH KH QH JH | AD KD QD JD | AC KC QC JC"


@pytest.mark.parametrize(
    ("bids", "namer"),
    [
        ((2, 3, 1, 3), 2),  # seats 2 and 0 tie at 3: seat 2 bid first
        ((3, 0, 2, 3), 1),  # seats 1 and 0 tie: seat 1 bid first
        ((1, 2, 1, 4), 0),  # the dealer's 4 is highest
        ((0, 0, 0, 0), 1),  # all tie: the first bidder names
    ],
)
def test_highest_bidder_names_trump_first_of_a_tie(bids: tuple[int, ...], namer: int) -> None:
    # R-TRUMP-BIDDER: after bidding, the highest bidder (the first of them in
    # bidding order on a tie) names a suit or no trump; only that seat may.
    state = dealt(OKENUFF, OKENUFF_DEAL)
    assert state.trump is None and state.turned is None
    for i, bid in enumerate(bids):
        apply(state, Bid((1 + i) % 4, bid))
    assert state.phase is Phase.TRUMP and state.trump_namer == namer
    assert actors(state) == (namer,)
    assert legal_actions(state, namer) == [NameTrump(namer, t) for t in (*Suit, None)]
    assert not observe(state, namer).trump_decided
    other = (namer + 1) % 4
    assert legal_actions(state, other) == []
    before = snapshot(state)
    with refused_by("R-TRUMP-BIDDER"):
        apply(state, NameTrump(other, Suit.HEARTS))
    assert snapshot(state) == before


@pytest.mark.parametrize("suit", [Suit.CLUBS, None])
def test_named_trump_starts_play(suit: Suit | None) -> None:
    # R-TRUMP-BIDDER: a suit or no trump; then the left of the dealer leads.
    state = dealt(OKENUFF, OKENUFF_DEAL)
    play_all(state, Bid(1, 2), Bid(2, 3), Bid(3, 1), Bid(0, 3), NameTrump(2, suit))
    assert state.phase is Phase.PLAY and state.trump is suit and state.to_act == 1
    assert observe(state, 3).trump is suit and observe(state, 3).trump_decided


# --- Bad input leaves the state unchanged ---


def _bidding() -> GameState:
    # pagat, dealer 0: seat 1 has bid 1, seat 2 is to bid (seat 1 may change).
    state = dealt(
        PRESETS["pagat"].replace(first_dealer=0, hand_sizes=(3,)),
        "AS KS QS | AH KH QH | AD KD 2H | AC KC QC",
        "2C",
    )
    apply(state, Bid(1, 1))
    return state


def _dealer_bids() -> GameState:
    state = _bidding()
    play_all(state, Bid(2, 1), Bid(3, 0))  # total 2: the hook forbids the dealer 1
    return state


def _playing() -> GameState:
    state = _dealer_bids()
    apply(state, Bid(0, 0))
    apply(state, Play(1, Card.parse("AH")))  # seat 2 holds 2H and must follow hearts
    return state


def _not_started() -> GameState:
    return new_game(PRESETS["pagat"].replace(first_dealer=0, hand_sizes=(3,)))


def _over() -> GameState:
    state = new_game(PRESETS["pagat"].replace(first_dealer=0, hand_sizes=(1,)))
    playout(state, random.Random(0))
    return state


BAD = [
    ("no-such-seat", _bidding, Bid(9, 1), "there is no seat 9"),
    ("negative-seat", _bidding, Bid(-1, 1), "there is no seat -1"),
    ("bid-out-of-turn", _bidding, Bid(3, 1), "R-BID-ORDER: turn to bid, not seat 3"),
    ("bid-too-big", _bidding, Bid(2, 4), "R-BID-RANGE: a number of tricks from 0 to 3"),
    ("bid-negative", _bidding, Bid(2, -1), "R-BID-RANGE: seat 2 bid -1"),
    ("bid-text", _bidding, Bid(2, "1"), "R-BID-RANGE: seat 2 bid '1'"),
    ("bid-float", _bidding, Bid(2, 1.0), "R-BID-RANGE: seat 2 bid 1.0"),
    ("bid-bool", _bidding, Bid(2, True), "R-BID-RANGE: seat 2 bid True"),
    ("change-not-previous", _dealer_bids, ChangeBid(2, 0), "R-BID-CHANGE: seat 2 may not change its bid"),
    ("change-out-of-range", _bidding, ChangeBid(1, 4), "R-BID-RANGE: seat 1 bid 4"),
    ("hooked-bid", _dealer_bids, Bid(0, 1), "R-HOOK: the hook forbids seat 0 to bid 1"),
    ("play-in-bidding", _bidding, Play(2, Card.parse("AD")), "no card may be played now"),
    ("name-trump-not-bidder-rules", _bidding, NameTrump(2, Suit.CLUBS), "no trump to name now"),
    ("must-follow", _playing, Play(2, Card.parse("AD")), "R-FOLLOW: seat 2 must follow hearts"),
    ("card-not-held", _playing, Play(2, Card.parse("AS")), "seat 2 does not hold AS"),
    ("card-text", _playing, Play(2, "2H"), "does not hold"),
    ("play-out-of-turn", _playing, Play(3, Card.parse("AC")), "seat 2's turn to play, not seat 3's"),
    ("blind-play-not-bridge", _playing, Play(2, None), "Devil's Bridge"),
    ("bid-in-play", _playing, Bid(2, 1), "no bidding now"),
    ("deal-in-play", _playing, make_deal("AS KS QS | AH KH QH | AD KD QD | AC KC QC", "2C"), "no deal now"),
    ("draw-in-play", _playing, DrawForDealer(tuple(parse_cards("5C KD AH 9S"))), "no draw for dealer now"),
    ("draw-chosen-dealer", _not_started, DrawForDealer(tuple(parse_cards("5C KD AH 9S"))), "no draw"),
    (
        "deal-short-hand",
        _not_started,
        make_deal("AS KS QS | AH KH | AD KD QD | AC KC QC", "2C"),
        "seat 1 got 2",
    ),
    ("deal-three-hands", _not_started, make_deal("AS KS QS | AH KH QH | AD KD QD", "2C"), "gives 4 hands"),
    (
        "deal-twice",
        _not_started,
        make_deal("AS KS QS | AH KH QH | AD KD AS | AC KC QC", "2C"),
        "AS is dealt 2",
    ),
    ("deal-not-cards", _not_started, Deal(((1, 2, 3),) * 4, Card.parse("2C")), "not a card"),
    ("bid-after-end", _over, Bid(1, 0), "no bidding now"),
    ("play-after-end", _over, Play(1, Card.parse("AS")), "no card may be played now"),
    ("text-action", _bidding, "bid 2 1", "is not an Oh Hell action"),
    ("none-action", _bidding, None, "is not an Oh Hell action"),
    ("tuple-action", _bidding, (2, 1), "is not an Oh Hell action"),
]


@pytest.mark.parametrize(("make", "action", "message"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_is_refused_and_changes_nothing(make: Any, action: Any, message: str) -> None:
    # R-BID-ORDER, R-BID-RANGE, R-BID-CHANGE, R-HOOK, R-FOLLOW, R-DEAL, R-DEALER-DRAW:
    # apply checks completely first; an illegal action raises a message that
    # names the fault in plain words (the rule point as a field, "R-ID: words"
    # here), and the state is exactly as it was.
    rule, _, words = message.rpartition(": ") if message.startswith("R-") else ("", "", message)
    state = make()
    before = snapshot(state)
    for attempt in (apply, check):
        with pytest.raises(IllegalActionError, match=re.escape(words)) as info:
            attempt(state, action)
        assert snapshot(state) == before
        if rule:
            assert info.value.rule == rule
        assert "R-" not in str(info.value)
        if hasattr(action, "seat"):
            assert info.value.action == action and info.value.seat == action.seat
    assert not is_legal(state, action)


# --- Whole matches: scores, the end, tie breaks, teams ---


def _variants() -> list[tuple[str, Rules]]:
    out = [
        (f"{name}-{n}", rules.replace(players=n))
        for name, rules in PRESETS.items()
        if name != "okenuff"
        for n in (3, 5, 7)
    ]
    out.append(("okenuff-4", PRESETS["okenuff"]))
    out.append(("australian-6", PRESETS["classic-tens"].replace(players=6, deck=Deck.AUSTRALIAN)))
    out.append(("devils-bridge", PRESETS["river"].replace(devils_bridge=True, sequence=Sequence.UP_DOWN)))
    out.append(("fixed-trump", PRESETS["common"].replace(trump=TrumpMode.FIXED, hook=False)))
    out.append(("simultaneous", PRESETS["classic-tens"].replace(bidding=Bidding.SIMULTANEOUS, hook=False)))
    return out


VARIANTS = _variants()


@pytest.mark.parametrize(
    ("seed", "rules"), list(enumerate(v[1] for v in VARIANTS)), ids=[v[0] for v in VARIANTS]
)
def test_whole_match_scores_tricks_and_winner(seed: int, rules: Rules) -> None:
    # R-WIN, R-TRICK, R-FOLLOW, R-HOOK: each hand's scores equal score_hand of
    # its bids and tricks, each trick goes to the seat an independent R-TRICK
    # gives and every play followed suit when it could; totals are the sums.
    state = new_game(rules)
    rng = random.Random(seed)
    n = rules.players
    tricks_checked = 0
    while not state.is_over:
        if state.is_chance:
            apply(state, chance_action(state, rng))
            continue
        seat = actors(state)[0]
        action = rng.choice(legal_actions(state, seat))
        if state.phase is Phase.PLAY and state.trick and isinstance(action, Play) and action.card is not None:
            led = state.trick[0].suit
            assert action.card.suit is led or all(c.suit is not led for c in state.hands[seat])
        done = len(state.tricks)
        apply(state, action)
        if len(state.tricks) > done:
            t = state.tricks[-1]
            assert t.winner == trick_winner(t.cards, t.leader, n, state.trump)
            if state.phase is Phase.PLAY:
                assert state.to_act == t.winner == state.leader  # the winner leads next
            tricks_checked += 1
    assert tricks_checked > 0
    totals = [0] * n
    for r in state.results:
        assert sum(r.tricks) == r.size
        if rules.hook:
            assert sum(r.bids) != r.size
        first = (r.dealer + 1) % n
        assert r.scores == score_hand(
            rules, r.bids, r.tricks, first_bidder=first, trump_namer=r.trump_namer, no_trump=r.trump is None
        )
        totals = [a + b for a, b in zip(totals, r.scores, strict=True)]
    assert state.totals == totals
    assert state.exact == [sum(r.exact[s] for r in state.results) for s in range(n)]
    best = max(totals)
    tops = [(s,) for s in range(n) if totals[s] == best]
    if rules.tie_break is TieBreak.MOST_EXACT:
        assert set(winners(rules, totals, state.exact)) <= set(tops)
    else:
        assert winners(rules, totals, state.exact) == tops
    if rules.tie_break is TieBreak.EXTRA_HANDS:
        assert len(tops) == 1
    assert actors(state) == () and all(legal_actions(state, s) == [] for s in range(n))


TIE_RULES = PRESETS["classic-tens"].replace(players=3, hand_sizes=(1,), first_dealer=0)


def test_tie_plays_extra_hands_of_the_last_size_until_one_leads() -> None:
    # R-TIE-EXTRA (classic-tens: dealer leads, 10 per trick or 10 for a made 0,
    # -10 per trick off). With the hook, someone misses every 1-card hand.
    state = dealt(TIE_RULES, "AS | 2C | 3C", "KH")
    play_all(state, Bid(1, 0), Bid(2, 0))
    assert legal_actions(state, 0) == [Bid(0, 0)]  # R-HOOK: the only bid left
    play_all(
        state, Bid(0, 0), Play(0, Card.parse("AS")), Play(1, Card.parse("2C")), Play(2, Card.parse("3C"))
    )
    assert state.totals == [-10, 10, 10]  # seats 1 and 2 tie for the lead
    assert state.phase is Phase.DEAL and state.hand_size == 1 and state.dealer == 1
    assert state.is_extra_hand and observe(state, 0).extra_hand
    # Extra hand 1, dealer 1 leads: seat 0 takes the trick it bid 0 for.
    apply(state, make_deal("4C | 2C | 3D", "KH"))
    play_all(state, Bid(2, 0), Bid(0, 0), Bid(1, 0))
    play_all(state, Play(1, Card.parse("2C")), Play(2, Card.parse("3D")), Play(0, Card.parse("4C")))
    assert state.totals == [-20, 20, 20] and state.phase is Phase.DEAL
    # Extra hand 2, dealer 2 leads and takes the trick it bid 0 for: seat 1 leads alone.
    apply(state, make_deal("2C | 3C | AS", "KH"))
    play_all(state, Bid(0, 0), Bid(1, 0), Bid(2, 0))
    play_all(state, Play(2, Card.parse("AS")), Play(0, Card.parse("2C")), Play(1, Card.parse("3C")))
    assert state.totals == [-10, 30, 10]
    assert state.phase is Phase.OVER
    assert [(r.dealer, r.size, r.extra) for r in state.results] == [(0, 1, False), (1, 1, True), (2, 1, True)]
    assert winners(TIE_RULES, state.totals, state.exact) == [(1,)]


def test_extra_hands_have_the_size_of_the_last_hand() -> None:
    # R-TIE-EXTRA: "another hand at that number of cards": 2 then 1 card, so
    # the extra hand has 1 card, not 2.
    state = dealt(TIE_RULES.replace(hand_sizes=(2, 1)), "AS KS | 2C 3C | 4C 5C", "2H")
    play_all(state, Bid(1, 0), Bid(2, 0), Bid(0, 0))
    for card in ("AS", "2C", "4C", "KS", "3C", "5C"):
        apply(state, Play(state.to_act, Card.parse(card)))
    assert state.totals == [-20, 10, 10] and state.hand_size == 1 and not state.is_extra_hand
    apply(state, make_deal("4C | 2C | 3D", "KH"))
    play_all(state, Bid(2, 0), Bid(0, 0), Bid(1, 0))
    play_all(state, Play(1, Card.parse("2C")), Play(2, Card.parse("3D")), Play(0, Card.parse("4C")))
    assert state.totals == [-30, 20, 20]
    assert state.phase is Phase.DEAL and state.is_extra_hand and state.hand_size == 1


def test_tie_without_extra_hands_ends_the_match_shared() -> None:
    # R-WIN: without R-TIE-EXTRA the same tie ends the match with two winners.
    rules = TIE_RULES.replace(tie_break=TieBreak.NONE)
    state = dealt(rules, "AS | 2C | 3C", "KH")
    play_all(state, Bid(1, 0), Bid(2, 0), Bid(0, 0))
    play_all(state, Play(0, Card.parse("AS")), Play(1, Card.parse("2C")), Play(2, Card.parse("3C")))
    assert state.phase is Phase.OVER and state.totals == [-10, 10, 10]
    assert winners(rules, state.totals, state.exact) == [(1,), (2,)]


TEAM_RULES = PRESETS["classic-tens"].replace(
    players=4, hand_sizes=(2,), first_dealer=0, teams=((0, 2), (1, 3))
)
TEAM_DEAL = "AS KS | 2C 3C | 4C 5C | 6C 7C"  # hearts trump; the dealer (seat 0) leads and takes both


def _team_hand(bids: tuple[int, int, int, int]) -> GameState:
    state = dealt(TEAM_RULES, TEAM_DEAL, "2H")
    for i, bid in enumerate(bids):
        apply(state, Bid((1 + i) % 4, bid))
    for card in ("AS", "2C", "4C", "6C", "KS", "3C", "5C", "7C"):
        apply(state, Play(state.to_act, Card.parse(card)))
    return state


def test_teams_combine_scores() -> None:
    # R-TEAMS: seat 0 has the highest total, but its team (20 - 10) trails
    # the team 1 + 3 (10 + 10), which wins.
    state = _team_hand((0, 1, 0, 2))
    assert state.totals == [20, 10, -10, 10]
    assert side_totals(TEAM_RULES, state.totals) == (10, 20)
    assert state.phase is Phase.OVER
    assert winners(TEAM_RULES, state.totals, state.exact) == [(1, 3)]


def test_a_team_tie_plays_an_extra_hand() -> None:
    # R-TEAMS, R-TIE-EXTRA: seat 0 leads alone, but the teams tie at 0 (20 - 20
    # and -10 + 10), so another 2-card hand is played.
    state = _team_hand((1, 2, 0, 2))
    assert state.totals == [20, -10, -20, 10]
    assert side_totals(TEAM_RULES, state.totals) == (0, 0)
    assert state.phase is Phase.DEAL and state.is_extra_hand and state.hand_size == 2 and state.dealer == 1


@pytest.mark.parametrize("seed", range(3))
def test_team_totals_at_the_end(seed: int) -> None:
    # R-TEAMS: a team's total is the sum of its seats' totals; standings rank teams.
    rules = PRESETS["river"].replace(players=6, teams=((0, 3), (1, 4), (2, 5)))
    state = new_game(rules)
    playout(state, random.Random(seed))
    table = standings(rules, state.totals, state.exact)
    assert sorted(row.seats for row in table) == [(0, 3), (1, 4), (2, 5)]
    for row in table:
        assert row.total == sum(state.totals[s] for s in row.seats)
    assert table[0].total == max(side_totals(rules, state.totals))


# --- check, is_legal and legal_actions agree ---

SHORT = [
    ("pagat", PRESETS["pagat"].replace(hand_sizes=(3, 1))),
    ("classic-tens-5", PRESETS["classic-tens"].replace(players=5, hand_sizes=(2, 1), first_dealer=4)),
    ("okenuff", PRESETS["okenuff"].replace(hand_sizes=(4, 2))),
    ("simultaneous", Rules(bidding=Bidding.SIMULTANEOUS, hook=False, players=3, hand_sizes=(3, 1))),
    ("devils-bridge", PRESETS["river"].replace(devils_bridge=True, hand_sizes=(2, 1))),
    ("australian-6", Rules(players=6, deck=Deck.AUSTRALIAN, hand_sizes=(13, 2), first_dealer=0)),
]


def _candidates(state: GameState) -> list[Any]:
    out: list[Any] = []
    for s in range(state.players):
        for b in range(-1, state.hand_size + 2):
            out += [Bid(s, b), ChangeBid(s, b)]
        out += [NameTrump(s, t) for t in (*Suit, None)]
        out += [Play(s, c) for c in (*ALL_CARDS, None)]
    return out


@pytest.mark.parametrize("rules", [r for _, r in SHORT], ids=[i for i, _ in SHORT])
def test_is_legal_agrees_with_legal_actions(rules: Rules) -> None:
    # R-BID-ORDER, R-BID-RANGE, R-HOOK, R-BID-CHANGE, R-BID-SIMULTANEOUS,
    # R-TRUMP-BIDDER, R-FOLLOW, R-DEVILS-BRIDGE: at every point of a match each
    # player action is legal exactly when legal_actions lists it (except that a
    # Devil's Bridge play may name the real card, as a replayed log does), the
    # actors are the seats with actions, and a refused action changes nothing.
    state = new_game(rules)
    rng = random.Random(17)
    while not state.is_over:
        if state.is_chance:
            apply(state, chance_action(state, rng))
            continue
        lists = {s: legal_actions(state, s) for s in range(state.players)}
        assert set(actors(state)) == {s for s, acts in lists.items() if acts}
        refused = []
        for action in _candidates(state):
            listed = action in lists[action.seat]
            if state.is_devils_bridge and isinstance(action, Play) and action.card is not None:
                listed = state.phase is Phase.PLAY and action.seat == state.to_act
                listed = listed and action.card in state.hands[action.seat]
            assert is_legal(state, action) == listed, action
            if not listed:
                refused.append(action)
        before = snapshot(state)
        for action in rng.sample(refused, 5):
            with pytest.raises(IllegalActionError):
                apply(state, action)
        assert snapshot(state) == before
        apply(state, rng.choice(lists[actors(state)[0]]))


def test_extra_hands_stop_after_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # R-TIE-EXTRA: however long the tie lasts, a match ends after
    # MAX_EXTRA_HANDS extra hands (then the tie stands), within most_actions.
    import ohhell.hand as hand_module
    from ohhell import MAX_EXTRA_HANDS, most_actions
    from ohhell.rules import make_rules

    monkeypatch.setattr(hand_module, "leaders_tied", lambda rules, totals: True)
    rules = make_rules("classic-tens", {"hand-sizes": "1,1"})
    rng = random.Random(4)
    state = new_game(rules)
    while not state.is_over:
        if state.is_chance:
            apply(state, chance_action(state, rng))
        else:
            seat = actors(state)[0]
            apply(state, rng.choice(legal_actions(state, seat)))
    assert len(state.results) == 2 + MAX_EXTRA_HANDS
    assert sum(r.extra for r in state.results) == MAX_EXTRA_HANDS
    assert len(state.log) <= most_actions(rules)
