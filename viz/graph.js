// SPDX-License-Identifier: MIT
/* graph.js — the call graph as graphviz laid it out, with its colours and
 * labels: pan (drag) and zoom (wheel) on the SVG's viewBox, a tooltip per
 * box, focus (a function, its callers and callees; the rest fades), the hot
 * path, search matches, and the threshold sliders that hide boxes and arcs
 * of the layout (never re-laid out). Nodes are "f<box>" (and "root" for the
 * program), edges "fA->fB", from graphviz's <title>s. */
PV.graph = {
  init(m, onPick) {
    const host = document.getElementById("graph");
    const svg = host.querySelector("svg");
    this.m = m;
    this.svg = svg;
    this.nodes = new Map();
    this.edges = new Map();
    // Our tooltip replaces graphviz's titles (the browser would show both).
    for (const g of svg.querySelectorAll("g.node, g.edge")) {
      const title = g.querySelector(":scope > title");
      const key = title ? title.textContent : "";
      g.dataset.key = key;
      (g.classList.contains("node") ? this.nodes : this.edges).set(key, g);
    }
    for (const t of svg.querySelectorAll("title")) t.remove();
    for (const a of svg.querySelectorAll("a")) a.removeAttribute("xlink:title");
    for (const a of svg.querySelectorAll("a")) a.removeAttributeNS("http://www.w3.org/1999/xlink", "title");
    // Links in the graph go nowhere: a profile's text must never become one.
    for (const a of svg.querySelectorAll("a")) {
      a.removeAttribute("href");
      a.removeAttributeNS("http://www.w3.org/1999/xlink", "href");
    }
    this.hidden = new Set();
    const vb = svg.viewBox.baseVal;
    this.full = { x: vb.x, y: vb.y, w: vb.width, h: vb.height };
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    this.panZoom(host);
    this.hover(host);
    host.addEventListener("click", (e) => {
      if (this.dragged) return;
      const g = e.target.closest("g.node");
      const ids = g && this.m.idsOfKey.get(g.dataset.key);
      if (ids) onPick(ids[0]);
    });
    new ResizeObserver(() => this.keepAspect()).observe(host);
    this.fit();
  },

  /* The viewBox as {x, y, w, h}, with the element's own aspect ratio so
   * that screen and graph coordinates map linearly. */
  setBox(b) {
    this.box = b;
    this.svg.setAttribute("viewBox", [b.x, b.y, b.w, b.h].join(" "));
  },
  keepAspect() {
    const r = this.svg.getBoundingClientRect();
    if (!r.width || !r.height || !this.box) return;
    const b = this.box, h = b.w * r.height / r.width;
    this.setBox({ x: b.x, y: b.y + (b.h - h) / 2, w: b.w, h });
  },
  fit() {
    const r = this.svg.getBoundingClientRect(), f = this.full;
    const aspect = r.width && r.height ? r.height / r.width : f.h / f.w;
    let w = f.w, h = f.w * aspect;
    if (h < f.h) { h = f.h; w = f.h / aspect; }
    if (r.width && w < r.width / 1.3) { // a small graph: at most 1.3:1, from the top
      w = r.width / 1.3;
      h = w * aspect;
      return this.setBox({ x: f.x - (w - f.w) / 2, y: f.y, w, h });
    }
    this.setBox({ x: f.x - (w - f.w) / 2, y: f.y - (h - f.h) / 2, w, h });
  },
  toGraph(clientX, clientY) {
    const r = this.svg.getBoundingClientRect(), b = this.box;
    return { x: b.x + (clientX - r.left) / r.width * b.w, y: b.y + (clientY - r.top) / r.height * b.h };
  },
  zoomAt(clientX, clientY, factor) {
    const p = this.toGraph(clientX, clientY), b = this.box;
    const w = Math.min(Math.max(b.w * factor, this.full.w / 200), this.full.w * 20);
    const k = w / b.w;
    this.setBox({ x: p.x - (p.x - b.x) * k, y: p.y - (p.y - b.y) * k, w, h: b.h * k });
  },
  panZoom(host) {
    host.addEventListener("wheel", (e) => {
      e.preventDefault();
      const dy = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
      this.zoomAt(e.clientX, e.clientY, Math.exp(dy * 0.0015));
    }, { passive: false });
    let start = null;
    host.addEventListener("pointerdown", (e) => {
      if (e.button !== 0) return;
      start = { x: e.clientX, y: e.clientY, box: this.box };
      this.dragged = false;
    });
    host.addEventListener("pointermove", (e) => {
      if (!start) return;
      const dx = e.clientX - start.x, dy = e.clientY - start.y;
      if (!this.dragged && Math.hypot(dx, dy) < 4) return;
      if (!this.dragged) host.setPointerCapture(e.pointerId);
      this.dragged = true;
      host.classList.add("dragging");
      const r = this.svg.getBoundingClientRect(), b = start.box;
      this.setBox({ x: b.x - dx / r.width * b.w, y: b.y - dy / r.height * b.h, w: b.w, h: b.h });
    });
    const end = () => {
      start = null;
      host.classList.remove("dragging");
      // the click that ends a drag is not a pick
      setTimeout(() => { this.dragged = false; }, 0);
    };
    host.addEventListener("pointerup", end);
    host.addEventListener("pointercancel", end);
  },
  hover(host) {
    host.addEventListener("mousemove", (e) => {
      const g = e.target.closest && e.target.closest("g.node, g.edge");
      if (!g || this.dragged) return PV.tip.hide();
      PV.tip.show(this.describe(g.dataset.key), e.clientX, e.clientY);
    });
    host.addEventListener("mouseleave", () => PV.tip.hide());
  },
  describe(key) {
    const m = this.m, F = PV.fmt;
    if (key === "root")
      return "<b>" + F.esc(F.base(m.prof.program)) + "</b><div class=dim>calls from outside " +
        "instrumented code</div>total " + F.human(m.run, m.unit);
    if (this.nodes.has(key)) return PV.describe(m, m.idsOfKey.get(key) || []);
    const [from, to] = key.split("->");
    const callees = new Set(m.idsOfKey.get(to) || []);
    const arcs = from === "root" ? m.rootArcs.filter((a) => callees.has(a.callee))
      : (m.idsOfKey.get(from) || []).flatMap((id) => m.callees[id]).filter((a) => callees.has(a.callee));
    const total = arcs.reduce((s, a) => s + a.total[0], 0);
    const calls = arcs.reduce((s, a) => s + a.calls, 0);
    const inlined = arcs.reduce((s, a) => s + (a.inlined_calls || 0), 0);
    const name = (k) => k === "root" ? "(program)" : F.esc(m.funcs[m.idsOfKey.get(k)[0]].name);
    const to0 = (m.idsOfKey.get(to) || [])[0], wait = to0 !== undefined && PV.isApart(m, to0);
    return "<b>" + name(from) + "</b> &rarr; <b>" + name(to) + "</b><table>" +
      "<tr><td>total</td><td>" + F.human(total, m.unit) + " (" + F.pct(total, wait ? m.wall : m.run) +
      (wait ? " of wall" : "") + ")</td></tr>" +
      "<tr><td>calls</td><td>" + F.count(calls) + PV.inlinedCalls(calls, inlined) + "</td></tr>" +
      "<tr><td>per call</td><td>" + (calls ? F.human(total / calls, m.unit) : "-") + "</td></tr></table>";
  },

  /* Set class cls on exactly the nodes and edges named. */
  mark(cls, nodeKeys, edgeKeys) {
    for (const el of this.svg.querySelectorAll("." + cls)) el.classList.remove(cls);
    for (const k of nodeKeys || []) this.nodes.get(k)?.classList.add(cls);
    for (const k of edgeKeys || []) this.edges.get(k)?.classList.add(cls);
  },

  /* Focus on function id (null: none). Its box keeps its callers' and
   * callees' boxes and the arcs between; the rest fades. */
  focus(id) {
    const m = this.m, key = id === null ? null : PV.keyOf(m, id);
    this.svg.classList.toggle("focusing", !!key);
    if (!key) return this.mark("keep", [], []), this.mark("focus", [], []), false;
    const ids = m.idsOfKey.get(key), nodes = new Set([key]), edges = new Set();
    for (const i of ids) {
      for (const a of m.callers[i]) {
        const from = a.caller === null ? "root" : PV.keyOf(m, a.caller);
        if (from) nodes.add(from), edges.add(from + "->" + key);
      }
      for (const a of m.callees[i]) {
        const to = PV.keyOf(m, a.callee);
        if (to) nodes.add(to), edges.add(key + "->" + to);
      }
    }
    this.mark("keep", nodes, edges);
    this.mark("focus", [key], []);
    this.show(key);
    return true;
  },
  /* Fit the view to the boxes named (zoomed in no further than 1:1). */
  fitTo(keys) {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const k of keys) {
      const r = this.nodes.get(k)?.getBoundingClientRect();
      if (!r || !r.width) continue; // hidden by the sliders
      const a = this.toGraph(r.left, r.top), b = this.toGraph(r.right, r.bottom);
      x0 = Math.min(x0, a.x); y0 = Math.min(y0, a.y); x1 = Math.max(x1, b.x); y1 = Math.max(y1, b.y);
    }
    const s = this.svg.getBoundingClientRect();
    if (!(x1 > x0) || !s.width) return;
    const pad = 40, aspect = s.height / s.width;
    let w = Math.max(x1 - x0 + 2 * pad, s.width), h = w * aspect;
    if (h < y1 - y0 + 2 * pad) { h = y1 - y0 + 2 * pad; w = h / aspect; }
    this.setBox({ x: (x0 + x1 - w) / 2, y: (y0 + y1 - h) / 2, w, h });
  },
  inView(key) {
    const r = this.nodes.get(key)?.getBoundingClientRect(), s = this.svg.getBoundingClientRect();
    return !r || !r.width || (r.left >= s.left && r.right <= s.right && r.top >= s.top && r.bottom <= s.bottom);
  },
  /* Pan so that node key is in view (its zoom kept). */
  show(key) {
    const g = this.nodes.get(key), r = g && g.getBoundingClientRect();
    if (!r || !r.width || this.inView(key)) return;
    const c = this.toGraph(r.left + r.width / 2, r.top + r.height / 2), b = this.box;
    this.setBox({ x: c.x - b.w / 2, y: c.y - b.h / 2, w: b.w, h: b.h });
  },

  /* The hot path's steps (null: off), each a caller and a callee: their
   * edges and boxes marked, the rest dimmed. */
  hot(steps) {
    const m = this.m, nodes = [], edges = [];
    for (const a of steps || []) {
      const from = a.caller === null ? "root" : PV.keyOf(m, a.caller), to = PV.keyOf(m, a.callee);
      if (!from || !to) break; // the graph hides the rest of it
      nodes.push(from, to);
      edges.push(from + "->" + to);
    }
    this.svg.classList.toggle("hotpath", !!steps);
    this.mark("hot", nodes, edges);
    if (steps && nodes.some((k) => !this.inView(k))) this.fitTo(nodes);
  },

  /* The share (%) the sliders judge box key by (PV.keptShare). */
  share(key) {
    return this.m.boxShare.get(key);
  },
  /* Hide the boxes whose total is under nodeMin % of the run, the arcs
   * under arcMin % (a nested arc has no total: it goes only with an end),
   * and every arc with a hidden end; null hides nothing by that rule. The
   * box keep (the focused one) stays, and so do its arcs to boxes drawn.
   * Returns how many of each it hid. */
  prune(nodeMin, arcMin, keep) {
    const m = this.m, hidden = new Set();
    for (const [key, g] of this.nodes) {
      const share = this.share(key);
      const off = nodeMin !== null && key !== keep && share !== undefined && share < nodeMin;
      g.classList.toggle("pruned", off);
      if (off) hidden.add(key);
    }
    let arcs = 0;
    for (const [key, g] of this.edges) {
      const [from, to] = key.split("->"), a = m.arcOf.get(key);
      const off = hidden.has(from) || hidden.has(to) ||
        (arcMin !== null && !!a && !a.nested && from !== keep && to !== keep && a.share < arcMin);
      g.classList.toggle("pruned", off);
      arcs += off;
    }
    this.hidden = hidden;
    return { funcs: hidden.size, arcs };
  },
  /* Whether function id has a box that the sliders leave in view. */
  visible(id) {
    const key = PV.keyOf(this.m, id);
    return !!key && !this.hidden.has(key);
  },
  /* The thresholds the page was made with (the command writes them beside
   * the profile): what the sliders start from. Null if they are missing. */
  thresholds() {
    const t = this.madeWith();
    return t && isFinite(t.node) && isFinite(t.arc) ? { node: t.node, arc: t.arc } : null;
  },
  /* The sentence saying the times are in doubt, or null. */
  doubt() {
    const t = this.madeWith();
    return t && typeof t.doubt === "string" ? t.doubt : null;
  },
  madeWith() {
    const el = document.getElementById("thresholds");
    try {
      return JSON.parse(el ? el.textContent : "null");
    } catch (e) {
      return null; /* a page without them: the sliders start at zero */
    }
  },
};

