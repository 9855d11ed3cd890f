// The scorekeeper's page (issue 6): /score sets up a game played with real
// cards, /score/{id} is its sheet. The server (web/serving/scores.py) recomputes the
// whole sheet after every entry; this page only draws GET /api/scores/{id}
// and posts one command at a time to /api/scores/{id}/entry.
//
// The edit token is kept in localStorage under "ohhell-score-{id}". Without
// it the sheet is read-only (and refreshes itself every few seconds). An edit
// link is /score/{id}#edit={token}: the page stores the token and drops the hash.
//
// Stable hooks for tests (ids and attributes):
//   #setup-form                     the setup form (/score)
//     #sc-players input[data-seat]  the players' names in seat order; #sc-add adds one
//     #sc-preset, #sc-dealer        the preset and the first dealer (a seat number)
//     #sc-options [name=OPTION]     every rule option (text), as on the new-table form
//     #sc-create                    submit
//   #banner                         the current hand: "Hand 1 of 19: Ann deals 10 cards; …"
//   #entry                          what to enter now (absent/hidden when read-only):
//     [data-phase]                  "bid", "trump", "tricks" or "over"
//     #bid-buttons button[data-bid] one per bid; the hook's bid is disabled (class "hook")
//     #bidder                       the player bidding (a select under simultaneous bidding)
//     #trump-buttons button[data-suit]   C D H S NT: the highest bidder names trump (R-TRUMP-BIDDER)
//     #turned-buttons button[data-suit]  note the turned card's suit (optional)
//     #tricks input[data-seat]      tricks taken by seat; #tricks-sum; #tricks-save
//     #revoke-seat, #revoke-add     a revoke (R-REVOKE) in the hand being played
//   #undo                           take back the last command (also Ctrl+Z)
//   #sheet                          the score table: tr[data-hand] per hand; td[data-seat];
//                                   .blob marks a missed bid; button.row-edit opens #edit
//   #edit                           #edit-form: [data-field=bids|tricks|revokes][data-seat],
//                                   #edit-trump, #edit-save, #edit-cancel
//   #totals                         tr[data-seat] td.total, td.exact; #chart holds the SVG
//   #standings                      the standings table; #settlement (Okenuff, R-SETTLE)
//   #share-link, #share-edit-link   copy a link into #share-url
//   #export-csv, #export-json       downloads
//   #readonly-note                  shown when the page has no edit token

import {
  $, api, el, fill, showMessage, clearMessage, suitSpan, suitWords, SUIT_SYMBOL, SUIT_NAME, isRed,
  playerColour, scoreChart, standingsTable, typingInField, optionRow, optionValue, LOCAL, pages,
} from "./common.js";

const TOKEN_PREFIX = "ohhell-score-";
const POLL_MS = 5000;

// --- The token ---

function getToken(id) {
  try {
    return localStorage.getItem(TOKEN_PREFIX + id);
  } catch {
    return null;
  }
}

function setToken(id, token) {
  try {
    if (token) localStorage.setItem(TOKEN_PREFIX + id, token);
    else localStorage.removeItem(TOKEN_PREFIX + id);
  } catch {
    /* storage disabled: the token lives only in this page */
  }
}

function knownSheets() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key && key.startsWith(TOKEN_PREFIX)) out.push(key.slice(TOKEN_PREFIX.length));
    }
  } catch {
    /* no storage */
  }
  return out.sort();
}

const ordinal = (n) => `${n}${["th", "st", "nd", "rd"][(n % 100 > 10 && n % 100 < 14) || n % 10 > 3 ? 0 : n % 10]}`;
const signed = (n) => (n > 0 ? `+${n}` : `${n}`);
const cardsWord = (n) => (n === 1 ? "1 card" : `${n} cards`);

// ============================================================ setup (/score)

let OPTIONS = null;
const HIDDEN_OPTIONS = ["players", "first-dealer"]; // set by the names and the dealer select

async function setupPage() {
  $("#setup").hidden = false;
  document.title = "New score sheet · Oh Hell";
  drawMine();
  try {
    OPTIONS = await api("GET", "/api/options");
  } catch (err) {
    showMessage(`Could not load the rule options: ${err.message}`, "error", 0);
    return;
  }
  const titles = OPTIONS.preset_titles || {}; // the rule sets' names for people; ids stay the values
  fill($("#sc-preset"), Object.keys(OPTIONS.presets).map((name) => el("option", { value: name }, titles[name] || name)));
  // The same default rules as "Play now": the same game scores the same here.
  if (OPTIONS.presets[OPTIONS.default_preset]) $("#sc-preset").value = OPTIONS.default_preset;
  for (let seat = 0; seat < 4; seat++) addPlayer();
  drawOptions();
  $("#sc-add").addEventListener("click", () => { addPlayer(); $("#sc-players li:last-child input").focus(); });
  $("#sc-preset").addEventListener("change", drawOptions);
  $("#setup-form").addEventListener("submit", createSheet);
}

