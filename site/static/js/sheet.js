// Phones, and windows too narrow or short to hold the bench beside the text (frames.css): the
// bench is a sheet over the text, opened
// from the strip at the bottom of the screen (or the skip link) and closed by its own button or
// Escape. While it is open the rest of the page is inert, so focus stays in the bench; closing
// gives focus back to whatever opened it, and the text is where the reader left it.
const NARROW = window.matchMedia("(max-width: 56.24rem), (max-height: 34.99rem)");

export function wireSheet() {
  const bench = document.querySelector(".layout .bench");
  const close = bench && bench.querySelector(".b-sheet-close");
  if (!bench || !close) return null;
  // Everything but the bench (and the dialogs it opens, such as "Embed this") turns inert.
  const outside = [...document.body.children].filter((n) => !n.contains(bench) && !["SCRIPT", "DIALOG"].includes(n.tagName));
  const article = document.querySelector(".layout .article");
  let opener = null;

  function setOpen(open) {
    bench.dataset.sheet = open ? "open" : "closed";
    for (const node of [...outside, article]) node.inert = open;
  }

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
      if (!NARROW.matches) return;
      event.preventDefault();
      open(link);
    });
  }
  close.addEventListener("click", shut);
  bench.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && bench.dataset.sheet === "open") shut();
  });
  // Widening the window past the phone layout puts the bench beside the text again.
  NARROW.addEventListener("change", () => {
    if (!NARROW.matches && bench.dataset.sheet === "open") shut();
  });
  return { open, close: shut };
}
