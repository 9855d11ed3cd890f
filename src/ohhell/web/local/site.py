"""``ohhell site DIR``: the game and the scorekeeper as one folder of static
files that run offline in any browser (docs/site.md).

What the folder holds:

- the pages of ``ohhell serve`` (``web/static``), each HTML page marked
  ``<html data-transport="local">`` so the page talks to ``local.js``
  instead of a server, with the manifest and ``site.js`` (which registers
  the service worker) linked from its head;
- ``pyodide/``: the Pyodide runtime, copied from the ``pyodide`` npm package
  (pinned in package.json and package-lock.json; ``npm ci`` installs it),
  every file checked against the SHA-256 pinned here, so a tampered or
  different runtime is refused, not shipped;
- ``ohhell.zip``: our Python (the core, the bots, the words, and the
  parts of ``web`` that need only the standard library), which the worker
  unpacks into Pyodide;
- ``sw.js``: the service worker, with the list of every file written and a
  version made from their hashes: it caches them all on the first visit,
  so the site works offline after it, and a new build replaces the cache;
- ``manifest.webmanifest`` and two icons (PNG, drawn here), so the site
  can be installed.

Nothing in the site is fetched from anywhere but the site itself.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import re
import shutil
import struct
import zipfile
import zlib
from importlib import resources
from pathlib import Path
from typing import Final

PYODIDE_VERSION: Final = "0.29.5"
PYODIDE_FILES: Final[dict[str, str]] = {
    # SHA-256 of each file of the npm package ``pyodide@0.29.5`` that the site needs.
    "pyodide.mjs": "510ca14305230018f50c40fb81be673afd68080e70ce7733fcce6600dd6a1714",
    "pyodide.asm.js": "356c42f69e1695397e9d8670bd3c2e678248cde76e18bdae1731e848537b47d7",
    "pyodide.asm.wasm": "54309a5a2cfd757b1f0fdbc9093c92503f7b341500110329d932487183912718",
    "python_stdlib.zip": "831fd1e535084b972f87c6a35275de3d236efd5166f5e77ce89497710635e73c",
    "pyodide-lock.json": "14d2c2dba101277999e17135e653d8f15389ad1437f53eae213bf0c3cdff723d",
}
# Parts of our package the worker never imports: clients with other
# dependencies (terminal, research environments, training), the server's
# own parts (they need Starlette and SQLAlchemy), the pages (copied apart)
# and the trained networks (NumPy).
LEFT_OUT: Final = (
    "ohhell/cli/",
    "ohhell/terminal/",
    "ohhell/env/",
    "ohhell/learn/",
    "ohhell/analysis/",
    "ohhell/web/static/",
    "ohhell/web/storage/",
    "ohhell/web/accounts/",
    "ohhell/web/cluster/",
    "ohhell/web/serving/",
    "ohhell/web/tables/",
    "ohhell/web/local/site.py",
    "ohhell/web/app.py",
)
LEFT_OUT_SUFFIXES: Final = (".npz", ".pyc")
# The server's pages and their files in the site.
SITE_PAGES: Final = {"/": "index.html", "/score": "score.html", "/replay": "replay.html"}
NAME: Final = "Oh Hell"
THEME: Final = "#1d5c3a"  # the table's felt
BACKGROUND: Final = "#f4f1e8"
ZIP_DATE: Final = (2026, 1, 1, 0, 0, 0)  # every entry's date: the same sources make the same zip


class SiteFiles(http.server.SimpleHTTPRequestHandler):
    """A plain static file server for a built site (the tests' and the
    bench's), with the types any static host gives its files."""

    extensions_map = {  # noqa: RUF012 - the handler's own class attribute
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
        ".webmanifest": "application/manifest+json",
    }

    def log_message(self, format: str, *args: object) -> None:
        pass


class SiteError(Exception):
    """The site cannot be built; the message says why and what to do."""


def pyodide_folder(given: Path | None = None) -> Path:
    """Where the Pyodide runtime is: ``given``, else ``node_modules/pyodide``
    here or in the project this package was installed from."""
    if given is not None:
        candidates = [given]
    else:
        project = Path(__file__).resolve().parents[4]  # src/ohhell/web/local/site.py -> the project
        candidates = [Path.cwd() / "node_modules" / "pyodide", project / "node_modules" / "pyodide"]
    for folder in candidates:
        if (folder / "pyodide.mjs").is_file():
            return folder
    where = str(given) if given is not None else "node_modules/pyodide"
    raise SiteError(
        f"The Pyodide runtime is not in {where}. Run `npm ci` in the project's folder "
        f"(it installs pyodide {PYODIDE_VERSION}, pinned in package.json and package-lock.json), "
        "or name the folder with --pyodide PATH."
    )


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_pyodide(folder: Path) -> None:
    """Every file the site needs is there and matches its pinned SHA-256."""
    for name, expected in PYODIDE_FILES.items():
        path = folder / name
        if not path.is_file():
            raise SiteError(f"{path} is missing: run `npm ci` to install pyodide {PYODIDE_VERSION} again.")
        found = sha256(path)
        if found != expected:
            raise SiteError(
                f"{path} is not the file of pyodide {PYODIDE_VERSION} (its SHA-256 is {found}, "
                f"not {expected}): it may have been changed. Run `npm ci` to install it again."
            )


def pack_python(target: Path) -> None:
    """``ohhell.zip``: the modules the worker imports, the same bytes for the same sources."""
    root = Path(str(resources.files("ohhell")))
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(root.rglob("*")):
            name = "ohhell/" + path.relative_to(root).as_posix()
            if not path.is_file() or "__pycache__" in name:
                continue
            if name.startswith(LEFT_OUT) or name.endswith(LEFT_OUT_SUFFIXES):
                continue
            info = zipfile.ZipInfo(name, ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, path.read_bytes())


def png(size: int) -> bytes:
    """The icon: a white card with a red heart's dot on the table's felt, as a PNG."""
    felt, card, red = (0x1D, 0x5C, 0x3A), (0xFF, 0xFF, 0xFF), (0xC0, 0x2A, 0x2A)
    left, right = size * 0.26, size * 0.74
    top, bottom = size * 0.16, size * 0.84
    cx, cy, radius = size / 2, size / 2, size * 0.12
    rows = []
    for y in range(size):
        row = bytearray([0])  # filter: none
        for x in range(size):
            colour = felt
            if left <= x < right and top <= y < bottom:
                colour = red if (x - cx) ** 2 + (y - cy) ** 2 <= radius**2 else card
            row.extend(colour)
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB
    body = zlib.compress(b"".join(rows), 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def manifest() -> str:
    return json.dumps(
        {
            "name": NAME,
            "short_name": NAME,
            "description": "Oh Hell against bots, and a scorekeeper for real games: works offline.",
            "start_url": "./index.html",
            "scope": "./",
            "display": "standalone",
            "background_color": BACKGROUND,
            "theme_color": THEME,
            "icons": [
                {"src": "icon-192.png", "sizes": "192x192", "type": "image/png"},
                {"src": "icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any maskable"},
            ],
        },
        indent=2,
    )


SITE_JS: Final = """// The offline site's own script (ohhell site): registers the service
// worker that keeps every file of the site, so it works offline after the
// first visit.
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("./sw.js").catch(() => {
    // Not offered (a file:// page, a private window): the site still works online.
  });
}
"""

SW_JS: Final = """// The offline site's service worker (written by ohhell site): every file
// of the site is cached on install, so the game works offline after the
// first visit; a new build (another VERSION) replaces the cache.
const VERSION = %(version)s;
const FILES = %(files)s;
const CACHE = `ohhell-site-${VERSION}`;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => keys.filter((k) => k.startsWith("ohhell-site-") && k !== CACHE))
      .then((old) => Promise.all(old.map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  if (event.request.method !== "GET") return;
  // table.html?t=ID is table.html: the query is the page's, not another file;
  // the folder itself is its index.html.
  const url = new URL(event.request.url);
  const asked = url.pathname.endsWith("/") ? new URL("index.html", url).href : event.request;
  event.respondWith(
    caches.open(CACHE)
      .then((cache) => cache.match(asked, { ignoreSearch: true }))
      .then((hit) => hit || fetch(event.request)),
  );
});
"""


def mark_page(html: str) -> str:
    """An HTML page of the site: marked for the local transport, with the
    manifest, the theme colour and site.js in its head."""
    html = re.sub(r"<html\b", '<html data-transport="local"', html, count=1)
    # The server's addresses become the folder's files, relative, so the
    # site works at any address: /static/x.js is x.js, / is index.html.
    html = re.sub(r'((?:href|src)=")/static/', r"\1", html)
    for path, page in SITE_PAGES.items():
        html = html.replace(f'href="{path}"', f'href="{page}"')
    head = (
        '<link rel="manifest" href="manifest.webmanifest">\n'
        f'<meta name="theme-color" content="{THEME}">\n'
        '<link rel="icon" href="icon-192.png">\n'
        '<script type="module" src="site.js"></script>\n'
    )
    return html.replace("</head>", head + "</head>", 1)


def build(target: Path, pyodide: Path | None = None) -> list[str]:
    """Write the site into ``target``; returns the files written (relative, sorted)."""
    source = pyodide_folder(pyodide)
    check_pyodide(source)
    target.mkdir(parents=True, exist_ok=True)
    static = Path(str(resources.files("ohhell.web") / "static"))
    for path in sorted(static.rglob("*")):
        if not path.is_file():
            continue
        out = target / path.relative_to(static)
        out.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".html":
            out.write_text(mark_page(path.read_text(encoding="utf-8")), encoding="utf-8")
        else:
            shutil.copyfile(path, out)
    (target / "pyodide").mkdir(exist_ok=True)
    for name in PYODIDE_FILES:
        shutil.copyfile(source / name, target / "pyodide" / name)
    check_pyodide(target / "pyodide")  # what was written is what was checked
    pack_python(target / "ohhell.zip")
    (target / "manifest.webmanifest").write_text(manifest(), encoding="utf-8")
    (target / "icon-192.png").write_bytes(png(192))
    (target / "icon-512.png").write_bytes(png(512))
    (target / "site.js").write_text(SITE_JS, encoding="utf-8")
    files = sorted(
        p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file() and p.name != "sw.js"
    )
    version = hashlib.sha256("".join(f"{f}:{sha256(target / f)}\n" for f in files).encode()).hexdigest()[:16]
    sw = SW_JS % {"version": json.dumps(version), "files": json.dumps([f"./{f}" for f in files])}
    (target / "sw.js").write_text(sw, encoding="utf-8")
    return sorted([*files, "sw.js"])


def site_size(target: Path) -> tuple[int, int]:
    """Bytes of the site: (the Pyodide runtime, everything else)."""
    runtime = sum(p.stat().st_size for p in (target / "pyodide").rglob("*") if p.is_file())
    total = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
    return runtime, total - runtime


__all__ = [
    "PYODIDE_FILES",
    "PYODIDE_VERSION",
    "SiteError",
    "SiteFiles",
    "build",
    "check_pyodide",
    "manifest",
    "pack_python",
    "png",
    "pyodide_folder",
    "site_size",
]
