// The replay page, /replay?table={id} or a .ohr file chosen by the user.
//
// The server turns a record into frames (POST /api/replay: {"seats", "results", "frames"});
// each hand's result comes once in "results", a frame counts how many are scored
// and holds only the fields that changed since the frame before;
// a frame is {version, label, hand_number, obs}: the table after one action,
// every hand face up. This page only steps through them.
//
// Selectors: #record-file, #load-status, #viewer, #frame-label, #slider,
// #prev-hand #prev-trick #prev-action #play-pause #next-action #next-trick #next-hand,
// #status, #players .seat[data-seat], #trick .played[data-seat] .card[data-card],
// #hands .hand-row[data-seat] .card[data-card], #scores.
// Keys: Left/Right an action, Up/Down a trick, Page Up/Page Down a hand,
// Home/End the start and the end, Space plays or pauses; [ and ] the
// previous and next marked decision once the review is shown (review.js).
//
// /replay?table={id}&review=1 (the link at the end of a match) asks for the
// match's review at once.

import {
  $, api, cardElement, cardSpan, cardWords, clearMessage, el, fill, getSeat, getToken, groupHand, playerColour,
  scoreChart, scoreSheet, seatPosition, showMessage, suitSpan, typingInField, LOCAL,
} from "./common.js";
import { reviewKey, setupReview, showDecisionAt } from "./review.js";

const PLAY_MS = 700; // one action per this many ms when playing

const R = {
  frames: [],
  names: [],
  at: 0,
  trickEnds: [], // frame indexes where a trick is finished
  handStarts: [], // frame indexes where a new hand number begins
  timer: null,
  me: null, // the seat this browser held at the table replayed: "you" in the words
};

async function main() {
  $("#record-file").addEventListener("change", loadFile);
  $("#slider").addEventListener("input", (e) => go(Number(e.target.value)));
  $("#prev-action").addEventListener("click", () => go(R.at - 1));
  $("#next-action").addEventListener("click", () => go(R.at + 1));
  $("#prev-trick").addEventListener("click", () => go(before(R.trickEnds)));
  $("#next-trick").addEventListener("click", () => go(after(R.trickEnds)));
  $("#prev-hand").addEventListener("click", () => go(before(R.handStarts)));
  $("#next-hand").addEventListener("click", () => go(after(R.handStarts)));
  $("#play-pause").addEventListener("click", togglePlay);
  document.addEventListener("keydown", onKey);
  const params = new URLSearchParams(window.location.search);
  const table = params.get("table");
  if (table) {
    R.me = getSeat(table);
    setLoadStatus("Loading the match's record…");
    try {
      // A private table's record is its players' alone: the seat's token
      // goes in a header, never in the address.
      const token = getToken(table);
      const headers = token ? { Authorization: `Bearer ${token}` } : {};
      const text = await api("GET", `/api/tables/${encodeURIComponent(table)}/record`, undefined, headers);
      await loadText(text, "The match");
      $("#load").hidden = true; // the match came with the link: no file to choose
      if (!LOCAL) setupReview({ source: { table, token }, names: R.names, me: R.me, go, ask: params.get("review") === "1" });
    } catch (err) {
      setLoadStatus("");
      showMessage(`Could not load the match's record: ${err.message}`, "error", 0);
    }
  }
}

function setLoadStatus(text) {
  fill($("#load-status"), text);
}

async function loadFile(event) {
  const file = event.target.files[0];
  if (!file) return;
  setLoadStatus(`Reading ${file.name}…`);
  try {
    R.me = null; // a file from elsewhere: nobody in it is "you"
    const text = await file.text();
    await loadText(text, file.name);
    if (!LOCAL) setupReview({ source: { text }, names: R.names, me: null, go }); // reviews are the server's
  } catch (err) {
    setLoadStatus("");
    showMessage(err.message, "error", 0);
  }
}

