// Short tones made with WebAudio (no sound files): when it becomes your turn,
// and when a trick is won. Off until the player turns it on; the choice is
// remembered in localStorage under "ohhell-sound".
//
// The toggle (#sound-button, key m) says how many tones it has played and
// the last one (data-played, data-last), so a test can tell without a
// loudspeaker.

const KEY = "ohhell-sound";
const TONES = {
  turn: [[660, 0, 0.12], [880, 0.13, 0.12]], // [hertz, start s, length s]: two notes up
  trick: [[520, 0, 0.09]], // somebody else took the trick
  won: [[523, 0, 0.08], [659, 0.09, 0.08], [784, 0.18, 0.12]], // you took it
  hurry: [[880, 0, 0.08], [880, 0.16, 0.08], [880, 0.32, 0.08]], // your move clock is nearly out
};

export function createSound(button) {
  let on = false;
  let context = null;
  let played = 0;
  try {
    on = localStorage.getItem(KEY) === "on";
  } catch {
    on = false;
  }

  function draw() {
    button.setAttribute("aria-pressed", String(on));
    button.querySelector(".state").textContent = on ? "on" : "off";
    button.title = on ? "Sounds are on (m turns them off)" : "Sounds are off (m turns them on)";
  }

  function toggle() {
    on = !on;
    try {
      localStorage.setItem(KEY, on ? "on" : "off");
    } catch { /* no storage: for this page only */ }
    if (on) ensureContext(); // made during the click: browsers only let a page play after one
    draw();
    if (on) play("turn");
  }

  function ensureContext() {
    if (context) return context;
    const Audio = window.AudioContext || window.webkitAudioContext;
    if (!Audio) return null;
    try {
      context = new Audio();
    } catch {
      context = null;
    }
    return context;
  }

  function play(kind) {
    if (!on || !TONES[kind]) return;
    played += 1;
    button.dataset.played = String(played);
    button.dataset.last = kind;
    const ctx = ensureContext();
    if (!ctx) return;
    try {
      if (ctx.state === "suspended") ctx.resume();
      const start = ctx.currentTime + 0.01;
      for (const [hertz, at, length] of TONES[kind]) {
        const osc = ctx.createOscillator();
        const gain = ctx.createGain();
        osc.type = "sine";
        osc.frequency.value = hertz;
        gain.gain.setValueAtTime(0.0001, start + at);
        gain.gain.exponentialRampToValueAtTime(0.15, start + at + 0.015);
        gain.gain.exponentialRampToValueAtTime(0.0001, start + at + length);
        osc.connect(gain).connect(ctx.destination);
        osc.start(start + at);
        osc.stop(start + at + length + 0.02);
      }
    } catch { /* no sound is better than a broken page */ }
  }

  button.dataset.played = "0";
  button.addEventListener("click", toggle);
  draw();
  return { play, toggle };
}
