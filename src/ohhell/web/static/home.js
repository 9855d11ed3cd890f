// The home page: "Play now" against bots, and the new-table form.
//
// GET /api/options gives the presets (each a full set of option texts), the
// rule options (with choices, or free text) and the bot levels. The form is
// pre-filled from the chosen preset and sends only the options that differ
// from it. The "players" option is driven by the Players select.

import {
  $, api, el, fill, goToTable, knownTables, optionRow, showMessage, clearMessage,
} from "/static/common.js";

const DEFAULT_LEVEL = "intermediate";
let OPTIONS = null; // the answer of GET /api/options

async function main() {
  try {
    OPTIONS = await api("GET", "/api/options");
  } catch (err) {
    showMessage(`Could not load the rule options: ${err.message}`, "error", 0);
    return;
  }
  // The server's clock is the form's default ("Seconds per move").
  if (typeof OPTIONS.clock === "number") $("#nt-clock").value = OPTIONS.clock;
  if (typeof OPTIONS.max_clock === "number") $("#nt-clock").max = OPTIONS.max_clock;
  fillLevels($("#pn-level"));
  fillPresets();
  drawOptions();
  drawSeats();
  drawMyTables();
  $("#play-now-form").addEventListener("submit", playNow);
  $("#new-table-form").addEventListener("submit", newTable);
  $("#nt-preset").addEventListener("change", drawOptions);
  $("#nt-players").addEventListener("change", drawSeats);
}

function fillLevels(select, withPerson = false) {
  const options = OPTIONS.levels.map((level) => el("option", { value: level }, `bot: ${level}`));
  if (withPerson) options.unshift(el("option", { value: "human" }, "person (open seat)"));
  fill(select, options);
  if (!withPerson) select.value = OPTIONS.levels.includes(DEFAULT_LEVEL) ? DEFAULT_LEVEL : OPTIONS.levels[0];
}

function fillPresets() {
  const select = $("#nt-preset");
  fill(select, Object.keys(OPTIONS.presets).map((name) => el("option", { value: name }, name)));
  if (OPTIONS.presets.pagat) select.value = "pagat";
}

// --- Play now ---

async function playNow(event) {
  event.preventDefault();
  clearMessage();
  const body = { level: $("#pn-level").value };
  const name = $("#pn-name").value.trim();
  if (name) body.name = name;
  const button = $("#play-now-button");
  button.disabled = true;
  button.textContent = "Dealing…";
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
  const preset = OPTIONS.presets[$("#nt-preset").value] || {};
  const presetValue = (name) => () => (OPTIONS.presets[$("#nt-preset").value] || {})[name];
  const rows = ruleOptions().map((option) =>
    optionRow(option, `opt-${option.name}`, preset[option.name] ?? "", presetValue(option.name)));
  fill($("#nt-options"), rows);
  // The preset's own player count, unless the user has chosen one already.
  if (preset.players && !$("#nt-players").dataset.touched) {
    $("#nt-players").value = preset.players;
    drawSeats();
  }
}

/** Mark an option that differs from the preset, so the user sees what will be sent. */
/** The options that differ from the preset, as {name: text}. */
function changedOptions() {
  const preset = OPTIONS.presets[$("#nt-preset").value] || {};
  const out = {};
  for (const option of ruleOptions()) {
    const value = $(`#opt-${CSS.escape(option.name)}`).value.trim();
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
    fillLevels(kind, true);
    kind.append(el("option", { value: "me", hidden: true }, "you (the host)"));
    kind.value = before[seat] && before[seat] !== "me" ? before[seat] : "human";
    const radio = el("input", { type: "radio", name: "host-seat", value: String(seat),
      id: `seat-mine-${seat}`, checked: seat === Math.min(mine, n - 1), onchange: updateMine });
    rows.push(el("div", { class: "seat-row" },
      el("span", { class: "seat-number" }, `Seat ${seat + 1}`), kind,
      el("label", { class: "mine", for: `seat-mine-${seat}` }, radio, " my seat")));
  }
  fill(list, rows);
  updateMine();
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

async function newTable(event) {
  event.preventDefault();
  clearMessage();
  const seats = [...document.querySelectorAll("#nt-seat-list .seat-row")];
  const host = seats.findIndex((row) => row.querySelector("input[type=radio]").checked);
  const body = {
    preset: $("#nt-preset").value,
    options: changedOptions(),
    players: Number($("#nt-players").value),
    seats: seats.map((row, i) => (i === host ? "human" : row.querySelector("select").value)),
    name: $("#nt-name").value.trim(),
    seat: host,
    clock: Number($("#nt-clock").value || 0),
  };
  const button = $("#new-table-button");
  button.disabled = true;
  try {
    goToTable(await api("POST", "/api/tables", body));
  } catch (err) {
    showMessage(err.message);
    button.disabled = false;
  }
}

// --- Tables this browser holds a seat at ---

function drawMyTables() {
  const tables = knownTables();
  if (!tables.length) return;
  fill($("#my-table-list"), tables.slice(-10).map((t) =>
    el("li", {}, el("a", { href: `/t/${encodeURIComponent(t)}` }, `Table ${t}`))));
  $("#my-tables").hidden = false;
}

main();
