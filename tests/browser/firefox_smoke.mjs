// Firefox's smoke test of the bench, driven by tests/browser/test_other_engines.py (which serves the
// site and stops its server to take the network away): Debian's firefox-esr through puppeteer-core
// over WebDriver BiDi, one launch, one page.
//   node firefox_smoke.mjs JOB.json
// Job: {firefox, url, live, stepped (its {steps}: the count after one step), kept (a script: the service worker holds this page's snapshot),
//       hooks (an expression that loads the debug hooks, whose marks live and stepped read: run after each load), timeoutMs}. Prints one JSON line per phase: {phase: "online"}, then waits for a line on
// stdin (the server is stopped), reloads, and prints {phase: "offline"}; {phase: "error"} on failure.
import fs from "node:fs";
import readline from "node:readline";
import puppeteer from "puppeteer-core";

const job = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const started = Date.now();
const seconds = () => (Date.now() - started) / 1000;
const say = (line) => process.stdout.write(JSON.stringify(line) + "\n");
const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();

// How the page started Python (sim-start.js marks each stage; "fallback" only when the snapshot failed).
const VIA = "performance.getEntriesByName('specdec:stage-fallback').length ? 'wheel' : 'snapshot'";
// What the page looked like when a phase failed: the bench's marks, its status line, the start-up
// stages it reached and whether a service worker controls it (the console is kept beside it).
const LOOKS = `(() => ({
  url: location.href, ready: document.readyState, bench: { ...(document.getElementById("b") || {}).dataset },
  status: (document.querySelector("#b [role=status], #b .b-status") || {}).textContent,
  stages: performance.getEntriesByType("mark").filter((m) => m.name.startsWith("specdec:"))
    .map((m) => m.name.slice(8) + "@" + Math.round(m.startTime)),
  controlled: Boolean(navigator.serviceWorker && navigator.serviceWorker.controller),
  hooks: typeof window.specdecBench,
}))()`;
const consoleLines = [];

async function liveAndStep(page, errors) {
  await page.evaluate(job.hooks);
  await page.waitForSelector(job.live, { timeout: job.timeoutMs });
  const live = seconds();
  const via = await page.evaluate(VIA);
  // A start gone quiet and started again in a fresh worker (sim-client.js): said, not failed.
  const restarted = await page.evaluate("performance.getEntriesByName('specdec:stage-restarted').length > 0");
  const before = Number(await page.$eval("#b", (bench) => bench.dataset.steps));
  await page.click("#b button.b-step");
  await page.waitForSelector(job.stepped.replace("{steps}", before + 1), { timeout: job.timeoutMs });
  return { live, stepped: seconds(), via, restarted, steps: [before, before + 1], errors: [...errors] };
}

let browser;
let pageForLooks;
let phase = "online";
try {
  browser = await puppeteer.launch({
    browser: "firefox", executablePath: job.firefox, headless: true,
    // Reduced motion, as the Chromium tests' pages have: a step is drawn at once, not animated.
    extraPrefsFirefox: { "ui.prefersReducedMotion": 1 },
  });
  const launched = seconds();
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(String(error && error.message || error)));
  page.on("console", (message) => {
    consoleLines.push(`${seconds().toFixed(1)} ${message.type()}: ${message.text()}`.slice(0, 300));
    if (consoleLines.length > 40) consoleLines.shift();
  });
  pageForLooks = page;
  // The desktop layout, where the step button is in view (at puppeteer's 800x600 a click missed it).
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(job.url);
  const online = await liveAndStep(page, errors);
  const kept = await page.evaluate(`(${job.kept})(null)`);
  say({ phase: "online", launched, ...online, kept, version: await browser.version() });
  await lines.next(); // the test has stopped the server
  phase = "offline";
  errors.length = 0;
  // Firefox over BiDi once left the reload uncommitted for puppeteer's whole 30 s (the old page
  // still shown, in 1 of about 10 CI runs): that reload is said and the page is opened again, so a
  // second hang (or a page that does not work offline) still fails.
  let reloadHung = false;
  try {
    await page.reload({ timeout: 20000 });
  } catch (error) {
    if (!(error && error.name === "TimeoutError")) throw error;
    reloadHung = `${seconds().toFixed(1)} s: ${error.message}`;
    await page.goto(job.url);
  }
  say({ phase: "offline", reloadHung, ...(await liveAndStep(page, errors)) });
} catch (error) {
  let looks;
  try {
    looks = pageForLooks ? await pageForLooks.evaluate(LOOKS) : null;
  } catch (failed) {
    looks = `not readable: ${failed && failed.message || failed}`;
  }
  say({ phase: "error", error: `${phase} at ${seconds().toFixed(1)} s: ${error && error.stack || error}\n` +
        `the page: ${JSON.stringify(looks)}\nits console: ${JSON.stringify(consoleLines)}` });
} finally {
  if (browser) await browser.close();
  process.exit(0);
}
