// The speed-up curve (templates/_curve.html): the speed-up against γ from the view's readouts
// (curve_drawing: the points, the line at 1×, the γ in use and the best one), and α against
// temperature for the draft in use (measured at build time on the book, its temperature marked).
import { drawnWhenShown, panelOpened } from "./tabs.js";
import { format, text } from "./text.js";

export class CurveView {
  constructor(root) {
    this.panel = root.querySelector(".b-tabpanel--curve");
    this.curve = root.querySelector("svg.b-curve");
    this.alphaT = root.querySelector(".b-alpha-t");
    this.ownText = false; // the models in use are a reader's text (source())
  }

  busy(on) {
    this.panel.setAttribute("aria-busy", on ? "true" : "false");
    this.panel.classList.toggle("b-busy", on);
  }

  draw(ro) {
    if (!ro) return this.busy(true);
    this.busy(false);
    this.drawAlphaT(ro.settings);
    this.drawCurve(ro.curve_drawing);
    this.panel.querySelector(".b-curve-axis").textContent = text("b_curve_axis", { c: format.upTo(ro.c, 3) });
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
    svg.querySelector(".b-curve-top").textContent = text("b_curve_top", { value: format.num(c.top, 1) });
    [...svg.querySelectorAll(".b-curve-pt")].forEach((dot, i) => {
      const gamma = i + 1;
      dot.setAttribute("cx", c.points[i][0]);
      dot.setAttribute("cy", c.points[i][1]);
      dot.setAttribute("r", gamma === c.current ? "6" : "2.5");
      dot.setAttribute("class", `b-curve-pt${gamma === c.current ? " b-current" : ""}${gamma === c.best ? " b-best" : ""}`);
    });
  }

  onChange(change, state) {
    if (change.kind === "measuring") this.busy(true);
    else if (change.kind === "source") this.source(state.source, state.bench.settings);
    else if (change.kind === "act" || change.kind === "measured" || panelOpened(change, state)) {
      const ro = state.view.readouts;
      return drawnWhenShown(this.panel, () => this.draw(ro));
    }
  }
}
