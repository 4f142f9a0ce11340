// The bench's panels: the written tape, the bridge of meters, the readouts with the speed-up
// curve, and the exactness view. Each finds its elements inside the bench's root and draws the
// sim's answer; positions come from the answer's coordinates (view.drawing) or the spec.
import { scene, tween } from "./anim.js";
import { el } from "./dom.js";
import { fitText } from "./machine.js";
import { format, text } from "./text.js";

const KIND_NAMES = {
  kept: () => text("b_kind_kept"),
  replacement: () => text("b_kind_replacement"),
  bonus: () => text("b_kind_bonus"),
};
// What follows a rejected candidate (sim.bench.replay.checks names it).
const THEN = {
  next_residual: (tokens) => text("b_check_next_residual", { tokens }),
  next_p: (tokens) => text("b_check_next_p", { tokens }),
  draw_residual: (tokens) => text("b_check_draw_residual", { tokens }),
  draw_p: (tokens) => text("b_check_draw_p", { tokens }),
};
const VERDICT_NAMES = { kept: () => text("mark_kept"), rejected: () => text("mark_rejected"), void: () => text("mark_void") };

// --- the tape ----------------------------------------------------------------------------------
export class TapeView {
  constructor(root) {
    this.list = root.querySelector(".b-tape");
    this.count = root.querySelector(".b-tape-count");
    this.hidden = root.querySelector(".b-tape-hidden");
    // Beside the text the tape keeps its newest rows and cuts the older ones at its top edge
    // (frames.css): a row cut part-way would show its marks without its words, so it goes whole.
    if (typeof ResizeObserver === "function") new ResizeObserver(() => this.clip()).observe(this.list);
    // The cells the page was built with (the prompt) get their places too, as cell() gives them.
    [...this.list.children].forEach((li, index) => li.style.setProperty("--order", String(-8 * index)));
  }

  clip() {
    const cuts = getComputedStyle(this.list).overflowY === "hidden"; // elsewhere the older rows scroll
    // A tape whose rows all fit sits at the top, as text does (frames.css); one that does not
    // keeps its newest row on the bottom edge. Measured from the rows themselves, so that it holds
    // wherever they are now.
    const rects = [...this.list.children].map((li) => li.getBoundingClientRect());
    const rows = rects.length ? Math.max(...rects.map((r) => r.bottom)) - Math.min(...rects.map((r) => r.top)) : 0;
    const style = getComputedStyle(this.list);
    const room = this.list.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
    this.list.toggleAttribute("data-fits", cuts && rows <= room + 0.5);
    const top = this.list.getBoundingClientRect().top + this.list.clientTop;
    const newest = this.list.lastElementChild; // its row stays, even where the tape is shorter than a row
    const newestTop = newest ? newest.getBoundingClientRect().top : 0;
    for (const li of this.list.children) {
      const at = li.getBoundingClientRect().top;
      li.classList.toggle("b-tape-cut", cuts && at < top - 0.5 && at < newestTop - 0.5);
    }
  }

  // index: the token's place on the tape. Beside the text frames.css lays the tape from its end
  // with flex order: a token's is -8 x index, and the refused candidates before it sit just above.
  cell(token, index) {
    const li = el("li", `b-tok b-tok--${token.kind}`);
    li.style.setProperty("--order", String(-8 * index));
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
        li.style.setProperty("--order", String(-8 * index + refused.length - j));
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
}

// How many passes the last drawing stands for, when more than one (bench.js counts them).
export class BurstView {
  constructor(root) {
    this.note = root.querySelector(".b-tape-burst");
  }

