// The course package's copy of the sim worker imports this first (sitebuild/course/adapt.py).
// An LMS serves a package's .wasm with its own MIME table, often as application/octet-stream;
// WebAssembly.instantiateStreaming refuses that, and Pyodide does not fall back by itself. Here a
// response of any other type is compiled from its bytes instead; application/wasm still streams.
const streaming = WebAssembly.instantiateStreaming;

WebAssembly.instantiateStreaming = async function instantiateAnyMime(source, imports) {
  const response = await source;
  const type = (response.headers.get("Content-Type") || "").split(";")[0].trim().toLowerCase();
  if (streaming && type === "application/wasm") return streaming.call(WebAssembly, response, imports);
  return WebAssembly.instantiate(await response.arrayBuffer(), imports);
};
