// The written tape beside the machine (templates/_tape.html): every token written so far, marked
// by kind, with the last pass's refused candidates struck out, and the note that the drawing
// stands for several passes. Drawn when the pass player (pass.js) says a state is drawn; while a
// pass animates, the tape shows the state without that pass (the machine is writing it).
import { el } from "./dom.js";
import { format, text } from "./text.js";

const KIND_NAMES = {
  kept: () => text("b_kind_kept"),
  replacement: () => text("b_kind_replacement"),
  bonus: () => text("b_kind_bonus"),
};

// Beside the text frames.css lays the tape from its end with flex order: a token's place is
// -8 x its index, and its refused candidates (fewer than 8: `before` 1, 2, ...) stand just before it.
const place = (li, index, before = 0) => li.style.setProperty("--order", String(-8 * index + before));

// The tape as it was before its last pass (of `written` tokens): what stands written while the
// machine animates that pass. Its window keeps its start (`hidden`): the tokens before it are as many.
function withoutLastPass(tape, written) {
  return { ...tape, tokens: tape.tokens.slice(0, tape.tokens.length - written), written: tape.written - written,
           passes: tape.passes - 1 };
}

export class TapeView {
  constructor(root) {
    this.list = root.querySelector(".b-tape");
    this.count = root.querySelector(".b-tape-count");
    this.hidden = root.querySelector(".b-tape-hidden");
    this.burst = root.querySelector(".b-tape-burst");
    // Beside the text the tape keeps its newest rows and cuts the older ones at its top edge
    // (frames.css): a row cut part-way would show its marks without its words, so it goes whole.
    if (typeof ResizeObserver === "function") new ResizeObserver(() => this.clip()).observe(this.list);
    // The cells the page was built with (the prompt) get their places too, as cell() gives them.
    [...this.list.children].forEach((li, index) => place(li, index));
  }

  clip() {
    const style = getComputedStyle(this.list);
    const cuts = style.overflowY === "hidden"; // elsewhere the older rows scroll
    // Everything is read before anything is written, so that the tape is laid out once (a class
    // written between two reads had the next read lay the page out again, once per row).
    // A tape whose rows all fit sits at the top, as text does (frames.css), and none is cut; one
    // that does not keeps its newest row on the bottom edge. Measured from the rows themselves, so
    // that it holds wherever they are now.
    const items = [...this.list.children];
    const rects = items.map((li) => li.getBoundingClientRect());
    const rows = rects.length ? Math.max(...rects.map((r) => r.bottom)) - Math.min(...rects.map((r) => r.top)) : 0;
    const room = this.list.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
    const fits = cuts && rows <= room + 0.5;
    let tops = rects.map((r) => r.top);
    if (!fits && this.list.hasAttribute("data-fits")) {
      // No longer fitting, the rows are laid from the bottom edge: read where they are now.
      this.list.removeAttribute("data-fits");
      tops = items.map((li) => li.getBoundingClientRect().top);
    }
    const top = this.list.getBoundingClientRect().top + this.list.clientTop;
    const newestTop = tops.length ? tops[tops.length - 1] : 0; // its row stays, even where the tape is shorter than a row
    this.list.toggleAttribute("data-fits", fits);
    items.forEach((li, i) => li.classList.toggle("b-tape-cut", cuts && !fits && tops[i] < top - 0.5 && tops[i] < newestTop - 0.5));
  }

  // index: the token's place on the tape (see place()).
  cell(token, index) {
    const li = el("li", `b-tok b-tok--${token.kind}`);
    place(li, index);
    li.append(el("span", "b-tok__text", token.text));
    const mark = el("span", "b-tok__mark", token.mark);
    mark.setAttribute("aria-hidden", "true");
    li.append(mark);
    if (KIND_NAMES[token.kind]) li.append(el("span", "visually-hidden", ` (${KIND_NAMES[token.kind]()})`));
    return li;
  }

  // fresh: how many tokens at the end were written by the pass just drawn (they flash in).
  // A tape that only grew gets its new cells appended (a step, the usual change): rebuilding
  // hundreds of cells per pass was the bench's largest cost per click.
  // pass: the last pass (view.pass). With several candidates for a guess, the ones the big model
  // refused stand struck out just before the token written at their position, in the order tried:
  // the candidates of a position side by side (the last pass's only; the next pass replaces them).
  drawCandidates(tape, pass, candidates) {
    for (const li of this.list.querySelectorAll(".b-cand")) li.remove();
    if (!pass || candidates < 2) return;
    const cells = this.list.querySelectorAll(".b-tok");
    const first = tape.tokens.length - pass.n_written;
    pass.positions.forEach((position, depth) => {
      const index = first + depth;
      const cell = cells[index];
      if (!cell) return;
      const refused = position.candidates.filter((c) => c.checked && !c.kept);
      refused.forEach((c, j) => {
        const li = el("li", "b-cand");
        place(li, index, refused.length - j);
        li.append(el("span", "b-cand__text", c.text));
        const mark = el("span", "b-cand__mark", "✕");
        mark.setAttribute("aria-hidden", "true");
        li.append(mark, el("span", "visually-hidden", ` (${text("b_kind_refused")})`));
        cell.before(li);
      });
    });
  }

  draw(tape, fresh = 0, pass = null, candidates = 1) {
    const same = (a, b) => a.text === b.text && a.kind === b.kind && a.mark === b.mark;
    const kept = this.drawn && tape.hidden === this.drawnHidden && this.drawn.length <= tape.tokens.length - fresh
      && this.drawn.every((t, i) => same(t, tape.tokens[i])) ? this.drawn.length : 0;
    const cells = tape.tokens.slice(kept).map((t, i) => this.cell(t, kept + i));
    cells.slice(cells.length - fresh).forEach((li) => li.classList.add("b-tok--new"));
    if (kept) {
      for (const li of this.list.querySelectorAll(".b-tok--new")) li.classList.remove("b-tok--new");
      this.list.append(...cells);
    } else {
      this.list.replaceChildren(...cells);
    }
    this.drawn = tape.tokens;
    this.drawnHidden = tape.hidden;
    this.drawCandidates(tape, pass, candidates);
    this.list.scrollTop = this.list.scrollHeight; // the newest tokens in view
    this.clip();
    this.hidden.hidden = !tape.hidden;
    this.hidden.textContent = text("b_tape_hidden", { n: format.int(tape.hidden) });
    this.count.textContent = text("b_tape_count", { tokens: tape.written, passes: tape.passes });
  }

  // How many passes the last drawing stands for, when more than one (pass.js counts them).
  drawBurst(passes) {
    this.burst.hidden = passes < 2;
    if (passes >= 2) this.burst.textContent = text("b_tape_burst", { n: format.int(passes) });
  }

  onChange(change) {
    if (change.kind === "pass") {
      this.drawBurst(change.burst);
      if (change.animated) this.draw(withoutLastPass(change.view.tape, change.view.pass.n_written));
    } else if (change.kind === "drawn") {
      const v = change.view;
      this.draw(v.tape, change.written, v.pass, v.state.settings.candidates);
    }
  }
}
