// The test tubes: the sim's cumulative counts (view.tubes), drawn at the coordinates it computed
// against black lines at the big model's p, with a dot per category for the latest round alone.
import { el } from "./dom.js";
import { drawnWhenShown, panelOpened } from "./tabs.js";
import { format, text } from "./text.js";

export class TubesView {
  constructor(root) {
    this.svg = root.querySelector("svg.b-tubes");
    this.count = root.querySelector(".b-tubes-count");
    this.table = root.querySelector(".b-tube-table tbody");
    this.panel = root.querySelector(".b-tabpanel--tubes");
    this.tubes = {};
    for (const g of this.svg.querySelectorAll(".b-tube")) this.tubes[g.dataset.tube] = [...g.querySelectorAll(".b-cat")];
  }

  onChange(change, state) {
    const tubes = state.view.tubes;
    if (change.kind === "act" || panelOpened(change, state)) return drawnWhenShown(this.panel, () => this.draw(tubes));
  }

  draw(tubes) {
    this.count.textContent = text("b_tubes_count", { rounds: tubes.rounds, draws: tubes.draws });
    const label = (c) => (c.text == null ? text("b_other") : c.text);
    for (const [tube, groups] of Object.entries(this.tubes)) {
      groups.forEach((g, k) => {
        const bar = tubes.drawing[tube][k];
        g.classList.toggle("b-off", !bar);
        if (!bar) return;
        const [lower, upper] = g.querySelectorAll(".b-bar");
        lower.setAttribute("y", bar.lower_y);
        lower.setAttribute("height", bar.lower_height);
        upper.setAttribute("y", bar.upper_y);
        upper.setAttribute("height", bar.upper_height);
        const dot = g.querySelector(".b-wiggle");
        dot.classList.toggle("b-off", bar.dot_y == null);
        if (bar.dot_y != null) dot.setAttribute("cy", bar.dot_y);
        const p = g.querySelector(".b-pline");
        p.setAttribute("y1", bar.p_y);
        p.setAttribute("y2", bar.p_y);
        g.querySelector(".b-cat-text").textContent = label(tubes.categories[k]);
      });
    }
    this.table.replaceChildren(...tubes.categories.map((c, k) => {
      const tr = el("tr");
      tr.dataset.k = String(k);
      tr.dataset.p = String(c.p);
      tr.append(el("td", null, label(c)), el("td", null, format.num(c.p, 3)),
        el("td", "b-n-target", String(tubes.target[k])), el("td", "b-n-kept", String(tubes.spec_kept[k])),
        el("td", "b-n-written", String(tubes.spec_target[k])));
      return tr;
    }));
  }
}
