// The bench's one source of truth. Every change (a control, a button, a link, a chapter's
// action) is an action object, applied in order through one queue; after each one the views
// render from the state. The sim computes: a bench action goes to the worker as
// act({state, action}) and comes back as the next state and its view (docs/bench-protocol.md).
//
// Its calls (bench.js makes the page's API of them; api.js publishes it):
//   dispatch(action)  -> Promise of the result, once applied and drawn (an animation of it may run on)
//   run([actions])    -> the actions queued in order at once; resolves when the last is done
//   idle()            -> resolves when the queue is empty and nothing is running
//   getState()        -> {bench: {settings, steps, rounds}, view, ui: {playing, speed, isolate, focus, panel},
//                         source: {source: "book"} | {source: "text", tokens, vocab, ...} (the models in use)}
//   announce(message) -> says it in the bench's one live region (bench.js)
//   subscribe(listener) -> listener(change, state) after each change: every view (bench.js), then the
//                        API's subscribers. notify(change) tells them all; the pass player (pass.js)
//                        and the start (live.js) tell their own changes through it.
// The actions, their arguments and where each runs are the protocol's (sim/bench/protocol.py, in the
// spec as `protocol`; docs/bench-protocol.md lists them): "sim" ones go to the worker whole, as one
// act (a "step until" too), "models" ones call their command and then redraw the state on the new
// models, "page" ones change this page's own state (ui) and apply before Python is ready when no
// other action waits ahead of them. A "use_text" that cannot be counted rejects with error.code
// (sim/owntext.py) and leaves the models as they were.
// A "set" waiting at the tail of the queue is replaced by a newer "set" of the same setting,
// so a slider dragged fast applies its last value once, in its place among the other actions;
// a plain "step" waiting there takes a newer one's passes (clicks faster than the worker answers
// become one act of several passes: the drawing shows the last and says how many ran). A
// "pause" drops the passes and rounds still waiting (not the one the worker is computing).
// Animation never holds the queue: the views draw each state as it comes (bench.js), an
// animation running is cut short by the next, and Play waits for `pace()` between its passes.
// Readouts are measured for the state the queue ends in, not for states a queued action replaces
// (their view.readouts stays null, and their summary leaves the readouts out).
import { SimFailure } from "../startup/sim-client.js";
import { motion, pause } from "./anim.js";

// The arguments of an action that its command reads, as the protocol declares them (the rest, such
// as quiet or a callback, steers the queue).
function sent(declared, action) {
  const out = {};
  for (const { name, kind } of declared.args) {
    if (kind !== "function" && action[name] !== undefined) out[name] = action[name];
  }
  return out;
}

export class Store {
  // panels: {names: [...], first, forPart: {part: panel}} (the page's tabs, read by bench.js);
  // protocol: the spec's (its actions: where each runs and what it carries).
  constructor({ sim, state, view, panels, protocol }) {
    this.sim = sim;
    this.panels = panels;
    this.actions = protocol.actions;
    this.state = { bench: state, view, ui: { playing: false, speed: 1, isolate: "", focus: "", panel: panels.first }, source: { source: "book" } };
    this.queue = [];
    this.running = false;
    this.live = false;
    this.listeners = [];
    this.idlers = [];
    this.pace = () => Promise.resolve(); // Play's wait for the drawing of a pass (bench.js sets it)
    const count = protocol.actions.step.args.find((a) => a.name === "count");
    this.maxSteps = count.max;
  }

  subscribe(listener) {
    this.listeners.push(listener);
  }

  // Tell every view; an animating view returns a promise, and the queue waits for it. A view that
  // throws is reported as an uncaught error (the page's error event, the console) and the others
  // and the queue go on: one view's bug must not leave every later action waiting forever.
  async notify(change) {
    await Promise.all(this.listeners.map(async (listener) => {
      try {
        await listener(change, this.state);
      } catch (error) {
        if (typeof reportError === "function") reportError(error);
        else console.error(error); // before Safari 15.4 and Firefox 93
      }
    }));
  }

  getState() {
    return this.state;
  }

  dispatch(action) {
    return new Promise((resolve, reject) => {
      if (action.type === "pause") this.dropPasses();
      const tail = this.queue[this.queue.length - 1];
      const waiting = tail && !tail.started; // the head the worker is computing cannot change
      if (waiting && action.type === "set" && tail.action.type === "set" && tail.action.name === action.name) {
        tail.action = action;
        tail.waiters.push({ resolve, reject });
      } else if (waiting && this.joins(tail.action, action)) {
        tail.action = { ...tail.action, count: Math.min(this.maxSteps, (tail.action.count || 1) + (action.count || 1)), joined: true };
        tail.waiters.push({ resolve, reject });
      } else {
        this.queue.push({ action, waiters: [{ resolve, reject }], phase: "act", reply: null, started: false });
      }
      this.pump();
    });
  }

  // A plain step (a click on One step, or Play's) joins a plain step waiting before it.
  joins(waiting, action) {
    const plain = (a) => a.type === "step" && a.until === undefined && !a.quiet;
    return plain(waiting) && plain(action) && waiting.source === action.source;
  }

  // Pause: the passes and rounds not yet sent to the worker are dropped (their promises resolve
  // with null), so that nothing queued runs on after it.
  dropPasses() {
    const kept = [];
    for (const item of this.queue) {
      if (!item.started && (item.action.type === "step" || item.action.type === "round")) {
        for (const w of item.waiters) w.resolve(null);
      } else {
        kept.push(item);
      }
    }
    this.queue = kept;
  }

