// The bench's line to the sim worker (sim-client.js, started early by sim-start.js), with each
// call's time kept for bench/browser_perf.py.
import { simClient } from "../sim-start.js";

// The worker's start stages (sim-worker.js): "download" and "start" always; the fallback adds
// "fallback", "package" and "model".
export const STAGES = ["download", "start", "fallback", "package", "model"];

export function connect(config, onProgress) {
  const client = simClient(config);
  client.listen(onProgress);
  const timings = [];
  window.specdecBenchTimings = timings;
  return {
    ready: client.ready,
    async call(command, args) {
      const t0 = performance.now();
      const result = await client.call(command, args);
      timings.push({ command, ms: performance.now() - t0 });
      if (timings.length > 500) timings.shift();
      return result;
    },
  };
}
