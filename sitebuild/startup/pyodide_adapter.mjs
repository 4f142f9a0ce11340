// The build's one door to Pyodide's and Emscripten's internals (the page's is
// site/static/js/startup/pyodide-adapter.js; the Python run inside Pyodide, sitebuild/startup/in_pyodide.py,
// holds the CPython internals). make_start_files.mjs calls these to make the snapshots; the build's
// Python asks it for Pyodide's file layout (run as a script: sitebuild/assets.py, pyodide_files). Pyodide's
// memory snapshots are private (its issues 6418, 6254, 5729), so a new Pyodide may change any of
// this: docs/upgrading-pyodide.md lists each internal, the function here that uses it and the test
// that fails if it changes, and `./dev check-pyodide VERSION` runs them against another version.
// An error thrown here names the function, so that a failed build says which part of the adapter
// a new Pyodide broke.

import nodeCrypto from "node:crypto";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { PYODIDE_FILES } from "../../site/static/js/startup/pyodide-adapter.js";

// Every internal used here, by the name that appears in the code, with the function that uses it.
// tests/sitebuild/test_pyodide_adapter.py reads this list and fails if any other source file names one.
export const INTERNALS = {
  "randomFillSync": "makeDeterministic: Emscripten's random device in Node reads its bytes with it",
  "_makeSnapshot": "startPyodide: loadPyodide's private option, a Pyodide that can save its memory",
  "_sysExecutable": "startPyodide: loadPyodide's private option, sys.executable (the host's path otherwise)",
  "makeMemorySnapshot": "saveMemory: Pyodide's experimental API, the memory as a snapshot",
  "path_importer_cache": "unpackWheel: CPython's cache of directory listings, dropped after the wheel is unpacked",
  "_clear_type_cache": "saveMemory: CPython's method cache emptied (4,096 entries, 18 kB of gzip; refilled as it is used)",
  "_module": "saveMemory: Pyodide's Emscripten module, whose heap is cleared before the memory is saved",
  "___heap_base": "zeroFreeChunks: where Emscripten's heap starts",
  "_emscripten_get_sbrk_ptr": "zeroFreeChunks: where the heap's break is kept",
  "HEAPU32": "zeroFreeChunks: Emscripten's heap, read by words (dlmalloc's chunk heads)",
  "HEAPU8": "zeroFreeChunks: Emscripten's heap, by bytes (the free chunks zeroed)",
};

// Pyodide's file layout (the page adapter owns it), and what the build adds to it: the name each of
// Pyodide's two scripts has in a course package (`lms`), where an LMS serves .mjs as
// octet-stream and refuses it as a module. The new name keeps the old one inside it: Pyodide tells
// its own stack frames by the text of its module's file name (pyodide.asm.mjs) in theirs.
export { PYODIDE_FILES };
export const LMS_NAMES = Object.freeze(Object.fromEntries(
  [PYODIDE_FILES.loader, PYODIDE_FILES.module].map((name) => [name, `${name}.js`])));

// Pyodide's loader from its folder in Node (the npm package's, or a copy of it).
export const importPyodide = (folder) => import(pathToFileURL(path.join(folder, PYODIDE_FILES.loader)).href);

// Pyodide's .wasm in that folder.
export const wasmPath = (folder) => path.join(folder, PYODIDE_FILES.wasm);

// The clock and the random bytes Emscripten reads in this thread, made the same on every run, so
// that a snapshot holds nothing of when or where it was made: performance.now counts calls,
// Date.now stands still, and both of Node's sources of random bytes (crypto.getRandomValues, and
// the node:crypto function Emscripten's random device calls) give a seeded stream. Called once per
// thread, before Pyodide is loaded.
export function makeDeterministic() {
  let ticks = 0;
  performance.now = () => (ticks += 1);
  Date.now = () => 1_700_000_000_000;
  let state = 0x9e3779b9;
  const fill = (array) => {
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    for (let i = 0; i < bytes.length; i++) {
      state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
      bytes[i] = state >>> 24;
    }
    return array;
  };
  Object.defineProperty(globalThis.crypto, "getRandomValues", { value: fill, configurable: true });
  nodeCrypto.randomFillSync = fill;
}

class AdapterError extends Error {
  constructor(where, message) {
    super(`pyodide_adapter.${where}: ${message}`);
  }
}

// Pyodide in Node for the build: env the page's, sys.executable fixed (neither the host's path nor
// anything else of the host leaks into a snapshot); forSnapshot: a Pyodide whose memory can be
// saved (saveMemory).
export function startPyodide(loadPyodide, { indexURL, lockFileURL, stdLibURL, env, sysExecutable, forSnapshot, stderr }) {
  return loadPyodide({
    indexURL, lockFileURL, env,
    ...(stdLibURL ? { stdLibURL } : {}),
    _sysExecutable: sysExecutable,
    ...(forSnapshot ? { _makeSnapshot: true } : {}),
    stdout: () => {},
    stderr,
  });
}

