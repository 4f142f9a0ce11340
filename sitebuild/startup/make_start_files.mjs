// Makes the page's Pyodide start files in Node: the trimmed precompiled standard library and
// one memory snapshot per language. Called by sitebuild/startup/maker.py with a job file:
//   node make_start_files.mjs JOB.json      (writes a JSON report to job.report; exit 1 on failure)
// Job: {pyodide, lock, package, wheel, helper, imports, simModules, models: {lang: path},
//       measured: {lang: path} (the readout tables), stdlibOut, snapshots: {lang: path}, token, report}
//
// 1. Survey: Pyodide with its full stdlib carries out every import sim names, runs every session
//    command once (the modules loaded by then are the session's), installs the sim wheel through
//    the lock file (as the page's fallback does), then compiles the stdlib modules now loaded to
//    .pyc: the trimmed stdlib.
// 2. Per language, Pyodide starts on that trimmed stdlib, installs the same wheel,
//    imports everything again (a module missing from the trimmed stdlib fails here, at build
//    time) and every module of the trimmed stdlib that the survey's session imported (the page
//    restores the snapshot without downloading the zip; only the fallback installs a wheel), opens the session on the language's model (with its readout table: every readout
//    measurement, made by the build in CPython) and saves its memory.
//    The free chunks of its heap are zeroed first (pyodide_adapter.mjs, saveMemory): freed memory keeps its garbage.
//    Each is stored as a delta against the wasm's data segments (site/static/js/startup/snapshot-delta.js),
//    without its long runs of zeros (site/static/js/startup/snapshot-spans.js).
//    The languages' snapshots are made side by side, each in a worker thread of its own (its own
//    Pyodide): on two cores the second costs no wall time.
// Snapshots hold what made them, so the making is made deterministic: a fixed clock, a counter
// for performance.now, seeded random bytes, PYTHONHASHSEED=0, and fixed env and sys.executable.
// Every use of Pyodide's or Emscripten's internals is pyodide_adapter.mjs's.
import fs from "node:fs";
import path from "node:path";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { dataImage, xorDataImage } from "../../site/static/js/startup/snapshot-delta.js";
import { packSpans } from "../../site/static/js/startup/snapshot-spans.js";
import {
  importPyodide, makeDeterministic, saveMemory, startPyodide as start, unpackWheel, wasmPath,
} from "./pyodide_adapter.mjs";

// What the reader's worker would have: no host paths or host locale leak into the snapshot.
const ENV = { PYTHONHASHSEED: "0", LANG: "C.UTF-8", HOME: "/home/pyodide" };
const SYS_EXECUTABLE = "/usr/bin/python";

function startPyodide(loadPyodide, job, { stdLibURL, forSnapshot } = {}) {
  return start(loadPyodide, {
    indexURL: job.pyodide, lockFileURL: job.lock, stdLibURL, forSnapshot, env: { ...ENV }, sysExecutable: SYS_EXECUTABLE,
    stderr: (line) => process.stderr.write(line + "\n"),
  });
}

function runHelper(pyodide, job) {
  const namespace = pyodide.globals.get("dict")();
  pyodide.runPython(fs.readFileSync(job.helper, "utf8"), { globals: namespace, filename: "in_pyodide.py" });
  return namespace;
}

async function survey(loadPyodide, job) {
  const pyodide = await startPyodide(loadPyodide, job);
  // sim first, unpacked as the snapshots have it: what is imported by then is what the page's
  // session needs (the snapshots import it all); then the fallback's install through the lock,
  // whose own modules (tarfile, email, importlib.metadata) only the zip needs.
  unpackWheel(pyodide, new Uint8Array(fs.readFileSync(job.wheel)), job.simModules[0]);
  const helper = runHelper(pyodide, job);
  try {
    helper.get("import_named")(pyodide.toPy(job.imports));
    helper.get("import_named")(pyodide.toPy(job.simModules.map((name) => [name, []])));
  } catch (error) {
    throw new Error(`sim imports what Pyodide cannot load: ${lastLine(error)}`);
  }
  helper.get("exercise")(pyodide.toPy(Object.values(job.models).map((p) => fs.readFileSync(p, "utf8"))));
  const sessionFiles = helper.get("stdlib_files")().toJs();
  const errors = [];
  await pyodide.loadPackage(job.package, { messageCallback: () => {}, errorCallback: (e) => errors.push(e), checkIntegrity: true });
  if (!pyodide.loadedPackages[job.package]) throw new Error(`loadPackage could not install ${job.package}: ${errors.join("; ")}`);
  const files = helper.get("stdlib_files")().toJs();
  const inFs = "/tmp/specdec_stdlib.zip";
  const info = helper.get("write_pyc_zip")(pyodide.toPy(files), inFs).toJs({ dict_converter: Object.fromEntries });
  fs.writeFileSync(job.stdlibOut, pyodide.FS.readFile(inFs));
  return { ...info, files, sessionFiles };
}

