// gatecrew viewer: renders the state the server folds from the trace. Read-only: the
// websocket only carries states to the page (and, for a replay, which tick to show).
"use strict";

const COLORS = ["#0b5cad", "#d4700a", "#6639ba", "#1a7f37", "#a40e26", "#0e8a8a", "#8a6d0b", "#c0347a"];
const $ = (id) => document.getElementById(id);

// Builds an element; strings become text nodes (never HTML: trace text is data).
function h(tag, attrs, ...kids) {
  const svg = ["svg", "g", "rect", "circle", "line", "text", "defs", "marker", "path", "title"].includes(tag);
  const el = svg ? document.createElementNS("http://www.w3.org/2000/svg", tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null && v !== false) el.setAttribute(k, String(v));
  }
  for (const k of kids.flat()) {
    if (k === null || k === undefined || k === false) continue;
    el.append(k instanceof Node ? k : document.createTextNode(String(k)));
  }
  return el;
}

let state = null;
let span = null;
let ws = null;
let playing = null;
let layerChosen = false;

function pos(p) { return p ? `[${p.join(", ")}]` : "?"; }
// A message's addressee as the trace writes it: an id, "all", or a request's ring (ids).
function addressee(to) { return to === "all" ? "all" : Array.isArray(to) ? to.map((a) => "bot" + a).join(",") : "bot" + to; }
function addressed(to, bot) { return to === bot || (Array.isArray(to) && to.includes(bot)); }
function tierName(t) { return t === 0 ? "no gate" : `tier ${t}`; }

function renderBots(s) {
  const box = $("bots");
  box.replaceChildren(...s.bots.map((b) => {
    const inv = Object.entries(b.inventory).map(([k, v]) => `${k} ×${v}`).join(", ");
    const last = b.last
      ? `${b.last.action}${b.last.item ? " " + b.last.item : ""}${b.last.count ? " ×" + b.last.count : ""} ${b.last.ok ? "✓" : "✗ " + (b.last.reason || "")} (t${b.last.t})`
      : "–";
    const bl = b.blocker;
    const blocker = bl
      ? `${bl.issue}${bl.item ? " " + bl.item : ""}${bl.count ? " ×" + bl.count : ""} since t${bl.since}` +
        (bl.decision ? ` → ${bl.decision} (${tierName(bl.tier)}${bl.rule ? ", " + bl.rule : ""})` : "")
      : "none";
    const card = h("div", { class: "bot", "data-bot": b.id },
      h("h3", {}, h("span", {}, b.name), h("span", { class: "pos" }, pos(b.pos))),
      h("div", { class: "doing" }, b.doing || "–"),
      h("dl", {},
        h("dt", {}, "blocker"), h("dd", { class: bl ? "blocked" : "" }, blocker),
        h("dt", {}, "cooldown"), h("dd", { class: b.cooldown ? "cool" : "" },
          b.cooldown ? `${b.cooldown.item} until t${b.cooldown.until}` : "none"),
        h("dt", {}, "last outcome"), h("dd", {}, last),
        h("dt", {}, "actions"), h("dd", {}, `${b.actions} (${b.failures} failed)`),
        h("dt", {}, "tokens"), h("dd", { class: "tokens" }, b.tokens),
        b.restarts ? [h("dt", {}, "restarts"), h("dd", {}, b.restarts)] : null,
        h("dt", {}, "inventory"), h("dd", { class: "inv", "data-exact": s.inventory_from === "world" ? "yes" : "no" },
          (inv || "empty") + (b.inventory_known ? "" : " (start unknown)") +
          (s.inventory_from === "world" ? "" : " (approx.)"))));
    // Through the CSSOM: the page's CSP refuses style attributes.
    card.style.setProperty("--c", COLORS[b.id % COLORS.length]);
    return card;
  }));
  const sel = $("f-bot");
  if (sel.options.length - 1 !== s.bots.length) {
    const v = sel.value;
    sel.replaceChildren(h("option", { value: "" }, "all"), ...s.bots.map((b) => h("option", { value: b.id }, b.name)));
    sel.value = v;
  }
}

