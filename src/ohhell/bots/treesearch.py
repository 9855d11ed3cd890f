"""Card play (and bids) by information-set tree search over sampled worlds.

The expert's card play, and with the bid at the root (``BidSearch``, at
the end) its bids. Flat Monte Carlo (one greedy playout per candidate
and world) judges a card by how a fixed greedy policy would go on from it,
so it cannot plan its own later cards and is only as good as that policy.
This search (single-observer information-set MCTS, Cowling, Powley and
Whitehouse 2012) grows one tree over the cards every seat plays from here:
each simulation takes a world the seat cannot tell from the real one, walks
the tree choosing among the cards legal in that world by UCT (each card's
count of times it was available stands in for the parent's visits), adds one
node, and finishes the hand with the greedy bid-chasing playout of
``fastdeal``, which is far better than random play at telling a good line
from a bad one. Every seat on the path is credited with its own score for
the hand, under the rules' own scoring (``ohhell.score_hand``).

Worlds come from ``sample_hands`` (uniform over the deals the seat cannot
tell apart), drawn into a pool once per decision and each weighted by how
well it explains the bids the others made; every simulation draws a world
from that pool by weight, so a bid of 4 makes strong hands behind it more
likely without ruling any world out.

Hands are bit masks over ``fastdeal.Layout`` slots; the trick's winner is
the core's rule read from the layout's beat table (``lookup_winner``).
"""

from __future__ import annotations

import functools
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from .. import Card, Observation, Play, Scoring, sample_hands, score_hand
from .accel import compiled_playout
from .fastdeal import Layout, choose_card, layout, lookup_winner, playout, seen_slots, suit_index

# An edge of the tree: [visits, summed score of the seat that plays it,
# simulations in which it was legal, the node below it (card -> edge) or None].
_Edge = list[Any]
_VISITS, _TOTAL, _AVAILABLE, _CHILD = 0, 1, 2, 3
_TRIES = 4


@dataclass(frozen=True, slots=True)
class CardValue:
    """A legal card with its search statistics at the root."""

    card: object
    visits: int
    mean: float


# What every world of one decision shares (see CardSearch._prepare).
_Fixed = tuple[list[int], list[int], int, list[int], list[tuple[int, int]], list[int]]
Weigh = Callable[[Sequence[int]], float]


