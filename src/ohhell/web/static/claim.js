// Claims at the table (docs/web.md, "Claims"): claim all, none or some of the
// tricks left; answer another player's claim. The server decides everything
// (whether a claim is certain, who is asked, how the hand is settled): this
// page only sends {type: "claim", tricks} and {type: "answer", accept} and
// shows the server's {type: "claim", status, ...} messages.
//
// Stable selectors (tests rely on these):
//   #claim-button                 opens the claim panel (your cards in play)
//   #claim                        the panel: button[data-tricks] to claim, .cancel
//   #claim .accept, #claim .refuse   answer another player's claim
//   #claim .shown .mini           the claimer's cards, laid down (title: the card's name)

import { $, cardSpan, el, fill } from "./common.js";

/**
 * The claim panel. `ctx` gives the page's state and tools: send(message),
 * seat(), obs(), seats() (the table's public seats, for which are bots), ended(),
 * render(), showMessage(text, kind, ms), announce(text), log(text).
 */
export function createClaims(ctx) {
  let open = false; // the panel to make a claim is open
  let asking = null; // the claim being asked: {seat, tricks, left, cards, waiting, ms}, and .at (ms)
  let made = []; // this hand's accepted claims: [{seat, tricks}]
  let triedHand = null; // the hand of my last claim: one claim a hand (the server says so too)
  let shownFor = null; // the claim or panel last brought into view (scrolled to once, not on every render)

  const name = (s) => (s === ctx.seat() ? "You" : ctx.obs().names[s]);
  const tricks = (n) => `${n} trick${n === 1 ? "" : "s"}`;

  function left() {
    const o = ctx.obs();
    return o ? o.hand_size - o.tricks.length : 0;
  }

  /** "2 of the 3 tricks left", "all 3 tricks left", "none of the 3 tricks left". */
  function claimWords(k, n) {
    if (k === n) return `all ${tricks(n)} left`;
    if (k === 0) return `none of the ${tricks(n)} left`;
    return `${k} of the ${tricks(n)} left`;
  }

  /** The state message's claims: the one being asked and this hand's accepted ones. */
  function fromState(claims) {
    made = (claims && claims.made) || [];
    const wasAsking = asking;
    asking = claims && claims.asking ? { ...claims.asking, at: Date.now() } : null;
    if (wasAsking && !asking) open = false;
  }

  function handle(m) {
    const who = name(m.seat);
    const mine = m.seat === ctx.seat();
    const what = claimWords(m.tricks, m.left);
    let text = "";
    if (m.status === "asked") {
      asking = { ...m, at: Date.now() };
      open = false;
      text = mine ? `You claim ${what}: the others are asked.` : `${who} claims ${what}: accept or refuse.`;
    } else if (m.status === "accepted") {
      asking = null;
      made = [...made, { seat: m.seat, tricks: m.tricks }];
      const how = m.agreed ? "everyone agreed: the hand is played out"
        : m.tricks === m.left ? "certain from the cards: the hand is played out"
          : `certain from the cards: ${mine ? "your" : "their"} cards are played so it comes true`;
      text = `${mine ? "You claim" : `${who} claims`} ${what}; ${how}.`;
    } else if (m.status === "refused") {
      asking = null;
      const by = m.by === null || m.by === undefined ? "" : ` by ${name(m.by) === "You" ? "you" : name(m.by)}`;
      const why = m.why ? ` (${m.why})` : "";
      text = `${mine ? "Your" : `${who}'s`} claim of ${what} is refused${by}${why}; play on.`;
    } else if (m.status === "withdrawn") {
      asking = null;
      text = `${mine ? "Your" : `${who}'s`} claim is off: ${m.why || "the play went on"}.`;
    }
    if (text) {
      ctx.showMessage(text, "info", 8000);
      ctx.announce(text);
      ctx.log(text);
    }
    ctx.render();
  }

  /** Do the server's hands play my cards now (my certain claim of this hand)? */
  const mineMade = () => made.some((c) => c.seat === ctx.seat());

  function canClaim() {
    const o = ctx.obs();
    return ctx.seat() !== null && o && o.phase === "play" && !ctx.ended() && !o.devils_bridge && left() > 0
      && o.hand_counts[ctx.seat()] > 0 && !made.length && !asking && triedHand !== o.hand_number;
  }

  function send(k) {
    open = false;
    triedHand = ctx.obs().hand_number;
    ctx.send({ type: "claim", tricks: k });
    ctx.render();
  }

  function answer(accept) {
    ctx.send({ type: "answer", accept });
  }

  function render() {
    const button = $("#claim-button");
    button.hidden = !canClaim();
    button.setAttribute("aria-expanded", String(open));
    const box = $("#claim");
    if (asking) {
      const seconds = Math.max(0, Math.ceil((asking.ms - (Date.now() - asking.at)) / 1000));
      const mine = asking.seat === ctx.seat();
      const waiting = asking.waiting.map(name).join(", ");
      const mustAnswer = asking.waiting.includes(ctx.seat());
      box.hidden = false;
      fill(box, el("h2", {}, "A claim"),
        el("p", {}, `${mine ? "You claim" : `${name(asking.seat)} claims`} ${claimWords(asking.tricks, asking.left)}, `
          + `showing ${mine ? "your" : "their"} cards:`),
        el("p", { class: "shown" }, asking.cards.map((c) => [cardSpan(c), " "])),
        mustAnswer ? el("div", { class: "row-form" },
          el("button", { type: "button", class: "primary accept", onclick: () => answer(true) }, "Accept"),
          el("button", { type: "button", class: "refuse", onclick: () => answer(false) }, "Refuse"),
          el("span", { class: "muted" }, " ", el("span", { id: "claim-seconds" }, String(seconds)),
            " s to answer; no answer refuses."))
          : el("p", { class: "muted" }, `Waiting for ${waiting} to answer (`,
            el("span", { id: "claim-seconds" }, String(seconds)), " s)."));
      bringIntoView(box, `asked:${asking.seat}:${asking.tricks}:${asking.left}`, mustAnswer);
      return;
    }
    if (!open || !canClaim()) {
      open = false;
      shownFor = null;
      box.hidden = true;
      fill(box);
      return;
    }
    const n = left();
    const choices = [];
    for (let k = 0; k <= n; k++) {
      const label = k === 0 ? "None" : k === n ? `All ${n}` : String(k);
      choices.push(el("button", { type: "button", dataset: { tricks: k }, onclick: () => send(k),
        "aria-label": `Claim ${claimWords(k, n)}` }, label));
    }
    box.hidden = false;
    fill(box, el("h2", {}, "Claim the rest"),
      el("p", {}, `How many of the ${tricks(n)} left will you take? ${howAnswered()} `
        + "You may claim once a hand."),
      el("div", { class: "bid-row" }, choices),
      el("button", { type: "button", class: "cancel", onclick: () => close(true) }, "Cancel"));
    bringIntoView(box, `panel:${ctx.obs().hand_number}`, true);
  }

  /**
   * Who answers a claim the cards do not make certain, as the server asks it:
   * bots (and people a bot plays for) first, each from its own cards, then people.
   */
  function howAnswered() {
    const seats = (ctx.seats() || []).filter((s) => s.seat !== ctx.seat());
    const bots = seats.filter((s) => s.kind === "bot" || s.away).length;
    const certain = "If your cards make it certain, it is accepted at once.";
    if (!bots) return `${certain} Otherwise the others see your cards and answer.`;
    const check = "Otherwise the bots check it against their own cards and refuse it unless they are sure";
    if (bots === seats.length) return `${certain} ${check}.`;
    return `${certain} ${check}; then the others see your cards and answer.`;
  }

  /**
   * Scroll the panel into view once when it opens or a claim is put (on a
   * phone it sits below the fold), and move the focus into it when the player
   * opened it or must answer.
   */
  function bringIntoView(box, key, focus) {
    if (shownFor === key) return;
    shownFor = key;
    box.scrollIntoView({ block: "nearest" });
    if (focus) {
      const first = box.querySelector("button");
      if (first) first.focus({ preventScroll: true });
    }
  }

  /** Close the panel to make a claim (Cancel or Escape); the focus goes back to its button. */
  function close(refocus) {
    if (!open) return false;
    open = false;
    ctx.render();
    const button = $("#claim-button");
    if (refocus && button && !button.hidden) button.focus({ preventScroll: true });
    return true;
  }

  /** Count the answer's seconds down between the server's messages. */
  function tick() {
    const span = document.getElementById("claim-seconds");
    if (!span || !asking) return;
    const seconds = String(Math.max(0, Math.ceil((asking.ms - (Date.now() - asking.at)) / 1000)));
    if (span.textContent !== seconds) span.textContent = seconds;
  }

  function toggle() {
    if (open) {
      close(true);
      return;
    }
    open = canClaim();
    ctx.render();
  }

  return { handle, fromState, render, tick, toggle, close, mineMade, canClaim };
}
