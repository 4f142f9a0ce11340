// The course package's launcher (index.html, the SCO): finds the LMS's SCORM 1.2 API, opens the
// embed in a frame (filling the window under the bar) where the reader left it, and reports to the LMS what the embed tells it
// (site/static/js/embed-host.js). Outside an LMS it is the same page, reporting to no one.
//
// What the LMS records (docs/courses.md):
//   cmi.core.lesson_status    "incomplete" at the first launch, "completed" once the completion
//                             rule holds (site/static/js/progress.js); never set back
//   cmi.core.lesson_location  the chapter shown (its anchor)
//   cmi.suspend_data          the bench's link (its query) and the progress, one query string:
//                             <the bench's parameters>&course-chapters=a.b&course-tried=a&course-predicted=a
//                             (at most 4,096 characters, SCORM 1.2's limit: a longer bench link
//                             is left out, the progress kept)
//   cmi.interactions.n        one per chapter whose Try-it first ran with a prediction: id
//                             "predict-<anchor>", its time, result "neutral" (counted, not scored;
//                             the guess itself is not sent)
//   cmi.core.exit "suspend" and cmi.core.session_time as the page goes, then LMSFinish.
import { inOrder, isComplete, TRIES_NEEDED } from "./static/js/progress.js";

const SUSPEND_LIMIT = 4096;
const COMMIT_EVERY_MS = 10_000; // an LMS commit may be a request to its server: not after every action
const KEYS = { chapters: "course-chapters", tried: "course-tried", predicted: "course-predicted" };

const data = JSON.parse(document.getElementById("launcher-data").textContent);
const all = data.chapters;
const t = data.strings;
const frame = document.getElementById("launcher-frame");
const select = document.getElementById("launcher-chapter");
const chosen = document.getElementById("launcher-chosen"); // the chosen chapter's name, shown under the transparent menu
const line = document.getElementById("launcher-progress");
const previous = document.getElementById("launcher-previous");
const next = document.getElementById("launcher-next");

// SCORM 1.2's search for the API adapter: this window's parents, then the opener's.
function findAPI(start) {
  for (let win = start, hops = 0; win && hops < 10; hops++) {
    try {
      if (win.API && typeof win.API.LMSInitialize === "function") return win.API;
    } catch (error) {
      // a parent on another origin: it cannot be the LMS's adapter
    }
    if (win.parent === win) break;
    win = win.parent;
  }
  return null;
}

class Lms {
  constructor(api) {
    this.api = api;
    this.open = !!api && String(api.LMSInitialize("")) === "true";
    this.lastCommit = 0;
    this.timer = null;
  }
  get(name) {
    return this.open ? String(this.api.LMSGetValue(name) ?? "") : "";
  }
  set(name, value) {
    if (this.open && this.get(name) !== value) this.api.LMSSetValue(name, value);
  }
  commit(now = false) {
    if (!this.open) return;
    clearTimeout(this.timer);
    const wait = this.lastCommit + COMMIT_EVERY_MS - Date.now();
    if (!now && wait > 0) {
      this.timer = setTimeout(() => this.commit(true), wait);
      return;
    }
    this.lastCommit = Date.now();
    this.api.LMSCommit("");
  }
  // SCORM 1.2's interactions are written, never read back: the next one is at _count. An LMS
  // without them answers "" and refuses the values, which changes nothing else.
  interaction(id) {
    if (!this.open) return;
    const n = Number(this.get("cmi.interactions._count")) || 0;
    this.api.LMSSetValue(`cmi.interactions.${n}.id`, id);
    this.api.LMSSetValue(`cmi.interactions.${n}.time`, new Date().toTimeString().slice(0, 8)); // CMITime
    this.api.LMSSetValue(`cmi.interactions.${n}.result`, "neutral");
  }
  finish(seconds) {
    if (!this.open) return;
    this.open = false; // once, whichever of pagehide and beforeunload comes first
    this.api.LMSSetValue("cmi.core.session_time", sessionTime(seconds));
    this.api.LMSSetValue("cmi.core.exit", "suspend");
    this.api.LMSCommit("");
    this.api.LMSFinish("");
  }
}

// CMITimespan: HHHH:MM:SS.SS.
function sessionTime(seconds) {
  const pad = (n, width) => String(n).padStart(width, "0");
  const s = Math.max(0, Math.round(seconds * 100) / 100);
  return `${pad(Math.floor(s / 3600), 4)}:${pad(Math.floor((s % 3600) / 60), 2)}:${pad((s % 60).toFixed(2), 5)}`;
}

