"""Observations and actions as arrays: the layer below both ``ohhell.bots`` and ``ohhell.env``.

A learned bot and a research environment must read the same vector and
choose from the same ids, so both live here, on NumPy and the ``ohhell``
public API alone (this package imports neither ``bots`` nor ``env``):

- ``vector``: the full vector, one seat's ``Observation`` as 1,162 float32
  (``encode``, ``LAYOUT``, ``observation_bounds``), one layout for every rule
  set and table size;
- ``compact``: the same fields for one table's seats, without what the rules
  fix (the batched simulator's observation), and the exact converter between
  the two (``compact_layout``, ``compact_index``, ``to_compact``, ``to_full``,
  ``encode_compact``);
- ``action_space``: the 95 action ids (cards, blind play, bids, trump, bid
  changes and keeping one's bid), their masks (int8) and how an environment
  asks seats in turn, read from the referee (``seat_to_ask``, ``legal_ids``,
  ``take_id``);
- ``text``: an observation as plain text.

``ohhell.env.encoding`` re-exports this package for code written against it.
See docs/env.md for every field and id.
"""

from __future__ import annotations

from .action_space import (
    ACTION_SIZE,
    BID_BASE,
    CHANGE_BASE,
    KEEP,
    MASK_DTYPE,
    PLAY_BLIND,
    TRUMP_BASE,
    action_from_id,
    action_id,
    action_mask,
    changer,
    describe_action_id,
    legal_action_ids,
    legal_ids,
    seat_to_ask,
    take_id,
)
from .compact import (
    COMPACT_ONLY,
    compact_bounds,
    compact_index,
    compact_layout,
    compact_size,
    encode_compact,
    to_compact,
    to_full,
)
from .text import observation_text
from .vector import (
    BALANCES,
    CARDS,
    DEVILS_BRIDGE_NOW,
    LAYOUT,
    MAX_HAND,
    MAX_PLAYERS,
    OBSERVATION_SIZE,
    PHASES,
    RULE_FIELDS,
    SCORE_CLIP,
    SCORE_SCALE,
    TRUMP_CHOICES,
    cards_in,
    encode,
    observation_bounds,
    observation_size,
    rule_vector,
)

__all__ = [
    "ACTION_SIZE",
    "BALANCES",
    "BID_BASE",
    "CARDS",
    "CHANGE_BASE",
    "COMPACT_ONLY",
    "DEVILS_BRIDGE_NOW",
    "KEEP",
    "LAYOUT",
    "MASK_DTYPE",
    "MAX_HAND",
    "MAX_PLAYERS",
    "OBSERVATION_SIZE",
    "PHASES",
    "PLAY_BLIND",
    "RULE_FIELDS",
    "SCORE_CLIP",
    "SCORE_SCALE",
    "TRUMP_BASE",
    "TRUMP_CHOICES",
    "action_from_id",
    "action_id",
    "action_mask",
    "cards_in",
    "changer",
    "compact_bounds",
    "compact_index",
    "compact_layout",
    "compact_size",
    "describe_action_id",
    "encode",
    "encode_compact",
    "legal_action_ids",
    "legal_ids",
    "observation_bounds",
    "observation_size",
    "observation_text",
    "rule_vector",
    "seat_to_ask",
    "take_id",
    "to_compact",
    "to_full",
]
