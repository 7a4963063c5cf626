// SPDX-License-Identifier: MIT
// page_timing.js — a page `profviz html` wrote, opened and timed until it
// says it is ready (body[data-ready]): the wall time and the page's own
// figures (PV.ready). Shared by html_check.js and bench/page_ready.js.
"use strict";

async function loadTimed(page, file) {
  const t = Date.now();
  await page.goto("file://" + file);
  await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
  const wall = Date.now() - t;
  return { wallMs: wall, ...(await page.evaluate(() => PV.ready)) };
}

module.exports = { loadTimed };
