// The worker that decodes the snapshot (snapshot-inflate.js): it gets the snapshot's own size as
// {size}, the .wasm's bytes the snapshot is a delta against as {wasm} (null: no delta to undo) or
// {wasmError}, and the snapshot's bytes as {chunk} messages, then {done}, or its address to
// download it from as {download} (download, below), in any order; it decodes each chunk as it
// comes and answers {bytes} (moved) or {error}. Its decoder is imported at once.
// Started by the sim worker, it hears from it directly; started by the page (sim-boot.js), its
// first message is {port}, the sim worker's end of a channel, and everything after comes and goes
// through that.
import { inflate, xzDecoder } from "./snapshot-inflate.js";

xzDecoder().catch(() => {}); // a failure is inflate's to report

let input;
const stream = new ReadableStream({ start: (controller) => { input = controller; } });
let wasmIn;
let wasmFailed;
const wasm = new Promise((resolve, reject) => {
  wasmIn = resolve;
  wasmFailed = reject;
});
let sizeIn;
const size = new Promise((resolve) => { sizeIn = resolve; });
let sim = self; // whom it hears from and answers: the sim worker, or the port to it

inflate(stream, wasm, size).then(
  (bytes) => sim.postMessage({ bytes }, [bytes.buffer]),
  (error) => sim.postMessage({ error: String(error && error.message || error) }),
);

// The snapshot's download, where the sim worker asks for it ({download: url}) instead of sending
// its chunks: each chunk's size is posted back as it comes ({received}, for the page's progress),
// then {downloaded}. A failed download fails the decoding ({error}).
async function download(url) {
  const response = await fetch(url, { cache: "force-cache" }); // its address carries its hash
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  for (const reader = response.body.getReader(); ;) {
    const { done, value } = await reader.read();
    if (done) break;
    sim.postMessage({ received: value.byteLength });
    input.enqueue(value);
  }
  input.close();
  sim.postMessage({ downloaded: true });
}

function receive({ data }) {
  if (data.download) download(data.download).catch((error) => input.error(error));
  else if (data.chunk) input.enqueue(data.chunk);
  else if ("size" in data) sizeIn(data.size);
  else if (data.done) input.close();
  else if ("wasm" in data) wasmIn(data.wasm);
  else if (data.wasmError) wasmFailed(new Error(`Pyodide's .wasm: ${data.wasmError}`));
}

self.onmessage = (event) => {
  if (!event.data.port) return receive(event);
  sim = event.data.port;
  sim.onmessage = receive;
};
