// The panels beside the play: the hint, the score sheet, the final standings
// with the record, replay, review and rematch, and the table's rules.

import {
  $, api, cardWords, el, fill, goToTable, LOCAL, pages, scoreChart, scoreSheet, showMessage, standingsTable, suitWords,
} from "../common.js";
import { currentHint, legalKey, redraw, S, TABLE } from "./state.js";

export function actionWords(a) {
  switch (a.kind) {
    case "bid": return `bid ${a.bid}`;
    case "change": return `change your bid to ${a.bid}`;
    case "trump": return a.suit && a.suit !== "NT" ? `name ${suitWords(a.suit).slice(2)} as trump` : "name no trump";
    case "play": return a.card ? `play the ${cardWords(a.card).toLowerCase()}` : "play your unseen card";
    default: return JSON.stringify(a);
  }
}

export function renderHint() {
  const box = $("#hint");
  if (S.hintAsked !== null && S.hintAsked === legalKey()) {
    box.hidden = false;
    fill(box, el("h2", {}, "Hint"), el("p", { class: "muted" }, "The expert is thinking…"));
    return;
  }
  const hint = currentHint();
  if (!hint) {
    box.hidden = true;
    fill(box);
    return;
  }
  box.hidden = false;
  const points = (x) => (typeof x === "number" ? x.toFixed(1) : "?");
  fill(box,
    el("h2", {}, "Hint"),
    el("p", { class: "suggest" }, "The expert would ", el("strong", {}, actionWords(hint.action)),
      ` (expected ${points(hint.expected)} points this hand).`),
    hint.ranked && hint.ranked.length > 1 ? el("ol", { class: "ranked" }, hint.ranked.map((r) =>
      el("li", {}, el("span", {}, actionWords(r.action)), el("span", { class: "ev" }, points(r.expected))))) : null,
    el("button", { type: "button", onclick: () => { S.hint.hidden = true; redraw(); } }, "Close"));
}

let drawnScores = null; // results count and names drawn, so the sheet is rebuilt only on change

export function renderScores() {
  const box = $("#scores");
  box.hidden = !S.scoresOpen;
  $("#scores-button").setAttribute("aria-pressed", String(S.scoresOpen));
  if (!S.scoresOpen || !S.obs) return;
  const key = `${S.obs.results.length}|${S.obs.names.join(",")}`;
  if (drawnScores === key) return;
  drawnScores = key;
  fill($("#score-chart"), S.obs.results.length ? scoreChart(S.obs.results, S.obs.names) : null);
  fill($("#score-sheet"), scoreSheet(S.obs.results, S.obs.names));
}

export function renderStandings() {
  const o = S.obs;
  const over = Boolean(o && o.phase === "over" && o.standings);
  $("#standings").hidden = !over;
  if (!over) return;
  fill($("#standings-table"), standingsTable(o.standings, o.names));
  const notes = [];
  if (o.results.some((r) => r.extra)) notes.push("The lead was tied after the last scheduled hand: extra hands broke the tie.");
  const first = o.standings.filter((r) => r.place === 1);
  const side = (row) => row.seats.map((s) => o.names[s]).join(" and ");
  if (first.length > 1) notes.push("A shared win.");
  // Said only when there was a tie: level on points, split by exact bids.
  const level = o.standings.filter((r) => r.total === first[0].total && r.place !== 1);
  if (first.length === 1 && level.length) {
    notes.push(`${side(first[0])} and ${level.map(side).join(", ")} have ${first[0].total} points: `
      + `${side(first[0])} wins on exact bids (${first[0].exact} against ${level[0].exact}).`);
  }
  fill($("#standings-notes"), notes.map((n) => el("li", {}, n)));
  renderRematch();
  // A private table's record (and so its replay) is its players' alone.
  const mine = S.seat !== null || Boolean(S.table && S.table.public);
  const record = $("#download-record");
  // On the offline site the worker writes the file (downloadRecord): no address has it.
  record.href = LOCAL ? "#" : `/api/tables/${encodeURIComponent(TABLE)}/record`;
  record.setAttribute("download", `ohhell-${TABLE}.ohr`);
  record.onclick = downloadRecord;
  record.hidden = !mine;
  $("#replay-link").href = pages.replay(TABLE);
  $("#replay-link").hidden = !mine;
  // The review is for the table's players, and for anyone at a public table.
  const review = $("#review-link");
  review.hidden = LOCAL || (S.seat === null && !(S.table && S.table.public)); // reviews are the server's
  review.href = pages.replay(TABLE, true);
}

/**
 * Download the table's record: fetched with the seat's token in a header (a
 * private table's record holds every hand, so it is its players' alone, and
 * a token in the address would be logged), then saved as a file.
 */
export async function downloadRecord(event) {
  event.preventDefault();
  try {
    const headers = S.token ? { Authorization: `Bearer ${S.token}` } : {};
    const text = await api("GET", `/api/tables/${encodeURIComponent(TABLE)}/record`, undefined, headers);
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
    const link = el("a", { href: url, download: `ohhell-${TABLE}.ohr`, hidden: "" });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  } catch (err) {
    showMessage(`Could not download the record: ${err.message}`, "error");
  }
}

/**
 * "Play again" at the end of a match: the first player to ask makes a new
 * table with the same rules and seats and hosts it; each other person's seat
 * is kept for them until they ask too (bots take the seats nobody takes back
 * when it starts). A watcher may follow the players to it.
 */
export function renderRematch() {
  const box = $("#rematch");
  const again = S.table && S.table.rematch;
  const key = JSON.stringify([again, S.seat]);
  if (box.dataset.key === key) return; // unchanged: keep the button (and the focus on it)
  box.dataset.key = key;
  if (S.seat === null) {
    fill(box, again ? el("a", { class: "button", href: pages.table(again.table) },
      "Watch the rematch") : null);
    return;
  }
  const mine = again && again.by === S.obs.names[S.seat];
  fill(box,
    again && !mine ? el("p", { class: "rematch-offer" },
      `${again.by} wants to play again, same seats and rules. Join in to keep your seat; bots take the seats nobody takes back.`) : null,
    el("button", { type: "button", id: "rematch-button", class: "primary big", onclick: playAgain },
      again ? "Play again" : "Play again (same seats and rules)"));
}

export async function playAgain() {
  const button = $("#rematch-button");
  if (button) button.disabled = true;
  try {
    goToTable(await api("POST", `/api/tables/${encodeURIComponent(TABLE)}/rematch`, { token: S.token }));
  } catch (err) {
    showMessage(err.message);
    if (button) button.disabled = false;
  }
}

let drawnRules = null;

export function renderRules() {
  const t = S.table;
  const key = t ? JSON.stringify([t.description, t.clock]) : null;
  if (!t || drawnRules === key) return;
  drawnRules = key;
  const lines = Array.isArray(t.description) ? t.description : String(t.description || "").split("\n");
  fill($("#rules-list"), [...lines.filter(Boolean), clockWords(t.clock)].map((line) => el("li", {}, line)));
}

/** The table's move clock in words (a table setting, shown with the rules). */
export function clockWords(seconds) {
  if (!seconds) return "No move clock: the table waits for each person.";
  return `Move clock: ${seconds} seconds for each decision when two or more people play; `
    + "then a bot decides for that person until they are back.";
}
