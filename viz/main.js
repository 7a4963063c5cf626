// SPDX-License-Identifier: MIT
/* main.js — reads the embedded profile, starts the views, and keeps the
 * one piece of state they share: the trail of focused functions (Escape or
 * a breadcrumb goes back), and whether the hot path is shown. The threshold
 * sliders hide boxes and arcs, never the focused box nor its arcs to boxes
 * drawn: focusing a function they hide shows it while it has the focus,
 * and the panel says why. */
(function () {
  const t0 = performance.now();
  const prof = JSON.parse(document.getElementById("profile").textContent);
  const boxOf = JSON.parse(document.getElementById("boxes").textContent);
  // The graph shows the boxes over its thresholds: graphviz titles them.
  const drawn = new Set([...document.querySelectorAll("#graph g.node > title")].map((t) => t.textContent));
  const made = PV.graph.madeWith() || {};
  const m = PV.model(prof, boxOf.map((b) => (drawn.has("f" + b) ? b : -1)), made.few);
  const F = PV.fmt;
  const trail = [];
  let hotOn = false;

  const focused = () => (trail.length ? trail[trail.length - 1] : null);
  // The sliders' thresholds over the graph, the focused box kept.
  function prune() {
    const id = focused();
    PV.sliders.count(PV.graph.prune(PV.sliders.value("node"), PV.sliders.value("arc"),
      id === null ? null : PV.keyOf(m, id)));
  }
  // The node slider's threshold when it would hide function id's box.
  function under(id) {
    const key = PV.keyOf(m, id), min = PV.sliders.value("node");
    if (!key || min === null) return null;
    const share = PV.graph.share(key);
    return share < min ? { share, min } : null;
  }
  function details() {
    const id = focused();
    if (id !== null) PV.panel.show(id, under(id));
    else if (hotOn) PV.panel.showHot(PV.hotPath(m), (i) => PV.graph.visible(i));
    else PV.panel.clear();
  }
  function apply() {
    const id = focused();
    if (id !== null) hotOn = false;
    prune();
    PV.graph.hot(hotOn ? PV.hotPath(m) : null);
    document.getElementById("hot").classList.toggle("on", hotOn);
    PV.graph.focus(id);
    PV.table.select(id);
    PV.icicle.focus(id);
    PV.panel.trail(trail);
    details();
  }
  function pick(id) {
    if (trail[trail.length - 1] !== id) trail.push(id);
    if (PV.keyOf(m, id)) show("graph");
    apply();
  }
  function show(view) {
    for (const b of document.querySelectorAll("#tabs button"))
      b.classList.toggle("on", b.dataset.view === view);
    for (const v of document.querySelectorAll(".view"))
      v.classList.toggle("on", v.id === view);
    if (view === "icicle") PV.icicle.draw();
    if (view === "graph") PV.graph.keepAspect();
  }

  document.getElementById("title").textContent = "profviz: " + F.base(prof.program);
  document.title = "profviz: " + F.base(prof.program);
  document.getElementById("summary").textContent = prof.events[0] + " " + F.human(m.run, m.unit) +
    " \u00b7 " + prof.functions.length + " functions \u00b7 ";
  // The threads, by name: the count, each one's name on hover.
  const threads = document.createElement("span");
  threads.id = "threads";
  threads.textContent = prof.threads + " thread" + (prof.threads === 1 ? "" : "s");
  threads.title = (prof.per_thread || []).map((t) => t.tid + (t.main ? " main" : "") +
    (t.name ? (t.main ? " (" + t.name + ")" : " " + t.name) : "")).join("\n");
  document.getElementById("summary").appendChild(threads);
  // With the waits apart, the shares are of the work: say how long they
  // waited, and of what the waits' shares are.
  if (m.apart) {
    const waits = document.createElement("span");
    waits.id = "waits";
    waits.textContent = " \u00b7 waits apart: " + F.pct(m.waited, m.wall) + " of wall";
    waits.title = "Shares are of the work (" + F.human(m.run, m.unit) + "). Time blocked in " +
      "libc's waits (" + F.human(m.waited, m.unit) + ") is apart: grey in the graph, its shares " +
      "of the wall (the work and the waits). profviz html --waits in puts it inside the shares.";
    document.getElementById("summary").appendChild(waits);
  }
  // Sampled time: how many samples, and what a share is good to on hover.
  if (m.sampled && typeof made.sampling === "string") {
    const sampling = document.createElement("span");
    sampling.id = "sampling";
    sampling.textContent = " \u00b7 " + F.count(prof.functions.reduce((s, f) => s + (f.samples || 0), 0)) +
      " samples";
    sampling.title = made.sampling;
    document.getElementById("summary").appendChild(sampling);
  }
  // When the hooks took much of the raw run, or a sampled run was short, the
  // command says so beside the thresholds (lib/model/trust.h), and the bar
  // does too.
  const doubt = PV.graph.doubt();
  if (doubt) {
    const warn = document.createElement("span");
    warn.id = "doubt";
    warn.textContent = " \u00b7 times uncertain";
    warn.title = doubt;
    document.getElementById("summary").appendChild(warn);
  }

  const stages = { model: performance.now() - t0 };
  const timed = (name, start) => { const t = performance.now(); start(); stages[name] = performance.now() - t; };
  timed("graph", () => PV.graph.init(m, pick));
  timed("table", () => PV.table.init(m, pick));
  timed("icicle", () => PV.icicle.init(m));
  PV.panel.init(m, pick, (n) => { trail.length = n; apply(); });
  PV.sliders.init(PV.graph.thresholds(), () => {
    prune();
    details();
    PV.search.refresh();
  });
  PV.search.init(m, (i) => PV.graph.visible(i), (ids) => {
    const keys = new Set();
    for (const i of ids || []) { const k = PV.keyOf(m, i); if (k) keys.add(k); }
    PV.graph.mark("match", keys, []);
    PV.table.mark(ids);
    PV.icicle.mark(ids);
  });

  document.getElementById("tabs").addEventListener("click", (e) => {
    if (e.target.dataset.view) show(e.target.dataset.view);
  });
  document.getElementById("hot").addEventListener("click", () => {
    hotOn = !hotOn;
    trail.length = 0;
    if (hotOn) show("graph");
    apply();
  });
  document.getElementById("fit").addEventListener("click", () => PV.graph.fit());
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT") return;
    if (e.key === "Escape") {
      if (trail.length) trail.pop();
      else hotOn = false;
      apply();
    } else if (e.key === "h" || e.key === "H") {
      document.getElementById("hot").click();
    } else if (e.key === "0") {
      PV.graph.fit();
    } else if (e.key === "/") {
      e.preventDefault();
      document.getElementById("search").focus();
    }
  });
  timed("first view", apply);
  // What the tests (and the curious) read: how long the page took to be
  // usable, from the start of navigation, and where the scripts' time went.
  PV.ready = { readyMs: performance.now(), scriptMs: performance.now() - t0, stages };
  document.body.dataset.ready = "1";
})();
