// The table's chat: lines, quick reactions, this viewer's mutes, and the
// host's mute-for-everyone and removal (docs/web.md, "Chat").
//
// The server stores and sends every line ({type: "chat", number, seat, name,
// kind, text}); a viewer's mutes (seats, and "watchers" for every watcher)
// are kept in localStorage under "ohhell-mute-{table}", sent with the hello
// and whenever they change, so the server never sends this page a muted line.
//
// Stable selectors (tests rely on these):
//   #chat-log li[data-number][data-seat]   one line (.watcher, .reaction, .mine)
//   #chat-input, #chat-send, #chat-name (watchers only)
//   #reactions button[data-reaction]
//   #chat-watchers                          show the watchers' lines (unchecked: muted)
//   #people-list li[data-seat]              .mute-button (this viewer), and for the host
//                                           .silence-button, .remove-button (asks twice)

import { $, el, fill, keepName, storedName } from "/static/common.js";

// Words, not pictures: the pages bring no fonts, and not every machine has emoji.
const REACTIONS = [["hello", "Hi", "Hello!"], ["nice", "Nice", "Nice one!"], ["wow", "Wow", "Wow!"],
  ["oops", "Oops", "Oops!"], ["thanks", "Thanks", "Thanks!"], ["gg", "GG", "Good game!"]];
const KEPT = 200; // lines kept in the page
const BUBBLE_MS = 4000; // how long a reaction shows on its player's seat
const CONFIRM_MS = 4000; // how long "Remove?" waits for its second click

/**
 * The chat of one table. `ctx` gives what the page knows: table (id),
 * send(message) -> bool, seat(), host(), info() (the public table) and
 * changed() (the page redraws: a reaction shows on its player's seat).
 */
