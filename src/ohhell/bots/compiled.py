"""The greedy playout of ``fastdeal`` and the card search's walk of
``treesearch``, written for Numba to compile.

Imported only by ``accel`` when the optional ``fast`` extra is installed
(importing this module imports Numba). Every function is a line-by-line
transcription of its namesake in ``fastdeal``, keeping its order of tests
and its ties, so the two cannot choose differently: hands are 64-bit masks
over the same slots, and the trick winner is read from the same beat table
(``Layout.beaten_by``), built from the core's rule. ``choose_card`` is
``_choose`` here, ``lookup_winner`` is ``_winner``. ``search`` is
``CardSearch._play`` (and ``BidSearch._simulate``) over a tree held in
arrays (``Tree``); its scores come from the core's ``seat_scores``.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numba
import numpy as np

_jit = numba.njit(cache=True, nogil=True)


@_jit
def _high(x: int) -> int:
    r = 0
    if x >> 32:
        x >>= 32
        r += 32
    if x >> 16:
        x >>= 16
        r += 16
    if x >> 8:
        x >>= 8
        r += 8
    if x >> 4:
        x >>= 4
        r += 4
    if x >> 2:
        x >>= 2
        r += 2
    if x >> 1:
        r += 1
    return r


@_jit
def _low(x: int) -> int:
    return _high(x & -x)


@_jit
def _count(x: int) -> int:
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@_jit
def _winner(beaten_by: Any, trick: Any, count: int) -> int:
    best = trick[0]
    at = 0
    for i in range(1, count):
        c = trick[i]
        if (beaten_by[best] >> c) & 1:
            best = c
            at = i
    return at


@_jit
def _lowest_rank(suit_mask: Any, rank: Any, mask: int, avoid_suit: int) -> int:
    best, k0, k1 = -1, 2, 99
    for s in range(4):
        m = mask & suit_mask[s]
        if m:
            c = _low(m)
            a = 1 if s == avoid_suit else 0
            if a < k0 or (a == k0 and rank[c] < k1):
                best, k0, k1 = c, a, rank[c]
    return best


@_jit
def _ruff_shown(voids: Any, seat: int, suit: int, trump: int) -> bool:
    for s in range(voids.shape[0]):
        v = voids[s]
        if s != seat and (v >> suit) & 1 and not (v >> trump) & 1:
            return True
    return False


@_jit
def _sure_tricks(suit_mask: Any, above: Any, hand: int, trump: int, others: int) -> int:
    sure = 0
    m = hand & suit_mask[trump]
    while m:
        top = _high(m)
        if others & above[top]:
            break
        sure += 1
        m ^= 1 << top
    return sure


@_jit
def _lead(
    suit_mask: Any,
    rank: Any,
    above: Any,
    hand: int,
    trump: int,
    need: int,
    tricks_left: int,
    others: int,
    voids: Any,
    seat: int,
) -> int:
    trumps = hand & suit_mask[trump] if trump >= 0 else 0
    if need > 0:
        if trumps and need >= tricks_left:
            return _high(trumps)
        for k in range(5):
            # side suits in order, then trump
            if k < 4:
                s = k
                if s == trump:
                    continue
            else:
                if trump < 0:
                    break
                s = trump
            m = hand & suit_mask[s]
            if m:
                top = _high(m)
                if not (others & above[top]) and (
                    s == trump or trump < 0 or not _ruff_shown(voids, seat, s, trump)
                ):
                    return top
        if trumps:
            best, shortest = -1, 99
            for s in range(4):
                m = hand & suit_mask[s]
                if s != trump and m and _count(m) < shortest:
                    best, shortest = _low(m), _count(m)
            if best >= 0:
                return best
        return _lowest_rank(suit_mask, rank, hand, trump)
    best, k0, k1 = -1, 2, 0
    for s in range(4):
        m = hand & suit_mask[s]
        if m:
            c = _low(m)
            a = 1 if s == trump else 0
            b = -_count(others & above[c])
            if a < k0 or (a == k0 and b < k1):
                best, k0, k1 = c, a, b
    return best


@_jit
def _choose(
    suit: Any,
    rank: Any,
    suit_mask: Any,
    above: Any,
    beaten_by: Any,
    hand: int,
    trick: Any,
    count: int,
    trump: int,
    need: int,
    tricks_left: int,
    unseen: int,
    voids: Any,
    seat: int,
    last: bool,
    winning: int,
) -> int:
    others = unseen & ~hand
    if 0 < need < tricks_left and trump >= 0 and _sure_tricks(suit_mask, above, hand, trump, others) >= need:
        need = 0
    if count == 0:
        return _lead(suit_mask, rank, above, hand, trump, need, tricks_left, others, voids, seat)
    led = suit[trick[0]]
    follow = hand & suit_mask[led]
    legal = follow if follow else hand
    w = winning if winning >= 0 else trick[_winner(beaten_by, trick, count)]
    if suit[w] == led:
        beats = (follow & above[w]) if follow else (hand & suit_mask[trump] if trump >= 0 else 0)
    else:
        beats = 0 if follow else (hand & above[w])
    if need > 0:
        if beats:
            if not last:
                n = voids.shape[0]
                later_void = False
                for k in range(1, n - count):
                    if (voids[(seat + k) % n] >> led) & 1:
                        later_void = True
                        break
                cand = beats
                while cand:
                    c = _low(cand)
                    if suit[c] == led:
                        safe = not (others & above[c]) and not (
                            trump >= 0 and _ruff_shown(voids, seat, led, trump)
                        )
                    else:
                        safe = not later_void or not (others & above[c] & suit_mask[trump])
                    if safe:
                        return c
                    cand &= cand - 1
            return _low(beats)
        return _lowest_rank(suit_mask, rank, legal, trump)
    losers = legal & ~beats
    if losers:
        if follow:
            return _high(losers)
        best, k0, k1 = -1, 99, 0
        for s in range(4):
            m = losers & suit_mask[s]
            if m:
                c = _high(m)
                a = _count(others & above[c])
                b = -rank[c]
                if a < k0 or (a == k0 and b < k1):
                    best, k0, k1 = c, a, b
        return best
    return _high(beats)


@_jit
def playout(
    suit: Any,
    rank: Any,
    suit_mask: Any,
    beaten_by: Any,
    hands: Any,
    trump: int,
    leader: int,
    trick: Any,
    count: int,
    taken: Any,
    targets: Any,
    unseen: int,
    voids: Any,
) -> Any:
    n = hands.shape[0]
    above = beaten_by[0]
    beats_t = beaten_by[trump + 1]
    cards = 0
    for s in range(n):
        cards += _count(hands[s])
    tricks_left = cards // n + (1 if count else 0)
    seat = (leader + count) % n
    at = _winner(beats_t, trick, count) if count else -1
    w = trick[at] if count else -1
    while True:
        while count < n:
            hand = hands[seat]
            card = _choose(
                suit,
                rank,
                suit_mask,
                above,
                beats_t,
                hand,
                trick,
                count,
                trump,
                targets[seat] - taken[seat],
                tricks_left,
                unseen,
                voids,
                seat,
                count == n - 1,
                w,
            )
            bit = 1 << card
            hands[seat] = hand & ~bit
            unseen &= ~bit
            if count == 0:
                w, at = card, 0
            else:
                if suit[card] != suit[trick[0]]:
                    voids[seat] |= 1 << suit[trick[0]]
                if (beats_t[w] >> card) & 1:
                    w, at = card, count
            trick[count] = card
            count += 1
            seat = seat + 1 if seat + 1 < n else 0
        winner = (leader + at) % n
        w = -1
        taken[winner] += 1
        tricks_left -= 1
        count = 0
        leader = seat = winner
        if not hands[0]:
            return taken


# --- The card search's walk (``treesearch.CardSearch._play``) ---


@_jit
def search(
    suit: Any,
    rank: Any,
    suit_mask: Any,
    beaten_by: Any,
    key: Any,
    worlds: Any,
    tricks: Any,
    counts: Any,
    unseens: Any,
    picks: Any,
    bid_draws: Any,
    card_draws: Any,
    overs: Any,
    bidset_of: Any,
    bidsets: Any,
    over_bidsets: Any,
    scores: Any,
    relative: bool,
    taken0: Any,
    voids0: Any,
    leader0: int,
    me: int,
    trump: int,
    c0: float,
    bid_search: bool,
    e_visits: Any,
    e_total: Any,
    e_available: Any,
    e_child: Any,
    b_visits: Any,
    b_total: Any,
    b_made: Any,
    b_child: Any,
    counters: Any,
    bounds: Any,
    max_nodes: int,
    root_mask: int,
) -> None:
    """``len(picks)`` simulations of ``CardSearch._simulate`` (or, with
    ``bid_search``, of ``BidSearch._simulate``), the tree held in arrays.

    A transcription of the Python walk, keeping its order of tests, its ties
    and its sums: node 0 is the root, an edge is (node, key of the card), a
    child of 0 means none; ``counters`` holds the nodes and the simulations
    so far, ``bounds`` the lowest and highest payoff seen; ``overs`` says
    which simulations play the others towards ``over_bidsets`` (each other
    seat's bid one higher) rather than ``bidsets``, scoring by ``bidsets``;
    ``root_mask`` (0: none) holds a card search's first card to the slots it names.
    """
    n = worlds.shape[1]
    beats_t = beaten_by[trump + 1]
    candidates = b_visits.shape[0]
    hands = np.empty(n, dtype=np.int64)
    trick = np.empty(n, dtype=np.int64)
    taken = np.empty(n, dtype=np.int64)
    voids = np.empty(n, dtype=np.int64)
    utility = np.empty(n, dtype=np.float64)
    untried = np.empty(64, dtype=np.int64)
    depth_most = 64 * 2
    path_node = np.empty(depth_most, dtype=np.int64)
    path_key = np.empty(depth_most, dtype=np.int64)
    path_seat = np.empty(depth_most, dtype=np.int64)
    for k in range(picks.shape[0]):
        index = picks[k]
        lo = bounds[0]
        hi = bounds[1]
        c = c0 * (hi - lo) if hi > lo else 1.0
        pick = 0
        if bid_search:
            tried = 0
            for j in range(candidates):
                if b_visits[j] == 0:
                    tried += 1
            if tried:
                at = int(bid_draws[k] * tried)
                for j in range(candidates):
                    if b_visits[j] == 0:
                        if at == 0:
                            pick = j
                            break
                        at -= 1
            else:
                log_n = math.log(counters[1])
                best_value = -math.inf
                for j in range(candidates):
                    value = b_total[j] / b_visits[j] + c * math.sqrt(log_n / b_visits[j])
                    if value > best_value:
                        pick = j
                        best_value = value
            if b_child[pick] == 0:
                b_child[pick] = counters[0]
                counters[0] += 1
            node = b_child[pick]
        else:
            node = 0
        chosen = bidset_of[index, pick]
        targets = over_bidsets[chosen] if overs[k] else bidsets[chosen]
        count = counts[index]
        for s in range(n):
            hands[s] = worlds[index, s]
            trick[s] = tricks[index, s]
            taken[s] = taken0[s]
            voids[s] = voids0[s]
        unseen = unseens[index]
        leader = leader0
        seat = (leader + count) % n
        depth = 0
        finished = False
        while True:
            hand = hands[seat]
            legal = hand & suit_mask[suit[trick[0]]] if count else 0
            if legal == 0:
                legal = hand
            if depth == 0 and root_mask != 0:
                legal &= root_mask  # CardSearch(only=card): one card at the root
            # _select: UCT among the legal cards, an untried one first.
            found = 0
            best_slot = -1
            best_value = -math.inf
            m = legal
            while m:
                low = m & -m
                m ^= low
                slot = _high(low)
                kk = key[slot]
                e_available[node, kk] += 1
                visits = e_visits[node, kk]
                if visits == 0:
                    untried[found] = slot
                    found += 1
                elif found == 0:
                    value = e_total[node, kk] / visits + c * math.sqrt(
                        math.log(e_available[node, kk]) / visits
                    )
                    if value > best_value:
                        best_slot = slot
                        best_value = value
                twin = slot + 1
                while (m >> twin) & 1 and key[twin] == kk:
                    m ^= 1 << twin
                    twin += 1
            expand = found > 0
            slot = untried[int(card_draws[k] * found)] if expand else best_slot
            kk = key[slot]
            path_node[depth] = node
            path_key[depth] = kk
            path_seat[depth] = seat
            depth += 1
            bit = 1 << slot
            hands[seat] = hand & ~bit
            unseen &= ~bit
            if count and suit[slot] != suit[trick[0]]:
                voids[seat] |= 1 << suit[trick[0]]
            trick[count] = slot
            count += 1
            if count == n:
                winner = (leader + _winner(beats_t, trick, n)) % n
                taken[winner] += 1
                count = 0
                leader = winner
                seat = winner
                if hands[0] == 0:
                    finished = True
                    break
            else:
                seat = seat + 1 if seat + 1 < n else 0
            if expand:
                break
            child = e_child[node, kk]
            if child == 0:
                if counters[0] >= max_nodes:
                    break
                child = counters[0]
                e_child[node, kk] = child
                counters[0] += 1
            node = child
        if not finished:
            playout(
                suit,
                rank,
                suit_mask,
                beaten_by,
                hands,
                trump,
                leader,
                trick,
                count,
                taken,
                targets,
                unseen,
                voids,
            )
        table = scores[chosen]
        total = 0.0
        for s in range(n):
            utility[s] = table[s, taken[s]]
            total += utility[s]
        if relative:
            for s in range(n):
                x = utility[s]
                utility[s] = x - (total - x) / (n - 1)
        lo = utility[0]
        hi = utility[0]
        for s in range(1, n):
            lo = min(lo, utility[s])
            hi = max(hi, utility[s])
        if lo < bounds[0]:
            bounds[0] = lo
        if hi > bounds[1]:
            bounds[1] = hi
        if bid_search:
            b_visits[pick] += 1
            b_total[pick] += utility[me]
            if taken[me] == targets[me]:
                b_made[pick] += 1
        for d in range(depth):
            e_visits[path_node[d], path_key[d]] += 1
            e_total[path_node[d], path_key[d]] += utility[path_seat[d]]
        counters[1] += 1


class Tree:
    """One search's tree in arrays, and the copies of its worlds and bids the
    compiled walk reads; ``run`` plays a batch of ``CardSearch`` simulations.

    ``tables`` are the layout's (suit, rank, suit_mask, beaten_by, key) as
    arrays; ``most`` the most tricks a seat can take; ``candidates`` the bids
    at the root of a bid search (``BidSearch``), None for a card search.
    """

    def __init__(
        self, tables: tuple[Any, ...], players: int, most: int, candidates: int | None, max_nodes: int
    ) -> None:
        self.tables = tables
        self.n = players
        self.bid_search = candidates is not None
        candidates = candidates or 1
        self.slots = tables[0].shape[0]
        self.max_nodes = max_nodes
        self.counters = np.array([1, 0], dtype=np.int64)  # nodes (the root), simulations
        self.bounds = np.array([math.inf, -math.inf])
        self.b_visits = np.zeros(candidates, dtype=np.int64)
        self.b_total = np.zeros(candidates)
        self.b_made = np.zeros(candidates, dtype=np.int64)
        self.b_child = np.zeros(candidates, dtype=np.int64)
        self.edges = self._edges(64)
        self.dealt = 0  # worlds copied so far
        self.worlds = np.zeros((64, players), dtype=np.int64)
        self.tricks = np.zeros((64, players), dtype=np.int64)
        self.counts = np.zeros(64, dtype=np.int64)
        self.unseens = np.zeros(64, dtype=np.int64)
        self.bidset_of = np.zeros((64, candidates), dtype=np.int64)
        self.known = 0  # bid sets copied so far
        self.bidsets = np.zeros((8, players), dtype=np.int64)
        self.over_bidsets = np.zeros((8, players), dtype=np.int64)
        self.scores = np.zeros((8, players, most + 1))  # by bid set, seat, tricks taken

    def _edges(self, nodes: int) -> tuple[Any, Any, Any, Any]:
        shape = (nodes, self.slots)
        return (
            np.zeros(shape, dtype=np.int32),  # visits
            np.zeros(shape),  # summed payoff of the seat that plays the card
            np.zeros(shape, dtype=np.int32),  # simulations in which it was legal
            np.zeros(shape, dtype=np.int32),  # the node below (0: none yet)
        )

    def _grow(self, nodes: int) -> None:
        old = self.edges
        if old[0].shape[0] >= nodes:
            return
        new = self._edges(max(nodes, 2 * old[0].shape[0]))
        for a, b in zip(new, old, strict=True):
            a[: b.shape[0]] = b
        self.edges = new

    def _copy_worlds(self, search: Any) -> None:
        total = len(search.worlds)
        if total > self.worlds.shape[0]:
            size = max(total, 2 * self.worlds.shape[0])
            for name in ("worlds", "tricks", "counts", "unseens", "bidset_of"):
                old = getattr(self, name)
                new = np.zeros((size, *old.shape[1:]), dtype=old.dtype)
                new[: old.shape[0]] = old
                setattr(self, name, new)
        for i in range(self.dealt, total):
            hands, trick, unseen = search.worlds[i]
            self.worlds[i] = hands
            self.tricks[i, : len(trick)] = trick
            self.counts[i] = len(trick)
            self.unseens[i] = unseen
            self.bidset_of[i] = search.world_bidsets[i]
        self.dealt = total
        total = len(search.bidsets)
        if total > self.bidsets.shape[0]:
            size = max(total, 2 * self.bidsets.shape[0])
            bidsets = np.zeros((size, self.n), dtype=np.int64)
            bidsets[: self.known] = self.bidsets[: self.known]
            over_bidsets = np.zeros((size, self.n), dtype=np.int64)
            over_bidsets[: self.known] = self.over_bidsets[: self.known]
            scores = np.zeros((size, *self.scores.shape[1:]))
            scores[: self.known] = self.scores[: self.known]
            self.bidsets, self.over_bidsets, self.scores = bidsets, over_bidsets, scores
        for i in range(self.known, total):
            self.bidsets[i] = search.bidsets[i]
            self.over_bidsets[i] = search.over_bidsets[i]
            self.scores[i] = search.tables[i]
        self.known = total

    def run(
        self,
        search: Any,
        picks: list[int],
        bid_draws: list[float],
        card_draws: list[float],
        overs: list[bool],
    ) -> None:
        """Play ``len(picks)`` simulations of ``search`` and bring its counts up to date."""
        self._copy_worlds(search)
        candidates = self.b_visits.shape[0]
        self._grow(min(int(self.counters[0]) + len(picks) + candidates + 1, self.max_nodes + candidates + 1))
        visits, total, available, child = self.edges
        suit, rank, suit_mask, beaten_by, key = self.tables
        search_kernel(
            suit,
            rank,
            suit_mask,
            beaten_by,
            key,
            self.worlds,
            self.tricks,
            self.counts,
            self.unseens,
            np.array(picks, dtype=np.int64),
            np.array(bid_draws),
            np.array(card_draws),
            np.array(overs, dtype=np.bool_),
            self.bidset_of,
            self.bidsets,
            self.over_bidsets,
            self.scores,
            bool(search.relative),
            np.array(search.taken0, dtype=np.int64),
            np.array(search.voids0, dtype=np.int64),
            int(search.leader0),
            int(search.me),
            int(search.trump),
            float(search.c),  # an integer ``c=1`` would compile a second version
            self.bid_search,
            visits,
            total,
            available,
            child,
            self.b_visits,
            self.b_total,
            self.b_made,
            self.b_child,
            self.counters,
            self.bounds,
            self.max_nodes,
            int(getattr(search, "root_mask", 0)),
        )
        search.nodes = int(self.counters[0])
        search.simulations = int(self.counters[1])
        search.lo, search.hi = float(self.bounds[0]), float(self.bounds[1])

    def root_edge(self, key: int) -> tuple[int, float]:
        """The root's edge for the card keyed ``key``: visits and summed payoff."""
        return int(self.edges[0][0, key]), float(self.edges[1][0, key])

    def bid_edge(self, index: int) -> tuple[int, float, int]:
        """The ``index``-th candidate bid: visits, summed payoff, times made."""
        return int(self.b_visits[index]), float(self.b_total[index]), int(self.b_made[index])


search_kernel = search


def warm_up() -> None:
    """Compile the search (or load it from Numba's cache) on a one-card hand
    for two: a layout of two slots of one suit, the higher beating the lower."""
    i64 = np.int64
    tree = Tree(
        (
            np.array([0, 0], dtype=i64),
            np.array([2, 3], dtype=i64),
            np.array([3, 0, 0, 0], dtype=i64),
            np.array([[2, 0]] * 5, dtype=i64),
            np.array([0, 1], dtype=i64),
        ),
        2,
        1,
        2,
        8,
    )

    search = SimpleNamespace(  # what ``Tree.run`` reads of a ``CardSearch``
        worlds=[([1, 2], [], 0)],
        world_bidsets=[[0, 1]],
        bidsets=[(0, 0), (1, 0)],
        over_bidsets=[(0, 1), (1, 1)],
        tables=[[[1.0, 0.0], [1.0, 0.0]], [[0.0, 1.0], [1.0, 0.0]]],
        relative=False,
        taken0=[0, 0],
        voids0=[0, 0],
        leader0=0,
        me=0,
        trump=-1,
        c=0.6,
    )
    tree.run(search, [0, 0, 0], [0.0, 0.5, 0.0], [0.0, 0.0, 0.0], [False, True, False])


__all__ = ["Tree", "playout", "search"]
