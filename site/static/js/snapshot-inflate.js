// The snapshot's decoding (sim-worker.js), on a thread of its own where the browser lets a
// worker start one. The snapshot is stored as one Zstandard frame (sitebuild/runtime/maker.py,
// compress_snapshot), 0.57 MB smaller than the best gzip of it, and npm zstddec (zstd's own
// decoder compiled to WebAssembly) decodes it once all of it is in: in a fresh page of Chromium
// in a quarter of the time npm fzstd (JavaScript, not yet optimised by V8 in a fresh worker) took
// and in about half of DecompressionStream's for the gzip (medians 0.26 / 1.00 / 0.63 s in the same
// rounds at load 8-10). On the sim worker's thread it would wait behind Pyodide's script, its
// instantiation and the restore (a trace of a repeat visit). The snapshot's bytes are read here
// and posted to the decoding worker (snapshot-inflate-worker.js) chunk by chunk, and it posts
// the decoded bytes back (moved, not copied). The chunks are kept: if that worker fails, or has
// not answered GRACE_MS after the last chunk, they are decoded here as well and the first answer
// wins. (A worker that fails to load, or never answers, does not cost the snapshot.) On the page
// the decoding worker is the page's: Firefox ESR 153 under load now and then never returns from
// `new Worker()` called in a worker (benchmarks/firefox_worker_stall.py: 5 of 300 pages; none
// when the page starts the second worker), so sim-boot.js starts it beside the sim worker and
// hands the sim worker a port to it. Without one (a client of the module's own, Node) this module
// starts it; where no worker can be started, the same code decodes here.

import { answerDataAddresses } from "./pyodide-adapter.js";
import { dataImage, xorDataImage } from "./snapshot-delta.js";

export const GRACE_MS = 2000;

// RFC 8878, 3.1.1: a frame opens with the magic number 0xFD2FB528 (little-endian).
const isZstd = (bytes) => bytes.length >= 4 && bytes[0] === 0x28 && bytes[1] === 0xb5 && bytes[2] === 0x2f && bytes[3] === 0xfd;

// The snapshot's own size from a Zstandard frame header in its first bytes (RFC 8878, 3.1.1.1:
// Frame_Content_Size), or null (not a frame, no size in it, or too few bytes yet).
export function snapshotSize(bytes) {
  if (!bytes || !isZstd(bytes) || bytes.length < 6) return null;
  const descriptor = bytes[4];
  const singleSegment = (descriptor >> 5) & 1;
  const sizeBytes = [singleSegment, 2, 4, 8][descriptor >> 6];
  const at = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][descriptor & 3]; // after the window and dictionary fields
  if (!sizeBytes || bytes.length < at + sizeBytes) return null;
  let size = 0;
  for (let i = sizeBytes - 1; i >= 0; i--) size = size * 256 + bytes[at + i];
  return sizeBytes === 2 ? size + 256 : size;
}

// zstddec, ready: it loads its WebAssembly with fetch() from a data: address, which the site's
// policy (connect-src 'self') refuses, so that one fetch is answered from the address's own
// bytes (pyodide-adapter.js, answerDataAddresses: the one patch of fetch; compiling it is allowed:
// 'wasm-unsafe-eval'). Started once, as soon as it is asked for; imported only then, so that the
// sim worker, which imports this module but decodes here only when its decoding worker cannot,
// does not wait for the decoder's 76 kB before it starts.
let decoder = null;
export function zstdDecoder() {
  decoder ||= import("./vendor/zstddec.js").then(({ ZSTDDecoder }) => {
    const zstd = new ZSTDDecoder();
    answerDataAddresses();
    return zstd.init().then(() => zstd);
  });
  return decoder;
}

