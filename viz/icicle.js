// SPDX-License-Identifier: MIT
/* icicle.js — the calling-context tree (the JSON's exact "paths": each a
 * function under its parent path) as an icicle on a canvas: the root on
 * top, each path as wide as its total, its callees below it, hottest
 * first. Clicking a frame zooms to it (it fills the width, its ancestors
 * stay above it); clicking the top frame ("all") zooms back out. */
PV.icicle = {
  ROW: 18,
  MAX_ROWS: 1500, // a canvas taller than 32767 px stays blank: deeper recursion is cut
  init(m) {
    this.m = m;
    this.host = document.getElementById("icicle");
    this.canvas = this.host.querySelector("canvas");
    const paths = this.paths = m.paths;
    this.kids = m.pathKids;
    this.roots = m.pathRoots;
    const rootSum = this.roots.reduce((s, i) => s + paths[i].total[0], 0);
    this.all = Math.max(m.run, rootSum);
    this.zoom = -1; // the path filling the width; -1: "all"
    this.frames = [];
    this.marked = null;
    this.focused = null;
    this.canvas.addEventListener("click", (e) => {
      const f = this.hit(e);
      if (f) this.zoomTo(f.node);
    });
    this.canvas.addEventListener("mousemove", (e) => {
      const f = this.hit(e);
      if (!f) return PV.tip.hide();
      PV.tip.show(this.describe(f.node), e.clientX, e.clientY);
    });
    this.canvas.addEventListener("mouseleave", () => PV.tip.hide());
    new ResizeObserver(() => this.draw()).observe(this.host);
  },
  total(node) {
    return node < 0 ? this.all : this.paths[node].total[0];
  },
  name(node) {
    return node < 0 ? "all: " + PV.fmt.base(this.m.prof.program) : this.m.funcs[this.paths[node].function].name;
  },
  zoomTo(node) {
    this.zoom = node;
    this.draw();
  },
  describe(node) {
    const F = PV.fmt, m = this.m;
    if (node < 0) return "<b>" + F.esc(this.name(node)) + "</b><div>total " + F.human(this.all, m.unit) + "</div>";
    const p = this.paths[node];
    let depth = 0;
    for (let n = p.parent; n !== null; n = this.paths[n].parent) depth++;
    return "<b>" + F.esc(this.name(node)) + "</b><div class=dim>this call path, depth " + depth +
      "</div><table><tr><td>self</td><td>" + F.human(p.self[0], m.unit) + " (" + F.pct(p.self[0], m.run) +
      ")</td></tr><tr><td>total</td><td>" + F.human(p.total[0], m.unit) + " (" + F.pct(p.total[0], m.run) +
      ")</td></tr><tr><td>calls</td><td>" + F.count(p.calls) + "</td></tr></table>";
  },
  hit(e) {
    const r = this.canvas.getBoundingClientRect();
    const x = e.clientX - r.left, d = Math.floor((e.clientY - r.top) / this.ROW);
    return this.frames.find((f) => f.d === d && x >= f.x && x < f.x + f.w) || null;
  },
  /* Lay out the frames wide enough to see, then paint them. */
  layout(width) {
    const frames = [], chain = [];
    for (let n = this.zoom; n >= 0; n = this.paths[n].parent === null ? -1 : this.paths[n].parent) chain.unshift(n);
    chain.unshift(-1);
    chain.forEach((n, d) => frames.push({ node: n, x: 0, w: width, d }));
    const scale = width / (this.total(this.zoom) || 1);
    const stack = [[this.zoom < 0 ? this.roots : this.kids[this.zoom], 0, chain.length]];
    while (stack.length) {
      const [kids, x0, d] = stack.pop();
      let x = x0;
      for (const k of kids) {
        if (PV.isApart(this.m, this.paths[k].function)) continue; // a wait apart: not work
        const w = this.paths[k].total[0] * scale;
        if (w < 0.3) break; // hottest first: the rest are narrower still
        frames.push({ node: k, x, w, d });
        if (this.kids[k].length && d + 1 < this.MAX_ROWS) stack.push([this.kids[k], x, d + 1]);
        x += w;
      }
    }
    return frames;
  },
  colour(node) {
    if (node < 0) return "#d8d8d8";
    const fn = this.paths[node].function;
    if (this.marked && this.marked.has(fn)) return "#c77dff";
    let h = 0;
    for (const c of this.m.funcs[fn].name) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    return "hsl(" + (h % 50) + "," + (70 + (h >> 8) % 20) + "%," + (58 + (h >> 16) % 14) + "%)";
  },
  draw() {
    const width = this.host.clientWidth;
    if (!width) return; // hidden: drawn when shown
    const frames = this.frames = this.layout(width);
    const depth = frames.reduce((d, f) => Math.max(d, f.d), 0) + 1;
    const dpr = window.devicePixelRatio || 1, c = this.canvas, ROW = this.ROW;
    c.style.width = width + "px";
    c.style.height = depth * ROW + "px";
    c.width = Math.round(width * dpr);
    c.height = Math.round(depth * ROW * dpr);
    const g = c.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.font = "11px sans-serif";
    g.textBaseline = "middle";
    const focused = this.focused;
    for (const f of frames) {
      g.fillStyle = this.colour(f.node);
      g.fillRect(f.x, f.d * ROW, Math.max(f.w - 0.5, 0.5), ROW - 1);
      if (focused !== null && f.node >= 0 && this.paths[f.node].function === focused) {
        g.strokeStyle = "#000";
        g.lineWidth = 2;
        g.strokeRect(f.x + 1, f.d * ROW + 1, f.w - 2.5, ROW - 3);
      }
      if (f.w > 24) {
        const name = this.name(f.node), fit = Math.floor((f.w - 6) / 6.2);
        g.fillStyle = "#111";
        g.fillText(name.length > fit ? name.slice(0, Math.max(fit - 1, 1)) + "\u2026" : name, f.x + 3, f.d * ROW + ROW / 2);
      }
    }
  },
  mark(ids) {
    this.marked = ids ? new Set(ids) : null;
    this.draw();
  },
  focus(id) {
    this.focused = id;
    this.draw();
  },
};