function playerRows() {
  return [...document.querySelectorAll("#sc-players li")];
}

function addPlayer() {
  const rows = playerRows();
  if (rows.length >= 7) return;
  const input = el("input", { type: "text", maxlength: 24, required: true, autocomplete: "off",
    placeholder: `Player ${rows.length + 1}`, oninput: drawDealers });
  const remove = el("button", { type: "button", class: "remove", "aria-label": "Remove this player",
    onclick: () => { input.closest("li").remove(); renumber(); } }, "×");
  $("#sc-players").append(el("li", {}, input, remove));
  renumber();
}

function renumber() {
  const rows = playerRows();
  rows.forEach((row, seat) => {
    const input = row.querySelector("input");
    input.dataset.seat = String(seat);
    input.setAttribute("aria-label", `Seat ${seat + 1}: name`);
    input.placeholder = `Player ${seat + 1}`;
    row.querySelector(".remove").disabled = rows.length <= 3;
  });
  $("#sc-add").disabled = rows.length >= 7;
  drawDealers();
}

function drawDealers() {
  const select = $("#sc-dealer");
  const before = select.value;
  const names = playerRows().map((row, seat) => row.querySelector("input").value.trim() || `Player ${seat + 1}`);
  fill(select, el("option", { value: "" }, "— draw at the table —"),
    names.map((name, seat) => el("option", { value: String(seat) }, name)));
  const preset = OPTIONS?.presets[$("#sc-preset").value] || {};
  const chosen = before !== "" ? before : (preset["first-dealer"] ?? "draw");
  if (chosen !== "draw" && Number(chosen) < names.length) select.value = chosen;
}

function ruleOptions() {
  return OPTIONS.options.filter((o) => !HIDDEN_OPTIONS.includes(o.name));
}

function drawOptions() {
  const preset = OPTIONS.presets[$("#sc-preset").value] || {};
  const presetValue = (name) => () => (OPTIONS.presets[$("#sc-preset").value] || {})[name];
  fill($("#sc-options"), ruleOptions().map((option) =>
    optionRow(option, `sc-opt-${option.name}`, preset[option.name] ?? "", presetValue(option.name))));
  const dealer = $("#sc-dealer");
  dealer.value = "";
  drawDealers();
}

function changedOptions() {
  const preset = OPTIONS.presets[$("#sc-preset").value] || {};
  const out = {};
  for (const option of ruleOptions()) {
    const value = optionValue(option, $(`#sc-opt-${CSS.escape(option.name)}`));
    if (value !== (preset[option.name] ?? "")) out[option.name] = value;
  }
  return out;
}

async function createSheet(event) {
  event.preventDefault();
  clearMessage();
  const players = playerRows().map((row) => row.querySelector("input").value.trim());
  const dealer = $("#sc-dealer").value;
  if (dealer === "") {
    showMessage("Who deals first? Draw at the table and choose the dealer.");
    $("#sc-dealer").focus();
    return;
  }
  const body = { players, first_dealer: Number(dealer), preset: $("#sc-preset").value, options: changedOptions() };
  const button = $("#sc-create");
  button.disabled = true;
  try {
    const made = await api("POST", "/api/scores", body);
    setToken(made.id, made.edit_token);
    window.location.assign(pages.score(made.id));
  } catch (err) {
    showMessage(err.message);
    button.disabled = false;
  }
}

async function drawMine() {
  const ids = knownSheets().slice(-10);
  if (!ids.length) return;
  const items = ids.map((id) => {
    const link = el("a", { href: pages.score(id) }, `Sheet ${id}`);
    api("GET", `/api/scores/${encodeURIComponent(id)}`).then((s) => {
      const when = new Date(s.updated * 1000).toLocaleDateString();
      const where = s.finished ? "finished" : `hand ${s.current.hand} of ${s.hands_scheduled}`;
      fill(link, `${s.players.join(", ")} · ${s.title} · ${where} · ${when}`);
    }).catch(() => { link.closest("li")?.remove(); });
    return el("li", {}, link);
  });
  fill($("#sc-mine"), items);
  $("#sc-mine-box").hidden = false;
}

// ============================================================ the sheet (/score/{id})

let ID = null;
let TOKEN = null;
let SHEET = null; // the last answer of the server
let busy = false;
let editing = null; // the hand number open in #edit
let bidder = null; // simultaneous bidding: the seat chosen in #bidder

