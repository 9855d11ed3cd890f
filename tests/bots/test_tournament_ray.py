"""``ohhell tournament --ray``: the same duplicate tournament played as Ray
tasks gives the same numbers as one local process, whether Ray was already
running in this process, joined by address from another process (which sends
this copy of the package along), or started on this machine for the run.

One small Ray instance serves the module (starting Ray takes seconds)."""

from __future__ import annotations

import importlib
import importlib.util
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from ohhell import PRESETS
from ohhell.bots.tournament import run_tournament
from support import untimed

if importlib.util.find_spec("ray") is None:
    pytest.skip("Ray is not installed (pip install -e '.[ray]')", allow_module_level=True)

SMALL = PRESETS["pagat"].replace(hand_sizes=(3, 1, 2))
ARGS = ("tournament", "--bots", "intermediate,beginner,random", "--deals", "30", "--seed", "11")
ARGS += ("--hand-sizes", "5,3,1", "--quiet", "--json")


@pytest.fixture(scope="module")
def ray() -> Iterator[Any]:
    """Ray, running an instance of 2 CPUs on this machine for the module."""
    with pytest.MonkeyPatch.context() as env:
        # Before Ray is imported: on the loopback address only, no usage reports
        # (as ohhell.bots.cluster does for a local instance).
        env.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        env.setenv("RAY_USAGE_STATS_ENABLED", "0")
        ray = importlib.import_module("ray")
        ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR")
        try:
            yield ray
        finally:
            ray.shutdown()


@pytest.fixture(scope="module")
def cluster(ray: Any) -> str:
    """The address of the module's Ray instance, for another process to join."""
    return str(ray.get_runtime_context().gcs_address)


def command(*argv: str) -> dict[str, Any]:
    """``ohhell`` in a process of its own, as a user would run it; its JSON."""
    run = subprocess.run([sys.executable, "-m", "ohhell", *argv], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    data: dict[str, Any] = json.loads(run.stdout)  # Ray's notes stay off stdout
    return data


@pytest.fixture(scope="module")
def local_result() -> dict[str, Any]:
    return untimed(command(*ARGS, "--jobs", "1"))


def test_ray_in_this_process_gives_the_local_result(ray: Any) -> None:
    bots = ["intermediate", "beginner", "random"]
    here = run_tournament(bots, SMALL, 20, seed=3, progress=False)
    # "local" with Ray already running here: the running instance is used and left running.
    on_ray = run_tournament(bots, SMALL, 20, seed=3, progress=False, ray="local", jobs=2)
    assert on_ray.per_deal == here.per_deal
    assert on_ray.as_dict(timing=False) == here.as_dict(timing=False)
    assert ray.is_initialized()
    one_task = run_tournament(bots, SMALL, 20, seed=3, progress=False, ray="local", jobs=1)
    assert one_task.per_deal == here.per_deal


def test_a_cluster_joined_by_address_gives_the_local_result(
    cluster: str, local_result: dict[str, Any]
) -> None:
    assert untimed(command(*ARGS, "--ray", cluster)) == local_result


def test_ray_started_for_the_run_gives_the_local_result(local_result: dict[str, Any]) -> None:
    assert untimed(command(*ARGS, "--ray", "local", "--jobs", "2")) == local_result
