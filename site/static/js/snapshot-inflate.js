// The snapshot's inflating (sim-worker.js), on a thread of its own where the browser lets a
// worker start one: 31 MB of gzip took the sim worker's thread 0.2-0.6 s, beside the same
// thread's loading and running of Pyodide's 1.2 MB script, its instantiation and the restore,
// which waited behind it (a Chromium trace of a repeat visit). The snapshot's bytes are read here
// and posted to the inflating worker (snapshot-inflate-worker.js) chunk by chunk, and it posts
// the inflated bytes back (moved, not copied). The chunks are kept: if that worker fails, or has
// not answered GRACE_MS after the last chunk, they are inflated here as well and the first answer
// wins. (Firefox 153 under load now and then left a start waiting forever, which sim-client.js
// starts again after 12 s of quiet; once it was here: the .wasm instantiated, the snapshot never
// read. A worker that fails to load no longer costs the snapshot either.)
// Where no worker can be started, the same code inflates here.
export const GRACE_MS = 2000;

// The bytes of a gzip stream, inflated; a stream that is not gzip (a host that already
// decoded the file) is read as it is. Rejects with the stream's error.
export async function inflate(stream) {
  const [probe, data] = stream.tee();
  const reader = probe.getReader();
  const first = await reader.read();
  reader.cancel(); // the other branch goes on
  const gzipped = !first.done && first.value[0] === 0x1f && first.value[1] === 0x8b;
  return readAll(gzipped ? data.pipeThrough(new DecompressionStream("gzip")) : data);
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
  const all = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return all;
}

// inflate(stream) on the inflating worker's thread, or on this one where it cannot be (or has not).
export async function inflateElsewhere(stream) {
  let worker;
  try {
    worker = new Worker(new URL("./snapshot-inflate-worker.js", import.meta.url), { type: "module" });
  } catch {
    return inflate(stream);
  }
  const answer = new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => (data.bytes ? resolve(data.bytes) : reject(new Error(data.error)));
    worker.onerror = (event) => {
      event.preventDefault();
      resolve(null); // no answer will come from it
    };
  });
  answer.catch(() => {}); // awaited below, unless the stream fails first
  try {
    const chunks = await post(stream, worker);
    const first = await Promise.race([answer, new Promise((resolve) => setTimeout(resolve, GRACE_MS, null))]);
    if (first) return first;
    const never = new Promise(() => {});
    return await Promise.race([answer.then((bytes) => bytes || never), inflate(new Blob(chunks).stream())]);
  } finally {
    worker.terminate();
  }
}

// The stream's chunks to the worker (each copied), then {done}; returns the chunks.
async function post(stream, worker) {
  const chunks = [];
  for (const reader = stream.getReader(); ;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    worker.postMessage({ chunk: value });
  }
  worker.postMessage({ done: true });
  return chunks;
}
