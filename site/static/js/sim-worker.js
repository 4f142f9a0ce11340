// The module Web Worker that runs the sim package in Pyodide, off the page's main thread.
// Protocol: the page posts {id, command, args}; the worker answers {id, ok, result | error}.
// Before that, it posts {type: "progress", stage} while it starts, then {type: "ready"} or
// {type: "failed", error}. It starts only when told where the runtime, package and model are.

let session = null;

function progress(stage, detail) {
  self.postMessage({ type: "progress", stage, detail });
}

async function fetchOk(url, as) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return as === "text" ? response.text() : response.arrayBuffer();
}

async function start({ pyodideURL, simURL, modelURL }) {
  progress("runtime");
  const { loadPyodide } = await import(new URL("pyodide.mjs", pyodideURL).href);
  // Fetch our files while WebAssembly compiles.
  const simZip = fetchOk(simURL, "buffer");
  const model = fetchOk(modelURL, "text");
  const pyodide = await loadPyodide({ indexURL: pyodideURL });
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
      self.postMessage({ type: "failed", error: String(error && error.message ? error.message : error) });
    }
    return;
  }
  const { id, command, args } = message;
  if (!session) {
    self.postMessage({ id, ok: false, error: "the Python runtime is not ready" });
    return;
  }
  try {
    const reply = JSON.parse(session.handle(command, JSON.stringify(args || {})));
    self.postMessage({ id, ...reply });
  } catch (error) {
    self.postMessage({ id, ok: false, error: String(error) });
  }
};
