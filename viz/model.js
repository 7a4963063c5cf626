// SPDX-License-Identifier: MIT
/* model.js — the profile as the views use it: functions by id (their
 * index in the JSON's "functions", which the JSON's arcs and paths refer
 * to), each one's callers and callees, the graph box each is drawn in
 * (boxOf: -1 when the graph leaves it out; the dot writer merges the copies
 * of a header's function into one box), each box's and each graph arc's
 * total (what the threshold sliders judge by), the calling-context tree
 * (the JSON's "paths": the roots and each path's children, heaviest
 * first), and the hot path along it. When the
 * first event is sampled time, few (the command's PV_FEW_SAMPLES) is the
 * number of samples under which a self is marked uncertain. The arcs'
 * inlined_calls say which calls the compiler inlined into their caller
 * (their self counts there): inlinedInto lists, for each function, the
 * callers that inlined some of its calls, most first. */
PV.model = function (prof, boxOf, few) {
  const funcs = prof.functions;
  const m = {
    prof, funcs, boxOf,
    events: prof.events, units: prof.units, unit: prof.units[0],
    run: prof.run_total[0],
    // A view with the waits apart from the work (profviz html's default):
    // run_total is the work's, and a wait's shares are of the wall.
    apart: Array.isArray(prof.waited),
    waited: Array.isArray(prof.waited) ? prof.waited[0] : 0,
    sampled: !!prof.kinds && prof.kinds[0] === "sampled",
    few: few || 0,
    callers: funcs.map(() => []), // arcs into each function
    callees: funcs.map(() => []), // arcs out of it
    rootArcs: [],                 // calls from outside instrumented code
    inlinedInto: funcs.map(() => []), // arcs that inlined some of its calls
    anyInlined: false,
    idsOfKey: new Map(),          // "f12" -> the ids its box stands for
  };
  funcs.forEach((f, i) => {
    if (f.id !== i) throw new Error("functions[" + i + "] has id " + f.id);
    const key = PV.keyOf(m, i);
    if (key) {
      if (!m.idsOfKey.has(key)) m.idsOfKey.set(key, []);
      m.idsOfKey.get(key).push(i);
    }
  });
  for (const a of prof.arcs) {
    if (a.caller === null) m.rootArcs.push(a);
    else m.callees[a.caller].push(a);
    m.callers[a.callee].push(a);
    if (a.caller !== null && a.inlined_calls) {
      m.inlinedInto[a.callee].push(a);
      m.anyInlined = true;
    }
  }
  m.wall = m.run + m.waited;
  PV.boxTotals(m);
  PV.pathTree(m);
  const heavier = (a, b) => b.total[0] - a.total[0];
  m.rootArcs.sort(heavier);
  m.callers.forEach((l) => l.sort(heavier));
  m.callees.forEach((l) => l.sort(heavier));
  // the host of most of its inlined calls first; a tie to the hotter
  m.inlinedInto.forEach((l) => l.sort((a, b) => b.inlined_calls - a.inlined_calls || a.caller - b.caller));
  return m;
};

/* Where the calls of a function (or of a box of copies) the compiler
 * inlined ran, as profviz report says it: "inlined into f", "inlined into
 * f and 2 others", "20 calls inlined into f"; "" when none was. */
PV.inlinedText = function (m, ids) {
  const F = PV.fmt;
  const calls = ids.reduce((s, i) => s + m.funcs[i].calls, 0);
  const inlined = ids.reduce((s, i) => s + (m.funcs[i].inlined_calls || 0), 0);
  if (!inlined) return "";
  const hosts = ids.flatMap((i) => m.inlinedInto[i]).sort((a, b) => b.inlined_calls - a.inlined_calls);
  const callers = new Set(hosts.map((a) => a.caller));
  let h = inlined === calls ? "inlined" : F.count(inlined) + " call" + (inlined === 1 ? "" : "s") + " inlined";
  if (hosts.length) h += " into " + m.funcs[hosts[0].caller].name;
  if (callers.size > 1) h += " and " + (callers.size - 1) + " other" + (callers.size > 2 ? "s" : "");
  return h;
};

/* An arc's calls the compiler inlined, after its count: ", inlined" when
 * all were, " (N inlined)" when some; "" when none. */
PV.inlinedCalls = function (calls, inlined) {
  if (!inlined) return "";
  return inlined === calls ? ", inlined" : " (" + PV.fmt.count(inlined) + " inlined)";
};

/* The graph's node for a function: "f<box>", or null when the graph does
 * not show it. */
PV.keyOf = function (m, id) {
  return m.boxOf[id] >= 0 ? "f" + m.boxOf[id] : null;
};

/* Whether function id is a wait whose time is apart from the work. */
PV.isApart = function (m, id) {
  return m.apart && m.funcs[id].kind === "wait";
};

/* What function id's shares in event e are of: the wall (the work and the
 * waits) for a wait apart, the run for anything else. */
