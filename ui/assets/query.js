"use strict";
// One query's page: live by server-sent events from
// /api/queries/{runId}/events; each "update" carries the run's state and
// the progress events since the last one (seq numbers them).
const runId = decodeURIComponent(location.pathname.split("/").pop());
const keep = 300; // progress events kept for the charts
let events = [];
let lastSeq = 0;
const charts = {};
const palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
// Spark's fields; anything else a progress event carries (CPU time, cost …)
// shows in the "Cost and resources" table.
const sparkFields = new Set(["id", "runId", "name", "timestamp", "batchId", "batchDuration", "numInputRows",
  "inputRowsPerSecond", "processedRowsPerSecond", "durationMs", "eventTime", "stateOperators", "sources", "sink",
  "observedMetrics", "numDeadLetterRows"]);
const durationOrder = ["triggerExecution", "latestOffset", "getBatch", "walCommit", "addBatch", "sinkCommit", "commitOffsets"];

function setStat(id, text, value) {
  const e = document.getElementById(id);
  e.textContent = text;
  if (value !== undefined) e.dataset.value = String(value);
}

function fmtShort(v) {
  if (v === null || v === undefined) return "";
  const a = Math.abs(v);
  if (a >= 1e9) return (v / 1e9).toFixed(1) + "G";
  if (a >= 1e6) return (v / 1e6).toFixed(1) + "M";
  if (a >= 1e3) return (v / 1e3).toFixed(1) + "K";
  return String(Math.round(v * 100) / 100);
}
function fmtSeconds(v) {
  if (v === null || v === undefined) return "";
  const a = Math.abs(v);
  if (a >= 86400) { // days behind (replayed or generated old data): to the second
    const d = Math.floor(a / 86400), r = Math.round(a % 86400);
    const hms = [Math.floor(r / 3600), Math.floor(r / 60) % 60, r % 60].map(n => String(n).padStart(2, "0")).join(":");
    return (v < 0 ? "-" : "") + d + "d " + hms;
  }
  if (a >= 3600) return (v / 3600).toFixed(1) + "h";
  if (a >= 60) return (v / 60).toFixed(1) + "m";
  return (Math.round(v * 10) / 10) + "s";
}

function ts(p) { return Date.parse(p.timestamp) / 1000; }

// chart draws series (names, one y array each) against xs in the element
// id, making the uPlot anew when the set of series changes.
function chart(id, names, xs, ys, opts) {
  opts = opts || {};
  const host = document.getElementById(id);
  const key = names.join("|");
  let c = charts[id];
  if (xs.length === 0 || names.length === 0) {
    if (c) { c.plot.destroy(); delete charts[id]; }
    if (!host.querySelector(".nodata")) host.replaceChildren(el("div", opts.empty || "no data yet", "nodata"));
    return;
  }
  // a log scale shows an input rate far below the processing rate; it
  // has no place for 0
  const data = [xs].concat(opts.log ? ys.map(y => y.map(v => v > 0 ? v : null)) : ys);
  if (c && c.key === key) {
    c.plot.setData(data);
    host.dataset.points = String(xs.length);
    return;
  }
  if (c) c.plot.destroy();
  host.replaceChildren();
  const series = [{}].concat(names.map((n, i) => {
    const color = palette[i % palette.length];
    const s = { label: n, stroke: color, width: 1.5, points: { show: xs.length < 3 }, spanGaps: true };
    if (opts.bars) {
      s.paths = uPlot.paths.bars({ size: [0.6, 40] });
      s.fill = color + "99";
    }
    return s;
  }));
  const fmt = opts.fmt || fmtShort;
  const plot = new uPlot({
    width: Math.max(300, host.clientWidth || 500), height: 220, series,
    scales: opts.log ? { x: { time: true }, y: { distr: 3 } } : { x: { time: true } },
    axes: [{}, { size: opts.fmt === fmtSeconds ? 120 : opts.log ? 90 : 76, values: (u, vals) => vals.map(fmt) }],
  }, data, host);
  charts[id] = { plot, key };
  host.dataset.points = String(xs.length);
}

function operatorNames() {
  const names = [];
  for (const p of events) {
    (p.stateOperators || []).forEach((op, i) => { names[i] = i + ": " + op.operatorName; });
  }
  return names;
}

