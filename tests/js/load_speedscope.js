#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Opens speedscope's own page (its npm package's built release) in Debian's
// chromium, headless, hands it each profile file given as an argument through
// the page's file input, as a user's "Browse" would, and prints one JSON
// object per file on stdout: what the page logged, the errors it raised, its
// title, and the text of its sandwich view (a table of every frame by name).
//   node load_speedscope.js FILE...
'use strict';
const path = require('path');
const { chromium } = require('playwright-core');

const page_url = 'file://' + path.join(__dirname, 'node_modules', 'speedscope', 'dist',
	'release', 'index.html');

async function load(browser, file) {
	const page = await browser.newPage();
	const report = { file, console: [], page_errors: [], title: null, text: null,
		canvases: 0, loaded: false };
	page.on('console', (m) => report.console.push(m.type() + ': ' + m.text()));
	page.on('pageerror', (e) => report.page_errors.push(String(e)));
	// The sandwich view lists every frame's name as text, where the flame
	// chart draws them on a canvas.
	await page.goto(page_url + '#view=sandwich');
	await page.setInputFiles('input[type=file]', file);
	try {
		// The page names itself after the profile once it has imported it.
		await page.waitForFunction(() => document.title.endsWith(' - speedscope'), null,
			{ timeout: 10000 });
		await page.waitForTimeout(300); // a frame to draw the view
		report.loaded = true;
	} catch (e) {
		report.page_errors.push('not loaded: ' + e.message.split('\n')[0]);
	}
	report.title = await page.title();
	report.text = await page.evaluate(() => document.body.innerText);
	report.canvases = await page.evaluate(() => document.querySelectorAll('canvas').length);
	await page.close();
	return report;
}

(async () => {
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
		args: ['--no-sandbox'] });
	try {
		const reports = [];
		for (const file of process.argv.slice(2))
			reports.push(await load(browser, path.resolve(file)));
		process.stdout.write(JSON.stringify(reports) + '\n');
	} finally {
		await browser.close();
	}
})().catch((e) => {
	process.stderr.write(String(e && e.stack || e) + '\n');
	process.exit(1);
});
