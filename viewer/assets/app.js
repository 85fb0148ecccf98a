// gatecrew viewer: renders the state the server folds from the trace. Read-only: the
// websocket only carries states to the page (and, for a replay, which tick to show).
"use strict";

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
function tierName(t) { return t === 0 ? "the policy (no gate)" : `tier ${t}`; }

// Above this many bots the cards are one line each, grouped by what the bots are
// doing, and open on a click: a full card each ran to 7,300 px at 40 bots.
const FULL_CARDS_UP_TO = 8;
const expanded = new Set();

// The group a bot's `doing` puts it in, in the order the groups are shown.
const GROUPS = [["out of the episode", "out"], ["waiting on the board", "waiting on the board"],
  ["blocked", "blocked"], ["recovering locally", "recovering locally"], ["starting", "starting"], ["done", "done"]];
function group(b) {
  const g = GROUPS.find(([prefix]) => (b.doing || "").startsWith(prefix));
  return g ? g[1] : "working";
}

function card(s, b, full) {
  const inv = Object.entries(b.inventory).map(([k, v]) => `${k} ×${v}`).join(", ");
  const last = b.last
    ? `${b.last.action}${b.last.item ? " " + b.last.item : ""}${b.last.count ? " ×" + b.last.count : ""} ${b.last.ok ? "✓" : "✗ " + (b.last.reason || "")} (t${b.last.t})`
    : "–";
  const bl = b.blocker;
  const blocker = bl
    ? `${bl.issue}${bl.item ? " " + bl.item : ""}${bl.count ? " ×" + bl.count : ""} since t${bl.since}` +
      (bl.decision ? ` → ${bl.decision} (${tierName(bl.tier)}${bl.rule ? ", " + bl.rule : ""})` : "")
    : "none";
  const invText = (inv || "empty") + (b.inventory_known ? "" : " (start unknown)") + (s.inventory_from === "world" ? "" : " (approx.)");
  const open = full || expanded.has(b.id);
  const el = h("div", { class: `bot${full ? "" : " compact"}${open ? " open" : ""}`, "data-bot": b.id, "data-group": group(b) },
    h("h3", {}, h("span", { class: "name" }, b.name), full ? null : h("span", { class: "doing" }, b.doing || "–"),
      h("span", { class: "pos" }, pos(b.pos))),
    full ? h("div", { class: "doing" }, b.doing || "–") : null,
    open ? h("dl", {},
      h("dt", {}, "blocker"), h("dd", { class: bl ? "blocked" : "" }, blocker),
      h("dt", {}, "cooldown"), h("dd", { class: b.cooldown ? "cool" : "" },
        b.cooldown ? `${b.cooldown.item} until t${b.cooldown.until}` : "none"),
      h("dt", {}, "last outcome"), h("dd", {}, last),
      h("dt", {}, "actions"), h("dd", {}, `${b.actions} (${b.failures} failed)`),
      h("dt", {}, "tokens"), h("dd", { class: "tokens" }, b.tokens),
      b.restarts ? [h("dt", {}, "restarts"), h("dd", {}, b.restarts)] : null,
      h("dt", {}, "inventory"), h("dd", { class: "inv", "data-exact": s.inventory_from === "world" ? "yes" : "no" }, invText)) : null);
  if (!full) {
    el.title = `${b.name}: ${b.doing}; inventory ${invText}. Click for the card.`;
    el.addEventListener("click", () => { if (expanded.has(b.id)) expanded.delete(b.id); else expanded.add(b.id); render(); });
  }
  // Through the CSSOM: the page's CSP refuses style attributes.
  el.style.setProperty("--c", color(b.id, s.bots.length));
  return el;
}

function renderBots(s) {
  const full = s.bots.length <= FULL_CARDS_UP_TO;
  if (full) {
    $("bots").replaceChildren(...s.bots.map((b) => card(s, b, true)));
  } else {
    const names = [...GROUPS.map((g) => g[1]), "working"];
    const order = (b) => names.indexOf(group(b));
    const bots = [...s.bots].sort((a, b) => order(a) - order(b) || a.id - b.id);
    const kids = [];
    let last = null;
    for (const b of bots) {
      const g = group(b);
      if (g !== last) {
        kids.push(h("h4", { class: "group", "data-group": g }, `${g} (${bots.filter((x) => group(x) === g).length})`));
        last = g;
      }
      kids.push(card(s, b, false));
    }
    $("bots").replaceChildren(...kids);
  }
  fillBots($("f-bot"), s.bots);
  fillBots($("log-bot"), s.bots);
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

function render() {
  const s = state;
  if (!s) return;
  $("title").textContent = `${s.episode || "episode"} · ${s.policy} · seed ${s.seed} · ${s.blueprint}`;
  $("tick").textContent = s.tick;
  $("ended").textContent = s.ended ? `ended: ${s.ended}` : "";
  renderMetrics(s);
  renderBots(s);
  renderThreads(s);
  renderLines(s);
  renderLog(s);
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

function connect() {
  ws = new WebSocket(`ws://${location.host}/ws`);
  ws.onopen = () => { $("status").textContent = "connected"; };
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.type === "error") { $("note").textContent = m.error; return; }
    // A live update carries only the sections that changed since the last one; a
    // replay (and a first or skipped-to live update) carries them all.
    // Of the log, a live update carries only the entries added since the last one.
    const add = m.state.log_add;
    delete m.state.log_add;
    state = Object.assign(m.span || !state ? {} : state, m.state);
    if (add) appendLog(state, add);
    if (m.span) { span = m.span; $("replay").hidden = false; }
    $("status").textContent = state.mode === "replay" ? "replay" : (state.ended ? "live · ended" : "live");
    $("status").className = `pill ${state.mode}`;
    render();
    if (m.span) replayMessage(m);
  };
  ws.onclose = () => {
    $("status").textContent = "disconnected";
    $("status").className = "pill closed";
    stop();
  };
}

document.addEventListener("DOMContentLoaded", () => {
  for (const id of ["f-bot", "f-kind", "f-state", "log-bot", "log-kind"]) $(id).addEventListener("change", render);
  renderLegend();
  $("layer").addEventListener("input", () => { layerChosen = true; render(); });
  connect();
});
