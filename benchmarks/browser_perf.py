#!/usr/bin/env python3
"""The bench's performance in a real browser (Chromium through Playwright); prints the figures.

Not a timed test: the numbers depend on the machine. Budgets (issue 4):
  text visible (first contentful paint)          < 0.5 s
  bench live, cold (new profile, empty cache)     < 4 s
  one animated gamma = 4 step in the worker       < 20 ms
  one tube round of 50 + 50 draws in the worker   < 100 ms

The step and round times are round trips page -> worker -> sim -> page of the "act" command
(bench.js keeps them in window.specdecBenchTimings), so they include the message passing, JSON
on both sides and the view the sim returns: an upper bound on the sim's own time.

    .venv/bin/python benchmarks/browser_perf.py                 build into a temporary folder and serve it
    .venv/bin/python benchmarks/browser_perf.py --url http://127.0.0.1:8123/   measure a running site
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

BUDGETS = {"text_visible_s": 0.5, "bench_live_s": 4.0, "step_ms": 20.0, "tube_round_ms": 100.0}
LAUNCH_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-sync"]


def serve_fresh_build() -> str:
    from corpus.sources import corpus_dir
    from sitebuild.pipeline import Options, build
    from sitebuild.serve import make_server

    out = Path(tempfile.mkdtemp(prefix="specdec-perf-")) / "_site"
    build(Options(out=out, corpus=corpus_dir(), force=True))
    server = make_server(out, "127.0.0.1", 0, verbose=False)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/"


def chromium() -> str:
    for candidate in (os.environ.get("SPECDEC_CHROMIUM"), "/usr/bin/chromium"):
        if candidate and os.path.exists(candidate):
            return candidate
    sys.exit("Chromium not found (set SPECDEC_CHROMIUM)")


def measure_load(browser, url: str) -> dict:
    """A cold load: a new context has an empty cache."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    page = context.new_page()
    t0 = time.perf_counter()
    page.goto(url)
    page.wait_for_selector("#b[data-mode=live][data-busy=false]", timeout=180_000)
    wall = time.perf_counter() - t0
    nav = page.evaluate(
        """() => {
          const paint = performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint');
          const nav = performance.getEntriesByType('navigation')[0];
          const mark = (name) => { const m = performance.getEntriesByName(name)[0]; return m ? m.startTime : null; };
          return {fcp: paint ? paint.startTime : null, dcl: nav.domContentLoadedEventEnd,
                  live: mark('specdec:bench-live'),
                  runtime: mark('specdec:stage-runtime'),
                  package: mark('specdec:stage-package'), model: mark('specdec:stage-model')};
        }"""
    )
    return {"context": context, "page": page, "wall_live_s": wall,
            "text_visible_s": (nav["fcp"] or nav["dcl"]) / 1000,
            "bench_live_s": (nav["live"] / 1000) if nav["live"] else wall,
            # where the time goes: the worker starts; Pyodide loads (runtime -> package); our part after
            "worker_start_s": (nav["runtime"] or 0) / 1000,
            "pyodide_s": ((nav["package"] or 0) - (nav["runtime"] or 0)) / 1000,
            "after_pyodide_s": ((nav["live"] or 0) - (nav["package"] or 0)) / 1000}


def settle(page):
    page.evaluate("() => window.specdecBench.idle()")


def measure_calls(page, steps: int, rounds: int) -> dict:
    """Round trips of the page's "act" command for One step and Add a round (each an action)."""
    def acts():
        timings = page.evaluate("() => window.specdecBenchTimings")
        page.evaluate("() => { window.specdecBenchTimings.length = 0; }")
        return [t["ms"] for t in timings if t["command"] == "act"]

    acts()
    for _ in range(steps):
        page.locator("#b button.b-step").click()
        settle(page)
    step = acts()
    for _ in range(rounds):
        page.locator("#b button.b-round").click()
        settle(page)
    return {"step_ms": step, "tube_round_ms": acts()}


def describe(values: list[float], digits: int = 1) -> str:
    if not values:
        return "n/a"
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    d = digits
    return f"median {statistics.median(values):.{d}f}, p90 {p90:.{d}f}, max {max(values):.{d}f} (n = {len(values)})"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="site root (default: build and serve a fresh copy)")
    parser.add_argument("--lang", default="en", choices=["en", "zh"])
    parser.add_argument("--loads", type=int, default=3, help="cold loads to time")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    root = args.url or serve_fresh_build()
    if not root.endswith("/"):
        root += "/"
    url = f"{root}{args.lang}/specdec/"
    print(f"measuring {url}  (CPUs: {os.cpu_count()}, load average: {os.getloadavg()[0]:.2f})")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=LAUNCH_FLAGS)
        loads = []
        calls = None
        for i in range(args.loads):
            run = measure_load(browser, url)
            loads.append(run)
            if i == args.loads - 1:
                calls = measure_calls(run["page"], args.steps, args.rounds)
            run["context"].close()
        browser.close()

    text = [r["text_visible_s"] for r in loads]
    live = [r["bench_live_s"] for r in loads]
    rows = [
        ("text visible (FCP), s", text, BUDGETS["text_visible_s"], 3),
        ("bench live, cold, s", live, BUDGETS["bench_live_s"], 2),
        ("step gamma=4 round trip, ms", calls["step_ms"], BUDGETS["step_ms"], 1),
        ("tube round 50+50 round trip, ms", calls["tube_round_ms"], BUDGETS["tube_round_ms"], 1),
    ]
    worst = 0
    for name, values, budget, digits in rows:
        med = statistics.median(values) if values else float("nan")
        ok = med < budget
        worst |= not ok
        print(f"{name:34s} {describe(values, digits):50s} budget {budget:g}  {'ok' if ok else 'OVER'}")
    print("bench live, broken down (s):")
    for key, label in (("worker_start_s", "page parsed, worker started"), ("pyodide_s", "loadPyodide (to the package stage)"),
                       ("after_pyodide_s", "sim package, models, first state")):
        print(f"  {label:34s} {describe([r[key] for r in loads], 2)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