/* The two sliders in the bar, node % and arc %: each from the page's own
 * threshold (what was laid out; less cannot be shown without making the page
 * again) up to 50 %, in 1-1.5-2-3-5-7 steps. At the bottom they hide
 * nothing. onChange() after each move. */
PV.sliders = {
  MAX: 50,
  init(pageMin, onChange) {
    this.inputs = {};
    for (const [name, min] of [["node", pageMin ? pageMin.node : 0], ["arc", pageMin ? pageMin.arc : 0]]) {
      const input = document.getElementById(name + "-min"), out = document.getElementById(name + "-min-value");
      const steps = this.ladder(min);
      input.min = 0;
      input.max = steps.length - 1;
      input.step = 1;
      input.value = 0;
      input.disabled = steps.length < 2;
      const what = name === "node" ? "functions whose total" : "arcs whose total";
      input.title = "hides " + what + " is under this share of the run. The least is the page's " +
        "own threshold (" + (pageMin ? min + "%" : "unknown") + "): what fell under it was never laid " +
        "out; to see it, make the page again with a lower `profviz html " + (name === "node" ? "-n" : "-e") +
        "` (and --nodes for the cap of boxes).";
      const show = () => {
        const v = steps[+input.value];
        out.textContent = (pageMin || +input.value ? v + "%" : "all");
        out.dataset.value = v;
      };
      input.addEventListener("input", () => { show(); onChange(); });
      show();
      this.inputs[name] = { input, steps };
    }
    this.counter = document.getElementById("pruned");
  },
  /* The slider's stops: the page's threshold, then the round values above. */
  ladder(min) {
    const steps = [min];
    for (const decade of [0.01, 0.1, 1, 10])
      for (const k of [1, 1.5, 2, 3, 5, 7]) {
        const v = +(decade * k).toPrecision(2);
        if (v > min && v <= this.MAX) steps.push(v);
      }
    return steps;
  },
  /* The threshold a slider sets, in % of the run; null at the bottom. */
  value(name) {
    const s = this.inputs[name];
    return +s.input.value ? s.steps[+s.input.value] : null;
  },
  count(hidden) {
    const n = (k, one) => k + " " + one + (k === 1 ? "" : "s");
    this.counter.textContent = "hidden by the sliders: " + n(hidden.funcs, "function") + ", " + n(hidden.arcs, "arc");
    this.counter.dataset.funcs = hidden.funcs;
    this.counter.dataset.arcs = hidden.arcs;
  },
};