class CardSearch:
    """One decision's search: ``run`` adds simulations, ``ranked`` reads the root."""

    def __init__(
        self,
        obs: Observation,
        rng: random.Random,
        weigh: Weigh | None,
        *,
        pool: int,
        c: float = 0.6,
        others_greedy: bool = False,
        noise: float = 0.0,
    ) -> None:
        me = obs.seat
        assert me is not None
        self.obs = obs
        self.rng = rng
        self.c = c
        self.others_greedy = others_greedy
        lay = layout(obs.rules)
        self.lay = lay
        # How a simulation finishes the hand past the tree: the compiled greedy
        # playout when the optional extra is installed (the same tricks as
        # ``fastdeal.playout``, many times faster: ``accel``), else the Python one.
        fast = compiled_playout(lay) if not noise else None
        self.finish: Callable[..., list[int]] = fast or functools.partial(playout, lay, noise=noise, rng=rng)
        self.n = n = obs.players
        self.me = me
        self.trump = suit_index(obs.trump)
        self.bids = [b if b is not None else 0 for b in obs.bids]
        self.root: dict[int, _Edge] = {}
        # Identical cards (Australian packs) are one action: key a card by its first slot.
        self.key = tuple(lay.slots_of[c][0] for c in lay.cards)
        self.lo = math.inf
        self.hi = -math.inf
        relative = obs.rules.scoring is Scoring.OKENUFF  # R-SETTLE: differences are paid
        rules = obs.rules
        first_bidder = (obs.dealer + 1) % n
        namer = obs.trump_namer
        no_trump = obs.trump is None

        def utilities(bids: Sequence[int], taken: Sequence[int]) -> list[float]:
            scores = score_hand(
                rules, bids, taken, first_bidder=first_bidder, trump_namer=namer, no_trump=no_trump
            )
            if not relative:
                return [float(s) for s in scores]
            total = sum(scores)
            return [s - (total - s) / (n - 1) for s in scores]

        self.utilities = utilities
        self._fixed: _Fixed | None = None
        self.voids0 = [sum(1 << int(s) for s in v) for v in obs.voids]
        self.taken0 = list(obs.taken)
        self.leader0 = obs.leader
        self.worlds = [self.world() for _ in range(pool)]
        weights = [weigh(w[0]) if weigh is not None else 1.0 for w in self.worlds]
        if not sum(weights) > 0:
            weights = [1.0] * len(weights)
        self.cum = list(accumulate(weights))
        self.simulations = 0
        self.weigh = weigh

    def world(self) -> tuple[list[int], list[int], int]:
        """One world: every seat's hand, the current trick's slots, the unseen slots.

        Uniform over the deals the seat cannot tell apart, like ``sample_hands``
        (whose result it equals in distribution): the unseen slots are shuffled
        and dealt, and a deal that gives a seat a suit it has shown it lacks is
        dealt again, up to ``_TRIES`` times (a sample of slots is cheap); then
        ``sample_hands`` deals exactly.
        """
        if self._fixed is None:
            self._prepare()
        assert self._fixed is not None
        known, trick, gone, pool, hidden, lacks = self._fixed
        full = (1 << self.lay.size) - 1
        unseen = full & ~gone
        rng = self.rng
        needed = sum(k for _, k in hidden)
        for _ in range(_TRIES):
            dealt = rng.sample(pool, needed)  # the stock, if any, is what is left
            masks = list(known)
            at = 0
            ok = True
            for s, k in hidden:  # seats with a void first: a misfit is found sooner
                m = 0
                for slot in dealt[at : at + k]:
                    m |= 1 << slot
                at += k
                if m & lacks[s]:
                    ok = False
                    break
                masks[s] = m
            if ok:
                return masks, list(trick), unseen
        return self._exact_world()

    def _exact_world(self) -> tuple[list[int], list[int], int]:
        lay, obs = self.lay, self.obs
        masks = lay.masks(sample_hands(obs, self.rng, rejection_tries=0))  # tried already
        used = 0
        for m in masks:
            used |= m
        trick, gone = seen_slots(lay, obs, used)
        return masks, trick, ((1 << lay.size) - 1) & ~gone

    def _prepare(self) -> None:
        """What every world shares: the hands in sight, the slots of the cards
        seen (played, on the table, turned), and the slots left to deal."""
        obs, lay = self.obs, self.lay
        known = [0] * self.n
        used = 0
        for s, hand in enumerate(obs.hands):
            if hand is not None:
                known[s] = _add(lay, hand, used)
                used |= known[s]
        trick, gone = seen_slots(lay, obs, used)
        used |= gone
        pool = [i for i in range(lay.size) if not used >> i & 1]
        lacks = [sum(lay.suit_mask[int(suit)] for suit in v) for v in obs.voids]
        hidden = [(s, obs.hand_counts[s]) for s in range(self.n) if obs.hands[s] is None]
        hidden.sort(key=lambda sk: not lacks[sk[0]])
        self._fixed = (known, trick, gone, pool, hidden, lacks)

    def run(self, simulations: int | None = None, deadline: float | None = None) -> None:
        """Add ``simulations`` simulations, or as many as fit before ``deadline``.

        Against a deadline the pool grows as the search goes (a world for
        every three simulations past three a world), so a long think sees
        as many different worlds as a fixed budget of its size would.
        """
        worlds = self.worlds
        count = 0
        while True:
            if simulations is not None:
                if count >= simulations:
                    return
            elif deadline is not None and count and count % 8 == 0 and time.perf_counter() >= deadline:
                return
            if simulations is None and self.simulations >= 3 * len(worlds):
                self._add_world()
            pick = self.rng.choices(range(len(worlds)), cum_weights=self.cum)[0]
            self._simulate(pick)
            count += 1

    def _add_world(self) -> None:
        world = self.world()
        self.worlds.append(world)
        weight = self.weigh(world[0]) if self.weigh is not None else 1.0
        self.cum.append(self.cum[-1] + weight)

    def _simulate(self, index: int) -> None:
        self._play(index, self.root, self.bids, [])

    def _play(
        self, index: int, node: dict[int, _Edge], bids: Sequence[int], path: list[tuple[_Edge, int]]
    ) -> list[int]:
        """One simulation in world ``index`` from ``node`` (the first card of
        the hand or of the decision), every seat chasing ``bids``; ``path``
        holds the edges above it, each credited with its seat's score."""
        lay = self.lay
        n = self.n
        trump = self.trump
        suit = lay.suit
        suit_mask = lay.suit_mask
        key = self.key
        masks, trick0, unseen = self.worlds[index]
        hands = list(masks)
        trick = list(trick0)
        taken = list(self.taken0)
        voids = list(self.voids0)
        leader = self.leader0
        seat = (leader + len(trick)) % n
        c = self.c * (self.hi - self.lo) if self.hi > self.lo else 1.0
        me = self.me
        others_greedy = self.others_greedy
        finished = False
        while True:
            hand = hands[seat]
            if others_greedy and seat != me:
                # The others play the greedy bid-chasing policy in the tree too:
                # the tree follows their cards (each line its own node), but
                # only our own choices are searched.
                slot = choose_card(
                    lay,
                    hand,
                    trick,
                    trump,
                    bids[seat] - taken[seat],
                    hand.bit_count(),
                    unseen,
                    voids,
                    seat,
                    len(trick) == n - 1,
                )
                edge = node.get(key[slot])
                if edge is None:
                    edge = node[key[slot]] = [0, 0.0, 0, None]
                expand = False
            else:
                legal = hand & suit_mask[suit[trick[0]]] if trick else 0
                slot, edge, expand = self._select(node, legal or hand, c)
                path.append((edge, seat))
            bit = 1 << slot
            hands[seat] = hand & ~bit
            unseen &= ~bit
            if trick and suit[slot] != suit[trick[0]]:
                voids[seat] |= 1 << suit[trick[0]]
            trick.append(slot)
            if len(trick) == n:
                winner = (leader + lookup_winner(lay, trick, trump)) % n
                taken[winner] += 1
                trick = []
                leader = seat = winner
                if not hands[0]:
                    finished = True
                    break
            else:
                seat = seat + 1 if seat + 1 < n else 0
            if expand:
                break
            child = edge[_CHILD]
            if child is None:
                child = edge[_CHILD] = {}
            node = child
        if not finished:
            taken = self.finish(hands, trump, leader, trick, taken, bids, unseen, voids)
        utility = self.utilities(bids, taken)
        lo, hi = min(utility), max(utility)
        if lo < self.lo:
            self.lo = lo
        if hi > self.hi:
            self.hi = hi
        for edge, s in path:
            edge[_VISITS] += 1
            edge[_TOTAL] += utility[s]
        self.simulations += 1
        return taken

    def _select(self, node: dict[int, _Edge], legal: int, c: float) -> tuple[int, _Edge, bool]:
        """UCT among the cards of ``legal`` (an untried one first, at random);
        each legal card's availability is counted. Returns the slot, its edge
        and whether it was untried (the simulation then leaves the tree)."""
        key = self.key
        log = math.log
        sqrt = math.sqrt
        untried: list[int] = []
        best_slot, best_value = -1, -math.inf
        m = legal
        while m:
            low = m & -m
            m ^= low
            slot = low.bit_length() - 1
            k = key[slot]
            edge = node.get(k)
            if edge is None:
                edge = node[k] = [0, 0.0, 0, None]
            edge[_AVAILABLE] += 1
            visits = edge[_VISITS]
            if not visits:
                untried.append(slot)
            elif not untried:
                value = edge[_TOTAL] / visits + c * sqrt(log(edge[_AVAILABLE]) / visits)
                if value > best_value:
                    best_slot, best_value = slot, value
            twin = slot + 1
            while m >> twin & 1 and key[twin] == k:
                m ^= 1 << twin  # an identical card (R-DECK-AU): one action, counted once
                twin += 1
        if untried:
            slot = self.rng.choice(untried)
            return slot, node[key[slot]], True
        return best_slot, node[key[best_slot]], False

    def ranked(self) -> list[CardValue]:
        """The legal cards, most visited first (then the best mean)."""
        out = []
        for action in self.obs.legal_actions:
            assert isinstance(action, Play) and action.card is not None
            edge = self.root.get(self.key[self.lay.slots_of[action.card][0]])
            visits = edge[_VISITS] if edge else 0
            mean = edge[_TOTAL] / visits if edge and visits else -math.inf
            out.append(CardValue(action.card, visits, mean))
        out.sort(key=lambda v: (-v.visits, -v.mean))
        return out


