// The race: the tape's passes timed on paper against plain decoding, on one clock, and the GPU
// and model pickers. Everything drawn comes from the view's "race" (sim/bench/race.py: times,
// coordinates, the text's pieces) and the spec's rows; this file places it and runs the clock.
// "Run the race" steps a short tape to the spec's race_passes first (one queued action), then
// sweeps the clock over both lanes. With reduced motion the finished race is drawn at once;
// either way the summary is written below the lanes and said in the bench's live region.
import { motion, tween } from "./anim.js";
import { format, text } from "./text.js";

const SVG = "http://www.w3.org/2000/svg";
const GAP = document.documentElement.lang.startsWith("zh") ? "" : " "; // between two sentences
const SWEEP_MS = 4000; // the longer lane's run, at normal speed
const SUMMARIES = {
  speculative: (v) => text("r_summary_speculative", v),
  plain: (v) => text("r_summary_plain", v),
  tie: (v) => text("r_summary_tie", v),
  none: (v) => text("r_summary_none", v),
};

function svg(tag, attrs, content) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  if (content != null) node.textContent = content;
  return node;
}

const ms = (x) => format.num(x, 1);

// The words of a race's outcome (the summary below the lanes and the live region).
export function raceSummary(race) {
  return SUMMARIES[race.winner]({
    tokens: race.tokens,
    passes: race.spec.passes,
    plain: ms(race.plain.finish_ms),
    spec: ms(race.spec.finish_ms),
    speedup: race.speedup ? format.num(race.speedup, 2) : "",
    slower: race.speedup ? format.num(1 / race.speedup, 2) : "",
  });
}

export class RaceView {
  constructor(root, spec, store, announcer) {
    this.root = root;
    this.store = store;
    this.announcer = announcer;
    this.layout = spec.layout.race;
    this.rows = spec.hardware;
    this.passes = spec.race_passes;
    this.panel = root.querySelector(".r-panel");
    const q = (selector) => this.panel.querySelector(selector);
    this.selects = [...this.panel.querySelectorAll("[data-race-setting]")];
    this.go = q(".r-go");
    this.fit = q(".r-fit");
    this.fitText = q(".r-fit-text");
    this.stripes = q(".r-stripes");
    this.clip = q(".r-clip");
    this.plain = q(".r-plain");
    this.blocks = q(".r-blocks");
    this.ticks = q(".r-ticks");
    this.flags = { plain: q(".r-flag--plain"), spec: q(".r-flag--spec") };
    this.hand = q(".r-hand");
    this.clock = q(".r-clock-ms");
    this.counts = Object.fromEntries([...this.panel.querySelectorAll(".r-count")].map((n) => [n.dataset.lane, n]));
    this.texts = Object.fromEntries([...this.panel.querySelectorAll(".r-text")].map((n) => [n.dataset.lane, n]));
    this.summary = q(".r-summary");
    this.table = q(".r-table tbody");
    this.hardware = root.querySelector(".b-rf-hardware");
    this.modelName = q(".r-model-name");
    this.tab = this.panel.closest("[role=tabpanel]") || this.panel;
    this.stale = false; // a state came while the tab was closed
    this.run = 0; // the clock that is running; a redraw stops it
    this.view = null;
  }

  wire() {
    for (const select of this.selects) {
      select.addEventListener("change", () => {
        this.store.dispatch({ type: "set", name: select.dataset.raceSetting, value: select.value }).catch(() => {});
      });
    }
    this.go.addEventListener("click", () => this.start().catch(() => {}));
  }

  enable(on) {
    for (const e of [...this.selects, this.go]) e.disabled = !on;
  }

  // Drawn while its tab is open; a change while it is closed is drawn when it opens (drawing the
  // lanes and tables on every pass was a good part of a click's cost). The readouts' line that
  // names the GPU and model is drawn either way.
  // (After the bench's summary in bench.js's list: a GPU or model change is said in the race's words.)
  onChange(change, state) {
    const v = state.view;
    if (change.kind === "mode") this.enable(change.mode === "live");
    if (change.kind === "act" || change.kind === "measured") {
      if (this.tab.hidden) {
        this.stale = true;
        this.drawHardwareLine(v);
      } else {
        this.draw(v);
      }
    }
    if (change.kind === "ui" && this.stale && !this.tab.hidden) this.draw(v);
    if (change.kind === "done" && change.action.type === "set" && (change.action.name === "gpu" || change.action.name === "model")) {
      this.say(v);
    }
  }

