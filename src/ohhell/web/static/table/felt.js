// The felt: the players around the table, the trump card, and the trick in
// the middle (sliding to its winner when it is taken).

import { $, cardElement, cardWords, el, fill, playerColour, seatPosition, suitSpan } from "../common.js";
import { isTurn, REPLACE_GRACE_MS, S, seatInfo, TURN_VERB } from "./state.js";
import { send } from "./connection.js";
import { clockFor } from "./clocks.js";

export function renderPlayers() {
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
export function seatSummary(o, s, info) {
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

/**
 * The host may hand a person's seat to a bot: offered on the seat of someone
 * who has left, or who is keeping the table waiting (it is their turn).
 */
export function replaceButton(s, info) {
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

export function kindLine(info) {
  if (info.away) return el("div", { class: "kind away-note" }, "(bot playing until they return)");
  if (info.kind === "bot") return el("div", { class: "kind" }, `bot: ${info.level}`);
  if (info.kind === "human" && !info.connected) return el("div", { class: "kind" }, "offline");
  return null;
}

/** The turned card (or trump suit) in a corner of the table. */
export function trumpIndicator(o) {
  let face;
  if (!["bid", "trump", "play"].includes(o.phase)) return null;
  if (!o.trump_decided) face = el("span", { class: "trump-suit" }, "?");
  else if (o.turned) face = cardElement(o.turned, { label: `Trump: turned ${cardWords(o.turned)}` });
  else face = el("span", { class: "trump-suit" }, suitSpan(o.trump));
  return el("div", { id: "trump-card", title: "Trump", dataset: { corner: "tl" } },
    el("span", { class: "label" }, o.trump || !o.trump_decided ? "Trump" : "No trump"), face);
}

// Places in the felt, in % of its size: the corners, then the middle of each side.
export const CORNERS = ["tl", "tr", "bl", "br", "ml", "mr"];

/**
 * Put `node` (the trump card, the last trick's label) in the first of the
 * felt's corners where it covers no seat and nothing in `avoid`, measured on
 * the page as laid out (seats move with the number of players and the
 * screen: with 3 or 5 players the top corners are taken, with 6 on a phone
 * every corner is, and the middle of a side is free). Where none is free,
 * the place it covers least.
 */
export function settle(node, avoid = []) {
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

let shownPlays = new Set(); // "seat:card" of the cards drawn on the table last time

export function renderTrick() {
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
  // Only a card that was not on the table before slides in (every redraw rebuilds the cards).
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

export const COLLECT_AFTER_MS = 900; // a finished trick stays still this long, then slides to its winner

let collected = { key: null, at: 0 }; // the finished trick being gathered, and since when (ms)

/**
 * A finished trick's cards slide to the seat of the player who won it (CSS
 * animation "collect"; none under prefers-reduced-motion, where the cards
 * simply stay). Each redraw rebuilds the cards, so the animation's delay
 * counts from when this trick was first shown: it goes on, never restarts.
 */
export function collecting(key, winner, me, players) {
  if (collected.key !== key) collected = { key, at: Date.now() };
  const felt = $("#felt").getBoundingClientRect();
  const to = seatPosition(winner, me, players, { x: 38, y: 40 });
  return {
    dx: (pos) => Math.round(((to.x - pos.x) * felt.width) / 100),
    dy: (pos) => Math.round(((to.y - pos.y) * felt.height) / 100),
    delay: COLLECT_AFTER_MS - (Date.now() - collected.at),
  };
}
