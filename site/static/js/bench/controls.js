// The bench's controls: native form elements (keyboard-ready). Each one dispatches an action;
// each one is drawn back from the state after every action, or from the value still waiting in
// the queue, so a control never shows a value the bench does not hold or is not about to.
import { linkPending } from "./pending.js";

export class ControlsView {
  constructor(root, spec, store) {
    this.root = root;
    this.store = store;
    this.form = root.querySelector("form.b-controls");
    this.parameters = Object.fromEntries(spec.parameters.map((p) => [p.name, p]));
    this.legacy = spec.legacy_parameters;
    this.inputs = [...this.form.querySelectorAll("[data-setting]")];
    this.values = [...root.querySelectorAll("[data-value-of]")];
    this.warnings = [...root.querySelectorAll(".b-rule-warning")];
    this.forSomeDrafts = [...root.querySelectorAll(".b-field[data-drafts]")]; // the spec's "drafts" of a setting
    this.buttons = {
      play: root.querySelector("button.b-play"),
      step: root.querySelector("button.b-step"),
      fresh: root.querySelector("button.b-new"),
      round: root.querySelector("button.b-round"),
      clear: root.querySelector("button.b-clear"),
    };
    this.speed = this.form.elements.namedItem("speed");
    this.link = root.querySelector("a.b-link");
    this.seed = root.querySelector(".b-seed-value");
    this.form.addEventListener("submit", (e) => e.preventDefault());
  }

  // The JSON value a control holds, in the parameter's kind.
  read(input) {
    const p = this.parameters[input.dataset.setting];
    if (p.kind === "bool") return input.checked;
    if (p.kind === "int" || p.kind === "level") return Number(input.value);
    return input.value;
  }

  wire() {
    const dispatch = (action) => this.store.dispatch(action).catch(() => {}); // failures are announced
    for (const input of this.inputs) {
      const name = input.dataset.setting;
      const kind = input.type === "range" ? "input" : "change";
      input.addEventListener(kind, () => {
        if (input.type === "radio" && !input.checked) return;
        this.echo(name, this.read(input));
        dispatch({ type: "set", name, value: this.read(input) });
      });
    }
    this.speed.addEventListener("change", () => dispatch({ type: "speed", value: Number(this.speed.value) }));
    const b = this.buttons;
    b.play.addEventListener("click", () => dispatch({ type: this.store.getState().ui.playing ? "pause" : "play" }));
    b.step.addEventListener("click", () => dispatch({ type: "step" }));
    b.fresh.addEventListener("click", () => dispatch({ type: "new_sentence" }));
    b.round.addEventListener("click", () => dispatch({ type: "round" }));
    b.clear.addEventListener("click", () => dispatch({ type: "clear_tubes" }));
    this.wireSettings();
  }

  // Beside the text where the bench is short of height (frames.css, --page-fold), the settings fold
  // behind one button and open over the machine and the tape, above their button, so that the open
  // panel (the readouts they change) stays in view; Escape folds them again and gives focus back to
  // the button.
  wireSettings() {
    const toggle = this.form.querySelector(".b-settings-toggle");
    if (!toggle) return;
    // Open, they end just above their button, wherever the Play row put it, and never start
    // above the bench's top (past that they scroll within themselves).
    const place = () => {
      const bench = this.form.closest(".b").getBoundingClientRect();
      const button = toggle.getBoundingClientRect();
      this.form.style.setProperty("--settings-bottom", `${Math.ceil(bench.bottom - button.top)}px`);
      this.form.style.setProperty("--settings-room", `${Math.floor(button.top - bench.top)}px`);
    };
    const setOpen = (open) => {
      this.form.dataset.settings = open ? "open" : "closed";
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
      if (open) place();
    };
    window.addEventListener("resize", () => { if (this.form.dataset.settings === "open") place(); });
    toggle.addEventListener("click", () => setOpen(this.form.dataset.settings !== "open"));
    this.form.addEventListener("keydown", (e) => {
      if (e.key !== "Escape" || this.form.dataset.settings !== "open") return;
      e.stopPropagation();
      setOpen(false);
      toggle.focus();
    });
  }

