// The table page's connection: one socket to the table (a WebSocket to the
// server, or the offline site's worker behind the same messages), hello on
// open, reconnecting with back-off.

import { $, el, fill, local, LOCAL, pages } from "../common.js";
import { hooks, redraw, S, TABLE } from "./state.js";

/** Open a (new) socket and say hello; the server answers with welcome, table and state. */
export function connect() {
  clearTimeout(S.reconnectTimer);
  if (S.ws) {
    S.ws.onclose = null; // a deliberate reconnect must not schedule another
    S.ws.close();
  }
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  const url = `${scheme}//${window.location.host}/ws/${encodeURIComponent(TABLE)}`;
  if (LOCAL && !S.LocalSocket) { // the offline site: the worker's socket, loaded once
    local().then((m) => {
      S.LocalSocket = m.LocalSocket;
      connect();
    });
    return;
  }
  const ws = LOCAL ? new S.LocalSocket(url) : new WebSocket(url);
  S.ws = ws;
  setConn("connecting");
  ws.onopen = () => {
    const hello = { type: "hello" };
    if (S.token) hello.token = S.token;
    if (S.chat.mutes().length) hello.mute = S.chat.mutes(); // so even the chat's history leaves them out
    ws.send(JSON.stringify(hello));
    setConn("open");
  };
  ws.onmessage = (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    hooks.message(message);
  };
  ws.onclose = (event) => {
    if (S.ws !== ws) return;
    setConn("closed");
    if (event.code === 4404) { // the server knows no such table: retrying cannot help
      S.table = null;
      fill($("#status"), "There is no such table: it may have expired. ", el("a", { href: pages.home() }, "Go home"));
      return;
    }
    scheduleReconnect();
  };
}

/** Back off 0.5 s, 1 s, 2 s ... up to 15 s (with a little jitter), then hello again. */
export function scheduleReconnect() {
  const delay = Math.min(15000, 500 * 2 ** S.retries) + Math.random() * 300;
  S.retries += 1;
  S.pending = false;
  S.reconnectAt = Date.now() + delay;
  S.reconnectTimer = setTimeout(() => connect(), delay);
  redraw();
}

export function setConn(state) {
  const dot = $("#conn");
  dot.dataset.state = state;
  const words = { connecting: "Connecting…", open: "Connected", closed: "Disconnected" }[state];
  dot.title = words;
  dot.setAttribute("aria-label", words);
}

export function send(message) {
  if (S.ws && S.ws.readyState === 1) { // open (WebSocket.OPEN; the offline site's socket alike)
    S.ws.send(JSON.stringify(message));
    return true;
  }
  return false;
}