export function createChat(ctx) {
  const key = `ohhell-mute-${ctx.table}`;
  const lines = [];
  const bubbles = new Map(); // seat -> {text, until}
  let confirming = null; // [seat, until]: the remove button asks once more
  let mutes = new Set();
  try {
    mutes = new Set(JSON.parse(localStorage.getItem(key) || "[]"));
  } catch {
    mutes = new Set();
  }

  function saveMutes() {
    try {
      localStorage.setItem(key, JSON.stringify([...mutes]));
    } catch { /* no storage: the mutes last as long as the page */ }
  }

  function setMute(who, on) {
    if (on) mutes.add(who);
    else mutes.delete(who);
    saveMutes();
    ctx.send({ type: "mute", who, on });
    draw();
    drawPeople();
  }

  const heard = (line) => !mutes.has(line.seat === null ? "watchers" : line.seat);

  function take(line) {
    if (lines.some((l) => l.number === line.number)) return false;
    lines.push(line);
    lines.sort((a, b) => a.number - b.number);
    if (lines.length > KEPT) lines.splice(0, lines.length - KEPT);
    return true;
  }

  function draw() {
    const log = $("#chat-log");
    const me = ctx.seat();
    fill(log, lines.filter(heard).map((l) => el("li", {
      class: [l.seat === null ? "watcher" : "", l.kind === "reaction" ? "reaction" : "",
        l.seat !== null && l.seat === me ? "mine" : ""].join(" ").trim(),
      dataset: { number: l.number, seat: l.seat ?? "watcher" },
    }, el("b", { class: "who" }, l.seat !== null && l.seat === me ? "You" : l.name),
    l.seat === null ? el("span", { class: "muted" }, " (watching)") : null, ": ", el("span", { class: "text" }, l.text))));
    log.scrollTop = log.scrollHeight; // the log scrolls by itself, never the page
    $("#chat-watchers").checked = !mutes.has("watchers");
  }

  function drawForm() {
    const watcher = ctx.seat() === null;
    const name = $("#chat-name");
    name.hidden = !watcher;
    if (watcher && !name.value) name.value = storedName();
  }

  /** This viewer's mute for each other person; for the host, mute-for-everyone and remove. */
  function drawPeople() {
    const t = ctx.info();
    if (!t) return;
    const me = ctx.seat();
    const silenced = new Set(t.silenced || []);
    const people = t.seats.filter((s) => s.kind === "human" && s.seat !== me);
    const now = Date.now();
    fill($("#people-list"), people.length ? people.map((s) => {
      const muted = mutes.has(s.seat);
      const asking = confirming && confirming[0] === s.seat && confirming[1] > now;
      return el("li", { dataset: { seat: s.seat } },
        el("span", { class: "who" }, s.name), silenced.has(s.seat) ? el("span", { class: "badge" }, "muted by the host") : null,
        el("button", { type: "button", class: "mute-button", "aria-pressed": String(muted),
          onclick: () => setMute(s.seat, !muted) }, muted ? `Hear ${s.name}` : `Mute ${s.name}`),
        ctx.host() ? el("button", { type: "button", class: "silence-button", "aria-pressed": String(silenced.has(s.seat)),
          onclick: () => ctx.send({ type: "silence", seat: s.seat, on: !silenced.has(s.seat) }) },
        silenced.has(s.seat) ? "Let them chat" : "Mute for everyone") : null,
        ctx.host() ? el("button", { type: "button", class: `remove-button${asking ? " danger" : ""}`,
          onclick: () => removeSeat(s.seat) }, asking ? `Remove ${s.name}? Click again` : "Remove from the table") : null);
    }) : el("li", { class: "muted" }, "Nobody else is here yet."));
  }

  function removeSeat(seat) {
    if (confirming && confirming[0] === seat && confirming[1] > Date.now()) {
      confirming = null;
      ctx.send({ type: "remove", seat });
    } else {
      confirming = [seat, Date.now() + CONFIRM_MS];
      setTimeout(drawPeople, CONFIRM_MS + 50);
    }
    drawPeople();
  }

  function say(event) {
    event.preventDefault();
    const input = $("#chat-input");
    const text = input.value.trim();
    if (!text) return;
    const message = { type: "chat", text };
    if (ctx.seat() === null) {
      const name = $("#chat-name").value.trim();
      if (name) {
        message.name = name;
        keepName(name);
      }
    }
    if (ctx.send(message)) input.value = "";
  }

  function react(reaction) {
    const message = { type: "react", reaction };
    if (ctx.seat() === null && $("#chat-name").value.trim()) message.name = $("#chat-name").value.trim();
    ctx.send(message);
  }

  fill($("#reactions"), REACTIONS.map(([code, symbol, words]) => el("button", {
    type: "button", class: "reaction-button", dataset: { reaction: code }, title: words, "aria-label": words,
    onclick: () => react(code),
  }, symbol)));
  $("#chat-form").addEventListener("submit", say);
  $("#chat-watchers").addEventListener("change", (e) => setMute("watchers", !e.target.checked));

  return {
    /** What the hello carries: the mutes, so even the history leaves them out. */
    mutes: () => [...mutes],
    /** A chat or chat_history message from the server. */
    handle(message) {
      if (message.type === "chat_history") {
        (message.lines || []).forEach(take);
      } else if (take(message)) {
        if (message.kind === "reaction" && message.seat !== null) {
          bubbles.set(message.seat, { text: message.text, until: Date.now() + BUBBLE_MS });
          setTimeout(ctx.changed, BUBBLE_MS + 50);
          ctx.changed();
        }
      }
      draw();
    },
    /** The reaction a seat made a moment ago, shown on its place at the table. */
    bubble(seat) {
      const b = bubbles.get(seat);
      return b && b.until > Date.now() ? b.text : null;
    },
    /** The table changed (seats, the host's mutes) or this page's seat did. */
    refresh() {
      drawForm();
      drawPeople();
    },
    focus() {
      $("#chat-input").focus();
    },
  };
}
