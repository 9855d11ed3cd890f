// The account pages: /account (sign in, sign up, your profile and settings),
// /players/NAME (a public profile) and /leaderboard. The session is an
// HttpOnly cookie the page never reads; the page only asks the API.

import { $, api, el, fill, getSeat, getToken, knownTables, showMessage } from "./common.js";

const path = window.location.pathname;

async function main() {
  let me;
  try {
    me = await api("GET", "/api/account");
  } catch (err) {
    if (err.status === 404) {
      showMessage("This server keeps no accounts: everyone plays as a guest.", "info", 0);
    } else {
      showMessage(`Could not reach the server: ${err.message}`, "error", 0);
    }
    return;
  }
  if (path === "/leaderboard") return leaderboard();
  if (path.startsWith("/players/")) return profile(decodeURIComponent(path.slice("/players/".length)), me.account);
  if (!me.account) return signedOut();
  await handOverSeats();
  await profile(me.account.name, me.account);
  settings(me.account);
}

// --- Signed out ---

function signedOut() {
  $("#sign-in").hidden = false;
  $("#sign-up").hidden = false;
  $("#sign-in-form").addEventListener("submit", (event) =>
    submit(event, "/api/account/signin", "#si-name", "#si-password", "#sign-in-error"));
  $("#sign-up-form").addEventListener("submit", (event) =>
    submit(event, "/api/account/signup", "#su-name", "#su-password", "#sign-up-error"));
  if (window.PublicKeyCredential) {
    $("#passkey-box").hidden = false;
    $("#passkey-sign-in").addEventListener("click", passkeySignIn);
  }
  $("#si-name").focus();
}

// --- Passkeys (WebAuthn): binary fields travel as base64url ---

const toB64 = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
  .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const fromB64 = (text) => {
  const plain = text.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(plain + "===".slice((plain.length + 3) % 4)), (c) => c.charCodeAt(0));
};
const withIds = (list) => (list || []).map((c) => ({ ...c, id: fromB64(c.id) }));

async function passkeySignIn() {
  const error = $("#sign-in-error");
  error.hidden = true;
  try {
    const options = await api("POST", "/api/account/passkey/options", {});
    const credential = await navigator.credentials.get({ publicKey: {
      ...options, challenge: fromB64(options.challenge), allowCredentials: withIds(options.allowCredentials),
    } });
    const r = credential.response;
    await api("POST", "/api/account/passkey/signin", { credential: {
      id: credential.id, rawId: toB64(credential.rawId), type: credential.type,
      response: {
        clientDataJSON: toB64(r.clientDataJSON), authenticatorData: toB64(r.authenticatorData),
        signature: toB64(r.signature), userHandle: r.userHandle ? toB64(r.userHandle) : null,
      },
      clientExtensionResults: credential.getClientExtensionResults(),
    } });
    await handOverSeats();
    window.location.assign("/account");
  } catch (err) {
    error.textContent = err.name === "NotAllowedError" ? "No passkey was chosen." : err.message;
    error.hidden = false;
  }
}

async function addPasskey() {
  try {
    const options = await api("POST", "/api/account/passkeys/options", {});
    const credential = await navigator.credentials.create({ publicKey: {
      ...options,
      challenge: fromB64(options.challenge),
      user: { ...options.user, id: fromB64(options.user.id) },
      excludeCredentials: withIds(options.excludeCredentials),
    } });
    const r = credential.response;
    const answer = await api("POST", "/api/account/passkeys", { credential: {
      id: credential.id, rawId: toB64(credential.rawId), type: credential.type,
      response: {
        clientDataJSON: toB64(r.clientDataJSON), attestationObject: toB64(r.attestationObject),
        transports: r.getTransports ? r.getTransports() : [],
      },
      clientExtensionResults: credential.getClientExtensionResults(),
    } });
    showPasskeys(answer.passkeys);
    showMessage("Passkey added: you can sign in with it now.", "info");
  } catch (err) {
    showMessage(err.name === "NotAllowedError" ? "No passkey was made." : err.message, "error");
  }
}

function showPasskeys(count) {
  fill($("#passkeys-count"), count ? `${count} passkey${count > 1 ? "s" : ""} on this account` : "");
}

async function submit(event, url, nameField, passwordField, errorField) {
  event.preventDefault();
  const error = $(errorField);
  error.hidden = true;
  const button = event.target.querySelector("button");
  button.disabled = true;
  try {
    await api("POST", url, { name: $(nameField).value, password: $(passwordField).value });
    await handOverSeats();
    window.location.assign("/account");
  } catch (err) {
    error.textContent = err.message;
    error.hidden = false;
    button.disabled = false;
  }
}

