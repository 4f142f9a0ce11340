// Timing for the bench's animations: frames, durations scaled by the speed control, and a
// switch that turns every animation into its end state (reduced motion, or replaying a link).
// An animation is only a view of a state the store already holds: cutShort() ends every tween
// and pause running now at once (a newer state is about to be drawn), and an animation checks
// its scene's `over` after each wait to stop where it is.

const reduced = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : { matches: false };

export const motion = {
  speed: 1,
  instant: false,
  get still() {
    return this.instant || reduced.matches;
  },
};

// The animations running now share one scene; cutShort() closes it and opens the next.
let current = { over: false, wake: new Set() };

export function scene() {
  return current;
}

export function cutShort() {
  const closing = current;
  current = { over: false, wake: new Set() };
  closing.over = true;
  for (const wake of closing.wake) wake();
}

// Run fn(t) for t from 0 to 1 over `ms` milliseconds at normal speed; resolve at the end, or at
// once when the scene is cut short (fn is then left where it was: the caller draws the end).
// The speed is read at every frame, so a change of speed applies to the animation running.
export function tween(ms, fn) {
  if (motion.still || ms <= 0) {
    fn(1);
    return Promise.resolve();
  }
  const s = current;
  return new Promise((resolve) => {
    let t = 0;
    let last = null;
    const end = () => {
      s.wake.delete(end);
      resolve();
    };
    s.wake.add(end);
    const frame = (now) => {
      if (s.over) return;
      if (last !== null) t = Math.min(1, t + (Math.max(0, now - last) * motion.speed) / ms);
      last = now;
      fn(t);
      if (t < 1) requestAnimationFrame(frame);
      else end();
    };
    requestAnimationFrame(frame);
  });
}

export function pause(ms) {
  if (motion.still) return Promise.resolve();
  const s = current;
  return new Promise((resolve) => {
    const end = () => {
      clearTimeout(timer);
      s.wake.delete(end);
      resolve();
    };
    const timer = setTimeout(end, ms / motion.speed);
    s.wake.add(end);
  });
}

export const ease = (t) => (t < 0.5 ? 2 * t * t : 1 - 2 * (1 - t) * (1 - t));
