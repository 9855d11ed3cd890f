// The table page: lobby, play and final standings of one table, /t/{table}.
//
// Stable selectors (browser tests rely on these; keep them when changing the page):
//   #status                 one-line prompt: whose turn, what to do, the bids' balance
//   #error                  non-blocking message area (server errors, hints about keys)
//   #info                   hand number, hand size, trump, who deals
//   #conn[data-state]       connection: "connecting" | "open" | "closed"
//   #lobby                  the lobby (status "lobby"); #invite-link, #copy-link,
//                           #lobby-seats li[data-seat], #join-form, #join-seat, #join-name,
//                           #join-button, #host-controls, #fill-level, #fill-button, #start-button
//   #game                   the table while playing (hidden in the lobby)
//   #players .seat[data-seat="2"]   one player: name, bid, tricks, score; classes
//                           .me, .turn (to act), .dealer, .away; .bid[data-sealed] for a sealed bid
//   #trick .played[data-seat="2"] .card[data-card="QS"]   the cards on the table;
//                           #trick[data-kind] is "current" | "finished" | "last" | "draw" | "empty"
//   #trump-card             the turned card / trump suit inside the table area
//   #bids                   bid buttons button[data-bid="3"] (the hook's: .hook, disabled),
//                           trump buttons button[data-suit="S"|"NT"], #keep-button
//   #hand button.card[data-card="QS"]   your cards (aria-label "Queen of spades", or
//                           "..., trump"), never disabled (Tab reaches them): .legal and
//                           aria-disabled="false" = playable now; under Devil's Bridge data-card="hidden"
//   .hinted                 the card or bid the hint suggests
//   #hint-button, #last-button, #scores-button   the tools (keys h, l, s)
//   #hint                   the hint: suggestion and the ranked list
//   #scores                 score sheet (table.sheet) and chart (svg.chart); hidden until shown
//   #standings              final standings, #download-record, #replay-link, #review-link
//   #rules, #log            the table's rules in words, and what happened
//   #announce               the polite live region: whose turn, tricks won, hands scored, who joined
//   #sound-button[aria-pressed][data-played][data-last]   sounds on/off (key m), tones played
//   #keys                   the keys, listed (key ? opens it)
//   #rematch, #rematch-button   "Play again" once the match is over
//   #chat ...               the chat (chat.js lists its selectors)
//
// Keys (listed on the page, #keys; ? opens the list): 0-9 bid (a bid over 9 is
// two digits; when a second digit could follow, the first waits a moment, or
// Enter bids it at once), 1-5 name trump (♣ ♦ ♥ ♠ NT), left/right arrows move
// between playable cards (or bids, or else every card), Tab goes through the
// hand at any time, Enter plays/bids, k keeps a bid that may still be changed,
// h hint, l last trick, s score sheet, c chat, m sounds, Escape closes the
// last trick and the hint.
//
// Screen readers: #announce (polite) says whose turn it is, who won each
// trick and how each hand went; a trump card's label ends in ", trump".
//
// This file draws the page (render) and takes the server's messages; its parts
// are modules of their own under table/: state.js (what the page knows, what the
// legal actions ask now), connection.js (the socket), actions.js (what a player
// does), keys.js, clocks.js, felt.js (seats, trump card, trick), hand.js (bids,
// trump, cards), panels.js (hint, scores, standings, rules), spoken.js (the live
// region and the log); chat.js, claim.js and sound.js beside this file.


