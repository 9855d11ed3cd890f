// The table's chat: lines, quick reactions, this viewer's mutes, and the
// host's mute-for-everyone and removal (docs/web.md, "Chat").
//
// The server stores and sends every line ({type: "chat", number, seat, name,
// kind, text}); a viewer's mutes (seats, "watchers" for every watcher, and
// one watcher by name, kept here as "watcher:Name" and sent as {watcher: name})
// are kept in localStorage under "ohhell-mute-{table}", sent with the hello
// and whenever they change, so the server never sends this page a muted line.
// A line of kind "notice" is the table's own ("Ann left; Bruno, a bot, plays
// the seat now"), heard by everyone. A line stays in the box until it comes
// back from the server: one refused (too fast) is not lost, and the refusal
// says when it can go. A counter says the length near the limit.
//
// Stable selectors (tests rely on these):
//   #chat-log li[data-number][data-seat]   one line (.watcher, .reaction, .mine, .notice)
//   #chat-input, #chat-send, #chat-name (watchers only), #chat-count (the length, near the limit)
//   #reactions button[data-reaction]
//   #chat-watchers                          show the watchers' lines (unchecked: muted)
//   #people-list li[data-seat]              .mute-button (this viewer), and for the host
//                                           .silence-button, .remove-button (asks twice)
//   #people-list li.watcher-person[data-watcher]  a watcher who spoke: .mute-button, and for
//                                           the host .silence-button

import { $, el, fill, keepName, storedName } from "./common.js";

// Words, not pictures: the pages bring no fonts, and not every machine has emoji.
const REACTIONS = [["hello", "Hi", "Hello!"], ["nice", "Nice", "Nice one!"], ["wow", "Wow", "Wow!"],
  ["oops", "Oops", "Oops!"], ["thanks", "Thanks", "Thanks!"], ["gg", "GG", "Good game!"]];
const KEPT = 200; // lines kept in the page
const BUBBLE_MS = 4000; // how long a reaction shows on its player's seat
const CONFIRM_MS = 4000; // how long "Remove?" waits for its second click
const CHAT_MAX = 200; // characters in a line (the server refuses longer ones)
const COUNT_FROM = 150; // the counter shows from this many characters on
const WATCHER = "watcher:"; // a mute of one watcher, by name
const NOTICE = "notice"; // a line the table itself says

