// The module Web Worker that runs the sim package in Pyodide, off the page's main thread.
// Protocol: the page posts {id, command, args}; the worker answers {id, ok, result | error}
// (for use_text, {id, type: "partial", stage} messages first, as the count goes on).
// Before that, it posts {type: "progress", stage, loaded, total} while it starts (loaded and
// total: bytes of the files fetched so far and in all), then {type: "ready", runtime, via} or
// {type: "failed", code, error}. It starts only when told where the runtime, package and model are:
// by the start message, or sooner by the same message in its name (selfStart, below).
//
// Two ways to start (sitebuild/runtime makes the files; docs/architecture.md, "The runtime in the page"):
//  - "snapshot": restore the language's memory snapshot, in which sim is imported, the model
//    loaded and the session open: no Python start-up, no import, no model parsing here.
//  - "wheel", the fallback when there is no snapshot, or it fails to restore or does not match
//    this page: start Pyodide and install sim's wheel with loadPackage (its sha256 checked
//    against our pyodide-lock.json), then open the session on the model.
// The wheel way starts on the trimmed, precompiled standard library (stdLibURL) and our lock. The
// snapshot holds every module of that stdlib already imported (the build imports them all before
// it saves it), and restoring it installs no package: it downloads neither the zip nor the lock
// (withoutDownloads). The snapshot is stored as a delta against the .wasm's data segments
// (snapshot-delta.js), read from a copy of the .wasm's response, which the worker fetches and
// compiles itself as soon as it starts (sim-worker-wasm.js) while the snapshot comes in; the
// snapshot's decoding thread undoes the delta (snapshot-inflate.js). A runtime that
// cannot run here (the .wasm blocked or broken) fails at once on either way, with no fallback:
// the fallback needs the same .wasm.

import { ByteMeter, countPyodideFetches } from "./sim-worker-bytes.js";
import { fetchWasm, withFetchedWasm } from "./sim-worker-wasm.js";
import { inflateElsewhere, snapshotSize } from "./snapshot-inflate.js";

const PACKAGE = "specdec-sim";
// The environment the snapshots were made with (sitebuild/runtime/make_runtime.mjs), so that
// both ways give Python the same one.
const PYTHON_ENV = { PYTHONHASHSEED: "0", LANG: "C.UTF-8" };

let session = null;
let meter = null;
let stage = "download"; // then "start"; on the fallback "fallback", "package", "model"
let starting = null; // the one start, from the worker's name or from the start message
// When each part of the start was done (milliseconds since 1970, performance.timeOrigin's clock,
// so the page can place them on its own timeline): each posted as it is done ({type: "mark"}:
// a start that stalls can say how far it got) and all of them with "ready", for the benchmarks.
const timings = {};
const mark = (name) => {
  if (name in timings) return;
  timings[name] = performance.timeOrigin + performance.now();
  self.postMessage({ type: "mark", name, at: timings[name] });
};
mark("worker-evaluated");

class StartFailure extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// Every progress message carries the stage and the bytes so far: stages only move forward.
function progress(next, extra) {
  if (next) stage = next;
  const bytes = meter ? { loaded: meter.loaded, total: meter.total } : {};
  self.postMessage({ type: "progress", stage, ...bytes, ...extra });
}

// The snapshot is stored as a Zstandard frame; a host that already decoded it (Content-Encoding)
// hands over the raw bytes, which start with the snapshot's own magic number instead.
// Its bytes are counted here as they arrive, and decoded on another thread where it can (snapshot-inflate.js).
// {size, bytes}: size resolves as soon as the first bytes are in, with the snapshot's own size
// from its frame header, or null; bytes with the snapshot.
// wasmBytes: (a promise of) the .wasm's bytes, whose data image is XORed back in there too.
function decodeSnapshot(request, meter, wasmBytes) {
  const counted = request.then((response) => {
    if (!response.ok) throw new Error(`${response.url}: HTTP ${response.status}`);
    return response.body.pipeThrough(new TransformStream({
      transform(chunk, controller) {
        meter.add("snapshot", chunk.byteLength);
        controller.enqueue(chunk);
      },
    })).tee();
  });
  const size = counted.then(([probe]) => firstChunkSize(probe));
  const bytes = counted.then(async ([, data]) => {
    try {
      const all = await inflateElsewhere(data, wasmBytes);
      mark("worker-snapshot-read");
      return all;
    } catch (error) {
      throw new Error(`the snapshot could not be read: ${error && error.message || error}`);
    }
  });
  size.catch(() => {});
  bytes.catch(() => {}); // awaited where it is used
  return { size, bytes };
}

