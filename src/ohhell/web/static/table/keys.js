// The table page's keys (listed on the page, #keys): digits bid, 1-5 name
// trump, arrows move between playable cards, and the tools' letters.

import { $, typingInField } from "../common.js";
import { mode, redraw, S, TRUMP_CHOICES } from "./state.js";
import { askHint, bid, keepBid, nameTrump, toggleLast, toggleScores } from "./actions.js";

export function onKey(event) {
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
    redraw();
  } else {
    return;
  }
  event.preventDefault();
}

/**
 * Digits make a bid. A bid over 9 needs two digits: when the first digit
 * could still start a larger legal bid, wait a moment for the second.
 */
export function typeDigit(d) {
  clearTimeout(S.digitTimer);
  S.digits += String(d);
  const value = Number(S.digits);
  const size = S.obs ? S.obs.hand_size : 0;
  if (value > 0 && value * 10 <= size) {
    S.digitTimer = setTimeout(finishDigits, 1200);
    redraw(); // the status line shows the digit typed so far
    return;
  }
  finishDigits();
}

export function finishDigits() {
  clearTimeout(S.digitTimer);
  const value = Number(S.digits);
  S.digits = "";
  bid(value);
}

/** Arrows: move focus along the enabled cards of the hand, else along the bid buttons. */
export function moveFocus(step) {
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