import { $, api, cardSpan, el, fill, LOCAL, pages, storedName, setSeat, showMessage, suitSpan } from "./common.js";
import { createChat } from "./chat.js";
import { createClaims } from "./claim.js";
import { createSound } from "./sound.js";
import { ended, FINISHED_TRICK_MS, hooks, START_ERROR, isTurn, legal, mode, NOTICE_MS, REPLACE_GRACE_MS, S, seatInfo, seatName, TABLE, tableTitle } from "./table/state.js";
import { connect, send } from "./table/connection.js";
import { announce, logAction, noteCover, tellChanges, tellState } from "./table/spoken.js";
import { askHint, AUTO_PLAY_KEY, autoPlayWanted, copyInvite, endTable, fillWithBots, join, leaveTable, scheduleForcedCard, startMatch, toggleLast, toggleScores } from "./table/actions.js";
import { onKey } from "./table/keys.js";
import { changeCountdown, myClock, setClocks, tickClocks } from "./table/clocks.js";
import { renderPlayers, renderTrick } from "./table/felt.js";
import { fitHand, renderChoices, renderHand } from "./table/hand.js";
import { downloadRecord, renderHint, renderRules, renderScores, renderStandings } from "./table/panels.js";

async function main() {
  hooks.render = render;
  hooks.message = handle;
  document.title = "Oh Hell";
  wireControls();
  if (LOCAL && !TABLE && !START_ERROR) { // the site's table page opened bare: nothing to show here
    window.location.replace(pages.home());
    return;
  }
  if (START_ERROR) {
    fill($("#status"), `Could not start the match: ${START_ERROR} `, el("a", { href: pages.home() }, "Go home"));
    return;
  }
  try {
    S.table = await api("GET", `/api/tables/${encodeURIComponent(TABLE)}`);
  } catch (err) {
    const why = err.status === 404 ? "There is no such table: it may have expired." : `Could not load the table: ${err.message}`;
    fill($("#status"), `${why} `, el("a", { href: pages.home() }, "Go home"));
    return;
  }
  render();
  connect();
  setInterval(() => send({ type: "ping" }), 25000); // keeps proxies from closing an idle socket
  setInterval(tickClocks, 250);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && (!S.ws || S.ws.readyState === WebSocket.CLOSED)) connect();
  });
}

function wireControls() {
  S.sound = createSound($("#sound-button"));
  S.chat = createChat({
    table: TABLE, send, seat: () => S.seat, host: () => S.host, info: () => S.table, changed: render,
  });
  $("#copy-link").addEventListener("click", copyInvite);
  $("#join-form").addEventListener("submit", join);
  $("#fill-button").addEventListener("click", fillWithBots);
  $("#start-button").addEventListener("click", startMatch);
  $("#hint-button").addEventListener("click", askHint);
  $("#last-button").addEventListener("click", toggleLast);
  $("#scores-button").addEventListener("click", toggleScores);
  $("#auto-play").checked = autoPlayWanted();
  $("#auto-play").addEventListener("change", (e) => {
    localStorage.setItem(AUTO_PLAY_KEY, e.target.checked ? "1" : "0"); // remembered for every table
    render();
  });
  S.claims = createClaims({
    send, seat: () => S.seat, obs: () => S.obs, seats: () => S.table && S.table.seats.map((s) => seatInfo(s.seat)), ended,
    render, showMessage, announce,
    log: (text) => $("#log").append(el("li", {}, el("em", {}, text))),
  });
  $("#claim-button").addEventListener("click", () => S.claims.toggle());
  $("#leave-button").addEventListener("click", leaveTable);
  $("#end-button").addEventListener("click", endTable);
  $("#lobby-leave-button").addEventListener("click", leaveTable);
  $("#lobby-end-button").addEventListener("click", endTable);
  document.addEventListener("keydown", onKey);
  window.addEventListener("resize", () => {
    fitHand();
    if (S.obs) render(); // the bid area's reserved height depends on the width
  });
}

