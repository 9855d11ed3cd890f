"""What the scripts that fit the expert's small models share: the tables
their self-play deals are played at, and writing the deals' records.

``bid_calibration.py``, ``play_model.py`` and ``finish_model.py`` each play
deals of the expert against itself and write one JSON line per record;
each names its own stream of tables (``label``), so their data stay the
same whichever script changes.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from ohhell import PRESETS, Rules


def varied_table(label: str, deal: int, seed: int, players: Sequence[int] = (3, 4, 5, 6, 7)) -> Rules:
    """The rules of deal ``deal``: three in five the measured setting (4
    players, 10 cards, common), else ``players`` players, 3 to 12 cards,
    common or pagat, drawn from ``label``'s stream."""
    pick = random.Random(f"{label}:{seed}:{deal}")
    if deal % 5 < 3:
        return PRESETS["common"].replace(players=4, hand_sizes=(10,), first_dealer=deal % 4)
    count = pick.choice(tuple(players))
    size = pick.randint(3, min(12, 51 // count))
    preset = pick.choice(("common", "pagat"))
    return PRESETS[preset].replace(
        players=count, hand_sizes=(size,), first_dealer=deal % count, bid_changes=False
    )


def write_records(
    play: Callable[[Any], list[dict[str, Any]]], jobs: list[Any], workers: int, out: str
) -> None:
    """Play every job (a deal) on ``workers`` processes and append its
    records to ``out`` as JSON lines, in the jobs' order, with progress."""
    done = 0
    with open(out, "a") as lines, ProcessPoolExecutor(workers) as pool:
        for records in pool.map(play, jobs, chunksize=1):
            for record in records:
                lines.write(json.dumps(record) + "\n")
            done += 1
            print(f"\r{done}/{len(jobs)} deals", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)


def collect_parser(
    sub: Any, help: str, *, deals: int, seed: int, simulations: int
) -> argparse.ArgumentParser:
    """The ``collect`` command's options: which deals, how many processes,
    the expert's budget, the file to append to."""
    c: argparse.ArgumentParser = sub.add_parser("collect", help=help)
    c.add_argument("--deals", type=int, default=deals)
    c.add_argument("--first", type=int, default=0, help="the first deal's number")
    c.add_argument("--seed", type=int, default=seed)
    c.add_argument("--jobs", type=int, default=2)
    c.add_argument("--worlds", type=int, default=80)
    c.add_argument("--simulations", type=int, default=simulations)
    c.add_argument("--out", required=True)
    return c
