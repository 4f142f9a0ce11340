// The phone's strip (templates/_strip.html): this pass of the machine's tape, as chips marked
// like its slots, one readout, tokens per pass, and the name of the part the chapter in view (or a
// Try it) lit, read from the machine's own label (the bar's idle words when none is lit). It lives
// outside the bench (the bench is a closed sheet on phones while the strip shows), so it is
// handed in; pages without it pass null.
import { el, setText } from "./dom.js";
import { format, text } from "./text.js";

export class StripView {
  constructor(strip, root) {
    this.root = root;
    this.tape = strip && strip.querySelector(".b-strip__tape");
    this.readout = strip && strip.querySelector(".b-strip__readout");
    this.part = strip && strip.querySelector(".b-strip__part");
    this.idle = this.part && this.part.textContent;
    // The bar's tape is as tall as the bar leaves it: a chip its edge would cut goes whole (still
    // read by a screen reader); the sheet's tape shows them all.
    if (this.tape && typeof ResizeObserver === "function") new ResizeObserver(() => this.clip()).observe(this.tape);
  }

  clip() {
    const bottom = this.tape.getBoundingClientRect().bottom;
    const chips = [...this.tape.children];
    const cut = chips.map((chip) => chip.getBoundingClientRect().bottom > bottom + 0.5); // every read before any write
    chips.forEach((chip, i) => chip.classList.toggle("b-chip--cut", cut[i]));
  }

  onChange(change, state) {
    if (change.kind === "drawn") this.draw(change.view);
    else if (change.kind === "measured") this.draw(state.view);
    else if (change.kind === "ui") this.name(state.ui.isolate || state.ui.focus);
  }

  name(part) {
    if (!this.part) return;
    const label = part && this.root.querySelector(`#b-part-${part}-label`);
    setText(this.part, label ? label.textContent : this.idle);
  }

  draw(view) {
    if (!this.tape) return;
    this.tape.replaceChildren(...view.drawing.machine.slots.filter((s) => s.kind !== "empty").map((s) => {
      const chip = el("li", `b-chip b-chip--${s.kind}`);
      chip.append(el("span", "b-chip__text", s.text), el("span", "b-chip__mark", s.mark)); // whole: a chip grows with its word
      return chip;
    }));
    this.clip();
    if (view.readouts) this.readout.textContent = text("b_strip_readout", { tpp: format.num(view.readouts.tokens_per_pass_counted, 2) });
  }
}
