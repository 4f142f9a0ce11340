#!/usr/bin/env python3
"""The bench's start-up and speed in a real browser (Chromium through Playwright); prints figures.

Not a timed test: the numbers depend on the machine and its load, so each kind of visit is
compared with a bare `loadPyodide()` page served from the same build, in interleaved rounds
(bare, snapshot, fallback[, today], then again), and the script prints medians and ratios.

  bare      a page whose module worker only runs loadPyodide() (Pyodide's own stdlib and lock)
  snapshot  /<lang>/specdec/ until the bench is live: the worker restores the memory snapshot
  fallback  the same page with the snapshot blocked: trimmed stdlib + the sim wheel
  today     --compare-url: another build of the site (say, main's), same page

Each kind of visit gets a new browser profile on disk: a cold visit, once the new browser is idle
(wait_until_idle: a reader's browser has long finished starting), then a warm repeat visit in
the same profile. Not Playwright's usual new_context(): that is an incognito-like profile whose
cache lives in memory; measured here, it kept the 5.4 MB snapshot but not the 9.6 MB
pyodide.asm.wasm, which every "warm" visit downloaded again in full, as a reader's browser does not.

Also: the time to text (first contentful paint), the bytes a cold visit transfers per file as a
host would send them (gzip -6 for text and wasm; .zip, .xz and .whl as they are), the step and
tube-round round trips, and with --build-times the build's time with an empty cache of start files
(cold) and again with it filled (what a chapter or template edit costs).

The step and round times are round trips page -> worker -> sim -> page of the "act" command (the
debug hooks keep them in window.specdecBenchTimings: site/static/js/bench/debug.js, which the
round trips' context loads and the start-up visits' do not, as readers' pages do not), so they
include the message passing, JSON on both sides and the view the sim returns: an upper bound on
the sim's own time. Budgets: text visible < 0.5 s; one
gamma = 4 step < 20 ms; one tube round of 50 + 50 draws < 100 ms.

    .venv/bin/python benchmarks/browser_perf.py                 build into a temporary folder, serve it
    .venv/bin/python benchmarks/browser_perf.py --url http://127.0.0.1:8123/   measure a running site
    .venv/bin/python benchmarks/browser_perf.py --compare-url http://127.0.0.1:8124/ --visits 7

Network mode (benchmarks/network_perf.py): the bare page and the full page served as a host serves
them, by nginx over TLS on loopback (benchmarks/host_server.py), HTTP/1.1 + gzip and HTTP/2 + brotli
side by side, behind simulated links (localhost, 20 Mbit/s + 40 ms, 5 Mbit/s + 80 ms); cold and warm
visits, requests and bytes on the wire until live, and the bytes of each file:

    .venv/bin/python benchmarks/browser_perf.py --network --site _site --visits 3 \
        [--compare-site OTHER/_site]     (another build in the same rounds: before and after a change)
        [--protocols h2]                 (one protocol only)

It needs Debian's nginx with its brotli modules (apt-get install nginx-light
libnginx-mod-http-brotli-filter libnginx-mod-http-brotli-static) and PyPI's brotli (in the venv).
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

LAUNCH_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-sync"]
LIVE = "#b[data-mode=live][data-busy=false]"
# Live as a reader's page shows it (live.js sets data-mode), for the start-up visits, which load no
# debug hooks: readers' pages never do, and the hooks import the bench's modules (sim-start.js
# among them) as soon as the parser adds the page's first script, which moved the worker's start
# of a build that started it from a module script.
LIVE_MODE = "#b[data-mode=live]"
TARGETS = {"snapshot": 0.6, "fallback": 0.85}  # live / bare
WARM_TARGET_S = 1.2
BYTES_TARGET = 12e6
BUDGETS = {"text_visible_s": 0.5, "step_ms": 20.0, "tube_round_ms": 100.0,
           "tree_step_ms": 15.0}  # a step with k = 3 candidates and a depth-4 tree
# Trees, as links set them (the bench's tree: k candidates for the first guess, then a line).
TREE_QUERIES = {"k=3 gamma=4": "candidates=3&gamma=4", "k=3 gamma=4 T=0.7": "candidates=3&gamma=4&temperature=0.7",
                "k=3 gamma=4 recursive": "candidates=3&gamma=4&rule=recursive"}
COMPRESSED_AS_IS = (".zip", ".xz", ".whl", ".png", ".woff2")

BARE_HTML = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bare loadPyodide()</title>
<script type="module" src="bare.js"></script></head><body><p>bare loadPyodide() in a module worker</p></body></html>
"""
BARE_JS = """const worker = new Worker(new URL("bare-worker.js", import.meta.url), { type: "module" });
worker.onmessage = (event) => { performance.mark("bare:ready"); document.body.dataset.python = event.data; };
const here = (name) => new URL(name, location.href).href;
worker.postMessage({ indexURL: here("%(pyodide)s"), stdLibURL: here("python_stdlib.zip"), lockFileURL: here("pyodide-lock.json") });
"""
BARE_WORKER_JS = """self.onmessage = async (event) => {
  const { loadPyodide } = await import(event.data.indexURL + "pyodide.mjs");
  const pyodide = await loadPyodide(event.data);
  self.postMessage(pyodide.runPython("import sys; sys.version.split()[0]"));
};
"""