function renderThreads(s) {
  const fb = $("f-bot").value, fk = $("f-kind").value, fs = $("f-state").value;
  const shown = s.board.threads.filter((t) =>
    (fb === "" || t.requester === Number(fb) || t.messages.some((m) => m.from === Number(fb) || addressed(m.to, Number(fb)))) &&
    (fk === "" || t.messages.some((m) => m.msg === fk)) &&
    (fs === "" || t.state === fs));
  $("threads").replaceChildren(...shown.slice().reverse().map((t) => {
    const g = t.gate;
    const f = g ? `C${g.features.C} A${g.features.A} D${g.features.D} R${g.features.R} H${g.features.H}` : "";
    return h("div", { class: `thread ${t.state}`, "data-window": t.window, "data-state": t.state },
      h("h3", {}, h("span", {}, `w${t.window}: ${t.requester !== null ? "bot" + t.requester : "?"} needs ${t.item || "?"}`),
        h("span", { class: "state" }, t.state)),
      g ? h("div", { class: "gate" },
        `gate: ${g.decision} by ${tierName(g.tier)}${g.rule ? " (rule " + g.rule + ")" : ""}, score ${g.score.toFixed(3)}, ${f}` +
        (g.oracle_local_feasible ? " — a local recovery existed" : "")) : null,
      h("ol", {}, ...t.messages.map((m) => h("li", { class: `msg-${m.msg}`, "data-msg": m.msg },
        `t${m.t} ${m.msg} bot${m.from} → ${addressee(m.to)} ${m.item}${m.count ? " ×" + m.count : ""}${m.reason ? " (" + m.reason + ")" : ""}`))));
  }));
}

function renderBlocks(s) {
  const b = s.blocks;
  const pct = b.total ? Math.floor((100 * b.placed) / b.total) : 0;
  $("progress-pct").textContent = `${pct}%`;
  $("progress-bar").style.width = `${pct}%`;
  $("progress-text").textContent =
    `${b.placed} placed, ${b.remaining} remaining, ${b.wrong} wrong of ${b.total}` +
    (b.reported !== null ? ` (the episode's end reports ${b.reported} correct)` : "") +
    (b.known ? "" : " — cells as the trace names them (replay with --config for the whole ghost)");
  $("layers").tBodies[0].replaceChildren(...b.layers.map((l) =>
    h("tr", {}, h("td", {}, l.y), h("td", {}, l.placed), h("td", {}, l.total - l.placed), h("td", {}, l.wrong))));
}

