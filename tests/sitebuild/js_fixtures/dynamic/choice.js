import { text } from "../good/strings.js";

export function draftName(draft) {
  return text("b_draft_" + draft);
}
