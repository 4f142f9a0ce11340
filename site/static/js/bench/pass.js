// The pass on the machine. A click's pass (or clicks joined into one act, or a step until) is
// animated: the machine's drums, the bridge's meters in step with them (machine.js animatePass);
// a count of passes from a link, a chapter or the race, and every other action, is drawn at once.
// The animation is a view of the state, never a gate on it: the store goes on at once. A newer
// pass skips the one being animated (it is drawn at rest at once, then the newer one animates), a
// newer state of any other kind cuts it short and is drawn at once, Pause settles it at rest, and
// Play waits for the drawing (store.pace). So what is shown is never more than the pass being
// animated behind the state: the tape shows the state without that pass (tape.js) until it ends.
// The player tells every view (and the API's subscribers) two changes:
//   {kind: "pass", view, animated, burst}     a state to draw, animated or at once; burst: the
//                                            passes the act applied at once (clicks joined, a
//                                            step until)
//   {kind: "drawn", view, written, animated, skipped}
//                                            that state drawn to its end (animated: by the
//                                            animation, so the machine and the bridge show it;
//                                            skipped: at rest, as a newer pass starts to animate)
// Both follow the store's change that made the state ("act", or "ui" for Pause) once every
// listener has heard it, before the store's next change and in the same task (no paint between).
import { cutShort, motion } from "./anim.js";

export class PassPlayer {
  constructor(store, machine, bridge) {
    this.store = store;
    this.machine = machine;
    this.bridge = bridge;
    this.animation = null; // {view, done}: the pass being animated
    this.burst = 0;
    store.pace = () => (this.animation ? this.animation.done : Promise.resolve());
  }

  tell(change) {
    queueMicrotask(() => this.store.notify(change));
  }

  onChange(change, state) {
    if (change.kind === "act") this.play(change, state.view);
    else if (change.kind === "ui") {
      motion.speed = state.ui.speed; // read by the animation running at its next frame
      if (change.action.type === "pause") this.settle(); // nothing runs on after Pause
    }
  }

  play({ action, reply, before }, v) {
    const step = action.type === "step" && !reply.capped;
    this.burst = action.type === "step" ? Math.max(0, v.state.steps - before.bench.steps) : 0;
    const written = step ? v.pass.n_written : 0;
    const animated = step && (!action.count || action.joined) && !motion.still;
    if (animated) this.settle(true); // the pass running is skipped: drawn at rest before the next one
    else if (this.animation) {
      this.animation = null;
      cutShort();
    }
    this.tell({ kind: "pass", view: v, animated, burst: this.burst });
    if (!animated) {
      this.tell({ kind: "drawn", view: v, written, animated: false });
      return;
    }
    const current = { view: v };
    current.done = this.machine.animatePass(v.drawing.machine, this.bridge).then((finished) => {
      if (this.animation !== current) return; // cut short: a newer state is drawn instead
      this.animation = null;
      if (finished) this.tell({ kind: "drawn", view: v, written, animated: true });
    });
    this.animation = current;
  }

  // The pass being animated, drawn at rest at once. skipped: a newer pass animates next (the
  // machine, which is animating it already, is not drawn again).
  settle(skipped = false) {
    if (!this.animation) return;
    const { view } = this.animation;
    this.animation = null;
    cutShort();
    this.tell({ kind: "drawn", view, written: view.pass ? view.pass.n_written : 0, animated: false, skipped });
  }
}
