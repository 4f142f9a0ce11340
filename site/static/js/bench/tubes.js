// The test tubes: cumulative counts of the sim's rounds, drawn against
// black lines at the big model's p. The counts are the sim's; this module adds them up and draws.

import { el } from "./dom.js";

export class Tubes {
  constructor(root, strings, fmt) {
    this.svg = root.querySelector("svg.b-tubes");
    this.base = Number(this.svg.dataset.base);
    this.height = Number(this.svg.dataset.height);
    this.count = root.querySelector(".b-tubes-count");
    this.table = root.querySelector(".b-tube-table tbody");
    this.strings = strings;
    this.fmt = fmt;
    this.tubes = {};
    for (const g of this.svg.querySelectorAll(".b-tube")) this.tubes[g.dataset.tube] = [...g.querySelectorAll(".b-cat")];
    this.clear();
  }

  clear() {
    this.categories = null;
    this.rounds = 0;
    this.target = [];
    this.kept = [];
    this.written = [];
    this.last = null;
  }

  // Start from counts already drawn (the build's picture) without asking the sim again.
  add(round) {
    const n = round.categories.length;
    if (!this.categories) {
      this.categories = round.categories;
      this.target = new Array(n).fill(0);
      this.kept = new Array(n).fill(0);
      this.written = new Array(n).fill(0);
    }
    for (let k = 0; k < n; k++) {
      this.target[k] += round.target[k];
      this.kept[k] += round.spec_kept[k];
      this.written[k] += round.spec_target[k];
    }
    this.rounds += 1;
    this.draws = (this.draws || 0) + round.draws;
    this.last = round;
  }

  totals() {
    const sum = (a) => a.reduce((x, y) => x + y, 0);
    return { target: sum(this.target), spec: sum(this.kept) + sum(this.written) };
  }

  draw() {
    const s = this.strings;
    const { target: nTarget, spec: nSpec } = this.rounds ? this.totals() : { target: 0, spec: 0 };
    this.count.textContent = s.b_tubes_count.replace("{rounds}", String(this.rounds)).replace("{draws}", String(nTarget));
    const cats = this.categories;
    const scale = cats ? this.height / (Math.max(...cats.map((c) => c.p)) * 1.3) : 0;
    const y = (v) => (this.base - v * scale).toFixed(2);
    const lastTotal = this.last ? this.last.draws : 1;
    for (const [tube, groups] of Object.entries(this.tubes)) {
      groups.forEach((g, k) => {
        const c = cats && cats[k];
        g.classList.toggle("b-off", !c);
        const [lower, upper] = g.querySelectorAll(".b-bar");
        const wiggle = g.querySelector(".b-wiggle");
        const pline = g.querySelector(".b-pline");
        const label = g.querySelector(".b-cat-text");
        if (!c) {
          label.textContent = "";
          return;
        }
        label.textContent = c.text == null ? s.b_other : c.text;
        pline.setAttribute("y1", y(c.p));
        pline.setAttribute("y2", y(c.p));
        const total = tube === "target" ? nTarget : nSpec;
        const n1 = tube === "target" ? this.target[k] : this.kept[k];
        const n2 = tube === "target" ? 0 : this.written[k];
        const f1 = total ? n1 / total : 0;
        const f2 = total ? n2 / total : 0;
        lower.setAttribute("y", y(f1));
        lower.setAttribute("height", (f1 * scale).toFixed(2));
        upper.setAttribute("y", y(f1 + f2));
        upper.setAttribute("height", (f2 * scale).toFixed(2));
        const last = this.last;
        const roundCount = !last ? 0 : tube === "target" ? last.target[k] : last.spec_kept[k] + last.spec_target[k];
        wiggle.setAttribute("cy", y(roundCount / lastTotal));
        wiggle.classList.toggle("b-off", !last);
      });
    }
    this.table.replaceChildren(...(cats || []).map((c, k) => {
      const tr = el("tr");
      tr.dataset.k = String(k);
      tr.dataset.p = String(c.p);
      tr.append(el("td", null, c.text == null ? s.b_other : c.text), el("td", null, this.fmt.num(c.p, 3)),
        el("td", "b-n-target", String(this.target[k])), el("td", "b-n-kept", String(this.kept[k])),
        el("td", "b-n-written", String(this.written[k])));
      return tr;
    }));
  }
}
