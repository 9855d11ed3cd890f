"""The greedy playout of ``fastdeal``, written for Numba to compile.

Imported only by ``accel`` when the optional ``fast`` extra is installed
(importing this module imports Numba). Every function is a line-by-line
transcription of its namesake in ``fastdeal``, keeping its order of tests
and its ties, so the two cannot choose differently: hands are 64-bit masks
over the same slots, and the trick winner is read from the same beat table
(``Layout.beaten_by``), built from the core's rule. ``choose_card`` is
``_choose`` here, ``lookup_winner`` is ``_winner``.
"""

from __future__ import annotations

from typing import Any

import numba

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


__all__ = ["playout"]
