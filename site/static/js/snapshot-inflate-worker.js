// The worker that decodes the snapshot (snapshot-inflate.js): it gets the snapshot's bytes as
// {chunk} messages, then {done}, and answers {bytes} (moved) or {error}. Its decoder's
// WebAssembly is compiled at once, while the bytes come in.
import { inflate, zstdDecoder } from "./snapshot-inflate.js";

zstdDecoder().catch(() => {}); // a failure is inflate's to report

let input;
const stream = new ReadableStream({ start: (controller) => { input = controller; } });

inflate(stream).then(
  (bytes) => self.postMessage({ bytes }, [bytes.buffer]),
  (error) => self.postMessage({ error: String(error && error.message || error) }),
);

self.onmessage = ({ data }) => {
  if (data.chunk) input.enqueue(data.chunk);
  else if (data.done) input.close();
};
