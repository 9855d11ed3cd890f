// The review beside the replay: what each decision cost, what the cards were
// worth, and puzzles made of the costliest mistakes.
//
// The server makes the review in the background (docs/web.md, "Review"):
// POST asks for it, GET says where it stands ({"status": "none" | "running" |
// "done" | "failed", "record", "progress"?, "review"?, "error"?}); this page
// polls while it runs. A finished table's review is asked for with the seat's
// token (POST body, or "Authorization: Bearer" on GET); a record loaded from
// a file is sent whole (POST /api/review) and followed by the review's key
// that every answer holds (GET /api/review, "Authorization: Bearer" too: a
// key in the address would be written to logs).
//
// Selectors: #review-ask (#review-button, #review-progress, #review-status),
// #decision (#decision-verdict, #decision-body, #prev-marked, #next-marked), #review-summary
// (#summary-seats .seat-review[data-seat], button.jump[data-version]),
// #puzzles (#puzzle, #puzzle-choices button.puzzle-choice[data-card], #puzzle-verdict,
// #prev-puzzle, #next-puzzle, #puzzle-show).
// Keys (replay.js passes them on): [ and ] the previous and next marked decision.

import { $, api, cardElement, cardSpan, el, fill, groupHand, SUIT_NAME, suitSpan, suitWords } from "./common.js";

const POLL_MS = 1000;
const MARK_WORDS = { inaccuracy: "Inaccuracy", mistake: "Mistake", blunder: "Blunder" };
const DID = { bid: "bid", trump: "named", play: "played" }; // "Ann played 5♥", "You bid 2"

const V = {
  source: null, // {table, token} or {text} (a record from a file)
  key: null, // the review's key, once the server has given it
  review: null,
  byVersion: new Map(), // action index -> reviewed decision
  marked: [], // versions of the marked decisions, in order
  names: [],
  me: null, // the seat this browser held: "you"
  go: () => {}, // move the replay to a frame (an action's index)
  at: 0, // the replay's frame
  timer: null,
  puzzles: [],
  puzzle: 0,
  asked: false,
};

// ------------------------------------------------------------------ asking and following

/**
 * Offer the review of what the replay shows: `source` {table, token} or
 * {text}; `go(i)` moves the replay to frame i. With `ask` the review is asked
 * for at once (the end-of-match link); a table's review made before is
 * shown at once either way.
 */
export function setupReview({ source, names, me, go, ask = false }) {
  clearTimeout(V.timer);
  Object.assign(V, { source, names, me, go, key: null, review: null, byVersion: new Map(), marked: [],
    puzzles: [], puzzle: 0, asked: false });
  $("#review-ask").hidden = false;
  $("#decision").hidden = true;
  $("#review-summary").hidden = true;
  $("#puzzles").hidden = true;
  $("#review-button").onclick = askForReview;
  $("#prev-marked").onclick = () => jumpMarked(-1);
  $("#next-marked").onclick = () => jumpMarked(1);
  offer("");
  if (ask) askForReview();
  else if (source.table) look();
}

function offer(words, { busy = false } = {}) {
  const button = $("#review-button");
  button.hidden = false;
  button.disabled = busy;
  $("#review-progress").hidden = !busy;
  fill($("#review-status"), words);
}

async function askForReview() {
  V.asked = true;
  offer("Asking for the review…", { busy: true });
  try {
    const answer = V.source.table
      ? await api("POST", `/api/tables/${encodeURIComponent(V.source.table)}/review`,
        V.source.token ? { token: V.source.token } : {})
      : await api("POST", "/api/review", V.source.text);
    onAnswer(answer);
  } catch (err) {
    refused(err);
  }
}

async function look() {
  try {
    const path = V.source.table ? `/api/tables/${encodeURIComponent(V.source.table)}/review` : "/api/review";
    const secret = V.source.table ? V.source.token : V.key;
    const headers = secret ? { Authorization: `Bearer ${secret}` } : {};
    onAnswer(await api("GET", path, undefined, headers));
  } catch (err) {
    refused(err);
  }
}

function refused(err) {
  if (err.status === 403) {
    // A private table's watcher: the review is its players' alone.
    $("#review-button").hidden = true;
    $("#review-progress").hidden = true;
    fill($("#review-status"), err.message);
    return;
  }
  offer(err.message);
}