// The size in the frame header at the start of the stream's first chunk, or null.
async function firstChunkSize(stream) {
  const reader = stream.getReader();
  const { value } = await reader.read();
  reader.cancel(); // the other branch goes on
  return snapshotSize(value);
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

// Pyodide reports a failed WebAssembly instantiation (a blocked or broken pyodide.asm.wasm) only
// with console.warn("wasm instantiation failed!") and the error, and then waits forever: turn
// that warning into a failure the page can report at once.
function wasmFailure() {
  let restore;
  const failed = new Promise((_, reject) => {
    const warn = console.warn;
    let detail = null;
    console.warn = (...args) => {
      warn.apply(console, args);
      const line = args.map((a) => (a && a.message) || String(a)).join(" ");
      if (detail !== null) {
        detail += " " + line;
      } else if (line.includes("wasm instantiation failed")) {
        detail = line;
        setTimeout(() => reject(new StartFailure("wasm", detail)), 0); // the error follows in the next warning
      }
    };
    restore = () => (console.warn = warn);
  });
  return { failed, restore };
}

// loadPyodide(options), failing at once if the wasm cannot be instantiated.
async function loadWatched(loadPyodide, options) {
  const watch = wasmFailure();
  try {
    return await Promise.race([loadPyodide(options), watch.failed]);
  } finally {
    watch.restore();
  }
}

function baseOptions(start) {
  return { indexURL: start.pyodideURL, stdLibURL: start.stdlibURL, lockFileURL: start.lockURL, env: { ...PYTHON_ENV } };
}

// An empty zip archive (its end-of-central-directory record alone): what Pyodide writes as the
// stdlib on the snapshot path, where every stdlib module is imported already.
const EMPTY_ZIP = new Uint8Array([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)]);

// The options of a snapshot start: the stdlib is answered here with the empty zip (loadPyodide
// fetches stdLibURL itself), the lock is given as its info alone (Pyodide checks its ABI; no
// package is ever installed on this path). run(options) is awaited with fetch so answered.
async function withoutDownloads(start, run) {
  const stdlib = new URL(start.stdlibURL, self.location.href).href;
  const realFetch = self.fetch;
  self.fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input, self.location.href).href;
    return url === stdlib ? Promise.resolve(new Response(EMPTY_ZIP)) : realFetch(input, init);
  };
  const { lockFileURL, ...options } = baseOptions(start);
  try {
    return await run({ ...options, lockFileContents: { info: start.lockInfo, packages: {} } });
  } finally {
    self.fetch = realFetch;
  }
}

