"""What one seat may know: ``observe``, ``sample_world`` and the visible log.

``observe(state, seat)`` is the only view of a match that leaves the core: bots,
front ends and servers receive observations, never the state. It holds the
seat's own hand (under Devil's Bridge every other hand and not its own), the
turned card, bids as far as they are revealed, the tricks, scores and the
legal actions. ``seat=None`` is a spectator, who sees only what is public.
``sample_world`` deals the unseen cards consistently with an observation
(hand sizes, the turned card, cards played, voids shown) for search bots.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from .actions import Action, Bid, ChangeBid, Deal, DrawForDealer
from .cards import ALL_CARDS, Card, Suit
from .game import GameState, HandResult, Phase, Trick, actors, forbidden_bid, legal_actions, seats_to_ask
from .rules import Bidding, Deck, Rules, TrumpMode
from .scoring import bid_balance


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything one seat (or a spectator, ``seat=None``) may know now."""

    seat: int | None
    rules: Rules
    phase: Phase
    hand_number: int  # 0-based
    hand_size: int
    dealer: int
    extra_hand: bool  # R-TIE-EXTRA
    devils_bridge: bool  # R-DEVILS-BRIDGE: this hand is played blind
    hands: tuple[tuple[Card, ...] | None, ...]  # by seat; None where unseen
    hand_counts: tuple[int, ...]  # cards each seat holds
    turned: Card | None
    trump: Suit | None
    trump_decided: bool  # False while the highest bidder has still to name it
    trump_namer: int | None
    bids: tuple[int | None, ...]  # None: not bid yet, or sealed (see has_bid)
    has_bid: tuple[bool, ...]
    balance: str | None  # R-BID-ANNOUNCE: "under", "over" or "even" once bidding is done
    actors: tuple[int, ...]
    forbidden_bid: int | None  # R-HOOK: the bid the hook forbids the bidder now
    leader: int  # who leads the current trick (from the deal on: who will lead the first)
    trick: tuple[tuple[int, Card], ...]  # the current trick: (seat, card) in order
    tricks: tuple[Trick, ...]  # finished tricks of this hand
    taken: tuple[int, ...]
    voids: tuple[frozenset[Suit], ...]  # suits each seat has shown it lacks this hand
    draws: tuple[DrawForDealer, ...]
    results: tuple[HandResult, ...]
    totals: tuple[int, ...]
    exact: tuple[int, ...]
    legal_actions: tuple[Action, ...]
    to_ask: tuple[int, ...] = ()  # whose turn it is (``seats_to_ask``): actors less a bid-changer

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def hand(self) -> tuple[Card, ...]:
        """This seat's own cards as far as it can see them (none under Devil's Bridge)."""
        if self.seat is None:
            return ()
        return self.hands[self.seat] or ()

    @property
    def is_my_turn(self) -> bool:
        return self.seat is not None and self.seat in self.actors

    def played_cards(self) -> list[Card]:
        """Every card played this hand, finished tricks first."""
        cards = [c for t in self.tricks for c in t.cards]
        cards.extend(c for _, c in self.trick)
        return cards


def _voids(state: GameState) -> tuple[frozenset[Suit], ...]:
    n = state.players
    voids: list[set[Suit]] = [set() for _ in range(n)]
    for trick in state.tricks:
        led = trick.cards[0].suit
        for i, card in enumerate(trick.cards):
            if card.suit is not led:
                voids[(trick.leader + i) % n].add(led)
    if state.trick:
        led = state.trick[0].suit
        for i, card in enumerate(state.trick):
            if card.suit is not led:
                voids[(state.leader + i) % n].add(led)
    return tuple(frozenset(v) for v in voids)


def can_see_hand(state: GameState, viewer: int | None, owner: int) -> bool:
    """May ``viewer`` see the cards that ``owner`` holds now?"""
    if viewer is None:
        return False
    if state.is_devils_bridge and state.phase is not Phase.DEAL:
        return viewer != owner  # R-DEVILS-BRIDGE: every card but one's own
    return viewer == owner