async function snapshot(loadPyodide, job, lang, stdlibFiles) {
  const pyodide = await startPyodide(loadPyodide, job, { stdLibURL: job.stdlibOut, forSnapshot: true });
  // The same wheel, unpacked rather than loadPackage'd (pyodide_adapter.mjs, unpackWheel).
  unpackWheel(pyodide, new Uint8Array(fs.readFileSync(job.wheel)), job.simModules[0]);
  const helper = runHelper(pyodide, job);
  try {
    helper.get("import_named")(pyodide.toPy(job.imports));
    helper.get("import_named")(pyodide.toPy(job.simModules.map((name) => [name, []])));
    helper.get("import_stdlib")(pyodide.toPy(stdlibFiles));
  } catch (error) {
    throw new Error(`sim's imports fail on the trimmed standard library: ${lastLine(error)}`);
  }
  helper.get("refill_stdin_buffer")();
  helper.destroy();
  pyodide.globals.set("specdec_model_json", fs.readFileSync(job.models[lang], "utf8"));
  pyodide.globals.set("specdec_measured_json", job.measured[lang] ? fs.readFileSync(job.measured[lang], "utf8") : null);
  // The worker finds these two names in __main__ after the restore.
  pyodide.runPython(`
import sim.session
specdec_session = sim.session.open_session(specdec_model_json, specdec_measured_json)
specdec_snapshot = {"token": ${JSON.stringify(job.token)}, "lang": ${JSON.stringify(lang)}}
del specdec_model_json, specdec_measured_json
`);
  const { memory, cleared } = saveMemory(pyodide);
  const image = dataImage(fs.readFileSync(wasmPath(job.pyodide)));
  fs.writeFileSync(job.snapshots[lang], packSpans(xorDataImage(memory, image)));
  return { bytes: memory.length, dataImage: image.length, freeZeroed: cleared.zeroed };
}

// A Python error's own message (from its last "...Error: " line on), not the traceback above it.
function lastLine(error) {
  const lines = String(error && error.message ? error.message : error).trim().split("\n");
  const at = lines.findLastIndex((line) => /^[\w.]*(Error|Exception)\b/.test(line));
  return lines.slice(at < 0 ? lines.length - 1 : at).join(" ");
}

// One language's snapshot in a worker thread running this module (workerMain); its report.
function snapshotInThread(job, lang, stdlibFiles) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { job, lang, stdlibFiles } });
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the ${lang} snapshot's thread stopped (exit ${code})`)));
  });
}

async function workerMain() {
  const { job, lang, stdlibFiles } = workerData;
  makeDeterministic(); // each thread has its own clock and random bytes, so each snapshot is reproducible
  const { loadPyodide } = await importPyodide(job.pyodide);
  parentPort.postMessage(await snapshot(loadPyodide, job, lang, stdlibFiles));
}

// Which part was running when the making failed: the maker's message says what to do about each.
let phase = "survey";

async function main() {
  const job = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  makeDeterministic();
  const { loadPyodide } = await importPyodide(job.pyodide);
  const report = { stdlib: await survey(loadPyodide, job), snapshots: {} };
  phase = "snapshot";
  const langs = Object.keys(job.snapshots);
  const made = await Promise.all(langs.map((lang) => snapshotInThread(job, lang, report.stdlib.sessionFiles)));
  langs.forEach((lang, i) => { report.snapshots[lang] = made[i]; });
  fs.writeFileSync(job.report, JSON.stringify(report));
  process.exit(0); // the survey's Pyodide keeps nothing worth waiting for
}

if (isMainThread) {
  main().catch((error) => {
    const job = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
    fs.writeFileSync(job.report, JSON.stringify({ error: lastLine(error), phase, detail: String(error && error.stack || error) }));
    process.exit(1);
  });
} else {
  workerMain(); // a failure reaches snapshotInThread as the thread's "error"
}