# --- serving -----------------------------------------------------------------------------------

def serve(folder: Path) -> str:
    from sitebuild.serve import make_server

    server = make_server(folder, "127.0.0.1", 0, verbose=False)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/"


def fresh_build() -> Path:
    from corpus.sources import corpus_dir
    from sitebuild.pipeline import Options, build

    out = Path(tempfile.mkdtemp(prefix="specdec-perf-")) / "_site"
    build(Options(out=out, corpus=corpus_dir(), force=True))
    return out


def add_bare_page(site: Path) -> None:
    """Write the bare page into site/_perf/bare/, using the site's copy of Pyodide's files (its
    .wasm itself as well as the .xz stream of it, which loadPyodide cannot read)."""
    from sitebuild.assets import PYODIDE_PACKAGE, copy_pyodide

    copy_pyodide(site)
    (pyodide_dir,) = (site / "pyodide").glob("v*")
    bare = site / "_perf" / "bare"
    bare.mkdir(parents=True, exist_ok=True)
    for name in ("python_stdlib.zip", "pyodide-lock.json"):  # Pyodide's own, as loadPyodide() loads them
        shutil.copyfile(PYODIDE_PACKAGE / name, bare / name)
    (bare / "index.html").write_text(BARE_HTML)
    (bare / "bare.js").write_text(BARE_JS % {"pyodide": f"../../pyodide/{pyodide_dir.name}/"})
    (bare / "bare-worker.js").write_text(BARE_WORKER_JS)


def bare_page(site: Path | None, root: str) -> str:
    """The bare page's URL: beside the fresh build, or (measuring a site elsewhere) on a server of
    its own holding the same Pyodide files."""
    if site is None:
        site = Path(tempfile.mkdtemp(prefix="specdec-bare-"))
        root = serve(site)
    add_bare_page(site)
    return root + "_perf/bare/"


# --- one visit ---------------------------------------------------------------------------------

MARKS = """() => {
  const mark = (name) => { const m = performance.getEntriesByName(name)[0]; return m ? m.startTime / 1000 : null; };
  const paint = performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint');
  return {ready: mark('bare:ready') ?? mark('specdec:bench-live'), fcp: paint ? paint.startTime / 1000 : null,
          download: mark('specdec:stage-download'), start: mark('specdec:stage-start'),
          fallback: mark('specdec:stage-fallback')};
}"""


def visit(context, url: str, bare: bool) -> dict:
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("body[data-python]" if bare else LIVE_MODE, timeout=180_000)
    marks = page.evaluate(MARKS)
    page.close()
    return marks


def _processes() -> dict[int, tuple[int, int]]:
    """Every process's (parent's pid, CPU ticks used so far) from /proc."""
    found = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue  # ended meanwhile
            found[int(entry.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]))  # ppid, utime + stime
    return found