/** The seats this browser holds become the account's: a guest who signs up
 *  keeps the matches they played here. */
async function handOverSeats() {
  const seats = [];
  for (const table of knownTables().slice(0, 200)) {
    const token = getToken(table);
    const seat = getSeat(table);
    if (token && seat !== null && Number.isInteger(seat)) seats.push({ table, seat, token });
  }
  if (!seats.length) return;
  try {
    await api("POST", "/api/account/seats", { seats });
  } catch {
    /* kept for the next visit */
  }
}

// --- A profile ---

const ORDINAL = ["th", "st", "nd", "rd"];
const ordinal = (n) => `${n}${ORDINAL[(n % 100 - 20) % 10] || ORDINAL[n % 100] || "th"}`;

async function profile(name, account) {
  let data;
  try {
    data = account && account.name === name
      ? { name, rating: account.rating, presets: account.presets, ...(await api("GET", "/api/account/history")) }
      : await api("GET", `/api/players/${encodeURIComponent(name)}`);
  } catch (err) {
    showMessage(err.message, "error", 0);
    return;
  }
  document.title = `Oh Hell: ${data.name}`;
  $("#profile").hidden = false;
  fill($("#profile-name"), data.name);
  const rating = data.rating;
  fill($("#profile-rating"), `Rating ${rating.rating.toLocaleString("en")}${rating.provisional ? "?" : ""}`);
  fill($("#profile-standing"), rating.matches
    ? `${rating.standing}.${rating.provisional ? " The ? means provisional: a few more rated matches settle it." : ""}`
    : "No rating yet.");
  const presets = data.presets || [];
  $("#profile-presets").hidden = presets.length === 0;
  fill($("#profile-presets"), `By rules: ${presets.map((p) =>
    `${p.title} ${p.rating.toLocaleString("en")}${p.provisional ? "?" : ""} (${p.matches} ${p.matches === 1 ? "match" : "matches"})`).join(" · ")}.`);
  const rows = data.matches || []; // the rated ones, for the chart
  const played = (data.statistics && data.statistics.played) || [];
  $("#profile-none").hidden = played.length > 0;
  $("#profile-matches").hidden = played.length === 0;
  fill($("#profile-matches tbody"), ...played.map((m) => el("tr", {},
    el("td", {}, new Date(m.at * 1000).toLocaleDateString()),
    el("td", {}, m.rules),
    el("td", {}, m.players.map((p, s) => (s === m.seat ? `${p} (you)` : p || "a player")).join(", ")),
    el("td", {}, m.ended ? `${ordinal(m.place)} of ${m.sides} when the host ended it` : `${ordinal(m.place)} of ${m.sides}`),
    el("td", {}, String(m.score)),
    el("td", {}, m.rating.after === undefined ? el("span", { class: "muted" }, m.rating.outcome)
      : `${m.rating.before.toLocaleString("en")} → ${m.rating.after.toLocaleString("en")}`),
    el("td", {}, m.table === null ? el("span", { class: "muted" }, "a private table")
      : [el("a", { href: `/replay?table=${encodeURIComponent(m.table)}` }, "Replay"), " · ",
        el("a", { href: `/replay?table=${encodeURIComponent(m.table)}&review=1` }, "Review")]))));
  chart(rows);
  statistics(data.statistics);
}

/** Exact bids, points a hand, the average loss and its trend, the costliest decisions. */
function statistics(stats) {
  if (!stats || !stats.hands) return;
  const parts = [`Exact bids: ${Math.round((100 * stats.exact) / stats.hands)}% of ${stats.hands} hands`,
    `${stats.points_per_hand} points a hand`];
  const losses = stats.losses.map((m) => m.average_loss);
  if (losses.length) {
    const mean = (list) => list.reduce((a, b) => a + b, 0) / list.length;
    let words = `average loss ${mean(losses).toFixed(2)} points a decision over ${losses.length} reviewed matches`;
    if (losses.length >= 4) {
      const half = Math.floor(losses.length / 2);
      const before = mean(losses.slice(0, half));
      const after = mean(losses.slice(half));
      words += after < before ? ` (falling: ${before.toFixed(2)}, then ${after.toFixed(2)})`
        : ` (not falling yet: ${before.toFixed(2)}, then ${after.toFixed(2)})`;
    }
    parts.push(words);
  } else {
    parts.push("no reviewed match yet: review a match from its replay");
  }
  fill($("#profile-stats"), `${parts.join("; ")}.`);
  const costly = stats.costliest || [];
  $("#profile-costly").hidden = costly.length === 0;
  fill($("#profile-costly-list"), ...costly.map((d) => el("li", {},
    `Hand ${d.hand}: ${d.kind === "bid" ? "bid" : d.kind === "trump" ? "named" : "played"} ${d.chosen}, best ${d.best}, ${d.loss} points lost. `,
    d.table === null ? "" : el("a", { href: `/replay?table=${encodeURIComponent(d.table)}&review=1` }, "Its review and puzzles"))));
}

