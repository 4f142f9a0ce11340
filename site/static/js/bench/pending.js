// A link's state before Python has read it. Where the link carries a state other than the first
// picture's (link-state.js marks <html data-bench-link="pending"> before the first paint), the
// bench's figures show as pending (bench.css) and the bench is busy for assistive technology,
// until the link's "load" is applied and drawn, readouts included; then the figures are the link's.
// The settings show the link's values meanwhile where their own controls take them as written
// (controls.js, readLink).
const html = document.documentElement;

export const linkPending = () => html.dataset.benchLink === "pending";

export class PendingView {
  constructor(root) {
    this.root = root;
    if (linkPending()) root.setAttribute("aria-busy", "true");
  }

  onChange(change) {
    if ((change.kind === "done" || change.kind === "error") && change.action.type === "load" && linkPending()) {
      delete html.dataset.benchLink;
      this.root.removeAttribute("aria-busy");
    }
  }
}
