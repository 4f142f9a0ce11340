// Page glue: which chapter is in view, the language switch that keeps it, and the embed's height.
import { startBench } from "./bench/bench.js";
import "./tryit.js"; // the chapters' Try it buttons

const body = document.body;

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

function reportHeightToParent() {
  if (window.parent === window) return;
  const send = () => {
    const height = document.documentElement.scrollHeight;
    // Canvas LMS listens for lti.frameResize; other hosts can read the same message.
    window.parent.postMessage({ subject: "lti.frameResize", height }, "*");
  };
  new ResizeObserver(send).observe(document.documentElement);
  send();
}

keepChapterOnLanguageSwitch();
currentChapterTracker((section) => {
  if (body.dataset.embed !== "true" && window.location.hash !== "#" + section.id) {
    history.replaceState(history.state, "", window.location.pathname + window.location.search + "#" + section.id);
  }
  document.dispatchEvent(new CustomEvent("specdec:chapter", { detail: { id: section.id, part: section.dataset.part } }));
});
if (body.dataset.embed === "true") reportHeightToParent();
startBench(body.dataset);
