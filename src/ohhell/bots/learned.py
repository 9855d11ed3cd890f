"""The ``learned`` bot: a policy network trained on the batched simulator, no search.

It reads its seat's observation as ``ohhell.encoding`` encodes it, scores
every action id with a small network (ReLU hidden layers) and plays the legal
id scored highest, so it is deterministic given the observation. The network
was cloned from the intermediate bot and then trained by proximal policy
optimisation against itself, its past versions and the rule bots on the
batched simulator (``python -m ohhell.learn``, docs/training.md); the file's
``meta`` names the command, the seed and the training time.

The file (``data/learned_pagat4.npz``) is an ``.npz`` of ``layer{i}.weight``
(inputs x outputs) and ``layer{i}.bias``, input first, the policy scores
last; ``value{i}.weight`` / ``value{i}.bias`` are the value network of the
same shape, giving the expected points still to come this hand / 10;
``meta`` is a JSON text. Play
needs NumPy only (the ``research`` extra).

It was trained at a 4-player table under pagat's scoring, and plays best
there. Its first layer reads the full encoding (every table size and rule
set), with weights only where the training table had fields, so at other
tables it plays legally from what it knows, not from training there.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Final

from .. import Action, ChangeBid, Observation

FORMAT: Final = "ohhell-policy 2"
DEFAULT_FILE: Final = "learned_pagat4.npz"

_NEEDS_NUMPY: Final = (
    "the learned bot runs its network with NumPy, which is not installed; "
    "install the research extra: python3 -m pip install -e '.[research]'"
)


class NetPolicy:
    """A policy file in memory: ``scores`` for full encodings, ``value`` too."""

    def __init__(
        self, layers: Sequence[tuple[Any, Any]], value: Sequence[tuple[Any, Any]], meta: dict[str, Any]
    ) -> None:
        import numpy as np

        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.value_layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in value]
        for w, b in self.layers + self.value_layers:
            w.setflags(write=False)  # shared by every bot that loads the file
            b.setflags(write=False)
        self.meta = meta

    @property
    def inputs(self) -> int:
        return int(self.layers[0][0].shape[0])

    @property
    def actions(self) -> int:
        return int(self.layers[-1][0].shape[1])

    def scores(self, x: Any, first: Any = None) -> Any:
        """Action scores for full encodings ``x`` ([..., inputs]); ``first``
        replaces the first layer's weight (a compact form's rows of it)."""
        return _run(self.layers, x, first)

    def value(self, x: Any, first: Any = None) -> Any:
        """The points the seat can expect from the rest of this hand, divided
        by 10 as trained, for full encodings ``x``."""
        if not self.value_layers:
            raise ValueError("this policy file has no value network")
        return _run(self.value_layers, x, first)[..., 0]


def _run(layers: Sequence[tuple[Any, Any]], x: Any, first: Any) -> Any:
    import numpy as np

    h = np.asarray(x, np.float32)
    last = len(layers) - 1
    for i, (w, b) in enumerate(layers):
        h = h @ (first if i == 0 and first is not None else w) + b
        if i < last:
            h = np.maximum(h, 0)
    return h


class LearnedBot:
    """Plays the legal action its network scores highest (see the module)."""

    def __init__(self, name: str = "learned", path: str | Path | None = None) -> None:
        try:
            import numpy  # noqa: F401
        except ImportError:
            raise ImportError(_NEEDS_NUMPY) from None
        self.name = name
        self.policy = load_policy(path)

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        legal = obs.legal_actions
        if len(legal) == 1:
            return legal[0]  # every Devil's Bridge play too: nothing to weigh
        from ..encoding import action_id, encode

        # R-BID-CHANGE: a bot is never made to decide a change; only what it is asked.
        by_id = {action_id(a): a for a in legal if not isinstance(a, ChangeBid)}
        by_id = {i: a for i, a in by_id.items() if i < self.policy.actions}
        if not by_id:
            # A seat that may only change its bid moves it as little as possible.
            current = obs.bids[obs.seat or 0] or 0
            changes = [a for a in legal if isinstance(a, ChangeBid)]
            return min(changes, key=lambda a: (abs(a.bid - current), a.bid))
        scores = self.policy.scores(encode(obs))
        best = max(by_id, key=lambda i: (float(scores[i]), -i))  # ties: the lower id
        return by_id[best]


def policy_path(path: str | Path | None = None) -> Path:
    if path is not None:
        return Path(path)
    return Path(str(resources.files(__package__ or "ohhell.bots").joinpath("data", DEFAULT_FILE)))


def load_policy(path: str | Path | None = None) -> NetPolicy:
    """The policy in ``path`` (default: the shipped one), read once per file."""
    return _load(str(policy_path(path).resolve()))


def read_policy_file(
    path: str, prefixes: Sequence[str] = ("layer",)
) -> tuple[dict[str, Any], list[list[Any]]]:
    """The ``meta`` of a policy file and, for each prefix, its layers
    ``(prefix{i}.weight, prefix{i}.bias)`` from 0 up (both policy bots' files)."""
    import numpy as np

    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"])) if "meta" in data else {}
        stacks: list[list[Any]] = []
        for prefix in prefixes:
            layers: list[Any] = []
            while f"{prefix}{len(layers)}.weight" in data:
                i = len(layers)
                layers.append((data[f"{prefix}{i}.weight"], data[f"{prefix}{i}.bias"]))
            stacks.append(layers)
    return meta, stacks


@functools.lru_cache(maxsize=8)
def _load(path: str) -> NetPolicy:
    from ..encoding import OBSERVATION_SIZE

    meta, (layers, value) = read_policy_file(path, ("layer", "value"))
    if meta.get("format") != FORMAT:
        raise ValueError(
            f"{path} is not a policy file of the form {FORMAT!r} (meta format {meta.get('format')!r})"
        )
    if not layers:
        raise ValueError(f"{path} holds no policy layers (layer0.weight, layer0.bias, ...)")
    if layers[0][0].shape[0] != OBSERVATION_SIZE:
        raise ValueError(
            f"{path} reads {layers[0][0].shape[0]} inputs; "
            f"a policy reads the {OBSERVATION_SIZE}-value observation"
        )
    return NetPolicy(layers, value, meta)