// The snapshot's bytes from its stream: a Zstandard frame decoded; anything else (a host that
// already decoded it, as Content-Encoding) read as it is. Rejects with the stream's error, or
// when the frame does not decode to the size its header gives (cut short, corrupt): zstddec
// returns what zstd wrote and no error. wasm: null, or (a promise of) the bytes of the .wasm the
// snapshot is a delta against, whose data image is XORed back in (snapshot-delta.js); the image
// is read from them while the snapshot comes in, so that only the XOR follows its decoding.
export async function inflate(stream, wasm = null) {
  const image = Promise.resolve(wasm).then((bytes) => bytes && dataImage(new Uint8Array(bytes)));
  image.catch(() => {}); // awaited below, once the snapshot is in
  const data = await readAll(stream);
  let bytes = data;
  if (isZstd(data)) {
    const size = snapshotSize(data);
    if (!size) throw new Error("the snapshot's frame gives no size");
    bytes = (await zstdDecoder()).decode(data, size);
    if (bytes.length !== size) throw new Error(`the snapshot's frame decodes to ${bytes.length} of its ${size} bytes`);
  }
  const delta = await image;
  return delta ? xorDataImage(bytes, delta) : bytes;
}

async function readAll(stream) {
  const chunks = [];
  let length = 0;
  for (const reader = stream.getReader(); ;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    length += value.byteLength;
  }
  if (chunks.length === 1) return chunks[0];
  const all = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return all;
}

// inflate(stream, wasm) on the decoding worker's thread, or on this one where it cannot be (or has
// not). The .wasm's bytes are posted to it as soon as they are in (a copy: they are kept here in
// case it fails), its undoing the delta too takes that work off the thread that instantiates the
// .wasm, where it had followed the instantiation (25-60 ms of a warm visit's critical path).
// port: null (this module starts the worker), or a promise of a MessagePort to the worker the page
// started (null: the page could not start one). The stream is read on while the port comes.
export async function inflateElsewhere(stream, wasm = null, port = null) {
  const read = collect(stream);
  let worker;
  try {
    worker = port ? await port : new Worker(new URL("./snapshot-inflate-worker.js", import.meta.url), { type: "module" });
  } catch {
    worker = null;
  }
  if (!worker) return inflate(await read.all(), wasm);
  Promise.resolve(wasm).then(
    (bytes) => worker.postMessage({ wasm: bytes || null }),
    (error) => worker.postMessage({ wasmError: String(error && error.message || error) }));
  const answer = new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => (data.bytes ? resolve(data.bytes) : reject(new Error(data.error)));
    worker.onerror = (event) => { // a Worker's (a port has no errors: the page's client sees its worker's)
      event.preventDefault();
      resolve(null); // no answer will come from it
    };
  });
  answer.catch(() => {}); // awaited below, unless the stream fails first
  try {
    read.forward((chunk) => worker.postMessage({ chunk }));
    const chunks = await read.chunks;
    worker.postMessage({ done: true });
    const first = await Promise.race([answer, new Promise((resolve) => setTimeout(resolve, GRACE_MS, null))]);
    if (first) return first;
    const never = new Promise(() => {});
    return await Promise.race([answer.then((bytes) => bytes || never), inflate(new Blob(chunks).stream(), wasm)]);
  } finally {
    if (worker.terminate) worker.terminate();
    else worker.close(); // the page ends its worker once Python is ready (sim-client.js)
  }
}

// The stream read to its end at once: {chunks} (a promise of them all), all() (a stream of them),
// forward(post) (each chunk so far, then each as it comes, to post: each is copied there).
function collect(stream) {
  const kept = [];
  let post = null;
  const chunks = (async () => {
    for (const reader = stream.getReader(); ;) {
      const { done, value } = await reader.read();
      if (done) return kept;
      kept.push(value);
      if (post) post(value);
    }
  })();
  chunks.catch(() => {}); // the stream's error reaches whoever awaits the chunks
  return {
    chunks,
    all: async () => new Blob(await chunks).stream(),
    forward(to) {
      for (const chunk of kept) to(chunk);
      post = to;
    },
  };
}
