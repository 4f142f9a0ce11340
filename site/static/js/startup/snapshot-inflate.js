// The snapshot's decoding (sim-worker.js), on a thread of its own where the browser lets a
// worker start one. The snapshot is stored as an .xz file (sitebuild/startup/maker.py,
// compress_snapshot: 0.29 MB smaller than the best Zstandard of it, 0.85 MB smaller than gzip),
// and npm xz-decompress (xz-embedded, the xz project's own decoder, in WebAssembly) decodes it as
// its bytes come in: its CPU (0.16 s in Node for the packed en snapshot, 0.25 s for all 31 MB)
// goes by during the download, and only the last chunk's decoding follows the last byte. The
// decoded spans go straight into an array of the snapshot's own size (the page's settings give
// it: snapshotSize), where the long runs of zeros the build left out already are
// (snapshot-spans.js). On the sim worker's thread the decoding would wait behind Pyodide's script,
// its instantiation and the restore (a trace of a repeat visit). The decoding worker the page
// started downloads the snapshot itself (inflateFetchedThere); otherwise its bytes are read here
// and posted to the decoding worker (snapshot-inflate-worker.js) chunk by chunk (inflateElsewhere).
// Either way it posts the decoded bytes back (moved, not copied). Posted here, the chunks are
// kept: if that worker fails, or has not answered GRACE_MS after it had the last chunk and the
// .wasm, they are decoded here as well and the first answer wins. (A worker that fails to load, or never answers, does not cost the
// snapshot.) On the page the decoding worker is the page's: Firefox ESR 153 under load now and
// then never returns from `new Worker()` called in a worker (benchmarks/firefox_worker_stall.py:
// 5 of 300 pages; none when the page starts the second worker), so sim-boot.js starts it beside
// the sim worker and hands the sim worker a port to it. Without one (a client of the module's own,
// Node) this module starts it; where no worker can be started, the same code decodes here.

import { dataImage, xorDataImage } from "./snapshot-delta.js";
import { concat, SpanWriter } from "./snapshot-spans.js";

export const GRACE_MS = 2000;

// The .xz format's magic number (The .xz File Format 1.2.1, 2.1.1.1), the first 6 bytes of a stream.
const XZ_MAGIC = [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00];
const isXz = (bytes) => bytes.length >= XZ_MAGIC.length && XZ_MAGIC.every((byte, i) => bytes[i] === byte);

// xz-decompress, imported once, as soon as it is asked for; only then, so that the sim worker,
// which imports this module but decodes here only when its decoding worker cannot, does not wait
// for the decoder's 20 kB before it starts. (It compiles its WebAssembly from its own bytes, which
// the site's policy allows: 'wasm-unsafe-eval'.)
let decoder = null;
export function xzDecoder() {
  decoder ||= import("./vendor/xz-decompress.js");
  return decoder;
}

// The snapshot's bytes from its stream: an .xz stream decoded as it comes in, its spans written
// into an array of zeros of the snapshot's own size (snapshot-spans.js); anything else read as it
// is (a snapshot already decoded, which the restore takes; any other file, which it refuses).
// size: (a promise of) the snapshot's own size. Rejects with the stream's error, or when the .xz
// stream is cut short or corrupt (its CRC32 or its structure), or its spans do not fit that size.
// wasm: null, or (a promise of) the bytes of the .wasm the snapshot is a delta against, whose
// data image is XORed back in (snapshot-delta.js); the image is read from them while the snapshot
// comes in, so that only the XOR follows its decoding.
export async function inflate(stream, wasm = null, size = null) {
  const image = Promise.resolve(wasm).then((bytes) => bytes && dataImage(new Uint8Array(bytes)));
  image.catch(() => {}); // awaited below, once the snapshot is in
  const { head, rest } = await peek(stream, XZ_MAGIC.length);
  const bytes = isXz(head) ? await decodeXz(rest, await size) : await readAll(rest);
  const delta = await image;
  return delta ? xorDataImage(bytes, delta) : bytes;
}

async function decodeXz(stream, size) {
  if (!Number.isSafeInteger(size) || size <= 0) throw new Error(`the snapshot's own size is not known (${size})`);
  const { XzReadableStream } = await xzDecoder();
  const spans = new SpanWriter(new Uint8Array(size));
  const reader = new XzReadableStream(stream).getReader();
  // Bytes that do not fit stop the writing, not the reading: the stream is read to its end (the
  // rest of a download that comes anyway), because a cancel while the decoder is inside its own
  // pull made it close an errored stream (an uncaught error in the worker).
  let misfit = null;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (misfit) continue;
      try {
        spans.write(value);
      } catch (error) {
        misfit = error;
      }
    }
    if (misfit) throw misfit;
    return spans.end();
  } catch (error) {
    throw new Error(`the snapshot's .xz stream: ${error && error.message || error}`);
  }
}

