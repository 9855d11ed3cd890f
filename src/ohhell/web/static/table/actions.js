// What a player does at the table: actions sent for the state shown, the
// tools (hint, last trick, score sheet), leaving and ending, the lobby's
// buttons, and playing a forced card for a player who asked for it.

import { $, api, clearMessage, keepName, setToken, showMessage } from "../common.js";
import { ended, findLegal, legal, legalKey, mode, redraw, S, TABLE } from "./state.js";
import { connect, send } from "./connection.js";

/** Send an action (a copy of one of the legal ones) for the state shown. */
export function act(action) {
  if (S.pending || S.version === null) return;
  const { seat: _ignored, ...clean } = action; // the server knows my seat
  if (!send({ type: "act", version: S.version, action: clean })) {
    showMessage("Not connected: wait for the connection to come back.");
    return;
  }
  S.pending = true;
  S.showLast = false;
  clearMessage();
  redraw();
}

/**
 * Play `code` (null: the unseen card of a Devil's Bridge hand). A card that
 * is not among the legal plays while it is your turn goes to the server
 * anyway, which says why it cannot be played (the page knows no rule).
 */
export function playCard(code) {
  const action = findLegal("play", (a) => a.card === code);
  if (action) act(action);
  else if (mode() === "play") act({ kind: "play", card: code });
  else if (ended()) showMessage("The table has ended: there is nothing more to play.", "info", 2500);
  else showMessage("You cannot play a card now: wait for your turn.", "info", 2500);
}

export function bid(value) {
  const kind = mode() === "change" ? "change" : "bid";
  const action = findLegal(kind, (a) => a.bid === value);
  if (action) {
    act(action);
  } else if (S.obs && value === S.obs.forbidden_bid && kind === "bid") {
    showMessage(`You may not bid ${value}: the hook (the bids may not add up to the tricks).`);
  } else {
    showMessage(`${value} is not a bid you can make now.`);
  }
}

export function nameTrump(suit) {
  const action = findLegal("trump", (a) => (a.suit || "NT") === suit);
  if (action) act(action);
}

export function keepBid() {
  if (mode() !== "change" || S.pending) return;
  if (send({ type: "keep" })) {
    S.keptAt = S.version;
    redraw();
  }
}

export const AUTO_PLAY_KEY = "ohhell-auto-play";

export const FORCED_CARD_MS = 600; // a forced card waits this long, so its player sees it go

let forcedTimer = null;

let forcedVersion = null; // the state the pending forced card belongs to

export function autoPlayWanted() {
  try {
    return localStorage.getItem(AUTO_PLAY_KEY) === "1";
  } catch {
    return false;
  }
}

/**
 * "Play forced cards for me": when the server offers exactly one card to play
 * (the only one that follows suit, or the last card of a hand), play it after
 * a moment. The page decides nothing: the legal plays are the server's.
 */
export function scheduleForcedCard() {
  const plays = legal().filter((a) => a.kind === "play");
  const forced = $("#auto-play").checked && mode() === "play" && plays.length === 1 && !S.pending;
  if (!forced) {
    clearTimeout(forcedTimer);
    forcedTimer = null;
    return;
  }
  if (forcedTimer && forcedVersion === S.version) return;
  clearTimeout(forcedTimer); // a timer from an earlier state: start again for this one
  const version = S.version;
  forcedVersion = version;
  forcedTimer = setTimeout(() => {
    forcedTimer = null;
    const again = legal().filter((a) => a.kind === "play");
    if (S.version === version && again.length === 1 && $("#auto-play").checked) act(again[0]);
  }, FORCED_CARD_MS);
}

export function leaveTable() {
  const started = S.table && S.table.status === "playing";
  const what = started ? "A bot will play your seat for the rest of the match." : "Your seat will be open again.";
  if (!window.confirm(`Leave the table? ${what}`)) return;
  send({ type: "leave" });
}

export function endTable() {
  if (!window.confirm("End the table for everyone? The match stops here; its record can still be downloaded.")) return;
  send({ type: "end" });
}

export function askHint() {
  if (!legal().length) {
    showMessage("A hint is for your turn: there is nothing for you to decide now.", "info", 3000);
    return;
  }
  if (S.hint && S.hint.legalKey === legalKey()) {
    S.hint.hidden = false;
    redraw();
    return;
  }
  if (send({ type: "hint" })) {
    S.hintAsked = legalKey();
    S.hint = null;
    redraw();
  }
}

export function toggleLast() {
  if (!S.lastTrick) {
    showMessage("No trick has been finished yet.", "info", 2500);
    return;
  }
  S.showLast = !S.showLast;
  redraw();
}

export function toggleScores() {
  S.scoresOpen = !S.scoresOpen;
  redraw();
  if (S.scoresOpen) $("#scores").scrollIntoView({ block: "start" }); // at once: a smooth scroll is cut short by the next re-draw
}

export async function copyInvite() {
  const input = $("#invite-link");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select(); // clipboard API refused (no secure context): fall back to a selection
    document.execCommand && document.execCommand("copy");
  }
  showMessage("The invite link is copied: send it to the other players.", "info", 3000);
}

export async function join(event) {
  event.preventDefault();
  const seat = Number($("#join-seat").value);
  const name = $("#join-name").value.trim();
  if (!name) {
    showMessage("Type your name to join: it is how the others see you at the table.");
    $("#join-name").focus();
    return;
  }
  keepName(name);
  try {
    const answer = await api("POST", `/api/tables/${encodeURIComponent(TABLE)}/join`, { seat, name });
    S.token = answer.token;
    setToken(TABLE, answer.token);
    clearMessage();
    connect(); // hello again, now with the token
  } catch (err) {
    showMessage(err.message);
  }
}

export async function fillWithBots() {
  try {
    await api("POST", `/api/tables/${encodeURIComponent(TABLE)}/fill`, { token: S.token, level: $("#fill-level").value });
  } catch (err) {
    showMessage(err.message);
  }
}

export async function startMatch() {
  try {
    await api("POST", `/api/tables/${encodeURIComponent(TABLE)}/start`, { token: S.token });
  } catch (err) {
    showMessage(err.message);
  }
}
