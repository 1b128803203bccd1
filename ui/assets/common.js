"use strict";
// Helpers shared by the pages.
function fmtNum(v, digits) {
  if (v === undefined || v === null || Number.isNaN(v)) return "–";
  return Number(v).toLocaleString("en-US", { maximumFractionDigits: digits === undefined ? 1 : digits });
}
function fmtBytes(v) {
  if (v === undefined || v === null) return "–";
  const u = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (Math.abs(v) >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return (i === 0 ? v : v.toFixed(1)) + " " + u[i];
}
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}
function row(cells) {
  const tr = document.createElement("tr");
  for (const c of cells) {
    const td = el("td", c[0], c[1]);
    tr.appendChild(td);
  }
  return tr;
}
