// Whether the page's link carries a bench state other than the build's first picture (a link
// made on another state, or the embed code "Embed this…" gives), decided before the first paint:
// then <html data-bench-link="pending">, and the bench shows its figures as pending (bench.css)
// until Python has read the link and the bench has drawn its state (bench/pending.js), never the
// first picture's, which are another state's. A classic script, first in <body> beside the
// worker's start, so that it runs before the page is drawn.
// Its data attributes are the build's (templates/_link_state.html): the names of the link's state
// parameters (the sim's table, sim/bench/settings.py: the settings, the counters and the legacy
// names) and the first picture's own link. A parameter spelled as that link spells it is that
// picture's; any other value, well or badly spelled, waits for the sim, which alone reads links.
"use strict";

(() => {
  const script = document.currentScript;
  if (!script) return;
  const names = JSON.parse(script.dataset.names || "[]");
  const first = new URLSearchParams(script.dataset.first || "");
  const seen = new Set(); // the sim reads a parameter given twice from its first occurrence
  let other = false;
  for (const [name, value] of new URLSearchParams(window.location.search)) {
    if (!names.includes(name) || seen.has(name)) continue;
    seen.add(name);
    if (first.get(name) !== value) other = true;
  }
  if (other) document.documentElement.dataset.benchLink = "pending";
})();
