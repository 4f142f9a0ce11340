// The worker that inflates the snapshot (snapshot-inflate.js): it gets the snapshot's bytes as
// {chunk} messages, then {done}, and answers {bytes} (moved) or {error}.
import { inflate } from "./snapshot-inflate.js";

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