async function sheetPage(id) {
  ID = id;
  $("#game").hidden = false;
  const path = `/api/scores/${encodeURIComponent(id)}`;
  $("#export-csv").href = `${path}/export.csv`;
  $("#export-json").href = `${path}/export.json`;
  if (LOCAL) { // the offline site: the worker writes the file; the sheet lives in this browser alone
    for (const [id, kind] of [["#export-csv", "csv"], ["#export-json", "json"]]) {
      $(id).addEventListener("click", (event) => saveExport(event, `${path}/export.${kind}`, `score-${ID}.${kind}`));
    }
    $("#share-link").hidden = true;
  }
  const fromHash = /^#edit=(.+)$/.exec(window.location.hash);
  if (fromHash) {
    setToken(id, decodeURIComponent(fromHash[1]));
    history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  TOKEN = getToken(id);
  try {
    SHEET = await api("GET", path);
  } catch (err) {
    fill($("#banner"), err.status === 404 ? "There is no such score sheet." : err.message);
    $("#banner").classList.add("bad");
    return;
  }
  if (TOKEN) {
    try {
      await api("POST", `${path}/verify`, { edit_token: TOKEN });
    } catch (err) {
      if (err.status === 403) {
        setToken(id, null);
        TOKEN = null;
        showMessage("That edit link is not valid for this sheet: it is shown read-only.", "info");
      }
    }
  }
  $("#undo").addEventListener("click", () => send({ op: "undo" }));
  $("#share-link").addEventListener("click", () => share(false));
  $("#share-edit-link").addEventListener("click", () => share(true));
  document.addEventListener("keydown", shortcut);
  render();
  if (!TOKEN) pollTimer = setInterval(poll, POLL_MS);
}

let pollTimer = null; // the read-only page refreshes itself
const editable = () => Boolean(TOKEN);

async function poll() {
  if (document.visibilityState !== "visible") return;
  try {
    const fresh = await api("GET", `/api/scores/${encodeURIComponent(ID)}`);
    if (fresh.revision !== SHEET.revision) {
      SHEET = fresh;
      render();
    }
  } catch {
    /* try again next time */
  }
}

/** Post one command; draw the answer, or say why it was refused (nothing changed). */
async function send(command) {
  if (busy || !editable()) return false;
  busy = true;
  try {
    SHEET = await api("POST", `/api/scores/${encodeURIComponent(ID)}/entry`,
      { ...command, edit_token: TOKEN, revision: SHEET.revision });
    clearMessage();
    if (command.op === "undo") showMessage(SHEET.done.replace(/^undone: /, "Undone: "), "info", 2500);
    render();
    return true;
  } catch (err) {
    if (err.status === 409) {
      try {
        SHEET = await api("GET", `/api/scores/${encodeURIComponent(ID)}`);
        render();
      } catch { /* keep the old sheet */ }
    } else if (err.status === 403) {
      TOKEN = null;
      if (!pollTimer) pollTimer = setInterval(poll, POLL_MS);
      render();
    }
    showMessage(err.message);
    return false;
  } finally {
    busy = false;
  }
}

function share(withToken) {
  const url = `${window.location.origin}/score/${encodeURIComponent(ID)}`
    + (withToken ? `#edit=${encodeURIComponent(TOKEN)}` : "");
  const input = $("#share-url");
  input.value = url;
  $("#share-box").hidden = false;
  input.focus();
  input.select();
  const note = withToken
    ? "Edit link copied: anyone who opens it can change this sheet."
    : "Read-only link copied: it shows the sheet without letting anyone change it.";
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(url).then(() => showMessage(note, "info", 4000),
      () => showMessage("Copy the link from the box.", "info", 4000));
  } else {
    showMessage(`${note.replace(" copied", "")} Copy it from the box.`, "info", 5000);
  }
}

function shortcut(event) {
  if (!editable() || typingInField(event)) return;
  if ((event.ctrlKey || event.metaKey) && !event.shiftKey && event.key.toLowerCase() === "z") {
    event.preventDefault();
    send({ op: "undo" });
    return;
  }
  // Digits bid when the bid buttons are shown and every bid has one digit.
  if (/^[0-9]$/.test(event.key) && !event.ctrlKey && !event.metaKey && !event.altKey) {
    const button = document.querySelector(`#bid-buttons button[data-bid="${event.key}"]`);
    const all = document.querySelectorAll("#bid-buttons button[data-bid]");
    if (button && all.length <= 10 && !button.disabled) {
      event.preventDefault();
      button.click();
    }
  }
}

// --- Drawing ---

function name(seat) {
  return SHEET.players[seat];
}

function render() {
  const focusInEntry = document.activeElement && ($("#entry").contains(document.activeElement)
    || document.activeElement === document.body);
  document.body.classList.toggle("read-only", !editable());
  document.title = `${SHEET.players.join(", ")} · score sheet · Oh Hell`;
  fill($("#title"), `Score sheet · ${SHEET.title}`);
  $("#readonly-note").hidden = editable();
  $("#undo").hidden = !editable();
  $("#undo").disabled = !SHEET.can_undo;
  $("#share-edit-link").hidden = !editable() || LOCAL; // an offline sheet is in this browser alone
  drawBanner();
  drawEntry();
  drawSheet();
  drawTotals();
  drawStandings();
  fill($("#rules-list"), SHEET.description.map((line) => el("li", {}, line)));
  if (editing !== null) {
    if (editing > SHEET.hands.length) closeEdit();
    else drawEdit(editing);
  }
  if (focusInEntry && editable() && editing === null) {
    const target = $("#entry").querySelector("button:not(:disabled).primary, #tricks input, #bid-buttons button:not(:disabled), #trump-buttons button");
    if (target) target.focus({ preventScroll: true });
  }
}

