import { text } from "./strings.js";

// text("in_a_comment") is not a call, and neither is this one:
/* text("in_a_block_comment") */
const url = "https://example.org/text(not_a_call)";

export class Status {
  text() {              // a method named text: a definition, not a call
    return this.label.textContent;
  }

  show(python) {
    this.label.textContent = text("b_ready", { python });
    this.hint.textContent = text('b_slow');
    this.more.textContent = text(
      "b_failed",
      { error: "?" },
    );
    return fetch(url).then((response) => response.text());
  }
}

export const drafts = { bigram: text(`b_draft_bigram`), unigram: text("b_draft_unigram") };
