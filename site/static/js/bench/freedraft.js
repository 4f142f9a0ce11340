// A draft without a second model (draft lookup, suffix or heads): the prompt it searches, under the
// controls (its menu shows for the drafts the setting names: controls.js), and the notes the panels
// give for a chosen guess (q a point mass) or, for the tubes, that they apply to model drafts only
// (templates/_controls.html, _readouts.html, _exact.html, _tubes.html, _bridge.html). view.prompt is
// null for a model draft; heads search no prompt.
import { text } from "./text.js";

const SHOWN = 120; // characters of the prompt quoted

export class FreeDraftView {
  constructor(root) {
    this.promptText = root.querySelector(".b-prompt-text");
    this.notes = [...root.querySelectorAll(".b-free-note, .b-alpha-free-note")];
  }

  draw(prompt) {
    for (const note of this.notes) note.hidden = !prompt;
    this.promptText.hidden = !prompt || !prompt.searched;
    if (this.promptText.hidden) return;
    const quoted = prompt.text.length > SHOWN ? prompt.text.slice(0, SHOWN - 1) + "…" : prompt.text;
    let said = prompt.text ? text("b_prompt_shown", { text: quoted })
      : prompt.found ? text("b_prompt_empty")
      : prompt.kind === "own" ? text("b_prompt_own_missing") : text("b_prompt_passage_missing");
    if (prompt.earlier.length) said += " " + text("b_prompt_earlier", { n: prompt.earlier.length });
    this.promptText.textContent = said;
  }

  onChange(change, state) {
    if (change.kind === "act") this.draw(state.view.prompt);
  }
}
