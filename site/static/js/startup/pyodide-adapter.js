// The page's one door to Pyodide's and Emscripten's internals, and the one place a worker's globals
// are patched (each at most once, the first time it is needed). Pyodide's memory snapshots are
// private (its issues 6418, 6254, 5729), so a new Pyodide may change any of this:
// docs/upgrading-pyodide.md lists each internal, the function here that uses it and the test
// that fails if it changes, and `./dev check-pyodide VERSION` runs them against another version.
//
// Used by the sim worker (sim-worker.js), by the snapshot's decoding (snapshot-delta.js) and,
// through snapshot-delta.js, by the build in Node
// (sitebuild/startup/make_start_files.mjs). Nothing happens on import: no global is touched until a
// function below needs it.

// Every internal used here, by the name that appears in the code, with the function that uses it.
// tests/sitebuild/test_pyodide_adapter.py reads this list (and the build adapter's) and fails if
// any other source file names one.
export const INTERNALS = {
  "_loadSnapshot": "restoreSnapshot: loadPyodide's private option, the memory to restore",
  "createPyodideModule": "restoreSnapshot, startPython: loadPyodide's private option, Emscripten's module factory",
  "lockFileContents": "restoreSnapshot: the lock given as data (its info alone), so none is downloaded",
  "HEAP8": "restoreSnapshot: Emscripten's heap, to compare its size with the snapshot's",
  "growMemory": "restoreSnapshot: Emscripten's memory growth (Pyodide issue 6254: a heap over 30 MiB fails to restore)",
  "instantiateStreaming": "withPrecompiledWasm: Pyodide instantiates its .wasm with it, from its own fetch of indexURL + the .wasm's name",
  "0x706e7300": "snapshotMemory: the first word of Pyodide's memory snapshot; the second is where the memory starts",
};

// --- Pyodide's files ----------------------------------------------------------------------------

// Pyodide's file layout, by what each file is: its loader (loadPyodide), Emscripten's module script
// and the .wasm, each by its name in Pyodide's folder (indexURL); wasmXz, the .xz stream of the
// .wasm the build adds beside it (wasm-inflate.js reads it). Everything else asks for them here:
// the worker (the names its loading message counts the files under), the build in Node (the build
// adapter re-exports them) and the build in Python (sitebuild/assets.py, pyodide_files).
export const PYODIDE_FILES = Object.freeze({
  loader: "pyodide.mjs",
  module: "pyodide.asm.mjs",
  wasm: "pyodide.asm.wasm",
  wasmXz: "pyodide.asm.wasm.xz",
});

// --- Pyodide's memory snapshot -------------------------------------------------------------------

const SNAPSHOT_MAGIC = 0x706e7300;

// The linear memory inside a Pyodide memory snapshot (a view of the same bytes): the snapshot's
// first word is Pyodide's magic number, its second the offset where the memory starts, and the
// memory is the wasm's linear memory from address 0. Throws for bytes that are not a snapshot.
export function snapshotMemory(snapshot) {
  if (snapshot.byteLength < 8) throw new Error("the snapshot has an invalid magic number");
  const words = new DataView(snapshot.buffer, snapshot.byteOffset, 8);
  if (words.getUint32(0, true) !== SNAPSHOT_MAGIC) throw new Error("the snapshot has an invalid magic number");
  return snapshot.subarray(words.getUint32(4, true));
}

// --- the one patch of fetch ----------------------------------------------------------------------

// Pyodide fetches its own files (the .wasm, the stdlib, the lock, the wheel) with the global fetch.
// The one patch of fetch answers those requests: an address given an answer (answerFetch) gets it;
// every other request goes to the network, and what the watchers (watchFetches) ask to hear of it
// they hear: its bytes as they arrive (a copy of the body is read, so the caller keeps the real
// response and Pyodide still compiles the .wasm as it streams), and a request that got no answer
// at all.
let fetches = null;

// An address made absolute against this global's own (a worker's script; none in Node).
const absolute = (url) => new URL(url, globalThis.location ? globalThis.location.href : undefined).href;

function fetchRouter() {
  if (fetches) return fetches;
  const realFetch = globalThis.fetch.bind(globalThis);
  fetches = { answers: new Map(), watchers: new Set() };
  globalThis.fetch = async (input, init) => {
    const url = absolute(input instanceof Request ? input.url : input);
    const answer = fetches.answers.get(url);
    if (answer) return answer();
    let response;
    try {
      response = await realFetch(input, init);
    } catch (error) {
      // A request its caller dropped (an AbortSignal) was not left unanswered.
      const dropped = init && init.signal && init.signal.aborted;
      if (!dropped) for (const watcher of fetches.watchers) watcher.failed && watcher.failed(url, error);
      throw error;
    }
    for (const watcher of fetches.watchers) {
      const name = watcher.name(url);
      if (name && response.ok && response.body) countBody(response.clone().body, (bytes) => watcher.bytes(name, bytes)).catch(() => {});
    }
    return response;
  };
  return fetches;
}

// Until the returned function is called, a fetch of `url` (absolute) is answered by answer().
export function answerFetch(url, answer) {
  const { answers } = fetchRouter();
  answers.set(url, answer);
  return () => answers.get(url) === answer && answers.delete(url);
}

// watcher: {name(url) -> a name or null, bytes(name, n), failed(url, error)?}; returns the undo.
export function watchFetches(watcher) {
  const { watchers } = fetchRouter();
  watchers.add(watcher);
  return () => watchers.delete(watcher);
}