function onAnswer(answer) {
  V.key = answer.key || V.key;
  if (answer.status === "done") {
    showReview(answer.review);
  } else if (answer.status === "running") {
    progress(answer.progress);
    clearTimeout(V.timer);
    V.timer = setTimeout(look, POLL_MS);
  } else if (answer.status === "failed") {
    offer(`${answer.error} `);
    $("#review-button").textContent = "Ask again";
  } else {
    offer("A strong player's view of every bid and card: what each one cost, and what the cards were worth.");
  }
}

function progress(p) {
  offer("", { busy: true });
  const bar = $("#review-progress");
  if (p && p.waiting !== undefined) {
    // The server makes a few reviews at a time; the others wait in line.
    bar.removeAttribute("value");
    const n = p.waiting;
    fill($("#review-status"), n > 0
      ? `Waiting for its turn: ${n} review${n === 1 ? " is" : "s are"} before yours.`
      : "Waiting for its turn: yours is next.");
    return;
  }
  if (!p || !p.total) {
    bar.removeAttribute("value"); // still starting: a bar without a value shows that
    fill($("#review-status"), "The review is starting…");
    return;
  }
  bar.max = p.total;
  bar.value = p.done;
  const share = Math.floor((100 * p.done) / p.total);
  fill($("#review-status"), `Reviewing: ${p.hands_done} of ${p.hands} hand${p.hands === 1 ? "" : "s"} done (${share}%).`);
}

// ------------------------------------------------------------------ words

const round1 = (x) => (Math.round(x * 10) / 10).toFixed(1);
const points = (x) => {
  const n = Math.round(x);
  return `${n} point${Math.abs(n) === 1 ? "" : "s"}`;
};
const mine = (seat) => V.me !== null && seat === V.me;
const who = (seat) => (mine(seat) ? "you" : V.names[seat] ?? `seat ${seat + 1}`);
const Who = (seat) => (mine(seat) ? "You" : V.names[seat] ?? `Seat ${seat + 1}`);

/** A choice for people: a card drawn small, "a bid of 2", hearts, no trump. */
function choiceNode(kind, choice) {
  if (kind === "play") return cardSpan(choice);
  if (kind === "bid") return `a bid of ${choice}`;
  return choice === "NT" ? "no trump" : el("span", {}, suitSpan(choice), ` ${SUIT_NAME[choice]}`);
}

function choiceText(kind, choice) {
  if (kind === "bid") return `a bid of ${choice}`;
  if (kind === "trump") return suitWords(choice);
  return choice;
}

function valueOf(d, choice) {
  const c = d.choices.find((x) => x.choice === choice);
  return c ? c.expected : null;
}

function where(d) {
  const trick = d.kind === "play" ? `, trick ${d.position.tricks.length + 1}` : "";
  return `Hand ${d.hand}${trick}`;
}

/** Standard errors a loss or a luck must clear to be called a fact (SURE in ohhell.analysis). */
const SURE = 2;

const giveOrTake = (error, digits = 0) => `give or take ${digits ? error.toFixed(digits) : Math.round(error)}`;
const luckClear = (luck, error) => Math.abs(luck) >= SURE * error && Math.round(luck) !== 0;
const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0");

/** Whole numbers that add up to `total`: each part rounded down, the points
 * still missing given to the largest remainders (as rounded_parts in
 * ohhell.analysis.words), so a breakdown adds up to the total beside it. */
export function roundedParts(parts, total) {
  const floors = parts.map(Math.floor);
  let missing = total - floors.reduce((a, b) => a + b, 0);
  const order = parts.map((x, i) => i).sort((i, j) => (parts[j] - floors[j]) - (parts[i] - floors[i]) || i - j);
  const out = [...floors];
  for (let k = 0; missing > 0; k++, missing--) out[order[k % parts.length]] += 1;
  for (let k = 0; missing < 0; k++, missing++) out[order[parts.length - 1 - (k % parts.length)]] -= 1;
  return out;
}

/** "Ann finished 14 points below the table's average: cards −12 (give or
 * take 4), decisions +3, the rest −5 (…)" (as `ohhell review` says it): the
 * parts add up to the gap as shown. */
