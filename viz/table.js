// SPDX-License-Identifier: MIT
/* table.js — every function of the profile (the graph shows the hottest),
 * sortable by each column; a click on a row picks the function. Sampled
 * time adds the samples behind each self, "?" where they are few; a
 * profile with calls the compiler inlined, where they ran. */
PV.table = {
  columns: [
    { name: "Function", key: (f) => f.name, text: true },
    { name: "Self", key: (f) => f.self[0], amount: true },
    { name: "Self %", key: (f) => f.self[0], share: true },
    { name: "Total", key: (f) => f.total[0], amount: true },
    { name: "Total %", key: (f) => f.total[0], share: true },
    { name: "Calls", key: (f) => f.calls },
    { name: "Per call", key: (f) => f.calls ? f.total[0] / f.calls : 0, amount: true },
    { name: "Samples", key: (f) => f.samples || 0, samples: true },
    { name: "Inlined", key: (f) => f.inlined_calls || 0, inlined: true },
    { name: "Where", key: (f) => PV.fmt.where(f), text: true },
  ],
  init(m, onPick) {
    this.m = m;
    this.columns = this.columns.filter((c) => (m.sampled || !c.samples) && (m.anyInlined || !c.inlined));
    this.host = document.getElementById("table");
    this.sortBy = 3;
    this.descending = true;
    this.matches = null;
    this.host.addEventListener("click", (e) => {
      const th = e.target.closest("th"), tr = e.target.closest("tbody tr");
      if (th) {
        const c = +th.dataset.col;
        this.descending = c === this.sortBy ? !this.descending : !this.columns[c].text;
        this.sortBy = c;
        this.render();
      } else if (tr) {
        onPick(+tr.dataset.id);
      }
    });
    this.render();
  },
  order() {
    const key = this.columns[this.sortBy].key, fs = this.m.funcs, sign = this.descending ? -1 : 1;
    const keys = fs.map(key);
    const ids = fs.map((f, i) => i);
    // ties keep the JSON's order (hottest first)
    ids.sort((a, b) => (keys[a] < keys[b] ? -sign : keys[a] > keys[b] ? sign : a - b));
    return ids;
  },
  render() {
    const F = PV.fmt, m = this.m, unit = m.unit;
    let h = "<table><thead><tr>";
    this.columns.forEach((c, i) => {
      const arrow = i === this.sortBy ? (this.descending ? " \u25be" : " \u25b4") : "";
      h += "<th data-col=" + i + (c.text || c.inlined ? "" : " class=num") + ">" + c.name + arrow + "</th>";
    });
    h += "</tr></thead><tbody>";
    for (const id of this.order()) {
      const f = m.funcs[id];
      const cls = (PV.keyOf(m, id) ? "" : "hidden ") + (this.matches && this.matches.has(id) ? "match" : "");
      h += "<tr data-id=" + id + (cls.trim() ? " class='" + cls.trim() + "'" : "") + ">";
      for (const c of this.columns) {
        const v = c.key(f);
        const text = c.text ? F.esc(v) : c.share ? F.pct(v, PV.baseOf(m, id, 0)) + (PV.isApart(m, id) ? " of wall" : "")
          : c.amount ? F.human(v, unit) : F.count(v);
        if (c.inlined)
          h += "<td class=inl>" + F.esc(PV.inlinedText(m, [id])) + "</td>";
        else if (c.samples && PV.samplesOf(m, [id]).few)
          h += "<td class='num few' title='fewer than " + m.few + " samples: its self is uncertain'>" +
            text + " ?</td>";
        else
          h += c.text ? "<td title=\"" + text + "\">" + text + "</td>" : "<td class=num>" + text + "</td>";
      }
      h += "</tr>";
    }
    this.host.innerHTML = h + "</tbody></table>";
  },
  mark(ids) {
    this.matches = ids ? new Set(ids) : null;
    for (const tr of this.host.querySelectorAll("tbody tr"))
      tr.classList.toggle("match", !!this.matches && this.matches.has(+tr.dataset.id));
  },
  select(id) {
    for (const tr of this.host.querySelectorAll("tr.on")) tr.classList.remove("on");
    const tr = id === null ? null : this.host.querySelector("tr[data-id='" + id + "']");
    if (tr) tr.classList.add("on");
  },
};