function renderMap(s) {
  const cells = s.blocks.cells;
  const ys = [...new Set(cells.map((c) => c.pos[1]))].sort((a, b) => a - b);
  const slider = $("layer");
  slider.min = 0; slider.max = Math.max(0, ys.length - 1);
  if (!layerChosen) {
    // Follow the lowest layer still being built.
    const open = s.blocks.layers.find((l) => l.placed < l.total);
    slider.value = Math.max(0, ys.indexOf(open ? open.y : ys[ys.length - 1]));
  }
  const y = ys[Number(slider.value)];
  $("layer-y").textContent = y === undefined ? "" : `y=${y}`;
  const pts = cells.map((c) => c.pos).concat(s.bots.filter((b) => b.pos).map((b) => b.pos));
  if (!pts.length) { $("map").replaceChildren(); return; }
  const xs = pts.map((p) => p[0]), zs = pts.map((p) => p[2]);
  const x0 = Math.min(...xs) - 2, z0 = Math.min(...zs) - 2;
  const w = Math.max(Math.max(...xs) - x0 + 3, Math.max(...zs) - z0 + 3);
  const svg = $("map");
  svg.setAttribute("viewBox", `${x0} ${z0} ${w} ${w}`);
  const kids = [h("defs", {}, h("marker", { id: "head", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 5, markerHeight: 5, orient: "auto" },
    h("path", { d: "M0,0 L10,5 L0,10 z", fill: "#0b5cad" })))];
  for (const c of cells.filter((c) => c.pos[1] === y)) {
    kids.push(h("rect", { class: `cell ${c.state}`, x: c.pos[0] + 0.05, y: c.pos[2] + 0.05, width: 0.9, height: 0.9 },
      h("title", {}, `${c.block || "?"} at ${pos(c.pos)}: ${c.state}`)));
  }
  for (const o of s.handovers) {
    if (!o.from_pos || !o.to_pos) continue;
    kids.push(h("line", { class: "handover", x1: o.from_pos[0] + 0.5, y1: o.from_pos[2] + 0.5, x2: o.to_pos[0] + 0.5, y2: o.to_pos[2] + 0.5 },
      h("title", {}, `t${o.t}: bot${o.from} → bot${o.to} ${o.item} ×${o.count}`)));
  }
  for (const b of s.bots.filter((b) => b.pos)) {
    kids.push(h("g", { class: "bot" },
      h("circle", { cx: b.pos[0] + 0.5, cy: b.pos[2] + 0.5, r: 0.45, fill: COLORS[b.id % COLORS.length] }, h("title", {}, `${b.name} at ${pos(b.pos)}`)),
      h("text", { x: b.pos[0] + 1, y: b.pos[2] + 0.4 }, b.name)));
  }
  svg.replaceChildren(...kids);
}

function render() {
  const s = state;
  if (!s) return;
  $("title").textContent = `${s.episode || "episode"} · ${s.policy} · seed ${s.seed} · ${s.blueprint}`;
  $("tick").textContent = s.tick;
  $("ended").textContent = s.ended ? `ended: ${s.ended}` : "";
  renderBots(s);
  renderThreads(s);
  renderBlocks(s);
  renderMap(s);
  const notes = [...(s.notes || [])];
  if (s.inventory_from === "world") {
    notes.unshift(`Inventories: exact, from the world${s.inventory_tick === null ? " (start)" : ` at tick ${s.inventory_tick}`}.`);
  } else if (!notes.length) {
    notes.unshift("Inventories count only the item movements the trace records (mining, pick-ups and smelting outputs name no items).");
  }
  notes.push("Positions follow verified moves.");
  $("note").textContent = notes.join(" ");
  if (span) {
    $("scrubber").min = span[0];
    $("scrubber").max = span[1];
    $("scrubber").value = s.tick;
  }
}

function send(obj) { if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(obj)); }

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

function connect() {
  ws = new WebSocket(`ws://${location.host}/ws`);
  ws.onopen = () => { $("status").textContent = "connected"; };
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.type === "error") { $("note").textContent = m.error; return; }
    // A live update carries only the sections that changed since the last one; a
    // replay (and a first or skipped-to live update) carries them all.
    state = Object.assign(m.span || !state ? {} : state, m.state);
    if (m.span) { span = m.span; $("replay").hidden = false; }
    $("status").textContent = state.mode === "replay" ? "replay" : (state.ended ? "live · ended" : "live");
    $("status").className = `pill ${state.mode}`;
    render();
  };
  ws.onclose = () => {
    $("status").textContent = "disconnected";
    $("status").className = "pill closed";
    stop();
  };
}

document.addEventListener("DOMContentLoaded", () => {
  for (const id of ["f-bot", "f-kind", "f-state"]) $(id).addEventListener("change", render);
  $("layer").addEventListener("input", () => { layerChosen = true; render(); });
  $("play").addEventListener("click", play);
  $("fwd").addEventListener("click", () => { stop(); send({ step: 1 }); });
  $("back").addEventListener("click", () => { stop(); send({ step: -1 }); });
  $("scrubber").addEventListener("input", () => { stop(); send({ seek: Number($("scrubber").value) }); });
  connect();
});
