"""Random playouts over every preset x player count x option, with invariants checked at every step.

The harness plays whole matches with random legal actions (chance from a seeded
``random.Random``) and checks, as it goes, what the rules promise: the match
never gets stuck, every card dealt is played once, only listed actions are
played, tricks add up, the hook holds, scores follow the formulas (recomputed
here from the rule text, not from ``ohhell.scoring``), the record round-trips
and replays, no observation shows a card its seat may not see, sampled worlds
agree with their observation, and one seed always gives one match.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st

from ohhell import (
    ALL_CARDS,
    PRESETS,
    Action,
    Bid,
    Bidding,
    Card,
    ChangeBid,
    Deal,
    Deck,
    DrawForDealer,
    FirstLead,
    GameState,
    NameTrump,
    Phase,
    Play,
    Record,
    Rules,
    RulesError,
    Scoring,
    Sequence,
    Suit,
    TieBreak,
    Trick,
    TrumpMode,
    actors,
    apply,
    chance_action,
    dumps,
    is_legal,
    legal_actions,
    loads,
    make_rules,
    new_game,
    observe,
    sample_hands,
    sample_world,
    score_hand,
    visible_log,
    winners,
)
from ohhell.bots.simulate import random_match
from ohhell.rules import format_option
from ohhell.view import Observation, SealedBid, SeenDeal
from support import refused_by

IN_HAND = (Phase.BID, Phase.TRUMP, Phase.PLAY)

# --- Independent oracles, written from RULES.md ---------------------------------------------------------

# R-SC-OKENUFF, exact bid b: 5 + (1 + 2 + ... with each step above 5 counted as 5) + 15 if b >= 5.
# Worked out by hand: 0->5, 1->6, 2->8, 3->11, 4->15, 5->35, 6->40, 7->45 (the seed's 7 -> 45), ...
OKENUFF_EXACT = (5, 6, 8, 11, 15, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95, 100)


def expected_score(system: Scoring, bid: int, took: int) -> int:
    off = abs(bid - took)
    made = off == 0
    if system is Scoring.PAGAT:  # R-SC-PAGAT
        return 10 + bid if made else 0
    if system is Scoring.RIVER:  # R-SC-RIVER
        return 10 + took if made else 0
    if system is Scoring.TENS:  # R-SC-TENS
        return (10 * bid or 10) if made else -10 * off
    if system is Scoring.TRICKS_BONUS:  # R-SC-TRICKS-BONUS
        return took + 10 * made
    if system is Scoring.FIVES:  # R-SC-FIVES
        return 5 + 10 * took if made else -5 - 5 * off
    if system is Scoring.SQUARES:  # R-SC-SQUARES
        return 10 + bid * bid if made else -(off * off)
    if system is Scoring.PENALTY:  # R-SC-PENALTY
        return 10 + took if made else -off
    if system is Scoring.OKENUFF:  # R-SC-OKENUFF
        return OKENUFF_EXACT[bid] if made else -5 * off
    raise AssertionError(f"no oracle for {system}")


def expected_scores(
    rules: Rules,
    bids: list[int],
    tricks: list[int],
    order: list[int],
    namer: int | None,
    trump: Suit | None,
) -> tuple[int, ...]:
    scores = [expected_score(rules.scoring, b, t) for b, t in zip(bids, tricks, strict=True)]
    if rules.scoring is Scoring.OKENUFF and namer is not None:
        # R-SC-OKENUFF: a trump-naming bid of 6+ made after an earlier bid of 5+ loses 5 more for every
        # undertrick after the first.
        earlier = order[: order.index(namer)]
        under = bids[namer] - tricks[namer]
        if bids[namer] >= 6 and any(bids[s] >= 5 for s in earlier) and under > 1:
            scores[namer] -= 5 * (under - 1)
    if rules.no_trump_doubles and trump is None:
        scores = [2 * s for s in scores]  # R-SC-OKENUFF: no trump doubles every score of the hand
    return tuple(scores)


def expected_pack(rules: Rules) -> Counter[Card]:
    """R-DECK, R-DECK-AU: 52 cards, plus the 13/26 lowest (by rank, then suit C D H S) for 5/6 players."""
    cards = list(ALL_CARDS)
    if rules.deck is Deck.AUSTRALIAN:
        low = sorted(ALL_CARDS, key=lambda c: (c.rank, c.suit))
        cards += low[: {5: 13, 6: 26}[rules.players]]
    return Counter(cards)


def trick_winner(leader: int, cards: tuple[Card, ...], trump: Suit | None, n: int) -> int:
    """R-TRICK: highest trump, else highest of the suit led; of two identical cards the later one wins
    (R-DECK-AU)."""
    trumps = [i for i, c in enumerate(cards) if c.suit is trump]
    pool = trumps or [i for i, c in enumerate(cards) if c.suit is cards[0].suit]
    top = max(cards[i].rank for i in pool)
    return (leader + max(i for i in pool if cards[i].rank == top)) % n


def side_totals(rules: Rules, totals: list[int]) -> list[int]:
    sides = rules.teams if rules.teams is not None else tuple((s,) for s in range(rules.players))
    return [sum(totals[s] for s in side) for side in sides]


def leaders_tied(rules: Rules, totals: list[int]) -> bool:
    by_side = side_totals(rules, totals)
    return by_side.count(max(by_side)) > 1


def action_bound(rules: Rules) -> int:
    """Generous: far above any random match, so only a stuck loop reaches it."""
    n, sched = rules.players, rules.schedule
    per_hand = [(size + 3) * n for size in sched]
    return 100 * sum(per_hand) + 400 * (sched[-1] + 3) * n + 1000


def cards_in(value: object) -> list[Card]:
    """Every Card inside a value (tuples, frozensets, dataclasses), for the leak scan."""
    if isinstance(value, Card):
        return [value]
    if isinstance(value, (int, str)) or value is None:  # Suit, Rank and Phase are ints and strs
        return []
    if isinstance(value, (tuple, list, frozenset, set)):
        return [c for v in value if not isinstance(v, (int, str)) for c in cards_in(v)]
    if dataclasses.is_dataclass(value) and not isinstance(value, (type, Rules)):
        return [c for f in dataclasses.fields(value) for c in cards_in(getattr(value, f.name))]
    return []


# --- Per-view checks ------------------------------------------------------------------------------------


def may_see(state: GameState, viewer: int | None, owner: int) -> bool:
    if state.phase not in IN_HAND or viewer is None:
        return False  # the spectator never sees a hand
    if state.rules.is_devils_bridge_hand(state.hand_size):
        return viewer != owner  # R-DEVILS-BRIDGE: every other card, never one's own
    return viewer == owner


def public_cards(state: GameState) -> set[Card]:
    """The cards of this hand anyone may see: those played and the turned card."""
    seen = {c for t in state.tricks for c in t.cards} | set(state.trick)
    if state.phase in IN_HAND and state.turned is not None:
        seen.add(state.turned)
    return seen


def check_observation(state: GameState, obs: Observation, viewer: int | None) -> None:
    n = state.players
    rules = state.rules
    assert obs.seat == viewer and obs.phase is state.phase and obs.hand_number == state.hand_number
    for s in range(n):
        if may_see(state, viewer, s):
            assert obs.hands[s] == tuple(state.hands[s]), f"seat {viewer} should see seat {s}'s hand"
        else:
            assert obs.hands[s] is None, f"{viewer} sees seat {s}'s hand in {state.phase} (leak)"
    if state.phase in IN_HAND:
        assert obs.hand_counts == tuple(len(h) for h in state.hands)
        assert obs.turned == state.turned  # R-TRUMP-TURN: the turned card is public
        if rules.bidding is Bidding.SIMULTANEOUS and state.phase is Phase.BID:
            # R-BID-SIMULTANEOUS: who has bid is public, what they bid is sealed until all are in.
            for s in range(n):
                assert obs.bids[s] == (state.bids[s] if s == viewer else None), f"sealed bid of {s} shown"
            assert obs.has_bid == tuple(b is not None for b in state.bids)
        else:
            assert obs.bids == tuple(state.bids)
    who = actors(state)
    assert obs.actors == who
    if viewer is not None and viewer in who:
        assert obs.legal_actions == tuple(legal_actions(state, viewer))
    else:
        assert obs.legal_actions == ()
    if state.phase in IN_HAND:
        bids = [b for b in state.bids if b is not None]
        hook = None
        if rules.hook and state.phase is Phase.BID and len(bids) == n - 1 and sum(bids) <= state.hand_size:
            hook = state.hand_size - sum(bids)  # R-HOOK: what the last bidder may not bid
        assert obs.forbidden_bid == hook
        balance = None
        if len(bids) == n:  # R-BID-ANNOUNCE: shown once all bids are in
            total = sum(bids)
            balance = "under" if total < state.hand_size else "over" if total > state.hand_size else "even"
        assert obs.balance == balance
        if rules.trump is TrumpMode.BIDDER and state.phase is not Phase.PLAY:
            assert obs.trump is None and not obs.trump_decided  # R-TRUMP-BIDDER: not named yet
    # Past hands and the draw for dealer are public; the results are the engine's own.
    assert obs.results == tuple(state.results) and obs.draws == tuple(state.draws)
    # Leak scan: outside the hands and the legal actions, only public cards may appear anywhere.
    public = public_cards(state)
    for f in dataclasses.fields(obs):
        if f.name in ("hands", "legal_actions", "rules", "results", "draws"):
            continue
        for card in cards_in(getattr(obs, f.name)):
            assert card in public, f"{card} in observation field {f.name} of seat {viewer} is not public"
    own = obs.hands[viewer] if viewer is not None else None
    for action in obs.legal_actions:
        if isinstance(action, Play) and action.card is not None:
            assert own is not None and action.card in own, f"legal action {action} shows an unseen card"
    if obs.devils_bridge:
        assert all(isinstance(a, Play) and a.card is None for a in obs.legal_actions if isinstance(a, Play))


def check_world(state: GameState, obs: Observation, world: GameState, rules: Rules) -> None:
    """sample_world agrees with its observation: seen hands kept, sizes and voids right, pack consistent."""
    n = rules.players
    pack = expected_pack(rules)
    played = obs.played_cards()
    used: Counter[Card] = Counter(played)
    if obs.turned is not None:
        used[obs.turned] += 1
    for s in range(n):
        hand = world.hands[s]
        assert len(hand) == obs.hand_counts[s]
        if obs.hands[s] is not None:
            assert tuple(hand) == obs.hands[s], f"sample_world changed seat {s}'s visible hand"
        else:
            void = [c for c in hand if c.suit in obs.voids[s]]
            assert not void, f"seat {s} showed void in {obs.voids[s]} but was dealt {void}"
            if obs.phase in IN_HAND:  # the voids shown are real: the true hand has none of them either
                assert not [c for c in state.hands[s] if c.suit in obs.voids[s]]
            if rules.deck is Deck.STANDARD:
                assert not (set(hand) & set(played)), "a played card was dealt again"
                assert obs.turned not in hand, "the turned card was dealt to a hidden hand"
        used.update(hand)
    over = {c: k for c, k in used.items() if k > pack[c]}
    assert not over, f"more copies than the pack holds: {over}"
    if obs.phase in IN_HAND:
        stock = rules.deck_size - sum(obs.hand_counts) - len(played) - (obs.turned is not None)
        assert stock >= 0
        assert sum(pack.values()) - sum(used.values()) == stock
    # The world looks, from the viewer's seat, like the observation it came from. Under simultaneous
    # bidding the others' sealed bids are unmade in the world, so who may act and who has bid differ.
    seen = observe(world, obs.seat)
    if rules.bidding is Bidding.SIMULTANEOUS and obs.phase is Phase.BID:
        seen = dataclasses.replace(
            seen, actors=obs.actors, to_ask=obs.to_ask, has_bid=obs.has_bid, legal_actions=obs.legal_actions
        )
    assert seen == obs


def continue_hand(world: GameState, rng: random.Random) -> None:
    """A sampled world is a real game state: legal play goes on to the end of the hand."""
    steps = 0
    while world.phase in IN_HAND:
        steps += 1
        assert steps < 2000, "a sampled world got stuck"
        who = actors(world)
        assert who, f"nobody may act in a sampled world: {world!r}"
        seat = rng.choice(who)
        legal = legal_actions(world, seat)
        assert legal
        apply(world, rng.choice(legal))


def check_visible_log(state: GameState, viewer: int | None) -> None:
    rules = state.rules
    seen_log = visible_log(state, viewer)
    assert len(seen_log) == len(state.log)
    sealed = rules.bidding is Bidding.SIMULTANEOUS and state.phase is Phase.BID
    last_deal = max((i for i, a in enumerate(state.log) if isinstance(a, Deal)), default=-1)
    for i, (seen, real) in enumerate(zip(seen_log, state.log, strict=True)):
        if isinstance(real, Deal):
            assert isinstance(seen, SeenDeal) and seen.turned == real.turned
            blind = rules.is_devils_bridge_hand(len(real.hands[0]))  # R-DEVILS-BRIDGE
            for s, hand in enumerate(real.hands):
                shown = viewer is not None and ((s != viewer) if blind else (s == viewer))
                assert seen.hands[s] == (hand if shown else None), f"log leaks seat {s}'s deal to {viewer}"
        elif sealed and i > last_deal and isinstance(real, (Bid, ChangeBid)) and real.seat != viewer:
            assert seen == SealedBid(real.seat)  # R-BID-SIMULTANEOUS
        else:
            assert seen == real


def check_views(state: GameState, rng: random.Random, *, sample: bool, deep: bool, log: bool) -> None:
    rules = state.rules
    for viewer in (None, *range(state.players)):
        obs = observe(state, viewer)
        check_observation(state, obs, viewer)
        if log:
            check_visible_log(state, viewer)
        if sample:
            world = sample_world(obs, rng)
            check_world(state, obs, world, rules)
            if deep and world.phase in IN_HAND:
                continue_hand(world, rng)
    if sample and state.phase in IN_HAND:
        spectator = observe(state, None)
        hands = sample_hands(spectator, rng)
        assert [len(h) for h in hands] == [len(h) for h in state.hands]


# --- The harness ----------------------------------------------------------------------------------------


@dataclasses.dataclass
class HandTrack:
    """What the harness saw of one hand, to check the result against."""

    index: int
    dealer: int
    size: int
    deal: Deal
    trump: Suit | None
    order: list[int]
    bids: list[int | None]
    bid_seats: list[int] = dataclasses.field(default_factory=list)
    played: list[Counter[Card]] = dataclasses.field(default_factory=list)
    trick: list[Card] = dataclasses.field(default_factory=list)
    leader: int | None = None
    taken: list[int] = dataclasses.field(default_factory=list)
    namer: int | None = None


def expected_trump(rules: Rules, index: int, deal: Deal) -> Suit | None:
    if rules.trump is TrumpMode.TURN:  # R-TRUMP-TURN, R-TRUMP-NONE-ALL-DEALT
        return deal.turned.suit if deal.turned is not None else None
    if rules.trump is TrumpMode.ROTATE:  # R-TRUMP-ROTATE
        return rules.trump_rotation[index % len(rules.trump_rotation)]
    if rules.trump is TrumpMode.FIXED:  # R-TRUMP-FIXED
        return rules.trump_suit
    return None  # R-TRUMP-BIDDER names it later; NONE never has one


def check_deal(state: GameState, deal: Deal, dealer: int) -> HandTrack:
    rules, n, size = state.rules, state.players, state.hand_size
    assert state.dealer == dealer  # R-DEALER-ROTATE
    assert len(deal.hands) == n and all(len(h) == size for h in deal.hands)
    used = Counter(c for h in deal.hands for c in h)
    all_dealt = rules.deck_size == n * size
    if rules.trump is TrumpMode.TURN and not all_dealt:
        assert deal.turned is not None  # R-TRUMP-TURN
        used[deal.turned] += 1
    else:
        assert deal.turned is None  # R-TRUMP-NONE-ALL-DEALT, or trump not turned
    pack = expected_pack(rules)
    assert all(k <= pack[c] for c, k in used.items()), "a deal used a card the pack does not hold"
    first = (dealer + 1) % n
    return HandTrack(
        index=state.hand_number,
        dealer=dealer,
        size=size,
        deal=deal,
        trump=expected_trump(rules, state.hand_number, deal),
        order=[(first + i) % n for i in range(n)],
        bids=[None] * n,
        played=[Counter() for _ in range(n)],
        taken=[0] * n,
    )


def note_action(state: GameState, track: HandTrack, action: Action, hand_before: list[Card]) -> None:
    """Update the track after ``action`` was applied (``state`` is after it)."""
    rules, n = state.rules, state.players
    if isinstance(action, Bid):
        if rules.bidding is Bidding.SEQUENTIAL:
            assert action.seat == track.order[len(track.bid_seats)]  # R-BID-ORDER
        track.bid_seats.append(action.seat)
        track.bids[action.seat] = action.bid
    elif isinstance(action, ChangeBid):
        # R-BID-CHANGE: only the latest bidder, and only before the next player has bid.
        assert rules.bid_changes and track.bid_seats and track.bid_seats[-1] == action.seat
        assert len(track.bid_seats) < n
        track.bids[action.seat] = action.bid
    elif isinstance(action, NameTrump):
        assert rules.trump is TrumpMode.BIDDER
        top = max(b for b in track.bids if b is not None)
        # R-TRUMP-BIDDER: the highest bidder, the first of them in bidding order on a tie.
        assert action.seat == next(s for s in track.order if track.bids[s] == top)
        track.namer = action.seat
        track.trump = action.suit
    elif isinstance(action, Play):
        real = state.log[-1]
        assert isinstance(real, Play) and real.seat == action.seat and real.card is not None
        if action.card is None:  # R-DEVILS-BRIDGE: played unseen; the log keeps the real card
            assert rules.is_devils_bridge_hand(track.size) and hand_before == [real.card]
        else:
            assert real == action
        card = real.card
        assert card in hand_before
        if track.trick:
            led = track.trick[0].suit
            if any(c.suit is led for c in hand_before):
                assert card.suit is led, f"seat {action.seat} did not follow {led.name} (R-FOLLOW)"
        else:
            expected_leader = track.leader
            if expected_leader is None:  # first trick: R-LEAD-LEFT / R-LEAD-DEALER
                left = rules.first_lead is FirstLead.LEFT
                expected_leader = (track.dealer + 1) % n if left else track.dealer
            assert action.seat == expected_leader
            track.leader = action.seat
        track.played[action.seat][card] += 1
        track.trick.append(card)
        if len(track.trick) == n:
            finished: Trick = state.tricks[-1]
            winner = trick_winner(track.leader, tuple(track.trick), track.trump, n)  # R-TRICK
            assert finished.cards == tuple(track.trick) and finished.winner == winner
            track.taken[winner] += 1
            track.leader = winner
            track.trick = []


def check_hand_end(state: GameState, track: HandTrack) -> None:
    rules = state.rules
    result = state.results[-1]
    bids = [b for b in track.bids if b is not None]
    assert len(bids) == state.players
    assert result.number == track.index + 1 and result.size == track.size and result.dealer == track.dealer
    assert result.extra == (track.index >= len(rules.schedule))  # R-TIE-EXTRA
    assert result.turned == track.deal.turned
    assert result.trump == track.trump
    assert result.trump_namer == track.namer
    assert list(result.bids) == bids
    assert list(result.tricks) == track.taken
    assert sum(result.tricks) == track.size, "the tricks of a hand must total the hand size"
    for s in range(state.players):
        assert track.played[s] == Counter(track.deal.hands[s]), f"seat {s} did not play its dealt cards once"
    if rules.hook and rules.bidding is Bidding.SEQUENTIAL:
        assert sum(bids) != track.size, "R-HOOK: the bids total the tricks"
    # Scores: the engine's scorer on our bids and tricks, and our own oracle from the rule text.
    assert result.scores == score_hand(
        rules,
        bids,
        track.taken,
        first_bidder=track.order[0],
        trump_namer=track.namer,
        no_trump=track.trump is None,
    )
    assert result.scores == expected_scores(rules, bids, track.taken, track.order, track.namer, track.trump)


def check_match(rules: Rules, seed: int, *, world_every: int = 1, deep_every: int = 5) -> GameState:
    """Play one random match from ``seed`` with every check on; return the final state."""
    rng = random.Random(seed)
    view_rng = random.Random(seed + 1)
    n = rules.players
    state = new_game(rules)
    bound = action_bound(rules)
    dealer = rules.first_dealer
    track: HandTrack | None = None
    steps = 0
    while not state.is_over:
        steps += 1
        assert steps <= bound, f"stuck after {steps} actions: {state!r}"
        sample = world_every > 0 and steps % world_every == 0
        bidding_log = state.phase is Phase.BID and rules.bidding is Bidding.SIMULTANEOUS
        check_views(state, view_rng, sample=sample, deep=sample and steps % deep_every == 0, log=bidding_log)
        if state.is_chance:
            assert actors(state) == ()
            chance = chance_action(state, rng)
            if isinstance(chance, Deal):
                if dealer is None:
                    dealer = state.dealer  # the first deal after the draw
                track = check_deal(state, chance, dealer)
            apply(state, chance)
            if isinstance(chance, DrawForDealer):
                top = max(c.rank for c in chance.cards if c is not None)
                best = [s for s, c in enumerate(chance.cards) if c is not None and c.rank == top]
                # R-DEALER-DRAW: the highest card deals; ties redraw among the tied.
                assert state.phase is (Phase.DEAL if len(best) == 1 else Phase.DRAW)
                if len(best) == 1:
                    assert state.dealer == best[0]
                else:
                    assert state.contenders == tuple(best)
            else:
                for viewer in (None, *range(n)):
                    check_visible_log(state, viewer)
            continue
        assert track is not None
        check_legal_agrees(state)
        who = actors(state)
        assert who, f"no seat may act and no chance to come: stuck at {state!r}"
        for s in range(n):
            assert bool(legal_actions(state, s)) == (s in who), f"seat {s}: legal actions vs actors"
        seat = rng.choice(who)
        legal = legal_actions(state, seat)
        assert len(set(legal)) == len(legal), "an action is listed twice (R-DECK-AU: equal cards are one)"
        action = rng.choice(legal)
        assert action.seat == seat and is_legal(state, action)
        before = list(state.hands[seat])
        results = len(state.results)
        apply(state, action)
        note_action(state, track, action, before)
        if len(state.results) > results:
            check_hand_end(state, track)
            dealer = (dealer + 1) % n  # R-DEALER-ROTATE
            for viewer in (None, *range(n)):
                check_visible_log(state, viewer)
    check_views(state, view_rng, sample=True, deep=False, log=True)  # after the end, too
    check_final(state)
    return state


def check_final(state: GameState) -> None:
    rules = state.rules
    results = state.results
    sched = rules.schedule
    assert len(results) >= len(sched)
    assert [r.size for r in results[: len(sched)]] == list(sched)
    assert all(r.size == sched[-1] for r in results[len(sched) :])  # R-TIE-EXTRA: hands of the last size
    n = state.players
    assert state.totals == [sum(r.scores[s] for r in results) for s in range(n)]
    assert state.exact == [sum(r.bids[s] == r.tricks[s] for r in results) for s in range(n)]
    for k in range(len(sched), len(results)):  # an extra hand only while the leaders tie
        assert rules.tie_break is TieBreak.EXTRA_HANDS
        assert leaders_tied(rules, [sum(r.scores[s] for r in results[:k]) for s in range(n)])
    if rules.tie_break is TieBreak.EXTRA_HANDS:
        assert not leaders_tied(rules, state.totals)
    # R-WIN, R-TIE-EXACT, R-TEAMS: the highest side total wins; under most-exact, exact bids break ties.
    sides = rules.teams if rules.teams is not None else tuple((s,) for s in range(n))
    most_exact = rules.tie_break is TieBreak.MOST_EXACT
    keys = [
        (sum(state.totals[s] for s in side), most_exact * sum(state.exact[s] for s in side)) for side in sides
    ]
    assert winners(rules, state.totals, state.exact) == [
        side for side, k in zip(sides, keys, strict=True) if k == max(keys)
    ]
    # The record round-trips and replays to the same match.
    record = Record.from_state(state, [f"P{s}" for s in range(n)], [("seed", "x")])
    text = dumps(record)
    again = loads(text)
    assert again == record
    replayed = again.replay(complete=True)
    assert replayed.log == state.log
    assert replayed.results == state.results and replayed.totals == state.totals


def check_legal_agrees(state: GameState) -> None:
    """is_legal and legal_actions give one answer for every seat and a spread of candidate actions."""
    size = state.hand_size
    devils = state.rules.is_devils_bridge_hand(size)
    for seat in range(state.players):
        listed = set(legal_actions(state, seat))
        candidates: list[Action] = [Bid(seat, b) for b in range(size + 2)]
        candidates += [ChangeBid(seat, b) for b in range(size + 2)]
        candidates += [NameTrump(seat, t) for t in (*Suit, None)]
        candidates += [Play(seat, c) for c in {*state.hands[seat], ALL_CARDS[seat], None}]
        for action in candidates:
            if devils and isinstance(action, Play) and action.card in state.hands[seat]:
                continue  # R-DEVILS-BRIDGE: a record may name the unseen card; the seat is offered "?"
            assert is_legal(state, action) == (action in listed), f"is_legal disagrees on {action}"


def check_log_was_legal(rules: Rules, log: list[Action]) -> GameState:
    """Replay a log, asserting that each player action was listed by legal_actions for its seat."""
    state = new_game(rules)
    for action in log:
        if not isinstance(action, (Deal, DrawForDealer)):
            legal = legal_actions(state, action.seat)
            blind = Play(action.seat, None)
            if isinstance(action, Play) and blind in legal:  # R-DEVILS-BRIDGE: listed as the unseen card
                assert state.hands[action.seat] == [action.card]
            else:
                assert action in legal, f"{action} was not in legal_actions"
        apply(state, action)
    assert state.is_over
    return state


def check_same_seed_same_match(rules: Rules, seed: int) -> None:
    first = random_match(rules, random.Random(seed))
    second = random_match(rules, random.Random(seed))
    assert first.log == second.log
    assert first.results == second.results
    replayed = check_log_was_legal(rules, first.log)
    assert replayed.results == first.results


# --- Strategies -----------------------------------------------------------------------------------------

seeds = st.integers(min_value=0, max_value=2**32 - 1)


@st.composite
def variants(draw: st.DrawFn) -> tuple[str, dict[str, Any], bool]:
    """(preset, changed fields, wild). Tame variants are combinations the seeds allow and must be
    accepted; a wild one (about 1 in 15) ignores the constraints and may be refused with RulesError."""
    preset = draw(st.sampled_from(sorted(PRESETS)))
    wild = draw(st.integers(0, 14)) == 0
    ch: dict[str, Any] = {}
    n = draw(st.sampled_from([3, 4, 5, 6, 7]))  # R-PLAYERS
    ch["players"] = n
    # R-SC-*: every system with every preset; Okenuff's scoring is for exactly 4 players.
    systems = [s for s in Scoring if wild or n == 4 or s is not Scoring.OKENUFF]
    ch["scoring"] = draw(st.sampled_from(systems))
    australian = draw(st.booleans()) and (wild or n in (5, 6))  # R-DECK-AU
    ch["deck"] = Deck.AUSTRALIAN if australian else Deck.STANDARD
    pack = 52 + 13 * (n - 4) if australian else 52
    top = max(1, pack // n)
    ch["devils_bridge"] = draw(st.booleans())  # R-DEVILS-BRIDGE
    shape = draw(st.sampled_from(["list", "list", "list", "sequence", "full"]))
    if shape == "list":  # R-SEQ-FIXED: any explicit list, kept short and small
        sizes = draw(st.lists(st.integers(1, min(4, top)), min_size=1, max_size=3))
    elif shape == "full":  # a hand of every card the pack can give (all dealt: R-TRUMP-NONE-ALL-DEALT)
        sizes = [top]
    else:
        sizes = []
        ch["hand_sizes"] = None
        ch["sequence"] = draw(st.sampled_from(list(Sequence)))  # R-SEQ-*
        ch["start_cards"] = draw(st.integers(1, 3))
        ch["fixed_hands"] = draw(st.integers(1, 2))
        if ch["devils_bridge"] and ch["sequence"] is Sequence.FIXED and not wild:
            ch["start_cards"] = 1
    if sizes:
        if ch["devils_bridge"] and 1 not in sizes and not wild:
            sizes.append(1)
        ch["hand_sizes"] = tuple(sizes)
    ch["first_dealer"] = draw(st.none() | st.integers(0, n - 1))  # R-DEALER-DRAW or chosen
    ch["trump"] = draw(st.sampled_from(list(TrumpMode)))  # R-TRUMP-*
    ch["trump_rotation"] = tuple(draw(st.lists(st.sampled_from([*Suit, None]), min_size=1, max_size=5)))
    ch["trump_suit"] = draw(st.sampled_from(list(Suit)))
    ch["bidding"] = draw(st.sampled_from(list(Bidding)))
    if ch["bidding"] is Bidding.SIMULTANEOUS and not wild:
        ch["hook"] = False  # R-BID-SIMULTANEOUS: no last bidder, so no hook and no changes
        ch["bid_changes"] = False
    else:
        ch["hook"] = draw(st.booleans())  # R-HOOK (off: 001's "no hook")
        ch["bid_changes"] = draw(st.booleans())  # R-BID-CHANGE
    ch["first_lead"] = draw(st.sampled_from(list(FirstLead)))  # R-LEAD-LEFT / R-LEAD-DEALER
    ch["no_trump_doubles"] = draw(st.booleans())
    ch["tie_break"] = draw(st.sampled_from(list(TieBreak)))  # R-WIN, R-TIE-EXTRA, R-TIE-EXACT
    if draw(st.booleans()):  # R-TEAMS: a random partition into at least two teams
        order = draw(st.permutations(range(n)))
        cuts = sorted(draw(st.sets(st.integers(1, n - 1), min_size=1, max_size=n - 1)))
        bounds = [0, *cuts, n]
        ch["teams"] = tuple(tuple(order[a:b]) for a, b in itertools.pairwise(bounds))
    else:
        ch["teams"] = None
    return preset, ch, wild


def build(variant: tuple[str, dict[str, Any], bool]) -> Rules:
    """The variant by dataclasses.replace, checked against make_rules with the same options as text."""
    preset, changes, wild = variant
    try:
        rules = dataclasses.replace(PRESETS[preset], **changes)
    except RulesError as err:
        assert wild, f"a combination the seeds allow was refused: {err}"
        assert str(err), "RulesError without a message"
        with pytest.raises(RulesError):
            make_rules(preset, {k: format_option(k, v) for k, v in changes.items()})
        assume(False)
        raise  # pragma: no cover - assume(False) does not return
    assert make_rules(preset, {k.replace("_", "-"): format_option(k, v) for k, v in changes.items()}) == rules
    return rules


def describe(rules: Rules) -> None:
    event(f"players={rules.players} deck={rules.deck}")
    event(f"trump={rules.trump}")
    event(f"scoring={rules.scoring}")
    event(f"bidding={rules.bidding} hook={rules.hook} changes={rules.bid_changes}")
    event(f"devils_bridge={rules.devils_bridge} teams={rules.teams is not None} tie={rules.tie_break}")


def tame(preset: str, **changes: Any) -> tuple[str, dict[str, Any], bool]:
    return preset, changes, False


# Variants that every run covers, whatever hypothesis draws.
SET_PIECES = [
    tame("classic-tens", players=3, hand_sizes=(2, 1), devils_bridge=True),  # R-DEVILS-BRIDGE
    tame("pagat", players=5, deck=Deck.AUSTRALIAN, hand_sizes=(13,)),  # R-DECK-AU, all 65 dealt
    tame("river", players=6, deck=Deck.AUSTRALIAN, hand_sizes=(3, 13, 1), devils_bridge=True),  # 78 cards
    tame("common", players=3, hand_sizes=(3, 2), trump=TrumpMode.ROTATE, trump_rotation=(Suit.HEARTS, None)),
    tame("pagat", players=7, hand_sizes=(2, 3), trump=TrumpMode.FIXED, trump_suit=Suit.CLUBS),  # Oh Shit
    tame("okenuff", hand_sizes=(3, 4)),  # R-TRUMP-BIDDER with bid changes
    tame("pagat", players=4, hand_sizes=(3,), trump=TrumpMode.NONE, hook=False, scoring=Scoring.SQUARES),
    tame(
        "classic-tens",
        players=5,
        hand_sizes=(2, 1),
        bidding=Bidding.SIMULTANEOUS,
        hook=False,
        bid_changes=False,
        scoring=Scoring.FIVES,
    ),  # R-BID-SIMULTANEOUS
    tame("river", players=4, hand_sizes=(2, 2), teams=((0, 2), (1, 3)), tie_break=TieBreak.EXTRA_HANDS),
    tame("common", players=6, hand_sizes=(2,), first_lead=FirstLead.DEALER, scoring=Scoring.PENALTY),
    tame("okenuff", hand_sizes=(2,), first_dealer=3, trump=TrumpMode.TURN, no_trump_doubles=True),
    tame("pagat", players=4, hand_sizes=(13,), no_trump_doubles=True),  # all 52 dealt: no trump, doubled
]


def with_examples(test: Any) -> Any:
    for i, piece in enumerate(SET_PIECES):
        test = example(variant=piece, seed=1000 + i)(test)
    return test


@with_examples
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=variants(), seed=seeds)
def test_random_playout_keeps_every_invariant(variant: tuple[str, dict[str, Any], bool], seed: int) -> None:
    rules = build(variant)
    describe(rules)
    check_match(rules, seed, world_every=1, deep_every=4)
    check_same_seed_same_match(rules, seed)


# --- Full schedules: every preset x every player count it allows -----------------------------------------

FULL = [(p, n) for p in sorted(PRESETS) for n in ((4,) if p == "okenuff" else (3, 4, 5, 6, 7))]


@pytest.mark.parametrize(("preset", "players"), FULL)
def test_full_match_of_every_preset_and_player_count(preset: str, players: int) -> None:
    rules = make_rules(preset, {"players": str(players)})
    # R-SEQ-DOWNUP, R-START, R-SEQ-OKENUFF: the default schedules.
    expected = {3: 19, 4: 19, 5: 19, 6: 15, 7: 13}[players] if preset != "okenuff" else 13
    assert len(rules.schedule) == expected
    state = check_match(rules, seed=players * 7919 + len(preset), world_every=11, deep_every=3)
    assert len(state.results) >= expected


@pytest.mark.parametrize("players", [5, 6])
def test_full_match_with_australian_packs(players: int) -> None:
    rules = make_rules("classic-tens", {"players": str(players), "deck": "australian"})
    assert rules.schedule[0] == 13 and rules.deck_size == {5: 65, 6: 78}[players]  # R-DECK-AU
    check_match(rules, seed=players, world_every=17, deep_every=3)


# --- Small direct checks of the harness' own claims -------------------------------------------------------


def test_refused_combinations_say_why() -> None:
    # The harness treats RulesError as "not a variant"; make sure the errors it may meet are real ones.
    with pytest.raises(RulesError, match="hook"):
        make_rules("pagat", {"bidding": "simultaneous", "bid-changes": "no"})  # R-BID-SIMULTANEOUS
    with refused_by("R-DECK-AU", RulesError):
        make_rules("pagat", {"deck": "australian", "players": "4"})
    with refused_by("R-PLAYERS", RulesError):
        make_rules("okenuff", {"players": "5"})
    with pytest.raises(RulesError, match="Devil"):
        make_rules("pagat", {"hand-sizes": "2,3", "devils-bridge": "yes"})


def test_is_legal_agrees_with_legal_actions() -> None:
    # check/is_legal and legal_actions must give one answer (DESIGN: the check/can/do triad). Under
    # R-BID-CHANGE the seat that may change its bid is offered every bid but its current one, and a
    # "change" to the bid already made is refused by the check too.
    rules = make_rules("pagat", {"hand-sizes": "3", "first-dealer": "0"})
    state = new_game(rules)
    apply(state, Deal(tuple(tuple(ALL_CARDS[3 * s : 3 * s + 3]) for s in range(4)), ALL_CARDS[51]))
    apply(state, Bid(1, 2))
    offered = legal_actions(state, 1)
    assert ChangeBid(1, 2) not in offered
    assert ChangeBid(1, 0) in offered and is_legal(state, ChangeBid(1, 0))
    assert not is_legal(state, ChangeBid(1, 2))
