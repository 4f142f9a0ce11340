// The bench: the store (state and actions), the worker client and the views, wired together.
// Every view draws from the store's changes with onChange(change, state) (store.js lists the
// changes; pass.js adds "pass" and "drawn", live.js "mode"). The page reaches the bench through
// api.js (openBench), which calls startBench.
import { keepForOffline, simClient } from "../startup/sim-start.js";
import { Announcer } from "./announce.js";
import { BridgeView } from "./bridge.js";
import { ControlsView } from "./controls.js";
import { CurveView } from "./curve.js";
import { ExactView } from "./exact.js";
import { FrameControls } from "./frame.js";
import { FreeDraftView } from "./freedraft.js";
import { withHeads } from "./heads.js";
import { LiveSwitch } from "./live.js";
import { MachineView } from "./machine.js";
import { OwnTextView } from "./owntext.js";
import { PartsView } from "./parts.js";
import { PassPlayer } from "./pass.js";
import { PendingView } from "./pending.js";
import { RaceView } from "./race.js";
import { ReadoutsView } from "./readouts.js";
import { LinkMessagesView, StatusView } from "./status.js";
import { Store } from "./store.js";
import { StripView } from "./strip.js";
import { readPanels, TabsView } from "./tabs.js";
import { TapeView } from "./tape.js";
import { TubesView } from "./tubes.js";
import { AddressView } from "./url.js";

// The worker (started as the page opened: sim-boot.js, sim-start.js), and the offline copy, made
// once live.
function connect() {
  const client = simClient();
  return { client, call: withHeads((command, args, onPartial) => client.call(command, args, onPartial)), keepForOffline };
}

// options: what the frame around the bench adds (live.js): `chapters` and `first`. Returns {api,
// listen}: the bench's API (api.js publishes it), and the call that lets the worker's status in
// (api.js makes it once the API is published).
export function startBench(options = {}) {
  const root = document.getElementById("b");
  if (!root) return null;
  const { spec, view } = JSON.parse(document.getElementById("bench-state").textContent);
  const sim = connect();
  const store = new Store({ sim, state: view.state, view, panels: readPanels(root), protocol: spec.protocol });
  const announcer = new Announcer(root);
  const status = new StatusView(root, () => {
    status.update({ state: "retrying" });
    sim.client.restart();
  });
  const frame = new FrameControls(root);
  const machine = new MachineView(root, spec);
  const bridge = new BridgeView(root, spec);
  const parts = new PartsView(root, store, announcer);
  // Told in this order: the tabs show a panel before the panels draw in it, and the summary is
  // said before the race's and the own text's words. The bench's
  // parameters, and the legacy ones its link replaces (an old link's greedy=1 goes), are the
  // address bar's.
  const controls = new ControlsView(root, spec, store);
  const views = [
    new TabsView(root, store), parts, controls, new LinkMessagesView(root, announcer),
    new PassPlayer(store, machine, bridge), machine, bridge, new TapeView(root), new ExactView(root),
    new TubesView(root), new ReadoutsView(root), new CurveView(root), new StripView(document.querySelector(".b-strip"), root),
    status, new AddressView([...spec.parameters.map((p) => p.name), ...spec.legacy_parameters]),
    announcer, new RaceView(root, spec, store, announcer), new OwnTextView(root, spec, store, announcer), frame,
    new FreeDraftView(root),
    new PendingView(root), // last: the figures stop being pending once every view drew the link's state
  ];
  for (const v of views) store.subscribe((change, state) => v.onChange(change, state));
  for (const v of views) if (v.wire) v.wire();
  const live = new LiveSwitch({ root, store, sim, status, announcer });
  controls.readLink(live.query); // the link's settings before the sim has read it
  live.start(options);
  return { api: benchAPI({ store, sim, announcer, parts, live, frame, spec }), listen: () => live.listen() };
}

// The calls api.js documents.
function benchAPI({ store, sim, announcer, parts, live, frame, spec }) {
  return {
    ...frame.api(), // on, has, show, focus, height: the bench's side of its frames (frame.js)
    layout: () => spec.layout, // the drawings' and frames' constants (the embed's snippet height)
    dispatch: (action) => store.dispatch(action),
    run: (actions) => store.run(actions),
    idle: () => store.idle(),
    // The queue idle and its state on view: the pass animating drawn to its end (or skipped, or
    // cut short, by a newer state). A Try-it's answer waits for it, so it describes what is shown.
    shown: async () => {
      await store.idle();
      await store.pace();
    },
    getState: () => store.getState(),
    subscribe: (listener) => store.subscribe(listener), // after the views: told once they drew the change
    mode: () => live.mode, // static, live or failed (each change is told to subscribers as {kind: "mode"})
    chapter: (inView) => parts.chapter(inView),
    retry: () => sim.client.restart(),
    announce: (message) => announcer.say(message), // the one live region, for the chapters' Try it answers
    sim, // the worker's client, for the debug module's raw calls and timings
  };
}
