// The bench's start: a link's parameters become one "load" action (after the frame's own first
// actions), and the worker's status turns the bench live or failed. Going live is said at once (a
// link's summary follows), the link is replayed first (one action), then the controls come alive:
// every view and the API's subscribers (tryit.js) hear {kind: "mode", mode: "live" | "failed"},
// and the root's data-mode shows it in the document (for a style, or a tool that waits for it:
// the tests' LIVE, the benchmarks).
import { readQuery } from "./url.js";

export class LiveSwitch {
  constructor({ root, store, sim, status, announcer }) {
    Object.assign(this, { root, store, sim, status, announcer });
    this.booted = false;
    this.mode = "static"; // then "live" or "failed"
    this.query = readQuery();
  }

  // options: startBench's (chapters: sent with a link so that the sim reads the embed's view
  // options too; first: page actions applied before the link).
  start({ chapters, first = [] } = {}) {
    for (const action of first) this.store.dispatch(action).catch(() => {});
    const load = { type: "load", query: this.query, source: "link", ...(chapters ? { chapters } : {}) };
    if (this.query.length) this.store.dispatch(load).catch(() => {});
  }

  // The latest status at once, then each one.
  listen() {
    this.sim.client.listen((s) => this.onStatus(s));
  }

  setMode(mode) {
    this.mode = mode;
    this.store.notify({ kind: "mode", mode });
    this.root.dataset.mode = mode;
  }

  onStatus(s) {
    const { store, status } = this;
    if (s.state === "ready") {
      if (!this.booted && performance.mark) performance.mark("specdec:python-ready");
      this.announcer.say(status.readyMessage(s.python));
      status.update(this.booted || !this.query.length ? s : { state: "linking" });
      store.setLive(true);
      store.idle().then(() => {
        if (!this.sim.client.started) return;
        status.update(s);
        if (!this.booted) {
          this.booted = true;
          if (performance.mark) performance.mark("specdec:bench-live");
          this.sim.keepForOffline();
          // The state drawn is the build's, and the worker computes the same one (fixed seeds),
          // so nothing is drawn again: asking for its view redrew every panel at once, the
          // largest main-thread task of going live on a phone. A snapshot's session holds the
          // first picture's readouts; a wheel start measures them now, off the first move's path.
          if (!this.query.length && s.via !== "snapshot") {
            this.sim.call("readouts", store.getState().bench.settings).catch(() => {});
          }
        }
        this.setMode("live");
      });
    } else if (s.state === "failed") {
      store.setLive(false);
      this.setMode("failed");
      this.announcer.say(status.update(s));
    } else {
      status.update(s);
    }
  }
}
