// SPDX-License-Identifier: MIT
// html_check.js — drives a page `profviz html` wrote in Debian's chromium
// and prints what it saw, as JSON, for tests/t_html.py to judge against
// the profile. usage: node html_check.js CONFIG.json
// CONFIG: { hot: PAGE, many: PAGE, doubt: PAGE, sampled: PAGE, sampledIn: PAGE,
//           inlined: PAGE, twoPaths: PAGE, shots: DIR, nodeAbove: %, arcAbove: % }
"use strict";
const fs = require("fs");
const path = require("path");
const { chromium } = require("playwright-core");
const { loadTimed } = require("./page_timing.js");

const cfg = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const seen = { errors: [], console: [], requests: [] };

function watch(page) {
  page.on("pageerror", (e) => seen.errors.push(e.message));
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") seen.console.push(m.text()); });
  page.on("request", (r) => { if (!/^(file|data):/.test(r.url())) seen.requests.push(r.url()); });
}

// Every node of the graph: graphviz's first line of text in it, its key,
// classes and opacity as the browser computes them.
const nodesOf = (page) => page.evaluate(() => [...document.querySelectorAll("#graph g.node")].map((g) => ({
  label: g.querySelector("text")?.textContent || "",
  key: g.dataset.key,
  cls: g.getAttribute("class"),
  opacity: +getComputedStyle(g).opacity,
})));

async function nodeByLabel(page, label) {
  return page.locator("#graph g.node").filter({ has: page.locator("text", { hasText: new RegExp("^" + label + "$") }) }).first();
}

async function searchFor(page, q) {
  await page.fill("#search", q);
  await page.press("#search", "Enter");
  return page.evaluate(() => ({
    text: document.getElementById("search-count").textContent,
    count: document.getElementById("search-count").dataset.count,
    marked: [...document.querySelectorAll("#graph g.node.match")].map((g) => g.querySelector("text").textContent),
  }));
}

// The threshold sliders: each value as shown, the count, and which boxes
// and arcs the browser draws (display not none), by their graph keys.
const slidersSeen = (page) => page.evaluate(() => {
  const drawn = (sel) => [...document.querySelectorAll(sel)]
    .filter((g) => getComputedStyle(g).display !== "none").map((g) => g.dataset.key);
  const out = (id) => document.getElementById(id);
  return {
    node: +out("node-min-value").dataset.value, nodeText: out("node-min-value").textContent,
    arc: +out("arc-min-value").dataset.value, arcText: out("arc-min-value").textContent,
    atMin: out("node-min").value === "0" && out("arc-min").value === "0",
    count: out("pruned").textContent,
    nodes: drawn("#graph g.node"), edges: drawn("#graph g.edge"),
    tooltip: out("node-min").title,
  };
});

// Moves slider NAME ("node", "arc") as a user would with the keyboard:
// Home (the bottom), then one step right at a time until it reads more than
// `above` (null: stays at the bottom).
async function slideTo(page, name, above) {
  await page.focus("#" + name + "-min");
  await page.keyboard.press("Home");
  for (let i = 0; above !== null && i < 60; i++) {
    const v = +(await page.getAttribute("#" + name + "-min-value", "data-value"));
    if (v > above) break;
    await page.keyboard.press("ArrowRight");
  }
  return slidersSeen(page);
}

// The table's heads, and each row's function with its cell in column
// NAME (null when there is none) and whether that cell is marked few.
async function tableColumn(page, name) {
  await page.click("#tabs button[data-view='table']");
  return page.evaluate((name) => {
    const heads = [...document.querySelectorAll("#table th")].map((th) => th.textContent.replace(/ [\u25be\u25b4]$/, ""));
    const col = heads.indexOf(name);
    return {
      heads,
      rows: [...document.querySelectorAll("#table tbody tr")].map((tr) =>
        [tr.cells[0].textContent, col < 0 ? null : tr.cells[col].textContent, col >= 0 && tr.cells[col].classList.contains("few")]),
    };
  }, name);
}

// The side panel's text for the function named NAME, picked in the table
// (which is shown again after).
async function panelOf(page, name) {
  await page.click("#table tbody tr:has(td:text-is('" + name + "'))");
  const text = await page.evaluate(() => document.getElementById("details").innerText);
  await page.keyboard.press("Escape");
  await page.click("#tabs button[data-view='table']");
  return text;
}