def observe(state: GameState, seat: int | None) -> Observation:
    """What ``seat`` may know now; ``None`` gives the spectator's view."""
    n = state.players
    if seat is not None and not 0 <= seat < n:
        raise ValueError(f"there is no seat {seat} at a {n}-player table")
    sealed = state.rules.bidding is Bidding.SIMULTANEOUS and state.phase is Phase.BID
    bids = tuple(
        b if (not sealed or s == seat) else None for s, b in enumerate(state.bids)
    )  # R-BID-SIMULTANEOUS: others' bids stay sealed until all are in
    in_hand = state.phase in (Phase.BID, Phase.TRUMP, Phase.PLAY)
    hands = tuple(
        tuple(state.hands[s]) if in_hand and can_see_hand(state, seat, s) else None for s in range(n)
    )
    done = state.bidding_done and in_hand
    trump_decided = in_hand and (state.rules.trump is not TrumpMode.BIDDER or state.phase is Phase.PLAY)
    who = actors(state)
    return Observation(
        seat=seat,
        rules=state.rules,
        phase=state.phase,
        hand_number=state.hand_number,
        hand_size=state.hand_size,
        dealer=state.dealer,
        extra_hand=state.is_extra_hand,
        devils_bridge=state.is_devils_bridge,
        hands=hands,
        hand_counts=tuple(len(h) for h in state.hands) if in_hand else (0,) * n,
        turned=state.turned if in_hand else None,
        trump=state.trump if trump_decided else None,
        trump_decided=trump_decided,
        trump_namer=state.trump_namer if in_hand else None,
        bids=bids if in_hand else (None,) * n,
        has_bid=tuple(b is not None for b in state.bids) if in_hand else (False,) * n,
        balance=bid_balance([b for b in state.bids if b is not None], state.hand_size) if done else None,
        actors=who,
        forbidden_bid=forbidden_bid(state, state.to_act) if state.phase is Phase.BID else None,
        leader=state.leader,
        trick=tuple(((state.leader + i) % n, c) for i, c in enumerate(state.trick)),
        tricks=tuple(state.tricks) if in_hand else (),
        taken=tuple(state.taken) if in_hand else (0,) * n,
        voids=_voids(state) if in_hand else (frozenset(),) * n,
        draws=tuple(state.draws),
        results=tuple(state.results),
        totals=tuple(state.totals),
        exact=tuple(state.exact),
        legal_actions=tuple(legal_actions(state, seat)) if seat is not None and seat in who else (),
        to_ask=seats_to_ask(state),
    )


# --- The visible log: the action log as one seat may see it. ---


@dataclass(frozen=True, slots=True)
class SeenDeal:
    """A deal as one seat sees it: the hands it may see, ``None`` for the rest."""

    hands: tuple[tuple[Card, ...] | None, ...]
    turned: Card | None


@dataclass(frozen=True, slots=True)
class SealedBid:
    """R-BID-SIMULTANEOUS: a seat has bid, but the bid is not revealed yet."""

    seat: int


SeenAction = Action | SeenDeal | SealedBid


def visible_log(state: GameState, seat: int | None) -> list[SeenAction]:
    """The log as ``seat`` may see it (``None``: a spectator). Deals show only
    the hands that seat may see; sealed bids stay sealed until revealed."""
    return [seen_action(state, i, seat) for i in range(len(state.log))]


def seen_action(state: GameState, index: int, seat: int | None) -> SeenAction:
    """Entry ``index`` of the log (negative counts from the end) as ``seat``
    may see it: the one place that hides what a seat may not know of an action
    (``observe`` does the same for the state)."""
    action = state.log[index]
    if index < 0:
        index += len(state.log)
    rules = state.rules
    if isinstance(action, Deal):
        blind = rules.is_devils_bridge_hand(len(action.hands[0]))
        shown = tuple(
            h if seat is not None and ((s != seat) if blind else (s == seat)) else None
            for s, h in enumerate(action.hands)
        )
        return SeenDeal(shown, action.turned)
    if isinstance(action, (Bid, ChangeBid)) and action.seat != seat:
        # R-BID-SIMULTANEOUS: the current hand's bids stay sealed until the last is in.
        sealing = rules.bidding is Bidding.SIMULTANEOUS and state.phase is Phase.BID
        if sealing and index > state.hand_log_start:
            return SealedBid(action.seat)
    return action


# --- Sampling worlds consistent with an observation. ---