function handle(message) {
  switch (message.type) {
    case "welcome":
      S.retries = 0;
      S.seat = message.seat ?? null;
      S.host = Boolean(message.host);
      if (S.seat !== null) setSeat(TABLE, S.seat); // the replay says "you" for this seat
      S.chat.refresh();
      if (S.token && S.seat === null && !S.removed) {
        showMessage("This browser's seat at the table was not recognised: you are watching.", "info");
      }
      render();
      break;
    case "table":
      tellChanges(S.table, message);
      S.table = { ...message };
      delete S.table.type;
      for (const seat of S.table.seats) if (seat.connected) S.coveredSeats.delete(seat.seat);
      // A seat handed to a bot, or taken back, changes the clocks without a
      // new state: the table message carries them too.
      if (message.clocks) setClocks(message.clocks);
      S.chat.refresh();
      render();
      break;
    case "state":
      onState(message);
      break;
    case "hint":
      onHint(message);
      break;
    case "claim":
      S.claims.handle(message);
      break;
    case "chat":
    case "chat_history":
      S.chat.handle(message);
      break;
    case "error":
      S.pending = false;
      S.hintAsked = null;
      if (message.code === "removed") S.removed = true; // what the welcome that follows must not hide
      showMessage(message.error || "The server refused that.", "error", message.code === "removed" ? 0 : 6000);
      render();
      break;
    case "notice": // from the server's host to every table, e.g. before a restart
      showMessage(`From the server: ${message.text}`, "info", 0);
      break;
    default: // pong and anything newer than this page
      break;
  }
}

function onState(message) {
  const obs = message.obs;
  const prev = S.obs;
  const moved = message.version !== S.version;
  S.obs = obs;
  S.pending = false;
  if (message.version <= S.loggedVersion) {
    S.version = message.version; // a resend after reconnecting: nothing new to log
  } else {
    S.version = message.version;
    if (message.last) logAction(message.last, prev, obs);
    S.loggedVersion = message.version;
  }
  // The server's clocks, counted down here from when they arrived: the
  // server decides when time is up, the page only shows it.
  setClocks(message.clocks || []);
  S.changeWait = message.change_wait || null;
  S.changeWaitAt = Date.now();
  S.claims.fromState(message.claims);
  if (moved) {
    S.stateAt = Date.now();
    if (S.host) setTimeout(render, REPLACE_GRACE_MS + 50); // then offer "Let a bot play"
  }
  noteCover(message.last);
  trackTricks(prev, obs, message.last);
  trackResults(prev, obs);
  if (message.version > S.toldVersion) {
    S.toldVersion = message.version;
    tellState(prev, obs, message.last);
  }
  if (obs.phase === "over") S.scoresOpen = true;
  render();
}

/** Keep the last finished trick: the server's, or rebuilt when the hand just ended. */
function trackTricks(prev, obs, last) {
  if (obs.tricks.length) {
    const t = obs.tricks[obs.tricks.length - 1];
    const plays = t.plays; // [seat, card] in playing order, from the server
    S.lastTrick = { plays, winner: t.winner, hand: obs.hand_number };
    return;
  }
  // The last card of a hand: the new observation has no tricks any more; the
  // server sends the finished trick with the play that ended it.
  const ended = prev && prev.phase === "play" && last && last.kind === "play" && last.trick
    && obs.results.length > prev.results.length;
  if (!ended) return;
  S.lastTrick = { plays: last.trick.plays, winner: last.trick.winner, hand: prev.hand_number };
  S.finishedUntil = Date.now() + FINISHED_TRICK_MS;
  setTimeout(render, FINISHED_TRICK_MS + 50);
}

/** When a hand is scored, say so in the status line for a while. */
function trackResults(prev, obs) {
  if (!prev || obs.results.length <= prev.results.length) return;
  const r = obs.results[obs.results.length - 1];
  const names = obs.names;
  const made = names.filter((_, s) => r.bids[s] === r.tricks[s]);
  let text = `Hand ${r.number} over. `;
  if (S.seat !== null) {
    const s = S.seat;
    const ok = r.bids[s] === r.tricks[s];
    text += `You bid ${r.bids[s]} and took ${r.tricks[s]}: ${ok ? "made it" : "missed"} (${r.scores[s] >= 0 ? "+" : ""}${r.scores[s]}). `;
  }
  text += `Made their bids: ${made.length ? made.join(", ") : "nobody"}.`;
  S.notice = { text, until: Date.now() + NOTICE_MS };
  setTimeout(render, NOTICE_MS + 50);
}