/** POST the record's text to the server and show the frames it answers with. */
async function loadText(text, what) {
  const answer = await api("POST", "/api/replay", text);
  if (!answer.frames || !answer.frames.length) throw new Error("The record holds no action to replay.");
  // Each hand's result comes once; a frame says how many are scored by then
  // and shares the one list (so the answer stays in proportion to the record).
  const results = answer.results || [];
  R.names = answer.seats;
  // A frame holds only what changed since the one before: merge them in order.
  let obs = {};
  R.frames = answer.frames.map((f) => {
    obs = { ...obs, ...f.obs };
    return { ...f, obs: { ...obs, names: R.names, results: results.slice(0, obs.results) } };
  });
  indexFrames();
  clearMessage();
  const hands = R.frames[R.frames.length - 1].obs.results.length;
  const actions = R.frames.filter((f) => !f.label.startsWith("claim ")).length;
  setLoadStatus(`${what}: ${actions} actions, ${hands} hand${hands === 1 ? "" : "s"} scored.`);
  $("#viewer").hidden = false;
  $("#slider").max = String(R.frames.length - 1);
  go(0);
}

/** Find where tricks end and hands begin, for the trick and hand buttons. */
function indexFrames() {
  R.trickEnds = [];
  R.handStarts = [];
  R.frames.forEach((f, i) => {
    const prev = i ? R.frames[i - 1].obs : null;
    const o = f.obs;
    if (prev && (o.tricks.length > prev.tricks.length || o.results.length > prev.results.length)) R.trickEnds.push(i);
    // A hand starts at its deal (hand_number already changes on the previous hand's last card).
    if (!prev || f.label.startsWith("deal ")) R.handStarts.push(i);
  });
}

/** The last mark before the current frame (0 if none). */
const before = (marks) => [...marks].reverse().find((i) => i < R.at) ?? 0;
/** The first mark after the current frame (the end if none). */
const after = (marks) => marks.find((i) => i > R.at) ?? R.frames.length - 1;

function go(i) {
  if (!R.frames.length) return;
  R.at = Math.max(0, Math.min(R.frames.length - 1, i));
  if (R.at === R.frames.length - 1) stopPlay();
  render();
}

function togglePlay() {
  if (R.timer) {
    stopPlay();
    return;
  }
  if (R.at >= R.frames.length - 1) R.at = 0;
  R.timer = setInterval(() => go(R.at + 1), PLAY_MS);
  $("#play-pause").textContent = "Pause";
  $("#play-pause").setAttribute("aria-pressed", "true");
}

function stopPlay() {
  clearInterval(R.timer);
  R.timer = null;
  $("#play-pause").textContent = "Play";
  $("#play-pause").setAttribute("aria-pressed", "false");
}

function onKey(event) {
  if (!R.frames.length || event.ctrlKey || event.metaKey || event.altKey || typingInField(event)) return;
  const moves = {
    ArrowLeft: () => R.at - 1,
    ArrowRight: () => R.at + 1,
    ArrowUp: () => before(R.trickEnds),
    ArrowDown: () => after(R.trickEnds),
    PageUp: () => before(R.handStarts),
    PageDown: () => after(R.handStarts),
    Home: () => 0,
    End: () => R.frames.length - 1,
  };
  if (event.key === " " && !(event.target instanceof HTMLButtonElement)) {
    togglePlay();
  } else if (reviewKey(event.key)) {
    stopPlay();
  } else if (moves[event.key]) {
    if (event.target === $("#slider")) return; // the slider moves itself with arrows
    stopPlay();
    go(moves[event.key]());
  } else {
    return;
  }
  event.preventDefault();
}

// ------------------------------------------------------------------ drawing one frame

function render() {
  const frame = R.frames[R.at];
  const o = frame.obs;
  $("#slider").value = String(R.at);
  fill($("#frame-label"), `${R.at + 1} / ${R.frames.length} · `, describe(frame, R.at));
  renderInfo(o);
  renderPlayers(o);
  const caption = renderTrick(o);
  fill($("#status"), [o.balance ? balanceWords(o) : null, caption, o.phase === "over" ? "The match is over." : null]
    .filter(Boolean).map((line) => el("div", {}, line)));
  renderHands(o);
  showDecisionAt(R.at);
  fill($("#score-chart"), o.results.length ? scoreChart(o.results, o.names) : null);
  fill($("#score-sheet"), scoreSheet(o.results, o.names));
  for (const [id, off] of [["prev-action", R.at === 0], ["prev-trick", R.at === 0], ["prev-hand", R.at === 0],
    ["next-action", R.at === R.frames.length - 1], ["next-trick", R.at === R.frames.length - 1],
    ["next-hand", R.at === R.frames.length - 1]]) $(`#${id}`).disabled = off;
}

