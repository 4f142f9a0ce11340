// The snapshot's inflating (sim-worker.js), on a thread of its own where the browser lets a
// worker start one: 31 MB of gzip took the sim worker's thread 0.2-0.6 s, beside the same
// thread's loading and running of Pyodide's 1.2 MB script, its instantiation and the restore,
// which waited behind it (a Chromium trace of a repeat visit). The stream of the snapshot's
// bytes is handed to the inflating worker (snapshot-inflate-worker.js), which hands the bytes
// back (both moved, not copied). Where a stream cannot be handed over or no worker can be
// started, the same code inflates here.

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

// inflate(stream) on the inflating worker's thread, or on this one where it cannot be.
export function inflateElsewhere(stream) {
  let worker;
  try {
    worker = new Worker(new URL("./snapshot-inflate-worker.js", import.meta.url), { type: "module" });
    worker.postMessage(stream, [stream]); // a stream is moved, or this throws (DataCloneError)
  } catch {
    if (worker) worker.terminate();
    return inflate(stream);
  }
  return new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => {
      worker.terminate();
      if (data.bytes) resolve(data.bytes);
      else reject(new Error(data.error));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      worker.terminate();
      reject(new Error(`the inflating worker failed: ${event.message || "it did not load"}`));
    };
  });
}