/** A mute as the server reads it: a seat, "watchers", or {watcher: name}. */
const wire = (who) => (typeof who === "string" && who.startsWith(WATCHER) ? { watcher: who.slice(WATCHER.length) } : who);
/** Words as the server keeps them: one line, single spaces. */
const squeeze = (text) => text.split(/\s+/).filter(Boolean).join(" ");

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
  let pending = null; // the line sent and not yet back: the box keeps it until it is
  const hostMuted = new Set(); // watchers this host muted for everyone (names)
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
    ctx.send({ type: "mute", who: wire(who), on });
    draw();
    drawPeople();
  }

  const heard = (line) => line.kind === NOTICE || (line.seat === null
    ? !mutes.has("watchers") && !mutes.has(WATCHER + line.name) : !mutes.has(line.seat));

  /** The name this page chats under as a watcher (the server's word when none is typed). */
  const watcherName = () => squeeze($("#chat-name").value) || "A watcher";

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
    fill(log, lines.filter(heard).map((l) => (l.kind === NOTICE
      ? el("li", { class: "notice", dataset: { number: l.number, seat: "table" } }, el("span", { class: "text" }, l.text))
      : el("li", {
      class: [l.seat === null ? "watcher" : "", l.kind === "reaction" ? "reaction" : "",
        l.seat !== null && l.seat === me ? "mine" : ""].join(" ").trim(),
      dataset: { number: l.number, seat: l.seat ?? "watcher" },
    }, el("b", { class: "who" }, l.seat !== null && l.seat === me ? "You" : l.name),
    l.seat === null ? el("span", { class: "muted" }, " (watching)") : null, ": ", el("span", { class: "text" }, l.text)))));
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
    const watching = watcherPeople(me);
    fill($("#people-list"), people.length || watching.length ? people.map((s) => {
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
    }) : el("li", { class: "muted" }, "Nobody else is here yet."), watching);
  }

  /** The watchers who spoke here, by the name they chat under: each can be muted, by the host for everyone. */
  function watcherPeople(me) {
    const own = me === null ? watcherName() : null;
    const names = [...new Set(lines.filter((l) => l.seat === null && l.kind !== NOTICE).map((l) => l.name))]
      .filter((name) => name !== own).slice(-10);
    const silenced = new Set([...(ctx.info()?.silenced_watchers || []), ...hostMuted]);
    return names.map((name) => {
      const muted = mutes.has(WATCHER + name);
      const off = silenced.has(name);
      return el("li", { class: "watcher-person", dataset: { watcher: name } },
        el("span", { class: "who" }, name), el("span", { class: "muted" }, " (watching)"),
        off ? el("span", { class: "badge" }, "muted by the host") : null,
        el("button", { type: "button", class: "mute-button", "aria-pressed": String(muted),
          onclick: () => setMute(WATCHER + name, !muted) }, muted ? `Hear ${name}` : `Mute ${name}`),
        ctx.host() ? el("button", { type: "button", class: "silence-button", "aria-pressed": String(off),
          onclick: () => silenceWatcher(name, !off) }, off ? "Let them chat" : "Mute for everyone") : null);
    });
  }

  function silenceWatcher(name, on) {
    if (!ctx.send({ type: "silence", watcher: name, on })) return;
    if (on) hostMuted.add(name);
    else hostMuted.delete(name);
    drawPeople();
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
    const text = squeeze(input.value);
    if (!text || text.length > CHAT_MAX) {
      count();
      return;
    }
    const message = { type: "chat", text };
    if (ctx.seat() === null) {
      const name = $("#chat-name").value.trim();
      if (name) {
        message.name = name;
        keepName(name);
      }
    }
    // The box keeps the line until it comes back as said: a refused line
    // (too fast, the table busy) is still there to send again.
    if (!ctx.send(message)) return;
    pending = text;
    // A watcher who hides every watcher's line never gets their own back: cleared now.
    if (ctx.seat() === null && mutes.has("watchers")) {
      $("#chat-input").value = "";
      pending = null;
      count();
    }
  }

  /** Is `line` the one this page sent and is waiting for? */
  function isMine(line) {
    if (pending === null || line.kind !== "chat" || line.text !== pending) return false;
    const me = ctx.seat();
    return me !== null ? line.seat === me : line.seat === null && line.name === watcherName();
  }

  /** The length of the line in the box, shown near the limit; over it, Send waits. */
  function count() {
    const length = squeeze($("#chat-input").value).length;
    const counter = $("#chat-count");
    const over = length > CHAT_MAX;
    counter.hidden = length < COUNT_FROM;
    counter.classList.toggle("full", length >= CHAT_MAX);
    counter.textContent = over
      ? `${length} characters: ${length - CHAT_MAX} too many, a line holds at most ${CHAT_MAX}`
      : `${length} of ${CHAT_MAX} characters`;
    $("#chat-send").disabled = over;
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
  // No silent cut at the limit: the box takes more, and the counter says how many too many.
  $("#chat-input").removeAttribute("maxlength");
  $("#chat-form").after(el("small", { id: "chat-count", class: "chat-count", "aria-live": "polite", hidden: true }));
  $("#chat-input").addEventListener("input", count);
  $("#chat-watchers").addEventListener("change", (e) => setMute("watchers", !e.target.checked));

  return {
    /** What the hello carries: the mutes, so even the history leaves them out. */
    mutes: () => [...mutes].map(wire),
    /** A chat or chat_history message from the server. */
    handle(message) {
      if (message.type === "chat_history") {
        (message.lines || []).forEach(take);
      } else if (take(message)) {
        if (isMine(message)) {
          pending = null;
          if (squeeze($("#chat-input").value) === message.text) $("#chat-input").value = "";
          count();
        }
        if (message.kind === "reaction" && message.seat !== null) {
          bubbles.set(message.seat, { text: message.text, until: Date.now() + BUBBLE_MS });
          setTimeout(ctx.changed, BUBBLE_MS + 50);
          ctx.changed();
        }
      }
      draw();
      if (message.type === "chat_history" || (message.seat === null && message.kind !== NOTICE)) drawPeople();
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
