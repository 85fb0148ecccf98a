// gatecrew viewer: a replay's controls. Play and pause, stepping to the previous or
// next tick with events, the scrubber and its event markers, the keyboard, and a URL
// per tick (`#t=123`: opening it, or editing it, shows that tick). Loaded after app.js.
"use strict";

let marks = [];
// The tick the URL asked for, until the replay shows it.
let wanted = hashTick();

function hashTick() {
  const m = /^#t=(\d+)$/.exec(location.hash);
  return m ? Number(m[1]) : null;
}

function stop() { if (playing) { clearInterval(playing); playing = null; $("play").textContent = "▶ play"; } }

function play() {
  if (playing) { stop(); return; }
  $("play").textContent = "❚❚ pause";
  const every = 100;
  playing = setInterval(() => {
    if (!state || !span) return;
    if (state.tick >= span[1]) { stop(); return; }
    const step = Math.max(1, Math.round((Number($("speed").value) * every) / 1000));
    send({ seek: Math.min(span[1], state.tick + step) });
  }, every);
}

function seek(t) { stop(); send({ seek: t }); }

// The first marker after (dir 1) or before (dir -1) the tick shown.
function jump(dir) {
  if (!state || !marks.length) return;
  const t = state.tick;
  const m = dir > 0 ? marks.find((k) => k.t > t) : [...marks].reverse().find((k) => k.t < t);
  if (m) seek(m.t);
}

function renderMarks() {
  const box = $("marks");
  if (!span) return;
  const width = Math.max(1, span[1] - span[0]);
  // One marker per tick and kind: a tick with three issues is one mark.
  const seen = new Set();
  box.replaceChildren(...marks.filter((m) => !seen.has(`${m.t} ${m.kind}`) && seen.add(`${m.t} ${m.kind}`)).map((m) => {
    const b = h("button", { class: `mark ${m.kind}`, "data-t": m.t, "data-kind": m.kind,
      title: `t${m.t}: ${m.kind}${m.bot !== null ? " (bot" + m.bot + ")" : ""}` });
    // Through the CSSOM: the page's CSP refuses style attributes.
    b.style.left = `${(100 * (m.t - span[0])) / width}%`;
    b.addEventListener("click", () => seek(m.t));
    return b;
  }));
  $("mark-legend").hidden = marks.length === 0;
}

// A replay message: the span, the markers (in the first), and the URL of the tick shown.
function replayMessage(m) {
  if (m.marks) { marks = m.marks; renderMarks(); }
  if (wanted !== null && span) {
    const t = Math.min(Math.max(wanted, span[0]), span[1]);
    wanted = null;
    if (t !== state.tick) { send({ seek: t }); return; }
  }
  const url = `#t=${state.tick}`;
  if (location.hash !== url) history.replaceState(null, "", url);
}

function onKey(e) {
  if (!span || e.altKey || e.ctrlKey || e.metaKey) return;
  const tag = e.target && e.target.tagName;
  if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA") return;
  const keys = {
    ArrowRight: () => (e.shiftKey ? jump(1) : (stop(), send({ step: 1 }))),
    ArrowLeft: () => (e.shiftKey ? jump(-1) : (stop(), send({ step: -1 }))),
    Home: () => seek(span[0]),
    End: () => seek(span[1]),
    " ": play,
  };
  const k = keys[e.key];
  if (k) { e.preventDefault(); k(); }
}

document.addEventListener("DOMContentLoaded", () => {
  $("play").addEventListener("click", play);
  $("fwd").addEventListener("click", () => { stop(); send({ step: 1 }); });
  $("back").addEventListener("click", () => { stop(); send({ step: -1 }); });
  $("scrubber").addEventListener("input", () => seek(Number($("scrubber").value)));
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", () => {
    const t = hashTick();
    if (t !== null && state && t !== state.tick) seek(t);
  });
});
