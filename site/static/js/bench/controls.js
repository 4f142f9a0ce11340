// The bench's controls: native form elements (keyboard-ready), read into settings and set back.

export class Controls {
  constructor(root, strings) {
    this.form = root.querySelector("form.b-controls");
    this.root = root;
    this.strings = strings;
    this.play = root.querySelector("button.b-play");
    this.step = root.querySelector("button.b-step");
    this.fresh = root.querySelector("button.b-new");
    this.round = root.querySelector("button.b-round");
    this.clear = root.querySelector("button.b-clear");
    this.link = root.querySelector("a.b-link");
    this.warning = root.querySelector(".b-rule-warning");
    this.form.addEventListener("submit", (e) => e.preventDefault());
  }

  field(name) {
    return this.form.elements.namedItem(name);
  }

  enable(on) {
    for (const e of this.root.querySelectorAll("form.b-controls input, form.b-controls select, form.b-controls button, button.b-round, button.b-clear")) {
      e.disabled = !on;
    }
  }

  read(seed) {
    const f = (n) => this.field(n);
    return {
      draft: f("draft").value,
      gamma: Number(f("gamma").value),
      greedy: f("greedy").checked,
      batch: Number(f("batch").value),
      seed,
      rule: this.form.querySelector("input[name=rule]:checked").value,
    };
  }

  set(settings) {
    const f = (n) => this.field(n);
    f("draft").value = settings.draft;
    f("gamma").value = String(settings.gamma);
    f("batch").value = String(settings.batch);
    f("greedy").checked = settings.greedy;
    for (const r of this.form.querySelectorAll("input[name=rule]")) r.checked = r.value === settings.rule;
    this.echo();
    this.warning.hidden = settings.rule === "exact";
    this.root.querySelector(".b-seed-value").textContent = String(settings.seed);
  }

  echo() {
    this.field("gamma_out").value = this.field("gamma").value;
    this.field("batch_out").value = this.field("batch").value;
  }

  setPlaying(on) {
    this.play.setAttribute("aria-pressed", on ? "true" : "false");
    this.play.textContent = on ? this.strings.b_pause : this.strings.b_play;
  }

  // onChange(name) fires for settings; sliders call it on every move (the bench debounces).
  wire({ onChange, onPlay, onStep, onNew, onRound, onClear, onSpeed }) {
    for (const name of ["draft", "greedy"]) this.field(name).addEventListener("change", () => onChange(name));
    for (const r of this.form.querySelectorAll("input[name=rule]")) r.addEventListener("change", () => onChange("rule"));
    for (const name of ["gamma", "batch"]) {
      this.field(name).addEventListener("input", () => {
        this.echo();
        onChange(name);
      });
    }
    this.field("speed").addEventListener("change", () => onSpeed(Number(this.field("speed").value)));
    this.play.addEventListener("click", onPlay);
    this.step.addEventListener("click", onStep);
    this.fresh.addEventListener("click", onNew);
    this.round.addEventListener("click", onRound);
    this.clear.addEventListener("click", onClear);
  }
}
