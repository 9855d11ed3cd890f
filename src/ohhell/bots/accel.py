"""The search bots' hot loops, compiled when Numba is installed.

The search bots spend most of their time walking their tree and finishing
simulated hands with ``fastdeal.playout``; compiled, both run many times
faster, so a search fits more simulations into the same think time. Numba
is an optional extra (``python3 -m pip install -e '.[fast]'``): without it,
or for a pack of more than 64 cards (an Australian pack for many players),
``compiled_playout`` and ``compiled_tree`` return None and the bots use the
pure-Python code. The two give the same tricks for the same cards, card for
card, and the same simulations draw for draw (tests/bots/test_accel.py), so
a bot's decisions do not depend on whether the extra is installed. The
compiled functions are in ``compiled``, imported on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, Protocol

from .fastdeal import Layout

Playout = Callable[[list[int], int, int, list[int], list[int], Sequence[int], int, list[int]], list[int]]


@cache
def _kernels() -> Any:
    """The compiled module, imported on first use (Numba takes a while to
    import), or None without the extra."""
    try:
        from . import compiled
    except ImportError:
        return None
    return compiled


def available() -> bool:
    """Whether the compiled playout can be used at all (Numba installed)."""
    return _kernels() is not None


def _tables(lay: Layout) -> tuple[Any, Any, Any, Any]:
    import numpy as np

    return (
        np.array(lay.suit, dtype=np.int64),
        np.array(lay.rank, dtype=np.int64),
        np.array(lay.suit_mask, dtype=np.int64),
        np.array(lay.beaten_by, dtype=np.int64),
    )


@cache
def compiled_playout(lay: Layout) -> Playout | None:
    """``fastdeal.playout`` (without ``first`` or ``noise``) compiled for ``lay``,
    or None when Numba is missing or the pack has more slots than a 64-bit
    mask holds.

    The first call in a process compiles the functions (or loads them from
    Numba's cache on disk) and plays one tiny hand, so that cost falls on
    the creation of a search, before its clock starts, and once a process.
    """
    kernels = _kernels()
    if kernels is None or lay.size > 63:
        return None
    import numpy as np

    suit, rank, suit_mask, beaten_by = _tables(lay)
    array = np.array
    int64 = np.int64
    run = kernels.playout

    def playout(
        hands: list[int],
        trump: int,
        leader: int,
        trick: list[int],
        taken: list[int],
        targets: Sequence[int],
        unseen: int,
        voids: list[int],
    ) -> list[int]:
        n = len(hands)
        slots = np.zeros(n, dtype=int64)
        slots[: len(trick)] = trick
        out = run(
            suit,
            rank,
            suit_mask,
            beaten_by,
            array(hands, dtype=int64),
            trump,
            leader,
            slots,
            len(trick),
            array(taken, dtype=int64),
            array(targets, dtype=int64),
            unseen,
            array(voids, dtype=int64),
        )
        return [int(x) for x in out]

    playout([1, 2], -1, 0, [], [0, 0], [0, 0], 3, [0, 0])  # compile now, not in a search
    kernels.warm_up()  # and the search's walk (``compiled_tree``)
    return playout


class Tree(Protocol):
    """A search's tree held in arrays and walked by compiled code (``compiled.Tree``)."""

    def run(
        self,
        search: Any,
        picks: list[int],
        bid_draws: list[float],
        card_draws: list[float],
        overs: list[bool],
    ) -> None: ...

    def root_edge(self, key: int) -> tuple[int, float]: ...

    def bid_edge(self, index: int) -> tuple[int, float, int]: ...


@cache
def _tree_tables(lay: Layout) -> tuple[Any, ...]:
    import numpy as np

    key = [lay.slots_of[c][0] for c in lay.cards]
    return (*_tables(lay), np.array(key, dtype=np.int64))


def compiled_tree(
    lay: Layout, players: int, most: int, candidates: int | None, max_nodes: int
) -> Tree | None:
    """An empty tree for one search (``treesearch.CardSearch``) whose
    simulations compiled code plays, card for card as the Python walk would;
    None when the compiled playout is not available for ``lay``.
    ``candidates``: the bids at the root of a bid search, None for cards."""
    if compiled_playout(lay) is None:
        return None
    tree: Tree = _kernels().Tree(_tree_tables(lay), players, most, candidates, max_nodes)
    return tree


__all__ = ["Playout", "Tree", "available", "compiled_playout", "compiled_tree"]
