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
the core's rule read from the layout's beat table (``lookup_winner``), and a
hand's scores are read from the core's ``seat_scores``.

With the optional ``fast`` extra the simulations are played by compiled code
over the tree held in arrays (``accel.compiled_tree``): the same walk, the
same draws, the same sums, so a fixed budget decides exactly as this Python
walk does (tests/bots/test_accel.py), several times faster.
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

from .. import Card, Observation, Play, Scoring, sample_hands, seat_scores
from .accel import compiled_playout, compiled_tree
from .fastdeal import Layout, choose_card, layout, lookup_winner, playout, seen_slots, suit_index
from .finish import steered

# An edge of the tree: [visits, summed score of the seat that plays it,
# simulations in which it was legal, the node below it (card -> edge) or None].
_Edge = list[Any]
_VISITS, _TOTAL, _AVAILABLE, _CHILD = 0, 1, 2, 3
_TRIES = 4
_BITS = tuple(1 << i for i in range(128))  # slot -> its bit (packs have at most 78 slots)
# The most nodes a tree grows (each simulation adds at most one): past it the
# simulations still walk and refine the tree but add nothing, so a long think
# stays within a few tens of megabytes.
MAX_NODES = 1 << 15


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
        per_world: int = 3,
        steer: Sequence[float] | None = None,
        overtricks: float = 0.0,
        only: Card | None = None,
    ) -> None:
        me = obs.seat
        assert me is not None
        self.obs = obs
        self.rng = rng
        self.c = c
        self.others_greedy = others_greedy
        # The share of simulations in which every other seat's greedy finish
        # plays on for one trick more than its bid (its score still read at
        # its bid): real players take more tricks than they bid more often
        # than the greedy policy does, and a search that does not expect it
        # counts on tricks the others will not leave it (docs/bots.md).
        self.overtricks = overtricks
        self.per_world = per_world
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
        # With ``only``, every simulation plays that card first, so its value
        # is the whole budget's (a review prices a card the search would seldom
        # try); 0: the root chooses among every legal card.
        self.root_mask = sum(1 << slot for slot in lay.slots_of[only]) if only is not None else 0
        self.lo = math.inf
        self.hi = -math.inf
        self.nodes = 1  # the root
        self.relative = obs.rules.scoring is Scoring.OKENUFF  # R-SETTLE: differences are paid
        rules = obs.rules
        first_bidder = (obs.dealer + 1) % n
        most = obs.hand_size
        # With ``steer`` (the chances of ``finish``), a seat's score by the
        # tricks the greedy finish took is its expected score given them:
        # real players steer towards their bids better than that policy.
        left = most - sum(obs.taken)

        def table(bids: Sequence[int]) -> list[list[float]]:
            scores = seat_scores(
                rules,
                bids,
                most,
                first_bidder=first_bidder,
                trump_namer=obs.trump_namer,
                no_trump=obs.trump is None,
            )
            rows = [[float(x) for x in row] for row in scores]
            if steer is not None:
                seats = zip(rows, bids, obs.taken, strict=True)
                rows = [steered(row, bid, taken, left, steer) for row, bid, taken in seats]
            return rows

        self._table = table
        # The bids the seats chase in a simulation, each set once with its
        # scores (``seat_scores``: by seat, by tricks taken); and for each world
        # of the pool, the set it is played under for each candidate bid (one
        # "candidate", the bids made, in a card search).
        self.bidsets: list[tuple[int, ...]] = []
        self.over_bidsets: list[tuple[int, ...]] = []  # the same, every other seat's one higher
        self.tables: list[list[list[float]]] = []
        self._bidset_index: dict[tuple[int, ...], int] = {}
        self.world_bidsets: list[list[int]] = []
        self._fixed: _Fixed | None = None
        self.voids0 = [sum(1 << int(s) for s in v) for v in obs.voids]
        self.taken0 = list(obs.taken)
        self.leader0 = obs.leader
        self.weigh = weigh
        self.worlds: list[tuple[list[int], list[int], int]] = []
        self.cum: list[float] = []
        self.simulations = 0
        # The tree in arrays, walked by compiled code, when the optional extra
        # is installed: the same simulations as ``_simulate`` below, card for
        # card, many times faster (``accel``). Not for the variants the
        # compiled walk leaves out (random cards in playouts, greedy others).
        self.arrays = (
            compiled_tree(lay, n, most, self._root_bids(), MAX_NODES)
            if not noise and not others_greedy
            else None
        )
        for _ in range(pool):
            self._add_world()
        if not self.cum[-1] > 0:
            self.cum = list(accumulate([1.0] * pool))

    def _root_bids(self) -> int | None:
        """How many bids a simulation chooses among at the root (None: no bid, a card search)."""
        return None

    def _bidsets_of(self, masks: Sequence[int]) -> list[int]:
        """For each candidate bid, the index of the bids every seat chases in world ``masks``."""
        return [self._bidset(tuple(self.bids))]

    def _bidset(self, bids: tuple[int, ...]) -> int:
        index = self._bidset_index.get(bids)
        if index is None:
            index = self._bidset_index[bids] = len(self.bidsets)
            self.bidsets.append(bids)
            self.over_bidsets.append(tuple(b if s == self.me else b + 1 for s, b in enumerate(bids)))
            self.tables.append(self._table(bids))
        return index

    def utilities(self, bidset: int, taken: Sequence[int]) -> list[float]:
        """Every seat's payoff when the seats chasing ``bidset`` took ``taken``."""
        table = self.tables[bidset]
        scores = [table[s][t] for s, t in enumerate(taken)]
        if not self.relative:
            return scores
        total = sum(scores)
        return [x - (total - x) / (self.n - 1) for x in scores]

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
        chance = self.rng.random
        bit = _BITS.__getitem__
        for _ in range(_TRIES):
            # A uniform shuffle of the unseen slots, by sorting them on random
            # keys (several times faster than ``sample``); the stock, if any,
            # is what is left past the hands.
            dealt = sorted(pool, key=lambda _: chance())
            masks = list(known)
            at = 0
            ok = True
            for s, k in hidden:  # seats with a void first: a misfit is found sooner
                m = sum(map(bit, dealt[at : at + k]))  # distinct slots: the sum is the union
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

        Simulations go in batches: a batch draws its worlds (by weight) and
        the random numbers its untried choices read, then plays. A fixed
        budget is one batch, so the compiled and the Python walk consume the
        generator alike and decide alike. Against a deadline the pool grows as
        the search goes (a world for every ``per_world`` simulations), so a
        long think sees as many different worlds as a fixed budget of its
        size would; at least 8 simulations are played.
        """
        if simulations is not None:
            self._batch(simulations)
            return
        assert deadline is not None
        batch = 8
        while True:
            began = time.perf_counter()
            while self.per_world * len(self.worlds) < self.simulations + batch:
                self._add_world()
            self._batch(batch)
            now = time.perf_counter()
            if now >= deadline:
                return
            # Batches of about a twentieth of the time left (their worlds dealt
            # included), at least 8 simulations: few calls into compiled code,
            # and not far past the deadline.
            each = (now - began) / batch
            batch = max(8, min(4096, int((deadline - now) / 20 / each) if each > 0 else 8))

    def _batch(self, count: int) -> None:
        rng = self.rng
        picks = rng.choices(range(len(self.worlds)), cum_weights=self.cum, k=count)
        chance = rng.random
        draws = [chance() for _ in range(2 * count)]
        bid_draws, card_draws = draws[:count], draws[count:]
        # Drawn only when asked for, so a search without them consumes the
        # generator (and decides) as before.
        share = self.overtricks
        overs = [chance() < share for _ in range(count)] if share else [False] * count
        if self.arrays is not None:
            self.arrays.run(self, picks, bid_draws, card_draws, overs)
            return
        for pick, bid_draw, card_draw, over in zip(picks, bid_draws, card_draws, overs, strict=True):
            self._simulate(pick, bid_draw, card_draw, over)

    def _add_world(self) -> None:
        world = self.world()
        self.worlds.append(world)
        weight = self.weigh(world[0]) if self.weigh is not None else 1.0
        self.cum.append((self.cum[-1] if self.cum else 0.0) + weight)
        self.world_bidsets.append(self._bidsets_of(world[0]))

    def _simulate(self, index: int, bid_draw: float, card_draw: float, over: bool) -> None:
        self._play(index, self.root, self.world_bidsets[index][0], [], card_draw, over)

    def _play(
        self,
        index: int,
        node: dict[int, _Edge],
        bidset: int,
        path: list[tuple[_Edge, int]],
        draw: float,
        over: bool,
    ) -> list[int]:
        """One simulation in world ``index`` from ``node`` (the first card of
        the hand or of the decision), every seat chasing the bids of
        ``bidset`` (the others one trick more with ``over``) and scored by
        them; ``path`` holds the edges above it, each credited with its
        seat's score; ``draw`` (in [0, 1)) picks among untried cards."""
        lay = self.lay
        n = self.n
        trump = self.trump
        suit = lay.suit
        suit_mask = lay.suit_mask
        key = self.key
        bids = (self.over_bidsets if over else self.bidsets)[bidset]
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
                legal = (hand & suit_mask[suit[trick[0]]] if trick else 0) or hand
                if not path and self.root_mask:
                    legal &= self.root_mask  # ``only``: the first card is fixed
                slot, edge, expand = self._select(node, legal, c, draw)
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
                if self.nodes >= MAX_NODES:
                    break  # the tree is full: play on from here without it
                child = edge[_CHILD] = {}
                self.nodes += 1
            node = child
        if not finished:
            taken = self.finish(hands, trump, leader, trick, taken, bids, unseen, voids)
        utility = self.utilities(bidset, taken)
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

    def _select(self, node: dict[int, _Edge], legal: int, c: float, draw: float) -> tuple[int, _Edge, bool]:
        """UCT among the cards of ``legal`` (an untried one first, picked by ``draw``);
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
            slot = untried[int(draw * len(untried))]
            return slot, node[key[slot]], True
        return best_slot, node[key[best_slot]], False

    def _root_edge(self, key: int) -> tuple[int, float]:
        """The root's edge for the card keyed ``key``: visits and summed score."""
        if self.arrays is not None:
            return self.arrays.root_edge(key)
        edge = self.root.get(key)
        return (edge[_VISITS], edge[_TOTAL]) if edge else (0, 0.0)

    def ranked(self) -> list[CardValue]:
        """The legal cards, most visited first (then the best mean)."""
        out = []
        for action in self.obs.legal_actions:
            assert isinstance(action, Play) and action.card is not None
            visits, total = self._root_edge(self.key[self.lay.slots_of[action.card][0]])
            out.append(CardValue(action.card, visits, total / visits if visits else -math.inf))
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
        per_world: int = 3,
        overtricks: float = 0.0,
    ) -> None:
        # Set before the pool is dealt: each world's bids come from them.
        self.candidates = sorted(candidates)
        self.bids_in = bids_in
        self.edges: list[_Edge] = [[0, 0.0, 0, None] for _ in self.candidates]
        self.made = [0] * len(self.candidates)
        super().__init__(
            obs,
            rng,
            weigh,
            pool=pool,
            c=c,
            others_greedy=others_greedy,
            noise=noise,
            per_world=per_world,
            overtricks=overtricks,
        )

    def _root_bids(self) -> int | None:
        return len(self.candidates)

    def _bidsets_of(self, masks: Sequence[int]) -> list[int]:
        guess = self.bids_in(masks)
        return [self._bidset(tuple(guess(bid))) for bid in self.candidates]

    def _simulate(self, index: int, bid_draw: float, card_draw: float, over: bool) -> None:
        pick = self._select_bid(bid_draw)
        edge = self.edges[pick]
        child = edge[_CHILD]
        if child is None:
            child = edge[_CHILD] = {}
            self.nodes += 1
        taken = self._play(index, child, self.world_bidsets[index][pick], [(edge, self.me)], card_draw, over)
        if taken[self.me] == self.candidates[pick]:
            self.made[pick] += 1

    def _select_bid(self, draw: float) -> int:
        """UCT over the candidate bids (their indices), an untried one first,
        picked by ``draw`` (every bid is available in every world, so the
        parent's count is the simulations)."""
        untried = [i for i, edge in enumerate(self.edges) if not edge[_VISITS]]
        if untried:
            return untried[int(draw * len(untried))]
        c = self.c * (self.hi - self.lo) if self.hi > self.lo else 1.0
        log_n = math.log(self.simulations)
        best, best_value = 0, -math.inf
        for i, (visits, total, _, _) in enumerate(self.edges):
            value = total / visits + c * math.sqrt(log_n / visits)
            if value > best_value:
                best, best_value = i, value
        return best

    def ranked_bids(self) -> list[tuple[int, int, float, float]]:
        """Each candidate bid: (bid, visits, mean score, share of its
        simulations that made it exactly), most visited first."""
        out = []
        for i, b in enumerate(self.candidates):
            if self.arrays is not None:
                visits, total, made = self.arrays.bid_edge(i)
            else:
                visits, total, made = self.edges[i][_VISITS], self.edges[i][_TOTAL], self.made[i]
            mean = total / visits if visits else -math.inf
            out.append((b, visits, mean, made / visits if visits else 0.0))
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
