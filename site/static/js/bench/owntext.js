// The reader's own text (templates/_owntext.html). Count sends the box's text to the worker
// through the store's use_text action; Python checks it, counts the models (sim/owntext.py) and
// the bench is redrawn on them; Back to the book is use_book. Stages show as they are reported.
// The text stays in this page: it is not in the link (the link says only text=own, and a page
// opened from such a link asks for the text again), not stored, and sent to no server.
import { setText } from "./dom.js";
import { format, text } from "./text.js";
import { readQuery, setPageParam } from "./url.js";

const LINK_PARAM = "text";
const LINK_VALUE = "own";

const STAGE_TEXT = {
  waiting: () => text("b_own_stage_waiting"),
  tokens: () => text("b_own_stage_tokens"),
  unigram: () => text("b_own_stage_unigram"),
  bigram: () => text("b_own_stage_bigram"),
  trigram: () => text("b_own_stage_trigram"),
  models: () => text("b_own_stage_models"),
  view: () => text("b_own_stage_view"),
};

// The sim's codes for a text that cannot be counted (sim/owntext.py), worded here.
const ERRORS = {
  empty: () => text("b_own_error_empty"),
  too_long: (d) => text("b_own_error_too_long", { characters: format.int(d.characters), max: format.int(d.max) }),
  binary: (d) => text("b_own_error_binary", { count: format.int(d.count), position: format.int(d.position), code_point: d.code_point }),
  other_language: (d) => text("b_own_error_other_language", { share: format.pct(d.share) }),
  no_words: () => text("b_own_error_no_words"),
  too_short: (d) => text("b_own_error_too_short", { tokens: format.int(d.tokens), min: format.int(d.min) }),
};

function characters(value) {
  let n = 0;
  for (const _ of value) n++; // code points, as Python counts them
  return n;
}

// A button that cannot be used now is disabled, except the one holding the keyboard's focus (the
// one just pressed, while its change runs): it says so (aria-disabled) and keeps the focus, which a
// disabled button drops to the page's body.
function usable(button, yes) {
  button.disabled = !yes && document.activeElement !== button;
  button.setAttribute("aria-disabled", String(!yes));
}

export class OwnTextView {
  constructor(root, spec, store, announcer) {
    this.root = root;
    this.panel = root.querySelector(".b-own");
    this.store = store;
    this.announcer = announcer;
    this.stages = ["waiting", ...spec.own_text.stages, "view"];
    this.max = spec.own_text.max_characters;
    const $ = (selector) => this.panel.querySelector(selector);
    this.box = $(".b-own__text");
    this.chars = $(".b-own__chars");
    this.countButton = $(".b-own__count");
    this.bookButton = $(".b-own__book");
    this.source = $(".b-own__source-value");
    this.linkNote = $(".b-own__link-note");
    this.pending = root.querySelector(".b-own-pending");
    this.progress = $(".b-own__progress");
    this.bar = $(".b-own__bar");
    this.stage = $(".b-own__stage");
    this.message = $(".b-own__message");
    this.counting = false;
    this.live = false;
    this.failed = false;
  }

  wire() {
    this.box.addEventListener("input", () => this.drawCount());
    this.countButton.addEventListener("click", () => this.count());
    this.bookButton.addEventListener("click", () => this.useBook());
    // A link made on a reader's text: the text is not in it, so ask for it again.
    this.linkNote.hidden = !readQuery().some(([name, value]) => name === LINK_PARAM && value === LINK_VALUE);
    if (!this.linkNote.hidden) this.store.dispatch({ type: "open_panel", panel: "own" }).catch(() => {}); // its tab, open
    // The chapter in view may open its own panel over that tab (a link with a chapter's anchor):
    // the line beside the tape says it whichever tab is open, and brings the tab back.
    this.pending.hidden = this.linkNote.hidden;
    this.pending.querySelector("button").addEventListener("click", () => {
      this.store.dispatch({ type: "open_panel", panel: "own" }).then(() => this.box.focus()).catch(() => {});
    });
    this.drawCount();
  }

