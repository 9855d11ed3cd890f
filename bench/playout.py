"""How much faster is the compiled playout (the ``fast`` extra)?

Two measures, each taken in rounds that alternate the two sides, so both see
the same machine load:

- one greedy playout: the same positions (worlds the expert's card search
  deals in real games) played out by ``fastdeal.playout`` and by the
  compiled playout of ``ohhell.bots.accel``, microseconds a playout;
- the expert's decisions: the same observations decided all in Python and
  with the compiled code (the tree's walk and the playout: same
  simulations, so the same decisions, checked), milliseconds a decision.

    python bench/playout.py --games 4 --rounds 3 --simulations 320
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from typing import Any

from ohhell import PRESETS, Observation, Phase, apply, chance_action, new_game, observe, seats_to_ask
from ohhell.bots import get_bot
from ohhell.bots import treesearch as treesearch_module
from ohhell.bots.accel import compiled_playout
from ohhell.bots.fastdeal import layout, playout
from ohhell.bots.treesearch import CardSearch


def observations(games: int) -> list[Observation]:
    """Every decision with a choice in ``games`` hands of 4 players and 10
    cards (common rules) among intermediate bots."""
    out = []
    rules = PRESETS["common"].replace(players=4, hand_sizes=(10,), first_dealer=0)
    for game in range(games):
        state = new_game(rules)
        rng = random.Random(f"playout-bench:{game}")
        bot = get_bot("intermediate")
        while not state.is_over:
            if state.is_chance:
                apply(state, chance_action(state, rng))
                continue
            obs = observe(state, seats_to_ask(state)[0])
            if len(obs.legal_actions) > 1:
                out.append(obs)
            apply(state, bot.choose(obs, rng))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--simulations", type=int, default=320)
    parser.add_argument("--json", action="store_true")
    a = parser.parse_args()
    obs_list = observations(a.games)
    lay = layout(PRESETS["common"])
    fast = compiled_playout(lay)  # compiles (or loads) before any timing
    if fast is None:
        parser.error("the compiled playout needs the 'fast' extra (Numba)")
    positions: list[tuple[Any, ...]] = []
    for i, obs in enumerate(o for o in obs_list if o.phase is Phase.PLAY):
        search = CardSearch(obs, random.Random(i), None, pool=8)
        bids = [b or 0 for b in obs.bids]
        for hands, trick, unseen in search.worlds:
            positions.append((hands, search.trump, obs.leader, trick, obs.taken, bids, unseen, search.voids0))

    def python_playouts() -> None:
        for h, t, lead, trick, taken, bids, unseen, voids in positions:
            playout(lay, list(h), t, lead, list(trick), list(taken), bids, unseen, list(voids))

    def compiled_playouts() -> None:
        for h, t, lead, trick, taken, bids, unseen, voids in positions:
            fast(list(h), t, lead, list(trick), list(taken), bids, unseen, list(voids))

    expert = get_bot("expert", worlds=80, simulations=a.simulations)
    original = treesearch_module.compiled_playout, treesearch_module.compiled_tree
    chosen: dict[str, list[Any]] = {}

    def decisions(side: str) -> None:
        # "python": the Python walk and playout; "compiled": both compiled.
        if side == "python":
            treesearch_module.compiled_playout = lambda lay: None
            treesearch_module.compiled_tree = lambda *args: None
        try:
            chosen[side] = [expert.choose(obs, random.Random(k)) for k, obs in enumerate(obs_list)]
        finally:
            treesearch_module.compiled_playout, treesearch_module.compiled_tree = original

    timings: dict[str, list[float]] = {}
    for _ in range(a.rounds):
        for name, run, count in (
            ("playout_python_us", python_playouts, len(positions)),
            ("playout_compiled_us", compiled_playouts, len(positions)),
            ("decision_python_ms", lambda: decisions("python"), len(obs_list)),
            ("decision_compiled_ms", lambda: decisions("compiled"), len(obs_list)),
        ):
            t0 = time.perf_counter()
            run()
            scale = 1e6 if name.endswith("_us") else 1e3
            timings.setdefault(name, []).append(scale * (time.perf_counter() - t0) / count)
    assert chosen["python"] == chosen["compiled"], "the compiled search decided differently"
    out = {
        "positions": len(positions),
        "decisions": len(obs_list),
        "simulations": a.simulations,
        "rounds": a.rounds,
        "cores": os.cpu_count(),
        **{k: round(statistics.median(v), 2) for k, v in timings.items()},
    }
    out["playout_speedup"] = round(out["playout_python_us"] / out["playout_compiled_us"], 2)
    out["decision_speedup"] = round(out["decision_python_ms"] / out["decision_compiled_ms"], 2)
    if a.json:
        print(json.dumps(out, indent=2))
    print(f"{'':24}{'python':>10}{'compiled':>10}{'speed-up':>10}")
    print(
        f"{'one playout (us)':24}{out['playout_python_us']:>10.1f}{out['playout_compiled_us']:>10.1f}"
        f"{out['playout_speedup']:>9.1f}x"
    )
    print(
        f"{'one decision (ms)':24}{out['decision_python_ms']:>10.1f}{out['decision_compiled_ms']:>10.1f}"
        f"{out['decision_speedup']:>9.1f}x"
    )
    print(
        f"({len(positions)} positions, {len(obs_list)} decisions at {a.simulations} simulations, "
        f"median of {a.rounds} rounds)"
    )


if __name__ == "__main__":
    main()