export function seatSentence(s, hands) {
  const name = Who(s.seat);
  if (!hands) return `${name}: no hand finished, so nothing to say of the cards.`;
  const luckNote = giveOrTake(s.luck_error) + (luckClear(s.luck, s.luck_error) ? "" : ", too little to tell from chance");
  if (s.rest === null) return `The cards: ${cardsWorth(s.luck)} against an average seat (${luckNote}).`;
  const edge = Math.round(s.edge);
  const [cards, decisions, rest] = roundedParts([s.luck, s.edge - s.luck - s.rest, s.rest], edge);
  const where = edge === 0 ? "level with the table's average"
    : `${points(Math.abs(edge))} ${edge > 0 ? "above" : "below"} the table's average`;
  return `${name} finished ${where}: cards ${signed(cards)} (${luckNote}), `
    + `decisions ${signed(decisions)} (against the table's average loss), `
    + `the rest ${signed(rest)} (how the hidden cards and the others' play fell, ${giveOrTake(s.rest_error)}).`;
}

/** "Lost 24 points in all to decisions (give or take 2), 18 of them in the marked decisions." */
function lossSentence(s) {
  if (s.loss < 0.5) return "Almost nothing.";
  const head = `${points(s.loss)} in all (${giveOrTake(s.loss_error)})`;
  const marked = Object.values(s.marks).reduce((a, b) => a + b, 0);
  return marked ? `${head}, ${Math.round(s.marked_loss)} of them in the marked decisions.` : `${head}, none in a marked decision.`;
}

/** "+4 points", "−12 points", "0 points" (rounded before its sign is chosen: never "−0"). */
function cardsWorth(luck) {
  const n = Math.round(luck);
  return `${n > 0 ? "+" : n < 0 ? "−" : ""}${points(Math.abs(n))}`;
}

function marksSentence(s) {
  const parts = [["blunder", "blunders"], ["mistake", "mistakes"], ["inaccuracy", "inaccuracies"]]
    .filter(([m]) => s.marks[m]).map(([m, many]) => `${s.marks[m]} ${s.marks[m] === 1 ? m : many}`);
  const decisions = `${s.decisions} decision${s.decisions === 1 ? "" : "s"}`;
  return parts.length ? `${parts.join(", ")} in ${decisions}.` : `No marked decision in ${decisions}.`;
}

/** " (inaccuracy; close to a mistake)": a mark its loss reaches but its error could undo is only "close". */
function markWords(d) {
  const close = d.close ? `close to ${d.close === "inaccuracy" ? "an" : "a"} ${d.close}` : "";
  const words = [d.mark || "", close].filter(Boolean).join("; ");
  return words ? ` (${words})` : "";
}

// ------------------------------------------------------------------ the review shown

function showReview(review) {
  clearTimeout(V.timer);
  V.review = review;
  V.names = review.seats;
  V.byVersion = new Map(review.decisions.map((d) => [d.version, d]));
  V.marked = review.decisions.filter((d) => d.mark).map((d) => d.version);
  $("#review-ask").hidden = true;
  $("#decision").hidden = false;
  renderSummary();
  V.puzzles = [...review.puzzles].sort((a, b) => (mine(b.decision.seat) - mine(a.decision.seat)));
  V.puzzle = 0;
  $("#puzzles").hidden = !V.puzzles.length;
  if (V.puzzles.length) renderPuzzle();
  showDecisionAt(V.at);
}

function renderSummary() {
  const review = V.review;
  const hands = review.hands.length;
  const note = el("p", { class: "muted" },
    "Points lost are expected points, by a strong player's reckoning of each position from what the player "
    + "could see: the expert (the strongest bot) prices each choice, playing on well, with the others playing as "
    + "the expert would play for them. Each number comes with its error (give or take one standard error); a mark "
    + "is given only where the loss clears its threshold by twice its error. The cards: what each seat's hands "
    + "were worth against an average seat at this table.");
  const seats = review.summary.map((s) => {
    const costly = s.biggest.map((v) => V.byVersion.get(v)).filter(Boolean);
    const avg = s.edge >= 0 ? `${round1(s.edge)} above` : `${round1(-s.edge)} below`;
    return el("article", { class: "seat-review", dataset: { seat: s.seat }, "aria-labelledby": `seat-review-${s.seat}` },
      el("h3", { id: `seat-review-${s.seat}` }, V.names[s.seat], mine(s.seat) ? el("span", { class: "badge you" }, "you") : null),
      el("p", { class: "sentence" }, seatSentence(s, hands)),
      el("dl", { class: "review-numbers" },
        el("dt", {}, "Average loss"), el("dd", {}, `${s.average_loss.toFixed(2)} points a decision (lower is better)`),
        el("dt", {}, "Lost to decisions"), el("dd", {}, lossSentence(s)),
        el("dt", {}, "The cards"), el("dd", {}, hands ? `${cardsWorth(s.luck)} (${giveOrTake(s.luck_error)})` : "no hand finished"),
        el("dt", {}, "Marks"), el("dd", {}, marksSentence(s)),
        el("dt", {}, "Score"), el("dd", {}, `${s.score} (${avg} the table's average)`)),
      costly.length ? el("h4", {}, "Biggest mistakes") : null,
      costly.length ? el("ol", { class: "biggest" }, costly.map((d) => el("li", {},
        el("button", { type: "button", class: "jump", dataset: { version: d.version }, onclick: () => V.go(d.version),
          "aria-label": `${where(d)}: ${choiceText(d.kind, d.chosen)} instead of ${choiceText(d.kind, d.best)}, ${round1(d.loss)} points lost. Show it in the replay.` },
        // One span: the button lays its children out as a row of flex items.
        el("span", {}, `${where(d)}: `, choiceNode(d.kind, d.chosen), " instead of ", choiceNode(d.kind, d.best),
          `, ${round1(d.loss)} lost ${giveOrTake(d.error, 1)}`))))) : null);
  });
  const partial = review.finished ? null : el("p", { class: "muted" },
    "This record stops before the end of the match: the cards are counted over its finished hands only.");
  fill($("#summary-seats"), note, partial, seats);
  $("#review-summary").hidden = false;
}

