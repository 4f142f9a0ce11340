// The machine's parts and the chapters. Pressing a part shows it alone (and marks its panel);
// the chapter in view highlights the parts it talks about (the store opens the panel of a part
// that has one). Keyboard focus has its own ring (CSS: .b-part-ring), distinct from a chapter's
// highlight.
import { text } from "./text.js";

const PART_NAMES = {
  drum: () => text("b_partname_drum"),
  readhead: () => text("b_partname_readhead"),
  cabinet: () => text("b_partname_cabinet"),
  draft: () => text("b_partname_draft"),
  tape: () => text("b_partname_tape"),
  bridge: () => text("b_partname_bridge"),
  tubes: () => text("b_partname_tubes"),
  readouts: () => text("b_partname_readouts"),
  curve: () => text("b_partname_curve"),
  mill: () => text("b_partname_mill"),
  selfdraft: () => text("b_partname_selfdraft"),
  parts: () => text("b_partname_parts"),
  lab: () => text("b_partname_lab"),
};
const PART_TEXTS = {
  drum: () => text("b_partdesc_drum"),
  readhead: () => text("b_partdesc_readhead"),
  mill: () => text("b_partdesc_mill"),
  cabinet: () => text("b_partdesc_cabinet"),
  draft: () => text("b_partdesc_draft"),
  tape: () => text("b_partdesc_tape"),
  bridge: () => text("b_partdesc_bridge"),
  tubes: () => text("b_partdesc_tubes"),
};
// Chapters about the whole machine highlight nothing in particular.
const WHOLE = new Set(["parts", "lab", "selfdraft"]);

export class PartsView {
  constructor(root, store, announcer) {
    this.root = root;
    this.store = store;
    this.announcer = announcer;
    this.svg = root.querySelector("svg.b-machine");
    this.groups = [...root.querySelectorAll(".b-part[data-part-name]")];
    this.marked = [...root.querySelectorAll("[data-parts]")];
    this.panels = [...root.querySelectorAll(".b-panel[data-parts]")];
    this.info = root.querySelector(".b-part-info");
    this.back = root.querySelector(".b-back__link");
  }

  wire() {
    const isolate = (part) => this.store.dispatch({ type: "isolate", part }).catch(() => {});
    for (const g of this.groups) {
      g.addEventListener("click", () => isolate(g.dataset.partName));
      g.querySelector(".b-part-ring").addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          isolate(g.dataset.partName);
        }
      });
    }
    // Escape puts a lifted part back (before it closes the sheet or focus mode around the bench).
    this.root.addEventListener("keydown", (e) => {
      if (e.key !== "Escape" || !this.store.getState().ui.isolate) return;
      e.stopPropagation();
      isolate("");
    });
  }

  // The chapter in view (the API's chapter(), from page.js): the skip link leads back to it, and
  // its part is the one in focus.
  chapter({ id, part } = {}) {
    if (id && this.back) this.back.setAttribute("href", "#" + id);
    if (part) this.store.dispatch({ type: "focus", part }).catch(() => {});
  }

  onChange(change, state) {
    if (change.kind === "ui") this.draw(state.ui, change.before.ui);
    else if (change.kind === "done" && change.action.type === "isolate" && !change.action.quiet) {
      this.announcer.say(this.isolation(state.ui.isolate));
    }
  }

  draw(ui, before) {
    if (ui.isolate !== before.isolate) this.isolate(ui.isolate);
    if (ui.focus !== before.focus) this.focus(ui.focus);
  }

  isolate(name) {
    this.root.dataset.isolate = name;
    this.svg.classList.toggle("b-isolating", Boolean(name));
    for (const g of this.groups) {
      const on = g.dataset.partName === name;
      g.classList.toggle("b-isolated", on);
      g.querySelector(".b-part-ring").setAttribute("aria-pressed", on ? "true" : "false");
    }
    // A part with a panel of its own (the tape, the bridge, the tubes) marks that panel too.
    for (const panel of this.panels) panel.classList.toggle("b-isolated-panel", Boolean(name) && panel.dataset.parts === name);
    this.info.hidden = !name;
    if (name) {
      this.info.querySelector(".b-part-info__name").textContent = PART_NAMES[name]();
      this.info.querySelector(".b-part-info__text").textContent = PART_TEXTS[name]();
    }
  }

  // The sentence to announce for an isolation.
  isolation(name) {
    return name ? `${PART_NAMES[name]()}: ${PART_TEXTS[name]()}` : text("b_live_all_parts");
  }

  // The chapter in view marks what it talks about (the tabs mark their own: tabs.js).
  focus(part) {
    this.root.dataset.focus = part;
    this.svg.classList.toggle("b-exploded", part === "parts");
    for (const node of this.marked) {
      if (node.classList.contains("b-tabpanel")) continue;
      node.classList.toggle("b-focus", !WHOLE.has(part) && node.dataset.parts.split(" ").includes(part));
    }
  }
}
