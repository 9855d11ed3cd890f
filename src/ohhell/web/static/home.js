// The home page: "Play now" against bots, and the new-table form.
//
// GET /api/options gives the presets (each a full set of option texts), the
// rule options (with choices, or free text) and the bot levels. The form is
// pre-filled from the chosen preset and sends only the options that differ
// from it. The "players" option is driven by the Players select. Presets are
// shown by their names for people (`preset_titles`), never their ids; an
// option that matters only under some values of another (its `shown_when`,
// sent by the server) is hidden while it does not apply.

import {
  $, api, clearFieldError, el, fill, goToTable, keepName, knownTables, optionRow, optionValue, showFieldError,
  LOCAL, pages, showMessage, clearMessage, storedName,
} from "./common.js";

const DEFAULT_LEVEL = "intermediate";
const OPEN_TABLES_MS = 5000; // how often the list of open tables is read again
let OPTIONS = null; // the answer of GET /api/options
let loaded = null; // resolves once OPTIONS are in and the forms drawn (false: they never came)

async function main() {
  // The forms are the page's from the start: a press before the options have
  // come (the offline site starts its game engine first) waits for them
  // instead of sending the form to nowhere.
  $("#play-now-form").addEventListener("submit", playNow);
  $("#new-table-form").addEventListener("submit", newTable);
  let done;
  loaded = new Promise((resolve) => { done = resolve; });
  try {
    OPTIONS = await api("GET", "/api/options");
  } catch (err) {
    showMessage(`Could not load the rule options: ${err.message}`, "error", 0);
    done(false);
    return;
  }
  // The server's clock is the form's default ("Seconds per move").
  if (typeof OPTIONS.clock === "number") $("#nt-clock").value = OPTIONS.clock;
  if (typeof OPTIONS.max_clock === "number") $("#nt-clock").max = OPTIONS.max_clock;
  fillLevels($("#pn-level"));
  // "Play now" plays the server's default rules (the scorekeeper's default too).
  fill($("#pn-rules"), presetTitle(OPTIONS.default_preset));
  fillPresets();
  drawOptions();
  drawSeats();
  drawMyTables();
  rememberName();
  drawOpenTables();
  drawAccount();
  setInterval(() => { if (!document.hidden) drawOpenTables(); }, OPEN_TABLES_MS);
  done(true);
  $("#nt-players").addEventListener("change", drawSeats);
}

/** The header's account link: "Sign in", or the signed-in name (none when
 *  the server keeps no accounts). Signed in, Play now's name is the account's. */
async function drawAccount() {
  let me;
  try {
    me = await api("GET", "/api/account");
  } catch {
    return; // accounts off
  }
  const nav = $("#account-nav");
  const name = me.account ? me.account.name : null;
  fill(nav, " · ", el("a", { href: "/account", id: "account-link" }, name ? `${name}: your account` : "Sign in"),
    " · ", el("a", { href: "/leaderboard" }, "Leaderboard"));
  nav.hidden = false;
  if (name && !$("#pn-name").value) $("#pn-name").value = name;
  if (name && !$("#nt-name").value) $("#nt-name").value = name;
}

function fillLevels(select, withPerson = false) {
  const options = OPTIONS.levels.map((level) => el("option", { value: level }, `bot: ${level}`));
  if (withPerson) options.unshift(el("option", { value: "human" }, "person (open seat)"));
  fill(select, options);
  if (!withPerson) select.value = OPTIONS.levels.includes(DEFAULT_LEVEL) ? DEFAULT_LEVEL : OPTIONS.levels[0];
}

/** A preset's name for people ("Pagat's rules"), from the server. */
const presetTitle = (name) => (OPTIONS.preset_titles || {})[name] || name;

/** The presets first: one radio each, with what it plays in one line. */
function fillPresets() {
  const lines = OPTIONS.preset_lines || {};
  fill($("#nt-preset-list"), Object.keys(OPTIONS.presets).map((name) => el("label", { class: "preset-choice" },
    el("input", { type: "radio", name: "preset", value: name, id: `nt-preset-${name}`,
      checked: name === OPTIONS.default_preset, onchange: drawOptions }),
    el("span", { class: "preset-name" }, presetTitle(name)),
    el("span", { class: "preset-line" }, lines[name] || ""))));
  if (!$("#nt-preset-list input:checked")) $("#nt-preset-list input").checked = true;
}