(async () => {
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  const out = {};
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    watch(page);
    out.hotLoad = await loadTimed(page, cfg.hot);
    out.nodes = await nodesOf(page);
    out.title = await page.textContent("#title");
    await page.screenshot({ path: path.join(cfg.shots, "graph.png") });

    // hover: the tooltip of a box
    const gamma = await nodeByLabel(page, "gamma");
    await gamma.hover();
    out.tip = await page.evaluate(() => document.getElementById("tip").hidden ? null : document.getElementById("tip").innerText);
    await page.mouse.move(5, 790);

    // pan and zoom
    const vb = () => page.evaluate(() => document.querySelector("#graph svg").getAttribute("viewBox").split(" ").map(Number));
    const before = await vb();
    await page.mouse.move(400, 400);
    await page.mouse.wheel(0, -400);
    await page.waitForTimeout(50);
    const zoomed = await vb();
    await page.mouse.move(400, 400);
    await page.mouse.down();
    await page.mouse.move(500, 450, { steps: 5 });
    await page.mouse.up();
    const panned = await vb();
    out.panZoom = { before, zoomed, panned };
    await page.click("#fit");

    // search
    out.search = {
      substring: await searchFor(page, "side_"),
      regex: await searchFor(page, "/^(alpha|beta)$/"),
      bad: await searchFor(page, "/(/"),
    };
    await searchFor(page, "");

    // focus on a box
    await (await nodeByLabel(page, "beta")).click();
    out.focus = {
      nodes: await nodesOf(page),
      panel: await page.evaluate(() => {
        const lists = {};
        for (const h of document.querySelectorAll("#details h3")) {
          const t = h.nextElementSibling;
          lists[h.textContent.replace(/ \(.*/, "")] = t && t.tagName === "TABLE"
            ? [...t.querySelectorAll("a[data-id]")].map((a) => a.textContent) : [];
        }
        return lists;
      }),
      crumbs: await page.textContent("#crumbs"),
      lines: await page.evaluate(() => {
        const t = document.querySelector("#details table.lines");
        return t && {
          heading: t.previousElementSibling.textContent,
          rows: [...t.querySelectorAll("tr")].slice(1).map((tr) => [...tr.cells].map((c) => c.textContent)),
        };
      }),
    };
    await page.screenshot({ path: path.join(cfg.shots, "focus.png") });
    await page.click("#side a[data-id]"); // a caller or callee: focus moves on
    out.focus.second = await page.textContent("#crumbs");
    await page.click("#crumbs a[data-crumb='1']"); // back to beta by the breadcrumb
    out.focus.crumbBack = await page.textContent("#crumbs");
    await page.keyboard.press("Escape");
    out.focus.afterEscape = (await nodesOf(page)).filter((n) => n.opacity < 1).length;

    // hot path
    await page.click("#hot");
    out.hot = await page.evaluate(() => {
      const label = (k) => document.querySelector("#graph g.node[data-key='" + k + "'] text").textContent;
      return {
        edges: [...document.querySelectorAll("#graph g.edge.hot")].map((g) => g.dataset.key.split("->").map(label)),
        panel: [...document.querySelectorAll("#details ol.hot a")].map((a) => a.textContent),
      };
    });
    await page.screenshot({ path: path.join(cfg.shots, "hot.png") });
    await page.click("#hot");

    // table: sorted by self, then by calls; a row picks the function
    await page.click("#tabs button[data-view='table']");
    const names = () => page.evaluate(() => [...document.querySelectorAll("#table tbody tr")].map((tr) => tr.cells[0].textContent));
    const header = (name) => page.locator("#table th", { hasText: new RegExp("^" + name + "( [\\u25be\\u25b4])?$") }).click();
    await header("Self");
    out.table = { bySelf: await names() };
    await header("Calls");
    out.table.byCalls = await names();
    await header("Calls");
    out.table.byCallsUp = await names();
    await page.screenshot({ path: path.join(cfg.shots, "table.png") });
    await page.click("#table tbody tr:has(td:text-is('tiny_cold'))");
    out.table.coldNote = await page.evaluate(() => !!document.getElementById("not-in-graph"));
    await page.click("#table tbody tr:has(td:text-is('side_one'))");
    out.table.rowFocus = await page.evaluate(() => ({
      graphShown: document.getElementById("graph").classList.contains("on"),
      focused: [...document.querySelectorAll("#graph g.node.focus")].map((g) => g.querySelector("text").textContent),
    }));
    await page.keyboard.press("Escape");

    // icicle: a frame clicked fills the width; the top frame zooms out
    await page.click("#tabs button[data-view='icicle']");
    const frames = () => page.evaluate(() => ({
      width: PV.icicle.host.clientWidth,
      row: PV.icicle.ROW,
      frames: PV.icicle.frames.map((f) => ({ name: PV.icicle.name(f.node), node: f.node, x: f.x, w: f.w, d: f.d })),
    }));
    const before2 = await frames();
    const target = before2.frames.find((f) => f.name === "side_two");
    const box = await page.locator("#icicle canvas").boundingBox();
    await page.mouse.click(box.x + target.x + target.w / 2, box.y + target.d * before2.row + before2.row / 2);
    const after = await frames();
    await page.screenshot({ path: path.join(cfg.shots, "icicle.png") });
    await page.mouse.click(box.x + 10, box.y + before2.row / 2);
    const out2 = await frames();
    const frameOf = (fs, node) => fs.frames.find((f) => f.node === node);
    out.icicle = {
      width: before2.width, target, before: frameOf(before2, target.node),
      after: frameOf(after, target.node), zoomedOut: frameOf(out2, target.node),
      mainBefore: before2.frames.find((f) => f.name === "main"),
      mainAfter: out2.frames.find((f) => f.name === "main"),
    };

    // threshold sliders: node above side_three's share, then arcs above
    // main->side_one's (t_html.py's numbers); side_three, hidden, focused
    // from the table; search and hot path with boxes hidden; back
    await page.click("#tabs button[data-view='graph']");
    out.sliders = { start: await slidersSeen(page) };
    out.sliders.node = await slideTo(page, "node", cfg.nodeAbove);
    out.sliders.both = await slideTo(page, "arc", cfg.arcAbove);
    await page.screenshot({ path: path.join(cfg.shots, "sliders.png") });
    out.sliders.search = await searchFor(page, "side_");
    out.sliders.search.hidden = await page.getAttribute("#search-count", "data-hidden");
    await searchFor(page, "");
    await page.click("#tabs button[data-view='table']");
    await page.click("#table tbody tr:has(td:text-is('side_three'))");
    out.sliders.focused = await slidersSeen(page);
    out.sliders.focused.note = await page.evaluate(() => document.getElementById("under-slider")?.textContent || null);
    out.sliders.focused.graphShown = await page.evaluate(() => document.getElementById("graph").classList.contains("on"));
    await page.screenshot({ path: path.join(cfg.shots, "sliders-focus.png") });
    await page.keyboard.press("Escape");
    out.sliders.unfocused = await slidersSeen(page);
    await page.click("#hot");
    out.sliders.hot = await page.evaluate(() => ({
      edges: [...document.querySelectorAll("#graph g.edge.hot")].map((g) => g.dataset.key),
      panel: [...document.querySelectorAll("#details ol.hot li")].map((li) => li.textContent),
    }));
    await page.click("#hot");
    await slideTo(page, "node", null);
    out.sliders.back = await slideTo(page, "arc", null);

    // the large profile
    const big = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    watch(big);
    out.many = await loadTimed(big, cfg.many);
    out.many.rows = await big.evaluate(() => document.querySelectorAll("#table tbody tr").length);
    out.many.boxes = await big.evaluate(() => document.querySelectorAll("#graph g.node").length);
    await big.click("#tabs button[data-view='icicle']");
    out.many.frames = await big.evaluate(() => PV.icicle.frames.length);
    await big.screenshot({ path: path.join(cfg.shots, "many-icicle.png") });
    await big.click("#tabs button[data-view='graph']");
    out.many.sliders = { start: await slidersSeen(big) };
    await slideTo(big, "node", 0.15);
    out.many.sliders.both = await slideTo(big, "arc", 0.7);
    await big.screenshot({ path: path.join(cfg.shots, "many-sliders.png") });
    await slideTo(big, "node", null);
    out.many.sliders.back = await slideTo(big, "arc", null);
    await big.click("#hot");
    await big.screenshot({ path: path.join(cfg.shots, "many-graph.png") });

    // the bar of a page whose times are in doubt, and of one whose are not
    const summary = (p) => p.evaluate(() => {
      const d = document.getElementById("doubt");
      return { text: document.getElementById("summary").textContent, doubt: d ? d.title : null };
    });
    out.hotSummary = await summary(page);
    const doubtful = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    watch(doubtful);
    await loadTimed(doubtful, cfg.doubt);
    out.doubtSummary = await summary(doubtful);
    await doubtful.screenshot({ path: path.join(cfg.shots, "doubt.png") });

    // a page of sampled time: the bar, the dashed boxes, the table's samples
    // and marks, the panel of a function of few samples and of a wait
    const sp = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    watch(sp);
    await loadTimed(sp, cfg.sampled);
    out.sampled = await sp.evaluate(() => {
      const s = document.getElementById("sampling"), d = document.getElementById("doubt");
      return {
        summary: document.getElementById("summary").textContent,
        sampling: s ? s.title : null, doubt: d ? d.title : null,
        dashed: [...document.querySelectorAll("#graph g.node")]
          .filter((g) => g.querySelector("polygon[stroke-dasharray]"))
          .map((g) => g.querySelector("text").textContent),
        labels: [...document.querySelectorAll("#graph g.node")].map((g) => g.querySelector("text").textContent),
      };
    });
    await sp.screenshot({ path: path.join(cfg.shots, "sampled.png") });
    out.sampled.waits = await sp.evaluate(() => document.getElementById("waits")?.title || null);
    out.sampled.table = await tableColumn(sp, "Samples");
    out.sampled.totals = (await tableColumn(sp, "Total %")).rows;
    await sp.screenshot({ path: path.join(cfg.shots, "sampled-table.png") });
    out.sampled.panel = { rare: await panelOf(sp, "rare"), compute: await panelOf(sp, "compute"),
                          wait: await panelOf(sp, "<blocked: nanosleep>") };
    out.hotHeads = await page.evaluate(() => [...document.querySelectorAll("#table th")].map((th) => th.textContent));

    // the same page with the waits inside its shares (--waits in)
    const si = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    watch(si);
    await loadTimed(si, cfg.sampledIn);
    out.sampledIn = await si.evaluate(() => ({
      summary: document.getElementById("summary").textContent,
      waits: !!document.getElementById("waits"),
    }));
    out.sampledIn.totals = (await tableColumn(si, "Total %")).rows;

    // a page with calls the compiler inlined: the table's column, the
    // panel of a function inlined everywhere and of its host, the dashed
    // arc and what hovering it says
    const ip = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    watch(ip);
    await loadTimed(ip, cfg.inlined);
    out.inlined = await ip.evaluate(() => ({
      dashed: [...document.querySelectorAll("#graph g.edge")]
        .filter((g) => g.querySelector("path[stroke-dasharray]"))
        .map((g) => g.dataset.key),
    }));
    // hover the middle of the arc's line (its bounding box's need not be on it)
    const edge = ip.locator("#graph g.edge[data-key='" + cfg.inlinedEdge + "'] path").first();
    const middle = await edge.evaluate((p) => {
      const pt = p.getPointAtLength(p.getTotalLength() / 2), m = p.getScreenCTM();
      return { x: pt.x * m.a + pt.y * m.c + m.e, y: pt.x * m.b + pt.y * m.d + m.f };
    });
    await ip.mouse.move(middle.x, middle.y);
    out.inlined.edgeTip = await ip.evaluate(() => document.getElementById("tip").innerText);
    out.inlined.table = await tableColumn(ip, "Inlined");
    await ip.screenshot({ path: path.join(cfg.shots, "inlined-table.png") });
    out.inlined.panel = { kind_of: await panelOf(ip, "kind_of"), sum_kinds: await panelOf(ip, "sum_kinds"),
                          weight: await panelOf(ip, "weight") };

    // the hot path of a function called on two paths: each step's name,
    // its numbers, what hovering them says, and the arcs marked
    const tp = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    watch(tp);
    await loadTimed(tp, cfg.twoPaths);
    await tp.click("#hot");
    out.twoPaths = await tp.evaluate(() => {
      const label = (k) => document.querySelector("#graph g.node[data-key='" + k + "'] text").textContent;
      const items = [...document.querySelectorAll("#details ol.hot li")];
      return {
        panel: items.map((li) => [li.querySelector("a").textContent, li.querySelector("span").textContent]),
        titles: items.map((li) => li.querySelector("span").title),
        edges: [...document.querySelectorAll("#graph g.edge.hot")].map((g) => g.dataset.key.split("->").map(label)),
      };
    });
    await tp.screenshot({ path: path.join(cfg.shots, "two-paths-hot.png") });
  } catch (e) {
    out.exception = String(e.stack || e);
  }
  out.seen = seen;
  await browser.close();
  console.log(JSON.stringify(out));
})();