/** A hint answers the choice it was asked for; if that choice is gone it is never shown. */
function onHint(message) {
  if (S.hintAsked === null) return;
  S.hint = { ...message, legalKey: S.hintAsked };
  S.hintAsked = null;
  render();
}

function render() {
  const focus = rememberFocus();
  const status = S.table ? S.table.status : null;
  const playing = S.obs && status !== "lobby";
  $("#lobby").hidden = status !== "lobby";
  $("#game").hidden = !playing;
  if (status === "lobby") renderLobby();
  renderInfo();
  S.trickCaption = null;
  if (playing) {
    renderPlayers();
    renderTrick(); // sets S.trickCaption, shown in the status line
    renderChoices();
    renderHand();
  }
  renderStatus();
  renderHint();
  S.claims.render();
  renderScores();
  renderStandings();
  renderRules();
  restoreFocus(focus);
  $("#hint-button").hidden = S.seat === null || (S.obs && S.obs.phase === "over") || ended(); // hints are for players
  const myTurn = legal().length > 0 && !S.pending;
  document.body.classList.toggle("my-turn", myTurn);
  const seated = S.seat !== null && S.table && ["lobby", "playing"].includes(S.table.status);
  $("#leave-button").hidden = !seated || S.host;
  $("#end-button").hidden = !seated || !S.host;
  // In the lobby too: a friend may leave before the start, the host may end a table that never starts.
  $("#lobby-leave-button").hidden = !seated || S.host;
  $("#lobby-end-button").hidden = !seated || !S.host;
  scheduleForcedCard();
  document.title = `${myTurn ? "● Your turn · " : ""}Oh Hell · ${tableTitle()}`;
}

/** Re-rendering replaces buttons: put the keyboard focus back on the same card or bid. */
function rememberFocus() {
  const a = document.activeElement;
  if (!a || a === document.body) return null;
  for (const attr of ["card", "bid", "suit"]) if (a.dataset && a.dataset[attr] !== undefined) return [attr, a.dataset[attr]];
  return null;
}

function restoreFocus(focus) {
  if (!focus || (document.activeElement && document.activeElement !== document.body)) return;
  const [attr, value] = focus;
  const target = document.querySelector(`#hand [data-${attr}="${CSS.escape(value)}"], #bids [data-${attr}="${CSS.escape(value)}"]`);
  if (target && !target.disabled) target.focus();
}

function renderInfo() {
  const o = S.obs;
  const info = $("#info");
  if (!o || !["bid", "trump", "play"].includes(o.phase)) {
    fill(info, S.table ? tableTitle() : "");
    return;
  }
  const number = o.extra_hand ? "Tie-break hand" : `Hand ${o.hand_number + 1} of ${o.hands_total}`;
  fill(info,
    el("span", {}, number), " · ",
    el("span", {}, `${o.hand_size} card${o.hand_size === 1 ? "" : "s"}`), " · ",
    el("span", {}, "Trump ", trumpWords(o)), " · ",
    el("span", {}, `${o.names[o.dealer]} deals`),
    o.devils_bridge ? el("span", { class: "badge devil" }, "Devil's Bridge") : null);
}

function trumpWords(o) {
  if (!o.trump_decided) return el("em", {}, "named after bidding");
  if (!o.trump) return el("strong", {}, "none");
  return el("span", {}, suitSpan(o.trump), o.turned ? [" (turned ", cardSpan(o.turned), ")"] : "");
}

/**
 * The status area has a fixed height (style.css) and two rows: the prompt,
 * and one line more, the hand's result while it is new, else what the trick
 * in the middle shows. Nothing below it moves when a hand ends.
 */