/** The preset chosen in the form. */
const chosenPreset = () => ($("#nt-preset-list input:checked") || {}).value;

// --- Play now ---

async function playNow(event) {
  event.preventDefault();
  clearMessage();
  const button = $("#play-now-button");
  button.disabled = true;
  button.textContent = "Dealing…";
  if (LOCAL) { // the offline site: the table page's own engine makes the table (table/state.js)
    const body = { level: OPTIONS ? $("#pn-level").value : DEFAULT_LEVEL };
    const name = $("#pn-name").value.trim();
    if (name) body.name = name;
    window.location.assign(`table.html?play-now=${encodeURIComponent(JSON.stringify(body))}`);
    return;
  }
  if (!(await loaded)) {
    button.disabled = false;
    button.textContent = "Play now";
    return;
  }
  const body = { level: $("#pn-level").value };
  const name = $("#pn-name").value.trim();
  if (name) body.name = name;
  try {
    goToTable(await api("POST", "/api/play-now", body));
  } catch (err) {
    showMessage(err.message);
    button.disabled = false;
    button.textContent = "Play now";
  }
}

// --- New table: rule options ---

/** The rule options except "players", which the Players select sets. */
const ruleOptions = () => OPTIONS.options.filter((o) => o.name !== "players");

function drawOptions() {
  const preset = OPTIONS.presets[chosenPreset()] || {};
  const presetValue = (name) => () => (OPTIONS.presets[chosenPreset()] || {})[name];
  const rows = ruleOptions().map((option) =>
    optionRow(option, `opt-${option.name}`, preset[option.name] ?? "", presetValue(option.name)));
  fill($("#nt-options"), rows);
  for (const control of $("#nt-options").querySelectorAll("select, input")) {
    control.addEventListener("change", showApplying);
    control.addEventListener("input", showApplying);
  }
  showApplying();
  // The preset's own player count, unless the user has chosen one already.
  if (preset.players && !$("#nt-players").dataset.touched) {
    $("#nt-players").value = preset.players;
    drawSeats();
  }
  limitDealers();
}

/**
 * Hide the options that do not apply to the other choices now (the trump
 * rotation unless trump rotates...): the server says which, in `shown_when`.
 */
function showApplying() {
  const valueOf = (name) => {
    const control = document.getElementById(`opt-${name}`);
    return control ? control.value.trim().toLowerCase() : "";
  };
  for (const option of ruleOptions()) {
    const row = $(`#nt-options .option[data-option="${CSS.escape(option.name)}"]`);
    if (!row) continue;
    const when = Object.entries(option.shown_when || {});
    row.hidden = !when.every(([other, values]) => values.includes(valueOf(other)));
  }
  offerLevels(); // every change of the rules may change where a level is offered
}

/** The first dealer is one of the table's seats (or drawn): no seat beyond them is offered. */
function limitDealers() {
  const select = $("#opt-first-dealer");
  if (!select) return;
  const n = Number($("#nt-players").value);
  for (const option of select.options) option.hidden = option.value !== "draw" && Number(option.value) >= n;
  if (select.selectedOptions[0] && select.selectedOptions[0].hidden) select.value = "draw";
}

/** The options that differ from the preset, as {name: text}: only these are sent. */
function changedOptions() {
  const preset = OPTIONS.presets[chosenPreset()] || {};
  const out = {};
  for (const option of ruleOptions()) {
    const value = optionValue(option, $(`#opt-${CSS.escape(option.name)}`));
    if (value !== (preset[option.name] ?? "")) out[option.name] = value;
  }
  const players = $("#nt-players").value;
  if (preset.players !== players) out.players = players; // also sent as "players" below
  return out;
}

// --- New table: seats ---