function drawCharts() {
  const xs = events.map(ts);
  chart("chart-rates", ["input rows/s", "processed rows/s"], xs,
    [events.map(p => p.inputRowsPerSecond), events.map(p => p.processedRowsPerSecond)], { log: true });

  const keys = new Set();
  for (const p of events) for (const k of Object.keys(p.durationMs || {})) keys.add(k);
  const order = durationOrder.filter(k => keys.has(k)).concat([...keys].filter(k => !durationOrder.includes(k)).sort());
  chart("chart-durations", order, xs, order.map(k => events.map(p => (p.durationMs || {})[k] ?? null)));

  chart("chart-input", ["input rows"], xs, [events.map(p => p.numInputRows)], { bars: true });

  const wm = events.map(p => {
    const w = p.eventTime && p.eventTime.watermark ? Date.parse(p.eventTime.watermark) / 1000 : null;
    return w ? ts(p) - w : null; // a watermark at 0 is none yet
  });
  const mx = events.map(p => p.eventTime && p.eventTime.max ? ts(p) - Date.parse(p.eventTime.max) / 1000 : null);
  const hasWM = events.some(p => p.eventTime && p.eventTime.watermark);
  chart("chart-lag", hasWM ? ["batch − watermark", "batch − max event time"] : [], xs, [wm, mx],
    { fmt: fmtSeconds, empty: "the query has no watermark" });

  const ops = operatorNames();
  const opSeries = (f) => ops.map((_, i) => events.map(p => (p.stateOperators && p.stateOperators[i]) ? f(p.stateOperators[i]) : null));
  chart("chart-state-rows", ops, xs, opSeries(o => o.numRowsTotal), { empty: "the query has no stateful operator" });
  chart("chart-state-bytes", ops, xs, opSeries(o => o.memoryUsedBytes), { fmt: v => fmtBytes(v), empty: "the query has no stateful operator" });
  // CPU time per batch by phase, when the events carry a cost report
  // (cost.cpuSeconds, cost.operators[]); hidden otherwise
  const cpuFig = document.getElementById("fig-cpu");
  const withCost = events.some(p => p.cost && p.cost.cpuSeconds !== undefined);
  cpuFig.hidden = !withCost;
  if (withCost) {
    const parts = [];
    for (const p of events) for (const o of (p.cost && p.cost.operators) || []) if (!parts.includes(o.name)) parts.push(o.name);
    chart("chart-cpu", ["batch"].concat(parts), xs, [events.map(p => p.cost ? 1e3 * p.cost.cpuSeconds : null)].concat(
      parts.map(n => events.map(p => {
        const o = ((p.cost && p.cost.operators) || []).find(o => o.name === n);
        return o ? 1e3 * o.cpuSeconds : null;
      }))), { fmt: v => fmtShort(v) + " ms" });
  }
  chart("chart-late", ops.length ? ["late rows"] : [], xs,
    [events.map(p => (p.stateOperators || []).reduce((s, o) => s + o.numRowsDroppedByWatermark, 0))],
    { bars: true, empty: "the query has no stateful operator" });
}

function lateRows(p) { return (p.stateOperators || []).reduce((s, o) => s + o.numRowsDroppedByWatermark, 0); }

function drawTables() {
  const tb = document.querySelector("#batches-table tbody");
  tb.replaceChildren();
  for (const p of events.slice(-30).reverse()) {
    tb.appendChild(row([
      [String(p.batchId), "num"], [p.timestamp], [fmtNum(p.numInputRows, 0), "num"],
      [fmtNum(p.inputRowsPerSecond), "num"], [fmtNum(p.processedRowsPerSecond), "num"],
      [fmtNum(p.batchDuration, 0), "num"], [fmtNum(p.sink ? p.sink.numOutputRows : 0, 0), "num"],
      [fmtNum(lateRows(p), 0), "num"], [p.eventTime && p.eventTime.watermark ? p.eventTime.watermark : "–"],
    ]));
  }
  const last = events[events.length - 1];
  const ob = document.querySelector("#operators tbody");
  ob.replaceChildren();
  if (last) {
    (last.stateOperators || []).forEach((o, i) => ob.appendChild(row([
      [String(i), "num"], [o.operatorName], [fmtNum(o.numRowsTotal, 0), "num"], [fmtNum(o.numRowsUpdated, 0), "num"],
      [fmtNum(o.numRowsRemoved, 0), "num"], [fmtBytes(o.memoryUsedBytes), "num"], [fmtNum(o.numRowsDroppedByWatermark, 0), "num"],
      [fmtNum(o.numShufflePartitions, 0), "num"], [fmtNum(o.allUpdatesTimeMs, 0), "num"], [fmtNum(o.allRemovalsTimeMs, 0), "num"],
      [fmtNum(o.commitTimeMs, 0), "num"],
    ])));
    document.getElementById("last-progress").textContent = JSON.stringify(last, null, 2);
  }
}

