// The page's one sim client: it takes over the worker that sim-boot.js started as the page's
// <body> opened, and the bench takes it over in turn: bench/bench.js imports simClient from this
// module (by the same address, with no version query: a module is loaded once per address), and
// hears its status through listen(). The page's start-up settings are sim-boot.js's data
// attributes (startSettings), and so is how they become the client's options.
import { SimClient } from "./sim-client.js";

// sim-boot.js's, read when asked (this module may run before the parser reaches <body>: sim-client.js).
const boot = () => self.specdecSimBoot;
let client = null;

// The page's start-up settings (templates/_startup_data.html), as sim-boot.js read them.
export const startSettings = () => (boot() ? boot().settings : {});

// The start contract (sitebuild/startup/contract.py: its page_contract), as sim-boot.js read it.
export const startContract = () => (boot() && boot().contract) || {};

// A new client from the page's start-up settings; `overrides` replace some of its options (tests
// start a second worker, say without the snapshot).
export function startSim(settings = startSettings(), overrides = {}) {
  return new SimClient({
    ...(boot() ? boot().options(settings) : {}), // without sim-boot.js, the client reports the failure
    onProgress: markStage,
    onTimings: markWorkerTimings,
    ...overrides,
  });
}

// Each stage's first report is marked when it came, for benchmarks/browser_perf.py's breakdown of
// the start.
function markStage(stage, message, at = performance.now()) {
  const name = `specdec:stage-${stage}`;
  if (performance.mark && !performance.getEntriesByName(name).length) performance.mark(name, { startTime: at });
}

// The worker's own marks (sim-worker.js: when each part of its start was done, on the clock of
// performance.timeOrigin), placed on the page's timeline, for the same breakdown.
function markWorkerTimings(timings) {
  if (!performance.mark) return;
  for (const [name, at] of Object.entries(timings)) {
    const startTime = at - performance.timeOrigin;
    if (startTime >= 0 && !performance.getEntriesByName(`specdec:${name}`).length) {
      performance.mark(`specdec:${name}`, { startTime });
    }
  }
}

// The page's one client, made on first use.
export function simClient() {
  if (!client) client = startSim();
  return client;
}

// Offline after one visit: once the bench is live (bench/live.js calls this once its first state
// is drawn: its downloads are done, so the service worker's install takes them from the browser's
// cache, and what it still fetches, the other pages, does not compete with the start), register
// the site's service worker (sitebuild/startup/service_worker.js). Once it is registered, ask the
// sim worker to keep the decoded .wasm (no service worker sees it: it is made in the worker); once
// it is ready, ask it to keep this language's snapshot, which it did not see go by: every worker of
// the registration is asked, since a new build's may still be installing (the old build's ignores
// it), and so is a new build's worker when it takes over this page later (the browser looks for it
// after a navigation, maybe after this). A browser or frame without service workers simply goes
// without.
export async function keepForOffline(data = startSettings()) {
  if (!data.serviceWorker || !("serviceWorker" in navigator)) return;
  try {
    const message = { type: "keep", urls: data.snapshot ? [new URL(data.snapshot, document.baseURI).href] : [] };
    navigator.serviceWorker.addEventListener("controllerchange", () => {
      const worker = navigator.serviceWorker.controller;
      if (worker) worker.postMessage(message);
    });
    await navigator.serviceWorker.register(data.serviceWorker, { updateViaCache: "none" });
    if (client) client.keep(); // the decoded .wasm beside the offline copy (wasm-inflate.js)
    const registration = await navigator.serviceWorker.ready;
    for (const worker of new Set([registration.installing, registration.waiting, registration.active])) {
      if (worker) worker.postMessage(message);
    }
  } catch (error) {
    console.info(`specdec: no offline copy (${error && error.message || error})`);
  }
}
