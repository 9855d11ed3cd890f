// The move clocks: counted down on the page from the server's figures (the
// server decides when time is up), your own as a bar under the prompt.

import { el } from "../common.js";
import { S } from "./state.js";
import { announce } from "./spoken.js";

/** The clocks as the server counted them ([{seat, ms}]), from now on. */
export function setClocks(clocks) {
  S.clocks = clocks;
  S.clocksAt = Date.now();
}

/** Seconds left on ``s``'s turn clock, or null. */
export function secondsLeft(s) {
  const clock = S.clocks.find((c) => c.seat === s);
  if (!clock) return null;
  return Math.max(0, Math.ceil((clock.ms - (Date.now() - S.clocksAt)) / 1000));
}

export function clockFor(s) {
  const left = secondsLeft(s);
  if (left === null) return null;
  const name = S.obs.names[s];
  if (s === S.seat) return null; // your own clock is a bar in the prompt (myClock)
  return el("div", {
    class: `clock${left <= 10 ? " low" : ""}`, dataset: { seat: s }, role: "timer",
    "aria-label": `${name} has ${left} seconds left`,
  }, clockText(left));
}

export const CLOCK_WARN_S = 10; // seconds left when your clock turns red, is read out and (sounds on) beeps

/** "45 s left", or "1:30 left" for long clocks: plain characters every font has. */
export function clockText(left) {
  if (left < 60) return `${left} s left`;
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left`;
}

/** Your own move clock: a bar that empties under the prompt, where your eyes are. */
export function myClock() {
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
export function tickMyClock() {
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
export function changeSecondsLeft() {
  if (!S.changeWait) return null;
  return Math.max(0, Math.ceil((S.changeWait.ms - (Date.now() - S.changeWaitAt)) / 1000));
}

/** "Bruno bids in 3 s", counted down by tickClocks. */
export function changeCountdown() {
  return el("span", { id: "change-countdown" }, changeWords());
}

export function changeWords() {
  const w = S.changeWait;
  if (!w || !S.obs) return "";
  const left = changeSecondsLeft();
  const next = S.obs.names[w.next];
  return left > 0 ? `${next} bids in ${left} s` : `${next} is bidding`;
}

/** Count the clocks down between the server's messages. */
export function tickClocks() {
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