  // The finished race, at once.
  draw(view) {
    this.stale = false;
    this.run += 1;
    this.view = view;
    const race = view.race;
    const settings = view.state.settings;
    for (const select of this.selects) {
      const pending = this.store.pendingValue(select.dataset.raceSetting);
      select.value = pending === undefined ? settings[select.dataset.raceSetting] : pending;
    }
    this.drawHardware(view);
    this.drawLanes(race);
    this.at(race, race.drawing.end_ms, view.sentence.text);
    this.hand.classList.add("b-off");
    this.summary.classList.remove("r-summary--pending");
    this.summary.dataset.winner = race.winner;
    const expected = view.readouts && race.tokens ? text("r_live_expected", { expected: format.num(view.readouts.speedup, 2) }) : "";
    this.summary.textContent = [raceSummary(race), expected].filter(Boolean).join(GAP);
    const rows = { plain: [race.plain.passes, race.plain_pass_ms, race.plain.finish_ms], spec: [race.spec.passes, race.spec_pass_ms, race.spec.finish_ms] };
    for (const tr of this.table.rows) {
      const [passes, perPass, finish] = rows[tr.dataset.lane];
      tr.querySelector(".r-passes").textContent = format.int(passes);
      tr.querySelector(".r-pass-ms").textContent = format.num(perPass, 2);
      tr.querySelector(".r-tokens").textContent = format.int(race.tokens);
      tr.querySelector(".r-finish").textContent = ms(finish);
    }
  }

  drawHardwareLine(view) {
    const settings = view.state.settings;
    const gpu = this.rows.gpus.find((g) => g.key === settings.gpu);
    const model = this.rows.models.find((m) => m.key === settings.model);
    this.hardware.textContent = text("b_paper_hardware", { model: model.name, gpu: gpu.name });
    return { settings, gpu, model };
  }

  drawHardware(view) {
    const { settings, gpu, model } = this.drawHardwareLine(view);
    this.modelName.textContent = model.name;
    for (const [selector, key] of [[".r-gpus", settings.gpu], [".r-models", settings.model]]) {
      for (const tr of this.panel.querySelectorAll(`${selector} tbody tr`)) {
        const picked = tr.dataset.key === key;
        tr.classList.toggle("r-picked", picked);
        if (picked) tr.setAttribute("aria-current", "true");
        else tr.removeAttribute("aria-current");
      }
    }
    for (const tr of this.panel.querySelectorAll(".r-gpus tbody tr")) {
      tr.querySelector(".r-ms-token").textContent = format.num(this.rows.ms_per_token[tr.dataset.key][settings.model], 2);
    }
    const fits = model.weights_gb <= gpu.memory_gb;
    this.fit.hidden = fits;
    if (!fits) {
      this.fitText.textContent = text("b_fit_short", {
        model: model.name, gpu: gpu.name, weights: format.num(model.weights_gb, 1), memory: format.int(gpu.memory_gb),
      });
    }
  }

