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

import {
  $, api, cardElement, cardSpan, cardWords, clearMessage, el, fill, getToken, goToTable, groupHand, keepName, storedName,
  playerColour, scoreChart, scoreSheet, seatPosition, setSeat, setToken, showMessage, standingsTable,
  SUIT_NAME, suitSpan, suitWords, typingInField,
} from "/static/common.js";
import { createChat } from "/static/chat.js";
import { createClaims } from "/static/claim.js";
import { createSound } from "/static/sound.js";

const TABLE = decodeURIComponent(window.location.pathname.replace(/^\/t\//, "").replace(/\/$/, ""));
const TRUMP_CHOICES = ["C", "D", "H", "S", "NT"]; // keys 1-5
const FINISHED_TRICK_MS = 2500; // how long a finished last trick of a hand stays in view
const NOTICE_MS = 7000; // how long "hand over" stays in the status line

/** Everything the page knows; render() draws it. */
const S = {
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

const REPLACE_GRACE_MS = 5000; // the host's "Let a bot play" waits this long into a friend's turn

// ------------------------------------------------------------------ start

async function main() {
  document.title = "Oh Hell";
  wireControls();
  try {
    S.table = await api("GET", `/api/tables/${encodeURIComponent(TABLE)}`);
  } catch (err) {
    const why = err.status === 404 ? "There is no such table: it may have expired." : `Could not load the table: ${err.message}`;
    fill($("#status"), `${why} `, el("a", { href: "/" }, "Go home"));
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

// ------------------------------------------------------------------ WebSocket

/** Open a (new) socket and say hello; the server answers with welcome, table and state. */
function connect() {
  clearTimeout(S.reconnectTimer);
  if (S.ws) {
    S.ws.onclose = null; // a deliberate reconnect must not schedule another
    S.ws.close();
  }
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${scheme}//${window.location.host}/ws/${encodeURIComponent(TABLE)}`);
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
    handle(message);
  };
  ws.onclose = (event) => {
    if (S.ws !== ws) return;
    setConn("closed");
    if (event.code === 4404) { // the server knows no such table: retrying cannot help
      S.table = null;
      fill($("#status"), "There is no such table: it may have expired. ", el("a", { href: "/" }, "Go home"));
      return;
    }
    scheduleReconnect();
  };
}

/** Back off 0.5 s, 1 s, 2 s ... up to 15 s (with a little jitter), then hello again. */
function scheduleReconnect() {
  const delay = Math.min(15000, 500 * 2 ** S.retries) + Math.random() * 300;
  S.retries += 1;
  S.pending = false;
  S.reconnectAt = Date.now() + delay;
  S.reconnectTimer = setTimeout(() => connect(), delay);
  render();
}

function setConn(state) {
  const dot = $("#conn");
  dot.dataset.state = state;
  const words = { connecting: "Connecting…", open: "Connected", closed: "Disconnected" }[state];
  dot.title = words;
  dot.setAttribute("aria-label", words);
}

function send(message) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) {
    S.ws.send(JSON.stringify(message));
    return true;
  }
  return false;
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

// ------------------------------------------------------------------ state updates

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

const TURN_VERB = { bid: "bid", trump: "name trump", play: "play" };

/**
 * What a player should hear of a new state: who won the trick just
 * finished, how the hand went, and whose turn it is now, read out by a
 * screen reader (#announce), with a tone when sounds are on.
 */
function tellState(prev, obs, last) {
  const words = [];
  const said = spokenAction(last, obs);
  if (said) words.push(said);
  if (last && last.kind === "play" && last.trick) {
    const w = last.trick.winner;
    const card = (last.trick.plays.find(([s]) => s === w) || [])[1];
    const by = w === S.seat ? "You win" : `${obs.names[w]} wins`;
    words.push(`${by} the trick${card ? ` with the ${cardWords(card).toLowerCase()}` : ""}.`);
    S.sound.play(w === S.seat ? "won" : "trick");
  }
  if (prev && obs.results.length > prev.results.length && S.notice) words.push(S.notice.text);
  const opening = handOpening(obs);
  if (opening) words.push(opening);
  const verb = TURN_VERB[obs.phase];
  const turn = obs.turn || [];
  const before = prev && prev.phase === obs.phase ? JSON.stringify(prev.turn || []) : null;
  if (verb && turn.length && JSON.stringify(turn) !== before) {
    if (S.seat !== null && turn.includes(S.seat)) {
      words.push(`Your turn to ${verb}.`);
      S.sound.play("turn");
    } else {
      words.push(`${turn.map((s) => obs.names[s]).join(", ")} to ${verb}.`);
    }
  }
  announce(words.join(" "));
}

/**
 * A new hand in words for a screen reader, said once as it is dealt:
 * "Hand 2 of 19: 9 cards, Bruno deals, trump clubs."
 */
function handOpening(obs) {
  if (!["bid", "trump", "play"].includes(obs.phase) || (S.table && S.table.status !== "playing")) return "";
  const key = `${obs.hand_number}:${obs.extra_hand}`;
  if (S.toldHand === key) return "";
  S.toldHand = key;
  const cards = `${obs.hand_size} card${obs.hand_size === 1 ? "" : "s"}`;
  const dealer = obs.dealer === S.seat ? "you deal" : `${obs.names[obs.dealer]} deals`;
  let trump = "no trump";
  if (obs.trump) trump = `trump ${SUIT_NAME[obs.trump]}`;
  else if (!obs.trump_decided) trump = "trump to be named";
  const number = obs.extra_hand ? "Tie-break hand" : `Hand ${obs.hand_number + 1} of ${obs.hands_total}`;
  return `${number}: ${cards}, ${dealer}, ${trump}.`;
}

/**
 * The action just taken in words for a screen reader: "Bruno bids 3",
 * "Chloe plays the queen of hearts", "You name spades as trump". Another
 * seat's sealed bid is "has bid" (its number is not sent to this page).
 */
function spokenAction(last, obs) {
  if (!last || last.seat === null || last.seat === undefined || !obs.names[last.seat]) return "";
  const you = last.seat === S.seat;
  const who = you ? "You" : obs.names[last.seat];
  const verb = (mine, theirs) => `${who} ${you ? mine : theirs}`;
  switch (last.kind) {
    case "bid":
      return last.bid === undefined ? `${verb("have bid", "has bid")}.` : `${verb("bid", "bids")} ${last.bid}.`;
    case "change":
      return `${verb("change", "changes")} the bid to ${last.bid}.`;
    case "trump":
      return last.suit === "NT" ? `${verb("choose", "chooses")} no trump.`
        : `${verb("name", "names")} ${suitWords(last.suit).slice(2).toLowerCase()} as trump.`;
    case "play":
      return `${verb("play", "plays")} ${last.card ? `the ${cardWords(last.card).toLowerCase()}` : "a card unseen"}.`;
    default:
      return "";
  }
}

let announced = "";

/**
 * Read `text` out to a screen reader (the polite live region #announce):
 * whose turn it is, who won a trick, who joined. The same words twice in a
 * row are still read, told apart by an invisible mark.
 */
function announce(text) {
  if (!text) return;
  const box = $("#announce");
  announced = text === announced.replace(/\u200b$/, "") && !announced.endsWith("\u200b") ? `${text}\u200b` : text;
  box.textContent = announced;
}

/**
 * Say what changed at the table that a player wants to know at once: a
 * friend taking a seat or coming back, an offer to play again. Shown as a
 * message and read out (the #announce region).
 */
function tellChanges(before, after) {
  if (!before || !after.seats) return;
  const news = [];
  for (const seat of after.seats) {
    const was = before.seats && before.seats[seat.seat];
    if (!was || seat.seat === S.seat || seat.kind !== "human") continue;
    if (was.kind !== "human") {
      news.push(`${seat.name} joined the table.`);
      S.joinedAt.set(seat.seat, Date.now());
    } else if (!was.connected && seat.connected && !(Date.now() - (S.joinedAt.get(seat.seat) || 0) < 10000)) {
      news.push(`${seat.name} is here.`); // (not right after "joined": their page opening is the same news)
    }
  }
  if (after.rematch && !before.rematch && S.seat !== null && after.rematch.by !== (S.obs && S.obs.names[S.seat])) {
    news.push(`${after.rematch.by} wants to play again.`);
  }
  if (news.length) {
    showMessage(news.join(" "), "info", 5000);
    announce(news.join(" "));
  }
}

/**
 * A person's seat that acts while its player is not connected is being played
 * by the cover bot. The server marks such a seat "away" in its table message,
 * but that message only comes when a seat or connection changes, not when the
 * wait runs out; so the page also notices it from the actions.
 */
function noteCover(last) {
  const seats = S.table && S.table.seats;
  if (!last || last.seat === null || last.seat === undefined || !seats || !seats[last.seat]) return;
  const seat = seats[last.seat];
  if (seat.kind === "human" && !seat.connected) S.coveredSeats.add(last.seat);
}

/** The public seat, with "away" also set when the cover bot was seen playing it. */
function seatInfo(s) {
  const seat = (S.table && S.table.seats && S.table.seats[s]) || {};
  return S.coveredSeats.has(s) ? { ...seat, away: true } : seat;
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

// ------------------------------------------------------------------ what I may do now

const legal = () => (S.obs && S.obs.legal) || [];
const legalKey = () => JSON.stringify(legal());
const seatName = (s) => s.name || `Seat ${s.seat + 1}`;

/** Did the host end this table? Then nothing is left to do but download or go home. */
const ended = () => Boolean(S.table && S.table.status === "ended");

/** "bid" | "change" | "trump" | "play" | null: what the legal actions ask of me. */
function mode() {
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

/** Send an action (a copy of one of the legal ones) for the state shown. */
function act(action) {
  if (S.pending || S.version === null) return;
  const { seat: _ignored, ...clean } = action; // the server knows my seat
  if (!send({ type: "act", version: S.version, action: clean })) {
    showMessage("Not connected: wait for the connection to come back.");
    return;
  }
  S.pending = true;
  S.showLast = false;
  clearMessage();
  render();
}

function findLegal(kind, test) {
  return legal().find((a) => a.kind === kind && test(a));
}

/**
 * Play `code` (null: the unseen card of a Devil's Bridge hand). A card that
 * is not among the legal plays while it is your turn goes to the server
 * anyway, which says why it cannot be played (the page knows no rule).
 */
function playCard(code) {
  const action = findLegal("play", (a) => a.card === code);
  if (action) act(action);
  else if (mode() === "play") act({ kind: "play", card: code });
  else if (ended()) showMessage("The table has ended: there is nothing more to play.", "info", 2500);
  else showMessage("You cannot play a card now: wait for your turn.", "info", 2500);
}

function bid(value) {
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

function nameTrump(suit) {
  const action = findLegal("trump", (a) => (a.suit || "NT") === suit);
  if (action) act(action);
}

function keepBid() {
  if (mode() !== "change" || S.pending) return;
  if (send({ type: "keep" })) {
    S.keptAt = S.version;
    render();
  }
}

const AUTO_PLAY_KEY = "ohhell-auto-play";
const FORCED_CARD_MS = 600; // a forced card waits this long, so its player sees it go
let forcedTimer = null;
let forcedVersion = null; // the state the pending forced card belongs to

function autoPlayWanted() {
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
function scheduleForcedCard() {
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

function leaveTable() {
  const started = S.table && S.table.status === "playing";
  const what = started ? "A bot will play your seat for the rest of the match." : "Your seat will be open again.";
  if (!window.confirm(`Leave the table? ${what}`)) return;
  send({ type: "leave" });
}

function endTable() {
  if (!window.confirm("End the table for everyone? The match stops here; its record can still be downloaded.")) return;
  send({ type: "end" });
}

function askHint() {
  if (!legal().length) {
    showMessage("A hint is for your turn: there is nothing for you to decide now.", "info", 3000);
    return;
  }
  if (S.hint && S.hint.legalKey === legalKey()) {
    S.hint.hidden = false;
    render();
    return;
  }
  if (send({ type: "hint" })) {
    S.hintAsked = legalKey();
    S.hint = null;
    render();
  }
}

/** The hint shown now, if it answers the current choice. */
function currentHint() {
  return S.hint && !S.hint.hidden && S.hint.legalKey === legalKey() ? S.hint : null;
}

function toggleLast() {
  if (!S.lastTrick) {
    showMessage("No trick has been finished yet.", "info", 2500);
    return;
  }
  S.showLast = !S.showLast;
  render();
}

function toggleScores() {
  S.scoresOpen = !S.scoresOpen;
  render();
  if (S.scoresOpen) $("#scores").scrollIntoView({ block: "nearest", behavior: "smooth" });
}

// ------------------------------------------------------------------ lobby actions

async function copyInvite() {
  const input = $("#invite-link");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select(); // clipboard API refused (no secure context): fall back to a selection
    document.execCommand && document.execCommand("copy");
  }
  showMessage("The invite link is copied: send it to the other players.", "info", 3000);
}

async function join(event) {
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

async function fillWithBots() {
  try {
    await api("POST", `/api/tables/${encodeURIComponent(TABLE)}/fill`, { token: S.token, level: $("#fill-level").value });
  } catch (err) {
    showMessage(err.message);
  }
}

async function startMatch() {
  try {
    await api("POST", `/api/tables/${encodeURIComponent(TABLE)}/start`, { token: S.token });
  } catch (err) {
    showMessage(err.message);
  }
}

// ------------------------------------------------------------------ keys

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || typingInField(event)) return;
  const key = event.key;
  const m = mode();
  if (/^[0-9]$/.test(key) && (m === "bid" || m === "change")) {
    typeDigit(Number(key));
  } else if (key === "Enter" && S.digits) {
    finishDigits(); // "1" then Enter bids 1 at once when 10 or more could follow
  } else if (/^[1-5]$/.test(key) && m === "trump") {
    nameTrump(TRUMP_CHOICES[Number(key) - 1]);
  } else if (key === "ArrowLeft" || key === "ArrowRight") {
    if (!moveFocus(key === "ArrowLeft" ? -1 : 1)) return;
  } else if (key === "c" || key === "C") {
    S.chat.focus(); // type to the table; Escape or Tab leaves the field
  } else if (key === "m" || key === "M") {
    S.sound.toggle();
  } else if (key === "?") {
    const keys = $("#keys");
    keys.open = !keys.open;
    if (keys.open) keys.scrollIntoView({ block: "nearest" }); // below the fold on a laptop screen
  } else if (key === "h" || key === "H") {
    askHint();
  } else if (key === "l" || key === "L") {
    toggleLast();
  } else if (key === "s" || key === "S") {
    toggleScores();
  } else if ((key === "k" || key === "K") && m === "change") {
    keepBid();
  } else if ((key === "r" || key === "R") && S.claims.canClaim()) {
    S.claims.toggle(); // claim the rest
  } else if (key === "Escape") {
    if (S.claims.close(true)) {
      event.preventDefault();
      return;
    }
    S.showLast = false;
    if (S.hint) S.hint.hidden = true;
    render();
  } else {
    return;
  }
  event.preventDefault();
}

/**
 * Digits make a bid. A bid over 9 needs two digits: when the first digit
 * could still start a larger legal bid, wait a moment for the second.
 */
function typeDigit(d) {
  clearTimeout(S.digitTimer);
  S.digits += String(d);
  const value = Number(S.digits);
  const size = S.obs ? S.obs.hand_size : 0;
  if (value > 0 && value * 10 <= size) {
    S.digitTimer = setTimeout(finishDigits, 1200);
    render(); // the status line shows the digit typed so far
    return;
  }
  finishDigits();
}

function finishDigits() {
  clearTimeout(S.digitTimer);
  const value = Number(S.digits);
  S.digits = "";
  bid(value);
}

/** Arrows: move focus along the enabled cards of the hand, else along the bid buttons. */
function moveFocus(step) {
  let buttons = [...document.querySelectorAll("#hand button.legal")];
  if (!buttons.length) buttons = [...document.querySelectorAll("#bids button:not(:disabled)")];
  if (!buttons.length) buttons = [...document.querySelectorAll("#hand button.card")]; // browse the hand
  if (!buttons.length) return false;
  const at = buttons.indexOf(document.activeElement);
  let next;
  if (at === -1) {
    const hinted = buttons.findIndex((b) => b.classList.contains("hinted"));
    next = hinted >= 0 ? hinted : step > 0 ? 0 : buttons.length - 1;
  } else {
    next = (at + step + buttons.length) % buttons.length;
  }
  buttons[next].focus();
  return true;
}

// ------------------------------------------------------------------ rendering

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

// --- header and status ---

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

/** The table's name for people ("Ann's table"), never its id. */
const tableTitle = () => (S.table && S.table.title) || "A table";

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

function balanceWords(o) {
  const total = o.bids.reduce((a, b) => a + (b || 0), 0);
  const tricks = `${o.hand_size} trick${o.hand_size === 1 ? "" : "s"}`;
  // R-BID-ANNOUNCE: under = fewer tricks bid than there are, over = more.
  const word = { under: "under (more tricks than bids)", over: "over (more bids than tricks)", even: "even" }[o.balance] || o.balance;
  return `Bids total ${total} for ${tricks}: ${word}.`;
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
      ? [el("a", { href: `/api/tables/${encodeURIComponent(TABLE)}/record`, download: "", onclick: downloadRecord },
        "Download the record so far"), " · "]
      : [];
    return el("span", {}, S.host ? "You ended this table. " : "The host ended this table. ", ...download,
      el("a", { href: "/" }, "Go home"));
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

// --- lobby ---

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

// --- players around the table ---

function renderPlayers() {
  const o = S.obs;
  const me = S.seat ?? 0;
  const panels = o.names.map((name, s) => {
    const info = seatInfo(s);
    const pos = seatPosition(s, me, o.players, { x: 38, y: 40 });
    const classes = ["seat", `rel-${pos.rel}`];
    if (s === S.seat) classes.push("me");
    if (isTurn(o, s)) classes.push("turn");
    else if (o.actors.includes(s) && o.phase === "bid") classes.push("may-change");
    if (s === o.dealer) classes.push("dealer");
    if (info.away) classes.push("away");
    const hasBid = o.has_bid[s];
    const sealed = hasBid && o.bids[s] === null; // R-BID-SIMULTANEOUS: placed, not yet shown
    const held = o.devils_bridge && s !== S.seat && o.hands[s] ? o.hands[s] : null;
    if (held) classes.push("has-holds");
    return el("div", {
      class: classes.join(" "), dataset: { seat: s }, role: "region", "aria-label": seatSummary(o, s, info),
      // clamp: a panel near the left or right edge stays inside the table
      style: `left:clamp(var(--seat-half), ${pos.x}%, calc(100% - var(--seat-half)));top:${pos.y}%;--colour:${playerColour(s)}`,
    },
    // R-DEVILS-BRIDGE: the card each other player holds to the forehead
    held ? el("div", { class: "holds" }, held.map((c) => cardElement(c, { small: true, label: `${name} holds the ${cardWords(c).toLowerCase()}` }))) : null,
    el("div", { class: "text" },
    el("div", { class: "who" },
      el("span", { class: "name", title: name }, name), s === S.seat ? el("span", { class: "badge you" }, "you") : null,
      s === o.dealer ? el("span", { class: "badge dealer-chip", title: `${name} deals this hand` }, "dealer") : null,
      s === o.trump_namer ? el("span", { class: "badge", title: `${name} names trump this hand` }, "names trump") : null),
    el("div", { class: "nums" },
      sealed
        ? el("span", { class: "bid", dataset: { sealed: "1" }, title: "sealed until everyone has bid" }, el("b", {}, "bid placed"))
        : el("span", { class: "bid", title: "bid" }, "bid ", el("b", {}, o.bids[s] ?? "–")),
      el("span", { class: "took", title: "tricks taken" }, "took ", el("b", {}, ["bid", "trump", "play"].includes(o.phase) ? o.taken[s] : "–")),
      el("span", { class: "score", title: "score" }, "pts ", el("b", {}, o.totals[s]))),
    kindLine(info), clockFor(s), replaceButton(s, info),
    S.chat.bubble(s) ? el("div", { class: "reaction-bubble", role: "img", "aria-label": `${name}: ${S.chat.bubble(s)}` },
      S.chat.bubble(s)) : null));
  });
  fill($("#players"), panels, trumpIndicator(o));
  settle($("#trump-card"));
}

/**
 * A seat in words, the label of its region for a screen reader: "Bruno,
 * bot: bid 3, took 1, 24 points, deals, to play". Only what the panel shows.
 */
function seatSummary(o, s, info) {
  const parts = [];
  const inHand = ["bid", "trump", "play"].includes(o.phase);
  if (o.has_bid[s] && o.bids[s] === null) parts.push("bid placed, sealed");
  else if (o.bids[s] !== null && o.bids[s] !== undefined) parts.push(`bid ${o.bids[s]}`);
  else if (inHand) parts.push("no bid yet");
  if (inHand) parts.push(`took ${o.taken[s]}`);
  parts.push(`${o.totals[s]} point${Math.abs(o.totals[s]) === 1 ? "" : "s"}`);
  if (s === o.dealer) parts.push("deals");
  if (s === o.trump_namer) parts.push("names trump");
  if (isTurn(o, s)) parts.push(`to ${TURN_VERB[o.phase] || "act"}`);
  if (info.away) parts.push("a bot plays until they return");
  const who = s === S.seat ? `${o.names[s]} (you)` : info.kind === "bot" ? `${o.names[s]}, bot` : o.names[s];
  return `${who}: ${parts.join(", ")}`;
}

/** The clocks as the server counted them ([{seat, ms}]), from now on. */
function setClocks(clocks) {
  S.clocks = clocks;
  S.clocksAt = Date.now();
}

/** Seconds left on ``s``'s turn clock, or null. */
function secondsLeft(s) {
  const clock = S.clocks.find((c) => c.seat === s);
  if (!clock) return null;
  return Math.max(0, Math.ceil((clock.ms - (Date.now() - S.clocksAt)) / 1000));
}

function clockFor(s) {
  const left = secondsLeft(s);
  if (left === null) return null;
  const name = S.obs.names[s];
  if (s === S.seat) return null; // your own clock is a bar in the prompt (myClock)
  return el("div", {
    class: `clock${left <= 10 ? " low" : ""}`, dataset: { seat: s }, role: "timer",
    "aria-label": `${name} has ${left} seconds left`,
  }, clockText(left));
}

const CLOCK_WARN_S = 10; // seconds left when your clock turns red, is read out and (sounds on) beeps

/** "45 s left", or "1:30 left" for long clocks: plain characters every font has. */
function clockText(left) {
  if (left < 60) return `${left} s left`;
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left`;
}

/** Your own move clock: a bar that empties under the prompt, where your eyes are. */
function myClock() {
  if (S.seat === null) return null;
  const left = secondsLeft(S.seat);
  if (left === null) return null;
  const full = (S.table && S.table.clock) || left || 1;
  const low = left <= CLOCK_WARN_S;
  return el("div", {
    id: "my-clock", class: `my-clock${low ? " low" : ""}`, role: "timer",
    "aria-label": `${left} seconds left to choose; then a bot chooses for you`,
  },
  el("span", { class: "bar", style: `width:${Math.max(0, Math.min(100, (100 * left) / full))}%` }),
  el("span", { class: "words" }, `${clockText(left)}, then a bot chooses`));
}

let warnedAt = null; // the version whose low clock was told already

/** Count your own clock down, and warn once when it runs low. */
function tickMyClock() {
  const box = document.getElementById("my-clock");
  const left = S.seat === null ? null : secondsLeft(S.seat);
  if (!box || left === null) return;
  const full = (S.table && S.table.clock) || left || 1;
  box.querySelector(".bar").style.width = `${Math.max(0, Math.min(100, (100 * left) / full))}%`;
  const words = `${clockText(left)}, then a bot chooses`;
  const span = box.querySelector(".words");
  if (span.textContent !== words) span.textContent = words;
  box.classList.toggle("low", left <= CLOCK_WARN_S);
  if (left <= CLOCK_WARN_S && left > 0 && warnedAt !== S.version) {
    warnedAt = S.version;
    announce(`${left} seconds left: then a bot chooses for you.`);
    S.sound.play("hurry");
  }
}

/** Seconds before the bot bidding next stops waiting for a bid change, or null. */
function changeSecondsLeft() {
  if (!S.changeWait) return null;
  return Math.max(0, Math.ceil((S.changeWait.ms - (Date.now() - S.changeWaitAt)) / 1000));
}

/** "Bruno bids in 3 s", counted down by tickClocks. */
function changeCountdown() {
  return el("span", { id: "change-countdown" }, changeWords());
}

function changeWords() {
  const w = S.changeWait;
  if (!w || !S.obs) return "";
  const left = changeSecondsLeft();
  const next = S.obs.names[w.next];
  return left > 0 ? `${next} bids in ${left} s` : `${next} is bidding`;
}

/** Count the clocks down between the server's messages. */
function tickClocks() {
  const countdown = document.getElementById("change-countdown");
  if (countdown) {
    const words = changeWords();
    if (countdown.textContent !== words) countdown.textContent = words;
  }
  for (const box of document.querySelectorAll("#players .clock")) {
    const left = secondsLeft(Number(box.dataset.seat));
    if (left === null) continue;
    box.textContent = clockText(left);
    box.classList.toggle("low", left <= 10);
  }
  tickMyClock();
  if (S.claims) S.claims.tick();
}

/**
 * The host may hand a person's seat to a bot: offered on the seat of someone
 * who has left, or who is keeping the table waiting (it is their turn).
 */
function replaceButton(s, info) {
  if (!S.host || s === S.seat || info.kind !== "human" || info.away) return null;
  if (!S.table || S.table.status !== "playing" || !S.obs) return null;
  if (info.connected && !S.obs.actors.includes(s)) return null;
  // A friend whose turn just came is thinking, not stuck: give them a few seconds.
  if (info.connected && Date.now() - S.stateAt < REPLACE_GRACE_MS) return null;
  return el("button", {
    type: "button", class: "replace-button", dataset: { seat: s },
    title: "A bot plays this seat until its player acts again",
    onclick: () => send({ type: "replace", seat: s }),
  }, "Let a bot play");
}

/**
 * Is it `s`'s turn? In sequential bidding with bid changes, the seat that may
 * still change its bid is an actor too, but it is not the one we wait for.
 */
// Whose turn it is comes from the server ("turn"), which asks the rules.
const isTurn = (o, s) => Boolean(o.turn && o.turn.includes(s));


function kindLine(info) {
  if (info.away) return el("div", { class: "kind away-note" }, "(bot playing until they return)");
  if (info.kind === "bot") return el("div", { class: "kind" }, `bot: ${info.level}`);
  if (info.kind === "human" && !info.connected) return el("div", { class: "kind" }, "offline");
  return null;
}

/** The turned card (or trump suit) in a corner of the table. */
function trumpIndicator(o) {
  let face;
  if (!["bid", "trump", "play"].includes(o.phase)) return null;
  if (!o.trump_decided) face = el("span", { class: "trump-suit" }, "?");
  else if (o.turned) face = cardElement(o.turned, { label: `Trump: turned ${cardWords(o.turned)}` });
  else face = el("span", { class: "trump-suit" }, suitSpan(o.trump));
  return el("div", { id: "trump-card", title: "Trump", dataset: { corner: "tl" } },
    el("span", { class: "label" }, o.trump || !o.trump_decided ? "Trump" : "No trump"), face);
}

// Places in the felt, in % of its size: the corners, then the middle of each side.
const CORNERS = ["tl", "tr", "bl", "br", "ml", "mr"];

/**
 * Put `node` (the trump card, the last trick's label) in the first of the
 * felt's corners where it covers no seat and nothing in `avoid`, measured on
 * the page as laid out (seats move with the number of players and the
 * screen: with 3 or 5 players the top corners are taken, with 6 on a phone
 * every corner is, and the middle of a side is free). Where none is free,
 * the place it covers least.
 */
function settle(node, avoid = []) {
  if (!node || !node.isConnected) return;
  const others = [...document.querySelectorAll("#players .seat"), ...avoid].map((e) => e.getBoundingClientRect());
  const covered = () => {
    const r = node.getBoundingClientRect();
    return others.reduce((sum, o) => sum + Math.max(0, Math.min(r.right, o.right) - Math.max(r.left, o.left))
      * Math.max(0, Math.min(r.bottom, o.bottom) - Math.max(r.top, o.top)), 0);
  };
  let best = null;
  for (const corner of CORNERS) {
    node.dataset.corner = corner;
    const area = covered();
    if (area === 0) return;
    if (!best || area < best.area) best = { corner, area };
  }
  node.dataset.corner = best.corner;
}

// --- the trick in the middle ---

let shownPlays = new Set(); // "seat:card" of the cards drawn on the table last time

function renderTrick() {
  const o = S.obs;
  const box = $("#trick");
  const me = S.seat ?? 0;
  let plays = [];
  let kind = "empty";
  let caption = null;
  let winner = null;
  const last = S.lastTrick;
  if (S.showLast && last) {
    kind = "last";
    ({ plays, winner } = last);
    caption = `Last trick: ${o.names[winner] ?? "?"} won it (press l to close).`;
  } else if (o.trick.length) {
    kind = "current";
    plays = o.trick;
  } else if (last && o.phase === "play" && last.hand === o.hand_number) {
    kind = "finished";
    ({ plays, winner } = last);
    caption = winner === S.seat ? `You won the trick${winner === o.leader ? " and lead" : ""}.`
      : `${o.names[winner]} won the trick${winner === o.leader ? " and leads" : ""}.`;
  } else if (last && Date.now() < S.finishedUntil) {
    kind = "finished";
    ({ plays, winner } = last);
    caption = `${winner === S.seat ? "You" : o.names[winner] ?? "?"} won the last trick of hand ${last.hand + 1}.`;
  } else if (o.phase === "draw" && o.draws.length) {
    kind = "draw";
    plays = o.draws[o.draws.length - 1].map((c, s) => [s, c]).filter(([, c]) => c);
    caption = "Drawing for the first dealer: the highest card deals.";
  }
  box.dataset.kind = kind;
  // Only a card that was not on the table before slides in (every render rebuilds the cards).
  const keys = plays.map(([seat, card]) => `${seat}:${card}`);
  const fresh = (key) => kind === "current" && !shownPlays.has(key);
  const collect = kind === "finished" && winner !== null ? collecting(keys.join(","), winner, me, o.players) : null;
  const cards = plays.map(([seat, card], i) => {
    const pos = seatPosition(seat, me, o.players, { x: 17, y: 20 });
    let style = `left:${pos.x}%;top:${pos.y}%;z-index:${i + 1}`;
    if (collect) style += `;--dx:${collect.dx(pos)}px;--dy:${collect.dy(pos)}px;animation-delay:${collect.delay}ms`;
    return el("div", {
      class: `played${seat === winner ? " winner" : ""}${i === 0 ? " lead" : ""}${fresh(keys[i]) ? " enter" : ""}`
        + (collect ? " collect" : ""),
      dataset: { seat },
      style,
    }, cardElement(card, { label: card ? `${o.names[seat]}: ${cardWords(card)}${card.slice(-1) === o.trump ? ", trump" : ""}`
      : `${o.names[seat]}: a hidden card` }),
    el("span", { class: "by" }, seat === S.seat ? "you" : o.names[seat]));
  });
  shownPlays = new Set(keys);
  S.trickCaption = caption;
  // The last trick of a hand lingers into the next one: say on the felt which it is.
  const label = kind === "finished" && last && last.hand !== o.hand_number
    ? el("div", { class: "trick-label", dataset: { corner: "bl" } }, `Last trick of hand ${last.hand + 1}`)
    : null;
  fill(box, cards, label);
  settle(label, [$("#trump-card"), ...box.querySelectorAll(".played")].filter(Boolean));
  $("#last-button").setAttribute("aria-pressed", String(kind === "last"));
}

const COLLECT_AFTER_MS = 900; // a finished trick stays still this long, then slides to its winner
let collected = { key: null, at: 0 }; // the finished trick being gathered, and since when (ms)

/**
 * A finished trick's cards slide to the seat of the player who won it (CSS
 * animation "collect"; none under prefers-reduced-motion, where the cards
 * simply stay). Each render rebuilds the cards, so the animation's delay
 * counts from when this trick was first shown: it goes on, never restarts.
 */
function collecting(key, winner, me, players) {
  if (collected.key !== key) collected = { key, at: Date.now() };
  const felt = $("#felt").getBoundingClientRect();
  const to = seatPosition(winner, me, players, { x: 38, y: 40 });
  return {
    dx: (pos) => Math.round(((to.x - pos.x) * felt.width) / 100),
    dy: (pos) => Math.round(((to.y - pos.y) * felt.height) / 100),
    delay: COLLECT_AFTER_MS - (Date.now() - collected.at),
  };
}

// --- bids, trump, keep ---

let reservedFor = null; // the most cards and the width the bid area's height was measured for

/**
 * The bid area keeps the height of the largest choice this match can ask
 * for (a bid on the biggest hand, with the label and the keep button), so
 * the hand below it stands still from the first hand to the last. Measured
 * on a hidden copy at the page's own width and styles.
 */
function reserveChoices() {
  const box = $("#bids");
  const most = S.table && S.table.most_cards;
  const width = box.clientWidth;
  const key = `${most}|${width}`;
  if (!most || !width || key === reservedFor) return;
  reservedFor = key;
  const probe = (...children) => el("div", { class: "choices probe", "aria-hidden": "true",
    style: `width:${width}px` }, children);
  const bids = probe(el("span", { class: "label" }, "Change your bid:"),
    el("div", { class: "bid-row" }, Array.from({ length: most + 1 }, (_, b) => el("button", {
      type: "button", class: "bid-button", tabindex: -1 }, el("span", { class: "n" }, String(b)),
    b === most ? el("small", {}, "hook") : null))),
    el("button", { type: "button", class: "primary keep-button", tabindex: -1 }, "Keep my bid"));
  const trump = probe(el("span", { class: "label" }, "Name trump:"), el("div", { class: "bid-row" },
    TRUMP_CHOICES.map((suit) => el("button", { type: "button", class: "suit-button", tabindex: -1 }, suit))));
  document.body.append(bids, trump);
  const height = Math.max(bids.offsetHeight, trump.offsetHeight);
  bids.remove();
  trump.remove();
  box.style.height = `${height}px`;
}

function renderChoices() {
  const o = S.obs;
  const box = $("#bids");
  reserveChoices();
  const m = mode();
  const hint = currentHint();
  const hinted = hint ? hint.action : null;
  box.dataset.mode = m || "none";
  if (m === "bid" || m === "change") {
    const buttons = [];
    for (let b = 0; b <= o.hand_size; b++) buttons.push(bidButton(b, m, hinted));
    const label = m === "bid" ? "Your bid:" : "Change your bid:"; // the current one says "now"
    // "Keep my bid" only hurries a waiting bot: the bid stands without it.
    fill(box, el("span", { class: "label" }, label), el("div", { class: "bid-row" }, buttons),
      m === "change" && S.changeWait ? el("button", { type: "button", id: "keep-button", class: "primary keep-button", onclick: keepBid,
        disabled: S.pending, "aria-keyshortcuts": "k",
        title: "Let the next player bid now" }, "Keep my bid") : null);
  } else if (m === "trump") {
    const buttons = TRUMP_CHOICES.map((suit, i) => {
      const ok = Boolean(findLegal("trump", (a) => (a.suit || "NT") === suit));
      const isHint = hinted && hinted.kind === "trump" && (hinted.suit || "NT") === suit;
      return el("button", {
        type: "button", class: `suit-button${isHint ? " hinted" : ""}`, dataset: { suit },
        disabled: !ok || S.pending, "aria-label": suit === "NT" ? "No trump" : `Name ${suitWords(suit).slice(2)} as trump`,
        "aria-keyshortcuts": String(i + 1), onclick: () => nameTrump(suit),
      }, suit === "NT" ? "No trump" : suitSpan(suit));
    });
    fill(box, el("span", { class: "label" }, "Name trump:"), el("div", { class: "bid-row" }, buttons));
  } else if (o.balance) {
    fill(box, el("span", { class: `balance ${o.balance}` }, balanceWords(o)));
  } else {
    fill(box);
  }
}

function bidButton(b, m, hinted) {
  const o = S.obs;
  const kind = m === "change" ? "change" : "bid";
  const ok = Boolean(findLegal(kind, (a) => a.bid === b));
  const hook = m === "bid" && b === o.forbidden_bid;
  const current = m === "change" && b === o.bids[S.seat];
  const isHint = hinted && hinted.kind === kind && hinted.bid === b;
  const classes = ["bid-button"];
  if (hook) classes.push("hook");
  if (current) classes.push("current");
  if (isHint) classes.push("hinted");
  let label = m === "change" ? `Change bid to ${b}` : `Bid ${b}`;
  if (hook) label = `${b}: not allowed, the hook`;
  if (current) label = `${b}: your bid now`;
  return el("button", {
    type: "button", class: classes.join(" "), dataset: { bid: b }, disabled: !ok || S.pending,
    "aria-label": label,
    title: hook ? `The hook: the last bidder may not make the bids add up to ${o.hand_size}` : current ? "your bid now" : "",
    onclick: () => bid(b),
  }, el("span", { class: "n" }, String(b)), hook ? el("small", {}, "hook") : current ? el("small", {}, "now") : null);
}

// --- my hand ---

function renderHand() {
  const o = S.obs;
  const box = $("#hand");
  const me = S.seat;
  const playing = mode() === "play" && !S.pending;
  const hint = currentHint();
  const hintedCard = hint && hint.action.kind === "play" ? (hint.action.card ?? "hidden") : undefined;
  box.classList.toggle("playing", playing);
  if (me === null) {
    fill(box);
    box.closest("#hand-box").hidden = true;
    return;
  }
  // Over, or ended by the host: nothing is left to play, so no hand is offered.
  box.closest("#hand-box").hidden = o.phase === "over" || ended();
  if (o.devils_bridge && !o.hands[me]) {
    // R-DEVILS-BRIDGE: my own card is held to my forehead: a back I can play blind.
    const count = o.hand_counts[me];
    const blind = Boolean(findLegal("play", (a) => a.card === null));
    fill(box, Array.from({ length: count }, () => {
      const button = cardElement(null, { button: true, label: "Your card, face down: you cannot see it" });
      // Never disabled: the hand stays reachable with Tab; aria-disabled says it cannot be played now.
      button.setAttribute("aria-disabled", String(!(playing && blind)));
      if (playing && blind) button.classList.add("legal");
      if (hintedCard === "hidden") button.classList.add("hinted");
      button.addEventListener("click", () => playCard(null));
      return button;
    }));
    fitHand(); // at once: a wrapped hand must never be seen, even for a moment
    return;
  }
  const cards = o.hands[me] || [];
  const playable = new Set(legal().filter((a) => a.kind === "play").map((a) => a.card));
  const groups = groupHand(cards, o.trump).map(([suit, codes]) => el("div", { class: "suit-group", dataset: { suit } },
    codes.map((code) => {
      const trump = code.slice(-1) === o.trump;
      // A screen reader hears "trump" with a trump card; the eye sees its mark.
      const button = cardElement(code, { button: true, label: `${cardWords(code)}${trump ? ", trump" : ""}` });
      const ok = playing && playable.has(code);
      // Never disabled: the hand can be browsed with Tab at any time; aria-disabled
      // and the dimming say which cards cannot be played now.
      button.setAttribute("aria-disabled", String(!ok));
      if (playing) button.classList.add(ok ? "legal" : "dim");
      if (code === hintedCard) button.classList.add("hinted");
      if (trump) button.classList.add("trump");
      button.addEventListener("click", () => playCard(code));
      return button;
    })));
  fill(box, groups);
  fitHand(); // at once: a wrapped hand must never be seen, even for a moment
}

/**
 * Overlap the cards just enough to fit the hand on one line (phones): every
 * join between two cards (within a suit or between suits) gets the same
 * negative margin, --overlap, and at least 18 px of each card, its corner
 * with rank and suit, stays visible. Only a very long hand still wraps.
 */
function fitHand() {
  const box = $("#hand");
  const cards = box.querySelectorAll(".card");
  box.style.setProperty("--overlap", "0px");
  if (cards.length < 2) return;
  const width = cards[0].getBoundingClientRect().width;
  const groups = box.querySelectorAll(".suit-group").length || 1;
  const gap = 4; // between cards of a suit (style.css)
  const groupGap = 12; // between suits (style.css)
  const joins = cards.length - 1;
  const natural = cards.length * width + (joins - (groups - 1)) * gap + (groups - 1) * groupGap;
  const room = box.clientWidth - 2;
  if (natural <= room) return;
  const overlap = Math.max((room - natural) / joins, 18 - width - gap);
  box.style.setProperty("--overlap", `${Math.floor(overlap)}px`);
}

// --- hint ---

function actionWords(a) {
  switch (a.kind) {
    case "bid": return `bid ${a.bid}`;
    case "change": return `change your bid to ${a.bid}`;
    case "trump": return a.suit && a.suit !== "NT" ? `name ${suitWords(a.suit).slice(2)} as trump` : "name no trump";
    case "play": return a.card ? `play the ${cardWords(a.card).toLowerCase()}` : "play your unseen card";
    default: return JSON.stringify(a);
  }
}

function renderHint() {
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
    el("button", { type: "button", onclick: () => { S.hint.hidden = true; render(); } }, "Close"));
}

// --- score sheet, standings, rules ---

let drawnScores = null; // results count and names drawn, so the sheet is rebuilt only on change

function renderScores() {
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

function renderStandings() {
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
  record.href = `/api/tables/${encodeURIComponent(TABLE)}/record`;
  record.setAttribute("download", `ohhell-${TABLE}.ohr`);
  record.onclick = downloadRecord;
  record.hidden = !mine;
  $("#replay-link").href = `/replay?table=${encodeURIComponent(TABLE)}`;
  $("#replay-link").hidden = !mine;
  // The review is for the table's players, and for anyone at a public table.
  const review = $("#review-link");
  review.hidden = S.seat === null && !(S.table && S.table.public);
  review.href = `/replay?table=${encodeURIComponent(TABLE)}&review=1`;
}

/**
 * Download the table's record: fetched with the seat's token in a header (a
 * private table's record holds every hand, so it is its players' alone, and
 * a token in the address would be logged), then saved as a file.
 */
async function downloadRecord(event) {
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
function renderRematch() {
  const box = $("#rematch");
  const again = S.table && S.table.rematch;
  const key = JSON.stringify([again, S.seat]);
  if (box.dataset.key === key) return; // unchanged: keep the button (and the focus on it)
  box.dataset.key = key;
  if (S.seat === null) {
    fill(box, again ? el("a", { class: "button", href: `/t/${encodeURIComponent(again.table)}` },
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

async function playAgain() {
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

function renderRules() {
  const t = S.table;
  const key = t ? JSON.stringify([t.description, t.clock]) : null;
  if (!t || drawnRules === key) return;
  drawnRules = key;
  const lines = Array.isArray(t.description) ? t.description : String(t.description || "").split("\n");
  fill($("#rules-list"), [...lines.filter(Boolean), clockWords(t.clock)].map((line) => el("li", {}, line)));
}

/** The table's move clock in words (a table setting, shown with the rules). */
function clockWords(seconds) {
  if (!seconds) return "No move clock: the table waits for each person.";
  return `Move clock: ${seconds} seconds for each decision when two or more people play; `
    + "then a bot decides for that person until they are back.";
}

// --- the log of what happened ---

function logAction(last, prev, obs) {
  const who = (s) => (s === S.seat ? "You" : obs.names[s]);
  const verb = (s, mine, theirs) => `${who(s)} ${s === S.seat ? mine : theirs}`;
  const lines = [];
  switch (last.kind) {
    case "draw":
      lines.push(["Draw for dealer: ", ...last.cards.flatMap((c, s) => (c ? [`${who(s)} `, cardSpan(c), " "] : []))]);
      break;
    case "deal":
      lines.push([el("strong", {}, `Hand ${obs.hand_number + 1}: ${obs.names[obs.dealer]} deals ${obs.hand_size}`)]);
      break;
    case "bid":
      lines.push([last.bid === undefined ? verb(last.seat, "have bid (sealed)", "has bid (sealed)") : `${verb(last.seat, "bid", "bids")} ${last.bid}`]);
      break;
    case "change":
      lines.push([`${verb(last.seat, "change", "changes")} the bid to ${last.bid}`]);
      break;
    case "trump":
      lines.push([`${verb(last.seat, "name", "names")} `, last.suit === "NT" ? "no trump" : suitSpan(last.suit)]);
      break;
    case "play":
      lines.push([`${verb(last.seat, "play", "plays")} `, last.card ? cardSpan(last.card) : "a card unseen"]);
      if (obs.tricks.length > (prev && prev.hand_number === obs.hand_number ? prev.tricks.length : 0)) {
        const t = obs.tricks[obs.tricks.length - 1];
        lines.push([`  → ${verb(t.winner, "win", "wins")} the trick`]);
      }
      break;
    default:
      return;
  }
  if (prev && obs.results.length > prev.results.length) {
    const r = obs.results[obs.results.length - 1];
    const made = obs.names.filter((_, s) => r.bids[s] === r.tricks[s]);
    lines.push([el("em", {}, `Hand ${r.number} over; made their bids: ${made.join(", ") || "nobody"}`)]);
  }
  const log = $("#log");
  for (const parts of lines) log.append(el("li", {}, parts));
  while (log.children.length > 300) log.firstChild.remove();
  log.scrollTop = log.scrollHeight; // the log box scrolls by itself, never the page
}

main();