class BidSearch(CardSearch):
    """The bid chosen by the same search as the cards, with the bid as its root.

    The flat evaluation of bids plays every world out with the greedy policy
    in every seat, the bidder's own included, so it values a bid by how the
    greedy policy would play it, not by how the search that will really play
    it does (the playouts are overconfident at both ends: ``calibration``).
    Here each simulation picks one of ``candidates`` by UCT on the bidder's
    score, then plays the hand through the card tree below that bid (one
    tree per bid), every seat chasing its bid: the seats still to bid chase
    ``bids_in(world)(bid)`` (their guessed bids in that world). A bid's value
    is the score of playing it as the search plays.
    """

    def __init__(
        self,
        obs: Observation,
        rng: random.Random,
        weigh: Weigh | None,
        *,
        pool: int,
        candidates: Sequence[int],
        bids_in: Callable[[Sequence[int]], Callable[[int], list[int]]],
        c: float = 0.6,
        others_greedy: bool = False,
        noise: float = 0.0,
    ) -> None:
        super().__init__(obs, rng, weigh, pool=pool, c=c, others_greedy=others_greedy, noise=noise)
        self.candidates = list(candidates)
        self.bids_in = bids_in
        self._guesses: dict[int, Callable[[int], list[int]]] = {}  # by world
        self.edges: dict[int, _Edge] = {b: [0, 0.0, 0, None] for b in self.candidates}
        self.made = dict.fromkeys(self.candidates, 0)
        self._bids: dict[tuple[int, int], list[int]] = {}

    def _simulate(self, index: int) -> None:
        bid, edge = self._select_bid()
        bids = self._bids.get((index, bid))
        if bids is None:
            guess = self._guesses.get(index)
            if guess is None:
                guess = self._guesses[index] = self.bids_in(self.worlds[index][0])
            bids = self._bids[index, bid] = guess(bid)
        child = edge[_CHILD]
        if child is None:
            child = edge[_CHILD] = {}
        taken = self._play(index, child, bids, [(edge, self.me)])
        if taken[self.me] == bid:
            self.made[bid] += 1

    def _select_bid(self) -> tuple[int, _Edge]:
        """UCT over the candidate bids, an untried one first (every bid is
        available in every world, so the parent's count is the simulations)."""
        untried = [b for b in self.candidates if not self.edges[b][_VISITS]]
        if untried:
            bid = self.rng.choice(untried)
            return bid, self.edges[bid]
        c = self.c * (self.hi - self.lo) if self.hi > self.lo else 1.0
        log_n = math.log(self.simulations)
        best, best_value = self.candidates[0], -math.inf
        for b in self.candidates:
            visits, total = self.edges[b][_VISITS], self.edges[b][_TOTAL]
            value = total / visits + c * math.sqrt(log_n / visits)
            if value > best_value:
                best, best_value = b, value
        return best, self.edges[best]

    def ranked_bids(self) -> list[tuple[int, int, float, float]]:
        """Each candidate bid: (bid, visits, mean score, share of its
        simulations that made it exactly), most visited first."""
        out = []
        for b in self.candidates:
            visits, total = self.edges[b][_VISITS], self.edges[b][_TOTAL]
            mean = total / visits if visits else -math.inf
            out.append((b, visits, mean, self.made[b] / visits if visits else 0.0))
        out.sort(key=lambda r: (-r[1], -r[2]))
        return out


def _add(lay: Layout, hand: Sequence[Card], used: int) -> int:
    """``hand`` as a mask of slots not in ``used`` (identical cards take free slots)."""
    m = 0
    for card in hand:
        slot = lay.slot(card, used | m)
        m |= 1 << slot
    return m


__all__ = ["BidSearch", "CardSearch", "CardValue"]