function renderStatus() {
  const box = $("#status");
  // The second row: your own move clock while it runs (where your eyes are),
  // else the hand's result while it is new, else what the trick shows.
  let extra = myClock();
  if (!extra && S.notice && Date.now() < S.notice.until) extra = el("span", { class: "notice" }, S.notice.text);
  else if (!extra && S.trickCaption) extra = el("span", { class: "trick-caption" }, S.trickCaption);
  fill(box, el("div", { class: "prompt" }, statusLine()), el("div", { class: "extra" }, extra));
}

function statusLine() {
  const t = S.table;
  const o = S.obs;
  if (o && S.seat !== null && t && t.status === "playing" && seatInfo(S.seat).away && S.table.seats[S.seat].connected) {
    return el("span", {}, "A bot is playing for you. ",
      el("button", { type: "button", id: "back-button", onclick: () => send({ type: "back" }) }, "I'm back"));
  }
  if (S.reconnectAt && $("#conn").dataset.state !== "open") {
    const seconds = Math.max(0, Math.round((S.reconnectAt - Date.now()) / 1000));
    return el("span", {}, `Connection lost. Reconnecting${seconds ? ` in ${seconds} s` : ""}… `,
      el("button", { type: "button", onclick: () => connect() }, "Reconnect now"));
  }
  if (!t) return "Loading…";
  if (t.status === "ended") {
    // A private table's record is its players' alone: no link for its watchers.
    const download = S.seat !== null || t.public
      ? [el("a", { href: LOCAL ? "#" : `/api/tables/${encodeURIComponent(TABLE)}/record`, download: "", onclick: downloadRecord },
        "Download the record so far"), " · "]
      : [];
    return el("span", {}, S.host ? "You ended this table. " : "The host ended this table. ", ...download,
      el("a", { href: pages.home() }, "Go home"));
  }
  if (t.status === "lobby") {
    if (S.seat === null) return "Pick a seat and a name to join.";
    if (!S.host) return "Waiting for the host to start.";
    return t.seats.some((s) => s.kind === "open")
      ? "You are the host: wait for players or fill the open seats with bots, then start."
      : "You are the host: every seat is taken, so start when you are ready.";
  }
  if (!o) return "Loading the game…";
  const others = t.spectators ? ` ${t.spectators} watching.` : "";
  const watching = S.seat === null ? `You are watching.${others} ` : "";
  if (S.pending) return "Sent…";
  const m = mode();
  if (m === "bid") {
    let text = `Your bid: 0 to ${o.hand_size}`;
    if (o.forbidden_bid !== null && o.forbidden_bid !== undefined) text += `, not ${o.forbidden_bid} (the hook)`;
    if (o.devils_bridge) text = `You see everyone's card but your own. ${text}`;
    if (o.bids_sealed) text += ". Bids stay sealed until everyone has bid";
    if (S.digits) text += `. Typed ${S.digits}: another digit, or Enter`;
    return el("strong", {}, `${text}.`);
  }
  if (m === "change") {
    const next = o.change_until === null || o.change_until === undefined ? "the next player" : o.names[o.change_until];
    // R-BID-CHANGE: the bid stands by itself; changing it is the option.
    if (S.changeWait) {
      return el("strong", {}, `You bid ${o.bids[S.seat]}. `, changeCountdown(),
        ". To change your bid, pick another number.");
    }
    return el("strong", {}, `You bid ${o.bids[S.seat]}. You may change it until ${next} bids.`);
  }
  if (m === "trump") return el("strong", {}, "You bid highest: name trump, or no trump.");
  if (S.keptAt === S.version && o.can_change) return `You keep your bid of ${o.bids[S.seat]}.`;
  if (S.claims.mineMade() && o.phase === "play") return "Your claim stands: your cards are played for you.";
  if (m === "play") {
    return el("strong", {}, o.devils_bridge ? "Your turn: play the card you cannot see." : "Your turn: play a card.");
  }
  if (o.phase === "over") return "The match is over.";
  if (o.phase === "draw") return `${watching}Drawing for the first dealer…`;
  if (o.phase === "deal") return `${watching}Dealing…`;
  const waiting = o.actors.filter((s) => s !== S.seat && isTurn(o, s)).map((s) => o.names[s]);
  if (!waiting.length) return watching || "…";
  if (S.changeWait && S.changeWait.seat !== S.seat) {
    return el("span", {}, watching, changeCountdown(), ` (${o.names[S.changeWait.seat]} may still change their bid)…`);
  }
  if (o.phase === "bid" && waiting.length > 1) return `${watching}Waiting for bids from ${waiting.join(", ")}…`;
  return `${watching}${waiting.join(", ")} to ${o.phase === "bid" ? "bid" : o.phase === "trump" ? "name trump" : "play"}…`;
}