// The wheel's files unpacked into Python's working directory (on sys.path), as the page's snapshot
// has them: loadPackage would also record the package's name in a JavaScript object that a
// snapshot must find empty. Then Python's cache of directory listings is dropped: the build's
// clock stands still (make_start_files.mjs, makeDeterministic), so a folder listed before the unpack
// keeps its modification time and its cached listing, without the wheel's files. Pyodide 315
// lists the working directory as it starts, and `import sim` then failed ("No module named
// 'sim'"); Pyodide 314 listed it only later.
// `top`: the wheel's top-level package, which must then be found where Python imports from (asked
// of the import system's path finder, which imports nothing: the survey lists what is imported).
export function unpackWheel(pyodide, bytes, top) {
  pyodide.unpackArchive(bytes, "wheel");
  const found = pyodide.runPython(`
import sys
sys.path_importer_cache.clear()
[f for f in sys.meta_path if getattr(f, "__name__", "") == "PathFinder"][0].find_spec(${JSON.stringify(top)}) is not None
`);
  if (!found) throw new AdapterError("unpackWheel", `the wheel's ${top} is not found on sys.path after unpackArchive (where did Pyodide put it?)`);
}

// The memory of a Pyodide started with forSnapshot: its garbage collected, CPython's method cache
// emptied and the free chunks of its heap zeroed first.
export function saveMemory(pyodide) {
  pyodide.runPython("import gc, sys\ngc.collect()\nsys._clear_type_cache()");
  const module = pyodide._module;
  if (!module) throw new AdapterError("saveMemory", "Pyodide has no _module: its Emscripten module is not where it was");
  const cleared = zeroFreeChunks(module);
  if (typeof pyodide.makeMemorySnapshot !== "function") throw new AdapterError("saveMemory", "Pyodide has no makeMemorySnapshot()");
  return { memory: pyodide.makeMemorySnapshot(), cleared };
}

// Zeroes the insides of the free chunks of Pyodide's heap before its memory snapshot is taken.
//
// Pyodide's Python allocates with Emscripten's dlmalloc (no pymalloc), and a chunk that is freed
// keeps what it held: the start-up's and the model's garbage (3.2 MB is free after Pyodide starts,
// about 1-2 MB when the session is open) went into every snapshot as bytes gzip cannot squeeze.
// Zeroed, they cost next to nothing. dlmalloc reads nothing in a free chunk past its links (calloc
// clears what it hands out), so only the bytes past them are zeroed.
//
// dlmalloc's chunks lie end to end from the heap's base to the break (sbrk): each starts with the
// previous chunk's size (valid when that one is free) and its own head (size | C-in-use 2 |
// P-in-use 1); a free chunk holds its bin links (fd, bk; from 256 bytes on also two children, the
// parent and the bin's index: 24 bytes past the head) and its size again at its end, which is the
// next chunk's first word. The top chunk is followed by a fake chunk of its own size's head only,
// ending at the break. The walk checks that every chunk fits and that the heap ends where the break
// is; a heap laid out any other way (another allocator, a new Pyodide) fails the build instead of
// being written over.
const HEAD = 4; // the head's offset in a chunk
const SMALL_LINKS = 16; // prev_foot, head, fd, bk
const TREE_LINKS = 32; // and child[0], child[1], parent, index
const MIN_LARGE_SIZE = 256;

export function zeroFreeChunks(module) {
  const fail = (message) => { throw new AdapterError("zeroFreeChunks", message); };
  if (!module.HEAPU32 || !module.HEAPU8 || typeof module._emscripten_get_sbrk_ptr !== "function") {
    fail("Emscripten's module has no HEAPU32, HEAPU8 or _emscripten_get_sbrk_ptr");
  }
  const words = module.HEAPU32;
  const start = module.___heap_base;
  const end = words[module._emscripten_get_sbrk_ptr() >> 2];
  if (!Number.isInteger(start) || !Number.isInteger(end) || start % 8 || end <= start) {
    fail(`the heap to clear is not dlmalloc's: base ${start}, break ${end}`);
  }
  let chunk = start;
  let chunks = 0;
  let free = 0;
  let zeroed = 0;
  while (chunk !== end) {
    const head = words[(chunk + HEAD) >> 2];
    const size = head & ~7;
    const next = chunk + size;
    if (size < 16 || next > end) {
      fail(`the heap to clear is not dlmalloc's: chunk at ${chunk} of ${size} bytes, the break at ${end}`);
    }
    if (next === end) { // the fake chunk after the top: its head is its size, nothing else
      if (head !== size) fail(`the heap to clear does not end with dlmalloc's top (head ${head} at ${chunk})`);
      break;
    }
    if (!(head & 2)) {
      if (words[(next + HEAD) >> 2] & 1) fail(`the heap to clear has a free chunk at ${chunk} that its next chunk calls in use`);
      const links = size >= MIN_LARGE_SIZE ? TREE_LINKS : SMALL_LINKS;
      if (size > links) {
        module.HEAPU8.fill(0, chunk + links, next);
        zeroed += size - links;
      }
      free += size;
    }
    chunks += 1;
    chunk = next;
  }
  return { heap: end - start, chunks, free, zeroed };
}

// Run as a script: Pyodide's file layout and the course package's names, as JSON, for the build's
// Python (sitebuild/assets.py, pyodide_files).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(JSON.stringify({ ...PYODIDE_FILES, lms: LMS_NAMES }));
}
