"""``/site/``: the offline site (``ohhell site``) served by ``ohhell serve``
too, built once on its first request into a folder of this process's own
(docs/site.md). Without the Pyodide runtime (``npm ci``) it answers 404
saying so."""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

from starlette.responses import PlainTextResponse
from starlette.staticfiles import StaticFiles

from ..local.site import SiteError, build


class SiteFiles:
    """An ASGI app serving the built site; the build happens on first use."""

    def __init__(self) -> None:
        self._files: StaticFiles | None = None
        self._refusal: str | None = None
        self._lock = threading.Lock()

    def _build(self) -> None:
        with self._lock:
            if self._files is not None or self._refusal is not None:
                return
            folder = Path(tempfile.mkdtemp(prefix="ohhell-site-"))
            try:
                build(folder)
            except SiteError as err:
                self._refusal = f"The offline site is not available on this server: {err}"
                return
            self._files = StaticFiles(directory=folder, html=True)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if self._files is None and self._refusal is None:
            import anyio.to_thread

            await anyio.to_thread.run_sync(self._build)  # about a second of copying, off the event loop
        if self._files is None:
            await PlainTextResponse(self._refusal or "", status_code=404)(scope, receive, send)
            return
        await self._files(scope, receive, send)


__all__ = ["SiteFiles"]
