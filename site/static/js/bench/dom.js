// Helpers for the DOM the bench builds and writes: its elements (table rows, tape tokens), text
// written only when it changes, and a way to give the main thread back between jobs.
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text != null) node.textContent = text;
  return node;
}

// Writing the same text again still replaces the text node, and the next frame lays out again
// the boxes around it: the page's start would write a dozen lines unchanged.
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

// A promise that resolves in a later task, so that the work after it is a task of its own (a
// phone's long tasks are what Lighthouse's total blocking time counts). scheduler.yield, where
// there is one, resumes ahead of other queued tasks.
export function nextTask() {
  return globalThis.scheduler && scheduler.yield ? scheduler.yield() : new Promise((resolve) => setTimeout(resolve));
}
