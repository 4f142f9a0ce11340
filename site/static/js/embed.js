// The embed's glue (templates/embed.html): the bench first; the options in its address; a link
// to the full page with the same state; and the frame's height, told to the host page.
//
// Options (besides every bench parameter), read by the sim with the bench's link so that a bad
// one gets the same kind of message in the page's language: chapter=<anchor> shows that chapter's
// text with the bench, part=<name> lifts a part out, theme=light|dark sets the colours
// (theme.js applies it before the first paint). Until Python has read them, a chapter the
// address names exactly is shown already; the sim's answer then decides.
//
// Height: whenever the document's height changes, the embed posts to its parent
//   {subject: "lti.frameResize", height}   (Canvas resizes the frame itself)
//   {subject: "org.imsglobal.lti.frameResize", height}   (the same, as Brightspace and some
//                                           tools name it)
//   {type: "specdec:height", height}       (the documented message; the host script in the
//                                           "Embed this" dialog and docs/embedding.md follow it)
// The height is the content's (with a chapter beside the bench, the bench's: wantedHeight), never
// the window's, so a host that sets the frame to it settles. A host may instead give the frame a
// height of its own (the course package's launcher fills the LMS's player with it): the layout
// follows the frame's size either way (frames.css), with the chapter beside the bench or, in a
// narrow frame, first under the machine's bar (sheet.js). The bench's height and the snippet's
// come from the bench's API (bench/api.js), as everything of the bench does.
// Progress and state, and the host's request to show a chapter: embed-host.js.
import { openBench } from "./bench/api.js";
import { connectHost } from "./embed-host.js";
import { BESIDE } from "./frames.js";
import { wireSheet } from "./sheet.js";
import "./tryit.js"; // the Try it of a chapter shown with chapter=

const body = document.body;
const chapters = JSON.parse(document.getElementById("page-chapters").textContent);
const fullLink = document.querySelector(".embed__full");
let shown = "";
// A link to another chapter shows it here in the course package's copy (body[data-package], where
// the LMS counts the chapters shown) and wherever there is no full page to open (data-page empty);
// elsewhere it opens the full page there.
const fullPage = fullLink.dataset.page;
const inPlace = !fullPage || body.dataset.package === "true";
const host = connectHost({ chapters, show: (anchor) => showInPlace(anchor) });
const frame = document.getElementById("bench"); // the embed's element that holds the bench
let bench = null; // the bench's API, once it is open
let sheet = null; // the machine's bar and sheet (sheet.js), once the bench is open

function showChapter(anchor) {
  const text = document.querySelector(".embed__text");
  shown = anchor || "";
  text.hidden = !shown;
  for (const section of text.querySelectorAll("section")) section.classList.toggle("b-shown", section.id === shown);
  if (shown) body.dataset.chapter = shown;
  else delete body.dataset.chapter;
  if (sheet) sheet.refresh(); // the bar comes and goes with the chapter
  host.shown(shown);
  if (!shown) return;
  // Links to other chapters and to the sources: in place, or on the full page, which has them.
  for (const link of document.getElementById(shown).querySelectorAll('a[href^="#"]')) {
    const target = document.getElementById(link.getAttribute("href").slice(1));
    if (target && target.closest("section") === link.closest("section")) continue;
    if (inPlace && target && chapters.includes(target.id)) {
      if (!link.dataset.inPlace) {
        link.dataset.inPlace = "true";
        link.addEventListener("click", (event) => {
          event.preventDefault();
          showInPlace(target.id);
        });
      }
      continue;
    }
    if (!fullPage) continue; // nothing to open it on
    link.href = fullPage + link.getAttribute("href");
    link.target = "_blank";
    link.rel = "noopener";
  }
}

function setTheme(theme) {
  if (theme) document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
}

function linkFullPage(view) {
  fullLink.href = fullPage + view.link + (shown ? "#" + shown : "");
  host.state(view.link, shown);
}

// The height to ask for. A chapter beside the bench (frames.js's BESIDE): as tall as the bench's
// content, and at least the snippet's height; the chapter then scrolls inside the frame past the
// sticky bench, which stays in view while the reader reads. Otherwise the whole document. Either
// way it follows the content, never the window, so a host that sets the frame to it settles (the
// bench's fit to a shorter frame counts the frame's height only up to the snippet's: frames.css).
function wantedHeight() {
  const whole = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (!shown || !BESIDE.matches || !bench) return whole;
  const main = getComputedStyle(document.querySelector(".embed__main"));
  // The frame's content, not its box: the box may be the frame's height.
  const benchBottom = parseFloat(main.paddingTop) + frame.scrollHeight + parseFloat(main.paddingBottom);
  return Math.max(Math.ceil(benchBottom), bench.layout().embed.frame_height);
}

function reportHeight() {
  if (window.parent === window) return;
  let last = 0;
  const send = () => {
    const height = wantedHeight();
    if (height === last) return;
    last = height;
    window.parent.postMessage({ subject: "lti.frameResize", height }, "*");
    window.parent.postMessage({ subject: "org.imsglobal.lti.frameResize", height }, "*");
    window.parent.postMessage({ type: "specdec:height", height }, "*");
  };
  new ResizeObserver(send).observe(document.documentElement); // the bench's own: bench.on("resize")
  BESIDE.addEventListener("change", send);
  send();
  return send;
}

// The part a chapter talks about (its panel opens with it).
const focusOn = (anchor) => {
  const section = anchor && document.getElementById(anchor);
  return section && section.dataset.part ? [{ type: "focus", part: section.dataset.part }] : [];
};

// A chapter the host asks for, or one a link names: shown with its part, its heading in view: at
// the top of the frame (beside the bench, or under the bar), and the frame itself in view of the
// pages around it where they scroll (a course page that sizes the frame to its content).
function showInPlace(anchor) {
  showChapter(anchor);
  window.scrollTo(0, 0);
  if (shown) document.getElementById(`${shown}-title`).scrollIntoView({ block: "nearest" });
  if (!bench) return;
  linkFullPage(bench.getState().view);
  bench.run(focusOn(shown)).catch(() => {});
}

const asked = new URLSearchParams(window.location.search).get("chapter");
if (chapters.includes(asked)) showChapter(asked);
const sendHeight = reportHeight();

bench = openBench({ chapters, first: focusOn(shown) });
if (bench) sheet = wireSheet(frame, bench);
if (bench && sendHeight) {
  bench.on("resize", sendHeight);
  sendHeight();
}
// A link's view options, once the sim has read them; the full page's link after every state.
if (bench) bench.subscribe((change, state) => {
  if (change.kind !== "act") return;
  const options = change.action.type === "load" && change.reply.options;
  if (options) {
    setTheme(options.theme);
    showChapter(options.chapter);
    const actions = focusOn(shown);
    if (options.part) actions.push({ type: "isolate", part: options.part });
    if (actions.length) bench.run(actions).catch(() => {});
  }
  linkFullPage(state.view);
});