  drawLanes(race) {
    const L = this.layout;
    const d = race.drawing;
    this.stripes.setAttribute("width", d.plain_period > 0 ? d.plain_period : 1);
    this.plain.setAttribute("width", Math.max(0, d.plain_end_x - L.x0));
    this.plain.classList.toggle("r-plain--solid", !d.plain_ticks);
    const y = L.spec_y;
    const h = L.lane_height;
    const nodes = [];
    for (const b of d.blocks) {
      nodes.push(svg("rect", { class: "r-draft", x: b.draft_x, y, width: b.draft_width, height: h }));
      nodes.push(svg("rect", { class: "r-verify", x: b.verify_x, y, width: b.verify_width, height: h }));
      if (b.label != null) nodes.push(svg("text", { class: "r-n", x: b.verify_x + b.verify_width / 2, y: y + h / 2 + 3.5, "text-anchor": "middle" }, b.label));
    }
    this.blocks.replaceChildren(...nodes);
    const ticks = [];
    for (const t of d.ticks) {
      ticks.push(svg("line", { x1: t.x, y1: L.axis_y, x2: t.x, y2: L.axis_y + 4, class: "b-axis" }));
      ticks.push(svg("text", { x: t.x, y: L.tick_label_y, class: "b-tiny", "text-anchor": "middle" }, t.ms >= 1 || t.ms === 0 ? format.int(t.ms) : String(t.ms)));
    }
    this.ticks.replaceChildren(...ticks);
    for (const [lane, x, top] of [["plain", d.plain_end_x, L.plain_y], ["spec", d.spec_end_x, L.spec_y]]) {
      const flag = this.flags[lane];
      const line = flag.querySelector("line");
      line.setAttribute("x1", x);
      line.setAttribute("x2", x);
      line.setAttribute("y1", top - 3);
      line.setAttribute("y2", top + h + 3);
      flag.querySelector("text").setAttribute("x", x + 2); // in the lane, right of its end: clear of the label
      flag.querySelector("text").setAttribute("y", top + h / 2 + 3);
    }
  }

  // The race at a moment of its clock: what each lane has drawn and written by then.
  at(race, t, sentence) {
    const L = this.layout;
    const d = race.drawing;
    const x = L.x0 + t * d.x_per_ms;
    this.clip.setAttribute("width", Math.max(0, x));
    this.hand.setAttribute("x1", x);
    this.hand.setAttribute("x2", x);
    this.clock.textContent = ms(t);
    const eps = 1e-9;
    const plainDone = race.plain_pass_ms > 0 ? Math.min(race.tokens, Math.floor(t / race.plain_pass_ms + eps)) : 0;
    const specPasses = race.spec_pass_ms > 0 ? Math.min(race.spec.passes, Math.floor(t / race.spec_pass_ms + eps)) : 0;
    const specDone = specPasses ? race.spec.tokens_after[specPasses - 1] : 0;
    for (const [lane, n, end] of [["plain", plainDone, race.plain.finish_ms], ["spec", specDone, race.spec.finish_ms]]) {
      this.counts[lane].textContent = format.int(n);
      const written = sentence + race.pieces.slice(0, n).join("");
      this.texts[lane].textContent = written.length > L.text_tail ? `…${written.slice(-L.text_tail)}` : written;
      this.flags[lane].classList.toggle("b-off", !race.tokens || t + eps * end < end);
    }
  }

  // "Run the race": a tape shorter than race_passes is stepped first (quietly: the race speaks).
  async start() {
    const state = this.store.getState();
    const missing = this.passes - state.bench.steps;
    if (missing > 0) await this.store.dispatch({ type: "step", count: missing, quiet: true, source: "race" });
    await this.store.idle();
    const view = this.store.getState().view;
    if (this.stale) this.draw(view);
    const run = this.run;
    const race = view.race;
    if (!motion.still && race.tokens) {
      this.at(race, 0, view.sentence.text);
      this.hand.classList.remove("b-off");
      this.summary.classList.add("r-summary--pending"); // the verdict waits for the finish (its place kept)
      await tween(SWEEP_MS, (u) => {
        if (run === this.run) this.at(race, u * race.drawing.end_ms, view.sentence.text);
      });
      if (run !== this.run) return; // something else was drawn meanwhile (and showed its verdict)
      this.hand.classList.add("b-off");
      this.summary.classList.remove("r-summary--pending");
    }
    this.at(race, race.drawing.end_ms, view.sentence.text);
    this.say(view);
  }

  say(view) {
    const settings = view.state.settings;
    const gpu = this.rows.gpus.find((g) => g.key === settings.gpu);
    const model = this.rows.models.find((m) => m.key === settings.model);
    const expected = view.readouts ? text("r_live_expected", { expected: format.num(view.readouts.speedup, 2) }) : "";
    this.announcer.say([text("r_live", { gpu: gpu.name, model: model.name, summary: raceSummary(view.race) }), expected]
      .filter(Boolean).join(GAP));
  }
}
