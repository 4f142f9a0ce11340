// The page's handle on the sim worker: start it, follow its progress, and call it with promises.

export class SimClient {
  constructor({ workerURL, pyodideURL, simURL, modelURL, onProgress }) {
    this.pending = new Map();
    this.nextId = 1;
    this.onProgress = onProgress || (() => {});
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
    const absolute = (url) => new URL(url, document.baseURI).href;
    this.worker.postMessage({
      type: "start",
      pyodideURL: absolute(pyodideURL),
      simURL: absolute(simURL),
      modelURL: absolute(modelURL),
    });
  }

  receive(message) {
    if (message.type === "progress") return this.onProgress(message.stage);
    if (message.type === "ready") return this.resolveReady(message.runtime);
    if (message.type === "failed") return this.rejectReady(new Error(message.error));
    const call = this.pending.get(message.id);
    if (!call) return;
    this.pending.delete(message.id);
    if (message.ok) call.resolve(message.result);
    else call.reject(new Error(message.error));
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
