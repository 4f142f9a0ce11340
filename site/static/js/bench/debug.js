// Hooks for tests and benchmarks, in one module a reader's page never loads: bench.js imports it
// only when the page was opened with window.specdecDebug set (tests/browser/conftest.py sets it in
// an init script; so do the benchmarks). It adds
//   window.specdecBench         the bench's API (api.js), plus call(command, args): a raw request
//   window.specdecBenchTimings  each worker call's command and milliseconds, the last 500
//                               (message passing, JSON and Python included; benchmarks/browser_perf.py)
//   the "specdec:tryit" event   on each Try-it box once its answer is shown: {final, snapshots, words}
import { hear } from "./api.js";

export function attach(api) {
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
  window.specdecBench = { ...api, call: (command, args) => api.sim.call(command, args) };
  hear("tryit", ({ box, ...detail }) => box.dispatchEvent(new CustomEvent("specdec:tryit", { bubbles: true, detail })));
}
