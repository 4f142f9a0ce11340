// The bench's one live region (polite): one summary per action, composed from the state the
// action left, in the page's language.
import { format, text } from "./text.js";

export class Announcer {
  constructor(root) {
    this.root = root;
    this.region = root.querySelector(".b-live");
    this.timer = null;
    this.pending = "";
  }

  // Something to say with the action's summary (a link's messages), in the same announcement.
  queue(message) {
    this.pending = message || "";
  }

  // The summary of each action done (the race's and the parts' own words come from their views;
  // Play's passes and quiet actions say nothing); an uncoded failure (a coded one is worded by its view).
  onChange(change, state) {
    const a = change.action;
    if (change.kind === "done") {
      if (a.quiet || (a.source === "play" && a.type === "step") || a.type === "isolate" || a.type === "focus") return;
      this.say(summary(a, change.reply, state, this.root));
    } else if (change.kind === "error" && !change.error.code) {
      this.say(text("b_action_failed", { error: change.error.message }));
    }
  }

  say(summary) {
    const message = [this.pending, summary].filter(Boolean).join(" ");
    this.pending = "";
    if (!message) return;
    // Emptied first, so that a repeated sentence is read again.
    this.region.textContent = "";
    clearTimeout(this.timer);
    this.timer = setTimeout(() => (this.region.textContent = message), 30);
  }
}

export function readoutsLine(ro) {
  if (!ro) return ""; // not measured: an action queued behind this one replaced its state
  return text("b_live_readouts", {
    alpha: format.num(ro.alpha, 3),
    counted: format.num(ro.tokens_per_pass_counted, 2),
    formula: format.num(ro.tokens_per_pass_formula, 2),
    speedup: format.num(ro.speedup, 2),
    best: ro.best_gamma,
  });
}

// A setting's value as the settings form names it: the build wrote each value's label there from the
// spec's values and the strings, so a value added to the spec is named here without a second list.
function valueLabel(root, name, value) {
  const v = CSS.escape(String(value));
  const label = root.querySelector(`#b-${name} option[value="${v}"], label[for="b-${name}-${v}"]`);
  return label ? label.textContent.trim() : String(value);
}

export function settingsLine(settings, root) {
  return text("b_live_settings", {
    draft: valueLabel(root, "draft", settings.draft),
    gamma: settings.gamma,
    candidates: settings.candidates,
    batch: format.int(settings.batch),
    temperature: valueLabel(root, "temperature", settings.temperature),
    rule: valueLabel(root, "rule", settings.rule),
  });
}

export function passLine(view) {
  const pass = view.pass;
  if (!pass) return "";
  return text("b_live_step", {
    passes: view.tape.passes,
    kept: pass.n_kept,
    gamma: pass.guesses.length,
    written: pass.n_written,
    text: pass.written_display,
  });
}

// The summary of an action that was applied: state is the bench's state after it; root, the bench
// (its settings form names the values).
export function summary(action, reply, state, root) {
  const view = state.view;
  const settings = state.bench.settings;
  switch (action.type) {
    case "set":
      return `${settingsLine(settings, root)} ${readoutsLine(view.readouts)}`;
    case "step":
      if (reply.capped) return text("b_live_capped_steps", { max: view.tape.passes });
      return `${passLine(view)} ${readoutsLine(view.readouts)}`;
    case "new_sentence":
      return `${text("b_live_new", { seed: settings.seed, sentence: view.sentence.text })} ${passLine(view)}`;
    case "round":
      if (reply.capped) return text("b_live_capped_rounds", { max: view.tubes.rounds });
      return text("b_live_tubes", { rounds: view.tubes.rounds, draws: view.tubes.draws });
    case "clear_tubes":
      return text("b_live_tubes", { rounds: view.tubes.rounds, draws: view.tubes.draws });
    case "load":
      return `${text("b_live_link")} ${settingsLine(settings, root)} ${readoutsLine(view.readouts)}`;
    case "play":
      return text("b_live_playing");
    case "pause":
      return text("b_live_paused", { text: view.tape.text });
    case "speed":
      return text("b_live_speed", { speed: valueLabel(root, "speed", action.value) });
    default:
      return "";
  }
}
