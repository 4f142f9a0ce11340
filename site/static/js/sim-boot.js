// The sim worker's start, as early as the page can make it: a classic script, the first thing in
// <body>, which the parser runs as soon as it reaches it (once the style sheet is in, as for any
// classic script after one). Started from a module script (async, in the same place) the worker
// began only once the long body was parsed and first laid out, and on a repeat visit the bench went
// live 0.3 s later (issue 24; docs/architecture.md, "The runtime in the page", has the figures).
//
// Its data attributes are the page's runtime settings (templates/_runtime_data.html), and it owns
// what the worker is told: options(settings) turns them into SimClient's options (sim-client.js),
// startMessage(options) is the message the worker starts from (sim-worker.js). It starts the
// worker with that message in its name (sim-client.js says why) and keeps what the worker says
// until the page's client takes the worker over (take). Published as self.specdecSimBoot, the one
// thing a classic script can share with the page's modules (sim-start.js, sim-client.js).
"use strict";

self.specdecSimBoot = (() => {
  const EVENTS = ["message", "error", "messageerror"]; // what a worker says, kept until it is taken
  const script = document.currentScript;
  const settings = script ? script.dataset : {};

  // SimClient's options from the runtime settings (a DOMStringMap, or an object like it).
  function options(runtime) {
    return {
      workerURL: runtime.worker,
      pyodideURL: runtime.pyodide,
      modelURL: runtime.model,
      stdlibURL: runtime.stdlib,
      lockURL: runtime.lock,
      lockInfo: JSON.parse(runtime.lockInfo || "null"),
      snapshotURL: runtime.snapshot,
      snapshotToken: runtime.snapshotToken,
      lang: runtime.lang,
      sizes: JSON.parse(runtime.runtimeSizes || "{}"),
    };
  }

  // The start message: every option but the worker's own address, addresses (names ending in
  // URL) made absolute, since the worker resolves a relative one against its own.
  function startMessage({ workerURL, ...start }) {
    const message = { type: "start" };
    for (const [key, value] of Object.entries(start)) {
      message[key] = key.endsWith("URL") && value ? new URL(value, document.baseURI).href : value;
    }
    return message;
  }

  // The worker started here, and everything it said before the page's client took it over.
  let started = null;
  if (settings.worker && typeof WebAssembly === "object" && typeof Worker === "function") {
    const wanted = options(settings);
    const name = JSON.stringify(startMessage(wanted));
    try {
      const worker = new Worker(wanted.workerURL, { type: "module", name });
      const heard = [];
      for (const kind of EVENTS) {
        worker["on" + kind] = (event) => {
          if (kind === "error") event.preventDefault(); // reported by the client, as its own are
          heard.push([kind, event]);
        };
      }
      started = { worker, heard, url: wanted.workerURL, name };
    } catch (error) {
      started = null; // the client starts its own, and reports what goes wrong then
    }
  }

  // The worker started here, for a client that would start the very same one: {worker, heard}
  // (heard: [kind, event] pairs to hand to the client's own handlers, in order), once; else null.
  function take(workerURL, message) {
    if (!started || workerURL !== started.url || JSON.stringify(message) !== started.name) return null;
    const taken = started;
    started = null;
    for (const kind of EVENTS) taken.worker["on" + kind] = null;
    return { worker: taken.worker, heard: taken.heard };
  }

  return { settings, options, startMessage, take };
})();
