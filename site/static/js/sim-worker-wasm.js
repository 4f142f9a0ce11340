// Pyodide's .wasm in the worker (sim-worker.js): fetched and compiled as soon as the worker starts,
// not when Pyodide gets round to it, and its bytes kept for the snapshot's delta.
//
// Pyodide fetches its .wasm when loadPyodide() starts, but begins compiling it only once its 1.2 MB
// pyodide.asm.mjs has loaded, compiled and run up to the point where Emscripten instantiates the
// wasm. On a repeat visit the .wasm comes from the browser's cache at once and then waited there
// for that script: the compile (on V8's background threads) began 0.7 s after the request, on the
// start's critical path. Here the compile starts on the response as it arrives, beside the
// script's loading; Pyodide's own request for the .wasm is answered with a placeholder, and its
// instantiateStreaming() with an instance of the module compiled here. The compile still streams
// from a fetch() of the .wasm's own address, so Chrome's code cache for it works as before.

// Fetch and compile the .wasm at `url` (with self.fetch, so that a byte meter wrapped around it
// counts it); `module` and `bytes` are promises (bytes: the file, for the snapshot's delta).
export function fetchWasm(url) {
  const response = self.fetch(url).then(
    (r) => (r.ok ? r : Promise.reject(new Error(`${url}: HTTP ${r.status}`))),
    (error) => Promise.reject(new Error(`${url}: ${error && error.message || error}`)));
  const copy = response.then((r) => r.clone()); // taken first: the compile then reads the response itself
  const module = response.then((r) => WebAssembly.compileStreaming(r));
  const bytes = copy.then((c) => c.arrayBuffer());
  module.catch(() => {}); // each is awaited where it is used
  bytes.catch(() => {});
  return { url, module, bytes };
}

// run() with Pyodide's fetch of the .wasm answered by a placeholder and its
// WebAssembly.instantiateStreaming() of that placeholder by an instance of wasm.module (a failed
// compile rejects it, as Pyodide's own would: it reports "wasm instantiation failed").
export async function withFetchedWasm(wasm, run) {
  const placeholder = new Response(new Uint8Array(0), { headers: { "Content-Type": "application/wasm" } });
  const realFetch = self.fetch;
  const realInstantiate = WebAssembly.instantiateStreaming;
  self.fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input, self.location.href).href;
    return url === wasm.url ? Promise.resolve(placeholder) : realFetch(input, init);
  };
  WebAssembly.instantiateStreaming = async (source, imports) => {
    if ((await source) !== placeholder) return realInstantiate(source, imports);
    const module = await wasm.module;
    return { module, instance: await WebAssembly.instantiate(module, imports) };
  };
  try {
    return await run();
  } finally {
    self.fetch = realFetch;
    WebAssembly.instantiateStreaming = realInstantiate;
  }
}
