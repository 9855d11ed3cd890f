"""``ohhell serve --workers N``: N server processes on one machine, one port.

uvicorn's own supervisor runs them: it opens the listening socket once, hands
it to each process (the kernel gives each new connection to one of them),
and starts a process again if one dies. Each process builds its application
here from the settings ``ohhell serve`` passed in the environment; they meet
through the broker and the database (cluster.py), like processes on
different machines do.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any

SETTINGS = "OHHELL_SERVE_SETTINGS"  # the environment variable the settings travel in


def app() -> Any:
    """One worker's application (uvicorn calls this in each process)."""
    from ..app import Limits, create_app
    from ..serving.transport import tune_collector

    tune_collector()
    settings = json.loads(os.environ[SETTINGS])
    limits = settings.pop("limits")
    limits["origins"] = frozenset(limits["origins"])
    return create_app(**settings, limits=Limits(**limits))


def run_workers(
    settings: dict[str, Any], limits: Any, host: str, port: int, workers: int, **guard: Any
) -> None:
    """Serve with ``workers`` processes sharing ``host``:``port``."""
    from ..serving.transport import run

    fields = dataclasses.asdict(limits)
    fields["origins"] = sorted(fields["origins"])
    os.environ[SETTINGS] = json.dumps({**settings, "limits": fields})
    run("ohhell.web.cluster.workers:app", host, port, workers=workers, **guard)


__all__ = ["SETTINGS", "app", "run_workers"]
