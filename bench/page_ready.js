// SPDX-License-Identifier: MIT
// page_ready.js — how soon a page `profviz html` wrote is usable in Debian's
// chromium, each load in a fresh tab. usage: node page_ready.js PAGE RUNS
// (playwright-core from tests/js, by NODE_PATH). Prints one JSON list.
"use strict";
const path = require("path");
const { chromium } = require("playwright-core");
const { loadTimed } = require(path.join(__dirname, "..", "tests", "js", "page_timing.js"));

(async () => {
  const [file, runs] = [path.resolve(process.argv[2]), +(process.argv[3] || 3)];
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  const out = [];
  try {
    for (let i = 0; i < runs; i++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      out.push(await loadTimed(page, file));
      await page.close();
    }
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(out));
})();
