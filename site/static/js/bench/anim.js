// Timing for the bench's animations: frames, durations scaled by the speed control, and a
// switch that turns every animation into its end state (reduced motion, or replaying a link).

const reduced = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : { matches: false };

export const motion = {
  speed: 1,
  instant: false,
  get still() {
    return this.instant || reduced.matches;
  },
};

// Run fn(t) for t from 0 to 1 over `ms` milliseconds (scaled by the speed); resolve at the end.
export function tween(ms, fn) {
  if (motion.still || ms <= 0) {
    fn(1);
    return Promise.resolve();
  }
  const duration = ms / motion.speed;
  return new Promise((resolve) => {
    const t0 = performance.now();
    const frame = (now) => {
      const t = Math.max(0, Math.min(1, (now - t0) / duration)); // a frame may be stamped before t0
      fn(t);
      if (t < 1) requestAnimationFrame(frame);
      else resolve();
    };
    requestAnimationFrame(frame);
  });
}

export function pause(ms) {
  if (motion.still) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, ms / motion.speed));
}

export const ease = (t) => (t < 0.5 ? 2 * t * t : 1 - 2 * (1 - t) * (1 - t));
