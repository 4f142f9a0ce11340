// The worker that decodes the snapshot (snapshot-inflate.js): it gets the .wasm's bytes the
// snapshot is a delta against as {wasm} (null: no delta to undo) or {wasmError}, and the
// snapshot's bytes as {chunk} messages, then {done}, in any order; it answers {bytes} (moved) or
// {error}. Its decoder's WebAssembly is compiled at once, while the bytes come in. Started by the
// sim worker, it hears from it directly; started by the page (sim-boot.js), its first message is
// {port}, the sim worker's end of a channel, and everything after comes and goes through that.
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
let sim = self; // whom it hears from and answers: the sim worker, or the port to it

inflate(stream, wasm).then(
  (bytes) => sim.postMessage({ bytes }, [bytes.buffer]),
  (error) => sim.postMessage({ error: String(error && error.message || error) }),
);

function receive({ data }) {
  if (data.chunk) input.enqueue(data.chunk);
  else if (data.done) input.close();
  else if ("wasm" in data) wasmIn(data.wasm);
  else if (data.wasmError) wasmFailed(new Error(`the runtime's .wasm: ${data.wasmError}`));
}

self.onmessage = (event) => {
  if (!event.data.port) return receive(event);
  sim = event.data.port;
  sim.onmessage = receive;
};