  draw(passes) {
    this.note.hidden = passes < 2;
    if (passes >= 2) this.note.textContent = text("b_tape_burst", { n: format.int(passes) });
  }
}

// --- the bridge ----------------------------------------------------------------------------------
export class BridgeView {
  constructor(root, spec) {
    this.layout = spec.layout.bridge;
    this.meters = [...root.querySelectorAll(".b-meter")];
    this.table = root.querySelector(".b-bridge-table tbody");
    this.modes = [...root.querySelectorAll(".b-bridge-mode")];
    this.checks = root.querySelector(".b-checks");
    this.checksBox = root.querySelector(".b-checks-box");
    this.checksTitle = root.querySelector(".b-checks-title");
    this.shown = [];
  }

  // Each candidate checked in turn (view.pass.checks), and after a rejection what comes next.
  drawChecks(pass) {
    const checks = pass ? pass.checks : [];
    this.checksBox.hidden = !checks.length;
    this.checksTitle.textContent = text("b_checks_title", { n: checks.length });
    this.checks.replaceChildren(...checks.map((c) => {
      let line = text("b_check_line", {
        i: c.guess, j: c.candidate, k: c.of, token: c.text, r: c.r == null ? "—" : format.num(c.r, 2),
        ratio: format.num(c.ratio, 2), verdict: VERDICT_NAMES[c.verdict](),
      });
      const tokens = c.then_tokens.map((t) => t.text).join(text("b_list_sep"));
      if (c.then) line += " " + THEN[c.then](tokens);
      return el("li", null, line);
    }));
  }

  draw(view, animate = false) {
    const pass = view.pass;
    this.shown = view.drawing.bridge;
    for (const note of this.modes) note.hidden = !pass || note.dataset.mode !== pass.mode;
    this.drawChecks(pass);
    this.meters.forEach((_, i) => (animate ? this.waiting(i) : this.showMeter(i, false)));
    this.table.replaceChildren(...(pass ? pass.guesses : []).map((g) => {
      const row = el("tr");
      for (const v of [g.text, format.num(g.p, 4), format.num(g.q, 4), format.num(g.ratio, 3),
        g.r == null ? "—" : format.num(g.r, 3), VERDICT_NAMES[g.verdict]()]) row.append(el("td", null, v));
      return row;
    }));
  }

  waiting(i) {
    const m = this.meters[i];
    m.setAttribute("class", this.shown[i] ? "b-meter b-meter--waiting" : "b-meter b-off");
    this.setBar(m, this.shown[i], 0);
    m.querySelector(".b-meter-r").classList.add("b-off");
    m.querySelector(".b-meter-over").classList.add("b-off");
    for (const t of m.querySelectorAll("text:not(.b-rtext)")) t.textContent = "";
  }

  setBar(m, meter, grow) {
    const bar = m.querySelector(".b-meter-bar");
    const bottom = this.layout.top + this.layout.height_bar;
    const h = meter ? meter.bar_height * grow : 0;
    bar.setAttribute("y", (bottom - h).toFixed(2));
    bar.setAttribute("height", h.toFixed(2));
  }

  // Meter i: the bar rises to p/q, the line drops to r, then the verdict.
  async showMeter(i, animate) {
    const m = this.meters[i];
    const meter = this.shown[i];
    if (!m) return;
    if (!meter) {
      m.setAttribute("class", "b-meter b-off");
      return;
    }
    fitText(m.querySelector(".b-meter-text"), meter.short, meter.text, this.layout.pitch - 4);
    m.querySelector(".b-meter-ratio").textContent = format.num(meter.ratio_shown, 2);
    if (animate) {
      const s = scene();
      m.setAttribute("class", "b-meter b-meter--checking");
      await tween(220, (t) => this.setBar(m, meter, t));
      if (s.over) return; // cut short: a newer state is drawn instead
    }
    this.setBar(m, meter, 1);
    m.querySelector(".b-meter-over").classList.toggle("b-off", !meter.over);
    const r = m.querySelector(".b-meter-r");
    r.classList.toggle("b-off", meter.r_y == null);
    if (meter.r_y != null) {
      const line = r.querySelector("line");
      line.setAttribute("y1", meter.r_y);
      line.setAttribute("y2", meter.r_y);
      r.querySelector("text").setAttribute("y", (meter.r_y + 3).toFixed(2));
    }
    m.setAttribute("class", `b-meter b-meter--${meter.verdict}`);
    m.querySelector(".b-meter-mark").textContent = meter.mark;
  }
}

// --- readouts and the speed-up curve ---------------------------------------------------------------
export class ReadoutsView {
  constructor(root) {
    this.root = root;
    this.panels = [...root.querySelectorAll(".b-tabpanel--readouts, .b-tabpanel--curve")];
    this.measuring = root.querySelector(".b-measuring");
    this.curve = root.querySelector("svg.b-curve");
    this.greedyNote = root.querySelector(".b-greedy-note");
    this.alphaT = root.querySelector(".b-alpha-t");
    this.ownText = false; // the models in use are a reader's text (source())
  }