/** Beside the replay's frame i: the decision made there, if it was reviewed. */
export function showDecisionAt(i) {
  V.at = i;
  if (!V.review) return;
  const d = V.byVersion.get(i);
  $("#prev-marked").disabled = !V.marked.some((v) => v < i);
  $("#next-marked").disabled = !V.marked.some((v) => v > i);
  if (!d) {
    fill($("#decision-verdict"));
    fill($("#decision-body"), el("p", { class: "muted" },
      "Nothing to decide here (a deal, a forced card, or a choice between cards that are the same play)."));
    return;
  }
  const best = valueOf(d, d.best);
  const chose = valueOf(d, d.chosen);
  // Only this line is read out as the replay steps (the live region): the
  // rest is there to read at leisure.
  fill($("#decision-verdict"),
    d.mark ? el("span", { class: `mark ${d.mark}` }, MARK_WORDS[d.mark]) : el("span", { class: "mark good" }, "Good"),
    ` ${where(d)}: ${Who(d.seat)} ${DID[d.kind]} `, d.kind === "bid" ? d.chosen : choiceNode(d.kind, d.chosen), ".");
  const cost = d.loss > 0 && best !== null && chose !== null
    ? el("p", {}, "Best: ", choiceNode(d.kind, d.best),
      `, ${round1(best)} points expected against ${round1(chose)}: ${round1(d.loss)} point${d.loss === 1 ? "" : "s"} lost, `
      + `${giveOrTake(d.error, 1)}${markWords(d)}.`)
    : el("p", {}, d.chosen === d.best ? "The best choice." : ["As good as the best (", choiceNode(d.kind, d.best), ")."]);
  fill($("#decision-body"), cost, handThen(d), choicesTable(d));
}

/** The deciding seat's cards at that moment, the choice made and the best one marked. */
function handThen(d) {
  const p = d.position;
  const cards = p.hands[p.seat];
  const label = `${mine(p.seat) ? "Your" : `${V.names[p.seat]}'s`} cards then`;
  if (!cards) return el("p", { class: "muted" }, `${label}: hidden from ${who(p.seat)} (a blind hand).`);
  const shown = groupHand(cards, p.trump).flatMap(([, codes]) => codes).map((c) => {
    const notes = [];
    if (d.kind === "play" && c === d.chosen) notes.push("played");
    if (d.kind === "play" && c === d.best && c !== d.chosen) notes.push("best");
    const card = cardElement(c, { small: true, label: `${c}${notes.length ? `, ${notes.join(", ")}` : ""}` });
    notes.forEach((n) => card.classList.add(n));
    return card;
  });
  return el("div", { class: "hand-then" }, el("span", { class: "hand-then-label" }, `${label}:`),
    el("div", { class: "hand-cards", role: "group", "aria-label": label }, shown));
}

