"""Research interfaces (optional extra ``ohhell[research]``): the observation
encoding (``encoding``), a PettingZoo AEC environment (``oh_hell_v0``) and a
Gymnasium single-agent wrapper (``gym.OhHellGymEnv``). See docs/env.md.

``encoding`` needs only numpy; the environments import PettingZoo and
Gymnasium when their modules are imported.
"""

from __future__ import annotations

from . import encoding
from .encoding import (
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

__all__ = [
    "ACTION_SIZE",
    "LAYOUT",
    "OBSERVATION_SIZE",
    "action_from_id",
    "action_id",
    "action_mask",
    "encode",
    "encoding",
    "legal_action_ids",
    "observation_size",
]
