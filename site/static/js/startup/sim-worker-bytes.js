// What the worker's loading message counts (sim-worker.js): the bytes of each file of the start as
// they arrive (the worker counts its own downloads; Pyodide's it hears through the adapter's
// watchFetches), against the sizes the build recorded (the start message's `sizes`).

const PROGRESS_EVERY_MS = 80;

// Bytes received per file, against the sizes the build recorded, for the loading message.
export class ByteMeter {
  constructor(sizes, report) {
    this.sizes = sizes;
    this.report = report;
    this.received = new Map();
    this.seen = new Map(); // bytes of the files counted as another's share (addShare)
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

  // Bytes of file `of` that comes in place of file `name` (the .wasm itself, for its .xz), counted
  // as their share of `name`'s size: all of `of` counts as all of `name`, to the byte. (A share
  // taken chunk by chunk summed to a hair under it about half the time, and the count then never
  // reached the total: the message never said that Python was starting.)
  addShare(name, of, bytes) {
    const share = (seen) => (this.sizes[of] > 0 ? Math.round((seen * (this.sizes[name] || 0)) / this.sizes[of]) : 0);
    const before = this.seen.get(of) || 0;
    this.seen.set(of, before + bytes);
    this.add(name, share(before + bytes) - share(before));
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
