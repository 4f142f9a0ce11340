// The module Web Worker that runs the sim package in Pyodide, off the page's main thread.
// Protocol: the page posts {id, command, args}; the worker answers {id, ok, result | error}
// (for use_text, {id, type: "partial", stage} messages first, as the count goes on).
// Before that, it posts {type: "progress", stage, loaded, total} while it starts (loaded and
// total: bytes of the files fetched so far and in all), then {type: "ready", python, via} or
// {type: "failed", code, error}. It starts only when told where Pyodide's files, the package and the model are:
// by the start message, or sooner by the same message in its name (selfStart, below).
//
// Two ways to start (sitebuild/startup makes the files; docs/architecture.md, "The start-up in the page"):
//  - "snapshot": restore the language's memory snapshot, in which sim is imported, the model
//    loaded and the session open: no Python start-up, no import, no model parsing here.
//  - "wheel", the fallback when there is no snapshot, or it fails to restore or does not match
//    this page: start Pyodide and install sim's wheel with loadPackage (its sha256 checked
//    against our pyodide-lock.json), then open the session on the model.
// The wheel way starts on the trimmed, precompiled standard library and our lock. The snapshot
// holds every module of that stdlib already imported, and restoring it installs no package: it
// downloads neither the zip nor the lock. The snapshot is stored as a delta against the .wasm's
// data segments (snapshot-delta.js), read from a copy of the .wasm, which the worker fetches and
// compiles itself as soon as it starts while the snapshot comes in; the snapshot's decoding
// thread undoes the delta (snapshot-inflate.js). A .wasm that cannot run here (blocked or broken)
// fails at once on either way, with no fallback: the fallback needs the same .wasm.
// Every call that relies on Pyodide's or Emscripten's internals goes through pyodide-adapter.js.
//
// The start message's fields, the stages, the marks and the failure codes are the start-up
// contract's (sitebuild/startup/contract.py); the message carries the names, and the worker posts
// no other.

import { ByteMeter } from "./sim-worker-bytes.js";
import {
  installPackage, PYODIDE_FILES, restoreSnapshot, startPython, WasmFailure, wasmAddress, watchFetches, withPrecompiledWasm,
} from "./pyodide-adapter.js";
import { inflateElsewhere, inflateFetchedThere } from "./snapshot-inflate.js";
import { keepWasm, wasmOf } from "./wasm-inflate.js";

const PACKAGE = "specdec-sim";
// Pyodide's files by the names the loading message's sizes give them (the adapter's), among them
// the .wasm's two forms.
const { loader: LOADER, module: MODULE, wasm: WASM_PLAIN, wasmXz: WASM_XZ } = PYODIDE_FILES;
// The environment the snapshots were made with (sitebuild/startup/make_start_files.mjs), so that
// both ways give Python the same one.
const PYTHON_ENV = { PYTHONHASHSEED: "0", LANG: "C.UTF-8" };

let contract = null; // the names the start message allows: {stages, marks, failures, via}
let session = null;
let meter = null;
let stage = "download"; // then "start"; on the fallback "fallback", "package", "model"
let starting = null; // the one start, from the worker's name or from the start message
// The first of the start's requests that got no answer at all (a network error), for its failure.
let unanswered = null;
// The ports to the workers the page starts beside this one for the start message's `port` fields
// (the snapshot's decoder, `decoder`: sim-boot.js says why), each posted as {type: "port", name,
// port}, maybe before the start message (port null: the page could not start it). portTo(name):
// a promise of it.
const ports = new Map();
function portEntry(name) {
  if (!ports.has(name)) {
    let given;
    ports.set(name, { promise: new Promise((resolve) => { given = resolve; }), given });
  }
  return ports.get(name);
}
const portTo = (name) => portEntry(name).promise;
// The decoded .wasm, until the page asks to keep it ({type: "keep"}, once the site's service worker
// is registered: sim-start.js) or forever if it does not: {cacheName, url, bytes}, or null (kept
// already, or nowhere to keep it).
let keepable = null;
// When each part of the start was done (milliseconds since 1970, performance.timeOrigin's clock,
// so the page can place them on its own timeline): each posted as it is done ({type: "mark"}:
// a start that stalls can say how far it got) and all of them with "ready", for the benchmarks.
const timings = {};
const mark = (name) => {
  if (name in timings) return;
  timings[name] = performance.timeOrigin + performance.now();
  self.postMessage({ type: "mark", name: declared("marks", name), at: timings[name] });
};
mark("worker-evaluated");

