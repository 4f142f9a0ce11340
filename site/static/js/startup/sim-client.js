// The page's handle on the sim worker: start it, follow its progress, call it with promises, and
// notice at once when it fails or dies. A failure rejects every pending call and is reported
// to the status listeners as {state: "failed", code, detail}; restart() starts a fresh worker.
//
// The failure codes, the stages and the worker's messages are the start contract's
// (sitebuild/startup/contract.py, docs/bench-protocol.md); the page words each code in its
// language (bench/status.js). A failure the contract does not list is reported as "start".
//
// The client is made as the page opens (sim-start.js), before the bench's scripts have loaded:
// the bench subscribes later with listen() and hears the latest status at once.
//
// A start that goes quiet (no progress message and no mark of the worker's for RESTART_MS) is
// started again once, in a fresh worker, before the reader is told anything (a worker's thread can
// stop for good: Firefox ESR 153 under load now and then never returns from `new Worker()` called
// in a worker, which is why the page, not the sim worker, starts the snapshot's decoding worker:
// sim-boot.js); a second worker goes on. The page marks it (stage "restarted").

const RESTART_MS = 12_000;
const STALL_MS = 60_000;
const SLOW_MS = 20_000;

export class SimFailure extends Error {
  constructor(code, detail) {
    super(detail || code);
    this.code = code;
    this.detail = detail || "";
  }
}

// sim-boot.js, the classic script that opens the page's <body>: it holds the start contract and
// makes the start message, and it may have started the page's worker already. Without it (its
// file did not load) nothing starts, and the client says so as a worker that did not load. Read
// when a client is made, not when this module runs: a module imported early (the tests' debug
// hooks, as the parser adds the head's first script) may run before the parser reaches <body>.
const simBoot = () => self.specdecSimBoot;

export class SimClient {
  // `worker` is the worker's script; `start` holds the other start fields of the start contract
  // (sim-boot.js's options: the addresses of Pyodide and the start files, the snapshot's token, the page's language and
  // the files' sizes), from which sim-boot.js makes the start message.
  // onProgress(stage, message, at) hears each progress message (at: when it came); onStatus(status)
  // each status (see listen). autostart: false leaves start() to the caller.
  constructor({ worker, onProgress, onStatus, onTimings, autostart = true, restartAfterMs = RESTART_MS, ...start }) {
    this.workerURL = worker;
    this.restartAfterMs = restartAfterMs; // a test's client waits less
    this.boot = simBoot();
    this.startMessage = this.boot ? this.boot.startMessage(start) : null;
    this.onProgress = onProgress || (() => {});
    this.onTimings = onTimings || (() => {});
    this.listeners = onStatus ? [onStatus] : [];
    this.lastStatus = null;
    this.pending = new Map();
    this.nextId = 1;
    this.worker = null;
    this.helpers = []; // the workers the page starts beside it (sim-boot.js: the snapshot's decoder)
    this.ready = new Promise(() => {});
    this.lastMark = null; // the worker's last step of its start: {name, at}
    if (autostart) this.start();
  }

  // Another status listener; it hears the latest status at once. Statuses:
  // {state: "loading", stage, loaded?, total?} (bytes of the start's files so far and in all),
  // {state: "slow"}, {state: "ready", python, via}, {state: "failed", code, detail, seconds?}.
  listen(onStatus) {
    this.listeners.push(onStatus);
    if (this.lastStatus) onStatus(this.lastStatus);
  }

  status(status) {
    this.lastStatus = status;
    for (const listener of this.listeners) listener(status);
  }

