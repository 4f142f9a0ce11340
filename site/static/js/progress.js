// A reader's progress, as a course sees it (docs/courses.md): the chapters shown and the chapters
// whose Try-it ran to its answer, and the completion rule. The one owner of the rule: the embed
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

// What the embed posts: {type: "specdec:progress", chapters, tried, completed}.
export function progressMessage(all, chapters, tried) {
  return { type: "specdec:progress", chapters: inOrder(all, chapters), tried: inOrder(all, tried), completed: isComplete(all, chapters, tried) };
}
