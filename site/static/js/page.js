// The full page's glue: which chapter is in view (it picks the bench's part and panel), the
// language switch that keeps it, the phone's sheet, focus mode, and the "Embed this" dialog.
import { openBench } from "./bench/api.js";
import { nextTask } from "./bench/dom.js";
import { wireEmbedDialog } from "./embed-dialog.js";
import { wireFocusMode } from "./focus-mode.js";
import { wireSheet } from "./sheet.js";
import "./tryit.js"; // the chapters' Try it buttons

function currentChapterTracker(onChange) {
  const sections = [...document.querySelectorAll("section.chapter, section.closing")];
  if (!("IntersectionObserver" in window) || sections.length === 0) return;
  const visible = new Map();
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries) visible.set(entry.target.id, entry.isIntersecting);
    const first = sections.find((s) => visible.get(s.id));
    if (first) onChange(first);
  }, { rootMargin: "-30% 0px -60% 0px" });
  sections.forEach((s) => observer.observe(s));
}

function keepChapterOnLanguageSwitch() {
  // The other language has the same anchors, so the reader lands where they were.
  for (const link of document.querySelectorAll("a[data-lang-switch]")) {
    link.addEventListener("click", () => {
      const base = link.getAttribute("href").split(/[?#]/)[0];
      link.setAttribute("href", base + window.location.search + window.location.hash);
    });
  }
}

let chapter = "";
const bench = openBench();
// The rest in a task of its own: with the bench's start and the modules' evaluation it made the
// longest task of a phone's first seconds.
await nextTask();
keepChapterOnLanguageSwitch();
currentChapterTracker((section) => {
  chapter = section.classList.contains("chapter") ? section.id : "";
  if (window.location.hash !== "#" + section.id) {
    history.replaceState(history.state, "", window.location.pathname + window.location.search + "#" + section.id);
  }
  if (bench) bench.chapter({ id: section.id, part: section.dataset.part });
});
// The page's element that holds the bench (page.html): the frames' styles follow its state.
const frame = document.getElementById("bench");
if (bench) {
  wireSheet(frame, bench);
  wireFocusMode(frame, bench);
  wireEmbedDialog(bench, () => chapter);
}
