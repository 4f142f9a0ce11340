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
    ...overrides,
  });
}

// Each stage's first report is marked, for benchmarks/browser_perf.py's breakdown of the start.
function markStage(stage) {
  const name = `specdec:stage-${stage}`;
  if (performance.mark && !performance.getEntriesByName(name).length) performance.mark(name);
}

// The page's one client, started on first use.
export function simClient(data = document.body.dataset) {
  client ||= startSim(data);
  return client;
}

if (document.body && document.body.dataset.worker) simClient();
