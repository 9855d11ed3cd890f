// The page's side of the offline site (docs/site.md): a transport that
// behaves like the server's, for the same table, home and score pages.
//
//   new LocalSocket("ws://host/ws/TABLE")  like a browser WebSocket
//   await localApi(method, path, body)     like common.js's api()
//
// Both talk to one Web Worker (worker.js) running our Python core on
// Pyodide; the messages and answers are the server's own, made by
// ohhell.web.local.server. The worker does the work, so the page's main
// thread stays free while a bot thinks.

const PAUSE_KEY = "ohhell-bot-pause"; // seconds a bot waits before its move
let worker = null;
let nextId = 1;
const answers = new Map(); // request id -> {resolve}
const sockets = new Map(); // connection number -> LocalSocket

function theWorker() {
  if (worker === null) {
    // The bots' pause before each move (0.6 s, as the server's) may be set
    // shorter in this browser's storage (tests, a player in a hurry).
    let pause = null;
    try {
      pause = localStorage.getItem(PAUSE_KEY);
    } catch {
      /* no storage: the usual pause */
    }
    worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    worker.postMessage({ kind: "start", pause: pause !== null && pause !== "" && Number.isFinite(Number(pause)) ? Number(pause) : null });
    worker.onmessage = (event) => receive(event.data);
    worker.onerror = (event) => {
      const why = `The game could not start in this browser (${event.message || "the worker failed"}).`;
      for (const { resolve } of answers.values()) resolve({ status: 503, json: { error: why } });
      answers.clear();
      for (const socket of sockets.values()) socket._closed(1011);
    };
  }
  return worker;
}

function receive(m) {
  if (m.kind === "fault") {
    console.error(`The offline game's engine failed: ${m.text}`);
    return;
  }
  if (m.kind === "answer") {
    const waiting = answers.get(m.id);
    answers.delete(m.id);
    if (waiting) waiting.resolve(m.answer);
    return;
  }
  const socket = sockets.get(m.conn);
  if (!socket) return;
  if (m.kind === "opened") socket._opened();
  else if (m.kind === "message") socket._message(m.data);
  else if (m.kind === "closed") socket._closed(m.code);
}

const STATUS_TEXT = { 400: "Bad Request", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 409: "Conflict", 503: "Service Unavailable" };

/**
 * What api() in common.js would get from the server for `path`: resolves
 * with the JSON answer (or the text, for a record), or throws an Error with
 * the server's words, `.status` and `.field`, as api() does.
 */
export async function localApi(method, path, body) {
  const id = nextId++;
  const text = body === undefined ? null : typeof body === "string" ? body : JSON.stringify(body);
  const answer = await new Promise((resolve) => {
    answers.set(id, { resolve });
    theWorker().postMessage({ kind: "api", id, method, path, body: text });
  });
  const data = answer.json === undefined ? null : answer.json;
  if (answer.status >= 400) {
    const why = data && data.error ? data.error : `${answer.status} ${STATUS_TEXT[answer.status] || ""}`.trim();
    const error = new Error(why);
    error.status = answer.status;
    error.field = data && data.field ? data.field : null;
    throw error;
  }
  return data === null ? answer.text : data;
}

/** A WebSocket to a table, answered by the worker: url like ws://host/ws/TABLE. */
export class LocalSocket {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSING = 2;
  static CLOSED = 3;

  constructor(url) {
    this.url = String(url);
    this.readyState = LocalSocket.CONNECTING;
    this.onopen = null;
    this.onmessage = null;
    this.onclose = null;
    this.onerror = null;
    this.conn = nextId++;
    const path = new URL(this.url, "http://local/").pathname;
    const table = decodeURIComponent(path.slice(path.lastIndexOf("/") + 1));
    sockets.set(this.conn, this);
    theWorker().postMessage({ kind: "open", conn: this.conn, table });
  }

  send(data) {
    if (this.readyState === LocalSocket.CONNECTING) {
      throw new DOMException("the socket is still connecting", "InvalidStateError");
    }
    if (this.readyState !== LocalSocket.OPEN) return; // as a browser: dropped once closing
    theWorker().postMessage({ kind: "send", conn: this.conn, data: String(data) });
  }

  close(code = 1000) {
    if (this.readyState >= LocalSocket.CLOSING) return;
    this.readyState = LocalSocket.CLOSING;
    theWorker().postMessage({ kind: "close", conn: this.conn, code });
  }

  _opened() {
    if (this.readyState !== LocalSocket.CONNECTING) return;
    this.readyState = LocalSocket.OPEN;
    if (this.onopen) this.onopen({ type: "open" });
  }

  _message(data) {
    if (this.readyState !== LocalSocket.OPEN) return;
    if (this.onmessage) this.onmessage({ type: "message", data });
  }

  _closed(code) {
    if (this.readyState === LocalSocket.CLOSED) return;
    this.readyState = LocalSocket.CLOSED;
    sockets.delete(this.conn);
    if (this.onclose) this.onclose({ type: "close", code, wasClean: code === 1000 });
  }
}