function trumpText(hand) {
  if (hand.trump_known) return suitWords(hand.trump);
  if (SHEET.trump_mode === "bidder") {
    return hand.bidding_done ? `${name(hand.trump_namer)} names it` : "named by the highest bidder";
  }
  return "the turned card";
}

function drawBanner() {
  const banner = $("#banner");
  const cur = SHEET.current;
  if (!cur) {
    delete banner.dataset.hand;
    const first = SHEET.standings.filter((s) => s.place === 1)
      .map((s) => s.seats.map(name).join(" and "));
    fill(banner, el("strong", {}, "The game is over"),
      `: ${first.join(", ")} ${first.length > 1 || SHEET.standings[0]?.seats.length > 1 ? "win" : "wins"}.`);
    return;
  }
  const which = cur.extra ? `Extra hand ${cur.hand} (tie break)` : `Hand ${cur.hand} of ${SHEET.hands_scheduled}`;
  const trump = cur.trump_known && cur.trump !== "NT"
    ? [el("span", {}, "trump: "), suitSpan(cur.trump), ` ${SUIT_NAME[cur.trump]}`]
    : [`trump: ${trumpText(cur)}`];
  fill(banner,
    el("strong", {}, `${which}: `),
    `${name(cur.dealer)} deals ${cardsWord(cur.cards)}; ${name(cur.first_bidder)} bids first`,
    cur.first_leader !== cur.first_bidder ? `; ${name(cur.first_leader)} leads` : "",
    "; ", ...trump,
    cur.balance ? el("span", { class: "balance" }, ` · bids ${sum(cur.bids)} of ${cur.cards}: ${cur.balance}`) : "");
  banner.dataset.hand = String(cur.hand);
}

const sum = (values) => values.reduce((a, b) => a + (b ?? 0), 0);

function drawEntry() {
  const box = $("#entry");
  box.hidden = !editable();
  if (!editable()) {
    box.replaceChildren();
    return;
  }
  const cur = SHEET.current;
  if (!cur) {
    box.dataset.phase = "over";
    fill(box, el("p", {}, "The game is over. Click a hand on the sheet to correct it, or undo the last entry."));
    return;
  }
  if (!cur.bidding_done) {
    box.dataset.phase = "bid";
    fill(box, bidEntry(cur), turnedEntry(cur));
  } else if (cur.needs_trump) {
    box.dataset.phase = "trump";
    fill(box, bidsLine(cur), trumpEntry(cur));
  } else {
    box.dataset.phase = "tricks";
    fill(box, bidsLine(cur), turnedEntry(cur), tricksEntry(cur), revokeEntry(cur));
  }
}

/** The bids so far, in bidding order: "Ann 1 · Bob 0 · Cid ? · Dee ?". */
function bidsLine(cur) {
  const items = cur.bidding_order.map((seat) => el("li", {
    class: seat === cur.next_bidder || (SHEET.bidding === "simultaneous" && seat === bidder) ? "next" : "",
  }, el("span", { class: "who" }, name(seat)), " ",
  el("b", {}, cur.bids[seat] === null ? "?" : String(cur.bids[seat]))));
  const balance = cur.balance
    ? el("p", { class: "balance" }, `Bids total ${sum(cur.bids)} for ${cardsWord(cur.cards)}: ${cur.balance}.`)
    : null;
  return [el("ol", { class: "bids-line", "aria-label": "Bids in bidding order" }, items), balance];
}

function bidEntry(cur) {
  let seat = cur.next_bidder;
  let chooser = null;
  if (SHEET.bidding === "simultaneous") {
    const open = cur.bidding_order.filter((s) => cur.bids[s] === null);
    if (!open.includes(bidder)) bidder = open[0];
    seat = bidder;
    chooser = el("label", { class: "bidder-choice" }, "Bid for ",
      el("select", { id: "bidder", onchange: (e) => { bidder = Number(e.target.value); drawEntry(); } },
        open.map((s) => el("option", { value: String(s), selected: s === bidder }, name(s)))));
  }
  const last = SHEET.bidding === "sequential" && cur.bidding_order.filter((s) => cur.bids[s] === null).length === 1;
  const buttons = [];
  for (let bid = 0; bid <= cur.cards; bid++) {
    const hook = bid === cur.forbidden;
    buttons.push(el("button", {
      type: "button", class: `bid-button${hook ? " hook" : ""}`, dataset: { bid: String(bid) },
      disabled: hook,
      title: hook ? `The hook: ${name(seat)} may not bid ${bid}, or the bids would total ${cardsWord(cur.cards).replace("card", "trick")}` : "",
      "aria-label": hook ? `${bid}: forbidden by the hook` : `${name(seat)} bids ${bid}`,
      onclick: () => send({ op: "bid", seat, bid }),
    }, el("span", { class: "n" }, String(bid)), hook ? el("small", {}, "hook") : null));
  }
  const heading = chooser
    ? el("div", { class: "entry-head" }, chooser)
    : el("h2", { id: "bidder", "data-seat": String(seat), class: "entry-head" },
      `${name(seat)} bids`, el("span", { class: "muted" }, last && SHEET.hook ? " (last: the hook applies)" : ""));
  // A disabled bid says why in words under the buttons, not only in a tooltip (R-HOOK).
  const note = cur.forbidden !== null && cur.forbidden !== undefined
    ? el("p", { id: "bid-note", class: "muted" }, `${name(seat)} may not bid ${cur.forbidden}: the bids would `
      + `add up to the ${tricksWord(cur.cards)} of this hand, and the hook says someone must miss.`)
    : null;
  return [heading, ...bidsLine(cur),
    el("div", { id: "bid-buttons", class: "bid-row", role: "group", "aria-label": `${name(seat)}'s bid`,
      "aria-describedby": note ? "bid-note" : null }, buttons), note];
}

