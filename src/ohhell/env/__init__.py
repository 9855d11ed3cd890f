"""Research interfaces (optional extra ``ohhell[research]``): the observation
encoding (``encoding``), the perfect-recall information state (``history``),
a PettingZoo AEC environment (``oh_hell_v0``) and a Gymnasium single-agent
wrapper (``gym.OhHellGymEnv``). See docs/env.md.

``encoding`` and ``history`` need only numpy; the environments import PettingZoo and
Gymnasium when their modules are imported. The batched simulator
(``batch.BatchSimulator``, thousands of games stepped as arrays) and its
Gymnasium vector environment (``batch_vector.OhHellVectorEnv``) are imported
from their modules, not from here.
"""

from __future__ import annotations

from .. import encoding
from ..encoding import (
    ACTION_SIZE,
    LAYOUT,
    OBSERVATION_SIZE,
    action_from_id,
    action_id,
    action_mask,
    encode,
    legal_action_ids,
    observation_size,
)
from . import history
from .history import HISTORY_LAYOUT, HISTORY_SIZE, information_state, information_state_string

__all__ = [
    "ACTION_SIZE",
    "HISTORY_LAYOUT",
    "HISTORY_SIZE",
    "LAYOUT",
    "OBSERVATION_SIZE",
    "action_from_id",
    "action_id",
    "action_mask",
    "encode",
    "encoding",
    "history",
    "information_state",
    "information_state_string",
    "legal_action_ids",
    "observation_size",
]
