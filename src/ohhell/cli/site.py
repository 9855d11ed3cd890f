"""``ohhell site DIR``: the game and the scorekeeper as a folder of static
files that run offline in any browser (``ohhell.web.local.site``; docs/site.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .common import command_parser, examples


def cmd_site(args: argparse.Namespace) -> int:
    from ..web.local.site import SiteError, build, site_size

    target = Path(args.dir)
    try:
        files = build(target, Path(args.pyodide) if args.pyodide else None)
    except SiteError as err:
        print(f"ohhell site: {err}", file=sys.stderr)
        return 2
    runtime, ours = site_size(target)
    sizes = f"{runtime / 1e6:.1f} MB of them Pyodide, {ours / 1e6:.1f} MB ours"
    print(f"Wrote {len(files)} files to {target} ({sizes}).")
    print("Put the folder on any static web host and open index.html: it works offline after a first visit.")
    return 0


def add_parser(sub: Any) -> None:
    parser = command_parser(
        sub,
        "site",
        help="write the game and scorekeeper as a static site that works offline",
        description=(
            "Write DIR: the pages of ohhell serve with the rules and bots running in the browser "
            "(Pyodide in a Web Worker), a service worker that keeps every file for offline use, and a "
            "web manifest so the site can be installed. Needs the Pyodide runtime: run `npm ci` first."
        ),
        epilog=examples(
            "npm ci && ohhell site public/         # then serve public/ from any static host",
            "ohhell site out --pyodide ~/pyodide   # a Pyodide folder of the pinned version",
        ),
    )
    parser.add_argument("dir", metavar="DIR", help="the folder to write (made if missing)")
    parser.add_argument(
        "--pyodide",
        metavar="PATH",
        help="the Pyodide runtime's folder (default: node_modules/pyodide, which `npm ci` installs)",
    )
    parser.set_defaults(func=cmd_site)