def unseen_cards(obs: Observation) -> list[Card]:
    """The cards this seat cannot place: in hidden hands or in the stock."""
    if obs.rules.deck is Deck.STANDARD:  # distinct cards: a set is enough (search calls this a lot)
        seen: set[Card] = set()
        for hand in obs.hands:
            if hand is not None:
                seen.update(hand)
        if obs.turned is not None:
            seen.add(obs.turned)
        for trick in obs.tricks:
            seen.update(trick.cards)
        seen.update(c for _, c in obs.trick)
        return [c for c in ALL_CARDS if c not in seen]
    left = Counter(obs.rules.pack())
    for hand in obs.hands:
        if hand is not None:
            left.subtract(hand)
    if obs.turned is not None:
        left[obs.turned] -= 1
    left.subtract(obs.played_cards())
    return sorted(left.elements())


def sample_hands(
    obs: Observation, rng: random.Random, *, rejection_tries: int = 3
) -> tuple[tuple[Card, ...], ...]:
    """Every seat's hand in a deal consistent with ``obs``, seen hands kept:
    exactly uniform over the deals that agree with the observation (the
    cards seen, the turned card, the cards played, the voids shown and the
    undealt stock).

    Without voids this is one shuffle. With voids it first tries
    ``rejection_tries`` shuffles and keeps one that fits (uniform whenever it
    succeeds); otherwise it deals exactly: it counts, seat by seat, how many
    deals each split of the suits allows (``_suit_splits``) and draws a split
    with that weight, then the cards within it at random. Either way every
    consistent deal is equally likely (tests/core/test_sampler.py checks it
    against exact enumeration). Raises ``ValueError`` if no deal fits (which
    means the observation is corrupt).
    """
    n = obs.players
    hidden = [s for s in range(n) if obs.hands[s] is None]
    pool = unseen_cards(obs)
    counts = [obs.hand_counts[s] for s in hidden]
    dealt = [list(h) if h is not None else [] for h in obs.hands]
    if not hidden:
        return tuple(tuple(h) for h in dealt)
    stock = len(pool) - sum(counts)
    if stock < 0:
        raise ValueError("the observation hides more cards than there are unseen")
    all_suits = frozenset(Suit)
    accepts = [all_suits - obs.voids[s] for s in hidden]
    if all(a == all_suits for a in accepts):
        rng.shuffle(pool)  # no voids: one shuffle is a uniform sample
        at = 0
        for s, k in zip(hidden, counts, strict=True):
            dealt[s] = pool[at : at + k]
            at += k
        return tuple(tuple(h) for h in dealt)
    for _ in range(rejection_tries):  # rejection first: uniform whenever it succeeds
        rng.shuffle(pool)
        at, ok = 0, True
        for s, k, acc in zip(hidden, counts, accepts, strict=True):
            part = pool[at : at + k]
            if any(c.suit not in acc for c in part):
                ok = False
                break
            dealt[s] = part
            at += k
        if ok:
            return tuple(tuple(h) for h in dealt)
    return _exact_deal(pool, hidden, counts, accepts, dealt, rng)


_SUITS: tuple[Suit, ...] = tuple(Suit)


def _exact_deal(
    pool: list[Card],
    hidden: list[int],
    counts: list[int],
    accepts: list[frozenset[Suit]],
    dealt: list[list[Card]],
    rng: random.Random,
) -> tuple[tuple[Card, ...], ...]:
    # Seats with a void ("constrained") get a split of the suits drawn with
    # the weight of the deals it allows; the other seats and the stock take
    # the rest, shuffled: every split of those cards among them allows the
    # same number of deals, so they need no counting.
    constrained = [i for i, a in enumerate(accepts) if len(a) < len(_SUITS)]
    free = [i for i, a in enumerate(accepts) if len(a) == len(_SUITS)]
    by_suit = [[c for c in pool if c.suit is suit] for suit in _SUITS]
    for cards in by_suit:
        rng.shuffle(cards)
    caps = tuple(counts[i] for i in constrained)
    allowed = tuple(tuple(k for k, suit in enumerate(_SUITS) if suit in accepts[i]) for i in constrained)
    left = tuple(len(cards) for cards in by_suit)
    if _suit_splits(caps, allowed, 0, left) == 0:
        raise ValueError("no deal of the unseen cards agrees with the voids shown")
    for place, i in enumerate(constrained):
        options, cumulative = _weighted_splits(caps, allowed, place, left)
        split = options[bisect.bisect(cumulative, rng.random() * cumulative[-1])]
        hand: list[Card] = []
        for k, count in enumerate(split):
            hand += by_suit[k][:count]
            del by_suit[k][:count]
        dealt[hidden[i]] = hand
        left = _minus(left, split)
    rest = [c for cards in by_suit for c in cards]
    rng.shuffle(rest)
    at = 0
    for i in free:
        dealt[hidden[i]] = rest[at : at + counts[i]]
        at += counts[i]
    return tuple(tuple(h) for h in dealt)


