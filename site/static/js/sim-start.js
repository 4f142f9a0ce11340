// Starts the sim worker as soon as the page's <body> opens (an async module script is its first
// child), before the bench's scripts have loaded, so that the worker's downloads, the snapshot
// first, begin as early as the page allows. The bench takes the same client over:
// bench/bench.js imports simClient from this module (by the same address, with no version
// query: a module is loaded once per address), and hears its status through listen().
import { SimClient } from "./sim-client.js";

let client = null;

// A new client from the page's runtime settings (templates/_runtime_data.html); `overrides`
// replace some of them (tests start a second worker, say without the snapshot).
export function startSim(data, overrides = {}) {
  return new SimClient({
    workerURL: data.worker,
    pyodideURL: data.pyodide,
    modelURL: data.model,
    stdlibURL: data.stdlib,
    lockURL: data.lock,
    lockInfo: JSON.parse(data.lockInfo || "null"),
    snapshotURL: data.snapshot,
    snapshotToken: data.snapshotToken,
    lang: data.lang,
    sizes: JSON.parse(data.runtimeSizes || "{}"),
    onProgress: markStage,
    onTimings: markWorkerTimings,
    ...overrides,
  });
}

// Each stage's first report is marked, for benchmarks/browser_perf.py's breakdown of the start.
function markStage(stage) {
  const name = `specdec:stage-${stage}`;
  if (performance.mark && !performance.getEntriesByName(name).length) performance.mark(name);
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

// The page's one client, started on first use.
export function simClient(data = document.body.dataset) {
  if (!client) client = startSim(data);
  return client;
}

// Offline after one visit: once the bench is live (bench/live.js calls this once its first state
// is drawn: its downloads are done, so the service worker's install takes them from the browser's
// cache, and what it still fetches, the other pages, no longer competes with the start), register
// the site's service worker (sitebuild/runtime/service_worker.js) and ask it to keep this language's snapshot,
// which it did not see go by: every worker of the registration is asked, since a new build's may
// still be installing (the old build's ignores it), and so is a new build's worker when it takes
// over this page later (the browser looks for it after a navigation, maybe after this). A browser
// or frame without service workers simply goes without.
export async function keepForOffline(data = document.body.dataset) {
  if (!data.serviceWorker || !("serviceWorker" in navigator)) return;
  try {
    const message = { type: "keep", urls: [new URL(data.snapshot, document.baseURI).href] };
    navigator.serviceWorker.addEventListener("controllerchange", () => {
      const worker = navigator.serviceWorker.controller;
      if (worker) worker.postMessage(message);
    });
    await navigator.serviceWorker.register(data.serviceWorker, { updateViaCache: "none" });
    const registration = await navigator.serviceWorker.ready;
    for (const worker of new Set([registration.installing, registration.waiting, registration.active])) {
      if (worker) worker.postMessage(message);
    }
  } catch (error) {
    console.info(`specdec: no offline copy (${error && error.message || error})`);
  }
}

if (document.body && document.body.dataset.worker) simClient();
