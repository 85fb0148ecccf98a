// gatecrew viewer: the map (one layer, top down), the layer strip (every height), and
// the bots' colours. Loaded before app.js; shares its globals.
"use strict";

// Eight hand-picked colours for a small crew; beyond, 14 hues (taken five apart, so
// that neighbouring ids differ most) at three lightnesses: 42 colours, and at 40 bots
// no two closer than 36 in RGB (the browser test checks 30).
const COLORS = ["#0b5cad", "#d4700a", "#6639ba", "#1a7f37", "#a40e26", "#0e8a8a", "#8a6d0b", "#c0347a"];
function color(id, crew) {
  if (crew <= COLORS.length) return COLORS[id % COLORS.length];
  const hue = (((id * 5) % 14) * 360) / 14;
  return `hsl(${hue.toFixed(1)}, 80%, ${[45, 28, 62][Math.floor(id / 14) % 3]}%)`;
}

// Above this many bots the map labels each bot by its number inside its disc (the full
// name is its tooltip): names beside the discs overlap once bots stand close.
const NAMES_UP_TO = 8;

// Where each bot is drawn: its cell, shared evenly when several stand on one.
function placed(bots) {
  const at = new Map();
  for (const b of bots.filter((b) => b.pos)) {
    const k = `${b.pos[0]},${b.pos[2]}`;
    if (!at.has(k)) at.set(k, []);
    at.get(k).push(b);
  }
  const out = [];
  for (const group of at.values()) {
    const n = Math.ceil(Math.sqrt(group.length));
    const size = 1 / n;
    group.forEach((b, i) => out.push({ b, x: b.pos[0] + size * (i % n + 0.5), z: b.pos[2] + size * (Math.floor(i / n) + 0.5), r: 0.45 * size }));
  }
  return out;
}

// A bot's number inside its disc, sized to it.
function inside(id, x, z, r) {
  // The lightest third of the colours takes dark digits.
  const t = h("text", { class: `label inside${Math.floor(id / 14) % 3 === 2 ? " dark" : ""}`, x, y: z }, id);
  t.style.fontSize = `${(r * (id > 9 ? 1.0 : 1.3)).toFixed(3)}px`;
  return t;
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
  renderStrip(s, y);
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
  const named = s.bots.length <= NAMES_UP_TO;
  for (const { b, x, z, r } of placed(s.bots)) {
    // A bot whose feet are not at the layer shown is drawn faded.
    const off = y !== undefined && b.pos[1] !== y;
    kids.push(h("g", { class: `bot${off ? " off" : ""}`, "data-bot": b.id },
      h("circle", { cx: x, cy: z, r, fill: color(b.id, s.bots.length) }, h("title", {}, `${b.name} at ${pos(b.pos)}`)),
      named ? h("text", { class: "label", x: x + r + 0.1, y: z - 0.05 }, b.name) : inside(b.id, x, z, r)));
  }
  svg.replaceChildren(...kids);
}

// Every layer, top down: its progress and the bots whose feet are at its height; a
// click shows it on the map.
function renderStrip(s, shown) {
  const layers = [...s.blocks.layers].reverse();
  const top = layers.length ? layers[0].y : 0;
  const at = (y) => s.bots.filter((b) => b.pos && (b.pos[1] === y || (y === top && b.pos[1] > top)));
  $("strip").replaceChildren(...layers.map((l) => {
    const row = h("div", { class: `layer${l.y === shown ? " shown" : ""}`, "data-y": l.y, title: `layer y=${l.y}: ${l.placed} of ${l.total} placed, ${l.wrong} wrong` },
      h("span", { class: "y" }, `y=${l.y}`),
      h("span", { class: "bar" }, h("span", { class: "fill" })),
      h("span", { class: "n" }, `${l.placed}/${l.total}`),
      h("span", { class: "who" }, at(l.y).map((b) => {
        const d = h("span", { class: "dot", title: `${b.name} at ${pos(b.pos)}` });
        d.style.background = color(b.id, s.bots.length);
        return d;
      })));
    row.querySelector(".fill").style.width = `${l.total ? (100 * l.placed) / l.total : 0}%`;
    row.addEventListener("click", () => {
      const ys = [...new Set(s.blocks.cells.map((c) => c.pos[1]))].sort((a, b) => a - b);
      $("layer").value = ys.indexOf(l.y);
      layerChosen = true;
      render();
    });
    return row;
  }));
}
