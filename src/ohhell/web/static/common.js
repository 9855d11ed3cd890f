// Shared helpers for the three pages: DOM building, the HTTP API, the token
// store, cards drawn with CSS, the score sheet and its chart, standings.
//
// Everything here is plain ES2020 and touches no global state except
// localStorage (only the seat tokens, under "ohhell-token-{table}").

// --- DOM ---

/** Build an element: el("button", {class: "x", onclick: f, "aria-label": "y"}, "text", child). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      node.className = value;
    } else if (key === "dataset") {
      Object.assign(node.dataset, value);
    } else if (key in node && typeof value !== "string") {
      node[key] = value; // properties such as disabled, checked, value
    } else {
      node.setAttribute(key, value === true ? "" : String(value));
    }
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Replace every child of `node` (text is always inserted as text, never as HTML). */
export function fill(node, ...children) {
  node.replaceChildren();
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export const $ = (selector, root = document) => root.querySelector(selector);

// --- Messages: a non-blocking area (#error) that fades on its own ---

let errorTimer = null;

/** Show `text` in #error for a while; kind "error" (red) or "info". */
export function showMessage(text, kind = "error", ms = 6000) {
  const box = document.getElementById("error");
  if (!box) return;
  fill(box, el("span", {}, text), el("button", {
    type: "button", class: "close", "aria-label": "Dismiss message", onclick: clearMessage,
  }, "×"));
  box.dataset.kind = kind;
  box.hidden = false;
  clearTimeout(errorTimer);
  if (ms) errorTimer = setTimeout(clearMessage, ms);
}

export function clearMessage() {
  const box = document.getElementById("error");
  if (box) {
    box.hidden = true;
    box.replaceChildren();
  }
}

// --- Where the page is: a server's, or the offline site (docs/site.md) ---

/**
 * True on the offline site: its pages are marked <html data-transport="local">
 * and talk to a worker (local.js) instead of a server. The page is the same;
 * only where its messages go, and its addresses, differ.
 */
export const LOCAL = document.documentElement.dataset.transport === "local";

/** Addresses of the pages, for a server or for the site's plain files. */
export const pages = {
  home: () => (LOCAL ? "index.html" : "/"),
  table: (id) => (LOCAL ? `table.html?t=${encodeURIComponent(id)}` : `/t/${encodeURIComponent(id)}`),
  score: (id) => (LOCAL ? `score.html?s=${encodeURIComponent(id)}` : `/score/${encodeURIComponent(id)}`),
  replay: (table, review = false) => `${LOCAL ? "replay.html" : "/replay"}?table=${encodeURIComponent(table)}${review ? "&review=1" : ""}`,
};

let localTransport = null; // local.js, loaded only on the site

/** The offline site's transport (local.js), loaded once when first needed. */
export function local() {
  if (localTransport === null) localTransport = import("./local.js");
  return localTransport;
}

// --- HTTP API ---

/**
 * Call the JSON API; resolve with the answer or throw an Error with the
 * server's text. `headers`: more headers (a seat's token on a GET). On the
 * offline site the worker answers, with the same answers and errors.
 */
export async function api(method, path, body, headers = {}) {
  if (LOCAL) return (await local()).localApi(method, path, body);
  const init = { method, headers: { ...headers } };
  if (body !== undefined) {
    if (typeof body === "string") {
      init.headers["Content-Type"] = "text/plain; charset=utf-8";
      init.body = body;
    } else {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new Error(`The server could not be reached (${err.message}).`);
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const why = data && data.error ? data.error : `${response.status} ${response.statusText}`;
    const error = new Error(why);
    error.status = response.status;
    error.field = data && data.field ? data.field : null; // the form's field the refusal is about
    throw error;
  }
  return data === null ? text : data;
}

// --- Seat tokens: the only secret the page keeps ---

const TOKEN_PREFIX = "ohhell-token-";

export function getToken(table) {
  try {
    return localStorage.getItem(TOKEN_PREFIX + table);
  } catch {
    return null; // storage disabled: play as a spectator
  }
}

export function setToken(table, token) {
  try {
    localStorage.setItem(TOKEN_PREFIX + table, token);
  } catch {
    /* storage disabled: the seat is only held by this page */
  }
}

const NAME_KEY = "ohhell-name"; // the name typed last, offered in the next form (and one-click joins)

/** The name this browser's player typed last ("" if none). */
export function storedName() {
  try {
    return localStorage.getItem(NAME_KEY) || "";
  } catch {
    return "";
  }
}

export function keepName(name) {
  try {
    if (name && name.trim()) localStorage.setItem(NAME_KEY, name.trim());
  } catch {
    /* no storage */
  }
}

const SEAT_PREFIX = "ohhell-seat-";

/** The seat this browser holds at `table` (a number), or null: the replay calls it "you". */
export function getSeat(table) {
  try {
    const value = localStorage.getItem(SEAT_PREFIX + table);
    return value === null ? null : Number(value);
  } catch {
    return null;
  }
}

export function setSeat(table, seat) {
  try {
    localStorage.setItem(SEAT_PREFIX + table, String(seat));
  } catch {
    /* storage disabled */
  }
}

/** Every table this browser holds a seat at (newest storage order is not kept). */
export function knownTables() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key && key.startsWith(TOKEN_PREFIX)) out.push(key.slice(TOKEN_PREFIX.length));
    }
  } catch {
    /* no storage */
  }
  return out.sort();
}

