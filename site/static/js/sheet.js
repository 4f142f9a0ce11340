// Phones, and windows too narrow or short to hold the bench beside the text (frames.css; in the
// embed, frames too narrow or short to hold it beside the chapter shown): the bench is a sheet
// over the text, opened from the bar at the top of the screen (or the skip link) and closed by
// its own button or Escape. While it is open the rest of the page is inert, so focus stays in the
// bench; closing gives focus back to whatever opened it, and the text is where the reader left
// it. While it is closed its machine shows small in the bar, as a picture (inert: the parts are
// pressed on the full bench), and the bar names the part in view.
import { setText } from "./bench/dom.js";
import { BAR } from "./frames.js";

// The embed takes the bar only while it shows a chapter (embed.js sets body[data-chapter]).
const inBar = () => BAR.matches && (document.body.dataset.embed !== "true" || "chapter" in document.body.dataset);

export function wireSheet() {
  const bench = document.getElementById("bench");
  const close = bench && bench.querySelector(".b-sheet-close");
  if (!bench || !close) return null;
  // Everything but the bench (and the dialogs it opens, such as "Embed this") turns inert.
  const outside = [...document.body.children].filter((n) => !n.contains(bench) && !["SCRIPT", "DIALOG"].includes(n.tagName));
  const text = document.querySelector(".layout .article, .embed__text");
  let opener = null;

  const figure = bench.querySelector(".b-machine-panel");
  function setOpen(open) {
    bench.dataset.sheet = open ? "open" : "closed";
    document.documentElement.dataset.sheet = bench.dataset.sheet; // frames.css: the page behind stays still
    for (const node of [...outside, text]) node.inert = open;
    if (figure) figure.inert = inBar() && !open;
  }
  nameThePart(bench);

  function open(from) {
    opener = from || document.activeElement;
    setOpen(true);
    bench.scrollTop = 0;
    document.getElementById("b-title").focus({ preventScroll: true });
  }

  function shut() {
    setOpen(false);
    if (opener && opener.isConnected) opener.focus({ preventScroll: true });
    opener = null;
  }

  // The strip's link and the skip link lead to the bench's title: on phones they open the sheet.
  for (const link of document.querySelectorAll('a[href="#b-title"]')) {
    link.addEventListener("click", (event) => {
      if (!inBar()) return;
      event.preventDefault();
      open(link);
    });
  }
  close.addEventListener("click", shut);
  bench.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && bench.dataset.sheet === "open") shut();
  });
  // Widening the window past the phone layout (or the embed's frame, or its chapter going) puts
  // the bench beside the text again.
  const refresh = () => {
    if (!inBar() && bench.dataset.sheet === "open") shut();
    else setOpen(bench.dataset.sheet === "open");
  };
  BAR.addEventListener("change", refresh);
  setOpen(false);
  return { open, close: shut, refresh };
}

// The bar's one line: the label of the part the chapter in view (or a Try it) lit, read from the
// machine itself, or the bench's name when no part is lit.
function nameThePart(bench) {
  const root = bench.querySelector("#b");
  const line = document.querySelector(".b-strip__part");
  if (!root || !line) return;
  const idle = line.textContent;
  const name = () => {
    const part = root.dataset.isolate || root.dataset.focus;
    const label = part && root.querySelector(`#b-part-${part}-label`);
    setText(line, label ? label.textContent : idle);
  };
  new MutationObserver(name).observe(root, { attributes: true, attributeFilter: ["data-focus", "data-isolate"] });
  name();
}