// The stream's first `count` bytes (fewer if it ends sooner), and a stream of all its bytes.
async function peek(stream, count) {
  const reader = stream.getReader();
  const taken = [];
  let length = 0;
  let ended = false;
  while (length < count) {
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      break;
    }
    taken.push(value);
    length += value.byteLength;
  }
  const head = concat(taken, length);
  const rest = new ReadableStream({
    start(controller) {
      for (const chunk of taken) controller.enqueue(chunk);
      if (ended) controller.close();
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return { head, rest };
}

// All of a stream's bytes (one Uint8Array); rejects with the stream's own error.
export async function readAll(stream) {
  const chunks = [];
  let length = 0;
  for (const reader = stream.getReader(); ;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    length += value.byteLength;
  }
  return concat(chunks, length);
}

// inflate(stream, wasm, size) on the decoding worker's thread, or on this one where it cannot be
// (or has not). The .wasm's bytes are posted to it as soon as they are in (a copy: they are kept
// here in case it fails), its undoing the delta too takes that work off the thread that
// instantiates the .wasm, where it had followed the instantiation (25-60 ms of a warm visit's
// critical path). port: null (this module starts the worker), or a promise of a MessagePort to the
// worker the page started (null: the page could not start one). The stream is read on while the
// port comes. The grace period starts once the worker has all it needs, the snapshot's last chunk
// and the .wasm: on a slow link the .wasm comes seconds after the snapshot, and a grace counted
// from the snapshot alone decoded it again here while the .wasm came in.
export async function inflateElsewhere(stream, wasm = null, port = null, size = null) {
  const read = collect(stream);
  let worker;
  try {
    worker = port ? await port : new Worker(new URL("./snapshot-inflate-worker.js", import.meta.url), { type: "module" });
  } catch {
    worker = null;
  }
  if (!worker) return inflate(await read.all(), wasm, size);
  giveSizeAndWasm(worker, size, wasm);
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
    await Promise.resolve(wasm).catch(() => {}); // a .wasm that failed: the worker says so at once
    const first = await Promise.race([answer, new Promise((resolve) => setTimeout(resolve, GRACE_MS, null))]);
    if (first) return first;
    const never = new Promise(() => {});
    return await Promise.race([answer.then((bytes) => bytes || never), inflate(new Blob(chunks).stream(), wasm, size)]);
  } finally {
    if (worker.terminate) worker.terminate();
    else worker.close(); // the page ends its worker once Python is ready (sim-client.js)
  }
}

// The snapshot at `url` fetched and decoded by the decoding worker the page started (port: a
// promise of a MessagePort to it), so that its bytes go straight to the thread that decodes them:
// relayed through the sim worker, they waited while that thread decoded and instantiated the
// .wasm. counted(n): n more of its bytes came in there. Resolves with the bytes, or with null where
// that worker cannot give them: no port, its download or its decoding failed, or no answer
// GRACE_MS after its download and the .wasm were in. The caller then fetches and decodes the
// snapshot itself, and that failure (the same, if the snapshot is at fault) is the one it reports.
export async function inflateFetchedThere(url, port, wasm, size, counted) {
  const worker = await port;
  if (!worker) return null;
  giveSizeAndWasm(worker, size, wasm);
  return new Promise((resolve) => {
    let grace = null;
    const answer = (bytes) => {
      clearTimeout(grace);
      worker.close(); // this end of the channel, as inflateElsewhere closes it
      resolve(bytes);
    };
    worker.onmessage = ({ data }) => {
      if (data.received) counted(data.received);
      else if (data.downloaded) {
        Promise.resolve(wasm).catch(() => {}).then(() => { grace = setTimeout(answer, GRACE_MS, null); });
      } else answer(data.bytes || null); // {bytes}, or {error}
    };
    worker.postMessage({ download: url });
  });
}

// What the decoding worker needs besides the snapshot's bytes: its own size, and the .wasm's bytes
// (null: no delta to undo) or why they could not be had, posted as soon as they are in.
function giveSizeAndWasm(worker, size, wasm) {
  worker.postMessage({ size });
  Promise.resolve(wasm).then(
    (bytes) => worker.postMessage({ wasm: bytes || null }),
    (error) => worker.postMessage({ wasmError: String(error && error.message || error) }));
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