function renderLobby() {
  const t = S.table;
  $("#invite-link").value = window.location.origin + window.location.pathname;
  fill($("#lobby-seats"), t.seats.map((s) => el("li", { dataset: { seat: s.seat }, class: s.kind },
    el("span", { class: "seat-number" }, `Seat ${s.seat + 1}`),
    el("span", { class: "seat-name" }, s.kind === "open" ? "open seat" : seatName(s)),
    s.kind === "bot" ? el("span", { class: "badge" }, `bot: ${s.level}`) : null,
    s.kind === "invited" ? el("span", { class: "badge invited", title: "kept for them until the match starts" },
      "not back yet") : null,
    s.kind === "human" ? el("span", { class: `dot ${s.connected ? "on" : "off"}`, title: s.connected ? "here" : "not here" }) : null,
    s.seat === t.host_seat ? el("span", { class: "badge" }, "host") : null,
    s.seat === S.seat ? el("span", { class: "badge you" }, "you") : null)));
  const open = t.seats.filter((s) => s.kind === "open");
  // A visitor without a seat picks one of the open seats.
  const form = $("#join-form");
  form.hidden = S.seat !== null || !open.length;
  if (!form.hidden && !$("#join-name").value && document.activeElement !== $("#join-name")) {
    $("#join-name").value = storedName();
  }
  const select = $("#join-seat");
  const chosen = select.value;
  fill(select, open.map((s) => el("option", { value: s.seat }, `Seat ${s.seat + 1}`)));
  if (open.some((s) => String(s.seat) === chosen)) select.value = chosen;
  // The host fills and starts.
  $("#host-controls").hidden = !S.host;
  if (S.host && !$("#fill-level").options.length) loadLevels();
  $("#fill-button").disabled = !open.length;
  $("#start-button").disabled = open.length > 0;
  let note = "";
  const invited = t.seats.some((s) => s.kind === "invited");
  if (S.host) note = open.length ? "Start is possible once every seat is taken: wait for players or fill with bots." : "Every seat is taken: start when you are ready.";
  else if (S.seat === null && !open.length) note = "Every seat is taken: you can watch once the match starts.";
  else if (S.seat !== null) note = "You have a seat. The host starts the match.";
  if (S.host && invited) note += " Seats of players not back when you start are played by bots.";
  const listed = t.public ? "This table is listed on the home page: anyone may join."
    : "Only people with the link can join this table.";
  fill($("#lobby-note"), note ? `${note} ${listed}` : listed);
}

async function loadLevels() {
  try {
    const options = await api("GET", "/api/options");
    // A level made for one rule set alone is offered only at a table of those rules (the server checks too).
    const only = options.level_rules || {};
    const fits = (l) => {
      if (!only[l]) return true;
      const preset = { ...(options.presets[only[l].preset] || {}), players: String(only[l].players) };
      const rules = S.table.rules || {};
      return Object.keys({ ...preset, ...rules }).every((k) => preset[k] === rules[k]);
    };
    fill($("#fill-level"), options.levels.filter(fits).map((l) => el("option", { value: l }, l)));
    if (options.levels.filter(fits).includes("intermediate")) $("#fill-level").value = "intermediate";
  } catch (err) {
    showMessage(err.message);
  }
}

main();