  onChange(change, state) {
    if (change.kind === "source") {
      this.drawSource(state.source);
      if (this.counting) this.showStage("view"); // the models are in: the bench is redrawn on them
    } else if (change.kind === "mode") {
      this.modeChanged(change.mode); // the bench's controls come alive (and die) with the worker (live.js)
    }
  }

  // A worker started again (Retry) holds the book's models only: say so, and show the book.
  modeChanged(mode) {
    const restarted = mode === "live" && this.failed;
    this.failed = mode === "failed" || (this.failed && mode !== "live");
    this.enable(mode === "live");
    if (restarted && this.store.getState().source.source === "text" && !this.counting) {
      this.store.dispatch({ type: "use_book" }).then(() => this.say("error", text("b_own_restarted")), () => {});
    }
  }

  enable(live) {
    this.live = live;
    const book = this.store.getState().source.source === "book";
    usable(this.countButton, live && !this.counting);
    // With the book back there is nothing to go back to: the keyboard's focus goes on to Count.
    if (book && live && !this.counting && document.activeElement === this.bookButton) this.countButton.focus();
    usable(this.bookButton, live && !this.counting && !book);
  }

  drawCount() {
    const n = characters(this.box.value);
    setText(this.chars, text("b_own_chars", { count: format.int(n), max: format.int(this.max) }));
    this.chars.classList.toggle("b-own__chars--over", n > this.max);
  }

  drawSource(source) {
    const own = source.source === "text";
    this.source.textContent = own ? text("b_own_source_text", { tokens: format.int(source.tokens) }) : text("b_own_source_book");
    this.panel.dataset.source = source.source;
    if (own) this.linkNote.hidden = this.pending.hidden = true;
    setPageParam(LINK_PARAM, own ? LINK_VALUE : null);
    this.enable(this.live);
  }

  showStage(stage) {
    this.progress.hidden = false;
    this.bar.value = this.stages.indexOf(stage) + 1;
    this.stage.textContent = STAGE_TEXT[stage]();
  }

  say(kind, message) {
    this.message.hidden = false;
    this.message.dataset.kind = kind;
    this.message.textContent = message;
    this.announcer.say(message);
  }

  // One model change through the store's queue, with the stages shown as they come.
  async change(action) {
    this.counting = true;
    this.enable(this.live);
    this.message.hidden = true;
    this.showStage("waiting");
    try {
      return await this.store.dispatch({ ...action, onProgress: (stage) => this.showStage(stage) });
    } finally {
      this.counting = false;
      this.progress.hidden = true;
      this.enable(this.live);
    }
  }

  async count() {
    if (this.counting || !this.live) return; // pressed again while it runs (aria-disabled)
    let reply;
    try {
      reply = await this.change({ type: "use_text", text: this.box.value });
    } catch (error) {
      const worded = error && ERRORS[error.code];
      const said = worded ? worded(error.details || {}) : text("b_own_error_other", { error: error && error.message });
      return this.say("error", text("b_own_error_and_kept", { error: said, kept: text("b_own_kept") }));
    }
    const s = reply.source;
    await this.store.idle(); // an action queued meanwhile is measured in the state it leaves
    const readouts = this.store.getState().view.readouts;
    this.say("done", text("b_own_done", {
      tokens: format.int(s.tokens),
      vocab: format.int(s.vocab),
      bigrams: format.int(s.bigram_types),
      trigrams: format.int(s.trigram_types),
      prefix: s.prefix,
      alpha: readouts ? format.num(readouts.alpha, 3) : "—",
    }));
  }

  async useBook() {
    if (this.counting || !this.live || this.store.getState().source.source === "book") return;
    try {
      await this.change({ type: "use_book" });
    } catch (error) {
      return this.say("error", text("b_own_error_other", { error: error && error.message }));
    }
    this.say("done", text("b_own_book_done"));
  }
}