function renderInfo(o) {
  if (!["bid", "trump", "play"].includes(o.phase)) {
    fill($("#info"), "Replay");
    return;
  }
  const number = o.extra_hand ? "Tie-break hand" : `Hand ${o.hand_number + 1} of ${o.hands_total}`;
  let trump;
  if (!o.trump_decided) trump = el("em", {}, "named after bidding");
  else if (!o.trump) trump = "none";
  else trump = el("span", {}, suitSpan(o.trump), o.turned ? [" (turned ", cardSpan(o.turned), ")"] : "");
  fill($("#info"), `Replay · ${number} · ${o.hand_size} card${o.hand_size === 1 ? "" : "s"} · Trump `, trump,
    ` · ${o.names[o.dealer]} deals`);
}

function balanceWords(o) {
  const total = o.bids.reduce((a, b) => a + (b || 0), 0);
  return `Bids total ${total} for ${o.hand_size} trick${o.hand_size === 1 ? "" : "s"}: ${o.balance}.`;
}

/** The frame's action in words, from its record line ("play 1 5H"). */
function describe(frame, i) {
  const words = frame.label.trim().split(/\s+/);
  const names = frame.obs.names;
  // The seat this browser held is "you", with the verb to match ("You play", not "You plays").
  const mine = (s) => R.me !== null && Number(s) === R.me;
  const who = (s) => (mine(s) ? "You" : names[Number(s)] ?? `seat ${s}`);
  const verb = (s, yours, theirs) => `${who(s)} ${mine(s) ? yours : theirs}`;
  switch (words[0]) {
    case "draw":
      return ["Draw for dealer: ", ...words.slice(1).flatMap((c, s) => (c === "-" ? [] : [`${who(s)} `, cardSpan(c), " "]))];
    case "deal": {
      const o = frame.obs;
      return `Hand ${o.hand_number + 1}: ${verb(o.dealer, "deal", "deals")} ${o.hand_size} card${o.hand_size === 1 ? "" : "s"}.`;
    }
    case "bid":
      return `${verb(words[1], "bid", "bids")} ${words[2]}.`;
    case "change":
      return `${verb(words[1], "change", "changes")} the bid to ${words[2]}.`;
    case "trump":
      return [`${verb(words[1], "name", "names")} `, words[2] === "NT" ? "no trump" : suitSpan(words[2]), "."];
    case "play": {
      const out = [`${verb(words[1], "play", "plays")} `, words[2] === "?" ? "a card unseen" : cardSpan(words[2]), "."];
      const t = finishedTrick(i);
      if (t && R.trickEnds.includes(i)) out.push(` ${verb(t.winner, "win", "wins")} the trick.`);
      return out;
    }
    case "claim": {
      // "claim 2 0 4": the claim made there, then the rest of the hand played so it comes true.
      const [k, n] = [Number(words[2]), Number(words[3])];
      const tricks = `${n} trick${n === 1 ? "" : "s"}`;
      const what = k === n ? `all ${tricks} left` : k === 0 ? `none of the ${tricks} left` : `${k} of the ${tricks} left`;
      return `${verb(words[1], "claim", "claims")} ${what}; the rest of the hand is played so it comes true.`;
    }
    default:
      return frame.label;
  }
}

/**
 * The trick just finished at frame i, if the table is empty: the frame's own
 * last trick, or (the last trick of a hand, gone from the new hand's frame)
 * rebuilt from the frame before: its trick plus the one card the player to
 * act still held.
 */
function finishedTrick(i) {
  const o = R.frames[i].obs;
  if (o.trick.length) return null;
  if (o.tricks.length) {
    const t = o.tricks[o.tricks.length - 1];
    return { plays: t.plays, winner: t.winner }; // [seat, card] in playing order, from the server
  }
  if (!i || !R.trickEnds.includes(i)) return null;
  const prev = R.frames[i - 1].obs;
  const seat = prev.actors[0];
  if (seat === undefined || !prev.hands[seat] || prev.hands[seat].length !== 1) return null;
  const result = o.results[o.results.length - 1];
  const winner = result ? result.tricks.findIndex((t, s) => t > prev.taken[s]) : -1;
  return { plays: [...prev.trick, [seat, prev.hands[seat][0]]], winner };
}