/** Store the seat token of a newly made or joined table and go to its page. */
export function goToTable(answer) {
  setToken(answer.table, answer.token);
  if (typeof answer.seat === "number") setSeat(answer.table, answer.seat);
  window.location.assign(pages.table(answer.table));
}

// --- Cards ---

export const SUITS = ["C", "D", "H", "S"];
export const SUIT_SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
export const SUIT_NAME = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_WORD = { A: "Ace", K: "King", Q: "Queen", J: "Jack" };
const RANK_VALUE = { J: 11, Q: 12, K: 13, A: 14 };
/** Hands are shown spades, hearts, clubs, diamonds: black and red alternate. */
const BASE_ORDER = ["S", "H", "C", "D"];

export const isRed = (suit) => suit === "H" || suit === "D";

/** "10H" -> {rank: "10", suit: "H", value: 10}. */
export function parseCard(code) {
  const rank = code.slice(0, -1).toUpperCase().replace(/^T$/, "10");
  const suit = code.slice(-1).toUpperCase();
  return { rank, suit, value: RANK_VALUE[rank] || Number(rank) };
}

/** "QS" -> "Queen of spades" (the cards' aria-label). */
export function cardWords(code) {
  const { rank, suit } = parseCard(code);
  return `${RANK_WORD[rank] || rank} of ${SUIT_NAME[suit]}`;
}

/** A suit (letter, "NT" or null) in words: "♠ spades", "no trump". */
export function suitWords(suit) {
  if (!suit || suit === "NT") return "no trump";
  return `${SUIT_SYMBOL[suit]} ${SUIT_NAME[suit]}`;
}

/** A span with the suit symbol in its colour (for headers and tables). */
export function suitSpan(suit) {
  if (!suit || suit === "NT") return el("span", { class: "nt" }, "NT");
  return el("span", { class: isRed(suit) ? "red" : "black", title: SUIT_NAME[suit] }, SUIT_SYMBOL[suit]);
}

/** A small inline card ("Q♠" in its colour) for text. */
export function cardSpan(code) {
  const { rank, suit } = parseCard(code);
  return el("span", { class: `mini ${isRed(suit) ? "red" : "black"}`, title: cardWords(code) },
    rank + SUIT_SYMBOL[suit]);
}

/**
 * Order of the suits in a hand: trump first, then alternate colours as far
 * as the suits present allow (a hand of hearts and diamonds cannot alternate).
 */
export function suitOrder(cards, trump) {
  const present = BASE_ORDER.filter((s) => cards.some((c) => parseCard(c).suit === s));
  const order = [];
  if (trump && present.includes(trump)) order.push(trump);
  while (order.length < present.length) {
    const left = present.filter((s) => !order.includes(s));
    const last = order[order.length - 1];
    const other = last ? left.find((s) => isRed(s) !== isRed(last)) : undefined;
    order.push(other || left[0]);
  }
  return order;
}

/** The cards grouped by suit in display order, high cards first: [[suit, [codes]]]. */
export function groupHand(cards, trump) {
  return suitOrder(cards, trump).map((suit) => [
    suit,
    cards.filter((c) => parseCard(c).suit === suit).sort((a, b) => parseCard(b).value - parseCard(a).value),
  ]);
}

/** The face of a card, drawn with CSS: corner rank and suit, a big suit in the middle. */
function cardFace(code) {
  const { rank, suit } = parseCard(code);
  return [
    el("span", { class: "corner", "aria-hidden": "true" }, el("span", { class: "rank" }, rank),
      el("span", { class: "pip" }, SUIT_SYMBOL[suit])),
    el("span", { class: "centre", "aria-hidden": "true" }, SUIT_SYMBOL[suit]),
  ];
}

/**
 * A card. `code` null draws the back. As a button (the hand) it carries
 * data-card and an aria-label; otherwise a <div role="img">.
 */
