"""The compact vector: the full vector's fields for one table, without what the rules fix.

``vector.encode`` lays out one vector for every rule set and table size
(1,162 values: per-seat blocks padded to 7 seats, the rules themselves
included). Within one rule set much of it never changes, so the compact form
(the batched simulator's observation) keeps the full vector's fields with the
same meaning, order and float32 values, but per-seat blocks have one entry per
seat at this table (relative to the observer, so block r is still the seat r
places to its left: the first entries of the full block), and the fields one
rule set fixes are left out: ``seat_present``, ``players``, ``trump_mode``,
``scoring``, ``tie_break`` and ``rule_flags`` always; ``visible_hands`` unless
the rules play Devil's Bridge (then ``devils_bridge_now`` is the full vector's
"Devil's Bridge this hand" flag) and ``teammate`` unless they have teams.
552 values for 4 players.

Every compact element is one element of the full vector, so the two convert
exactly: ``compact_index(rules)`` gives, for each compact element, its index
in the full vector (``full[compact_index(rules)] == compact``);
``to_compact`` cuts, ``to_full`` fills the left-out fields back from the rules
(``vector.rule_vector``), and ``encode_compact(obs)`` is
``to_compact(encode(obs), obs.rules)``. Both take any leading batch shape.

>>> from ohhell import PRESETS, new_game, observe
>>> rules = PRESETS["pagat"]
>>> compact_size(rules), compact_layout(rules)["trick"]
(552, (52, 260))
>>> full = encode(observe(new_game(rules), 0))
>>> bool((to_full(to_compact(full, rules), rules) == full).all())
True
"""

from __future__ import annotations

import functools
from typing import Final

import numpy as np
import numpy.typing as npt

from .. import Observation, Rules
from .vector import (
    CARDS,
    DEVILS_BRIDGE_NOW,
    LAYOUT,
    MAX_HAND,
    OBSERVATION_SIZE,
    PHASES,
    encode,
    observation_bounds,
    rule_vector,
)

F32 = npt.NDArray[np.float32]
IP = npt.NDArray[np.intp]

COMPACT_ONLY: Final = {"devils_bridge_now": DEVILS_BRIDGE_NOW}
"""Compact fields that are one element of a full field, by their full index."""


def _fields(rules: Rules) -> list[tuple[str, int]]:
    n = rules.players
    bids = MAX_HAND + 1
    fields: list[tuple[str, int]] = [("own_hand", CARDS)]
    if rules.devils_bridge:
        fields.append(("visible_hands", (n - 1) * CARDS))
    fields += [
        ("trick", n * CARDS),
        ("played", CARDS),
        ("turned", CARDS),
        ("trump", 5),
        ("trump_undecided", 1),
        ("bids", n * bids),
        ("has_bid", n),
        ("sealed", n),
        ("taken", n),
        ("need", n),
        ("hand_counts", n),
        ("hand_size", MAX_HAND),
        ("hand_size_scaled", 1),
        ("schedule", 4),
        ("dealer", n),
        ("leader", n),
        ("trump_namer", n),
        ("voids", n * 4),
        ("totals", n),
        ("behind_leader", n),
        ("exact", n),
    ]
    if rules.teams is not None:
        fields.append(("teammate", n))
    fields += [("phase", len(PHASES)), ("my_turn", 1), ("forbidden_bid", bids), ("balance", 3)]
    if rules.devils_bridge:
        fields.append(("devils_bridge_now", 1))
    return fields


@functools.lru_cache(maxsize=64)
def _layout(rules: Rules) -> tuple[tuple[str, int, int], ...]:
    out, at = [], 0
    for name, size in _fields(rules):
        out.append((name, at, at + size))
        at += size
    return tuple(out)


def compact_layout(rules: Rules) -> dict[str, tuple[int, int]]:
    """Each field's ``[start, end)`` range in the compact vector of ``rules``."""
    return {name: (a, b) for name, a, b in _layout(rules)}


def compact_size(rules: Rules) -> int:
    """The compact vector's length: 85·n + 212 for n players, 137·n + 161 with
    Devil's Bridge, n more with teams."""
    return _layout(rules)[-1][2]


@functools.lru_cache(maxsize=64)
def _index(rules: Rules) -> IP:
    parts = []
    for name, a, b in _layout(rules):
        start = COMPACT_ONLY[name] if name in COMPACT_ONLY else LAYOUT[name][0]
        parts.append(np.arange(start, start + (b - a), dtype=np.intp))  # the first seats' entries
    index = np.concatenate(parts)
    index.setflags(write=False)
    return index


def compact_index(rules: Rules) -> IP:
    """For each compact element, its index in the full vector (read-only):
    ``full[..., compact_index(rules)]`` is the compact vector."""
    return _index(rules)


def compact_bounds(rules: Rules) -> tuple[F32, F32]:
    """Per-element lower and upper bounds, those of ``vector.observation_bounds``."""
    low, high = observation_bounds()
    index = _index(rules)
    return low[index], high[index]


def to_compact(full: npt.ArrayLike, rules: Rules) -> F32:
    """The compact form of full vectors (shape ``(..., OBSERVATION_SIZE)``) of ``rules``."""
    array = np.asarray(full, np.float32)
    if array.shape[-1:] != (OBSERVATION_SIZE,):
        raise ValueError(f"a full vector has {OBSERVATION_SIZE} values, not shape {array.shape}")
    out: F32 = array[..., _index(rules)]
    return out


def to_full(compact: npt.ArrayLike, rules: Rules) -> F32:
    """The full vectors of compact ones of ``rules``: each compact element in its
    place, the rule-fixed fields from ``rules`` (``vector.rule_vector``:
    ``seat_present``, ``players``, ``trump_mode``, ``scoring``, ``tie_break``,
    the rule flags, and ``teammate`` without teams), zero elsewhere."""
    array = np.asarray(compact, np.float32)
    size = compact_size(rules)
    if array.shape[-1:] != (size,):
        raise ValueError(f"a compact vector of these rules has {size} values, not shape {array.shape}")
    out = np.empty((*array.shape[:-1], OBSERVATION_SIZE), np.float32)
    out[...] = rule_vector(rules)
    out[..., _index(rules)] = array
    return out


def encode_compact(obs: Observation) -> F32:
    """The compact vector of one seat's observation: ``to_compact(encode(obs), obs.rules)``."""
    return to_compact(encode(obs), obs.rules)
