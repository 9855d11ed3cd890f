"""The offline site: its size (the Pyodide runtime and ours apart) and one
bot decision's time under Pyodide in Node against the same decision in
CPython (docs/site.md). Needs `npm ci` and node.

    python3 bench/site.py
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from ohhell.web.local.site import build, site_size

# One decision each: the intermediate bot, and the expert with a fixed number
# of worlds (a time budget would make both take the same time). CPython's
# expert uses the compiled playout when Numba is installed; Pyodide has
# only the pure Python one.
DECISIONS = textwrap.dedent(
    """
    import json, random, time
    from ohhell import make_rules, new_game, observe, advance_chance, seeded_chance
    from ohhell.bots import get_bot
    from ohhell.match import Match
    rules = make_rules("pagat")
    match = Match(new_game(rules), seeded_chance("bench-site"))
    while match.state.is_chance:
        match.submit(match.chance_action())
    seat = match.to_ask()[0]
    obs = observe(match.state, seat)
    out = {}
    bots = (("intermediate", get_bot("intermediate")), ("expert, 200 worlds", get_bot("expert", worlds=200)))
    for name, bot in bots:
        bot.choose(obs, random.Random(1))  # warm
        start = time.perf_counter()
        for _ in range(3):
            bot.choose(obs, random.Random(1))
        out[name] = (time.perf_counter() - start) / 3
    RESULT = json.dumps(out)
    """
)

NODE = """
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [site, code] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(`${site}/pyodide/pyodide.mjs`).href);
const start = Date.now();
const py = await loadPyodide({ indexURL: `${site}/pyodide/` });
const zip = new Uint8Array(readFileSync(`${site}/ohhell.zip`));
py.unpackArchive(zip, "zip", { extractDir: "/home/pyodide/s" });
py.runPython("import sys; sys.path.insert(0, '/home/pyodide/s')");
const loaded = (Date.now() - start) / 1000;
py.runPython(readFileSync(code, "utf8"));
console.log(JSON.stringify({ loaded, ...JSON.parse(py.globals.get("RESULT")) }));
"""


def main() -> int:
    node = shutil.which("node")
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        build(site)
        runtime, ours = site_size(site)
        print(f"site: {runtime / 1e6:.1f} MB Pyodide runtime, {ours / 1e6:.2f} MB ours")
        print(f"  of ours, ohhell.zip (the Python) is {(site / 'ohhell.zip').stat().st_size / 1e3:.0f} kB")
        scope: dict[str, object] = {}
        exec(DECISIONS, scope)
        cpython = json.loads(str(scope["RESULT"]))
        if node is None:
            print("node is not installed: no Pyodide timings")
            return 0
        (Path(tmp) / "bench.mjs").write_text(NODE)
        (Path(tmp) / "decide.py").write_text(DECISIONS)
        start = time.perf_counter()
        run = subprocess.run(
            [node, str(Path(tmp) / "bench.mjs"), str(site), str(Path(tmp) / "decide.py")],
            capture_output=True,
            text=True,
            check=True,
        )
        pyodide = json.loads(run.stdout.strip().splitlines()[-1])
        whole = time.perf_counter() - start
        print(f"Pyodide in Node: started in {pyodide.pop('loaded'):.1f} s (whole run {whole:.1f} s)")
        print(f"{'decision':<22}{'CPython':>10}{'Pyodide':>10}{'ratio':>8}")
        for name, seconds in cpython.items():
            there = pyodide[name]
            print(f"{name:<22}{seconds * 1000:>8.1f}ms{there * 1000:>8.1f}ms{there / seconds:>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