export function cardElement(code, { button = false, small = false, label } = {}) {
  const classes = ["card"];
  if (small) classes.push("small");
  if (code) classes.push(isRed(parseCard(code).suit) ? "red" : "black");
  else classes.push("back");
  const words = label || (code ? cardWords(code) : "a face-down card");
  const attrs = button
    ? { type: "button", class: classes.join(" "), "aria-label": words, dataset: { card: code || "hidden" } }
    : { class: classes.join(" "), role: "img", "aria-label": words, dataset: { card: code || "hidden" } };
  return el(button ? "button" : "div", attrs, code ? cardFace(code) : []);
}

// --- Seats around an oval ---

/**
 * Where seat `seat` sits in percent of the table area when `me` is at the
 * bottom. Play goes clockwise, so the next seat is on my left.
 */
export function seatPosition(seat, me, players, radius = { x: 40, y: 38 }) {
  const rel = (seat - me + players) % players;
  const angle = Math.PI / 2 + (rel * 2 * Math.PI) / players;
  return { x: 50 + radius.x * Math.cos(angle), y: 50 + radius.y * Math.sin(angle), rel };
}

// --- Score sheet ---

const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b"];
export const playerColour = (seat) => PALETTE[seat % PALETTE.length];

/** Running totals after each hand: totals[h][seat]. */
export function runningTotals(results, players) {
  const running = new Array(players).fill(0);
  return results.map((r) => {
    r.scores.forEach((s, i) => { running[i] += s; });
    return running.slice();
  });
}

/**
 * The score sheet: one row per hand, and for each player the bid, the tricks
 * taken, the hand's points (a blob ● marks a missed bid) and the running total.
 */
export function scoreSheet(results, names) {
  const players = names.length;
  if (!results.length) return el("p", { class: "muted" }, "No hand has been finished yet.");
  const totals = runningTotals(results, players);
  const head = el("tr", {}, el("th", { scope: "col" }, "Hand"),
    names.map((n, i) => el("th", { scope: "col", title: n, style: `border-top: 3px solid ${playerColour(i)}` }, n)));
  const rows = results.map((r, h) => el("tr", { class: r.extra ? "extra" : "" },
    el("th", { scope: "row", title: r.extra ? "tie-break hand" : "" },
      `${r.number}`, el("small", { title: `${r.size} cards, trump ${suitWords(r.trump)}` }, `${r.size} `, suitSpan(r.trump))),
    names.map((_, s) => {
      const made = r.bids[s] === r.tricks[s];
      return el("td", { class: made ? "made" : "missed",
        title: `bid ${r.bids[s]}, took ${r.tricks[s]}: ${made ? "made" : "missed (blob)"}` },
      el("span", { class: "bt" }, `${r.bids[s]}/${r.tricks[s]}`),
      el("span", { class: "pts" }, made ? "" : el("span", { class: "blob", "aria-label": "missed" }, "●"),
        signed(r.scores[s])),
      el("span", { class: "total" }, totals[h][s]));
    })));
  return el("div", { class: "sheet-wrap" },
    el("table", { class: "sheet" },
      el("caption", {}, "Each cell: bid/took, points (● a missed bid), running total"),
      el("thead", {}, head), el("tbody", {}, rows)));
}

const signed = (n) => (n > 0 ? `+${n}` : `${n}`);

/** A small SVG line chart of every player's total by hand. */
export function scoreChart(results, names) {
  const NS = "http://www.w3.org/2000/svg";
  const svg = (tag, attrs, ...kids) => {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    kids.forEach((k) => node.append(k));
    return node;
  };
  const players = names.length;
  const series = [new Array(players).fill(0), ...runningTotals(results, players)];
  const values = series.flat();
  const lo = Math.min(0, ...values);
  const hi = Math.max(10, ...values);
  const W = 320;
  const H = 150;
  const pad = { l: 34, r: 8, t: 8, b: 18 };
  const x = (i) => pad.l + (i * (W - pad.l - pad.r)) / Math.max(1, series.length - 1);
  const y = (v) => pad.t + ((hi - v) * (H - pad.t - pad.b)) / (hi - lo || 1);
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img",
    "aria-label": "Running totals by hand" });
  chart.append(svg("title", {}, "Running totals by hand"));
  // Axes: zero line, the extremes, and the hand numbers at both ends.
  chart.append(svg("line", { x1: pad.l, x2: W - pad.r, y1: y(0), y2: y(0), class: "axis" }));
  for (const v of new Set([lo, 0, hi])) {
    chart.append(svg("text", { x: pad.l - 4, y: y(v) + 3, "text-anchor": "end", class: "tick" }, String(v)));
  }
  chart.append(svg("text", { x: x(series.length - 1), y: H - 4, "text-anchor": "end", class: "tick" },
    `hand ${series.length - 1}`));
  for (let s = 0; s < players; s++) {
    const points = series.map((row, i) => `${x(i).toFixed(1)},${y(row[s]).toFixed(1)}`).join(" ");
    const line = svg("polyline", { points, fill: "none", stroke: playerColour(s), "stroke-width": 2 });
    line.append(svg("title", {}, `${names[s]}: ${series[series.length - 1][s]}`));
    chart.append(line);
  }
  const legend = el("ul", { class: "legend" }, names.map((n, s) =>
    el("li", {}, el("span", { class: "swatch", style: `background:${playerColour(s)}` }), n)));
  return el("figure", { class: "chart-box" }, chart, legend);
}

