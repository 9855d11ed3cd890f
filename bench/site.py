"""The offline site: its size (the Pyodide runtime and ours apart), one
bot decision's time under Pyodide in Node against the same decision in
CPython, and in Chromium (with --page): the time from opening the cached
page to the first playable hand, and the page's long tasks (over 50 ms on
its main thread) while the bots play two hands (docs/site.md). Needs
`npm ci` and node; --page needs playwright and /usr/bin/chromium.

    python3 bench/site.py --page --rounds 3
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

from ohhell.web.local.site import SiteFiles, build, site_size

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


LONG_TASKS = """(() => {
  window.longTasks = [];
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.longTasks.push(entry.duration);
    }).observe({ type: "longtask", buffered: true });
  } catch (e) { /* no long task timing here */ }
})();"""

# What a player presses: the first bid offered, else the first playable card.
PRESS = """() => {
  const button = document.querySelector('#bids[data-mode="bid"] button[data-bid]:not(:disabled)')
    || document.querySelector("#hand button.card.legal");
  if (button) button.click();
  return Boolean(button);
}"""


def page_timings(site: Path, rounds: int) -> None:
    """Seconds from opening the cached site to a playable first hand, and the
    long tasks of the table page while the bots play (bots at the site's own
    pace)."""
    from playwright.sync_api import sync_playwright

    files = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(SiteFiles, directory=str(site))
    )
    threading.Thread(target=files.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{files.server_address[1]}/"
    firsts: list[float] = []
    longest: list[float] = []
    over_100: list[int] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        for _ in range(rounds):
            context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
            context.add_init_script(LONG_TASKS)
            page = context.new_page()
            page.goto(base)
            page.evaluate("async () => { await navigator.serviceWorker.ready; }")
            context.set_offline(True)
            start = time.perf_counter()
            page.reload()
            page.click("#play-now-button")
            page.locator('#bids[data-mode="bid"] button[data-bid]:not(:disabled)').first.wait_for(
                timeout=120_000
            )
            firsts.append(time.perf_counter() - start)
            page.evaluate("() => { window.longTasks = []; }")  # from here: the bots' play
            deadline = time.perf_counter() + 60
            while page.evaluate("() => document.querySelector('#info').textContent").find("Hand 3") < 0:
                if time.perf_counter() > deadline:
                    break
                if not page.evaluate(PRESS):
                    page.wait_for_timeout(50)
            tasks = page.evaluate("() => window.longTasks")
            longest.append(max(tasks, default=0.0))
            over_100.append(sum(1 for t in tasks if t > 100))
            context.close()
        browser.close()
    files.shutdown()
    print(f"page (Chromium, {rounds} rounds, offline from the cache):")
    print(
        f"  opening to a playable first hand: median {statistics.median(firsts):.1f} s "
        f"(each: {', '.join(f'{t:.1f}' for t in firsts)})"
    )
    print(
        f"  long tasks on the main thread over two hands: longest {max(longest):.0f} ms; "
        f"over 100 ms: {sum(over_100)}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--page", action="store_true", help="time the page in Chromium too")
    parser.add_argument("--rounds", type=int, default=3, help="page rounds (default 3)")
    args = parser.parse_args()
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
        if args.page:
            page_timings(site, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