function renderPlayers(o) {
  const panels = o.names.map((name, s) => {
    const pos = seatPosition(s, 0, o.players, { x: 38, y: 40 });
    const classes = ["seat"];
    if (o.actors.includes(s) && ["bid", "trump", "play"].includes(o.phase)) classes.push("turn");
    if (s === o.dealer) classes.push("dealer");
    const inHand = ["bid", "trump", "play"].includes(o.phase);
    return el("div", {
      class: classes.join(" "), dataset: { seat: s },
      style: `left:clamp(var(--seat-half), ${pos.x}%, calc(100% - var(--seat-half)));top:${pos.y}%;--colour:${playerColour(s)}`,
    },
    el("div", { class: "who" }, el("span", { class: "name" }, name),
      s === R.me ? el("span", { class: "badge you" }, "you") : null,
      s === o.dealer ? el("span", { class: "badge dealer-chip", title: `${name} deals` }, "D") : null),
    el("div", { class: "nums" },
      el("span", { class: "bid" }, "bid ", el("b", {}, o.bids[s] ?? "–")),
      el("span", { class: "took" }, "took ", el("b", {}, inHand ? o.taken[s] : "–")),
      el("span", { class: "score" }, "pts ", el("b", {}, o.totals[s]))));
  });
  const trump = ["bid", "trump", "play"].includes(o.phase) && o.turned
    ? el("div", { id: "trump-card" }, el("span", { class: "label" }, "Trump"), cardElement(o.turned, { small: true }))
    : null;
  fill($("#players"), panels, trump);
}

/** Draw the cards on the table; returns a caption for the status line (or null). */
function renderTrick(o) {
  const box = $("#trick");
  let plays = o.trick;
  let winner = null;
  let caption = null;
  let kind = plays.length ? "current" : "empty";
  const done = finishedTrick(R.at);
  if (done) {
    ({ plays, winner } = done);
    kind = "finished";
    caption = winner === R.me ? "You won the trick." : `${o.names[winner] ?? "?"} won the trick.`;
  } else if (o.phase === "draw" && o.draws.length) {
    plays = o.draws[o.draws.length - 1].map((c, s) => [s, c]).filter(([, c]) => c);
    kind = "draw";
  }
  box.dataset.kind = kind;
  fill(box, plays.map(([seat, card], i) => {
    const pos = seatPosition(seat, 0, o.players, { x: 17, y: 20 });
    return el("div", {
      class: `played${seat === winner ? " winner" : ""}`, dataset: { seat },
      style: `left:${pos.x}%;top:${pos.y}%;z-index:${i + 1}`,
    }, cardElement(card, { label: card ? `${o.names[seat]}: ${cardWords(card)}` : `${o.names[seat]}: a hidden card` }),
    el("span", { class: "by" }, o.names[seat]));
  }));
  return caption;
}

/** Every player's hand face up, one row each: name, bid, tricks, score, then the cards. */
function renderHands(o) {
  const inHand = ["bid", "trump", "play"].includes(o.phase);
  fill($("#hands"), o.names.map((name, s) => {
    const cards = o.hands[s] || [];
    const shown = groupHand(cards, o.trump).flatMap(([, codes]) => codes.map((c) => cardElement(c, { small: true })));
    const turn = inHand && o.actors.includes(s);
    return el("div", { class: `hand-row${turn ? " turn" : ""}`, dataset: { seat: s } },
      el("div", { class: "hand-head" },
        el("span", { class: "hand-name" }, el("span", { class: "swatch", style: `background:${playerColour(s)}` }), name),
        el("span", { class: "hand-nums" }, `bid ${o.bids[s] ?? "–"} · took ${inHand ? o.taken[s] : "–"} · ${o.totals[s]} pts`)),
      el("div", { class: "hand-cards", "aria-label": `${name}'s hand` },
        shown.length ? shown : el("span", { class: "muted" }, "no cards")));
  }));
}

main();
