// A reader's progress, as a course sees it (docs/courses.md): the chapters shown, the chapters
// whose Try-it ran to its answer (and those run with a prediction), and the completion rule. The one owner of the rule: the embed
// posts it to its host (embed-host.js), the course package's launcher reports it to the LMS.
//
// The rule: every chapter shown at least once, and the Try-it of at least TRIES_NEEDED chapters
// run to its answer. Showing a chapter is all a page can tell of reading; a Try-it is the
// reader acting on the bench, and a few of them (not every one) show the bench was used.
export const TRIES_NEEDED = 4;

// The anchors of `all` that are in `some`, in the chapters' order (so a report never depends on
// the order things happened in).
export const inOrder = (all, some) => all.filter((anchor) => some.includes(anchor));

export function isComplete(all, chapters, tried) {
  return inOrder(all, chapters).length === all.length && inOrder(all, tried).length >= Math.min(TRIES_NEEDED, all.length);
}

// What the embed posts: {type: "specdec:progress", chapters, tried, predicted, completed}.
// `predicted`: the chapters whose Try-it ran with a prediction the reader committed first. It is
// counted, not scored (right or wrong is the reader's own business), and not part of the rule.
export function progressMessage(all, chapters, tried, predicted = []) {
  return { type: "specdec:progress", chapters: inOrder(all, chapters), tried: inOrder(all, tried),
           predicted: inOrder(all, predicted), completed: isComplete(all, chapters, tried) };
}
