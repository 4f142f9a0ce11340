// What the worker's loading message counts (sim-worker.js): the bytes of each runtime file as
// they arrive, against the sizes the build recorded (templates/_runtime_data.html).

const PROGRESS_EVERY_MS = 80;

// Bytes received per file, against the sizes the build recorded, for the loading message.
export class ByteMeter {
  constructor(sizes, report) {
    this.sizes = sizes;
    this.report = report;
    this.received = new Map();
    this.files = [];
    this.last = 0;
  }

  plan(files) {
    this.files = files.filter((name) => this.sizes[name] > 0);
    this.send(true);
  }

  add(name, bytes) {
    this.received.set(name, (this.received.get(name) || 0) + bytes);
    this.send(false);
  }

  done(name) {
    this.received.set(name, Math.max(this.received.get(name) || 0, this.sizes[name] || 0));
    this.send(true);
  }

  get total() {
    return this.files.reduce((sum, name) => sum + this.sizes[name], 0);
  }

  get loaded() {
    return this.files.reduce((sum, name) => sum + Math.min(this.received.get(name) || 0, this.sizes[name]), 0);
  }

  send(now) {
    const t = performance.now();
    const { loaded, total } = this;
    if (!now && t - this.last < PROGRESS_EVERY_MS && loaded < total) return;
    this.last = t;
    this.report(loaded, total);
  }
}

async function countBody(body, onBytes) {
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    onBytes(value.byteLength);
  }
}

// Pyodide fetches the wasm, the stdlib, the lock and the wheel itself; a copy of each response
// body (response.clone()) is counted, so Pyodide keeps the real response (and compiles the .wasm
// as it streams in).
export function countPyodideFetches(meter, names) {
  const realFetch = self.fetch.bind(self);
  self.fetch = async (input, init) => {
    const response = await realFetch(input, init);
    const url = new URL(input instanceof Request ? input.url : input, self.location.href).href;
    const name = names.get(url) || (url.endsWith(".whl") ? "wheel" : null);
    if (name && response.ok && response.body) {
      countBody(response.clone().body, (bytes) => meter.add(name, bytes)).catch(() => {});
    }
    return response;
  };
}
