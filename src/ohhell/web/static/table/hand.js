// The choices under the felt: the bid and trump buttons (in an area that
// keeps its height all match) and your hand of cards.

import { $, cardElement, cardWords, el, fill, groupHand, suitSpan, suitWords } from "../common.js";
import { currentHint, ended, findLegal, legal, mode, S, TRUMP_CHOICES } from "./state.js";
import { bid, keepBid, nameTrump, playCard } from "./actions.js";

export function balanceWords(o) {
  const total = o.bids.reduce((a, b) => a + (b || 0), 0);
  const tricks = `${o.hand_size} trick${o.hand_size === 1 ? "" : "s"}`;
  // R-BID-ANNOUNCE: under = fewer tricks bid than there are, over = more.
  const word = { under: "under (more tricks than bids)", over: "over (more bids than tricks)", even: "even" }[o.balance] || o.balance;
  return `Bids total ${total} for ${tricks}: ${word}.`;
}

let reservedFor = null; // the most cards and the width the bid area's height was measured for

/**
 * The bid area keeps the height of the largest choice this match can ask
 * for (a bid on the biggest hand, with the label and the keep button), so
 * the hand below it stands still from the first hand to the last. Measured
 * on a hidden copy at the page's own width and styles.
 */
export function reserveChoices() {
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

export function renderChoices() {
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

export function bidButton(b, m, hinted) {
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

export function renderHand() {
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
export function fitHand() {
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
