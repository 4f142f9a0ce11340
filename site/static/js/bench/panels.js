// The bench's panels: the written tape, the bridge of meters, the readouts with the speed-up
// curve, and the exactness view. Every value drawn arrives from the sim; sizes are layout.
import { tween } from "./anim.js";
import { el } from "./dom.js";
import { fitText } from "./machine.js";

const TAPE_SHOWN = 60;


// --- the tape ----------------------------------------------------------------------------------
export class Tape {
  constructor(root, strings) {
    this.list = root.querySelector(".b-tape");
    this.count = root.querySelector(".b-tape-count");
    this.strings = strings;
  }

  reset(tokens) {
    this.list.replaceChildren(...tokens.map((t) => this.cell(t.text, "prefix")));
  }

  cell(text, kind) {
    const li = el("li", `b-tok b-tok--${kind}`);
    li.append(el("span", "b-tok__text", text));
    const mark = el("span", "b-tok__mark", { prefix: "", kept: "●", replacement: "◆", bonus: "◆" }[kind]);
    mark.setAttribute("aria-hidden", "true");
    li.append(mark);
    if (kind !== "prefix") li.append(el("span", "visually-hidden", ` (${this.strings["b_kind_" + kind]})`));
    return li;
  }

  append(token) {
    const li = this.cell(token.text, token.kind);
    li.classList.add("b-tok--new");
    this.list.append(li);
    while (this.list.children.length > TAPE_SHOWN) this.list.firstElementChild.remove();
  }

  settle() {
    for (const li of this.list.querySelectorAll(".b-tok--new")) li.classList.remove("b-tok--new");
  }

  setCount(tokens, passes) {
    this.count.textContent = this.strings.b_tape_count.replace("{tokens}", String(tokens)).replace("{passes}", String(passes));
  }

  text() {
    return [...this.list.querySelectorAll(".b-tok__text")].map((s) => s.textContent);
  }
}

// --- the bridge ----------------------------------------------------------------------------------
export class Bridge {
  constructor(root, strings, fmt) {
    this.meters = [...root.querySelectorAll(".b-meter")];
    this.table = root.querySelector(".b-bridge-table tbody");
    this.strings = strings;
    this.fmt = fmt;
    this.top = 14;
    this.height = 70;
  }

  clear(gamma) {
    this.meters.forEach((m, i) => {
      m.setAttribute("class", i < gamma ? "b-meter b-meter--waiting" : "b-meter b-off");
      this.setBar(m, 0);
      m.querySelector(".b-meter-r").classList.add("b-off");
      m.querySelector(".b-meter-over").classList.add("b-off");
      m.querySelector(".b-meter-mark").textContent = "";
      m.querySelector(".b-meter-text").textContent = "";
      m.querySelector(".b-meter-ratio").textContent = "";
    });
    this.table.replaceChildren();
  }

  setBar(meter, fraction) {
    const bar = meter.querySelector(".b-meter-bar");
    const h = Math.max(0, Math.min(1, fraction)) * this.height;
    bar.setAttribute("y", (this.top + this.height - h).toFixed(2));
    bar.setAttribute("height", h.toFixed(2));
  }

  verdict(g) {
    return g.kept ? "kept" : g.checked ? "rejected" : "void";
  }

  // Show guess i: the bar rises to p/q, the line drops to r, then the verdict.
  async show(i, g) {
    const m = this.meters[i];
    if (!m) return;
    const text = m.querySelector(".b-meter-text");
    text.textContent = g.text;
    fitText(text, 38);
    m.querySelector(".b-meter-ratio").textContent = this.fmt.num(Math.min(g.ratio, 9.99), 2);
    m.setAttribute("class", "b-meter b-meter--checking");
    const ratio = Math.min(1, g.ratio);
    if (g.checked) await tween(220, (t) => this.setBar(m, ratio * t));
    else this.setBar(m, ratio);
    m.querySelector(".b-meter-over").classList.toggle("b-off", g.ratio < 1);
    const rGroup = m.querySelector(".b-meter-r");
    if (g.r != null) {
      const y = this.top + this.height - g.r * this.height;
      const x = Number(m.querySelector(".b-meter-frame").getAttribute("x"));
      const line = rGroup.querySelector("line");
      line.setAttribute("y1", y.toFixed(2));
      line.setAttribute("y2", y.toFixed(2));
      line.setAttribute("x1", String(x - 3));
      line.setAttribute("x2", String(x + 33));
      const label = rGroup.querySelector("text");
      label.setAttribute("y", (y + 3).toFixed(2));
      rGroup.classList.remove("b-off");
    }
    const verdict = this.verdict(g);
    m.setAttribute("class", `b-meter b-meter--${verdict}`);
    m.querySelector(".b-meter-mark").textContent = { kept: "●", rejected: "✕", void: "·" }[verdict];
    const row = el("tr");
    const s = this.strings;
    for (const v of [g.text, this.fmt.num(g.p, 4), this.fmt.num(g.q, 4), this.fmt.num(g.ratio, 3),
      g.r == null ? "—" : this.fmt.num(g.r, 3), s[{ kept: "mark_kept", rejected: "mark_rejected", void: "mark_void" }[verdict]]]) {
      row.append(el("td", null, v));
    }
    this.table.append(row);
  }
}