  out(selector, value) {
    this.root.querySelector(selector).textContent = value;
  }

  busy(on) {
    for (const panel of this.panels) {
      panel.setAttribute("aria-busy", on ? "true" : "false");
      panel.classList.toggle("b-busy", on);
    }
    this.measuring.hidden = !on;
  }

  draw(ro) {
    if (!ro) return this.busy(true);
    this.busy(false);
    const f = format;
    const rf = ro.roofline;
    this.out(".b-alpha", f.num(ro.alpha, 3));
    this.root.querySelector(".b-candidates-row").hidden = ro.candidates < 2;
    this.root.querySelector(".b-tpp-formula-line").hidden = ro.candidates > 1;  // a line's formula, or the tree's
    this.root.querySelector(".b-tpp-formula-tree").hidden = ro.candidates < 2;
    this.out(".b-alpha-k", f.num(ro.alpha_candidates, 3));
    this.out(".b-lanes-seq", f.int(ro.lanes_per_sequence));
    this.out(".b-tpp-counted", f.num(ro.tokens_per_pass_counted, 2));
    this.out(".b-tpp-formula", f.num(ro.tokens_per_pass_formula, 2));
    this.out(".b-speedup", f.num(ro.speedup, 2));
    this.out(".b-best-gamma", String(ro.best_gamma));
    this.out(".b-best-speedup", f.num(ro.best_speedup, 2));
    this.out(".b-batch-echo", f.int(rf.batch));
    this.out(".b-tps-weights", f.int(rf.tokens_per_s_weights_only));
    this.out(".b-tps-cache", f.int(rf.tokens_per_s_with_cache));
    this.out(".b-tps-plain-weights", f.int(rf.plain.weights_only.tokens_per_s));
    this.out(".b-tps-plain-cache", f.int(rf.plain.with_cache.tokens_per_s));
    this.out(".b-arith", f.pct(rf.arith_busy_fraction));
    this.root.querySelector(".b-rf-fit").hidden = rf.weights_fit;
    if (!rf.weights_fit) {
      this.out(".b-rf-fit-text", text("b_fit_short", { model: rf.model, gpu: rf.gpu, weights: f.num(rf.weights_gb, 1), memory: f.int(rf.memory_gb) }));
    }
    this.greedyNote.hidden = ro.measure.method !== "greedy_runs";
    this.drawAlphaT(ro.settings);
    this.drawCurve(ro.curve_drawing);
  }

  // α against temperature (the build's, on the book): the draft in use's row, its temperature marked.
  drawAlphaT(settings) {
    for (const row of this.alphaT.querySelectorAll(".b-alpha-t__draft")) {
      row.hidden = this.ownText || row.dataset.draft !== settings.draft;
    }
    for (const at of this.alphaT.querySelectorAll(".b-alpha-t__at")) {
      const now = Number(at.dataset.temperature) === settings.temperature;
      at.classList.toggle("b-alpha-t__at--now", now);
      if (now) at.setAttribute("aria-current", "true");
      else at.removeAttribute("aria-current");
    }
  }

