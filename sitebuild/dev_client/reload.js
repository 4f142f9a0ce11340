// The development server's reload channel (`build.py serve` adds this script; the built site
// never has it): reload after a build that changed the site, show a failed build over the page.
(() => {
  const build = new URL(document.currentScript.src).searchParams.get("build") || "";
  const zh = document.documentElement.lang.startsWith("zh");
  const words = zh
    ? { title: "构建失败：页面上仍是上一次成功构建的内容。", hint: "改好文件并保存，页面会自动重新载入。" }
    : { title: "Build failed: the page shows the last good build.", hint: "Fix the file and save: the page reloads by itself." };
  let overlay = null;

  function show(message) {
    if (!overlay) {
      overlay = document.createElement("div");
      overlay.id = "specdec-dev-overlay";
      overlay.setAttribute("role", "alert");
      const title = document.createElement("strong");
      title.textContent = words.title;
      const detail = document.createElement("pre");
      const hint = document.createElement("p");
      hint.textContent = words.hint;
      overlay.append(title, detail, hint);
      document.body.append(overlay);
    }
    overlay.querySelector("pre").textContent = message;
  }

  function hide() {
    if (overlay) overlay.remove();
    overlay = null;
  }

  const events = new EventSource(`/__specdec__/events?build=${encodeURIComponent(build)}`);
  events.addEventListener("reload", () => window.location.reload());
  events.addEventListener("failed", (event) => show(JSON.parse(event.data).message));
  events.addEventListener("ok", hide);
})();
