"""``python -m ohhell.learn.rebuild``: rebuild the shipped learned bot's file
on a CPU, stage by stage, from the commands below.

    python -m ohhell.learn.rebuild --workdir build/learned            # every stage
    python -m ohhell.learn.rebuild --workdir build/learned --stage 0  # one stage
    python -m ohhell.learn.rebuild --dry-run                          # print the commands

These are the commands the shipped file (``ohhell/bots/data/learned_pagat4.npz``)
was made with, as its meta records them, with each stage's length fixed in
iterations rather than minutes (the original PPO stages ran against a wall
clock and were stopped by hand at the iteration each stage here names, and
went on from the checkpoint written there). Each stage goes on from the
file the one before wrote. With one PyTorch thread on a CPU the trainer is
deterministic, so a stage run again gives the same file bit for bit; the
recording stage gives the same decisions whatever ``--jobs`` (each deal is
seeded alone). On 2 cores the whole rebuild took about 80 minutes.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final


@dataclass(frozen=True)
class Stage:
    name: str
    args: tuple[str, ...]  # for python -m ohhell.learn; {w} is the working folder
    note: str


STAGES: Final[tuple[Stage, ...]] = (
    Stage(
        "record",
        (
            "--record-out",
            "{w}/clone_int.npz",
            "--clone-deals",
            "24000",
            "--jobs",
            "2",
            "--seed",
            "1",
            "--teacher",
            "intermediate",
        ),
        "the intermediate bot's decisions over 24,000 tournament deals (449,338 decisions)",
    ),
    Stage(
        "clone",
        (
            "--out",
            "{w}/bc.npz",
            "--clone-data",
            "{w}/clone_int.npz",
            "--clone-epochs",
            "8",
            "--value-warmup",
            "3",
            "--games",
            "2048",
            "--seed",
            "1",
            "--threads",
            "1",
        ),
        "fit the network to the recording (8 epochs), then 3 iterations training the value alone",
    ),
    Stage(
        "ppo1",
        (
            "--out",
            "{w}/ppo1.npz",
            "--resume",
            "{w}/bc.pt",
            "--value-warmup",
            "1",
            "--iterations",
            "60",
            "--games",
            "1536",
            "--league-games",
            "512",
            "--league-every",
            "15",
            "--bots",
            "intermediate",
            "--bot-games",
            "256",
            "--steps",
            "64",
            "--lr",
            "1e-4",
            "--entropy",
            "0.002",
            "--seed",
            "2",
            "--threads",
            "1",
        ),
        "self-play, the league of past versions and the intermediate bot in whole matches",
    ),
    Stage(
        "ppo2",
        (
            "--out",
            "{w}/ppo2.npz",
            "--resume",
            "{w}/ppo1.pt",
            "--value-warmup",
            "0",
            "--iterations",
            "30",
            "--games",
            "1024",
            "--league-games",
            "256",
            "--league-every",
            "15",
            "--bots",
            "intermediate",
            "--bot-games",
            "704",
            "--bot-hands",
            "--steps",
            "64",
            "--lr",
            "1e-4",
            "--entropy",
            "0.002",
            "--seed",
            "3",
            "--threads",
            "1",
        ),
        "the intermediate bot on single hands of every size too",
    ),
    Stage(
        "ppo3",
        (
            "--out",
            "{w}/learned_pagat4.npz",
            "--resume",
            "{w}/ppo2.pt",
            "--value-warmup",
            "0",
            "--iterations",
            "40",
            "--games",
            "512",
            "--league-games",
            "128",
            "--league-every",
            "10",
            "--bots",
            "intermediate",
            "--bot-games",
            "1056",
            "--bot-hands",
            "--steps",
            "64",
            "--lr",
            "2.5e-4",
            "--entropy",
            "0.001",
            "--seed",
            "4",
            "--threads",
            "1",
        ),
        "mostly against the intermediate bot, a larger step; its file is the shipped one",
    ),
)


def command(stage: Stage, workdir: Path | str) -> list[str]:
    """``python -m ohhell.learn`` and the stage's arguments, in ``workdir``."""
    return [sys.executable, "-m", "ohhell.learn", *(a.replace("{w}", str(workdir)) for a in stage.args)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ohhell.learn.rebuild", description=__doc__.split("\n")[0])
    p.add_argument("--workdir", type=Path, default=Path("build/learned"), help="where each stage writes")
    p.add_argument("--stage", type=int, action="append", help="run only this stage (0 to 4; repeatable)")
    p.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    args = p.parse_args(argv)
    chosen = args.stage if args.stage else list(range(len(STAGES)))
    bad = [k for k in chosen if not 0 <= k < len(STAGES)]
    if bad:
        p.error(f"there are stages 0 to {len(STAGES) - 1}, not {bad[0]}")
    import subprocess

    for k in chosen:
        stage = STAGES[k]
        line = shlex.join(["python", *command(stage, args.workdir)[1:]])
        print(f"# stage {k}, {stage.name}: {stage.note}\n{line}", flush=True)
        if args.dry_run:
            continue
        args.workdir.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        subprocess.run(command(stage, args.workdir), check=True)
        print(f"# stage {k} took {time.perf_counter() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