// A name the contract declares (before the start message: any).
function declared(kind, name) {
  if (contract && !contract[kind].includes(name)) throw new Error(`the start contract has no ${kind} "${name}"`);
  return name;
}

class StartFailure extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

const said = (error) => String(error && error.message ? error.message : error);

// What a failed start is, by the contract's codes: with the network off, any request left
// unanswered means this language's files were not saved for offline use; a .wasm that failed;
// a failure the worker named; a request left unanswered with the network on; anything else.
function failureOf(error) {
  if (unanswered && self.navigator && navigator.onLine === false) return { code: "offline", error: `${unanswered}; ${said(error)}` };
  if (error instanceof WasmFailure) return { code: "wasm", error: said(error) };
  if (error instanceof StartFailure) return { code: error.code, error: said(error) };
  if (unanswered) return { code: "download", error: `${unanswered}; ${said(error)}` };
  return { code: "start", error: said(error) };
}

// Every progress message carries the stage and the bytes so far: stages only move forward.
function progress(next, extra) {
  if (next) stage = declared("stages", next);
  const bytes = meter ? { loaded: meter.loaded, total: meter.total } : {};
  self.postMessage({ type: "progress", stage, ...bytes, ...extra });
}

// The snapshot is stored as an .xz file (a file that is not one is read as it is: see
// snapshot-inflate.js, inflate), decoded on another thread where it can: the decoding worker the
// page started fetches it and decodes it as it comes in (inflateFetchedThere), so that its bytes
// wait for nothing on this thread, which decodes the .wasm and instantiates it meanwhile (relayed
// by this thread, they made a start at 20 Mbit/s over HTTP/2 go live 0.1 s later). Here it
// is fetched only where that worker is missing or could not give the bytes (inflateElsewhere then
// decodes it here after that worker failed, and on a worker it starts where the page started
// none), and the failure is this fetch's or this decoding's.
// Its bytes are counted as they arrive, there or here.
// Resolves with the snapshot's bytes. size: its own size (the start message's snapshotSize).
// wasmBytes: (a promise of) the .wasm's bytes, whose data image is XORed back in there too.
// decoder: a promise of the port to the decoding worker the page started, or null (none).
async function decodeSnapshot(url, meter, wasmBytes, decoder, size) {
  const count = (bytes) => meter.add("snapshot", bytes);
  const there = decoder ? await inflateFetchedThere(url, decoder, wasmBytes, size, count) : null;
  if (there) {
    mark("worker-snapshot-read");
    return there;
  }
  const response = await fetch(url, { cache: "force-cache" }); // its address carries its hash: any cached copy is right
  if (!response.ok) throw new Error(`${response.url}: HTTP ${response.status}`);
  const counted = response.body.pipeThrough(new TransformStream({
    transform(chunk, controller) {
      count(chunk.byteLength);
      controller.enqueue(chunk);
    },
  }));
  try {
    // Here, where the page's worker failed (not it again); where the page started none, on one
    // that inflateElsewhere starts.
    const all = await inflateElsewhere(counted, wasmBytes, decoder ? Promise.resolve(null) : null, size);
    mark("worker-snapshot-read");
    return all;
  } catch (error) {
    throw new Error(`the snapshot could not be read: ${said(error)}`);
  }
}

async function fetchText(url, meter, name) {
  let response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new StartFailure("download", `${url}: ${error.message}`);
  }
  if (!response.ok) throw new StartFailure("download", `${url}: HTTP ${response.status}`);
  const text = await response.text();
  meter.done(name);
  return text;
}

