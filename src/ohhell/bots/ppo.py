"""The ``ppo`` bot: a small policy network trained by reinforcement learning.

The network reads one seat's observation as ``ohhell.encoding`` encodes it
(the same vector for every rule set and table size) and scores the action
ids; the bot takes the legal id with the highest score, so it is
deterministic given the observation and never needs its ``rng``. It was
trained with proximal policy optimisation and action masking by
``examples/train_ppo.py``; the weights ship with the package
(``data/ppo_pagat4.npz``) and the forward pass here is plain NumPy (the
``research`` extra), so playing needs no machine-learning framework.

The file is an ``.npz`` of ``layer{i}.weight`` (inputs x outputs) and
``layer{i}.bias`` for each layer, tanh between layers and none after the
last, and ``meta``: a JSON text of the training settings. ``save_policy``
writes one; ``PpoBot(path=...)`` plays any such file.

A policy scores all 95 ids of ``ohhell.encoding`` or, as the shipped one
does (trained before bid changes had ids), the first 76: cards, blind play,
bids and trump. The ids it has no score for (76..93 change one's bid, 94
keep it: R-BID-CHANGE) are never chosen while any scored id is legal; in the
window where a seat may only change or keep its bid, ``choose_id`` keeps it.
``choose`` must return an ``Action`` and keeping is none, so a driver that
asks ``choose`` there gets the bid moved as little as possible (``play_match``
never asks it).

Like every bot it sees only its seat's ``Observation``. It plays every rule
set whose observations the encoding can hold: up to 7 seats and 17 cards a
hand, which is everything the engine accepts today; a rule set beyond that is
refused with the reason.
"""

from __future__ import annotations

import functools
import importlib
import json
import random
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Final

from .. import Action, ChangeBid, Observation, Rules

DEFAULT_POLICY: Final = "ppo_pagat4.npz"
"""The shipped policy, in this package's ``data`` folder."""

_NEEDS_NUMPY: Final = (
    "the ppo bot runs its network with NumPy, which is not installed; "
    "install the research extra: python3 -m pip install -e '.[research]'"
)


class PpoBot:
    """Plays the legal action its policy network scores highest.

    ``path`` names a policy file (default: the shipped one); ``policy`` gives
    a ``Policy`` already in memory instead (self-play swaps it as it learns)."""

    def __init__(
        self, name: str = "ppo", path: str | Path | None = None, policy: Policy | None = None
    ) -> None:
        try:
            importlib.import_module("numpy")
        except ImportError:
            raise ImportError(_NEEDS_NUMPY) from None
        self.name = name
        self.policy = policy if policy is not None else load_policy(path)

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        legal = obs.legal_actions
        if len(legal) == 1:
            return legal[0]  # also every Devil's Bridge play: there is nothing to weigh
        from ..encoding import KEEP, action_from_id

        seat = obs.seat or 0
        aid = self.choose_id(obs)
        if aid == KEEP:
            # R-BID-CHANGE: keeping is no Action, and play_match never asks a
            # seat that may only change its bid; a driver that asks gets the
            # bid moved as little as possible.
            current = obs.bids[seat] or 0
            changes = [a for a in legal if isinstance(a, ChangeBid)]
            return min(changes, key=lambda a: (abs(a.bid - current), a.bid))
        return action_from_id(aid, seat)

    def choose_id(self, obs: Observation, legal: Sequence[int] | None = None) -> int:
        """The legal action id the policy scores highest (the lower id on a
        tie), from ``legal`` (default: ``encoding.legal_action_ids(obs)``).
        Ids beyond the policy's outputs are never chosen while a scored id is
        legal; where none is (a 76-output policy asked to change or keep its
        bid, R-BID-CHANGE), ``KEEP``."""
        from ..encoding import KEEP, encode, legal_action_ids

        ids = legal_action_ids(obs) if legal is None else list(legal)
        if not ids:
            raise ValueError(f"seat {obs.seat} has no legal action to choose from")
        scored = [i for i in ids if i < self.policy.outputs]
        if not scored:
            if KEEP not in ids:
                raise ValueError(f"the policy scores none of the legal ids {ids}")
            return KEEP
        if len(scored) == 1:
            return scored[0]
        reason = unsupported(obs.rules)
        if reason:
            raise ValueError(f"the ppo bot cannot play these rules: {reason}")
        scores = self.policy.scores(encode(obs))
        return max(scored, key=lambda i: (float(scores[i]), -i))  # ties: the lower id


