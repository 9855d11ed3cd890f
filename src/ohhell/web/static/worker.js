// The offline site's server: a Web Worker running our Python core on
// Pyodide (docs/site.md). The page's local.js talks to it; it answers with
// the very messages `ohhell serve` sends, made by ohhell.web.local.server.
//
// Everything it loads comes from the site itself (./pyodide/, ./ohhell.zip):
// nothing is fetched from anywhere else. The Python side never waits: it
// says when to call step() again (a bot's paced move), and this worker sets
// the timer, so the page's messages are read between two bot moves.
// After every change the whole state is put in IndexedDB, so an unfinished
// match comes back when the tab is opened again.

import { loadPyodide } from "./pyodide/pyodide.mjs";

const BASE = new URL("./", import.meta.url);
const DB = "ohhell-site";
const STORE = "state";
const KEY = "server";

let server = null; // the Python LocalServer
let timer = null;
let timerAt = Infinity;
let failed = null;

function openDb() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function loadSaved() {
  try {
    const db = await openDb();
    return await new Promise((resolve) => {
      const get = db.transaction(STORE).objectStore(STORE).get(KEY);
      get.onsuccess = () => resolve(typeof get.result === "string" ? get.result : null);
      get.onerror = () => resolve(null);
    });
  } catch {
    return null; // no IndexedDB (a private window): play without keeping
  }
}

let saving = Promise.resolve();
function save(text) {
  saving = saving.then(async () => {
    try {
      const db = await openDb();
      db.transaction(STORE, "readwrite").objectStore(STORE).put(text, KEY);
    } catch {
      // Storage refused: the match goes on, it is only not kept.
    }
  });
}

// The page's first message: its settings (the bots' pause, when set).
let started;
const settings = new Promise((resolve) => { started = resolve; });

const ready = (async () => {
  const pyodide = await loadPyodide({ indexURL: new URL("pyodide/", BASE).href });
  const zip = await (await fetch(new URL("ohhell.zip", BASE))).arrayBuffer();
  pyodide.unpackArchive(zip, "zip", { extractDir: "/home/pyodide/ohhell-site" });
  pyodide.runPython("import sys; sys.path.insert(0, '/home/pyodide/ohhell-site')");
  const saved = await loadSaved();
  const module = pyodide.pyimport("ohhell.web.local.server");
  const kwargs = { saved };
  const { pause } = await settings; // (the worker's own address has no query once cached)
  if (typeof pause === "number" && pause >= 0 && pause <= 5) kwargs.bot_delay = pause;
  server = module.LocalServer.callKwargs(kwargs);
  schedule(0); // a bot whose turn it was when the tab closed goes on
})().catch((err) => {
  failed = `The game could not start in this browser (${err && err.message ? err.message : err}).`;
});

/** Route one outcome of the Python side: messages, closes, the next step, the save. */
function route(text) {
  const outcome = JSON.parse(text);
  for (const [conn, data] of outcome.out) postMessage({ kind: "message", conn, data });
  for (const [conn, code] of outcome.closed) postMessage({ kind: "closed", conn, code });
  if (outcome.save) save(outcome.save);
  if (outcome.wait !== null && outcome.wait !== undefined) schedule(outcome.wait);
  return outcome.answer;
}

function schedule(seconds) {
  const at = Date.now() + seconds * 1000;
  if (timer !== null && at >= timerAt) return;
  clearTimeout(timer);
  timerAt = at;
  timer = setTimeout(() => {
    timer = null;
    timerAt = Infinity;
    try {
      route(server.step());
    } catch (err) {
      // A bug of ours must not stop the table for good: say it, and try
      // again in a moment (a page's message also tries again).
      postMessage({ kind: "fault", text: String(err && err.message ? err.message : err) });
      schedule(1);
    }
  }, Math.max(0, seconds * 1000));
}

self.onmessage = async (event) => {
  const m = event.data;
  if (m.kind === "start") {
    started(m);
    return;
  }
  await ready;
  if (failed) {
    if (m.kind === "api") postMessage({ kind: "answer", id: m.id, answer: { status: 503, json: { error: failed } } });
    if (m.kind === "open") postMessage({ kind: "closed", conn: m.conn, code: 1011, reason: failed });
    return;
  }
  if (m.kind === "api") {
    const answer = route(server.request(m.method, m.path, m.body));
    postMessage({ kind: "answer", id: m.id, answer });
  } else if (m.kind === "open") {
    postMessage({ kind: "opened", conn: m.conn });
    route(server.open(m.conn, m.table));
  } else if (m.kind === "send") {
    route(server.receive(m.conn, m.data));
  } else if (m.kind === "close") {
    route(server.close(m.conn));
    postMessage({ kind: "closed", conn: m.conn, code: m.code || 1000 });
  }
  schedule(0); // whatever changed may have made a bot's turn due
};