// python: {loadPyodide, loadModule, wasm, watch} (start's); bytes: a promise of the snapshot's
// bytes (decodeSnapshot, asked for at the start). Decoded on another thread as it comes in; Pyodide
// gets at once an array of the snapshot's own size (the start message's snapshotSize), which is
// filled once both are there, whether or not the .wasm is instantiated yet (the 31 MB copy then no
// longer follows the instantiation). (An array on a resizable buffer, which needs no size, was
// refused: Pyodide's restore decodes text from it, and TextDecoder takes no resizable buffer.)
// Without the size it waits for the bytes.
async function startFromSnapshot(start, python, bytes) {
  const size = start.snapshotSize;
  const memory = Number.isSafeInteger(size) && size > 0 ? Promise.resolve(new Uint8Array(size)) : bytes;
  memory.catch(() => {}); // loadPyodide awaits it and rejects with its error
  const filled = Promise.all([memory, bytes]).then(([target, decoded]) => {
    if (target === decoded) return;
    if (target.length !== decoded.length) throw new Error(`the snapshot has ${decoded.length} bytes, not the ${target.length} the page gives`);
    target.set(decoded);
  });
  filled.catch(() => {}); // awaited once the module is made
  const pyodide = await restoreSnapshot({
    ...python, memory, filled, mark,
    indexURL: start.pyodide, stdlibURL: start.stdlib, lockInfo: start.lockInfo, env: { ...PYTHON_ENV },
  });
  mark("worker-restored");
  const made = pyodide.globals.get("specdec_snapshot");
  const token = made && made.get("token");
  const lang = made && made.get("lang");
  if (made) made.destroy();
  if (token !== start.snapshotToken || lang !== start.lang) {
    throw new Error(`the snapshot (${lang}, ${token}) does not match this page (${start.lang}, ${start.snapshotToken})`);
  }
  return pyodide.globals.get("specdec_session");
}

async function startFromWheel(start, python) {
  const model = fetchText(start.model, meter, "model");
  model.catch(() => {});
  const pyodide = await startPython({
    ...python, indexURL: start.pyodide, stdlibURL: start.stdlib, lockURL: start.lock, env: { ...PYTHON_ENV },
  });
  progress("package");
  const refused = await installPackage(pyodide, PACKAGE);
  if (refused) throw new StartFailure("download", `could not install ${PACKAGE}: ${refused}`);
  progress("model");
  const sessionModule = pyodide.pyimport("sim.session");
  const opened = sessionModule.open_session(await model);
  sessionModule.destroy();
  return opened;
}