def _browser_pid(profile: str) -> int | None:
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/cmdline", "rb") as cmdline:
                    args = cmdline.read().split(b"\0")
            except OSError:
                continue
            if f"--user-data-dir={profile}".encode() in args and not any(a.startswith(b"--type=") for a in args):
                return int(entry.name)
    return None


def _tree_ticks(root: int) -> int:
    processes = _processes()
    tree, grown = {root}, True
    while grown:
        below = {pid for pid, (parent, _) in processes.items() if parent in tree} - tree
        grown = bool(below)
        tree |= below
    return sum(processes[pid][1] for pid in tree if pid in processes)


def wait_until_idle(profile: str, window_s: float = 0.5, busy_share: float = 0.05, limit_s: float = 20.0) -> None:
    """Wait until the browser started on `profile` (every process of it) has used under `busy_share`
    of a core over the last `window_s`. A browser just started builds its own interface for a
    second or so (Chromium 156: the omnibox's WebUI popup and the browser's own start, about 0.6 s
    of CPU in all), which a reader's browser did long before they opened the page: a visit made at
    once would share two cores with it (measured: the page live in 0.95-1.02 s at once against
    0.79-0.85 s with the browser idle, the bare page about 2.0 s either way)."""
    root = _browser_pid(profile)
    if root is None:
        return  # not on Linux's /proc: visit at once
    ticks_per_s = os.sysconf("SC_CLK_TCK")
    began = time.monotonic()
    samples = [(began, _tree_ticks(root))]
    while time.monotonic() - began < limit_s:
        time.sleep(0.05)
        now = time.monotonic()
        samples.append((now, _tree_ticks(root)))
        old = [s for s in samples if now - s[0] >= window_s]
        if old:
            then, ticks = old[-1]
            if (samples[-1][1] - ticks) / ticks_per_s < busy_share * (now - then):
                return
    print(f"  (the new browser was still busy after {limit_s:.0f} s: visiting anyway)", flush=True)


