// What the table page says: the live region read to screen readers (whose
// turn, who won a trick, how a hand went, who joined) and the log of moves.

import { $, cardSpan, cardWords, el, showMessage, SUIT_NAME, suitSpan, suitWords } from "../common.js";
import { S, TURN_VERB } from "./state.js";

/**
 * What a player should hear of a new state: who won the trick just
 * finished, how the hand went, and whose turn it is now, read out by a
 * screen reader (#announce), with a tone when sounds are on.
 */
export function tellState(prev, obs, last) {
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
export function handOpening(obs) {
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
export function spokenAction(last, obs) {
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
export function announce(text) {
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
export function tellChanges(before, after) {
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
export function noteCover(last) {
  const seats = S.table && S.table.seats;
  if (!last || last.seat === null || last.seat === undefined || !seats || !seats[last.seat]) return;
  const seat = seats[last.seat];
  if (seat.kind === "human" && !seat.connected) S.coveredSeats.add(last.seat);
}

export function logAction(last, prev, obs) {
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
