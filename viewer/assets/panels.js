// gatecrew viewer: the metrics panel, the board's threads, the public lines, the event
// log and the gate features' legend. Loaded before app.js; shares its globals.
"use strict";

// DESIGN section 5.1: what each gate feature measures, and its four levels.
const FEATURES = {
  C: ["criticality", ["no dependents", "prerequisite of a local sub-structure (depth <= 2)",
    "prerequisite of a major upcoming component", "on the critical path: a teammate's work depends on it"]],
  A: ["coordination advantage", ["no teammate within 32 blocks, or all refused this item",
    "a teammate within 32 blocks, surplus unknown", "a teammate offered this item and is within 16 blocks",
    "such a teammate within 4 blocks"]],
  D: ["downstream impact", ["only this bot waits, and it has other work", "a local detour (<= 20 ticks)",
    "a long local recovery, or a teammate waits", "every bot's remaining work waits"]],
  R: ["local recoverability", ["impossible: no source, no recipe path", "costly: a chain or far travel",
    "one craft from what it holds", "immediate: the item lies in reach"]],
  H: ["history penalty", ["fresh", "the last request timed out", "asked repeatedly with zero yield",
    "CANNOT_SUPPLY received: cooldown"]],
};

function renderLegend() {
  $("features-legend").replaceChildren(...Object.entries(FEATURES).map(([k, [name, levels]]) =>
    h("div", { class: "feature", "data-f": k },
      h("b", {}, k), ` ${name}: `,
      levels.flatMap((l, i) => [i ? " · " : null, h("span", { class: "level" }, `${i} ${l}`)]))));
}

// `C2 A1 D2 R0 H0`, each letter with what it means at its level.
function featureSpans(f) {
  return Object.keys(FEATURES).flatMap((k, i) => [i ? " " : null,
    h("span", { class: "feat", "data-f": k, title: `${k} ${FEATURES[k][0]} = ${f[k]}: ${FEATURES[k][1][f[k]] || "?"}` }, `${k}${f[k]}`)]);
}

function rate(c) {
  return c.of ? `${(100 * c.n / c.of).toFixed(1)}% (${c.n}/${c.of})` : `— (0/0)`;
}

function renderMetrics(s) {
  const m = s.metrics;
  if (!m) return;
  const set = (k, v, title) => { const e = document.querySelector(`#metrics [data-metric="${k}"]`); e.textContent = v; if (title) e.title = title; };
  set("tsr", m.tsr === null ? "—" : m.tsr.toFixed(3) + (m.tsr_final ? "" : " so far"),
    m.tsr_final ? "the episode end's TSR" : "blueprint cells the page counts as right / blueprint blocks");
  set("msg", `${m.msg}` + (m.msg_tokens ? ` (${m.msg_tokens} tokens)` : ""), "board messages, chat and manager lines");
  set("lrr", rate(m.lrr), "material and tool issues resolved locally / resolved");
  set("ecr", rate(m.ecr), "windows closed by a confirmed transfer / windows opened");
  set("uer", rate(m.uer), "escalations whose oracle knew a local recovery / escalations");
  set("gated", `${m.gated.n} escalated of ${m.gated.of}`, "gate decisions so far");
}

function renderThreads(s) {
  const fb = $("f-bot").value, fk = $("f-kind").value, fs = $("f-state").value;
  const shown = s.board.threads.filter((t) =>
    (fb === "" || t.requester === Number(fb) || t.messages.some((m) => m.from === Number(fb) || addressed(m.to, Number(fb)))) &&
    (fk === "" || t.messages.some((m) => m.msg === fk)) &&
    (fs === "" || t.state === fs));
  $("threads").replaceChildren(...shown.slice().reverse().map((t) => {
    const g = t.gate;
    return h("div", { class: `thread ${t.state}`, "data-window": t.window, "data-state": t.state },
      h("h3", {}, h("span", { class: "who" }, `w${t.window}: ${t.requester !== null ? "bot" + t.requester : "?"} needs ${t.item || "?"}`),
        h("span", { class: "state" }, t.state)),
      g ? h("div", { class: "gate" },
        `gate: ${g.decision} by ${tierName(g.tier)}${g.rule ? " (rule " + g.rule + ")" : ""}, score ${g.score.toFixed(3)}, `,
        featureSpans(g.features),
        g.oracle_local_feasible ? " — a local recovery existed" : null) : null,
      t.messages.length
        ? h("ol", {}, ...t.messages.map((m) => h("li", { class: `msg-${m.msg}`, "data-msg": m.msg },
          `t${m.t} ${m.msg} bot${m.from} → ${addressee(m.to)} ${m.item}${m.count ? " ×" + m.count : ""}${m.reason ? " (" + m.reason + ")" : ""}`)))
        : h("p", { class: "quiet" }, `no board messages: ${s.policy} speaks in its public lines (below)`));
  }));
}

function who(id) { return id === null ? "manager" : "bot" + id; }

function renderLines(s) {
  const lines = s.board.lines || [];
  $("lines-box").hidden = lines.length === 0;
  const fb = $("f-bot").value;
  const shown = lines.filter((l) => fb === "" || l.from === Number(fb) || (l.to !== null && addressed(l.to, Number(fb))) || l.to === "all");
  $("lines-count").textContent = `${lines.length}`;
  $("lines").replaceChildren(...shown.slice(-200).reverse().map((l) =>
    h("li", { class: `line ${l.channel}`, "data-channel": l.channel },
      `t${l.t} ${l.channel} ${who(l.from)} → ${l.to === null ? "manager" : addressee(l.to)} · ${l.tokens} tokens`)));
}

// Rows of the log in the DOM at most: the latest matching ones.
const LOG_ROWS = 200;

function renderLog(s) {
  const log = s.log;
  if (!log) return;
  const kinds = [...new Set(log.entries.map((e) => e.kind))].sort();
  const ks = $("log-kind");
  if ([...ks.options].slice(1).map((o) => o.value).join() !== kinds.join()) {
    const v = ks.value;
    ks.replaceChildren(h("option", { value: "" }, "all"), ...kinds.map((k) => h("option", { value: k }, k)));
    ks.value = kinds.includes(v) ? v : "";
  }
  const fb = $("log-bot").value, fk = ks.value;
  const bot = Number(fb);
  const shown = log.entries.filter((e) => (fk === "" || e.kind === fk) && (fb === "" || e.all || e.bots.includes(bot)));
  $("log-count").textContent = `${Math.min(shown.length, LOG_ROWS)} of ${shown.length} matching; ${log.entries.length} kept of ${log.total} events`;
  $("log").replaceChildren(...shown.slice(-LOG_ROWS).reverse().map((e) =>
    h("li", { class: `ev ${e.kind}`, "data-kind": e.kind, "data-bots": e.bots.join(" ") }, h("span", { class: "t" }, `t${e.t}`), " ", e.text)));
}

// A bot filter select listing every bot of the state.
function fillBots(sel, bots) {
  if (sel.options.length - 1 === bots.length) return;
  const v = sel.value;
  sel.replaceChildren(h("option", { value: "" }, "all"), ...bots.map((b) => h("option", { value: b.id }, b.name)));
  sel.value = v;
}

// The log's new entries onto the log the page holds (a live delta's `log_add`).
function appendLog(s, add) {
  const log = s.log;
  log.entries.push(...add.entries);
  log.total = add.total;
  if (log.entries.length > log.max) log.entries.splice(0, log.entries.length - log.max);
}
