#!/usr/bin/env python3
"""Firefox's own stall, reduced to a page with no code of this project: a module worker that starts
a worker of its own (a nested worker) never comes back from `new Worker()`, now and then, on a
loaded machine. Prints how many pages stalled, and where.

The page (written into a temporary folder, served with caching off) starts a module worker, as the
site's page starts its sim worker. That worker posts a heartbeat every 250 ms, fetches a 2.4 MB
file, streams Pyodide's own .wasm into WebAssembly.compileStreaming and imports Pyodide's
pyodide.asm.mjs (from node_modules/pyodide: Pyodide's files, as the sim worker's start fetches
them), and when the file's response arrives it starts a nested module worker and posts it the
file's chunks, as the site's snapshot-inflate.js does with the snapshot. A page is "done" when the
nested worker answers. A stalled page's last mark is "before-nested" and its heartbeat stops: the
worker's thread is held inside the Worker constructor (measured: 5 of 300 pages, Firefox ESR
153.8 under `stress-ng --cpu 2 --hdd 1` beside other work on 2 cores; 0 of 300 with --from-page).

--from-page: the page starts the second worker instead and hands the first a MessageChannel port
to it (the same work, no nested worker), for comparison.

--site DIR: the site's own start path instead, on a built site (`./dev build --out DIR`): each page
is DIR's en/specdec/, served with caching off and service workers off in Firefox, so that every
start is a first visit (the sim worker's .wasm and snapshot fetched, the snapshot's decoding worker
started by the page and handed over). A page is "done" when the sim worker is ready (its mark
specdec:worker-ready); a start that went quiet and was started again in a fresh worker (the mark
specdec:stage-restarted: site/static/js/startup/sim-client.js) counts as stalled, as does one not
ready in 60 s. Measured: 0 of 300 starts stalled, twice (Firefox ESR 153.8, 2 cores shared with
other work at load average 11-25), where the nested case stalled 5 of 300 in the same conditions.

    .venv/bin/python benchmarks/firefox_worker_stall.py [--browsers 30] [--pages 10] [--from-page | --site DIR]

Each browser is a fresh Firefox (puppeteer-core over WebDriver BiDi, as the smoke test drives it)
that opens --pages pages one after another; a page not done in 20 s counts as stalled. The stall
is rare on a quiet machine: run it beside load (say `stress-ng --cpu 2 --hdd 1`).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIREFOX = os.environ.get("SPECDEC_FIREFOX", "/usr/bin/firefox-esr")
PAGE_OF_SITE = "en/specdec"  # --site: the page whose start is measured

PAGE = """<!doctype html>
<meta charset="utf-8"><title>a worker that starts a worker</title>
<script>
window.marks = [];
const t0 = performance.now();
const mark = (name) => window.marks.push(name + "@" + Math.round(performance.now() - t0));
const worker = new Worker("w.js", { type: "module" });
worker.onmessage = ({ data }) => {
  if (data.ask) {  // --from-page: the page starts the second worker and hands the first a port to it
    const channel = new MessageChannel();
    new Worker("n.js", { type: "module" }).postMessage({ port: channel.port1 }, [channel.port1]);
    worker.postMessage({ port: channel.port2 }, [channel.port2]);
  }
  if (data.beat !== undefined) window.beats = data.beat;
  else mark(data.mark);
  if (data.mark === "nested-answered") document.title = "done";
};
mark("page-started-worker");
</script>
%(modules)s
%(text)s
"""

WORKER = """// A module worker: a heartbeat, a file fetched, Pyodide's .wasm compiled as it streams in and its
// script imported, and a second worker given the file's chunks as they come.
const post = (mark) => self.postMessage({ mark });
let beat = 0;
setInterval(() => self.postMessage({ beat: ++beat }), 250);
post("worker-evaluated");
const file = fetch("file.bin");
fetch("pyodide.asm.wasm").then((r) => WebAssembly.compileStreaming(r)).then(() => post("wasm-compiled"));
import("./pyodide.asm.mjs").then(() => post("asm-imported"));
file.then(async (response) => {
  post("file-response");
  post("before-nested");
  let send;
  if (%(from_page)s) {
    self.postMessage({ mark: "asked-the-page", ask: true });
    const port = await new Promise((resolve) => { self.onmessage = ({ data }) => resolve(data.port); });
    port.onmessage = () => post("nested-answered");
    send = (chunk) => port.postMessage(chunk);
  } else {
    const nested = new Worker("n.js", { type: "module" });
    nested.onmessage = () => post("nested-answered");
    send = (chunk) => nested.postMessage(chunk);
  }
  post("after-nested");
  const reader = response.body.getReader();
  for (;;) { const { done, value } = await reader.read(); if (done) break; send(value); }
  post("file-read");
});
"""

NESTED = """self.onmessage = ({ data }) => {
  if (data && data.port) { data.port.onmessage = () => {}; data.port.postMessage("hi"); }
};
self.postMessage("hi");
"""

DRIVER = """import puppeteer from "%(puppeteer)s";
const [url, browsers, pages, firefox] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), process.argv[5]];
const site = %(site)s;
// The site's page: ready once the sim worker says so, stalled where the page restarted its start.
const DONE = site
  ? () => performance.getEntriesByName("specdec:worker-ready").length > 0 || performance.getEntriesByName("specdec:stage-restarted").length > 0
  : () => document.title === "done";
