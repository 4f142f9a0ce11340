// "Embed this" (templates/_embed_dialog.html): copy-ready <iframe> code for a course page, with
// the bench's current state, this page's language, a chapter (the one in view, to start with)
// and the colours; a title, lazy loading, and a height (from the spec's layout) that shows the
// bench whole when the host runs no script. A native modal dialog: Escape closes it, and focus
// goes back to the button that opened it. The bench (its API, bench/api.js) says when its
// "Embed this" button is pressed, and takes focus back.
import { text } from "./bench/text.js";

const escapeAttribute = (s) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

export function wireEmbedDialog(bench, currentChapter) {
  const dialog = document.getElementById("embed-dialog");
  if (!dialog || !bench.has("embed")) return;
  const field = (name) => dialog.querySelector(`[name="${name}"]`);
  const code = dialog.querySelector("#embed-code");
  const preview = dialog.querySelector(".embed-dialog__preview");
  const status = dialog.querySelector(".embed-dialog__status");
  const { frameHeight, frameWidth, frameTitle } = dialog.dataset;

  // The embed's address on this host, with the bench's canonical link and the options chosen.
  function address() {
    const url = new URL(dialog.dataset.embed, window.location.href);
    url.search = bench.getState().view.link;
    for (const name of ["chapter", "theme"]) if (field(name).value) url.searchParams.set(name, field(name).value);
    return url.href;
  }

  function update() {
    const src = address();
    code.value = `<iframe src="${escapeAttribute(src)}" title="${escapeAttribute(frameTitle)}" width="${frameWidth}" height="${frameHeight}"`
      + ` loading="lazy" style="display: block; width: 100%; height: ${frameHeight}px; border: 0;"></iframe>`;
    preview.href = src;
    status.textContent = "";
  }

  async function copy(area) {
    try {
      await navigator.clipboard.writeText(area.value);
      status.textContent = text("embed_copied");
    } catch {
      area.focus();
      area.select();
      status.textContent = text("embed_copy_failed");
    }
  }

  bench.on("embed", () => {
    const chapter = currentChapter();
    if ([...field("chapter").options].some((o) => o.value === chapter)) field("chapter").value = chapter;
    update();
    dialog.showModal();
  });
  for (const name of ["chapter", "theme"]) field(name).addEventListener("change", update);
  for (const b of dialog.querySelectorAll("[data-copy]")) b.addEventListener("click", () => copy(document.getElementById(b.dataset.copy)));
  dialog.querySelector(".embed-dialog__close").addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => bench.focus("embed"));
}
