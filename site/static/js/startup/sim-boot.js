// The sim worker's start, as early as the page can make it: a classic script, the first thing in
// <body>, which the parser runs as soon as it reaches it (once the style sheet is in, as for any
// classic script after one). Started from a module script the worker began only once the long
// body was parsed and first laid out (docs/architecture.md, "The start-up in the page").
//
// Its data attributes are the page's start-up settings and the start contract
// (sitebuild/startup/contract.py, written by templates/_startup_data.html): each start field the
// contract lists is one attribute, and the same name is the client's option and the start
// message's field. options(settings) reads them; startMessage(options), the one maker of the
// message the worker starts from (sim-worker.js), adds the contract's names of stages, marks and
// failures. It starts the worker with that message in its name (workerOptions) and keeps what the
// worker says until the page's client takes the worker over (take: the same message, by value). Published as self.specdecSimBoot, the one
// thing a classic script can share with the page's modules (sim-start.js, sim-client.js).
"use strict";

self.specdecSimBoot = (() => {
  const EVENTS = ["message", "error", "messageerror"]; // what a worker says, kept until it is taken
  const script = document.currentScript;
  const settings = script ? script.dataset : {};
  const contract = JSON.parse(settings.contract || "null");

  // The client's options from the start-up settings (a DOMStringMap, or an object like it): each
  // start field of the contract, a JSON one parsed, an empty one null.
  function options(given) {
    const out = {};
    for (const { name, kind } of contract ? contract.fields : []) {
      const value = given[name];
      out[name] = value == null || value === "" ? null : kind === "json" && typeof value === "string" ? JSON.parse(value) : value;
    }
    return out;
  }

  // Whether the host sends the site's files compressed with brotli at its best quality, as one that
  // compresses them ahead does (nginx's brotli_static, Caddy's precompressed: docs/hosting.md): the
  // page's style sheet, in before this script runs, came in as many bytes as brotli -q 11 makes of
  // it (size: the start field the contract names; 2% more allowed for another version of brotli).
  // A host that compresses as it sends (quality 4 to 6) sends 5-10% more, gzip 15-20% more. Such a
  // host sends Pyodide's .wasm itself as 2.74 MB of brotli, which the browser decodes as it comes,
  // against the .xz's 2.64 MB, which takes the worker 0.23-0.29 s to decode (wasm-inflate.js).
  function hostSendsBrotli(size) {
    const sheet = document.querySelector('link[rel="stylesheet"]');
    const entry = sheet && self.performance && performance.getEntriesByName(sheet.href)[0];
    const sent = entry ? entry.encodedBodySize : 0; // 0: not measured (another origin, no entry)
    return size > 0 && sent > 0 && sent <= size * 1.02;
  }

  // Whether the page itself came in over the network at FAST_LINK bits per second or more (its
  // encoded body over its response time: resource timing), all in before this script ran; a page
  // from a cache says nothing of the link, and there the .xz stays. The worker decodes the .xz at
  // about 85 Mbit/s on a laptop's core: from half that, the .wasm itself starts Python sooner (by
  // up to 0.25 s); the line sits lower still, as a busy machine stretches a small page's timing.
  const FAST_LINK = 40e6;
  function fastLink() {
    const page = self.performance && performance.getEntriesByType("navigation")[0];
    if (!page || !(page.responseEnd > 0) || !(page.encodedBodySize > 0)) return false; // not in yet, or not measured
    if (!(page.transferSize > page.encodedBodySize)) return false; // not over the network
    const seconds = Math.max(page.responseEnd - page.responseStart, 1) / 1000;
    return (page.encodedBodySize * 8) / seconds >= FAST_LINK;
  }

  // Whether the worker is to fetch the .wasm itself rather than its .xz: the host compresses ahead
  // (a host's gzip of the .wasm is 0.9 MB more than the .xz, which would pay only from about
  // 113 Mbit/s) and the link is fast. Decided once: the client's start message must be the boot
  // script's (take).
  let wasmItself = null;
  function wasmItselfPays(size) {
    if (wasmItself === null) wasmItself = hostSendsBrotli(size) && fastLink();
    return wasmItself;
  }

  // The start message: the fields the contract marks for it, addresses made absolute (the worker
  // resolves a relative one against its own), and the names the worker may post. A field the
  // contract gives only where the .wasm itself pays (ifBrotli: that .wasm) goes as null elsewhere,
  // and one it gives only to a page the site's service worker controls (ifControlled) too.
  function startMessage(start) {
    const message = { type: "start", contract: { stages: contract.stages, marks: contract.marks, failures: contract.failures, via: contract.via } };
    const controlled = Boolean(navigator.serviceWorker && navigator.serviceWorker.controller);
    for (const { name, kind, message: carried, ifBrotli, ifControlled } of contract.fields) {
      if (!carried) continue;
      let value = start[name] ?? null;
      if (value && ifBrotli && !wasmItselfPays(start[ifBrotli])) value = null;
      if (value && ifControlled && !controlled) value = null;
      message[name] = kind === "url" && value ? new URL(value, document.baseURI).href : value;
    }
    return message;
  }

  // Whether two start messages are the same message: equal by value, field by field (JSON's kinds
  // of value: the message is made of them, and is the worker's name as JSON).
  function sameValue(a, b) {
    if (a === b) return true;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameValue(a[key], b[key]));
  }

  // The sim worker's options: a module worker with its start message in its name, which it reads
  // as its module runs and starts at once (a message posted to it is handed over only once it has
  // loaded and the page's thread is free again, which a long page's first layout and the bench's
  // scripts held up by 0.3 s: sim-worker.js, selfStart). The message is posted as well, for a
  // worker that cannot read its name.
  const workerOptions = (message) => ({ type: "module", name: JSON.stringify(message) });

  // The workers the contract's `port` fields name (the snapshot's decoding worker,
  // snapshot-inflate-worker.js), each started here on the page beside the sim worker when the
  // start message names it, and the sim worker's end of a channel to it posted as {type: "port",
  // name, port} (port null when it could not be started: the sim worker then does without).
  // Started here, not by the sim worker: Firefox ESR 153 under load now and then never returns
  // from `new Worker()` called in a worker, whose thread then stays there for good
  // (benchmarks/firefox_worker_stall.py: 5 of 300 pages; none when the page starts the second
  // worker). Returns the workers started, for the client to end once the start is over.
  function startPortWorkers(worker, message) {
    const started = [];
    for (const { name, port: isPort } of contract ? contract.fields : []) {
      if (!isPort || !message[name]) continue;
      let port = null;
      try {
        const helper = new Worker(message[name], { type: "module" });
        started.push(helper);
        const channel = new MessageChannel();
        helper.postMessage({ port: channel.port1 }, [channel.port1]);
        port = channel.port2;
      } catch {
        // not started: the port goes as null, and the sim worker does without it
      }
      worker.postMessage({ type: "port", name, port }, port ? [port] : []);
    }
    return started;
  }

  // The worker started here, and everything it said before the page's client took it over.
  let started = null;
  if (contract && settings.worker && typeof WebAssembly === "object" && typeof Worker === "function") {
    const wanted = options(settings);
    const message = startMessage(wanted);
    try {
      const worker = new Worker(wanted.worker, workerOptions(message));
      const heard = [];
      for (const kind of EVENTS) {
        worker["on" + kind] = (event) => {
          if (kind === "error") event.preventDefault(); // reported by the client, as its own are
          heard.push([kind, event]);
        };
      }
      started = { worker, heard, url: wanted.worker, message, helpers: startPortWorkers(worker, message) };
    } catch (error) {
      started = null; // the client starts its own, and reports what goes wrong then
    }
  }

  // The worker started here, for a client that would start the very same one (the same script and
  // a start message equal by value): {worker, heard, helpers} (heard: [kind, event] pairs to hand
  // to the client's own handlers, in order; helpers: the workers started beside it), once; else null.
  function take(workerURL, message) {
    if (!started || workerURL !== started.url || !sameValue(message, started.message)) return null;
    const taken = started;
    started = null;
    for (const kind of EVENTS) taken.worker["on" + kind] = null;
    return { worker: taken.worker, heard: taken.heard, helpers: taken.helpers };
  }

  return { settings, contract, options, startMessage, workerOptions, take, startPortWorkers };
})();