/** The rating after each rated match, as a line. */
function chart(rows) {
  const box = $("#profile-chart");
  if (rows.length < 2) {
    box.hidden = true;
    return;
  }
  const values = [rows[0].before, ...rows.map((r) => r.after)];
  const low = Math.min(...values) - 20;
  const high = Math.max(...values) + 20;
  const w = 300;
  const h = 80;
  const points = values.map((v, i) =>
    `${(i / (values.length - 1)) * w},${h - ((v - low) / (high - low)) * h}`).join(" ");
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("preserveAspectRatio", "none");
  const line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
  line.setAttribute("points", points);
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", "currentColor");
  line.setAttribute("stroke-width", "2");
  svg.append(line);
  fill(box, svg);
}

// --- Settings ---

function settings(account) {
  $("#settings").hidden = false;
  if (window.PublicKeyCredential) {
    $("#passkeys-line").hidden = false;
    showPasskeys(account.passkeys);
    $("#add-passkey").addEventListener("click", addPasskey);
  }
  const pub = $("#public");
  pub.checked = account.public;
  pub.addEventListener("change", () => act("/api/account/public", { public: pub.checked },
    pub.checked ? "Others can see your profile now." : "Your profile is yours alone now."));
  $("#sign-out").addEventListener("click", () => act("/api/account/signout", {}, null, "/account"));
  $("#sign-out-everywhere").addEventListener("click", () =>
    act("/api/account/signout-everywhere", {}, null, "/account"));
  $("#password-form").addEventListener("submit", (event) => {
    event.preventDefault();
    act("/api/account/password", { old: $("#pw-old").value, new: $("#pw-new").value },
      "Your password is changed; your other sessions are signed out.");
  });
  $("#delete-form").addEventListener("submit", (event) => {
    event.preventDefault();
    act("/api/account/delete", { password: $("#del-password").value }, null, "/");
  });
}

async function act(url, body, said, then) {
  try {
    await api("POST", url, body);
    if (said) showMessage(said, "info");
    if (then) window.location.assign(then);
  } catch (err) {
    showMessage(err.message, "error");
  }
}

// --- The leaderboard ---

async function leaderboard() {
  document.title = "Oh Hell: leaderboard";
  $("#leaderboard").hidden = false;
  const preset = new URLSearchParams(window.location.search).get("preset");
  let data;
  try {
    data = await api("GET", preset ? `/api/leaderboard?preset=${encodeURIComponent(preset)}` : "/api/leaderboard");
  } catch (err) {
    showMessage(err.message, "error", 0);
    return;
  }
  const boards = [{ preset: null, title: "All rules" }, ...data.presets];
  if (preset && !data.presets.some((p) => p.preset === preset)) boards.push({ preset, title: preset });
  const title = boards.find((b) => b.preset === data.preset);
  if (data.preset && title) {
    fill($("#leaderboard-title"), `Leaderboard: ${title.title}`);
    document.title = `Oh Hell: leaderboard, ${title.title}`;
  }
  $("#leaderboard-presets").hidden = data.presets.length === 0 && !preset;
  fill($("#leaderboard-presets"), ...boards.flatMap((b, i) => {
    const here = b.preset === data.preset;
    const link = el("a", { href: b.preset ? `/leaderboard?preset=${encodeURIComponent(b.preset)}` : "/leaderboard" }, b.title);
    if (here) link.setAttribute("aria-current", "page");
    return i ? [" · ", link] : [link];
  }));
  const scope = data.preset ? " in matches of these rules" : "";
  fill($("#leaderboard-rule"), `Players who show their profile, with ${data.least} or more rated matches${scope} and one in the last ${data.days} days; the bots for comparison.`);
  let place = 0;
  fill($("#leaderboard-rows tbody"), ...data.rows.map((row) => {
    if (row.bot) {
      return el("tr", { class: "bot-row" }, el("td", {}, ""), el("td", {}, `Bots: ${row.bot}`),
        el("td", {}, row.rating.toLocaleString("en")), el("td", {}, ""));
    }
    place += 1;
    return el("tr", {}, el("td", {}, String(place)),
      el("td", {}, el("a", { href: `/players/${encodeURIComponent(row.name)}` }, row.name)),
      el("td", {}, `${row.rating.toLocaleString("en")}${row.provisional ? "?" : ""}`),
      el("td", {}, String(row.matches)));
  }));
}

main();