async function start(message) {
  // Once every byte is in, Python is starting: "download" becomes "start".
  meter = new ByteMeter(message.sizes || {}, (loaded, total) => {
    progress(stage === "download" && loaded >= total ? "start" : null);
  });
  const pyodideFiles = [LOADER, MODULE, WASM_XZ];
  const wheelFiles = [...pyodideFiles, "stdlib", "lock", "wheel", "model"];
  // The downloads made with the global fetch (the .wasm's, Pyodide's own), counted as they arrive;
  // a request left unanswered noted for the failure. The .wasm itself, where it comes instead of
  // the .xz (message.wasmPlain: wasm-inflate.js), counts as the .xz would: its bytes as they are
  // decoded, as their share of the .xz's (the host's brotli of it is within 4% of the .xz).
  const names = new Map([[message.wasm, WASM_XZ], [message.wasmPlain, WASM_PLAIN], [message.stdlib, "stdlib"], [message.lock, "lock"]]);
  watchFetches({
    name: (url) => names.get(url) || (url.endsWith(".whl") ? "wheel" : null),
    bytes: (name, n) => (name === WASM_PLAIN ? meter.addShare(WASM_XZ, WASM_PLAIN, n) : meter.add(name, n)),
    failed: (url, error) => { unanswered ||= `${url}: ${said(error)}`; },
  });
  const fromSnapshot = Boolean(message.snapshot && message.lockInfo);
  meter.plan(fromSnapshot ? [...pyodideFiles, "snapshot"] : wheelFiles);
  // The .wasm first: its decoding and compile then go on beside everything else (wasm-inflate.js).
  // Then the snapshot, downloaded and decoded by the page's decoding worker (decodeSnapshot).
  const wasm = wasmOf(wasmAddress(message.pyodide), message.wasm, message.wasmCache, message.wasmPlain, message.wasmKept === true);
  const snapshotBytes = fromSnapshot
    ? decodeSnapshot(message.snapshot, meter, wasm.bytes, message.decoder ? portTo("decoder") : null,
      message.snapshotSize)
    : null;
  if (snapshotBytes) snapshotBytes.catch(() => {}); // awaited in startFromSnapshot
  wasm.kept.then((kept) => kept && meter.done(WASM_XZ)); // none of its bytes to come
  const script = (url, name) => import(url).then((module) => {
    meter.done(name);
    return module;
  }, (error) => {
    throw new StartFailure("download", `${name}: ${said(error)}`);
  });
  const { loadPyodide } = await script(message.pyodideScript, LOADER);
  mark("worker-pyodide-mjs");
  // Not before the loader: parsing this 1.2 MB script would hold up loadPyodide, which starts the
  // wasm's download. Imported here to count its bytes; the adapter hands it to Pyodide.
  const asm = script(message.pyodideModule, MODULE);
  asm.then(() => mark("worker-asm-mjs"), () => {});
  wasm.module.then(() => mark("worker-wasm-compiled"), () => {});
  let via = "snapshot";
  await withPrecompiledWasm(wasm, async (watch) => {
    const python = { loadPyodide, loadModule: () => asm, wasm, watch };
    if (fromSnapshot) {
      try {
        session = await startFromSnapshot(message, python, snapshotBytes);
      } catch (error) {
        if (error instanceof WasmFailure) throw error;
        if (unanswered && navigator.onLine === false) throw error; // the fallback's files need the network too
        unanswered = null; // the snapshot's: what fails from here on is the fallback's
        const reason = said(error);
        console.warn(`specdec: starting Python from the snapshot failed (${reason}); installing the sim wheel instead`);
        progress("fallback", { reason });
        session = null;
      }
    }
    if (!session) {
      via = "wheel";
      meter.plan(wheelFiles);
      session = await startFromWheel(message, python);
    }
  });
  const python = JSON.parse(session.handle("python", "{}")).result;
  wasm.kept.then((kept) => {
    if (!kept && message.wasmCache) keepable = { cacheName: message.wasmCache, url: wasm.url, bytes: wasm.bytes };
  });
  mark("worker-ready");
  self.postMessage({ type: "ready", python, via: declared("via", via), timings });
}

// Start once, from whichever comes first: the worker's name or the start message (the same one).
async function startOnce(message) {
  if (starting) return;
  starting = message;
  contract = message.contract || null;
  mark("worker-start");
  try {
    await start(message);
  } catch (error) {
    const failure = failureOf(error);
    if (contract && !contract.failures.includes(failure.code)) Object.assign(failure, { code: "start", error: `${failure.code}: ${failure.error}` });
    self.postMessage({ type: "failed", ...failure });
  }
}

// The page puts the start message in the worker's name (sim-boot.js, workerOptions, says why):
// start from it now, as this module runs, instead of waiting for the message.
function selfStart() {
  let message = null;
  try {
    message = JSON.parse(self.name || "null");
  } catch {
    return; // a name that is not ours: wait for the message
  }
  if (message && message.type === "start") startOnce(message);
}

// Keep the decoded .wasm for later visits (wasm-inflate.js, keepWasm), once.
async function keep() {
  const given = keepable;
  keepable = null;
  if (!given) return;
  try {
    await keepWasm(given.cacheName, given.url, await given.bytes);
  } catch (error) {
    console.info(`specdec: the decoded .wasm is not kept (${said(error)})`);
  }
}

self.onmessage = async (event) => {
  if (event.data.type === "keep") {
    keep();
    return;
  }
  if (event.data.type === "port") {
    const { name, port } = event.data;
    portEntry(name).given(port);
    return;
  }
  const message = event.data;
  if (message.type === "start") {
    await startOnce(message);
    return;
  }
  const { id, command, args } = message;
  if (!session) {
    self.postMessage({ id, ok: false, error: "the worker's Python is not ready" });
    return;
  }
  // Counting a reader's text reports its stages (sim.counting.STAGES) while it runs.
  const partial = command === "use_text" ? (stage) => self.postMessage({ id, type: "partial", stage }) : undefined;
  try {
    const reply = JSON.parse(session.handle(command, JSON.stringify(args || {}), partial));
    self.postMessage({ id, ...reply });
  } catch (error) {
    self.postMessage({ id, ok: false, error: String(error) });
  }
};

selfStart();