// --- readouts and the speed-up curve ---------------------------------------------------------------
export class Readouts {
  constructor(root, strings, fmt) {
    this.root = root;
    this.strings = strings;
    this.fmt = fmt;
    this.panel = root.querySelector(".b-readouts").closest(".b-panel");
    this.curve = root.querySelector("svg.b-curve");
  }

  out(cls, text) {
    this.root.querySelector(cls).textContent = text;
  }

  busy(on) {
    this.panel.setAttribute("aria-busy", on ? "true" : "false");
    this.panel.classList.toggle("b-busy", on);
  }

  show(ro, settings) {
    const f = this.fmt;
    const rf = ro.roofline;
    this.out(".b-alpha", f.num(ro.alpha, 3));
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
    this.drawCurve(ro.curve, settings.gamma, ro.best_gamma);
  }

  drawCurve(curve, gamma, best) {
    const svg = this.curve;
    const pad = Number(svg.dataset.ymaxPad || 1.15);
    const ymax = Math.max(Math.max(...curve.map((c) => c[1])) * pad, 1.2);
    const x = (g) => 50 + (g - 1) * 38;
    const y = (s) => 100 - (s * 92) / ymax;
    svg.querySelector(".b-curve-line").setAttribute("points", curve.map(([g, s]) => `${x(g)},${y(s).toFixed(2)}`).join(" "));
    const one = svg.querySelector(".b-one-line");
    one.setAttribute("y1", y(1).toFixed(2));
    one.setAttribute("y2", y(1).toFixed(2));
    one.nextElementSibling.setAttribute("y", (y(1) + 3).toFixed(2));
    svg.querySelector(".b-curve-ymax").textContent = `${ymax.toFixed(1)}×`;
    const points = [...svg.querySelectorAll(".b-curve-pt")];
    curve.forEach(([g, s], i) => {
      const c = points[i];
      c.setAttribute("cx", String(x(g)));
      c.setAttribute("cy", y(s).toFixed(2));
      c.setAttribute("r", g === gamma ? "6" : "2.5");
      c.setAttribute("class", `b-curve-pt${g === gamma ? " b-current" : ""}${g === best ? " b-best" : ""}`);
    });
  }
}

// --- the exactness view ----------------------------------------------------------------------------
export class Exactness {
  constructor(root, strings, fmt) {
    this.rows = [...root.querySelectorAll(".b-xrow")];
    this.context = root.querySelector(".b-exact-context");
    this.beta = root.querySelector(".b-beta");
    this.table = root.querySelector(".b-exact-table tbody");
    this.fmt = fmt;
  }

  show(ex, contextText) {
    if (!ex) return;
    const f = this.fmt;
    this.context.textContent = contextText;
    this.beta.textContent = f.num(ex.beta, 3);
    const pmax = Math.max(...ex.tokens.map((r) => Math.max(r.p, r.q)));
    const w = (v) => (v / pmax) * 175;  // bar scale, as in templates/_bench.html
    this.rows.forEach((g, i) => {
      const row = ex.tokens[i];
      g.classList.toggle("b-off", !row);
      if (!row) return;
      g.querySelector(".b-xtext").textContent = row.text;
      const min = g.querySelector(".b-xmin");
      const res = g.querySelector(".b-xres");
      min.setAttribute("width", w(row.min).toFixed(2));
      res.setAttribute("x", (70 + w(row.min)).toFixed(2));
      res.setAttribute("width", w(row.residual_share).toFixed(2));
      const p = g.querySelector(".b-pline");
      p.setAttribute("x1", (70 + w(row.p)).toFixed(2));
      p.setAttribute("x2", (70 + w(row.p)).toFixed(2));
      g.querySelector(".b-qline").setAttribute("x2", (70 + w(row.q)).toFixed(2));
      g.querySelector(".b-xval").textContent = `p ${f.num(row.p, 3)} · q ${f.num(row.q, 3)}`;
    });
    this.table.replaceChildren(...ex.tokens.map((row) => {
      const tr = el("tr");
      for (const v of [row.text, f.num(row.p, 4), f.num(row.q, 4), f.num(row.min, 4), f.num(row.residual_share, 4)]) tr.append(el("td", null, v));
      return tr;
    }));
  }
}

