// Focus mode on the full page: one button makes the bench fill the window (a lecturer projecting
// it, a reader who wants to play), the text behind it inert; the button again, or Escape, puts
// the bench back beside the text with the page scrolled where it was and focus on the button.
// Only beside the text (frames.css): on phones the bench already opens over the text as a sheet.
//
// frame: the page's element that holds the bench (the frames' styles follow its data-fill);
// bench: the bench's API (bench/api.js), which tells when its button is pressed and shows its state.
export function wireFocusMode(frame, bench) {
  if (!frame || !bench || !bench.has("fill")) return null;
  const behind = [...document.body.children].filter((n) => !n.contains(frame) && !["SCRIPT", "DIALOG"].includes(n.tagName));
  const article = document.querySelector(".layout .article");
  let scrolled = 0;

  function set(on) {
    if (on) scrolled = window.scrollY;
    frame.dataset.fill = on ? "on" : "off";
    document.documentElement.dataset.fill = frame.dataset.fill; // frames.css: the page behind stays still
    for (const node of [...behind, article]) node.inert = on;
    bench.show({ fill: on });
    if (!on) window.scrollTo({ top: scrolled, behavior: "instant" });
    bench.focus("fill");
  }

  bench.on("fill", () => set(frame.dataset.fill !== "on"));
  document.addEventListener("keydown", (event) => {
    // A dialog opened from the bench (Embed this) closes first; the settings fold first (controls.js).
    if (event.key !== "Escape" || frame.dataset.fill !== "on" || document.querySelector("dialog[open]")) return;
    set(false);
  });
  return { open: () => set(true), close: () => set(false) };
}
