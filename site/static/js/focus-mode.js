// Focus mode on the full page: one button makes the bench fill the window (a lecturer projecting
// it, a reader who wants to play), the text behind it inert; the button again, or Escape, puts
// the bench back beside the text with the page scrolled where it was and focus on the button.
// Only beside the text (frames.css): on phones the bench already opens over the text as a sheet.
export function wireFocusMode() {
  const bench = document.querySelector(".layout .bench");
  const button = bench && bench.querySelector(".b-fill");
  if (!button) return null;
  const behind = [...document.body.children].filter((n) => !n.contains(bench) && !["SCRIPT", "DIALOG"].includes(n.tagName));
  const article = document.querySelector(".layout .article");
  let scrolled = 0;

  function set(on) {
    if (on) scrolled = window.scrollY;
    bench.dataset.fill = on ? "on" : "off";
    document.documentElement.dataset.fill = bench.dataset.fill; // frames.css: the page behind stays still
    for (const node of [...behind, article]) node.inert = on;
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.textContent = on ? button.dataset.off : button.dataset.on;
    if (!on) window.scrollTo({ top: scrolled, behavior: "instant" });
    button.focus({ preventScroll: true });
  }

  button.addEventListener("click", () => set(bench.dataset.fill !== "on"));
  document.addEventListener("keydown", (event) => {
    // A dialog opened from the bench (Embed this) closes first; the settings fold first (controls.js).
    if (event.key !== "Escape" || bench.dataset.fill !== "on" || document.querySelector("dialog[open]")) return;
    set(false);
  });
  return { open: () => set(true), close: () => set(false) };
}