def unsupported(rules: Rules) -> str | None:
    """Why the observation encoding cannot hold this rule set, or None."""
    from ..encoding import MAX_HAND, MAX_PLAYERS

    if rules.players > MAX_PLAYERS:
        return f"its observation has room for {MAX_PLAYERS} seats, not {rules.players}"
    biggest = max(rules.schedule)
    if biggest > MAX_HAND:
        return f"its observation has room for hands of up to {MAX_HAND} cards, not {biggest}"
    return None


class Policy:
    """A multilayer perceptron read from a policy file: tanh hidden layers,
    a linear output of one score per action id."""

    def __init__(self, layers: Sequence[tuple[Any, Any]], meta: dict[str, Any]) -> None:
        import numpy as np

        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        for w, b in self.layers:
            w.setflags(write=False)  # shared by every bot that loads the file
            b.setflags(write=False)
        self.meta = meta
        self.outputs = int(self.layers[-1][0].shape[1])
        """Action ids scored: 0..outputs-1 (95, or 76 for a policy without bid changes)."""

    def scores(self, vector: Any) -> Any:
        """The action scores (logits) for one observation vector."""
        import numpy as np

        h = np.asarray(vector, np.float32)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < last:
                h = np.tanh(h)
        return h


def policy_path(path: str | Path | None = None) -> Path:
    """The file ``path`` names, or the shipped policy."""
    if path is not None:
        return Path(path)
    return Path(str(resources.files(__package__ or "ohhell.bots").joinpath("data", DEFAULT_POLICY)))


def load_policy(path: str | Path | None = None) -> Policy:
    """The policy in ``path`` (default: the shipped one), read once per file."""
    return _load(str(policy_path(path).resolve()))


@functools.lru_cache(maxsize=8)
def _load(path: str) -> Policy:
    from ..encoding import ACTION_SIZE, CHANGE_BASE, OBSERVATION_SIZE
    from .learned import read_policy_file

    meta, (layers,) = read_policy_file(path)
    if not layers:
        raise ValueError(f"{path} holds no policy layers (layer0.weight, layer0.bias, ...)")
    # A policy trained before bid changes had ids scores the first CHANGE_BASE
    # (76) ids; choose_id never picks the ids it lacks while a scored one is legal.
    if layers[0][0].shape[0] != OBSERVATION_SIZE or layers[-1][0].shape[1] not in (ACTION_SIZE, CHANGE_BASE):
        raise ValueError(
            f"{path} maps {layers[0][0].shape[0]} inputs to {layers[-1][0].shape[1]} scores; "
            f"a policy must map the {OBSERVATION_SIZE}-value observation to the {ACTION_SIZE} action ids "
            f"(or the first {CHANGE_BASE}, without bid changes)"
        )
    return Policy(layers, meta)


def save_policy(path: str | Path, layers: Sequence[tuple[Any, Any]], meta: dict[str, Any]) -> None:
    """Write a policy file: ``layers`` are (weight: inputs x outputs, bias)
    pairs, input first; weights are stored as float16 to keep the file small."""
    import numpy as np

    arrays: dict[str, Any] = {"meta": np.array(json.dumps(meta, sort_keys=True))}
    for i, (w, b) in enumerate(layers):
        arrays[f"layer{i}.weight"] = np.asarray(w, np.float16)
        arrays[f"layer{i}.bias"] = np.asarray(b, np.float32)
    np.savez_compressed(path, **arrays)