function choicesTable(d) {
  const seen = new Set();
  const rows = [];
  for (const c of d.choices) {
    if (seen.has(c.choice)) continue;
    c.same_as.forEach((s) => seen.add(s));
    seen.add(c.choice);
    const same = c.same_as.length ? [" (", ...c.same_as.flatMap((s, j) => [j ? ", " : "", choiceNode(d.kind, s)]), " the same)"] : [];
    const tags = [c.choice === d.best ? "best" : null, c.choice === d.chosen || c.same_as.includes(d.chosen) ? "chosen" : null]
      .filter(Boolean);
    rows.push(el("tr", { class: tags.join(" ") },
      el("th", { scope: "row" }, choiceNode(d.kind, c.choice), same, tags.length ? el("small", {}, ` ${tags.join(", ")}`) : null),
      el("td", {}, c.expected === null ? "not tried" : round1(c.expected)),
      el("td", {}, c.error === null ? "rough" : c.choice === d.best || c.same_as.includes(d.best) ? "" : c.error.toFixed(1))));
  }
  return el("table", { class: "choice-values" },
    el("caption", {}, "Each choice and the points it was expected to score this hand; "
      + "give or take: the error of its difference from the best (rough: not priced against the best)"),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Choice"), el("th", { scope: "col" }, "Expected"),
      el("th", { scope: "col" }, "Give or take"))),
    el("tbody", {}, rows));
}

function jumpMarked(step) {
  const target = step > 0 ? V.marked.find((v) => v > V.at) : [...V.marked].reverse().find((v) => v < V.at);
  if (target !== undefined) V.go(target);
}

/** The page's keys for the review ([ and ]); true if the key was one of them. */
export function reviewKey(key) {
  if (!V.review || !["[", "]"].includes(key)) return false;
  jumpMarked(key === "]" ? 1 : -1);
  return true;
}

// ------------------------------------------------------------------ puzzles

function renderPuzzle() {
  const puzzle = V.puzzles[V.puzzle];
  const d = puzzle.decision;
  const p = d.position;
  const seatWords = mine(p.seat) ? "your seat" : `${V.names[p.seat]}'s seat`;
  const question = { bid: "What do you bid?", trump: "Which trump do you name?", play: "Which card do you play?" }[d.kind];
  fill($("#puzzle"),
    el("h3", { id: "puzzle-title", tabindex: "-1" }, `Puzzle ${V.puzzle + 1} of ${V.puzzles.length}: ${seatWords}, ${where(d).toLowerCase()}`),
    el("ul", { class: "position" }, positionLines(p).map((line) => el("li", {}, line))),
    puzzleHand(p),
    el("p", { class: "question", id: "puzzle-question" }, `${question} In the match this choice cost points: find a better one.`),
    el("div", { id: "puzzle-choices", class: "puzzle-choices", role: "group", "aria-labelledby": "puzzle-question" },
      choices(d)),
    el("div", { id: "puzzle-verdict", class: "puzzle-verdict", "aria-live": "polite" }),
    el("div", { class: "puzzle-nav" },
      el("button", { type: "button", id: "prev-puzzle", disabled: V.puzzle === 0, onclick: () => movePuzzle(-1) }, "◀ Previous puzzle"),
      el("button", { type: "button", id: "next-puzzle", disabled: V.puzzle === V.puzzles.length - 1, onclick: () => movePuzzle(1) }, "Next puzzle ▶"),
      el("button", { type: "button", id: "puzzle-show", onclick: () => V.go(d.version) }, "Show it in the replay")));
}

function movePuzzle(step) {
  V.puzzle = Math.max(0, Math.min(V.puzzles.length - 1, V.puzzle + step));
  renderPuzzle();
  $("#puzzle-title").focus(); // a screen reader reads the new puzzle from its title
}

/** A puzzle's choices: for a card, the whole hand with the legal cards to press. */
function choices(d) {
  const p = d.position;
  if (d.kind !== "play" || !p.hands[p.seat]) return p.legal.map((c) => choiceButton(d, c));
  return groupHand(p.hands[p.seat], p.trump).flatMap(([, codes]) => codes).map((c) => {
    if (p.legal.includes(c)) return choiceButton(d, c);
    const card = cardElement(c, { button: true, label: `${c}: cannot be played now` });
    card.disabled = true;
    return card;
  });
}

function choiceButton(d, choice) {
  if (d.kind === "play") {
    const card = cardElement(choice, { button: true });
    card.classList.add("puzzle-choice");
    card.addEventListener("click", () => answerPuzzle(choice));
    return card;
  }
  const attrs = { type: "button", class: "puzzle-choice", dataset: { card: choice }, onclick: () => answerPuzzle(choice) };
  if (d.kind === "bid") return el("button", { ...attrs, "aria-label": `Bid ${choice}` }, choice);
  return el("button", attrs, choiceNode("trump", choice));
}