PV.baseOf = function (m, id, e) {
  return m.prof.run_total[e] + (PV.isApart(m, id) ? m.prof.waited[e] : 0);
};

/* The share (%, first event) by which the sliders judge a box or an arc,
 * as the dot writer does: of its base (PV.baseOf); with the waits apart,
 * the larger of that and its total with the waits below it, of the wall,
 * so that those who wait stay above their waits. An empty run: 100. */
PV.keptShare = function (m, id, total, waited) {
  const base = PV.baseOf(m, id, 0);
  if (!base) return 100;
  const of = 100 * total / base;
  return m.apart && waited ? Math.max(of, 100 * (total + waited) / m.wall) : of;
};

/* The graph's boxes and arcs as the dot writer merged them: a box's total
 * (first event) is its copies' sum, an arc "fA->fB" (or "root->fB") sums
 * the JSON's arcs between those boxes, both capped at their base as the
 * writer caps them, each with the share the sliders judge it by
 * (boxShare, an arc's share); an arc is nested when its every call was. */
PV.boxTotals = function (m) {
  const cap = (v, id) => { const base = PV.baseOf(m, id, 0); return base && v > base ? base : v; };
  const waitedOf = (x) => (x.waited ? x.waited[0] : 0);
  m.boxTotal = new Map();
  m.boxShare = new Map();
  m.arcOf = new Map();
  const waited = new Map(), idOf = new Map();
  m.funcs.forEach((f, i) => {
    const k = PV.keyOf(m, i);
    if (!k) return;
    m.boxTotal.set(k, (m.boxTotal.get(k) || 0) + f.total[0]);
    waited.set(k, (waited.get(k) || 0) + waitedOf(f));
    idOf.set(k, i);
  });
  for (const [k, v] of m.boxTotal) {
    m.boxTotal.set(k, cap(v, idOf.get(k)));
    m.boxShare.set(k, PV.keptShare(m, idOf.get(k), m.boxTotal.get(k), waited.get(k)));
  }
  for (const a of m.prof.arcs) {
    const from = a.caller === null ? "root" : PV.keyOf(m, a.caller), to = PV.keyOf(m, a.callee);
    if (!from || !to) continue;
    const k = from + "->" + to, e = m.arcOf.get(k) ||
      { total: 0, waited: 0, calls: 0, nested: 0, fromRoot: a.caller === null, callee: a.callee };
    e.total += a.total[0];
    e.waited += waitedOf(a);
    e.calls += a.calls;
    e.nested += a.nested_calls || 0;
    m.arcOf.set(k, e);
  }
  for (const e of m.arcOf.values()) {
    e.total = cap(e.total, e.callee);
    e.share = PV.keptShare(m, e.callee, e.total, e.waited);
    e.nested = !e.fromRoot && e.calls > 0 && e.nested === e.calls;
  }
};

/* The calling-context tree: m.paths (the JSON's, [] before revision 2),
 * m.pathRoots and m.pathKids[i] (indexes into it), heaviest first. */
PV.pathTree = function (m) {
  const paths = m.paths = m.prof.paths || [];
  m.pathRoots = [];
  m.pathKids = paths.map(() => []);
  paths.forEach((p, i) => (p.parent === null ? m.pathRoots : m.pathKids[p.parent]).push(i));
  const heavier = (a, b) => paths[b].total[0] - paths[a].total[0];
  m.pathRoots.sort(heavier);
  m.pathKids.forEach((k) => k.sort(heavier));
};

/* The hot path: from the root, at each step the heaviest call path below
 * the last (the calling-context tree) whose function is not on it yet,
 * while it costs anything. Each step: caller (null: the program) and
 * callee, and that call path's own total and calls, which are what the
 * step costs along this path; arc: the JSON's arc, whose total is every
 * path's through it. A profile without paths (before revision 2) has only
 * the arcs: the heaviest arc at each step, with its totals. */
PV.hotPath = function (m) {
  if (!m.paths.length) return PV.hotArcs(m);
  const steps = [], seen = new Set();
  let caller = null, next = m.pathRoots;
  for (;;) {
    // with the waits apart, the hot path is the work's
    const i = next.find((k) => !seen.has(m.paths[k].function) && !PV.isApart(m, m.paths[k].function));
    const p = i === undefined ? null : m.paths[i];
    if (!p || !(p.total[0] > 0)) break;
    const arc = (caller === null ? m.rootArcs : m.callees[caller]).find((a) => a.callee === p.function);
    steps.push({ caller, callee: p.function, total: p.total, calls: p.calls,
                 inlined_calls: p.inlined_calls || 0, path: i, arc });
    seen.add(p.function);
    caller = p.function;
    next = m.pathKids[i];
  }
  return steps;
};

/* Without call paths: from the root, at each step the heaviest arc (by
 * total) to a function not yet on the path, while it costs anything. */
