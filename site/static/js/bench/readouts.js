// The readouts (templates/_readouts.html): α and the chance some candidate is kept under each exact
// rule (the rule in use marked), tokens per pass counted and by the formula with what vLLM and SGLang
// report for the same passes, the speed-up and the best γ, and the paper's roofline figures, from the
// view's readouts. Readouts are measured after the state they belong to (store.js): until then the
// panel says so.
import { drawnWhenShown, panelOpened } from "./tabs.js";
import { format, text } from "./text.js";

export class ReadoutsView {
  constructor(root) {
    this.root = root;
    this.panel = root.querySelector(".b-tabpanel--readouts");
    this.measuring = root.querySelector(".b-measuring");
    this.greedyNote = root.querySelector(".b-greedy-note");
    this.byRule = [...root.querySelectorAll(".b-ar")];
  }

  // The chance some of the k candidates is kept under each exact rule, at the same positions.
  drawRules(ro) {
    const k = ro.candidates;
    this.out(".b-ar-label", text("b_alpha_rules", { k }));
    const names = { exact: () => text("b_ar_exact"), recursive: () => text("b_ar_recursive"), topk: () => text("b_ar_topk", { k }) };
    for (const el of this.byRule) {
      const rule = el.dataset.rule;
      el.querySelector(".b-ar-name").textContent = names[rule]();
      el.querySelector(".b-ar-value").textContent = format.num(ro.alpha_rules[rule], 3);
      if (ro.settings.rule === rule) el.setAttribute("aria-current", "true");
      else el.removeAttribute("aria-current");
    }
  }

  out(selector, value) {
    this.root.querySelector(selector).textContent = value;
  }

  busy(on) {
    this.panel.setAttribute("aria-busy", on ? "true" : "false");
    this.panel.classList.toggle("b-busy", on);
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
    this.out(".b-lanes-seq", f.int(ro.lanes_per_sequence));
    this.out(".b-tpp-counted", f.num(ro.tokens_per_pass_counted, 2));
    this.out(".b-tpp-formula", f.num(ro.tokens_per_pass_formula, 2));
    this.drawRules(ro);
    this.out(".b-mal", f.num(ro.mean_acceptance_length, 2));
    this.out(".b-dar", f.pct(ro.draft_acceptance_rate));
    this.out(".b-dar-formula", text("b_dar_formula", { value: f.pct(ro.draft_acceptance_rate_formula) }));
    this.out(".b-speedup-label", text("b_speedup_label", { c: f.upTo(ro.c, 3) }));
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
  }

  // Acceptance by position over the tape's passes (view.so_far): of the passes that offered a guess,
  // the share kept at position j, for j up to γ.
  drawByPosition(soFar, gamma) {
    for (const el of this.root.querySelectorAll(".b-bp")) {
      const j = Number(el.dataset.j);
      el.hidden = j > gamma;
      const share = soFar.accepted_by_position[j - 1];
      el.querySelector(".b-bp-value").textContent = j > gamma || share == null ? "–" : format.pct(share);
    }
    this.out(".b-bp-of", soFar.drafts ? text("b_by_position_of", { drafts: soFar.drafts, passes: soFar.passes }) : text("b_by_position_none"));
  }

  onChange(change, state) {
    if (change.kind === "act") this.drawByPosition(state.view.so_far, state.bench.settings.gamma);
    if (change.kind === "measuring") this.busy(true);
    else if (change.kind === "act" || change.kind === "measured" || panelOpened(change, state)) {
      const ro = state.view.readouts;
      return drawnWhenShown(this.panel, () => this.draw(ro));
    }
  }
}
