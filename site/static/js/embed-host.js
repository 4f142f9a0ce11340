// What the embed tells the page around it besides its height (embed.js), and the one thing it
// hears from it (docs/embedding.md, "The messages"). A host may ignore all of it.
//
// Posted to the parent, each only when it changed:
//   {type: "specdec:progress", chapters, tried, predicted, completed}  the chapters shown, those
//       whose Try-it ran to its answer and those run with a prediction, in this visit, and the
//       completion rule's verdict (progress.js)
//   {type: "specdec:state", link, chapter}  the bench's link (its query: the settings, the seed and
//       the passes run) and the chapter shown ("" for none); the course package's launcher keeps
//       them in the LMS's suspend data and lesson location
// Heard from the parent only:
//   {type: "specdec:show", chapter}  show that chapter (an anchor of the page's, or "" for none)
import { hear } from "./bench/api.js";
import { progressMessage } from "./progress.js";

export function connectHost({ chapters, show }) {
  const framed = window.parent !== window;
  const shown = new Set();
  const tried = new Set();
  const predicted = new Set();
  const last = {};
  const post = (message) => {
    const text = JSON.stringify(message);
    if (!framed || last[message.type] === text) return;
    last[message.type] = text;
    window.parent.postMessage(message, "*");
  };
  const progress = () => post(progressMessage(chapters, [...shown], [...tried], [...predicted]));

  hear("tryit", ({ box, predicted: guessed }) => {
    const section = box.closest("section");
    if (section && chapters.includes(section.id)) {
      tried.add(section.id);
      if (guessed) predicted.add(section.id);
    }
    progress();
  });
  if (framed) {
    addEventListener("message", (event) => {
      const data = event.data;
      if (event.source !== window.parent || !data || data.type !== "specdec:show") return;
      if (data.chapter === "" || chapters.includes(data.chapter)) show(data.chapter);
    });
  }
  return {
    // The embed shows a chapter (or none).
    shown(anchor) {
      if (anchor) shown.add(anchor);
      progress();
    },
    // The bench's state after an action: its link and the chapter shown.
    state(link, chapter) {
      post({ type: "specdec:state", link, chapter });
    },
  };
}