function suitButtons(id, onpick, withNoTrump) {
  const suits = ["C", "D", "H", "S"].map((s) => el("button", {
    type: "button", class: `suit-button ${isRed(s) ? "red" : "black"}`, dataset: { suit: s },
    "aria-label": SUIT_NAME[s], title: SUIT_NAME[s], onclick: () => onpick(s),
  }, SUIT_SYMBOL[s]));
  if (withNoTrump) {
    suits.push(el("button", { type: "button", class: "suit-button", dataset: { suit: "NT" },
      "aria-label": "no trump", title: "no trump", onclick: () => onpick("NT") }, "NT"));
  }
  return el("div", { id, class: "bid-row", role: "group" }, suits);
}

function trumpEntry(cur) {
  return [el("h2", { class: "entry-head" }, `${name(cur.trump_namer)} bid highest and names trump`),
    el("p", { class: "muted" }, "A suit, or no trump."
      + (SHEET.rules["no-trump-doubles"] === "yes" ? " No trump doubles the hand's scores." : "")),
    suitButtons("trump-buttons", (suit) => send({ op: "trump", suit }), true)];
}

/** Turned trump: the keeper may note the turned card's suit (changes no score). */
function turnedEntry(cur) {
  if (cur.trump_rule !== "turned") return null;
  return el("div", { class: "turned" },
    el("span", { class: "muted" }, cur.trump_known ? "Turned card: " : "Turned card (optional, for the record): "),
    suitButtons("turned-buttons", (suit) => send({ op: "trump", suit }), false));
}

function tricksEntry(cur) {
  const inputs = [];
  const rows = SHEET.players.map((player, seat) => {
    const input = el("input", {
      // Not required: an empty box counts as 0 once the others add up to the hand.
      type: "number", inputmode: "numeric", min: 0, max: cur.cards, step: 1,
      dataset: { seat: String(seat) }, id: `tricks-${seat}`, "aria-label": `Tricks taken by ${player}`,
      oninput: updateTricksSum,
    });
    inputs.push(input);
    const step = (delta) => () => {
      const value = Math.min(cur.cards, Math.max(0, (Number(input.value) || 0) + delta));
      input.value = String(value);
      updateTricksSum();
    };
    return el("div", { class: "tricks-row" },
      el("label", { for: `tricks-${seat}` }, el("span", { class: "who" }, player),
        el("span", { class: "muted" }, ` bid ${cur.bids[seat]}`)),
      el("button", { type: "button", class: "step", tabindex: -1, "aria-label": `one fewer for ${player}`, onclick: step(-1) }, "−"),
      input,
      el("button", { type: "button", class: "step", tabindex: -1, "aria-label": `one more for ${player}`, onclick: step(1) }, "+"));
  });
  const form = el("form", { id: "tricks-form", onsubmit: (event) => {
    event.preventDefault();
    const check = tricksCheck();
    if (check.bad) {
      showMessage(check.why);
      return;
    }
    send({ op: "tricks", tricks: check.values }); // a wrong sum is the server's to refuse, with its reason
  } },
  el("h2", { class: "entry-head" }, `Tricks taken (${cardsWord(cur.cards).replace("card", "trick")} in all)`),
  el("div", { id: "tricks" }, rows),
  el("p", { class: "tricks-foot" },
    el("span", { id: "tricks-sum", "aria-live": "polite" }),
    el("button", { id: "tricks-save", type: "submit", class: "primary", "aria-describedby": "tricks-sum" },
      "Score the hand")));
  form.dataset.size = String(cur.cards);
  queueMicrotask(updateTricksSum);
  return form;
}

const tricksWord = (n) => (n === 1 ? "1 trick" : `${n} tricks`);

