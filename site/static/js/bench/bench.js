// The bench: wires the store (state and actions), the worker client and the views together.
// Start: the build's picture is on the page; Python loads with visible progress; a link's
// parameters become one "load" action; then the controls come alive.
import { simClient } from "../sim-start.js";
import { cutShort, motion } from "./anim.js";
import { Announcer, summary } from "./announce.js";
import { benchAPI, publish } from "./api.js";
import { ControlsView } from "./controls.js";
import { MachineView } from "./machine.js";
import { OwnTextView } from "./owntext.js";
import { BridgeView, BurstView, ExactnessView, ReadoutsView, TapeView } from "./panels.js";
import { PartsView } from "./parts.js";
import { RaceView } from "./race.js";
import { LinkMessagesView, StatusView } from "./status.js";
import { Store } from "./store.js";
import { StripView } from "./strip.js";
import { readPanels, TabsView } from "./tabs.js";
import { text } from "./text.js";
import { TubesView } from "./tubes.js";
import { readQuery, writeURL } from "./url.js";

// The worker (started as the page opened, sim-start.js).
function connect(config) {
  const client = simClient(config);
  return { client, call: (command, args, onPartial) => client.call(command, args, onPartial) };
}

// config: the page's data attributes (worker, runtime and model addresses). frame: what the frame
// around the bench adds (optional): `chapters`, sent with a link so that the sim reads the embed's
// view options too; `first`, page actions applied before the link; and `onChange(change, state)`,
// told of every change after the views drew it (as the API's subscribe is).
export function startBench(config, frame = {}) {
  const root = document.getElementById("b");
  if (!root) return null;
  const { spec, view } = JSON.parse(document.getElementById("bench-state").textContent);
  // The bench's parameters, and the legacy ones its link replaces (an old link's greedy=1 goes).
  const names = [...spec.parameters.map((p) => p.name), ...spec.legacy_parameters];
  const announcer = new Announcer(root);
  let booted = false;

  const sim = connect(config);
  const drawn = frame.onChange ? [frame.onChange] : []; // told of each change once the views drew it
  const store = new Store({ sim, state: view.state, view, panels: readPanels(root), protocol: spec.protocol });
  const views = {
    machine: new MachineView(root, spec),
    tape: new TapeView(root),
    bridge: new BridgeView(root, spec),
    readouts: new ReadoutsView(root),
    exactness: new ExactnessView(root),
    tubes: new TubesView(root),
    controls: new ControlsView(root, spec, store),
    parts: new PartsView(root, store),
    tabs: new TabsView(root, store),
    strip: new StripView(document.querySelector(".b-strip")),
    burst: new BurstView(root),
    messages: new LinkMessagesView(root),
    owntext: new OwnTextView(root, spec, store, announcer),
    race: new RaceView(root, spec, store, announcer), // draws itself from the store (race.js)
  };
  const status = new StatusView(root, () => {
    status.update({ state: "retrying" });
    sim.client.restart();
  });

  // The panels beside the machine (drawn again when one opens: a hidden one cannot measure its words).
  function drawPanels(v) {
    views.bridge.draw(v);
    views.readouts.draw(v.readouts);
    views.exactness.draw(v);
    views.tubes.draw(v.tubes);
  }

  function drawAll(v, fresh = 0) {
    views.machine.draw(v.drawing.machine);
    views.tape.draw(v.tape, fresh, v.pass, v.state.settings.candidates);
    drawPanels(v);
    views.strip.draw(v);
  }

  // One pass drawn as it happens; the rest of the view at once. Resolves true when the pass was
  // drawn to its end, false when it was cut short (a newer state is drawn instead).
  async function drawPass(v) {
    views.bridge.draw(v, true);
    views.readouts.draw(v.readouts);
    views.exactness.draw(v);
    views.tubes.draw(v.tubes);
    if (!(await views.machine.animatePass(v.drawing.machine, views.bridge))) return false;
    views.tape.draw(v.tape, v.pass.n_written, v.pass, v.state.settings.candidates);
    views.strip.draw(v);
    return true;
  }

  // The animation is a view of the state, never a gate on it: the store goes on at once, a newer
  // state cuts the pass being animated short, and Play waits for the drawing (store.pace).
  let animation = null; // {view, done}: the pass being animated
  let burst = 0; // passes applied since the machine last finished drawing one
  function settleDrawing() {
    if (!animation) return;
    const { view } = animation;
    animation = null;
    root.dataset.animating = "false";
    cutShort();
    drawAll(view, view.pass ? view.pass.n_written : 0);
    mark(view);
  }
  store.pace = () => (animation ? animation.done : Promise.resolve());

  function drawAct(change, v) {
    const { action, reply, before } = change;
    const step = action.type === "step" && !reply.capped;
    const passes = action.type === "step" ? Math.max(0, v.state.steps - before.bench.steps) : 0;
    burst = animation && step ? burst + passes : passes;
    if (animation) {
      animation = null;
      cutShort();
    }
    views.burst.draw(burst);
    // A click's pass (or clicks joined into one act, or a step until) is animated; a count of
    // passes from a link, a chapter or the race is drawn at once.
    if (step && (!action.count || action.joined) && !motion.still) {
      const current = { view: v };
      current.done = drawPass(v).then((finished) => {
        if (animation !== current) return;
        animation = null;
        if (finished) mark(v);
        root.dataset.animating = "false";
      });
      animation = current;
      root.dataset.animating = "true";
    } else {
      root.dataset.animating = "false";
      drawAll(v, step ? v.pass.n_written : 0);
      mark(v); // after the drawing: tests and scripts that read these see the pass drawn
    }
  }

  function mark(v) {
    const d = root.dataset;
    d.steps = String(v.state.steps);
    d.rounds = String(v.state.rounds);
    d.seed = String(v.state.settings.seed);
    d.written = String(v.pass ? v.pass.n_written : 0);
    d.platform = v.runtime.platform;
    root.querySelector(".b-runtime-value").textContent = `Python ${v.runtime.python} (${v.runtime.platform})`;
  }

  let linkChanged = false; // a bench action ran since the address bar was last written
  store.subscribe(async (change, state) => {
    const v = state.view;
    switch (change.kind) {
      case "busy":
        // The address bar gets the state's link once the queue is through, not after each
        // action: a burst of clicks or a dragged slider writes one history entry, not dozens
        // (each write also makes Chromium fetch the favicon again).
        if (!change.busy && linkChanged) {
          writeURL(v.link, names);
          linkChanged = false;
        }
        root.dataset.busy = String(change.busy);
        break;
      case "act": {
        linkChanged = true;
        views.controls.draw(state);
        if (change.action.type === "load") announcer.queue(views.messages.draw(change.reply.messages));
        drawAct(change, v);
        break;
      }
      case "source":
        views.readouts.source(state.source, state.bench.settings);
        break;
      case "measuring":
        views.readouts.busy(true);
        break;
      case "measured":
        views.readouts.draw(v.readouts);
        views.strip.draw(v);
        break;
      case "ui":
        views.parts.draw(state.ui, change.before.ui);
        views.tabs.draw(state.ui);
        if (state.ui.panel !== change.before.ui.panel) drawPanels(v);
        // (A focus with reveal, a Try-it's, needs nothing more: the store opened the part's panel.)
        views.controls.setPlaying(state.ui.playing);
        motion.speed = state.ui.speed; // read by the animation running at its next frame
        if (change.action.type === "pause") settleDrawing(); // nothing runs on after Pause
        break;
      case "done": {
        const a = change.action;
        if (a.quiet || a.source === "play" && a.type === "step") break;
        if (a.type === "isolate") announcer.say(views.parts.isolation(state.ui.isolate));
        else if (a.type !== "focus") announcer.say(summary(a, change.reply, state, root));
        break;
      }
      case "error":
        if (!change.error.code) announcer.say(text("b_action_failed", { error: change.error.message })); // coded: worded by its view
        break;
      default:
        break;
    }
    for (const listener of drawn) listener(change, state);
  });

  function onStatus(s) {
    if (s.state === "ready") {
      if (!booted && performance.mark) performance.mark("specdec:python-ready");
      // Going live: said now (a link's summary follows), a link replayed first (one action),
      // then the controls come alive.
      announcer.say(status.readyMessage(s.runtime));
      status.update(booted || !query.length ? s : { state: "linking" });
      store.setLive(true);
      store.idle().then(() => {
        if (!sim.client.started) return;
        status.update(s);
        if (!booted) {
          booted = true;
          if (performance.mark) performance.mark("specdec:bench-live");
          // The worker measures the readouts once, off the first move's path.
          if (!query.length) store.dispatch({ type: "view", measure: true, quiet: true }).catch(() => {});
        }
        views.controls.enable(true);
        views.race.enable(true);
        root.dataset.mode = "live";
      });
    } else if (s.state === "failed") {
      store.setLive(false);
      views.controls.enable(false);
      views.race.enable(false);
      root.dataset.mode = "failed";
      announcer.say(status.update(s));
    } else {
      status.update(s);
    }
  }

  const api = benchAPI({ store, sim, announcer, drawn });
  // Tests and benchmarks ask for their hooks (debug.js); a reader's page never loads them.
  const debug = window.specdecDebug ? import("./debug.js").then((m) => m.attach(api)) : Promise.resolve();

  views.controls.wire();
  views.parts.wire();
  views.tabs.wire();
  views.owntext.wire();
  views.race.wire();
  const query = readQuery();
  for (const action of frame.first || []) store.dispatch(action).catch(() => {});
  const load = { type: "load", query, source: "link", ...(frame.chapters ? { chapters: frame.chapters } : {}) };
  if (query.length) store.dispatch(load).catch(() => {});
  debug.catch(() => {}).then(() => sim.client.listen(onStatus)); // the latest status at once, then each one
  publish(api);
  return api;
}
