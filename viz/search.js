// SPDX-License-Identifier: MIT
/* search.js — the search box: a substring (any case) or a /regex/, over
 * every function's full name; says how many match, how many of those the
 * graph shows and how many of those the sliders hide, and tells the views
 * which to highlight. */
PV.search = {
  init(m, visible, onMatch) {
    const box = document.getElementById("search"), out = document.getElementById("search-count");
    let timer = 0;
    const run = () => {
      const q = box.value;
      const test = this.matcher(q);
      delete out.dataset.count;
      delete out.dataset.hidden;
      if (!q) {
        out.textContent = "";
        return onMatch(null);
      }
      if (!test) {
        out.textContent = "not a regular expression";
        out.className = "bad";
        return onMatch(null);
      }
      const ids = [];
      m.funcs.forEach((f, i) => { if (test(f.name)) ids.push(i); });
      const boxed = ids.filter((i) => PV.keyOf(m, i)), hidden = boxed.filter((i) => !visible(i)).length;
      out.className = "";
      out.textContent = ids.length + (ids.length === 1 ? " function" : " functions") +
        (ids.length ? " (" + boxed.length + " in the graph" +
          (hidden ? ", " + hidden + " of them hidden by the sliders" : "") + ")" : "");
      out.dataset.hidden = hidden;
      out.dataset.count = ids.length;
      onMatch(ids);
    };
    // The sliders moved: what is hidden changed.
    this.refresh = () => { if (box.value) run(); };
    box.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(run, 120); });
    box.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { clearTimeout(timer); run(); }
      if (e.key === "Escape") { box.value = ""; run(); box.blur(); e.stopPropagation(); }
    });
  },
  /* A predicate on names, or null when /.../ does not compile. */
  matcher(q) {
    const re = /^\/(.*)\/([imsu]*)$/.exec(q);
    if (re) {
      try {
        const r = new RegExp(re[1], re[2]);
        return (s) => r.test(s);
      } catch (err) {
        return null;
      }
    }
    const low = q.toLowerCase();
    return (s) => s.toLowerCase().includes(low);
  },
};
