// Hooks for tests and benchmarks, in one module a reader's page never loads: no page script
// imports it; a test's or a benchmark's browser loads it beside the page's own module
// (tests/helpers/benchpage.py: DEBUG_HOOKS, an init script, or LOAD_DEBUG_HOOKS in a page already
// open). Each hook is a function of HOOKS, given the bench's API once it is published:
//   window.specdecBench         the bench's API (api.js), plus call(command, args): a raw request
//   window.specdecBenchTimings  each worker call's command and milliseconds, the last 500
//                               (message passing, JSON and Python included; benchmarks/browser_perf.py)
//   the bench root's marks      data-steps, -rounds, -seed, -written once a state is drawn,
//                               data-platform (the worker's Python, or the build's before it),
//                               data-busy (the queue runs), data-animating (a pass animates) and
//                               data-drawn (how many states were drawn since the hooks arrived)
// and, heard from the start (a Try-it's answer can come before the bench is live),
//   the "specdec:tryit" event   on each Try-it box once its answer is shown: {final, snapshots, words}
// Its exports are the page's own modules, for tests that import this module: bundled, those live in
// the chunks the page shares with this module (sitebuild/bundles.py), so importing them by their
// own names would load second copies, or nothing; importing them from here gives the page's own.
import { hear, whenBench } from "./api.js";

export { simClient, startSim } from "../startup/sim-start.js";
export { format } from "./text.js";

function timeCalls(api) {
  const timings = [];
  const call = api.sim.call.bind(api.sim);
  api.sim.call = async (command, args, onPartial) => {
    const t0 = performance.now();
    const result = await call(command, args, onPartial);
    timings.push({ command, ms: performance.now() - t0 });
    if (timings.length > 500) timings.shift();
    return result;
  };
  window.specdecBenchTimings = timings;
}

function exposeAPI(api) {
  window.specdecBench = { ...api, call: (command, args) => api.sim.call(command, args) };
}

// The marks follow the drawing (pass.js: "pass", then "drawn"), so a test that waits for one sees
// the state drawn; they start from the state drawn when the hooks arrive.
function markState(api) {
  const d = document.getElementById("b").dataset;
  const drawn = (v) => {
    d.steps = String(v.state.steps);
    d.rounds = String(v.state.rounds);
    d.seed = String(v.state.settings.seed);
    d.written = String(v.pass ? v.pass.n_written : 0);
    d.platform = v.python.platform;
  };
  d.busy = "false";
  d.animating = "false";
  drawn(api.getState().view);
  let count = 0;
  d.drawn = "0";
  api.subscribe((change) => {
    if (change.kind === "busy") d.busy = String(change.busy);
    else if (change.kind === "pass") d.animating = String(change.animated);
    else if (change.kind === "drawn") {
      d.animating = "false";
      d.drawn = String(++count);
      drawn(change.view);
    }
  });
}

export const HOOKS = [timeCalls, exposeAPI, markState];

hear("tryit", ({ box, ...detail }) => box.dispatchEvent(new CustomEvent("specdec:tryit", { bubbles: true, detail })));
whenBench().then((api) => {
  for (const hook of HOOKS) hook(api);
});
