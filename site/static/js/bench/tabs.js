// The panels beside the machine, one at a time: ARIA tabs (arrow keys, Home and End move along
// them; the panel follows at once). The open panel is the store's (ui.panel), so a chapter, a
// part lifted out, a "Try it" button or the reader's click all change it the same way.
import { nextTask } from "./dom.js";

// The page's panels, read from the template: their names, the first one open, and the panel
// each part brings up (data-opens; the first panel that names a part wins).
export function readPanels(root) {
  const names = [], forPart = {};
  for (const panel of root.querySelectorAll(".b-tabpanel")) {
    names.push(panel.dataset.panel);
    for (const part of panel.dataset.opens.split(" ").filter(Boolean)) forPart[part] ||= panel.dataset.panel;
  }
  return { names, first: root.dataset.panel, forPart };
}

// A change that opened another panel (the panels drawn while hidden are drawn again: a hidden
// one cannot measure its words).
export const panelOpened = (change, state) => change.kind === "ui" && state.ui.panel !== change.before.ui.panel;

// A hidden panel's view draws in a task of its own, after the task that drew the visible ones (a
// phone's main thread is not held by drawings no one sees); the store waits for the promise, so
// once the change is done the hidden panel shows it as well. The caller reads the state it draws
// before: a later change may replace it.
export function drawnWhenShown(panel, draw) {
  if (!panel.hidden) return draw();
  return nextTask().then(draw);
}

export class TabsView {
  constructor(root, store) {
    this.root = root;
    this.store = store;
    this.tabs = [...root.querySelectorAll(".b-tab")];
    this.panels = Object.fromEntries([...root.querySelectorAll(".b-tabpanel")].map((p) => [p.dataset.panel, p]));
  }

  wire() {
    const open = (tab) => this.store.dispatch({ type: "open_panel", panel: tab.dataset.panel }).catch(() => {});
    this.tabs.forEach((tab, i) => {
      tab.addEventListener("click", () => open(tab));
      tab.addEventListener("keydown", (e) => {
        const last = this.tabs.length - 1;
        const to = { ArrowRight: i === last ? 0 : i + 1, ArrowLeft: i === 0 ? last : i - 1, Home: 0, End: last }[e.key];
        if (to === undefined) return;
        e.preventDefault();
        this.tabs[to].focus();
        open(this.tabs[to]);
      });
    });
  }

  onChange(change, state) {
    if (change.kind === "ui") this.draw(state.ui);
  }

  draw(ui) {
    this.root.dataset.panel = ui.panel;
    for (const tab of this.tabs) {
      const on = tab.dataset.panel === ui.panel;
      tab.setAttribute("aria-selected", on ? "true" : "false");
      tab.tabIndex = on ? 0 : -1;
      this.panels[tab.dataset.panel].hidden = !on;
      // The chapter in view marks the tabs of the panels about its part.
      tab.classList.toggle("b-focus", Boolean(ui.focus) && this.panels[tab.dataset.panel].dataset.parts.split(" ").includes(ui.focus));
    }
  }
}
