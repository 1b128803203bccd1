"use strict";
// The query list, polled every second.
async function refresh() {
  try {
    const r = await fetch("/api/queries", { cache: "no-store" });
    const qs = await r.json();
    const tb = document.querySelector("#queries tbody");
    tb.replaceChildren();
    for (const q of qs) {
      const tr = row([
        ["", ""], [q.state, "state-" + q.state], [q.status ? q.status.message : ""],
        [q.id], [q.runId], [q.started], [fmtNum(q.batches, 0), "num"],
        [q.lastBatchId >= 0 ? String(q.lastBatchId) : "–", "num"],
        [fmtNum(q.inputRowsPerSecond), "num"], [fmtNum(q.processedRowsPerSecond), "num"],
        [q.error ? q.error.slice(0, 120) : ""],
      ]);
      const a = el("a", q.name || "(unnamed)");
      a.href = "/queries/" + encodeURIComponent(q.runId);
      tr.firstChild.appendChild(a);
      tb.appendChild(tr);
    }
    if (qs.length === 0) {
      const tr = document.createElement("tr");
      const td = el("td", "No query yet.", "muted");
      td.colSpan = 11;
      tr.appendChild(td);
      tb.appendChild(tr);
    }
    document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString();
  } catch (e) {
    document.getElementById("updated").textContent = "cannot reach the engine: " + e;
  }
}
refresh();
setInterval(refresh, 1000);
