// The module Web Worker that runs the sim package in Pyodide, off the page's main thread.
// Protocol: the page posts {id, command, args}; the worker answers {id, ok, result | error}
// (for use_text, {id, type: "partial", stage} messages first, as the count goes on).
// Before that, it posts {type: "progress", stage} while it starts, then {type: "ready"} or
// {type: "failed", code, error}. It starts only when told where the runtime, package and model are.

let session = null;

function progress(stage, detail) {
  self.postMessage({ type: "progress", stage, detail });
}

class StartFailure extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

async function fetchOk(url, as) {
  let response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new StartFailure("download", `${url}: ${error.message}`);
  }
  if (!response.ok) throw new StartFailure("download", `${url}: HTTP ${response.status}`);
  return as === "text" ? response.text() : response.arrayBuffer();
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

async function start({ pyodideURL, simURL, modelURL }) {
  progress("runtime");
  const { loadPyodide } = await import(new URL("pyodide.mjs", pyodideURL).href);
  // Fetch our files while WebAssembly compiles.
  const simZip = fetchOk(simURL, "buffer");
  const model = fetchOk(modelURL, "text");
  simZip.catch(() => {});
  model.catch(() => {});
  const watch = wasmFailure();
  let pyodide;
  try {
    pyodide = await Promise.race([loadPyodide({ indexURL: pyodideURL }), watch.failed]);
  } finally {
    watch.restore();
  }
  progress("package");
  const target = "/home/pyodide/specdec";
  pyodide.unpackArchive(await simZip, "zip", { extractDir: target });
  pyodide.runPython(`import sys\nif ${JSON.stringify(target)} not in sys.path: sys.path.insert(0, ${JSON.stringify(target)})`);
  progress("model");
  const sessionModule = pyodide.pyimport("sim.session");
  session = sessionModule.open_session(await model);
  sessionModule.destroy();
  self.postMessage({ type: "ready", runtime: JSON.parse(session.handle("runtime", "{}")).result });
}

self.onmessage = async (event) => {
  const message = event.data;
  if (message.type === "start") {
    try {
      await start(message);
    } catch (error) {
      self.postMessage({ type: "failed", code: error.code || "start", error: String(error && error.message ? error.message : error) });
    }
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