def new_context(playwright, kind: str, hooks: bool = True, flags: list[str] | None = None):
    """A browser with a new profile on disk (see the module docstring); closing it removes it.
    hooks: its pages load the debug hooks (the round trips need them; start-up visits do not).
    flags: Chromium's, besides LAUNCH_FLAGS (the network mode's trust in its certificate)."""
    profile = tempfile.mkdtemp(prefix="specdec-perf-profile-")
    context = playwright.chromium.launch_persistent_context(
        profile, executable_path=chromium(), args=LAUNCH_FLAGS + (flags or []),
        viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    context.on("close", lambda _: shutil.rmtree(profile, ignore_errors=True))
    wait_until_idle(profile)
    sys.path.insert(0, str(REPO / "tests"))
    from helpers.benchpage import DEBUG_HOOKS

    if hooks:
        context.add_init_script(DEBUG_HOOKS)  # window.specdecBenchTimings (bench/debug.js)
    if kind == "fallback":
        context.route("**/*.snapshot.xz", lambda route: route.abort())
    return context


def cold_and_warm(playwright, kind: str, url: str) -> tuple[dict, dict, list[str]]:
    """A cold visit (new profile) and a warm repeat visit in the same profile; the URLs fetched."""
    context = new_context(playwright, kind, hooks=False)
    urls: list[str] = []
    context.on("requestfinished", lambda request: urls.append(request.url))
    cold = visit(context, url, kind == "bare")
    seen = list(urls)
    warm = visit(context, url, kind == "bare")
    context.close()
    return cold, warm, seen


# --- bytes -------------------------------------------------------------------------------------

def sent_bytes(url: str) -> tuple[int, int]:
    """(bytes of the file, bytes a host sends: gzip -6 unless the file is compressed already)."""
    with urllib.request.urlopen(url.split("#")[0]) as response:
        data = response.read()
    path = url.split("?")[0]
    if path.endswith(COMPRESSED_AS_IS):
        return len(data), len(data)
    return len(data), len(gzip.compress(data, compresslevel=6, mtime=0))


def bytes_table(urls: list[str]) -> list[tuple[str, int, int]]:
    rows = {}
    for url in urls:
        if url.startswith("http") and url not in rows:
            rows[url] = sent_bytes(url)
    return [(url, raw, sent) for url, (raw, sent) in rows.items()]


# --- step and tube round trips -------------------------------------------------------------------

def settle(page):
    page.evaluate("() => window.specdecBench.idle()")


def round_trips(playwright, url: str, steps: int, rounds: int, query: str = "") -> dict:
    """Round trips of the page's "act" command for One step and Add a round (each an action), at
    the settings of a link's query (the defaults when empty)."""
    context = new_context(playwright, "snapshot")
    page = context.new_page()
    page.goto(url + (f"?{query}" if query else ""))
    page.wait_for_selector(LIVE, timeout=180_000)
    settle(page)

    def acts():
        timings = page.evaluate("() => window.specdecBenchTimings")
        page.evaluate("() => { window.specdecBenchTimings.length = 0; }")
        return [t["ms"] for t in timings if t["command"] == "act"]

    acts()
    for _ in range(steps):
        page.locator("#b button.b-step").click()
        settle(page)
    step = acts()
    # The round button is on the tubes' tab, which a reader opens first.
    page.evaluate("() => window.specdecBench.run([{ type: 'open_panel', panel: 'tubes' }])")
    for _ in range(rounds):
        page.locator("#b button.b-round").click()
        settle(page)
    tube_round = acts()
    context.close()
    return {"step": step, "tube_round": tube_round}


# --- build times -------------------------------------------------------------------------------

def build_times() -> dict:
    """Cold: an empty cache of start files (snapshots and stdlib made). Warm: the same build again with
    the cache filled, as after a chapter or template edit (every other step runs again)."""
    times = {}
    with tempfile.TemporaryDirectory(prefix="specdec-buildtime-") as tmp:
        env = {**os.environ, "SPECDEC_START_FILES_CACHE": str(Path(tmp) / "cache")}
        for label in ("cold (empty cache of start files)", "after an edit (cache of start files filled)"):
            started = time.perf_counter()
            subprocess.run([sys.executable, str(REPO / "build.py"), "--force", "--out", str(Path(tmp) / "_site")],
                           env=env, check=True, capture_output=True)
            times[label] = time.perf_counter() - started
    return times


# --- report ------------------------------------------------------------------------------------

def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


def describe(values, digits=2) -> str:
    values = [v for v in values if v is not None]
    if not values:
        return "n/a"
    return (f"median {statistics.median(values):.{digits}f}  min {min(values):.{digits}f}  "
            f"max {max(values):.{digits}f}  (n = {len(values)})")


def chromium() -> str:
    for candidate in (os.environ.get("SPECDEC_CHROMIUM"), "/usr/bin/chromium"):
        if candidate and os.path.exists(candidate):
            return candidate
    sys.exit("Chromium not found (set SPECDEC_CHROMIUM)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="site root to measure (default: build and serve a fresh copy)")
    parser.add_argument("--compare-url", help="root of another build to measure in the same rounds ('today')")
    parser.add_argument("--lang", default="en", choices=["en", "zh"])
    parser.add_argument("--visits", type=int, default=5, help="cold (and warm) visits of each kind")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--build-times", action="store_true", help="also time a cold and a warm-cache build")
    parser.add_argument("--network", action="store_true", help="the network mode (see above)")
    parser.add_argument("--site", type=Path, help="network mode: a built site folder (default: build one)")
    parser.add_argument("--compare-site", type=Path, help="network mode: another build's folder, same rounds")
    parser.add_argument("--protocols", nargs="+", choices=["h1", "h2"], default=["h1", "h2"],
                        help="network mode: h1 (HTTP/1.1 + gzip), h2 (HTTP/2 + brotli), or both (default)")
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    if args.network:
        import network_perf

        site = args.site or fresh_build()
        print(f"network mode on {site}  (CPUs: {os.cpu_count()}, load average {os.getloadavg()[0]:.2f})")
        with sync_playwright() as p:
            network_perf.run(p, site, args.lang, args.visits,
                             lambda playwright, kind, flags: new_context(playwright, kind, hooks=False, flags=flags),
                             "body[data-python]", LIVE_MODE, args.compare_site, tuple(args.protocols))
        return 0

    site = None if args.url else fresh_build()
    root = args.url or serve(site)
    root = root if root.endswith("/") else root + "/"
    kinds = {"bare": bare_page(site, root),
             "snapshot": f"{root}{args.lang}/specdec/", "fallback": f"{root}{args.lang}/specdec/"}
    if args.compare_url:
        kinds["today"] = f"{args.compare_url.rstrip('/')}/{args.lang}/specdec/"
    load_before = os.getloadavg()
    print(f"measuring {kinds['snapshot']}  (CPUs: {os.cpu_count()}, load average {load_before[0]:.2f})")

    cold = {kind: [] for kind in kinds}
    warm = {kind: [] for kind in kinds}
    fetched = {}
    with sync_playwright() as p:
        for _ in range(args.visits):
            for kind, url in kinds.items():
                first, second, urls = cold_and_warm(p, kind, url)
                if kind == "fallback" and first["fallback"] is None:
                    sys.exit("the fallback visit did not fall back: the snapshot block did not apply")
                cold[kind].append(first)
                warm[kind].append(second)
                fetched.setdefault(kind, urls)
        calls = round_trips(p, kinds["snapshot"], args.steps, args.rounds)
        trees = {label: round_trips(p, kinds["snapshot"], args.steps, 0, query)["step"]
                 for label, query in TREE_QUERIES.items()}
    load_after = os.getloadavg()

    bare_median = median([v["ready"] for v in cold["bare"]])
    print(f"\nbench live (bare: worker's loadPyodide() done), seconds from navigation; load average "
          f"{load_before[0]:.1f} -> {load_after[0]:.1f}")
    for kind in kinds:
        live = [v["ready"] for v in cold[kind]]
        ratio = median(live) / bare_median
        target = f"  target <= {TARGETS[kind]}" if kind in TARGETS else ""
        print(f"  {kind:9s} cold {describe(live)}   / bare = {ratio:.2f}{target}")
        print(f"  {'':9s} warm {describe([v['ready'] for v in warm[kind]])}"
              + (f"   target <= {WARM_TARGET_S}" if kind == "snapshot" else ""))
    for kind in ("snapshot", "fallback"):
        rows = cold[kind]
        print(f"  {kind}: worker's first progress {describe([r['download'] for r in rows])}; "
              f"Python starting {describe([r['start'] for r in rows])}")
    print(f"  text visible (FCP), snapshot page: {describe([v['fcp'] for v in cold['snapshot']], 3)}"
          f"   budget {BUDGETS['text_visible_s']}")

    for kind, urls in fetched.items():
        rows = bytes_table(urls)
        print(f"\nbytes of a cold visit, {kind} (file / as a host sends it):")
        for url, raw, sent in sorted(rows, key=lambda r: -r[2]):
            if sent >= 10_000:
                print(f"  {urllib.parse.urlsplit(url).path:58s} {raw / 1e6:7.2f} MB {sent / 1e6:7.2f} MB")
        small = [r for r in rows if r[2] < 10_000]
        total = sum(r[2] for r in rows)
        print(f"  {len(small)} files under 10 kB: {sum(r[2] for r in small) / 1e3:.0f} kB sent")
        print(f"  in all: {sum(r[1] for r in rows) / 1e6:.2f} MB of files, {total / 1e6:.2f} MB sent"
              + (f"   target <= {BYTES_TARGET / 1e6:g} MB" if kind == "snapshot" else ""))

    print("\nround trips page -> worker -> sim -> page, ms:")
    print(f"  step gamma=4      {describe(calls['step'], 1)}   budget {BUDGETS['step_ms']:g}")
    print(f"  tube round 50+50  {describe(calls['tube_round'], 1)}   budget {BUDGETS['tube_round_ms']:g}")
    for label, times in trees.items():
        print(f"  step {label:22s} {describe(times, 1)}   budget {BUDGETS['tree_step_ms']:g}")
    if args.build_times:
        print("\nbuild time, s:")
        for label, seconds in build_times().items():
            print(f"  {label:40s} {seconds:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
