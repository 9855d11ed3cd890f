"""Hands as bits: helpers for the batched simulator's 52-bit card masks.

A hand, a trick's legal cards or the cards played are ``uint64`` masks with
bit ``Card.index`` set for each card (``batch_tables.card_bits``). These turn
them into the 0/1 planes of an observation and pick the k-th card of a mask,
which is how ``BatchSimulator.random_actions`` draws a legal card without
building a mask.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from .batch_tables import CARDS

IP = npt.NDArray[np.intp]
U64 = npt.NDArray[np.uint64]
I8 = npt.NDArray[np.int8]


def card_bits(masks: U64, count: int = CARDS) -> npt.NDArray[np.uint8]:
    """The low ``count`` bits of each mask (card ids), as 0/1 bytes along a new last axis."""
    raw = np.ascontiguousarray(masks, dtype="<u8").view(np.uint8).reshape(-1)
    # Unpacking the flat bytes is twice as fast as along an axis.
    return np.unpackbits(raw, bitorder="little").reshape(*masks.shape, 64)[..., :count]


_LOW_BITS: Final = np.array([(1 << m) - 1 for m in range(65)], np.uint64)  # the m lowest bits


def popcount(bits: U64) -> IP:
    """The number of set bits of each mask."""
    if hasattr(np, "bitwise_count"):  # NumPy 2
        counted: IP = np.bitwise_count(bits).astype(np.intp)
        return counted
    return popcount_by_halves(bits)


def popcount_by_halves(bits: U64) -> IP:
    """Set bits counted by adding neighbouring groups (for NumPy before 2.0)."""
    x = bits - ((bits >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    counted: IP = ((x * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.intp)
    return counted


def select_bit(bits: U64, k: IP) -> IP:
    """The position of the k-th set bit (from 0) of each mask, by binary search:
    the highest m with at most k set bits below it."""
    at = np.zeros(len(bits), np.intp)
    for step in (32, 16, 8, 4, 2, 1):
        up = at + step
        below = popcount(bits & _LOW_BITS[up])
        at = np.where(below <= k, up, at)
    return at


def random_legal(mask: I8, rng: np.random.Generator) -> IP:
    """A uniformly random id among each row's ones (id 0 for a row without)."""
    count = mask.sum(axis=1, dtype=np.intp)
    pick = (rng.random(len(mask)) * count).astype(np.intp)  # the pick-th legal id, from 0
    running = np.cumsum(mask, axis=1, dtype=np.int8)  # at most 95
    chosen = (running <= pick[:, None]).sum(axis=1, dtype=np.intp)
    return np.where(count > 0, chosen, 0)
