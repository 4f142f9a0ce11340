// Phones, and windows too narrow or short to hold the bench beside the text (frames.css; in the
// embed, frames too narrow or short to hold it beside the chapter shown): the bench is a sheet
// over the text, opened from the bar at the top of the screen (or the skip link) and closed by
// its own button or Escape. While it is open the rest of the page is inert, so focus stays in the
// bench; closing gives focus back to whatever opened it, and the text is where the reader left
// it. While it is closed its machine shows small in the bar, as a picture (inert: the parts are
// pressed on the full bench); the bar names the part in view (bench/strip.js).
//
// frame: the page's element that holds the bench (the frames' styles follow its data-sheet);
// bench: the bench's API (bench/api.js), the only way in to the bench itself.
import { BAR } from "./frames.js";

// The embed takes the bar only while it shows a chapter (embed.js sets body[data-chapter]).
const inBar = () => BAR.matches && (document.body.dataset.embed !== "true" || "chapter" in document.body.dataset);

export function wireSheet(frame, bench) {
  if (!frame || !bench || !bench.has("close")) return null;
  // Everything but the bench (and the dialogs it opens, such as "Embed this") turns inert.
  const outside = [...document.body.children].filter((n) => !n.contains(frame) && !["SCRIPT", "DIALOG"].includes(n.tagName));
  const text = document.querySelector(".layout .article, .embed__text");
  let opener = null;

  function setOpen(open) {
    frame.dataset.sheet = open ? "open" : "closed";
    document.documentElement.dataset.sheet = frame.dataset.sheet; // frames.css: the page behind stays still
    for (const node of [...outside, text]) if (node) node.inert = open;
    bench.show({ picture: inBar() && !open });
  }

  function open(from) {
    opener = from || document.activeElement;
    setOpen(true);
    frame.scrollTop = 0;
    bench.focus("title");
  }

  function shut() {
    setOpen(false);
    if (opener && opener.isConnected) opener.focus({ preventScroll: true });
    opener = null;
  }

  // The links that lead to the bench (the bar's, the skip link, a Try it's): on phones they open the sheet.
  for (const link of document.querySelectorAll("a[data-opens-bench]")) {
    link.addEventListener("click", (event) => {
      if (!inBar()) return;
      event.preventDefault();
      open(link);
    });
  }
  bench.on("close", shut);
  frame.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && frame.dataset.sheet === "open") shut();
  });
  // Widening the window past the phone layout (or the embed's frame, or its chapter going) puts
  // the bench beside the text again.
  const refresh = () => {
    if (!inBar() && frame.dataset.sheet === "open") shut();
    else setOpen(frame.dataset.sheet === "open");
  };
  BAR.addEventListener("change", refresh);
  setOpen(false);
  return { open, close: shut, refresh };
}
