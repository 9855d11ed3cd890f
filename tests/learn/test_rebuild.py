"""The learned bot can be rebuilt from what is written: ``ohhell.learn.rebuild``
holds the commands its file was made with (as the file's meta records them,
each stage fixed in iterations), and its first stage, the recording of the
teacher, gives the same decisions however it is split."""

from __future__ import annotations

import itertools
import json
import shlex
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")

from ohhell.bots.learned import policy_path
from ohhell.learn.rebuild import STAGES, command, main

# Where a stage names its files or its length; the rest must be as recorded.
_PATHS = {"--out", "--resume", "--clone-data", "--record-out"}
_LENGTH = {"--minutes", "--iterations"}


def _settings(args: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    key = None
    for a in args:
        if a.startswith("--"):
            key = a
            out[key] = ""
        elif key is not None:
            out[key] = (out[key] + " " + a).strip()
    return {k: v for k, v in out.items() if k not in _PATHS and k not in _LENGTH}


def _recorded_stages() -> list[dict[str, Any]]:
    """The shipped file's meta, first stage first (each resumed stage keeps
    the one before under clone.before)."""
    with np.load(policy_path(), allow_pickle=False) as data:
        meta: dict[str, Any] | None = json.loads(str(data["meta"]))
    chain = []
    while meta:
        chain.append(meta)
        meta = meta.get("clone", {}).get("before")
    return chain[::-1]


def test_each_training_stage_is_the_recorded_command() -> None:
    recorded = _recorded_stages()
    training = [s for s in STAGES if s.name != "record"]
    assert len(recorded) == len(training)
    for stage, meta in zip(training, recorded, strict=True):
        ran = shlex.split(meta["command"])[3:]  # after "python -m ohhell.learn"
        assert _settings(list(stage.args)) == _settings(ran), stage.name
        # The iterations fixed here are those the recorded stage ran (its
        # meta counts the value warm-up's too).
        args = list(stage.args)
        warmup = int(args[args.index("--value-warmup") + 1])
        iterations = int(args[args.index("--iterations") + 1]) if "--iterations" in args else 0
        assert meta["ppo"]["iterations"] == warmup + iterations, stage.name


def test_the_clone_stage_reads_what_the_record_stage_writes() -> None:
    record, clone = STAGES[0].args, STAGES[1].args
    assert record[record.index("--record-out") + 1] == clone[clone.index("--clone-data") + 1]
    teacher = record[record.index("--teacher") + 1]
    assert teacher == _recorded_stages()[0]["clone"]["teacher"]
    for earlier, later in itertools.pairwise(STAGES[1:]):
        out = earlier.args[earlier.args.index("--out") + 1]
        resume = later.args[later.args.index("--resume") + 1]
        assert resume == out.removesuffix(".npz") + ".pt"


def test_the_record_stage_gives_the_same_decisions_however_it_is_split(tmp_path: Path) -> None:
    """Stage 0 at a small size: 3 deals alone are the first 3 of 6 recorded by
    two processes, bit for bit, so the full stage repeats the recorded one."""
    from ohhell.learn.__main__ import main as learn

    small = tmp_path / "three.npz"
    large = tmp_path / "six.npz"
    base = ["--clone-deals", "3", "--seed", "1", "--teacher", "intermediate"]
    assert learn(["--record-out", str(small), *base]) == 0
    assert learn(["--record-out", str(large), *base[:1], "6", *base[2:], "--jobs", "2"]) == 0
    with np.load(small) as a, np.load(large) as b:
        n = len(a["action"])
        assert 0 < n < len(b["action"])
        for key in ("obs", "mask", "action"):
            assert np.array_equal(a[key], b[key][:n]), key


def test_the_dry_run_prints_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--dry-run", "--workdir", "w"]) == 0
    printed = capsys.readouterr().out
    for stage in STAGES:
        assert " ".join(command(stage, "w")[3:]) in printed
