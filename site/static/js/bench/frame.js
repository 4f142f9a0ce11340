// The bench's side of the frames it is shown in (docs/architecture.md, "One bench, three frames"):
// the page's scripts (sheet.js, focus-mode.js, embed-dialog.js, embed.js) reach it only through
// the API (api.js), never through its markup. The bench's own buttons for its frame ("Back to the
// text", "Fill the window", "Embed this") are told as requests to whoever listens; the frame says
// how it shows the bench (show), moves focus into it (focus), and follows its height.
//   on(kind, listener)   "close", "fill", "embed": a button pressed; "resize": {height} changed
//   show({picture, fill}) picture: the machine shows as a picture (the phone's bar: nothing in it
//                        is focusable); fill: the bench fills the window (the button says so)
//   focus(what)          focus on the bench's title ("title", its start for the keyboard), or on
//                        its "fill" or "embed" button (where a closed frame gives focus back)
//   height()             the bench's height, in CSS pixels
export class FrameControls {
  constructor(root) {
    this.root = root;
    this.listeners = {};
    this.controls = {
      title: root.querySelector(".b-title"),
      close: root.querySelector(".b-sheet-close"),
      fill: root.querySelector(".b-fill"),
      embed: root.querySelector(".b-embed-open"),
    };
    this.figure = root.querySelector(".b-machine-panel");
  }

  wire() {
    for (const kind of ["close", "fill", "embed"]) {
      const button = this.controls[kind];
      if (button) button.addEventListener("click", () => this.tell(kind, {}));
    }
    if ("ResizeObserver" in window) new ResizeObserver(() => this.tell("resize", { height: this.height() })).observe(this.root);
  }

  onChange() {}

  tell(kind, detail) {
    for (const listener of this.listeners[kind] || []) listener(detail);
  }

  // What the frame can use: the calls above. Which buttons the bench has (a frame that finds none
  // wires nothing): has("fill").
  api() {
    return {
      on: (kind, listener) => (this.listeners[kind] ||= []).push(listener),
      has: (control) => Boolean(this.controls[control]),
      show: ({ picture, fill } = {}) => {
        if (picture !== undefined && this.figure) this.figure.inert = picture;
        const button = this.controls.fill;
        if (fill !== undefined && button) {
          button.setAttribute("aria-pressed", fill ? "true" : "false");
          button.textContent = fill ? button.dataset.off : button.dataset.on;
        }
      },
      focus: (what = "title") => {
        const target = this.controls[what];
        if (target && target.isConnected) target.focus({ preventScroll: true });
      },
      height: () => this.height(),
    };
  }

  height() {
    return this.root.getBoundingClientRect().height;
  }
}
