// The course package's copy of the sim worker imports this first (sitebuild/course/adapt.py).
// An LMS serves a package's .wasm with its own MIME table, often as application/octet-stream;
// WebAssembly.instantiateStreaming refuses that, and Pyodide does not fall back by itself. Here a
// response of any other type is compiled from its bytes instead; application/wasm still streams.
// Both ways in: the worker compiles the .wasm itself as it starts (compileStreaming,
// sim-worker-wasm.js), and Pyodide instantiates (instantiateStreaming) where it does so.
const isWasm = (response) => (response.headers.get("Content-Type") || "").split(";")[0].trim().toLowerCase() === "application/wasm";
const compiling = WebAssembly.compileStreaming;
const streaming = WebAssembly.instantiateStreaming;

WebAssembly.compileStreaming = async function compileAnyMime(source) {
  const response = await source;
  if (compiling && isWasm(response)) return compiling.call(WebAssembly, response);
  return WebAssembly.compile(await response.arrayBuffer());
};

WebAssembly.instantiateStreaming = async function instantiateAnyMime(source, imports) {
  const response = await source;
  if (streaming && isWasm(response)) return streaming.call(WebAssembly, response, imports);
  return WebAssembly.instantiate(await response.arrayBuffer(), imports);
};