async function startFromSnapshot(start, loadPyodide, asm, request, meter, wasmBytes) {
  // Decoded on another thread once it is in. loadPyodide waits for _loadSnapshot before it runs
  // Pyodide's script and instantiates the wasm (it sizes the heap from it): it gets at once an
  // array of the snapshot's size, from the frame header, which is filled once the module is made
  // (below), so that all that goes on while the snapshot comes in and is decoded. (An array on a
  // resizable buffer, which needs no size, was refused: Pyodide's restore decodes text from it,
  // and TextDecoder takes no resizable buffer.) Without the size it waits for the bytes.
  const snapshot = decodeSnapshot(request, meter, wasmBytes);
  const early = snapshot.size.then((size) => (size ? new Uint8Array(size) : snapshot.bytes));
  early.catch(() => {}); // loadPyodide awaits it and rejects with its error
  // The snapshot, its delta undone on the decoding thread, goes into that array as soon as both
  // are there, whether or not the .wasm is instantiated yet: the copy (31 MB, 15-25 ms) is then
  // no longer the step after the instantiation.
  const filled = Promise.all([early, snapshot.bytes]).then(([target, bytes]) => {
    if (target === bytes) return;
    if (target.length !== bytes.length) throw new Error(`the snapshot has ${bytes.length} bytes, not the ${target.length} its header says`);
    target.set(bytes);
  });
  filled.catch(() => {}); // awaited once the module is made
  const pyodide = await withoutDownloads(start, (options) => loadWatched(loadPyodide, {
    ...options,
    _loadSnapshot: early,
    // Pyodide sizes the heap from the snapshot, but a heap over 30 MiB still fails to restore
    // ("offset is out of bounds", Pyodide issue 6254): grow it first.
    createPyodideModule: async (settings) => {
      const module = await (await asm).default(settings);
      mark("worker-wasm-instantiated");
      await filled;
      const bytes = await early; // the very array loadPyodide restores once this returns
      mark("worker-delta-undone");
      if (module.HEAP8.length < bytes.length) module.growMemory(bytes.length);
      return module;
    },
  }));
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

async function startFromWheel(start, loadPyodide, meter) {
  const model = fetchText(start.modelURL, meter, "model");
  model.catch(() => {});
  const pyodide = await loadWatched(loadPyodide, baseOptions(start));
  progress("package");
  const errors = [];
  await pyodide.loadPackage(PACKAGE, { checkIntegrity: true, messageCallback: () => {}, errorCallback: (e) => errors.push(e) });
  if (!pyodide.loadedPackages[PACKAGE]) {
    throw new StartFailure("download", `could not install ${PACKAGE}: ${errors.join("; ") || "unknown error"}`);
  }
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
  const runtimeFiles = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm"];
  const wheelFiles = [...runtimeFiles, "stdlib", "lock", "wheel", "model"];
  // The snapshot's download starts first (its address carries its hash: any cached copy is right).
  const snapshotRequest = message.snapshotURL && message.lockInfo
    ? fetch(message.snapshotURL, { cache: "force-cache" }) : null;
  if (snapshotRequest) snapshotRequest.catch(() => {}); // a failure is handled where it is awaited
  meter.plan(snapshotRequest ? [...runtimeFiles, "snapshot"] : wheelFiles);
  countPyodideFetches(meter, new Map([
    [new URL("pyodide.asm.wasm", message.pyodideURL).href, "pyodide.asm.wasm"],
    [message.stdlibURL, "stdlib"],
    [message.lockURL, "lock"],
  ]));
  // The .wasm first: its compile then goes on beside everything else (sim-worker-wasm.js).
  const wasm = fetchWasm(new URL("pyodide.asm.wasm", message.pyodideURL).href);
  const script = (name) => import(new URL(name, message.pyodideURL).href).then((module) => {
    meter.done(name);
    return module;
  }, (error) => {
    throw new StartFailure("download", `${name}: ${error && error.message || error}`);
  });
  const { loadPyodide } = await script("pyodide.mjs");
  mark("worker-pyodide-mjs");
  // Not before pyodide.mjs: parsing this 1.2 MB script would hold up loadPyodide, which starts the
  // wasm's download. Imported here (the same module loadPyodide would import) to count its bytes
  // and to hand it to createPyodideModule.
  const asm = script("pyodide.asm.mjs");
  asm.then(() => mark("worker-asm-mjs"), () => {});
  wasm.module.then(() => mark("worker-wasm-compiled"), () => {});
  let via = "snapshot";
  await withFetchedWasm(wasm, async () => {
    if (snapshotRequest) {
      try {
        session = await startFromSnapshot(message, loadPyodide, asm, snapshotRequest, meter, wasm.bytes);
      } catch (error) {
        if (error instanceof StartFailure && error.code === "wasm") throw error;
        const reason = String(error && error.message || error);
        console.warn(`specdec: starting Python from the snapshot failed (${reason}); installing the sim wheel instead`);
        progress("fallback", { reason });
        session = null;
      }
    }
    if (!session) {
      via = "wheel";
      meter.plan(wheelFiles);
      session = await startFromWheel(message, loadPyodide, meter);
    }
  });
  const runtime = JSON.parse(session.handle("runtime", "{}")).result;
  mark("worker-ready");
  self.postMessage({ type: "ready", runtime, via, timings });
}

// Start once, from whichever comes first: the worker's name or the start message (the same one).
async function startOnce(message) {
  if (starting) return;
  starting = message;
  mark("worker-start");
  try {
    await start(message);
  } catch (error) {
    self.postMessage({ type: "failed", code: error.code || "start", error: String(error && error.message ? error.message : error) });
  }
}

// The client puts the start message in the worker's name (sim-client.js says why): start from it
// now, as this module runs, instead of waiting for the message.
function selfStart() {
  let message = null;
  try {
    message = JSON.parse(self.name || "null");
  } catch {
    return; // a name that is not ours: wait for the message
  }
  if (message && message.type === "start") startOnce(message);
}

self.onmessage = async (event) => {
  const message = event.data;
  if (message.type === "start") {
    await startOnce(message);
    return;
  }
  const { id, command, args } = message;
  if (!session) {
    self.postMessage({ id, ok: false, error: "the Python runtime is not ready" });
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