/** The tricks typed, by seat: an empty box counts as 0 once the others add up
 * to the hand. Returns { ok, bad, values, total, empty, size, why }: bad is a box
 * that holds no number of tricks; why says in words
 * what stops the hand from being scored. */
function tricksCheck() {
  const form = $("#tricks-form");
  const size = Number(form.dataset.size);
  const inputs = [...form.querySelectorAll("#tricks input[data-seat]")];
  const typed = inputs.map((i) => (i.value.trim() === "" ? null : Number(i.value)));
  const bad = typed.findIndex((v) => v !== null && !(Number.isInteger(v) && v >= 0 && v <= size));
  const total = typed.reduce((a, v) => a + (v ?? 0), 0);
  const empty = typed.filter((v) => v === null).length;
  const out = { ok: false, bad: bad >= 0, values: typed.map((v) => v ?? 0), total, empty, size, why: "" };
  if (bad >= 0) {
    out.why = `${name(bad)}'s tricks: type a whole number from 0 to ${size}.`;
  } else if (total === 0 && empty === inputs.length) {
    out.why = `Type the tricks each player took: they must add up to ${size}.`;
  } else if (total !== size) {
    const off = total > size ? `${total - size} too many` : `${size - total} missing`;
    out.why = `The tricks add up to ${total}; this hand has ${size}: ${off}.`;
  } else {
    out.ok = true;
  }
  return out;
}

function updateTricksSum() {
  if (!$("#tricks-form")) return;
  const check = tricksCheck();
  const box = $("#tricks-sum");
  // Beside the button, in words: the sum when it is right, else why the hand cannot be scored yet.
  box.textContent = check.ok
    ? `${check.total} of ${check.size} ✓${check.empty ? ` (${check.empty === 1 ? "the empty box counts" : "the empty boxes count"} as 0)` : ""}`
    : check.why;
  box.classList.toggle("ok", check.ok);
  box.classList.toggle("bad", check.bad || check.total > check.size);
  $("#tricks-save").disabled = !check.ok;
}

function revokeEntry(cur) {
  const noted = cur.revokes.length
    ? el("span", { class: "muted" }, ` Noted: ${cur.revokes.map(name).join(", ")}.`)
    : null;
  return el("div", { class: "revoke-row" },
    el("label", { for: "revoke-seat" }, "Revoke (−20) by "),
    el("select", { id: "revoke-seat" }, SHEET.players.map((p, s) => el("option", { value: String(s) }, p))),
    el("button", { id: "revoke-add", type: "button",
      onclick: () => send({ op: "revoke", seat: Number($("#revoke-seat").value) }) }, "Add revoke"),
    noted);
}

// --- The score table ---

function drawSheet() {
  const names = SHEET.players;
  const head = el("tr", {}, el("th", { scope: "col" }, "Hand"),
    names.map((n, i) => el("th", { scope: "col", title: n, style: `border-top: 3px solid ${playerColour(i)}` }, n)));
  const rows = SHEET.hands.map((hand) => {
    // A trump nobody noted (a turned card is optional to note) is "?", and says so.
    const trump = hand.trump_known ? suitSpan(hand.trump)
      : el("span", { class: "muted unnoted", title: "trump not noted", "aria-label": "trump not noted" }, "?");
    const label = [el("span", { class: "num" }, `${hand.hand}`),
      el("small", { title: `${cardsWord(hand.cards)}, trump ${hand.trump_known ? suitWords(hand.trump) : "not noted"}, ${names[hand.dealer]} deals` },
        `${hand.cards} `, trump, ` ${names[hand.dealer].slice(0, 3)}`)];
    const th = el("th", { scope: "row" },
      editable()
        ? el("button", { type: "button", class: "row-edit", "aria-label": `Edit hand ${hand.hand}`,
          onclick: () => openEdit(hand.hand) }, label)
        : label);
    const cells = names.map((_, s) => {
      const bid = hand.bids[s];
      const revokes = hand.revokes.filter((r) => r === s).length;
      const revokeMark = revokes ? el("span", { class: "revoke-mark", title: `${revokes} revoke${revokes > 1 ? "s" : ""} (−20 each)` }, "R".repeat(revokes)) : null;
      if (!hand.complete) {
        return el("td", { class: "open", dataset: { seat: String(s) }, title: bid === null ? "not bid yet" : `bid ${bid}` },
          el("span", { class: "bt" }, `${bid ?? "·"}/–`), el("span", { class: "pts" }, revokeMark ?? "\u00a0"),
          el("span", { class: "total" }, "\u00a0"));
      }
      const missed = hand.missed.includes(s);
      return el("td", { class: missed ? "missed" : "made", dataset: { seat: String(s) },
        title: `bid ${bid}, took ${hand.tricks[s]}: ${missed ? "missed (blob)" : "made"}` },
      el("span", { class: "bt" }, `${bid}/${hand.tricks[s]}`),
      el("span", { class: "pts" }, missed ? el("span", { class: "blob", "aria-label": "missed" }, "●") : "",
        signed(hand.scores[s]), revokeMark),
      el("span", { class: "total" }, hand.totals[s]));
    });
    const tr = el("tr", { class: [hand.extra ? "extra" : "", hand.complete ? "" : "current",
      editing === hand.hand ? "editing" : ""].join(" ").trim(), dataset: { hand: String(hand.hand) } }, th, cells);
    if (editable()) {
      tr.addEventListener("click", (event) => { if (!event.target.closest("button")) openEdit(hand.hand); });
    }
    return tr;
  });
  if (!rows.length) {
    fill($("#sheet"), el("p", { class: "muted" }, "No hand entered yet."));
    return;
  }
  const foot = el("tr", {}, el("th", { scope: "row" }, "Total"),
    SHEET.totals.map((t, s) => el("td", { class: "total", dataset: { seat: String(s) } }, t)));
  fill($("#sheet"), el("div", { class: "sheet-wrap" },
    el("table", { class: `sheet score-sheet${editable() ? " clickable" : ""}` },
      el("caption", {}, "Each cell: bid/took, points (● a missed bid, R a revoke), running total."
        + (SHEET.hands.some((h) => !h.trump_known) ? " ? in the hand column: trump not noted." : "")
        + (editable() ? " Click a hand to correct it." : "")),
      el("thead", {}, head), el("tbody", {}, rows), el("tfoot", {}, foot))));
}