/** Final standings: place, side, points, exact bids. */
export function standingsTable(standings, names) {
  const who = (seat) => (Array.isArray(seat) ? seat.map((s) => names[s]).join(" and ") : names[seat]);
  return el("table", { class: "standings" },
    el("thead", {}, el("tr", {}, el("th", {}, "Place"), el("th", {}, "Player"), el("th", {}, "Points"),
      el("th", {}, "Exact bids"))),
    el("tbody", {}, standings.map((row) => el("tr", { class: row.place === 1 ? "winner" : "" },
      el("td", {}, row.place === 1 ? "1 ★" : String(row.place)),
      el("td", {}, who(row.seat ?? row.seats)), el("td", {}, row.total), el("td", {}, row.exact)))));
}

/** Is the keyboard event aimed at a text field (so page shortcuts must not fire)? */
export function typingInField(event) {
  const t = event.target;
  return t instanceof HTMLElement && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName))
    && !(t instanceof HTMLInputElement && ["range", "button", "checkbox", "radio"].includes(t.type));
}

// --- Rule options in the setup forms (new table, new score sheet) ---

// Seats are numbered from 1 in the forms ("Seat 1"), from 0 in the rules'
// options: these options are shown one way and sent the other.
const TEAMS = /^\d+(\+\d+)*(,\d+(\+\d+)*)*$/;
const shiftSeats = (text, by) => text.replace(/\d+/g, (d) => String(Number(d) + by));

/** An option's text as the form shows it (seats from 1). */
function toForm(name, value) {
  if (name === "teams" && TEAMS.test(value)) return shiftSeats(value, 1);
  return value;
}

/** The text of an option's control, as the rules read it (seats from 0). */
export function optionValue(option, control) {
  const value = control.value.trim();
  if (option.name === "teams" && TEAMS.test(value)) return shiftSeats(value, -1);
  return value;
}

/**
 * One rule option of a setup form: its name in plain words, a list where the
 * option has choices (each with what it means), a text field otherwise, its
 * help line, and a place for an error about it (#{id}-error). The first
 * dealer is a list of seats ("Seat 1" ...). The row is marked "changed"
 * while its value differs from `presetValue()`.
 */
export function optionRow(option, id, value, presetValue) {
  let control;
  const described = `${id}-help ${id}-error`;
  const words = option.choice_words || {};
  let choices = option.choices;
  if (option.name === "first-dealer") choices = ["draw", "0", "1", "2", "3", "4", "5", "6"];
  if (choices) {
    const label = (c) => (option.name === "first-dealer"
      ? (c === "draw" ? "draw: the highest card deals" : `Seat ${Number(c) + 1}`) : words[c] || c);
    control = el("select", { id, name: option.name, "aria-describedby": described },
      choices.map((c) => el("option", { value: c }, label(c))));
    if (!choices.includes(value)) control.append(el("option", { value }, value));
  } else {
    control = el("input", { id, name: option.name, type: "text", spellcheck: "false", "aria-describedby": described });
  }
  control.value = toForm(option.name, value);
  const mark = () => {
    const row = control.closest(".option");
    row.classList.toggle("changed", optionValue(option, control) !== (presetValue() ?? ""));
    clearFieldError(control);
  };
  control.addEventListener("input", mark);
  control.addEventListener("change", mark);
  return el("div", { class: "option", dataset: { option: option.name } },
    el("label", { for: id }, option.label || option.name), control,
    el("small", { id: `${id}-help`, class: "muted" }, option.help || ""),
    el("small", { id: `${id}-error`, class: "field-error", role: "alert", hidden: true }));
}

/** Say what is wrong next to `control` (its "{id}-error" element); null clears it. */
export function showFieldError(control, text) {
  const box = document.getElementById(`${control.id}-error`);
  if (!box) return false;
  box.textContent = text || "";
  box.hidden = !text;
  if (text) control.setAttribute("aria-invalid", "true");
  else control.removeAttribute("aria-invalid");
  return true;
}

export function clearFieldError(control) {
  if (control.getAttribute("aria-invalid")) showFieldError(control, null);
}