  // The models in use: the row is the book's, so a reader's own text hides it (and says why).
  source(source, settings) {
    this.ownText = source.source === "text";
    this.alphaT.querySelector(".b-alpha-t__own").hidden = !this.ownText;
    this.drawAlphaT(settings);
  }

  drawCurve(c) {
    const svg = this.curve;
    svg.querySelector(".b-curve-line").setAttribute("points", c.points.map(([x, y]) => `${x},${y}`).join(" "));
    const one = svg.querySelector(".b-one-line");
    one.setAttribute("y1", c.one_y);
    one.setAttribute("y2", c.one_y);
    svg.querySelector(".b-one-label").setAttribute("y", (c.one_y + 3).toFixed(2));
    svg.querySelector(".b-curve-top").textContent = `${format.num(c.top, 1)}×`;
    [...svg.querySelectorAll(".b-curve-pt")].forEach((dot, i) => {
      const gamma = i + 1;
      dot.setAttribute("cx", c.points[i][0]);
      dot.setAttribute("cy", c.points[i][1]);
      dot.setAttribute("r", gamma === c.current ? "6" : "2.5");
      dot.setAttribute("class", `b-curve-pt${gamma === c.current ? " b-current" : ""}${gamma === c.best ? " b-best" : ""}`);
    });
  }
}

// --- the exactness view ----------------------------------------------------------------------------
export class ExactnessView {
  constructor(root) {
    this.rows = [...root.querySelectorAll(".b-xrow")];
    this.context = root.querySelector(".b-exact-context");
    this.beta = root.querySelector(".b-beta");
    this.table = root.querySelector(".b-exact-table tbody");
    this.why = root.querySelector(".b-exact-why");
  }

  // Which candidate of the first guess was kept and why (view.pass.choice).
  drawWhy(choice) {
    this.why.hidden = !choice;
    if (!choice) return;
    const rejected = choice.rejected.map((t) => `“${t}”`).join(text("b_list_sep"));
    if (choice.kept == null) {
      this.why.textContent = choice.drawn_from === "residual" ? text("b_exact_why_drawn", { rejected }) : text("b_exact_why_drawn_p", { rejected });
      return;
    }
    const vars = { token: choice.text, r: format.num(choice.r, 2), ratio: format.num(choice.ratio, 2), rejected, j: choice.kept, k: choice.of };
    if (choice.kept === 1 && !choice.rejected.length) this.why.textContent = text("b_exact_why_first", vars);
    else this.why.textContent = choice.against === "residual" ? text("b_exact_why_after", vars) : text("b_exact_why_after_p", vars);
  }

  draw(view) {
    this.drawWhy(view.pass && view.pass.choice);
    const ex = view.pass && view.pass.exactness;
    const bars = view.drawing.exactness;
    this.context.textContent = ex ? ex.context_text : view.sentence.text;
    this.beta.textContent = ex ? format.num(ex.beta, 3) : "";
    this.rows.forEach((g, i) => {
      const bar = bars[i];
      g.classList.toggle("b-off", !bar);
      if (!bar) return;
      const row = ex.tokens[i];
      const set = (selector, attrs) => {
        const node = g.querySelector(selector);
        for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
      };
      g.querySelector(".b-xtext").textContent = bar.text;
      set(".b-xmin", { width: bar.min_width });
      set(".b-xres", { x: bar.res_x, width: bar.res_width });
      set(".b-pline", { x1: bar.p_x, x2: bar.p_x });
      set(".b-qline", { x2: bar.q_x });
      g.querySelector(".b-xval").textContent = `p ${format.num(row.p, 3)} · q ${format.num(row.q, 3)}`;
    });
    this.table.replaceChildren(...(ex ? ex.tokens : []).map((row) => {
      const tr = el("tr");
      for (const v of [row.text, format.num(row.p, 4), format.num(row.q, 4), format.num(row.min, 4), format.num(row.residual_share, 4)]) tr.append(el("td", null, v));
      return tr;
    }));
  }
}