function drawTotals() {
  const played = SHEET.hands_played;
  const rows = SHEET.players.map((player, s) => el("tr", { dataset: { seat: String(s) } },
    el("th", { scope: "row" }, el("span", { class: "swatch", style: `background:${playerColour(s)}` }), player),
    el("td", { class: "total" }, SHEET.totals[s]),
    el("td", { class: "exact", title: `${SHEET.exact[s]} of ${played} hands bid exactly` },
      played ? `${SHEET.exact[s]}/${played} (${Math.round(SHEET.exact_rates[s] * 100)}%)` : "–")));
  const table = el("table", { class: "standings totals-table" },
    el("thead", {}, el("tr", {}, el("th", {}, "Player"), el("th", {}, "Total"), el("th", {}, "Exact bids"))),
    el("tbody", {}, rows));
  let teams = null;
  if (SHEET.teams) {
    teams = el("p", { class: "teams" }, "Teams: ", SHEET.teams.map((team, i) =>
      `${team.map(name).join(" + ")} ${SHEET.side_totals[i]}`).join(" · "));
  }
  fill($("#totals"), table, teams);
  const results = SHEET.hands.filter((h) => h.complete).map((h) => ({ scores: h.scores }));
  fill($("#chart"), results.length ? scoreChart(results, SHEET.players) : null);
}

function drawStandings() {
  fill($("#standings-title"), SHEET.finished ? "Final standings" : "Standings so far");
  if (!SHEET.hands_played) {
    // No places before any hand is scored: everybody at 0 is no ranking.
    fill($("#standings"), el("p", { class: "muted" }, "No hand has been scored yet."));
  } else {
    fill($("#standings"), standingsTable(SHEET.standings, SHEET.players), tieNote());
  }
  const box = $("#settlement");
  if (!SHEET.settlement) {
    box.replaceChildren();
    return;
  }
  const pays = [];
  const m = SHEET.settlement;
  for (let i = 0; i < m.length; i++) {
    for (let j = 0; j < m.length; j++) {
      if (m[i][j] > 0) pays.push(el("li", {}, `${name(j)} pays ${name(i)} ${m[i][j]}`));
    }
  }
  fill(box, el("h3", {}, "Settlement"),
    el("p", { class: "net" }, SHEET.settlement_net.map((n, s) => `${name(s)} ${signed(n)}`).join(" · ")),
    pays.length ? el("ul", { class: "pays" }, pays) : el("p", { class: "muted" }, "Nobody owes anybody."));
}

/** How a tie is broken, said only when two sides have the same total. */
function tieNote() {
  const totals = SHEET.standings.map((row) => row.total);
  const tied = totals.filter((t, i) => totals.indexOf(t) !== i);
  if (!tied.length) return null;
  const forFirst = tied.includes(totals[0]);
  const text = {
    "most-exact": "Equal totals: the side with more exact bids ranks higher.",
    "extra-hands": forFirst ? "A tie for first is played off with extra hands." : "Equal totals share the place.",
    none: "Equal totals share the place.",
  }[SHEET.rules["tie-break"]];
  return text ? el("p", { class: "muted tie-note" }, text) : null;
}

// --- Editing a past hand ---

function openEdit(number) {
  if (!editable()) return;
  editing = number;
  $("#edit").hidden = false;
  drawEdit(number);
  drawSheet();
  $("#edit").scrollIntoView({ block: "nearest" });
  $("#edit-form").querySelector("input")?.focus();
}

function closeEdit() {
  editing = null;
  $("#edit").hidden = true;
  $("#edit-form").replaceChildren();
  drawSheet();
}