  // Start a worker; `ready` resolves with the worker's Python ({version, platform}), or rejects with a SimFailure.
  start() {
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => {}); // reported through the status; callers that await it see it too
    this.started = false;
    this.failed = null;
    this.via = null;
    this.restarted = false;
    if (typeof WebAssembly !== "object") return this.fail("no_wasm", "typeof WebAssembly is " + typeof WebAssembly);
    if (!this.boot) return this.fail("worker", "sim-boot.js, which starts the worker, did not run");
    return this.spawn();
  }

  // A worker for the start under way (its `ready` stays the same): the first, or the one that
  // replaces a start gone quiet.
  spawn() {
    this.lastMark = null;
    let taken = null; // the worker sim-boot.js started for this very start message, the first time
    try {
      taken = this.boot.take(this.workerURL, this.startMessage);
      this.worker = taken ? taken.worker : new Worker(this.workerURL, this.boot.workerOptions(this.startMessage));
      this.helpers = taken ? taken.helpers : this.boot.startPortWorkers(this.worker, this.startMessage);
    } catch (error) {
      return this.fail("worker", String(error && error.message ? error.message : error));
    }
    const worker = this.worker;
    worker.onmessage = (event) => worker === this.worker && this.receive(event.data, event.timeStamp);
    worker.onerror = (event) => {
      if (worker !== this.worker) return;
      event.preventDefault();
      const where = event.filename ? ` (${event.filename}:${event.lineno})` : "";
      this.fail(this.started ? "died" : "worker", (event.message || "the worker reported an error") + where);
    };
    worker.onmessageerror = () => worker === this.worker && this.fail("message", "a message from the worker could not be deserialised");
    worker.postMessage(this.startMessage);
    this.status({ state: "loading", stage: "download" });
    this.watch();
    // What a taken-over worker said before: its marks, progress, even its readiness or failure.
    if (taken) for (const [kind, event] of taken.heard) worker["on" + kind](event);
    return this.ready;
  }

  // Throw the worker away (whatever it was doing) and start a new one.
  restart() {
    this.stop();
    return this.start();
  }

  stop() {
    clearInterval(this.watchdog);
    if (this.worker) this.worker.terminate();
    this.worker = null;
    this.endHelpers();
    this.rejectPending(new SimFailure("died", "the worker was stopped"));
  }

  // The workers started beside the sim worker (the snapshot's decoder) have done their part once
  // the start is over (ready or failed) or the worker is thrown away.
  endHelpers() {
    for (const helper of this.helpers) helper.terminate();
    this.helpers = [];
  }

  // A start that stops reporting progress (a download cut off inside Pyodide) is named as such.
  watch() {
    let last = performance.now();
    this.touch = () => (last = performance.now());
    clearInterval(this.watchdog);
    this.watchdog = setInterval(() => {
      if (this.started || this.failed) return clearInterval(this.watchdog);
      const quiet = performance.now() - last;
      if (quiet > STALL_MS) this.fail("stalled", `no progress for ${Math.round(quiet / 1000)} s${this.lastStep()}`, Math.round(STALL_MS / 1000));
      else if (quiet > this.restartAfterMs && !this.restarted) this.restartQuiet(quiet);
      else if (quiet > SLOW_MS) this.status({ state: "slow" });
    }, 1000);
  }

  // The start went quiet: once, a fresh worker takes it over (the same `ready`, the same status).
  restartQuiet(quiet) {
    console.info(`specdec: the start was quiet for ${Math.round(quiet / 1000)} s${this.lastStep()}; starting it again`);
    this.restarted = true;
    this.onProgress("restarted", {});
    this.worker.terminate();
    this.endHelpers();
    this.spawn();
  }

  // Where a stalled start stopped, for its technical details: the worker's last step and when.
  lastStep() {
    const m = this.lastMark;
    return m ? `; the worker's last step: ${m.name.replace(/^worker-/, "")}, ${((m.at - performance.timeOrigin) / 1000).toFixed(1)} s after the page opened` : "";
  }

  fail(code, detail, seconds) {
    if (this.failed) return this.ready;
    const failures = this.boot && this.boot.contract ? this.boot.contract.failures : [];
    if (failures.length && !failures.includes(code)) [code, detail] = ["start", `${code}: ${detail}`]; // not the contract's: a bug, worded as a failed start
    const failure = new SimFailure(code, detail);
    failure.seconds = seconds;
    this.failed = failure;
    clearInterval(this.watchdog);
    if (this.worker) this.worker.terminate();
    this.worker = null;
    this.endHelpers();
    this.rejectPending(failure);
    this.rejectReady(failure);
    this.status({ state: "failed", code, detail: failure.detail, seconds });
    return this.ready;
  }

  rejectPending(error) {
    for (const call of this.pending.values()) call.reject(error);
    this.pending.clear();
  }

  // at: when the message came (its event's timeStamp), for the progress marks of a message heard
  // before this client took the worker over.
  receive(message, at = performance.now()) {
    if (message.type === "mark") {
      this.touch();
      this.lastMark = message;
      return this.onTimings({ [message.name]: message.at });
    }
    if (message.type === "progress") {
      this.touch();
      this.onProgress(message.stage, message, at);
      return this.status({ state: "loading", stage: message.stage, loaded: message.loaded, total: message.total });
    }
    if (message.type === "ready") {
      this.started = true;
      this.via = message.via; // "snapshot" or "wheel": how the worker started Python
      clearInterval(this.watchdog);
      this.endHelpers();
      this.onTimings(message.timings || {});
      this.resolveReady(message.python);
      return this.status({ state: "ready", python: message.python, via: message.via });
    }
    if (message.type === "failed") return this.fail(message.code || "start", message.error);
    const call = this.pending.get(message.id);
    if (!call) return;
    if (message.type === "partial") return call.onPartial && call.onPartial(message.stage);
    this.pending.delete(message.id);
    if (message.ok) call.resolve(message.result);
    else {
      const error = new Error(message.error);
      error.param = message.param;
      error.code = message.code; // a text that cannot be counted: worded by the page (owntext.js)
      error.details = message.details;
      call.reject(error);
    }
  }

  // Ask the worker to keep the decoded .wasm for later visits (sim-start.js, keepForOffline).
  keep() {
    if (this.worker) this.worker.postMessage({ type: "keep" });
  }

  // onPartial(stage): the stages a long command reports before its answer (use_text).
  async call(command, args, onPartial) {
    await this.ready;
    if (this.failed || !this.worker) throw this.failed || new SimFailure("died", "no worker");
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onPartial });
      this.worker.postMessage({ id, command, args });
    });
  }
}