const MARKS = site
  ? () => ({ marks: performance.getEntriesByType("mark").filter((m) => m.name.startsWith("specdec:"))
      .map((m) => m.name.slice(8) + "@" + Math.round(m.startTime)), beats: 0,
      restarted: performance.getEntriesByName("specdec:stage-restarted").length > 0 })
  : () => ({ marks: window.marks, beats: window.beats || 0 });
for (let b = 0; b < browsers; b++) {
  const browser = await puppeteer.launch({ browser: "firefox", executablePath: firefox, headless: true,
    extraPrefsFirefox: site ? { "dom.serviceWorkers.enabled": false } : {} });
  for (let i = 0; i < pages; i++) {
    const page = await browser.newPage();
    await page.goto(`${url}?b=${b}&p=${i}`);
    let done = true;
    try { await page.waitForFunction(DONE, { timeout: site ? 60000 : 20000, polling: 100 }); } catch { done = false; }
    const got = await page.evaluate(MARKS);
    if (got.restarted) done = false;
    console.log(JSON.stringify({ browser: b, page: i, done, ...got }));
    await page.close();
  }
  await browser.close();
}
"""


def write_case(folder: Path, from_page: bool) -> None:
    pyodide = REPO / "node_modules" / "pyodide"
    for name in ("pyodide.asm.wasm", "pyodide.asm.mjs"):
        shutil.copyfile(pyodide / name, folder / name)
    (folder / "file.bin").write_bytes(random.Random(1).randbytes(2_400_000))
    (folder / "mods").mkdir()
    for i in range(30):  # module scripts for the page's thread to load meanwhile, as the site's page has
        chained = f'import "./m{i + 1}.js";\n' if i < 29 else ""
        body = "\n".join(f"export function g{i}_{k}(x) {{ return (x * {k} + {i}) % 97; }}" for k in range(150))
        (folder / "mods" / f"m{i}.js").write_text(chained + body + "\n")
    modules = "".join(f'<script type="module" src="mods/m{i}.js"></script>\n' for i in range(0, 30, 3))
    text = "".join(f"<p>paragraph {i} " + "lorem ipsum dolor sit amet " * 20 + "</p>\n" for i in range(500))
    (folder / "index.html").write_text(PAGE % {"modules": modules, "text": text})
    (folder / "w.js").write_text(WORKER % {"from_page": "true" if from_page else "false"})
    (folder / "n.js").write_text(NESTED)


def write_driver(folder: Path, site: bool) -> None:
    entry = REPO / "node_modules" / "puppeteer-core" / "lib" / "esm" / "puppeteer" / "puppeteer-core.js"
    (folder / "driver.mjs").write_text(DRIVER % {"puppeteer": entry.as_uri(), "site": "true" if site else "false"})


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm"}

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")  # every page a first visit
        super().end_headers()

    def log_message(self, *_):
        pass


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--browsers", type=int, default=30)
    parser.add_argument("--pages", type=int, default=10, help="pages per browser, one after another")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--from-page", action="store_true", help="the page starts the second worker")
    how.add_argument("--site", type=Path, metavar="DIR", help="a built site: its page's own start path")
    args = parser.parse_args(argv)
    if args.site and not (args.site / PAGE_OF_SITE / "index.html").is_file():
        sys.exit(f"{args.site / PAGE_OF_SITE / 'index.html'} not found: build the site there first (./dev build --out DIR)")
    if not os.access(FIREFOX, os.X_OK):
        sys.exit(f"{FIREFOX} not found: ./dev install-other-engines (or set SPECDEC_FIREFOX)")
    with tempfile.TemporaryDirectory(prefix="firefox-stall-") as tmp:
        folder = Path(tmp)
        if args.site:
            write_driver(folder, site=True)
        else:
            write_case(folder, args.from_page)
            write_driver(folder, site=False)
        served = str(args.site.resolve()) if args.site else tmp
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=served))
        server.request_queue_size = 128
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/" + (f"{PAGE_OF_SITE}/" if args.site else "index.html")
        version = subprocess.run([FIREFOX, "--version"], capture_output=True, text=True).stdout.strip()
        case = ("the site's start path" if args.site else
                "the page starts the second worker" if args.from_page else "a nested worker")
        print(f"{version}; {case}; "
              f"{args.browsers} browsers x {args.pages} pages (CPUs: {os.cpu_count()}, load average "
              f"{', '.join(f'{x:.1f}' for x in os.getloadavg())})", flush=True)
        node = subprocess.Popen(["node", str(folder / "driver.mjs"), url, str(args.browsers), str(args.pages), FIREFOX],
                                stdout=subprocess.PIPE, text=True)
        pages, stalled = 0, []
        for line in node.stdout:
            got = json.loads(line)
            pages += 1
            if pages == 1:
                print(f"  the first page's marks: {got['marks']}", flush=True)
            if pages % 50 == 0:
                print(f"  {pages} pages, {len(stalled)} stalled (load average {os.getloadavg()[0]:.1f})", flush=True)
            if not got["done"]:
                stalled.append(got)
                print(f"  stalled: browser {got['browser']} page {got['page']}: last marks {got['marks'][-3:]}, "
                      f"heartbeats {got['beats']}", flush=True)
        node.wait()
        server.shutdown()
    print(f"{len(stalled)} of {pages} pages stalled (load average now "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
