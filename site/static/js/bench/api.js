// The bench's public API: the one way the page's other scripts (page.js, embed.js, the chapters'
// Try-it runner, the embed's host messages, the "Embed this" dialog, the phone's sheet, focus
// mode) and the debug hooks reach the bench: none of them reads the bench's markup or its data.
// openBench(options) starts it (bench.js) and publishes its API: whenBench() resolves with it,
// bench() is it or null. Its calls (docs/bench-protocol.md):
//   dispatch(action), run([actions]), idle(), getState()   the store's (store.js)
//   shown()               resolves once the queue is idle and its state is on view (no pass animating)
//   subscribe(listener)   told (change, state) of every change once the views drew it
//   mode()                static, live or failed (a change is told as {kind: "mode", mode})
//   chapter({id, part})   the chapter in view: its part in focus, the skip link back to it
//   announce(message)     said in the bench's one live region
//   retry()               the worker started again
//   layout()              the spec's layout constants (the embed's snippet height)
//   on(kind, listener), has(control), show({picture, fill}), focus(what), height()
//                         the bench's side of its frames (frame.js): its buttons for the frame
//                         ("close", "fill", "embed") and its height ("resize"), told as events
// `tell`/`hear` pass the page's own news (a Try-it's answer) to whoever listens: the embed's host
// messages (embed-host.js); the debug module in tests (debug.js).
import { startBench } from "./bench.js";
import { nextTask } from "./dom.js";

let published = null;
const waiting = [];
const listeners = {};

export function openBench(options) {
  const started = startBench(options);
  if (!started) return null;
  published = started.api;
  for (const resolve of waiting.splice(0)) resolve(published);
  // The worker's status is let in after those waiting for the bench have it (the debug hooks
  // time every call from the first), in a task of its own.
  nextTask().then(started.listen);
  return published;
}

export const bench = () => published;

export const whenBench = () => (published ? Promise.resolve(published) : new Promise((resolve) => waiting.push(resolve)));

export function tell(kind, detail) {
  for (const listener of listeners[kind] || []) listener(detail);
}

export function hear(kind, listener) {
  (listeners[kind] ||= []).push(listener);
}
