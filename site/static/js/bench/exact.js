// Why exact (templates/_exact.html): for this pass's first guess, min(p, q) and the residual the
// big model draws from, p and q marked, and which candidate was kept and why (view.pass.choice).
// Bars at the coordinates of the view's drawing.exactness.
import { el } from "./dom.js";
import { drawnWhenShown, panelOpened } from "./tabs.js";
import { format, text } from "./text.js";

export class ExactView {
  constructor(root) {
    this.rows = [...root.querySelectorAll(".b-xrow")];
    this.context = root.querySelector(".b-exact-context");
    this.beta = root.querySelector(".b-beta");
    this.table = root.querySelector(".b-exact-table tbody");
    this.why = root.querySelector(".b-exact-why");
    this.panel = root.querySelector(".b-tabpanel--exact");
  }

  // Which candidate of the first guess was kept and why (view.pass.choice); mode: the pass's rule.
  drawWhy(choice, mode) {
    this.why.hidden = !choice;
    if (!choice) return;
    const rejected = choice.rejected.map((t) => `“${t}”`).join(text("b_list_sep"));
    if (choice.kept == null) {
      const drawn = { residual: () => text("b_exact_why_drawn", { rejected }), struck: () => text("b_exact_why_drawn_struck", { rejected }) };
      this.why.textContent = (drawn[choice.drawn_from] || (() => text("b_exact_why_drawn_p", { rejected })))();
      return;
    }
    const vars = { token: choice.text, r: format.num(choice.r, 2), ratio: format.num(choice.ratio, 2), rejected, j: choice.kept, k: choice.of };
    if (choice.kept === 1 && !choice.rejected.length) {
      this.why.textContent = mode === "topk" ? text("b_exact_why_first_topk", vars) : text("b_exact_why_first", vars);
      return;
    }
    const after = { residual: () => text("b_exact_why_after", vars), struck: () => text("b_exact_why_after_struck", vars) };
    this.why.textContent = (after[choice.against] || (() => text("b_exact_why_after_p", vars)))();
  }

  draw(view) {
    this.drawWhy(view.pass && view.pass.choice, view.pass && view.pass.mode);
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

  onChange(change, state) {
    const v = state.view;
    if (change.kind === "act" || panelOpened(change, state)) return drawnWhenShown(this.panel, () => this.draw(v));
  }
}
