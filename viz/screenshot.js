// SPDX-License-Identifier: MIT
// screenshot.js — the README's picture of the page `profviz html` writes:
// PAGE opened in Debian's chromium, the box named FUNCTION clicked (focused,
// its panel open), the window saved as PNG. usage: node screenshot.js PAGE
// FUNCTION PNG (playwright-core from tests/js, by NODE_PATH; make pictures).
"use strict";
const path = require("path");
const { chromium } = require("playwright-core");
const { loadTimed } = require(path.join(__dirname, "..", "tests", "js", "page_timing.js"));

(async () => {
  const [page_file, name, png] = process.argv.slice(2);
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 640 } });
    await loadTimed(page, path.resolve(page_file));
    const box = page.locator("#graph g.node")
      .filter({ has: page.locator("text", { hasText: new RegExp("^" + name + "$") }) }).first();
    await box.click();
    await page.mouse.move(5, 635); // no tooltip in the picture
    await page.waitForTimeout(200);
    await page.screenshot({ path: png });
  } finally {
    await browser.close();
  }
})().catch((e) => {
  console.error("screenshot.js: " + e.message);
  process.exit(1);
});
