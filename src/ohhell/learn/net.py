"""The policy-value network and the file the ``learned`` bot plays from.

The network reads the batched simulator's observation (the compact form of
``ohhell.encoding``: one table's seats, rule-constant fields left out) and
gives a score for each of the action ids and a value (the expected score of
the hand still to come, in points). A multilayer perceptron with ReLU; the
policy and the value share the hidden layers.

``save_policy_file`` writes it for play without PyTorch: the first layer is
spread over the full encoding's positions (``compact_index``), zero where
the compact form has no field, so ``encode(obs) @ W`` is exactly
``compact(obs) @ W_compact`` at the table it was trained for, and every other
table size or rule set still gets a legal, if untrained, reading.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from ..bots.learned import FORMAT
from .compact import compact_index, full_size


def _mlp(inputs: int, hidden: Sequence[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    width = inputs
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    return nn.Sequential(*layers)


class PolicyValueNet(nn.Module):
    """Two ReLU networks of the same shape: one scores the action ids, one
    gives the value. They share nothing, so fitting the value (after cloning,
    before the policy moves) leaves the cloned policy exactly as it was."""

    def __init__(self, inputs: int, actions: int, hidden: Sequence[int] = (256, 256)) -> None:
        super().__init__()
        width = hidden[-1] if hidden else inputs
        self.trunk = _mlp(inputs, hidden)
        self.value_trunk = _mlp(inputs, hidden)
        self.policy = nn.Linear(width, actions)
        self.value = nn.Linear(width, 1)
        self.inputs, self.actions, self.hidden = inputs, actions, tuple(hidden)
        # Small initial policy scores: the first moves are near uniform over the
        # legal ids, not whatever a random layer prefers.
        nn.init.orthogonal_(self.policy.weight, 0.01)
        nn.init.zeros_(self.policy.bias)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.policy(self.trunk(x)), self.value(self.value_trunk(x)).squeeze(-1)


def masked(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Scores with illegal ids pushed out of reach (mask: 1 legal, 0 not)."""
    return logits.masked_fill(mask == 0, -1e9)


def layers_of(
    trunk: nn.Sequential, head: nn.Linear
) -> list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]]:
    """(weight inputs x outputs, bias) of each layer, input first, the head last."""
    linears = [m for m in trunk if isinstance(m, nn.Linear)] + [head]
    return [(m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy()) for m in linears]


def save_policy_file(path: str | Path, net: PolicyValueNet, rules: Any, meta: dict[str, Any]) -> None:
    """Write ``net`` as a NumPy policy file (``ohhell.bots.learned`` reads it).

    The first layer's rows move to the full encoding's positions; float16
    keeps the file small (the scores move by about 1e-3, far below the gaps
    between moves worth telling apart)."""
    index = compact_index(rules)
    arrays: dict[str, Any] = {
        "meta": np.array(json.dumps({"format": FORMAT, "activation": "relu", **meta}, sort_keys=True))
    }
    for prefix, trunk, head in (("layer", net.trunk, net.policy), ("value", net.value_trunk, net.value)):
        layers = layers_of(trunk, head)
        w0, b0 = layers[0]
        full = np.zeros((full_size(), w0.shape[1]), np.float32)
        full[index] = w0
        layers[0] = (full, b0)
        for i, (w, b) in enumerate(layers):
            arrays[f"{prefix}{i}.weight"] = np.asarray(w, np.float16)
            arrays[f"{prefix}{i}.bias"] = np.asarray(b, np.float32)
    np.savez_compressed(path, **arrays)


def state_of(net: PolicyValueNet) -> dict[str, Any]:
    """What a checkpoint holds: the shape and the weights."""
    return {
        "inputs": net.inputs,
        "actions": net.actions,
        "hidden": list(net.hidden),
        "state": net.state_dict(),
    }


def from_state(saved: dict[str, Any]) -> PolicyValueNet:
    net = PolicyValueNet(saved["inputs"], saved["actions"], saved["hidden"])
    net.load_state_dict(saved["state"])
    return net
