// The worker that inflates the snapshot (snapshot-inflate.js): it gets the stream of its bytes and
// answers {bytes} (moved) or {error}.
import { inflate } from "./snapshot-inflate.js";

self.onmessage = async ({ data: stream }) => {
  try {
    const bytes = await inflate(stream);
    self.postMessage({ bytes }, [bytes.buffer]);
  } catch (error) {
    self.postMessage({ error: String(error && error.message || error) });
  }
};
