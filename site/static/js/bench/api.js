// The bench's public API: the one way the page's other scripts (the chapters' Try-it runner, the
// embed, the "Embed this" dialog) and the debug hooks reach the bench. startBench makes it
// (benchAPI) and publishes it here; whenBench() resolves with it, bench() is it or null.
// Calls: dispatch, run, idle, getState, subscribe (told of every change once the views drew it),
// announce, retry (docs/bench-protocol.md). `tell`/`hear` pass the page's own news (a Try-it's
// answer) to whoever listens: nobody on a reader's page; the debug module in tests (debug.js).
let published = null;
const waiting = [];
const listeners = {};

export function benchAPI({ store, sim, announcer, drawn }) {
  return {
    dispatch: (action) => store.dispatch(action),
    run: (actions) => store.run(actions),
    idle: () => store.idle(),
    getState: () => store.getState(),
    subscribe: (listener) => drawn.push(listener),
    retry: () => sim.client.restart(),
    announce: (message) => announcer.say(message), // the one live region, for the chapters' Try it answers
    sim, // the worker's client, for the debug module's raw calls and timings
  };
}

export function publish(api) {
  published = api;
  for (const resolve of waiting.splice(0)) resolve(api);
}

export const bench = () => published;

export const whenBench = () => (published ? Promise.resolve(published) : new Promise((resolve) => waiting.push(resolve)));

export function tell(kind, detail) {
  for (const listener of listeners[kind] || []) listener(detail);
}

export function hear(kind, listener) {
  (listeners[kind] ||= []).push(listener);
}
