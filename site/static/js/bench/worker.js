// The bench's line to the sim worker (sim-client.js), with each call's time kept for
// bench/browser_perf.py.
import { SimClient } from "../sim-client.js";

export const STAGES = ["runtime", "package", "model"];

export function connect(config, onProgress) {
  const client = new SimClient({
    workerURL: config.worker,
    pyodideURL: config.pyodide,
    simURL: config.sim,
    modelURL: config.model,
    onProgress,
  });
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
