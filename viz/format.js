// SPDX-License-Identifier: MIT
/* format.js — numbers and names as the page shows them, and the one
 * tooltip every view shares. Amounts are in the event's unit from the
 * profile's "units": "ns" reads as ns/us/ms/s, anything else as a count. */
const PV = {};

PV.fmt = {
  human(v, unit) {
    const steps = unit === "ns"
      ? [[1e9, " s"], [1e6, " ms"], [1e3, " us"]]
      : [[1e9, "G"], [1e6, "M"], [1e3, "k"]];
    for (const [size, name] of steps)
      if (Math.abs(v) >= size) return (v / size).toFixed(3) + name;
    if (unit === "ns") return (Number.isInteger(v) ? v : v.toFixed(1)) + " ns";
    return Number.isInteger(v) ? String(v) : v.toFixed(1);
  },
  pct(part, whole) {
    return whole ? (100 * part / whole).toFixed(2) + "%" : "-";
  },
  count(n) {
    return n.toLocaleString("en-US");
  },
  esc(s) {
    return String(s).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";");
  },
  base(path) {
    return String(path || "").replace(/.*\//, "");
  },
  where(f) {
    return f.file ? PV.fmt.base(f.file) + ":" + f.line : PV.fmt.base(f.module);
  },
};

PV.tip = {
  el: null,
  show(html, x, y) {
    const t = this.el || (this.el = document.getElementById("tip"));
    t.innerHTML = html;
    t.hidden = false;
    const w = t.offsetWidth, h = t.offsetHeight;
    t.style.left = Math.max(4, Math.min(x + 14, innerWidth - w - 4)) + "px";
    t.style.top = Math.max(4, y + 16 + h > innerHeight ? y - h - 8 : y + 16) + "px";
  },
  hide() {
    if (this.el) this.el.hidden = true;
  },
};