function drawEdit(number) {
  const hand = SHEET.hands[number - 1];
  const names = SHEET.players;
  fill($("#edit-title"), `Edit hand ${number}: ${names[hand.dealer]} dealt ${cardsWord(hand.cards)}`);
  const field = (kind, seat, value, max, label) => el("input", {
    type: "number", inputmode: "numeric", min: 0, max, step: 1, value: value ?? "",
    dataset: { field: kind, seat: String(seat) }, "aria-label": `${label} of ${names[seat]}`,
  });
  const revokeCount = (seat) => hand.revokes.filter((r) => r === seat).length;
  const grid = el("table", { class: "edit-grid" },
    el("thead", {}, el("tr", {}, el("th", {}, ""), names.map((n) => el("th", { scope: "col" }, n)))),
    el("tbody", {},
      el("tr", {}, el("th", { scope: "row" }, "Bid"), names.map((_, s) => el("td", {}, field("bids", s, hand.bids[s], hand.cards, "Bid")))),
      el("tr", {}, el("th", { scope: "row" }, "Took"), names.map((_, s) => el("td", {}, field("tricks", s, hand.tricks?.[s], hand.cards, "Tricks taken")))),
      el("tr", {}, el("th", { scope: "row" }, "Revokes"), names.map((_, s) => el("td", {}, field("revokes", s, revokeCount(s), 9, "Revokes"))))));
  let trump = null;
  const named = SHEET.trump_mode === "bidder" || hand.trump_rule === "turned";
  if (named) {
    trump = el("label", { class: "edit-trump" }, SHEET.trump_mode === "bidder" ? "Trump named " : "Turned suit ",
      el("select", { id: "edit-trump" },
        el("option", { value: "" }, hand.trump_known ? `unchanged (${suitWords(hand.trump)})` : "unchanged (not noted)"),
        ["C", "D", "H", "S"].map((s) => el("option", { value: s }, suitWords(s))),
        SHEET.trump_mode === "bidder" ? el("option", { value: "NT" }, "no trump") : null));
  }
  fill($("#edit-form"),
    el("div", { class: "sheet-wrap" }, grid), trump,
    el("p", { class: "muted" }, "Every hand after this one is checked again and every score recomputed. Undo takes the edit back."),
    el("div", { class: "toolbar edit-buttons" },
      el("button", { id: "edit-save", type: "submit", class: "primary" }, "Save the change"),
      el("button", { id: "edit-cancel", type: "button", onclick: closeEdit }, "Cancel")));
  $("#edit-form").onsubmit = (event) => { event.preventDefault(); saveEdit(hand); };
  $("#edit-form").onkeydown = (event) => { if (event.key === "Escape") closeEdit(); };
}

async function saveEdit(hand) {
  const read = (kind) => [...document.querySelectorAll(`#edit-form input[data-field=${kind}]`)]
    .map((i) => (i.value.trim() === "" ? null : Number(i.value)));
  const command = { op: "edit", hand: hand.hand };
  const bids = read("bids");
  if (bids.some((b, s) => b !== hand.bids[s])) command.bids = bids;
  const tricks = read("tricks");
  if (tricks.some((t) => t !== null)) {
    if (tricks.some((t) => t === null || !Number.isInteger(t))) {
      showMessage("Enter the tricks taken by every player, or none.");
      return;
    }
    if (!hand.tricks || tricks.some((t, s) => t !== hand.tricks[s])) command.tricks = tricks;
  }
  const revokes = [];
  read("revokes").forEach((count, seat) => { for (let i = 0; i < (count || 0); i++) revokes.push(seat); });
  const before = [...hand.revokes].sort((a, b) => a - b);
  if (revokes.join(",") !== before.join(",")) command.revokes = revokes;
  const trump = $("#edit-trump")?.value;
  if (trump) command.trump = trump;
  if (Object.keys(command).length === 2) {
    closeEdit();
    return;
  }
  if (await send(command)) {
    showMessage(`Hand ${hand.hand} changed; every score after it recomputed.`, "info", 3000);
    closeEdit();
  }
}

// ============================================================ start

/** Save an export as a file: on the offline site the worker writes it, no link can. */
async function saveExport(event, path, filename) {
  event.preventDefault();
  try {
    const text = await api("GET", path);
    const body = typeof text === "string" ? text : JSON.stringify(text, null, 2);
    const url = URL.createObjectURL(new Blob([body], { type: "text/plain;charset=utf-8" }));
    const link = el("a", { href: url, download: filename, hidden: "" });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  } catch (err) {
    showMessage(`Could not save the file: ${err.message}`, "error");
  }
}

// A sheet is /score/ID on a server, score.html?s=ID on the offline site.
const sheetId = LOCAL ? new URLSearchParams(window.location.search).get("s")
  : (/^\/score\/([^/]+)\/?$/.exec(window.location.pathname) || [])[1];
if (sheetId) sheetPage(LOCAL ? sheetId : decodeURIComponent(sheetId));
else setupPage();