def _minus(left: tuple[int, ...], split: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(a - b for a, b in zip(left, split, strict=True))


def _splits(cap: int, allowed: tuple[int, ...], left: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Every way to give a hand of ``cap`` cards ``split[k]`` cards of suit k,
    only of ``allowed`` suits and no more than are ``left``."""

    def rest(j: int, need: int, split: list[int]) -> Iterator[tuple[int, ...]]:
        if j == len(allowed):
            if need == 0:
                yield tuple(split)
            return
        k = allowed[j]
        for count in range(min(need, left[k]) + 1):
            split[k] = count
            yield from rest(j + 1, need - count, split)
        split[k] = 0

    yield from rest(0, cap, [0] * len(left))


def _inverse_factorials(split: tuple[int, ...]) -> float:
    out = 1.0
    for count in split:
        out /= math.factorial(count)
    return out


@functools.lru_cache(maxsize=1 << 12)
def _weighted_splits(
    caps: tuple[int, ...], allowed: tuple[tuple[int, ...], ...], place: int, left: tuple[int, ...]
) -> tuple[tuple[tuple[int, ...], ...], tuple[float, ...]]:
    """The splits the seat at ``place`` may get and their cumulative weights
    (made once per position: a bot samples the same position many times)."""
    options = tuple(_splits(caps[place], allowed[place], left))
    weights = [
        _inverse_factorials(split) * _suit_splits(caps, allowed, place + 1, _minus(left, split))
        for split in options
    ]
    return options, tuple(itertools.accumulate(weights))


@functools.lru_cache(maxsize=1 << 16)
def _suit_splits(
    caps: tuple[int, ...], allowed: tuple[tuple[int, ...], ...], place: int, left: tuple[int, ...]
) -> float:
    """In proportion to the deals left once ``place`` constrained seats are
    dealt and ``left`` cards of each suit remain: the sum over the remaining
    seats' splits of 1 / (product of the factorials of the cards of each
    suit per hand), the free seats and the stock taking the rest together
    (every deal of labelled cards counted once)."""
    if place == len(caps):
        return _inverse_factorials(left)
    return sum(
        _inverse_factorials(split) * _suit_splits(caps, allowed, place + 1, _minus(left, split))
        for split in _splits(caps[place], allowed[place], left)
    )


def sample_world(obs: Observation, rng: random.Random) -> GameState:
    """A full game state consistent with ``obs``: unseen cards dealt at random
    (respecting voids and the turned card), sealed bids of others unmade.

    The world has no action log of past hands; its results and totals are the
    observation's. Bots search it with ``clone``, ``legal_actions`` and ``apply``.
    """
    hands = sample_hands(obs, rng)
    state = GameState(obs.rules)
    state.phase = obs.phase
    state.hand_number = obs.hand_number
    state.hand_size = obs.hand_size
    state.dealer = obs.dealer
    state.hands = [list(h) for h in hands]
    state.turned = obs.turned
    state.trump = obs.trump
    state.trump_namer = obs.trump_namer
    state.bids = list(obs.bids)
    state.bid_count = sum(1 for b in obs.bids if b is not None)
    state.to_act = obs.actors[0] if obs.actors else -1
    if obs.phase is Phase.BID and obs.rules.bidding is Bidding.SEQUENTIAL:
        state.to_act = (obs.dealer + 1 + state.bid_count) % obs.players
    state.change_seat = obs.actors[1] if obs.phase is Phase.BID and len(obs.actors) == 2 else None
    state.leader = obs.leader
    state.trick = [c for _, c in obs.trick]
    state.tricks = list(obs.tricks)
    state.taken = list(obs.taken)
    state.results = list(obs.results)
    state.totals = list(obs.totals)
    state.exact = list(obs.exact)
    state.draws = list(obs.draws)
    if obs.phase is Phase.DRAW and obs.draws:
        # R-DEALER-DRAW: after a tie only the tied seats draw again.
        last = obs.draws[-1].cards
        top = max(c.rank for c in last if c is not None)
        state.contenders = tuple(s for s, c in enumerate(last) if c is not None and c.rank == top)
    return state
