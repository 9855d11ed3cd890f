// Plays one match against the offline site's server (ohhell.web.local) under
// Pyodide in Node, from a built site: node play_in_pyodide.mjs SITE LEVEL
// Prints one JSON line: {"phase", "version", "python", "seconds"}.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [site, level] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(`${site}/pyodide/pyodide.mjs`).href);
const pyodide = await loadPyodide({ indexURL: `${site}/pyodide/` });
pyodide.unpackArchive(new Uint8Array(readFileSync(`${site}/ohhell.zip`)), "zip", { extractDir: "/home/pyodide/ohhell-site" });
pyodide.runPython("import sys; sys.path.insert(0, '/home/pyodide/ohhell-site')");
pyodide.globals.set("LEVEL", level);
const out = pyodide.runPython(`
import json, sys, time
from ohhell.web.local.server import LocalServer

start = time.perf_counter()
server = LocalServer(bot_delay=0, think=0.05)
inbox = []
def take(outcome):
    data = json.loads(outcome)
    inbox.extend(json.loads(text) for _, text in data["out"])
    return data
made = take(server.request("POST", "/api/play-now", json.dumps({"level": LEVEL})))["answer"]["json"]
take(server.open(1, made["table"]))
take(server.receive(1, json.dumps({"type": "hello", "token": made["token"]})))
last = None
for _ in range(100000):
    if not inbox:
        take(server.step())
        continue
    m = inbox.pop(0)
    assert m["type"] != "error", m
    if m["type"] == "table" and m["status"] == "over":
        break
    if m["type"] == "state":
        last = m
        legal = [a for a in m["obs"]["legal"] if a["kind"] != "change"]
        if legal and m["obs"]["phase"] != "over":
            action = {k: v for k, v in legal[0].items() if k != "seat"}
            take(server.receive(1, json.dumps({"type": "act", "version": m["version"], "action": action})))
        elif m["obs"]["can_change"]:
            take(server.receive(1, json.dumps({"type": "keep"})))
record = take(server.request("GET", f"/api/tables/{made['table']}/record"))["answer"]["text"]
saved = server.save()
again = LocalServer(saved=saved)
json.dumps({"phase": last["obs"]["phase"], "version": last["version"], "python": sys.version.split()[0],
            "seconds": round(time.perf_counter() - start, 2), "record": record,
            "resumed": again.tables[made["table"]].version})
`);
console.log(out);