PV.hotArcs = function (m) {
  const path = [], seen = new Set();
  let next = m.rootArcs;
  for (;;) {
    const a = next.find((x) => !seen.has(x.callee) && !PV.isApart(m, x.callee));
    if (!a || !(a.total[0] > 0)) break;
    path.push(Object.assign({ arc: a }, a));
    seen.add(a.callee);
    next = m.callees[a.callee];
  }
  return path;
};

/* The samples behind the self of a function (or of a box of copies), what
 * of it was timed at the hooks instead (timed_ns), and whether they are
 * few: a self no better than m.few samples make it, not a wait's (its self
 * is blocked time, measured). error: of the self, its sampled part's
 * 1/sqrt(n). Null when the time is not sampled. As lib/model/trust.c. */
PV.samplesOf = function (m, ids) {
  if (!m.sampled) return null;
  const n = ids.reduce((s, i) => s + (m.funcs[i].samples || 0), 0);
  const self = ids.reduce((s, i) => s + m.funcs[i].self[0], 0);
  const timed = ids.reduce((s, i) => s + (m.funcs[i].timed_ns || 0), 0);
  const wait = ids.every((i) => m.funcs[i].kind === "wait");
  const sampled = timed < self ? self - timed : 0;
  const part = self > 0 ? sampled / self : 0;
  return {
    n, wait, timed,
    few: self > 0 && !wait && n * self * self < m.few * sampled * sampled,
    error: n ? part / Math.sqrt(n) : part,
  };
};

/* What hovering a function (or a box of several copies) says. */
PV.describe = function (m, ids) {
  const F = PV.fmt, f = m.funcs[ids[0]];
  const sum = (k, e) => ids.reduce((s, i) => s + m.funcs[i][k][e], 0);
  const calls = ids.reduce((s, i) => s + m.funcs[i].calls, 0);
  let h = "<b>" + F.esc(f.name) + "</b>";
  h += "<div class=dim>" + F.esc(f.file ? f.file + ":" + f.line : "no source line") + "</div>";
  h += "<div class=dim>" + F.esc(f.module) + "</div>";
  if (ids.length > 1)
    h += "<div>" + ids.length + " copies (defined in a header), summed</div>";
  const inlined = PV.inlinedText(m, ids);
  if (inlined)
    h += "<div class=inl title='the compiler inlined its calls; their self counts in the " +
      "function they ran in'>" + F.esc(inlined) + "</div>";
  h += "<table>";
  const wait = PV.isApart(m, ids[0]), of = wait ? " of wall" : "";
  if (wait)
    h += "<div class=dim>blocked in libc, apart from the work: its shares are of the wall " +
      "(the work and the waits)</div>";
  m.events.forEach((ev, e) => {
    const unit = m.units[e], self = sum("self", e), total = sum("total", e);
    const run = PV.baseOf(m, ids[0], e);
    h += "<tr><th colspan=2>" + F.esc(ev) + " [" + F.esc(unit) + "]</th></tr>";
    h += "<tr><td>self</td><td>" + F.human(self, unit) + " (" + F.pct(self, run) + of + ")</td></tr>";
    h += "<tr><td>total</td><td>" + F.human(total, unit) + " (" + F.pct(total, run) + of + ")</td></tr>";
    const waited = ids.reduce((s, i) => s + (m.funcs[i].waited ? m.funcs[i].waited[e] : 0), 0);
    if (waited)
      h += "<tr><td>waits below</td><td>" + F.human(waited, unit) + " (" +
        F.pct(waited, m.prof.run_total[e] + m.prof.waited[e]) + " of wall)</td></tr>";
    if (e === 0)
      h += "<tr><td>calls</td><td>" + F.count(calls) + "</td></tr>";
    const s = e === 0 ? PV.samplesOf(m, ids) : null;
    if (s && s.wait)
      h += "<tr><td>samples</td><td>none: its self is blocked time, measured</td></tr>";
    else if (s && self) {
      if (s.timed)
        h += "<tr><td>timed</td><td>" + F.human(s.timed, unit) + " of its self, at its hooks, " +
          "not sampled</td></tr>";
      h += "<tr><td>samples</td><td" + (s.few ? " class=few title='fewer than " + m.few +
        " samples: its self is uncertain'" : "") + ">" + F.count(s.n) + (s.few ? " ?" : "") +
        " (self \u00b1" + (100 * s.error).toFixed(0) + "%)</td></tr>";
    }
    h += "<tr><td>per call</td><td>" + (calls ? F.human(total / calls, unit) : "-") + "</td></tr>";
  });
  const cyc = m.events.indexOf("cycles"), ins = m.events.indexOf("instructions");
  if (cyc >= 0 && ins >= 0 && sum("total", cyc))
    h += "<tr><td>IPC</td><td>" + (sum("total", ins) / sum("total", cyc)).toFixed(2) + "</td></tr>";
  return h + "</table>";
};
