// The page's handle on the sim worker: start it, follow its progress, and call it with promises.

export class SimClient {
  // `start` holds what the worker's start message carries: the runtime's URLs (names ending in
  // URL, made absolute here), the snapshot's token, the page's language and the files' sizes.
  constructor({ workerURL, onProgress, ...start }) {
    this.pending = new Map();
    this.nextId = 1;
    this.listeners = onProgress ? [onProgress] : [];
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    if (typeof WebAssembly !== "object") {
      this.rejectReady(new Error("this browser has no WebAssembly"));
      return;
    }
    try {
      this.worker = new Worker(workerURL, { type: "module" });
    } catch (error) {
      this.rejectReady(error);
      return;
    }
    this.worker.onmessage = (event) => this.receive(event.data);
    this.worker.onerror = (event) => this.rejectReady(new Error(event.message || "the worker failed to start"));
    const message = { type: "start" };
    for (const [key, value] of Object.entries(start)) {
      message[key] = key.endsWith("URL") && value ? new URL(value, document.baseURI).href : value;
    }
    this.worker.postMessage(message);
  }

  receive(message) {
    if (message.type === "progress") {
      this.lastProgress = message;
      return this.listeners.forEach((listener) => listener(message.stage, message));
    }
    if (message.type === "ready") {
      this.via = message.via; // "snapshot" or "wheel": how the worker started Python
      return this.resolveReady(message.runtime);
    }
    if (message.type === "failed") return this.rejectReady(new Error(message.error));
    const call = this.pending.get(message.id);
    if (!call) return;
    this.pending.delete(message.id);
    if (message.ok) call.resolve(message.result);
    else call.reject(new Error(message.error));
  }

  // Another progress listener. A client starts before the page's interface (sim-start.js): the
  // interface subscribes later and hears the latest progress at once.
  listen(onProgress) {
    this.listeners.push(onProgress);
    if (this.lastProgress) onProgress(this.lastProgress.stage, this.lastProgress);
  }

  async call(command, args) {
    await this.ready;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, command, args });
    });
  }
}
