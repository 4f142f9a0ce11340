// The worker that decodes the snapshot (snapshot-inflate.js): it gets the .wasm's bytes the
// snapshot is a delta against as {wasm} (null: no delta to undo) or {wasmError}, and the
// snapshot's bytes as {chunk} messages, then {done}, in any order; it answers {bytes} (moved) or
// {error}. Its decoder's WebAssembly is compiled at once, while the bytes come in.
import { inflate, zstdDecoder } from "./snapshot-inflate.js";

zstdDecoder().catch(() => {}); // a failure is inflate's to report

let input;
const stream = new ReadableStream({ start: (controller) => { input = controller; } });
let wasmIn;
let wasmFailed;
const wasm = new Promise((resolve, reject) => {
  wasmIn = resolve;
  wasmFailed = reject;
});

inflate(stream, wasm).then(
  (bytes) => self.postMessage({ bytes }, [bytes.buffer]),
  (error) => self.postMessage({ error: String(error && error.message || error) }),
);

self.onmessage = ({ data }) => {
  if (data.chunk) input.enqueue(data.chunk);
  else if (data.done) input.close();
  else if ("wasm" in data) wasmIn(data.wasm);
  else if (data.wasmError) wasmFailed(new Error(`the runtime's .wasm: ${data.wasmError}`));
};
