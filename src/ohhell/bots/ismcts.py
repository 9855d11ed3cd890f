"""The reference opponent: information-set Monte Carlo tree search.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012): each
simulation deals a world consistent with the observation (``sample_world``:
uniform over the deals the seat cannot tell apart), walks one tree whose
edges are the actions of every seat, choosing by UCT among the actions legal
in that world (each action's count of times it was available stands in for
the parent's visits), adds one node, plays the hand out at random and
credits each seat on the path with its own score for the hand. The most
visited action at the root is played.

OpenSpiel's ``ISMCTSBot`` keys a node by the information state of the seat
to act instead: the cards that seat holds in the world and the actions so
far. Another seat's node then depends on its cards and is mostly new, so
the others play much as the random rollout does. ``nodes="seat"`` builds
the tree that way (OpenSpiel's search with a fair world sampler); the
default ``nodes="shared"`` keeps one node for every world. OpenSpiel's own
``oh_hell`` also draws its worlds unfairly (bench/experiments/openspiel_resampler.py):
the other hands always hold exactly the cards they really hold, so its
ISMCTS knows which cards are undealt. Ours never does.

It plays every rule set (the core's ``legal_actions`` and ``apply`` run the
simulations), and its budget is a number of simulations, so its decisions
are reproducible from the seed. It is slow in pure Python and is meant for
measuring the other bots on any rule set (``bench/strength.py``), not for
play against people.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from .. import (
    Action,
    Bid,
    ChangeBid,
    GameState,
    Observation,
    Phase,
    apply,
    legal_actions,
    observe,
    sample_world,
    seats_to_ask,
)


@dataclass(slots=True)
class _Edge:
    visits: int = 0
    total: float = 0.0  # the acting seat's summed score
    available: int = 0  # simulations in which this action was legal here
    child: _Node | None = None


@dataclass(slots=True)
class _Node:
    edges: dict[Action, _Edge] = field(default_factory=dict)


def _in_hand(state: GameState, hand: int) -> bool:
    return state.hand_number == hand and state.phase in (Phase.BID, Phase.TRUMP, Phase.PLAY)


def _information_state(state: GameState, seat: int, history: list[Action]) -> tuple[object, ...]:
    """What ``seat`` knows in ``state``: the cards it can see (its own; in
    Devil's Bridge everyone else's), the bids it can see (sealed ones hidden)
    and the other actions since the root, which every world shares. (A blind
    Devil's Bridge play shows no card here; those plays are forced, so no
    decision follows that the missing card could tell apart.)"""
    obs = observe(state, seat)
    hands = tuple(None if h is None else tuple(sorted(h)) for h in obs.hands)  # a hand is a set
    return (seat, hands, obs.bids, tuple(a for a in history if not isinstance(a, Bid)))


def _choices(state: GameState, me: int | None = None) -> tuple[int, list[Action]]:
    """The seat to decide and its actions. Under sealed bids several seats are
    asked at once and their order does not matter, so ``me`` (the searching
    seat) goes first: the root's edges must be its own bids."""
    asked = seats_to_ask(state)
    seat = me if me is not None and me in asked else asked[0]
    return seat, [a for a in legal_actions(state, seat) if not isinstance(a, ChangeBid)]


class IsmctsBot:
    """ISMCTS with random rollouts; ``simulations`` per decision, UCT constant ``c``,
    ``nodes`` ``"shared"`` (one tree for every world) or ``"seat"`` (a node per
    information state of the seat to act, as OpenSpiel keys them)."""

    def __init__(
        self, name: str = "ismcts", simulations: int = 1000, c: float = 2.0, nodes: str = "shared"
    ) -> None:
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, not {simulations}")
        if nodes not in ("shared", "seat"):
            raise ValueError(f"nodes must be 'shared' or 'seat', not {nodes!r}")
        self.name = name
        self.simulations = simulations
        self.c = c
        self.nodes = nodes

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        if len(obs.legal_actions) == 1:
            return obs.legal_actions[0]
        root = _Node()
        table: dict[tuple[object, ...], _Node] | None = {} if self.nodes == "seat" else None
        for _ in range(self.simulations):
            self._simulate(root, sample_world(obs, rng), rng, table, obs.seat)
        legal = set(obs.legal_actions)
        ranked = [
            (e.visits, e.total / e.visits if e.visits else 0.0, a)
            for a, e in root.edges.items()
            if a in legal
        ]
        if not ranked:  # pragma: no cover - every simulation starts with the searching seat's own action
            return obs.legal_actions[0]
        return max(ranked, key=lambda r: (r[0], r[1]))[2]

    def _simulate(
        self,
        root: _Node,
        state: GameState,
        rng: random.Random,
        table: dict[tuple[object, ...], _Node] | None,
        me: int | None,
    ) -> None:
        hand = state.hand_number
        path: list[tuple[_Edge, int]] = []
        node: _Node | None = root
        history: list[Action] = []
        while node is not None and _in_hand(state, hand):
            seat, actions = _choices(state, me)
            if table is not None and history:
                node = table.get(key := _information_state(state, seat, history))
                if node is None:
                    table[key] = _Node()
                    break  # a new node: leave the tree and roll out from here
            for a in actions:
                edge = node.edges.get(a)
                if edge is None:
                    edge = node.edges[a] = _Edge()
                edge.available += 1
            untried = [a for a in actions if node.edges[a].visits == 0]
            if untried:
                action = rng.choice(untried)
                edge = node.edges[action]
                apply(state, action)
                path.append((edge, seat))
                if table is None:
                    edge.child = _Node()
                    break
                history.append(action)
                continue  # the next node is looked up by its information state
            action = max(actions, key=lambda a: self._uct(node.edges[a]))  # type: ignore[union-attr]
            edge = node.edges[action]
            apply(state, action)
            path.append((edge, seat))
            history.append(action)
            node = edge.child if table is None else node
        while _in_hand(state, hand):  # the rollout: everyone plays at random
            _, actions = _choices(state)
            apply(state, rng.choice(actions))
        scores = state.results[hand].scores if len(state.results) > hand else [0] * state.players
        for edge, seat in path:
            edge.visits += 1
            edge.total += scores[seat]

    def _uct(self, edge: _Edge) -> float:
        return edge.total / edge.visits + self.c * math.sqrt(math.log(edge.available) / edge.visits)


__all__ = ["IsmctsBot"]
