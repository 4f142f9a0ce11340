// The bridge of meters (templates/_bridge.html): one meter per guess, its bar rising to p/q and
// the line dropping to r, then the verdict; the checks of each candidate in turn; the rule's note.
// A pass the player animates (pass.js) has its meters shown one by one by the machine's
// animation (showMeter); otherwise the bridge is drawn at rest. Positions come from the view's
// drawing.bridge and the spec's layout.
import { scene, tween } from "./anim.js";
import { el } from "./dom.js";
import { fitText } from "./machine.js";
import { drawnWhenShown, panelOpened } from "./tabs.js";
import { format, text } from "./text.js";

// What follows a rejected candidate (sim.bench.replay.checks names it).
const THEN = {
  next_residual: (tokens) => text("b_check_next_residual", { tokens }),
  next_p: (tokens) => text("b_check_next_p", { tokens }),
  draw_residual: (tokens) => text("b_check_draw_residual", { tokens }),
  draw_p: (tokens) => text("b_check_draw_p", { tokens }),
  next_struck: (tokens) => text("b_check_next_struck", { tokens }),
  draw_struck: (tokens) => text("b_check_draw_struck", { tokens }),
};
const VERDICT_NAMES = { kept: () => text("mark_kept"), rejected: () => text("mark_rejected"), void: () => text("mark_void") };

export class BridgeView {
  constructor(root, spec) {
    this.layout = spec.layout.bridge;
    this.meters = [...root.querySelectorAll(".b-meter")];
    this.table = root.querySelector(".b-bridge-table tbody");
    this.modes = [...root.querySelectorAll(".b-bridge-mode")];
    this.checks = root.querySelector(".b-checks");
    this.checksBox = root.querySelector(".b-checks-box");
    this.checksTitle = root.querySelector(".b-checks-title");
    this.panel = root.querySelector(".b-tabpanel--bridge");
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

  onChange(change, state) {
    const later = (draw) => drawnWhenShown(this.panel, draw);
    const v = change.view || state.view;
    if (change.kind === "pass" && change.animated) return later(() => this.draw(v, true)); // its meters wait for the machine
    else if (change.kind === "drawn" && !change.animated && !change.skipped) return later(() => this.draw(v)); // skipped: the next pass animates
    else if (panelOpened(change, state)) return this.draw(v); // a hidden panel cannot measure its words
  }
}