// drawPlan shows the physical plan with each stateful operator's latest
// metrics on its line, as Spark's plan graph carries them on its nodes.
let planText = "";
function drawPlan() {
  if (!planText) return;
  const last = events[events.length - 1];
  const ops = (last && last.stateOperators) || [];
  document.getElementById("plan").textContent = planText.split("\n").map(line => {
    const m = /^stateful operator (\d+):/.exec(line);
    const o = m && ops[Number(m[1])];
    if (!o) return line;
    return line + "   [state rows " + fmtNum(o.numRowsTotal, 0) + ", updated " + fmtNum(o.numRowsUpdated, 0) +
      ", removed " + fmtNum(o.numRowsRemoved, 0) + ", memory " + fmtBytes(o.memoryUsedBytes) +
      ", late rows " + fmtNum(o.numRowsDroppedByWatermark, 0) + "]";
  }).join("\n");
}

// drawExtra shows the fields beyond Spark's of the latest event, flattened.
function drawExtra(last) {
  const rows = [];
  const walk = (prefix, v) => {
    if (Array.isArray(v) && v.every(x => x !== null && typeof x === "object")) {
      // a list of named parts (cost.operators): one row per part and field
      v.forEach((x, i) => walk(prefix + "[" + (x.name !== undefined ? x.name : i) + "]",
        Object.fromEntries(Object.entries(x).filter(([k]) => k !== "name"))));
    } else if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      for (const [k, x] of Object.entries(v)) walk(prefix ? prefix + "." + k : k, x);
    } else rows.push([prefix, Array.isArray(v) ? JSON.stringify(v) :
      (typeof v === "number" ? (v !== 0 && Math.abs(v) < 1 ? String(Number(v.toPrecision(3))) : fmtNum(v, 3)) : String(v))]);
  };
  for (const [k, v] of Object.entries(last || {})) if (!sparkFields.has(k)) walk(k, v);
  const sec = document.getElementById("extra");
  sec.hidden = rows.length === 0;
  const tb = document.querySelector("#extra-table tbody");
  tb.replaceChildren();
  for (const r of rows) tb.appendChild(row([[r[0]], [r[1], "num"]]));
}

function update(d) {
  document.title = "Millrace · " + (d.name || "(unnamed)");
  document.getElementById("title").textContent = d.name || "(unnamed query)";
  document.getElementById("ids").textContent = "id " + d.id + " · run " + d.runId + " · started " + d.started + (d.ended ? " · ended " + d.ended : "");
  const st = document.getElementById("state");
  st.textContent = d.state;
  st.className = "state-" + d.state;
  document.getElementById("status").textContent = d.status ? d.status.message : "";
  if (d.plan) { planText = d.plan; drawPlan(); }
  if (d.logicalPlan) document.getElementById("logical-plan").textContent = d.logicalPlan;
  const errBox = document.getElementById("error");
  errBox.hidden = !d.error;
  if (d.error) {
    document.getElementById("error-text").textContent = d.error;
    document.getElementById("error-batch").textContent = (d.errorBatch >= 0 ? "in batch " + d.errorBatch : "") + (d.errorAt ? " at " + d.errorAt : "");
  }
  const first = d.seq - d.progress.length;
  d.progress.forEach((p, i) => { if (first + i + 1 > lastSeq) events.push(p); });
  lastSeq = Math.max(lastSeq, d.seq);
  if (events.length > keep) events = events.slice(events.length - keep);
  setStat("batches", fmtNum(d.batches, 0), d.batches);
  const last = events[events.length - 1];
  if (last) {
    setStat("last-batch-id", String(last.batchId), last.batchId);
    setStat("last-input-rows", fmtNum(last.numInputRows, 0), last.numInputRows);
    setStat("input-rate", fmtNum(last.inputRowsPerSecond), last.inputRowsPerSecond);
    setStat("processed-rate", fmtNum(last.processedRowsPerSecond), last.processedRowsPerSecond);
    setStat("last-duration", fmtNum(last.batchDuration, 0) + " ms", last.batchDuration);
    setStat("watermark", last.eventTime && last.eventTime.watermark ? last.eventTime.watermark : "none");
    drawExtra(last);
  }
  if (d.progress.length > 0 || !charts["chart-rates"]) {
    drawCharts();
    drawTables();
    drawPlan();
  }
}

function connect() {
  const es = new EventSource("/api/queries/" + encodeURIComponent(runId) + "/events");
  const conn = document.getElementById("conn");
  es.addEventListener("update", e => {
    conn.textContent = "live, updated " + new Date().toLocaleTimeString();
    update(JSON.parse(e.data));
  });
  es.onerror = () => { conn.textContent = "connection lost, retrying…"; };
}

window.addEventListener("resize", () => {
  for (const id of Object.keys(charts)) {
    const host = document.getElementById(id);
    charts[id].plot.setSize({ width: Math.max(300, host.clientWidth), height: 220 });
  }
});
connect();