function readSuspend(text) {
  const params = new URLSearchParams(text || "");
  const list = (key) => inOrder(all, (params.get(key) || "").split("."));
  const bench = [...params].filter(([name]) => !Object.values(KEYS).includes(name));
  return { chapters: list(KEYS.chapters), tried: list(KEYS.tried), predicted: list(KEYS.predicted),
           bench: new URLSearchParams(bench).toString() };
}

function writeSuspend(bench, chapters, tried, predicted) {
  const progress = new URLSearchParams([[KEYS.chapters, inOrder(all, chapters).join(".")],
                                        [KEYS.tried, inOrder(all, tried).join(".")],
                                        [KEYS.predicted, inOrder(all, predicted).join(".")]]).toString();
  const whole = bench ? `${bench}&${progress}` : progress;
  if (whole.length <= SUSPEND_LIMIT) return whole;
  console.warn(`specdec: the bench's link (${bench.length} characters) does not fit SCORM's suspend data; only the progress is kept`);
  return progress;
}

const started = performance.now();
const lms = new Lms(findAPI(window.parent !== window ? window.parent : null) || (window.opener && findAPI(window.opener)));
const saved = readSuspend(lms.get("cmi.suspend_data"));
const chapters = new Set(saved.chapters);
const tried = new Set(saved.tried);
const predicted = new Set(saved.predicted);
let bench = saved.bench;
let chapter = all.includes(lms.get("cmi.core.lesson_location")) ? lms.get("cmi.core.lesson_location") : all[0];
let status = lms.get("cmi.core.lesson_status");
const done = () => status === "completed" || status === "passed";

function report() {
  const complete = isComplete(all, [...chapters], [...tried]);
  const before = status;
  if (complete && !done()) status = "completed";
  else if (!done()) status = "incomplete";
  lms.set("cmi.core.lesson_status", status);
  lms.set("cmi.core.lesson_location", chapter);
  lms.set("cmi.suspend_data", writeSuspend(bench, [...chapters], [...tried], [...predicted]));
  lms.commit(status !== before); // a new status at once; the rest within COMMIT_EVERY_MS
  const needed = Math.min(TRIES_NEEDED, all.length);
  const fill = (text, values) => text.replace(/\{(\w+)\}/g, (_, key) => values[key]);
  const guesses = inOrder(all, [...predicted]).length;
  line.textContent = (complete
    ? fill(t.course_completed, { needed })
    : fill(t.course_progress, { shown: inOrder(all, [...chapters]).length, all: all.length,
                                tried: Math.min(inOrder(all, [...tried]).length, needed), needed }))
    + (guesses ? fill(t.course_predicted, { predicted: guesses }) : "");
  select.value = chapter;
  chosen.textContent = select.selectedOptions[0].text;
  previous.disabled = chapter === all[0];
  next.disabled = chapter === all[all.length - 1];
}

function show(anchor) {
  if (!all.includes(anchor)) return;
  chapter = anchor;
  frame.contentWindow.postMessage({ type: "specdec:show", chapter: anchor }, "*"); // it brings the heading into view
  report();
}

window.addEventListener("message", (event) => {
  const message = event.data;
  if (event.source !== frame.contentWindow || !message || typeof message.type !== "string") return;
  // (Its height message is not followed: the frame fills the window, and the embed fits itself to it.)
  if (message.type === "specdec:progress") {
    for (const anchor of message.chapters || []) chapters.add(anchor);
    for (const anchor of message.tried || []) tried.add(anchor);
    for (const anchor of inOrder(all, message.predicted || [])) {
      if (predicted.has(anchor)) continue; // counted once, in this launch or an earlier one
      predicted.add(anchor);
      lms.interaction(`predict-${anchor}`);
    }
    report();
  } else if (message.type === "specdec:state") {
    if (all.includes(message.chapter)) chapter = message.chapter;
    bench = String(message.link || "").replace(/^\?/, "");
    report();
  }
});

select.addEventListener("change", () => show(select.value));
const step = (by) => () => {
  const anchor = all[all.indexOf(chapter) + by];
  if (anchor) show(anchor);
};
previous.addEventListener("click", step(-1));
next.addEventListener("click", step(1));
const finish = () => lms.finish((performance.now() - started) / 1000);
window.addEventListener("pagehide", finish);
window.addEventListener("beforeunload", finish);

document.getElementById(lms.open ? "launcher-recorded" : "launcher-no-lms").hidden = false;
const query = new URLSearchParams(bench);
query.set("chapter", chapter);
frame.src = `${frame.dataset.src}?${query}`;
report();