  // Before Python has read a link that carries another state than the first picture's: each
  // control shows the link's value where the control itself takes it as written (an option of its
  // select or a radio of its own, a whole number within its slider's bounds: the build wrote them
  // from the sim's table), the first value of a parameter given twice, as the sim reads it. A
  // value no control takes so (another spelling, an old parameter) leaves the settings pending
  // (bench.css) until the sim has read the link. query: the link's [name, value] pairs.
  readLink(query) {
    if (!linkPending()) return;
    const inputs = [...this.inputs, ...this.root.querySelectorAll("select[data-race-setting]")];
    const controlled = new Set(inputs.map((i) => i.dataset.setting || i.dataset.raceSetting));
    const values = {};
    let unread = false;
    for (const [name, raw] of query) {
      if (name in values) continue;
      const p = this.parameters[name];
      if (!(p && controlled.has(name))) {
        if (!p && !this.legacy.includes(name)) continue; // not the bench's: the page's own, or ignored
        if (!p) unread = true; // an old parameter (greedy): the sim says what it sets
        continue;
      }
      values[name] = raw;
      const takes = inputs.filter((i) => (i.dataset.setting || i.dataset.raceSetting) === name).some((i) => takesAsWritten(i, raw));
      if (!takes) unread = true;
    }
    this.root.dataset.linkSettings = unread ? "unread" : "read";
    if (unread) return;
    for (const input of inputs) {
      const name = input.dataset.setting || input.dataset.raceSetting;
      if (!(name in values)) continue;
      if (input.type === "radio") input.checked = input.value === values[name];
      else input.value = values[name];
      this.echo(name, values[name]);
    }
  }

  onChange(change, state) {
    if (change.kind === "act" && change.action.type === "load") delete this.root.dataset.linkSettings; // the sim has read it
    if (change.kind === "act") this.draw(state);
    else if (change.kind === "ui") this.setPlaying(state.ui.playing);
    else if (change.kind === "mode") this.enable(change.mode === "live");
  }

  // A slider's number beside its label.
  echo(name, value) {
    for (const v of this.values) if (v.dataset.valueOf === name) v.textContent = String(value);
  }

  enable(on) {
    for (const e of this.root.querySelectorAll("form.b-controls input, form.b-controls select, form.b-controls button:not(.b-settings-toggle), button.b-round, button.b-clear")) {
      e.disabled = !on;
    }
  }

  draw(state) {
    const settings = state.bench.settings;
    for (const input of this.inputs) {
      const name = input.dataset.setting;
      const pending = this.store.pendingValue(name);
      const value = pending === undefined ? settings[name] : pending;
      if (input.type === "checkbox") input.checked = value;
      else if (input.type === "radio") input.checked = input.value === value;
      else input.value = String(value);
      this.echo(name, value);
    }
    for (const w of this.warnings) w.hidden = w.dataset.rule !== settings.rule;
    for (const f of this.forSomeDrafts) f.hidden = !f.dataset.drafts.split(" ").includes(settings.draft);
    this.link.href = state.view.link;
    this.seed.textContent = String(settings.seed);
    this.setPlaying(state.ui.playing);
  }

  setPlaying(on) {
    this.buttons.play.setAttribute("aria-pressed", on ? "true" : "false");
  }
}

// Whether a control takes a link's value exactly as written: one of its options or radios, or a
// whole number, written plainly, within its slider's bounds.
function takesAsWritten(input, raw) {
  if (input.type === "radio") return input.value === raw;
  if (input.type === "range") {
    const n = Number(raw);
    return /^[0-9]+$/.test(raw) && String(n) === raw && n >= Number(input.min) && n <= Number(input.max);
  }
  if (input.tagName === "SELECT") return [...input.options].some((o) => o.value === raw);
  return false;
}