async function countBody(body, onBytes) {
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    onBytes(value.byteLength);
  }
}

// --- the .wasm, compiled as soon as the worker starts --------------------------------------------

// Pyodide fetches its .wasm when loadPyodide() starts, but compiles it only once Emscripten's
// 1.2 MB module script has loaded and run up to the instantiation: on a repeat visit the .wasm came
// from the cache at once and then waited 0.7 s for that script. So the worker compiles it itself
// as it starts (wasm-inflate.js, wasmOf: from an .xz stream of it, which Pyodide could not read),
// and Pyodide's own request and instantiation are answered with that module (withPrecompiledWasm).

// The address Pyodide fetches its .wasm from: its folder (indexURL) and the file's name.
export const wasmAddress = (indexURL) => new URL(PYODIDE_FILES.wasm, indexURL).href;

// A .wasm that did not load, compile or instantiate: Pyodide itself would only say so with a
// console.warn and then wait forever.
export class WasmFailure extends Error {}

// The one patch of WebAssembly.instantiateStreaming: a source that is one of our placeholders is
// instantiated from the module compiled for it; any other goes to the browser's own.
let placeholders = null;

function instantiationRouter() {
  if (placeholders) return placeholders;
  placeholders = new Map();
  const realInstantiate = WebAssembly.instantiateStreaming;
  WebAssembly.instantiateStreaming = async (source, imports) => {
    const response = await source;
    const entry = placeholders.get(response);
    if (!entry) return realInstantiate.call(WebAssembly, response, imports);
    try {
      const module = await entry.wasm.module;
      return { module, instance: await WebAssembly.instantiate(module, imports) };
    } catch (error) {
      entry.fail(error);
      throw error;
    }
  };
  return placeholders;
}

// run(watch) with Pyodide's fetch of the .wasm answered by a placeholder and its instantiation of
// that placeholder by an instance of wasm.module. wasm: {url, source, module} (wasm-inflate.js,
// wasmOf: url is Pyodide's address for it, source the file a failure names). watch(promise)
// rejects with a WasmFailure as soon as the .wasm fails to load, compile or instantiate, else
// settles as the promise does.
export async function withPrecompiledWasm(wasm, run) {
  const placeholder = new Response(new Uint8Array(0), { headers: { "Content-Type": "application/wasm" } });
  let fail;
  const failed = new Promise((_, reject) => {
    fail = (error) => reject(new WasmFailure(`${wasm.source}: ${error && error.message || error}`));
  });
  failed.catch(() => {});
  wasm.module.catch(fail);
  const routes = instantiationRouter();
  routes.set(placeholder, { wasm, fail });
  const undo = answerFetch(wasm.url, () => Promise.resolve(placeholder));
  try {
    return await run((promise) => Promise.race([promise, failed]));
  } finally {
    undo();
    routes.delete(placeholder);
  }
}

// --- starting Python -----------------------------------------------------------------------------

// An empty zip archive (its end-of-central-directory record alone): the stdlib Pyodide writes on the
// snapshot path, where every module of it is imported already.
const EMPTY_ZIP = new Uint8Array([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)]);

// Pyodide restored from a memory snapshot. loadPyodide waits for the snapshot's array before it
// runs Emscripten's module and instantiates the .wasm (it sizes the heap from it): `memory` is a
// promise of the array Pyodide restores from, `filled` resolves once the snapshot is in it, so the
// module is made while the snapshot still comes in. The stdlib is answered with an empty zip and
// the lock given as its info alone: nothing else is downloaded. loadModule() imports Emscripten's
// module script (the worker's own import of it: the same module). marks(name) is told each step.
export async function restoreSnapshot({ loadPyodide, loadModule, wasm, watch, memory, filled, indexURL, stdlibURL, lockInfo, env, mark }) {
  const undo = answerFetch(absolute(stdlibURL), () => Promise.resolve(new Response(EMPTY_ZIP)));
  try {
    return await watch(loadPyodide({
      indexURL, stdLibURL: stdlibURL, env,
      lockFileContents: { info: lockInfo, packages: {} },
      _loadSnapshot: memory,
      createPyodideModule: async (settings) => {
        const module = await (await loadModule()).default(settings);
        mark("worker-wasm-instantiated");
        await filled;
        const bytes = await memory; // the very array loadPyodide restores once this returns
        mark("worker-delta-undone");
        if (module.HEAP8.length < bytes.length) module.growMemory(bytes.length);
        return module;
      },
    }));
  } finally {
    undo();
  }
}

// Pyodide started the ordinary way, on the given stdlib and lock (the fallback).
export async function startPython({ loadPyodide, loadModule, watch, indexURL, stdlibURL, lockURL, env }) {
  return watch(loadPyodide({
    indexURL, stdLibURL: stdlibURL, lockFileURL: lockURL, env,
    createPyodideModule: async (settings) => (await loadModule()).default(settings),
  }));
}

// The package installed from our lock (its sha256 checked): null, or why it was not.
export async function installPackage(pyodide, name) {
  const errors = [];
  await pyodide.loadPackage(name, { checkIntegrity: true, messageCallback: () => {}, errorCallback: (e) => errors.push(e) });
  return pyodide.loadedPackages[name] ? null : errors.join("; ") || "unknown error";
}