function answerPuzzle(choice) {
  const puzzle = V.puzzles[V.puzzle];
  const d = puzzle.decision;
  const right = puzzle.answers.includes(choice);
  const best = valueOf(d, d.best);
  const mineValue = valueOf(d, choice);
  const played = valueOf(d, d.chosen);
  document.querySelectorAll("#puzzle-choices .puzzle-choice").forEach((b) => {
    b.disabled = true;
    b.classList.toggle("picked", b.dataset.card === choice);
    b.classList.toggle("right", puzzle.answers.includes(b.dataset.card));
  });
  const others = puzzle.answers.filter((a) => a !== d.best);
  const lines = [
    right
      ? el("p", { class: "right" }, "Right: ", choiceNode(d.kind, choice), choice === d.best ? " is the best choice." : " is as good as the best.")
      : el("p", { class: "wrong" }, "Not the best: ", choiceNode(d.kind, choice),
        mineValue !== null ? ` (${round1(mineValue)} points expected).` : "."),
    best !== null ? el("p", {}, "The best is ", choiceNode(d.kind, d.best), `, ${round1(best)} points expected`,
      others.length ? [" (", ...others.flatMap((a, j) => [j ? " and " : "", choiceNode(d.kind, a)]), " as good)"] : "", ".") : null,
    played !== null ? el("p", {}, `In the match ${who(d.seat)} chose `, choiceNode(d.kind, d.chosen),
      `: ${round1(played)} expected, ${round1(d.loss)} lost, ${giveOrTake(d.error, 1)}.`) : null,
    el("button", { type: "button", id: "puzzle-again", onclick: renderPuzzle }, "Try it again"),
  ];
  fill($("#puzzle-verdict"), lines);
}

/** The cards of the seat a puzzle sits in, in sight above its choices. */
function puzzleHand(p) {
  const cards = p.hands[p.seat];
  if (!cards) {
    const inSight = p.hands.map((h, s) => (h ? `${V.names[s]}: ${h.join(", ")}` : null)).filter(Boolean).join("; ");
    return el("p", {}, `Your own card is hidden; in sight: ${inSight}.`);
  }
  if (p.phase === "play") return null; // the cards are the choices
  const shown = groupHand(cards, p.trump).flatMap(([, codes]) => codes).map((c) => cardElement(c, { small: true }));
  return el("div", { class: "hand-then" }, el("span", { class: "hand-then-label" }, "Your cards:"),
    el("div", { class: "hand-cards", role: "group", "aria-label": "Your cards" }, shown));
}

/** A position in words, seen from the puzzle's seat ("you"). */
function positionLines(p) {
  const name = (s) => (s === p.seat ? "you" : V.names[s]);
  const out = [`Hand ${p.hand}: ${p.hand_size} card${p.hand_size === 1 ? "" : "s"} each, ${name(p.dealer)} dealing.`];
  if (!p.trump_decided) {
    out.push("Trump: named after the bidding.");
  } else {
    const trump = p.trump ? choiceNode("trump", p.trump) : "no trump";
    const turned = p.turned ? [" (turned ", cardSpan(p.turned), ")"] : [];
    const named = p.trump_namer !== null && !p.turned ? ` (named by ${name(p.trump_namer)})` : "";
    out.push(["Trump: ", trump, ...turned, named, "."]);
  }
  // Seats in their order around the table; the server's position says who
  // led each trick, and play goes round from the leader.
  const seats = p.bids.map((_, s) => s);
  out.push(`Bids: ${seats.map((s) => `${name(s)} ${p.bids[s] ?? "–"}`).join(", ")}.`);
  p.tricks.forEach((t, i) => {
    out.push([`Trick ${i + 1}, led by ${name(t.leader)}: `, ...t.cards.flatMap((c, j) => [j ? ", " : "", cardSpan(c)]),
      `; ${name(t.winner)} won.`]);
  });
  if (p.tricks.length) out.push(`Taken: ${seats.map((s) => `${name(s)} ${p.taken[s]}`).join(", ")}.`);
  if (p.trick.length) {
    out.push([`Trick ${p.tricks.length + 1} so far: `, ...p.trick.flatMap(([s, c], j) => [j ? ", " : "", `${name(s)} `, cardSpan(c)]), "."]);
  }
  if (p.phase === "bid" && p.forbidden_bid !== null) {
    out.push(`You may not bid ${p.forbidden_bid}: the bids would add up to the number of tricks.`);
  }
  return out;
}