function drawSeats(event) {
  if (event) $("#nt-players").dataset.touched = "1";
  const n = Number($("#nt-players").value);
  const list = $("#nt-seat-list");
  // Keep the choices already made when the number of seats changes.
  const before = [...list.querySelectorAll("select")].map((s) => s.value);
  const mine = Number(list.querySelector("input[type=radio]:checked")?.value ?? 0);
  const rows = [];
  for (let seat = 0; seat < n; seat++) {
    const kind = el("select", { id: `seat-kind-${seat}`, "aria-label": `Seat ${seat + 1}` });
    fillLevels(kind, !LOCAL); // offline nobody else can come: every other seat is a bot
    kind.append(el("option", { value: "me", hidden: true }, "you (the host)"));
    const usual = LOCAL ? (OPTIONS.levels.includes(DEFAULT_LEVEL) ? DEFAULT_LEVEL : OPTIONS.levels[0]) : "human";
    kind.value = before[seat] && before[seat] !== "me" ? before[seat] : usual;
    const radio = el("input", { type: "radio", name: "host-seat", value: String(seat),
      id: `seat-mine-${seat}`, checked: seat === Math.min(mine, n - 1), onchange: updateMine });
    rows.push(el("div", { class: "seat-row" },
      el("span", { class: "seat-number" }, `Seat ${seat + 1}`), kind,
      el("label", { class: "mine", for: `seat-mine-${seat}` }, radio, " my seat")));
  }
  fill(list, rows);
  updateMine();
  limitDealers();
  offerLevels();
}

/**
 * A level made for one rule set alone (the server's `level_rules`) is offered
 * in the seats only while the form asks for exactly those rules; a seat that
 * had it goes back to the default level when the rules change.
 */
function offerLevels() {
  const only = OPTIONS.level_rules || {};
  if (!Object.keys(only).length || !$("#nt-seat-list")) return;
  const changed = Object.keys(changedOptions()).filter((k) => k !== "players");
  const fits = (level) => {
    const want = only[level];
    return !want || (chosenPreset() === want.preset && Number($("#nt-players").value) === want.players
      && !changed.length);
  };
  for (const select of document.querySelectorAll("#nt-seat-list select")) {
    for (const option of select.options) {
      if (option.value in only) option.hidden = option.disabled = !fits(option.value);
    }
    if (select.selectedOptions[0] && select.selectedOptions[0].disabled) select.value = DEFAULT_LEVEL;
    if (select.dataset.before in only && !fits(select.dataset.before)) select.dataset.before = DEFAULT_LEVEL;
  }
}

/** The host's own seat has no kind to choose: its select just says "you". */
function updateMine() {
  for (const row of document.querySelectorAll("#nt-seat-list .seat-row")) {
    const mine = row.querySelector("input[type=radio]").checked;
    const select = row.querySelector("select");
    if (mine && select.value !== "me") {
      select.dataset.before = select.value;
      select.value = "me";
    } else if (!mine && select.value === "me") {
      select.value = select.dataset.before || "human";
    }
    select.disabled = mine;
    row.classList.toggle("is-mine", mine);
  }
}

/** Where the server's refusal is shown: next to the field it names, else beside the button. */
function fieldFor(field) {
  const fixed = { preset: "#nt-presets", players: "#nt-players", name: "#nt-name", clock: "#nt-clock",
    seats: "#nt-seats" }[field];
  if (fixed) return $(fixed);
  const option = field && document.getElementById(`opt-${field}`);
  if (option) $("#nt-options-box").open = true; // a rule option: "More rules" opens to show it
  return option || null;
}

function clearErrors() {
  for (const control of document.querySelectorAll("#new-table-form [aria-invalid]")) clearFieldError(control);
  $("#nt-form-error").hidden = true;
}

function showError(err) {
  const control = fieldFor(err.field);
  if (control && showFieldError(control, err.message)) {
    control.focus();
    return;
  }
  fill($("#nt-form-error"), err.message);
  $("#nt-form-error").hidden = false;
}

async function newTable(event) {
  event.preventDefault();
  clearMessage();
  if (!(await loaded)) return; // the form is drawn from the options
  clearErrors();
  const seats = [...document.querySelectorAll("#nt-seat-list .seat-row")];
  const host = seats.findIndex((row) => row.querySelector("input[type=radio]").checked);
  const body = {
    preset: chosenPreset(),
    options: changedOptions(),
    players: Number($("#nt-players").value),
    seats: seats.map((row, i) => (i === host ? "human" : row.querySelector("select").value)),
    name: $("#nt-name").value.trim(),
    seat: host,
    clock: Number($("#nt-clock").value || 0),
    public: $("#nt-public").checked,
  };
  const button = $("#new-table-button");
  button.disabled = true;
  try {
    goToTable(await api("POST", "/api/tables", body));
  } catch (err) {
    showError(err); // next to the field it is about, not over the button
    button.disabled = false;
  }
}

