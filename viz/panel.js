// SPDX-License-Identifier: MIT
/* panel.js — the side panel: the trail of focused functions (breadcrumbs),
 * and the focused function's numbers, its hot lines when the run sampled
 * its PCs, and its callers and callees, each arc with its share of the
 * function's total and its calls (those the compiler inlined said so);
 * or the hot path, step by step. Names in it are links that focus. */
PV.panel = {
  init(m, onPick, onCrumb) {
    this.m = m;
    this.details = document.getElementById("details");
    this.crumbs = document.getElementById("crumbs");
    this.hint = this.details.innerHTML;
    this.details.addEventListener("click", (e) => {
      const a = e.target.closest("[data-id]");
      if (a) e.preventDefault(), onPick(+a.dataset.id);
    });
    this.crumbs.addEventListener("click", (e) => {
      const a = e.target.closest("[data-crumb]");
      if (a) e.preventDefault(), onCrumb(+a.dataset.crumb);
    });
  },
  link(id) {
    if (id === null) return "<i>(program)</i>";
    const f = this.m.funcs[id];
    return "<a href='#' data-id=" + id + " title='" + PV.fmt.esc(f.name) + "'>" + PV.fmt.esc(f.name) + "</a>";
  },
  arcs(title, arcs, whole, end) {
    const F = PV.fmt, m = this.m;
    if (!arcs.length) return "<h3>" + title + "</h3><p class=dim>none</p>";
    let h = "<h3>" + title + " (" + arcs.length + ")</h3><table class=arcs><tr><th></th>" +
      "<th class=num title='share of this function\'s total'>share</th><th class=num>total</th><th class=num>calls</th></tr>";
    // a wait apart below a function's work: its share of the wall
    const share = (a) => end === "callee" && PV.isApart(m, a.callee) && !PV.isApart(m, a.caller)
      ? F.pct(a.total[0], m.wall) + " of wall" : F.pct(a.total[0], whole);
    for (const a of arcs)
      h += "<tr><td>" + this.link(a[end]) + "</td><td class=num>" + share(a) +
        "</td><td class=num>" + F.human(a.total[0], m.unit) + "</td><td class=num>" + F.count(a.calls) +
        this.inlined(a) + "</td></tr>";
    return h + "</table>";
  },
  /* After an arc's calls: how many the compiler inlined, if any. */
  inlined(a) {
    const text = PV.inlinedCalls(a.calls, a.inlined_calls);
    return text ? "<span class=inl title='inlined into the caller: their self counts in " +
      "the caller&#39;s'>" + text + "</span>" : "";
  },
  /* Where inside f its time went: each line's share of the samples in its
   * code, hottest first (the JSON's "lines"); nothing when it has none. */
  lines(f) {
    const F = PV.fmt, lines = f.lines || [];
    if (!lines.length) return "";
    const all = lines.reduce((s, l) => s + l.samples, 0);
    let h = "<h3>Hot lines (" + F.count(all) + " samples)</h3><table class=lines><tr>" +
      "<th class=num title='share of the samples in its code'>share</th><th>line</th></tr>";
    for (const l of lines)
      h += "<tr><td class=num>" + F.pct(l.samples, all) + "</td><td>" + (l.file === null
        ? "<i>elsewhere in it</i>" : "<span title='" + F.esc(l.file) + "'>" +
          F.esc(F.base(l.file) + ":" + l.line) + "</span>") + "</td></tr>";
    return h + "</table>";
  },
  /* Function id; under: {share, min} when the node slider hides its box
   * (shown while it has the focus). */
  show(id, under) {
    const m = this.m, f = m.funcs[id];
    let h = "";
    if (!PV.keyOf(m, id))
      h += "<p class=warn id=not-in-graph>Not in the graph: under its thresholds or beyond its " +
        "cap of boxes. Its callers and callees are here.</p>";
    else if (under)
      h += "<p class=warn id=under-slider>Under the node slider (its box " + under.share.toFixed(2) +
        "% of the run, the slider " + under.min + "%): shown while it has the focus.</p>";
    h += PV.describe(m, [id]);
    h += this.lines(f);
    h += this.arcs("Callers", m.callers[id], f.total[0], "caller");
    h += this.arcs("Callees", m.callees[id], f.total[0], "callee");
    this.details.innerHTML = h;
  },
  /* The hot path's steps (PV.hotPath): each with its share of the run
   * along the path, and its calls there; on hover, what the arc costs over
   * the whole run. visible(id): whether the graph shows id's box. */
  showHot(steps, visible) {
    const F = PV.fmt, m = this.m, along = m.paths.length > 0;
    let h = "<h3>Hot path</h3><p class=dim>" + (along
      ? "From the root, the heaviest call path at each step: each step's share of the run " +
        "along this path, and its calls there."
      : "From the root, the heaviest arc at each step (no call paths in this profile): " +
        "each arc's share of the whole run.") + "</p><ol class=hot>";
    for (const s of steps) {
      const whole = along && s.arc ? " title='all calls " + F.esc(s.caller === null ? "from the program"
        : "from " + m.funcs[s.caller].name) + ": " + F.pct(s.arc.total[0], m.run) + " of the run, " +
        F.count(s.arc.calls) + "\u00d7'" : "";
      h += "<li>" + this.link(s.callee) + " <span class=dim" + whole + ">" + F.pct(s.total[0], m.run) +
        ", " + F.count(s.calls) + "\u00d7" + this.inlined(s) + (PV.keyOf(m, s.callee) && !visible(s.callee)
        ? " \u00b7 hidden by the sliders" : "") + "</span></li>";
    }
    this.details.innerHTML = h + "</ol>";
  },
  clear() {
    this.details.innerHTML = this.hint;
  },
  trail(ids) {
    const F = PV.fmt;
    let h = "<a href='#' data-crumb=0>all</a>";
    ids.forEach((id, i) => {
      h += " \u203a " + (i === ids.length - 1 ? "<b>" + F.esc(this.m.funcs[id].name) + "</b>"
        : "<a href='#' data-crumb=" + (i + 1) + ">" + F.esc(this.m.funcs[id].name) + "</a>");
    });
    this.crumbs.innerHTML = h;
  },
};
