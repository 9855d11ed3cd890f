// The table page's shared state: what the page knows (S), which table it is,
// and what the legal actions ask of this player now. Every other part reads it;
// render() (table.js) draws it.

import { api, getToken, LOCAL, pages, setSeat, setToken } from "../common.js";

/** Why the table asked for could not be made (the offline site's Play now), or null. */
export let START_ERROR = null;

/**
 * The table of this page: /t/TABLE on a server, table.html?t=TABLE on the
 * offline site. There the home page's Play now comes here at once as
 * table.html?play-now={the request}, and this page's worker makes the table:
 * the game engine starts once, not once for each page.
 */
async function tableOfPage() {
  if (!LOCAL) return decodeURIComponent(window.location.pathname.replace(/^\/t\//, "").replace(/\/$/, ""));
  const params = new URLSearchParams(window.location.search);
  if (params.get("t")) return params.get("t");
  if (params.get("play-now") === null) return "";
  try {
    const made = await api("POST", "/api/play-now", JSON.parse(params.get("play-now")));
    setToken(made.table, made.token);
    setSeat(made.table, made.seat);
    window.history.replaceState(null, "", pages.table(made.table)); // a reload finds it, not a new one
    return made.table;
  } catch (err) {
    START_ERROR = err.message;
    return "";
  }
}

export const TABLE = await tableOfPage();

export const TRUMP_CHOICES = ["C", "D", "H", "S", "NT"]; // keys 1-5

export const FINISHED_TRICK_MS = 2500; // how long a finished last trick of a hand stays in view

export const NOTICE_MS = 7000; // how long "hand over" stays in the status line

/** Everything the page knows; redraw() draws it. */
export const S = {
  token: getToken(TABLE),
  seat: null, // my seat (from welcome); null: spectator
  host: false,
  table: null, // the public table (GET /api/tables/{table} or a "table" message)
  version: null, // the version of the last state
  obs: null,
  hint: null, // the last hint message, with .legalKey: the legal actions it answers
  hintAsked: null, // legalKey of a pending hint request
  pending: false, // an action was sent and no state has answered yet
  keptAt: null, // the version at which I kept a bid that could still be changed
  coveredSeats: new Set(), // people's seats seen acting while their player was gone (see seatInfo)
  joinedAt: new Map(), // seat -> when its person was seen joining (ms), for the notices
  toldVersion: -1, // the last state read out (#announce) and sounded: a resend is not told again
  removed: false, // the host removed this page's player: the welcome that follows says no more
  toldHand: null, // the hand whose start was last told to screen readers ("Hand 2 of 19: ...")
  lastTrick: null, // {plays: [[seat, card]], winner, hand}
  finishedUntil: 0, // show the last trick of a hand until this time (ms), into the next hand
  showLast: false, // "l": the last trick is shown in the middle
  scoresOpen: false,
  notice: null, // {text, until}
  loggedVersion: -1,
  ws: null,
  retries: 0,
  reconnectTimer: null,
  reconnectAt: 0, // when the next connection attempt is due (ms)
  digits: "",
  digitTimer: null,
  clocks: [], // [{seat, ms}]: the running turn clocks, as the last state gave them
  clocksAt: 0, // when that state arrived (ms)
  changeWait: null, // {seat, next, ms}: a bot bidding next waits this long for a bid change
  changeWaitAt: 0, // when that state arrived (ms)
  stateAt: 0, // when the last new state arrived (ms)
};

export const REPLACE_GRACE_MS = 5000; // the host's "Let a bot play" waits this long into a friend's turn

export const TURN_VERB = { bid: "bid", trump: "name trump", play: "play" };

/** The public seat, with "away" also set when the cover bot was seen playing it. */
export function seatInfo(s) {
  const seat = (S.table && S.table.seats && S.table.seats[s]) || {};
  return S.coveredSeats.has(s) ? { ...seat, away: true } : seat;
}

export const legal = () => (S.obs && S.obs.legal) || [];

export const legalKey = () => JSON.stringify(legal());

export const seatName = (s) => s.name || `Seat ${s.seat + 1}`;

/** Did the host end this table? Then nothing is left to do but download or go home. */
export const ended = () => Boolean(S.table && S.table.status === "ended");

/** "bid" | "change" | "trump" | "play" | null: what the legal actions ask of me. */
export function mode() {
  if (ended()) return null; // the host ended the table: nothing more to do
  if (S.claims && S.claims.mineMade()) return null; // your claim: the server plays your cards
  const kinds = new Set(legal().map((a) => a.kind));
  if (kinds.has("play")) return "play";
  if (kinds.has("trump")) return "trump";
  if (kinds.has("bid")) return "bid";
  // After "keep" the server sends nothing until the next bidder acts: stop offering changes.
  if ((kinds.has("change") || (S.obs && S.obs.can_change)) && S.keptAt !== S.version) return "change";
  return null;
}

export function findLegal(kind, test) {
  return legal().find((a) => a.kind === kind && test(a));
}

/** The hint shown now, if it answers the current choice. */
export function currentHint() {
  return S.hint && !S.hint.hidden && S.hint.legalKey === legalKey() ? S.hint : null;
}

/** The table's name for people ("Ann's table"), never its id. */
export const tableTitle = () => (S.table && S.table.title) || "A table";

/**
 * Is it `s`'s turn? In sequential bidding with bid changes, the seat that may
 * still change its bid is an actor too, but it is not the one we wait for.
 */
// Whose turn it is comes from the server ("turn"), which asks the rules.
export const isTurn = (o, s) => Boolean(o.turn && o.turn.includes(s));

/** What the page's parts call back into: drawing it all (table.js sets these). */
export const hooks = { render: () => {}, message: (_message) => {} };

/** Draw the page again from S. */
export function redraw() {
  hooks.render();
}