  run(actions) {
    const done = actions.map((action) => this.dispatch(action));
    return Promise.all(done).then((results) => results[results.length - 1]);
  }

  idle() {
    if (!this.running && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idlers.push(resolve));
  }

  // The value a setting will have once the queue is through (a control shows it meanwhile).
  pendingValue(name) {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const a = this.queue[i].action;
      if (a.type === "set" && a.name === name) return a.value;
    }
    return undefined;
  }

  setLive(live) {
    this.live = live;
    if (live) this.pump();
  }

  // Where an action runs: "sim", "models" or "page" (an unknown type counts as the page's, which refuses it).
  runs(action) {
    const declared = this.actions[action.type];
    return declared ? declared.runs : "page";
  }

  // The head of the queue can be applied: the page's own actions (tabs, parts, play) need no
  // Python, so they apply before it is ready, as long as no bench action waits ahead of them.
  ready() {
    return this.queue.length > 0 && (this.live || this.runs(this.queue[0].action) === "page");
  }

  async pump() {
    if (this.running || !this.ready()) return;
    this.running = true;
    this.notify({ kind: "busy", busy: true });
    while (this.ready()) {
      const item = this.queue[0];
      item.started = true;
      try {
        await this.apply(item);
      } catch (error) {
        if (error instanceof SimFailure) break; // the worker is gone: the item waits for Retry
        this.queue.shift();
        for (const w of item.waiters) w.reject(error);
        await this.notify({ kind: "error", action: item.action, error });
        continue;
      }
      this.queue.shift();
      await this.notify({ kind: "done", action: item.action, reply: item.reply });
      for (const w of item.waiters) w.resolve(item.reply);
    }
    this.running = false;
    this.notify({ kind: "busy", busy: false });
    if (!this.queue.length) for (const resolve of this.idlers.splice(0)) resolve();
  }

  // Apply the head of the queue one stage at a time, so that a worker lost half-way resumes
  // where it stopped: "act" (the state changes) then "measure" (readouts not yet measured).
  async apply(item) {
    const { action } = item;
    const runs = this.runs(action);
    const models = runs === "models";
    if (runs === "page") {
      item.reply = await this.local(action);
      return;
    }
    if (models && !item.source) {
      item.source = await this.sim.call(action.type, sent(this.actions[action.type], action), action.onProgress);
      this.state = { ...this.state, source: item.source };
      await this.notify({ kind: "source", action, source: item.source });
    }
    if (item.phase === "act") {
      const before = this.state;
      // Readouts not yet measured are asked for next ("measure"), so the replay is drawn at once.
      const measure = action.measure === true;
      const python = models ? { type: "view" } : { type: action.type, ...sent(this.actions[action.type], action) };
      const reply = await this.sim.call("act", { state: before.bench, action: python, measure });
      this.state = { ...before, bench: reply.state, view: reply.view };
      item.reply = models ? { ...reply, source: item.source } : reply;
      item.phase = "measure";
      await this.notify({ kind: "act", action, reply, before });
    }
    if (!this.state.view.readouts && !this.replacedSoon(item)) {
      await this.notify({ kind: "measuring", action });
      const readouts = await this.sim.call("readouts", this.state.bench.settings);
      this.state = { ...this.state, view: { ...this.state.view, readouts } };
      await this.notify({ kind: "measured", action });
    }
  }

  // A bench (or models) action waits behind item, so item's state is about to be replaced: its
  // readouts are not measured (a new draft, gamma or rule costs Pyodide up to a second or two),
  // and a burst of changes measures only the state it ends in.
  replacedSoon(item) {
    return this.queue.some((other) => other !== item && this.runs(other.action) !== "page");
  }

  // Actions of the page alone (not part of a link).
  async local(action) {
    const ui = { ...this.state.ui };
    if (action.type === "play") ui.playing = true;
    else if (action.type === "pause") ui.playing = false;
    else if (action.type === "speed") ui.speed = action.value;
    else if (action.type === "isolate") ui.isolate = action.part && action.part !== ui.isolate ? action.part : "";
    else if (action.type === "focus") ui.focus = action.part || "";
    else if (action.type === "open_panel") {
      if (!this.panels.names.includes(action.panel)) throw new Error(`unknown panel "${action.panel}"`);
      ui.panel = action.panel;
    } else throw new Error(`unknown action type "${action.type}"`);
    // A part with a panel of its own brings it up, when a chapter or the reader picks the part.
    const picked = action.type === "focus" ? ui.focus : action.type === "isolate" ? ui.isolate : "";
    if (this.panels.forPart[picked]) ui.panel = this.panels.forPart[picked];
    const before = this.state;
    this.state = { ...before, ui };
    await this.notify({ kind: "ui", action, before });
    if (action.type === "play" && !before.ui.playing) this.play();
    return { ui };
  }

  // Play: one pass after another while playing, each queued like a click on One step (so other
  // actions take their turn between passes); stops at the tape's cap.
  async play() {
    while (this.state.ui.playing) {
      await this.idle();
      if (!this.state.ui.playing) break;
      const reply = await this.dispatch({ type: "step", source: "play" }).catch(() => undefined);
      if (reply === null) break; // dropped by the reader's pause, which stops playing
      if (!reply || reply.capped) {
        await this.dispatch({ type: "pause", source: "play" });
        break;
      }
      await this.pace(); // the pass drawn to its end (or cut short by another action)
      await pause(350);
      if (motion.still) await new Promise((resolve) => setTimeout(resolve, 700));
    }
  }
}
