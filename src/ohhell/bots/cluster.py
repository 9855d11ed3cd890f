"""Playing chunks of work as tasks on a Ray cluster (the ``ray`` extra).

``ohhell tournament --ray ADDRESS`` hands the same chunks of deals that local
worker processes would play to Ray tasks, one CPU each, and the tournament
merges what comes back in deal order. Every deal's cards and every bot's
randomness come from seeds of their own, so where and in what order a chunk
ran changes nothing but the decision times. This module knows nothing of the
game: it connects, runs a function over items, and yields the results.

Ray is imported here only, and only when asked for, so the core and the base
install never need it.
"""

from __future__ import annotations

import importlib
import itertools
import logging
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

LOCAL = "local"
"""The address that starts a Ray instance on this machine for the run."""


class ClusterError(ValueError):
    """Ray is not installed, or the cluster cannot be reached."""


def require_ray() -> Any:
    """The ``ray`` module, or a ClusterError naming the extra that installs it."""
    # Ray reports usage to its makers unless told not to; nothing of a
    # tournament leaves the machines it was asked to run on.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    # Imported by name: Ray is optional, and the type check needs no stubs of it.
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise ClusterError(
            "playing on Ray needs the ray package, which is not installed: python3 -m pip install -e '.[ray]'"
        ) from None


@contextmanager
def connected(address: str, cpus: int | None = None, *, quiet: bool = False) -> Iterator[int]:
    """Connect to Ray for the length of the block; yield the CPUs it has.

    ``local`` starts a Ray instance on this machine (``cpus`` CPUs, else every
    core) and stops it afterwards. Any other address, as ``ray.init`` takes it
    (``auto``, ``HOST:PORT``, ``ray://HOST:10001``), joins a running cluster and
    leaves it running; this copy of the ohhell package travels with the job, so
    every node plays the same code as this machine whatever it has installed.
    A connection this process already made (``ray.init`` in a notebook or a
    test) is used as it is and left open. ``quiet`` keeps Ray's own notes to
    errors.
    """
    if address == LOCAL:
        # Every part of a local instance on the loopback address, where no
        # other machine can reach it: Ray's switch for one-machine use (named
        # for Windows and macOS, where it is the default), read when Ray is
        # first imported, so it holds if this process has not imported Ray yet.
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    ray = require_ray()
    if ray.is_initialized():
        yield _cpus(ray)
        return
    options: dict[str, Any] = {}
    if address == LOCAL:
        # The workers are started from this very environment: nothing to send.
        options |= {"num_cpus": cpus, "include_dashboard": False}
    else:
        # A local folder is zipped and sent once (Ray keeps it by its hash).
        package = Path(__file__).resolve().parents[1]
        options["runtime_env"] = {"py_modules": [str(package)]}
    if not address.startswith("ray://"):
        # Ray's client passes unknown settings on to the server with a warning.
        options["logging_level"] = logging.ERROR if quiet else logging.WARNING
    try:
        ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError) as err:
        raise ClusterError(
            f"cannot reach a Ray cluster at {address!r} ({err}); 'local' starts Ray on this machine instead"
        ) from None
    try:
        yield _cpus(ray)
    finally:
        ray.shutdown()  # stops a local instance; from a cluster, only disconnects


def _cpus(ray: Any) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def run_tasks(function: Callable[[Item], Result], items: Iterable[Item], at_once: int) -> Iterator[Result]:
    """``function`` of every item as a Ray task of one CPU, at most ``at_once``
    running at a time; yields the results as they finish, not in the items' order.

    ``function`` must be importable by its module's name on the cluster (Ray
    sends it by reference). A task lost with its node is run again, which is
    safe here: the same item gives the same result.
    """
    ray = require_ray()
    task = ray.remote(num_cpus=1)(function)
    queue = iter(items)
    # Submitting only as many as may run keeps --jobs a limit on a shared cluster.
    pending = [task.remote(item) for item in itertools.islice(queue, max(1, at_once))]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        pending += [task.remote(item) for item in itertools.islice(queue, len(done))]
        for ref in done:
            yield ray.get(ref)