// --- The name typed last: remembered for the next form and for joining in one click ---

function rememberName() {
  for (const input of [$("#pn-name"), $("#nt-name")]) {
    if (!input.value) input.value = storedName();
    input.addEventListener("change", () => keepName(input.value));
  }
}

// --- Open tables: public tables waiting for players, joined in one click ---

let joining = null; // the open table whose "Your name" prompt is showing: the list waits meanwhile

async function drawOpenTables() {
  if (joining) return; // never redrawn under a person typing their name
  let answer;
  try {
    answer = await api("GET", "/api/lobby");
  } catch {
    return; // try again at the next look
  }
  if (joining) return;
  const tables = answer.tables || [];
  $("#open-tables-none").hidden = tables.length > 0;
  fill($("#open-table-list"), tables.map((t) => {
    const people = t.players.map((p) => (p.bot ? `${p.name} (bot)` : p.name)).join(", ");
    const free = `${t.seats_free} of ${t.seats} seat${t.seats === 1 ? "" : "s"} free`;
    return el("li", { class: "open-table", dataset: { table: t.table } },
      el("div", { class: "open-table-text" },
        el("strong", { class: "open-table-title" }, t.title),
        el("span", { class: "open-table-rules" }, t.rules),
        el("span", { class: "open-table-seats" }, `${free} · ${people}`)),
      el("button", { type: "button", class: "primary join-open", "aria-label": `Join ${t.title}`,
        onclick: (event) => askName(t, event.currentTarget) }, "Join"));
  }));
}

/** Join asks for the name to sit under first, filled with the one used last. */
function askName(table, button) {
  clearMessage();
  joining = table.table;
  const item = button.closest("li");
  const id = `join-name-${table.table}`;
  const input = el("input", { id, class: "join-name", maxlength: "24", autocomplete: "nickname",
    placeholder: "Your name", required: true, "aria-describedby": `${id}-error`,
    value: ($("#pn-name").value || storedName()).trim() });
  const form = el("form", { class: "join-form" },
    el("label", { for: id }, "Your name"), input,
    el("button", { type: "submit", class: "primary join-sit" }, "Take a seat"),
    el("button", { type: "button", class: "join-cancel", onclick: () => {
      joining = null;
      drawOpenTables();
    } }, "Cancel"),
    el("small", { id: `${id}-error`, class: "field-error", role: "alert", hidden: true }));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    joinOpen(table, input, form.querySelector(".join-sit"));
  });
  input.addEventListener("input", () => clearFieldError(input));
  button.replaceWith(form);
  item.classList.add("asking");
  input.focus();
  input.select();
}

async function joinOpen(table, input, button) {
  clearMessage();
  const name = input.value.trim();
  if (!name) {
    showFieldError(input, "Write the name the others will see at the table.");
    input.focus();
    return;
  }
  keepName(name);
  button.disabled = true;
  try {
    // No seat named: the server gives the first open one, so two people
    // clicking at once never pick the same.
    goToTable(await api("POST", `/api/tables/${encodeURIComponent(table.table)}/join`, { name }));
  } catch (err) {
    button.disabled = false;
    if (err.status === 409) {
      showMessage(`${table.title} has just filled up or started.`);
      joining = null;
      drawOpenTables();
    } else {
      showFieldError(input, err.message);
    }
  }
}

// --- Tables this browser holds a seat at ---

const STATUS_WORDS = { lobby: "waiting for players", playing: "being played", over: "finished" };

/** The tables this browser holds a seat at, by their names ("Ann's table"), never their ids. */
function drawMyTables() {
  const tables = knownTables();
  if (!tables.length) return;
  fill($("#my-table-list"), tables.slice(-10).map((t) => {
    const link = el("a", { href: pages.table(t) }, "A table");
    api("GET", `/api/tables/${encodeURIComponent(t)}`).then((table) => {
      const people = table.seats.filter((s) => s.kind === "human").map((s) => s.name).join(", ");
      fill(link, `${table.title} · ${STATUS_WORDS[table.status] || table.status}`
        + (people ? ` · ${people}` : ""));
    }).catch(() => { link.closest("li")?.remove(); }); // expired: not worth a line
    return el("li", {}, link);
  }));
  $("#my-tables").hidden = false;
}

main();
