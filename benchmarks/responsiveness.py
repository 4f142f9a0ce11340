#!/usr/bin/env python3
"""How soon the page answers a reader, in Chromium through Playwright; prints the figures.

The tests check these behaviours by the order of events (tests/browser: test_bench_state.py,
test_bench.py, test_owntext_page.py, test_offline.py, test_start_paths.py); how long each takes
depends on the machine and its load, so it is measured here, printed with the load average, and
read against the targets below or as ratios within one run:

  clicks     50 clicks on One step 36 ms apart, then gamma moved as the last lands (normal
             motion): from the last click to gamma drawn (target 0.5 s) and to the queue idle
             (2 s); ten clicks then Pause, until idle; a speed chosen while a pass animates,
             until applied (0.1 s); Try-it 04 from the press to its answer (3 s)
  replay     a link of 200 steps and 100 rounds opened cold: the worker's one act (2 s; it was
             20.9 s before the replay became one act)
  count      a reader's text of 200,000 Chinese characters counted in the worker: the count's
             time, and the longest the page's thread went without running a 20 ms timer meanwhile
             (target: under half the count and under 0.5 s)
  offline    a reload after one visit on a connection that takes requests and answers none: when
             the page was served (the service worker's NETWORK_WAIT_MS, then its copy; the target is
             that wait plus little)
  timers     a start gone quiet, with a client waiting 1.5 s of quiet: when it was started again;
             the snapshot's decoding with a silent decoding worker (after GRACE_MS) and with one
             that failed to load (at once)

    ./dev build && .venv/bin/python benchmarks/responsiveness.py [--site _site] [--rounds 3]
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "benchmarks")]

from browser_perf import LAUNCH_FLAGS, chromium, describe  # noqa: E402
from helpers.benchpage import DEBUG_MODULE  # noqa: E402

LIVE = "#b[data-mode=live][data-busy=false]"
TIMEOUT_MS = 120_000

# The rapid-clicks script of test_bench_state.py as it was before that test held the animations:
# each figure in ms from the moment named.
CLICKS = """async () => {
    const api = window.specdecBench;
    const b = document.getElementById("b");
    const step = b.querySelector("button.b-step");
    await Promise.all(Array.from({ length: 50 }, (_, i) => new Promise((resolve) => setTimeout(() => { step.click(); resolve(); }, i * 36))));
    const last = performance.now();
    const gamma = b.querySelector("input[name=gamma]");
    gamma.value = "5";
    gamma.dispatchEvent(new Event("input", { bubbles: true }));
    let shown = null;
    while (shown === null && performance.now() - last < 60000) {
        await new Promise((resolve) => requestAnimationFrame(resolve));
        const s = api.getState();
        const ro = s.view.readouts;
        if (s.bench.settings.gamma === 5 && ro && ro.settings.gamma === 5 && b.querySelector(".b-measuring").hidden
            && b.dataset.steps === "1" && b.querySelector(".b-tape-count").textContent.endsWith(": 1")) shown = performance.now() - last;
    }
    await api.idle();
    const idle = performance.now() - last;
    for (let i = 0; i < 10; i++) step.click();
    const p0 = performance.now();
    await api.dispatch({ type: "pause" });
    await api.idle();
    const pause = performance.now() - p0;
    step.click();
    while (b.dataset.animating !== "true") await new Promise((resolve) => setTimeout(resolve, 5));
    const s0 = performance.now();
    await api.dispatch({ type: "speed", value: 3 });
    const speed = performance.now() - s0;
    await api.dispatch({ type: "speed", value: 1 });
    await api.dispatch({ type: "pause" });
    await api.idle();
    const box = document.querySelector("#verify .try");
    const t0 = performance.now();
    box.querySelector(".try__button").click();
    await new Promise((done) => box.addEventListener("specdec:tryit", done, { once: true }));
    const tryit = performance.now() - t0;
    await api.dispatch({ type: "pause" });
    await api.idle();
    return { shown, idle, pause, speed, tryit };
}"""
CLICK_TARGETS = {"shown": 500, "idle": 2000, "pause": None, "speed": 100, "tryit": 3000}
CLICK_WORDS = {"shown": "last click to gamma drawn", "idle": "last click to the queue idle",
               "pause": "ten clicks, Pause, to idle", "speed": "speed chosen during a pass, applied",
               "tryit": "Try-it 04, press to answer"}

COLD_LINK = "zh/specdec/?steps=200&rounds=100&gamma=8&rule=typical&draft=unigram"

# Ticks every 20 ms on the page's thread while the worker counts: the longest gap between two, and
# the count's time from the click to the bench drawn on the new models.
COUNT = """async (text) => {
    const box = document.getElementById('b-own-text');
    window.specdecBench.dispatch({ type: 'open_panel', panel: 'own' });
    box.value = text;
    box.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste' }));
    box.scrollHeight;
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    const message = document.querySelector('.b-own__message');
    message.hidden = true;
    let last = performance.now(), longest = 0;
    const timer = setInterval(() => { const now = performance.now(); longest = Math.max(longest, now - last); last = now; }, 20);
    const t0 = performance.now();
    document.querySelector('.b-own__count').click();
    while (message.hidden) await new Promise((done) => setTimeout(done, 20));
    await window.specdecBench.idle();
    const count = performance.now() - t0;
    clearInterval(timer);
    await window.specdecBench.dispatch({ type: 'use_book' });
    return { count, longest };
}"""

QUIET = """async ([snapshot]) => {
  const { startSim } = await import(DEBUG_MODULE);
  let last = performance.now(), restartedAfter = null;
  const client = startSim(self.specdecSimBoot.settings, { snapshot, restartAfterMs: 1500,
    onProgress: (stage) => { if (stage === 'restarted') restartedAfter = performance.now() - last; last = performance.now(); },
    onTimings: () => { last = performance.now(); } });
  await client.ready;
  client.stop();
  return restartedAfter;
}""".replace("DEBUG_MODULE", DEBUG_MODULE)

GRACE = """async () => {
  const { inflateElsewhere, GRACE_MS } = await import(new URL('/static/js/startup/snapshot-inflate.js', location.href).href);
  const bytes = new Uint8Array(1 << 20).map((_, i) => (i * 7919) % 251);
  const silent = class { postMessage() {} terminate() {} };
  const failing = class extends silent { postMessage() { setTimeout(() => this.onerror({ preventDefault() {} }), 0); } };
  const RealWorker = window.Worker, out = { grace: GRACE_MS };
  for (const [name, Stub] of Object.entries({ silent, failing })) {
    window.Worker = Stub;
    const t0 = performance.now();
    try { await inflateElsewhere(new Blob([bytes]).stream()); } finally { window.Worker = RealWorker; }
    out[name] = performance.now() - t0;
  }
  return out;
}"""


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def verdict(value, target) -> str:
    return "" if target is None else f"  target {target:g}  {'ok' if value <= target else 'OVER'}"


def clicks(shared, root: str, rounds: int) -> None:
    from helpers.benchpage import open_bench, reset

    page = shared.new_page()
    open_bench(page, f"{root}en/specdec/")
    reset(page, "?gamma=5")  # gamma 5's readouts measured once (the session caches them), as the test does
    page.emulate_media(reduced_motion="no-preference")
    got = {name: [] for name in CLICK_WORDS}
    for _ in range(rounds):
        reset(page)
        for name, ms in page.evaluate(CLICKS).items():
            got[name].append(ms)
    page.close()
    print(f"clicks (en, normal motion; load {load()}), ms:")
    for name, words in CLICK_WORDS.items():
        print(f"  {words:<38} {describe(got[name], 0)}{verdict(statistics.median(got[name]), CLICK_TARGETS[name])}")


def replay(browser, root: str, rounds: int) -> None:
    from helpers.benchpage import DEBUG_HOOKS, open_bench

    acts = []
    for _ in range(rounds):
        context = browser.new_context(reduced_motion="reduce", service_workers="block")
        context.add_init_script(DEBUG_HOOKS)
        page = context.new_page()
        open_bench(page, root + COLD_LINK)
        acts += [t["ms"] for t in page.evaluate("() => window.specdecBenchTimings") if t["command"] == "act"]
        context.close()
    print(f"replay of a cold link (200 steps, 100 rounds; load {load()}), the worker's act, ms: "
          f"{describe(acts, 0)}{verdict(statistics.median(acts), 2000)}")


def count(shared, root: str, rounds: int) -> None:
    from helpers.benchpage import open_bench
    from helpers.owntext_fixtures import own_text

    text = (own_text("prose.zh") * 700)[:200_000]
    page = shared.new_page()
    open_bench(page, f"{root}zh/specdec/")
    got = [page.evaluate(COUNT, text) for _ in range(rounds)]
    page.close()
    ratios = [g["longest"] / g["count"] for g in got]
    worst = max(g["longest"] for g in got)
    print(f"count of 200,000 characters (zh; load {load()}): count ms {describe([g['count'] for g in got], 0)}")
    print(f"  longest gap of the page's thread, ms {describe([g['longest'] for g in got], 0)}; "
          f"gap / count {describe(ratios, 3)}  target under 0.5 and 500 ms  "
          f"{'ok' if max(ratios) < 0.5 and worst < 500 else 'OVER'}")


def offline(browser, site: Path, rounds: int) -> None:
    from helpers.benchpage import DEBUG_HOOKS
    from helpers.loopback import LoopbackSite
    from helpers.service_worker import KEPT
    from sitebuild.startup import offline as sw
    from sitebuild.serve import SiteHandler

    wait_s = int(next(line for line in sw.SOURCE.read_text().splitlines()
                      if line.startswith("const NETWORK_WAIT_MS")).split("=")[1].strip(" ;")) / 1000
    silent = threading.Event()

    class Handler(SiteHandler):
        def do_GET(self):
            while silent.is_set():
                time.sleep(0.05)
            super().do_GET()

    served = []
    for _ in range(rounds):
        server = LoopbackSite(site, handler=functools.partial(Handler, directory=str(site)))
        server.server.handle_error = lambda *_: None  # held answers to pages gone: not news here
        context = browser.new_context()
        context.add_init_script(DEBUG_HOOKS)
        page = context.new_page()
        page.goto(f"{server.url}en/specdec/")
        page.wait_for_selector(LIVE, timeout=TIMEOUT_MS, state="attached")
        page.evaluate(KEPT, None)
        silent.set()
        page.reload(timeout=TIMEOUT_MS)
        served.append(page.evaluate("performance.getEntriesByType('navigation')[0].responseEnd") / 1000)
        silent.clear()
        context.close()
        server.close()
    print(f"offline: a reload with the network silent, page served after, s: {describe(served, 2)}  "
          f"(the service worker waits {wait_s:g} s; load {load()})")


def timers(shared, site: Path, root: str, rounds: int) -> None:
    (own,) = site.glob("py/en.*.snapshot.xz")
    quiet, grace = [], []
    for _ in range(rounds):
        page = shared.new_page()
        asked = []

        def answer_the_second(route):
            asked.append(route)
            if len(asked) > 1:
                route.continue_(url=root + own.relative_to(site).as_posix())

        page.route("**/py/test-quiet.snapshot.xz", answer_the_second)
        page.goto(f"{root}en/specdec/")
        quiet.append(page.evaluate(QUIET, [f"{root}py/test-quiet.snapshot.xz"]))
        asked[0].abort()  # the request left unanswered, for its worker long gone
        grace.append(page.evaluate(GRACE))
        page.close()
    print(f"timers (load {load()}), ms: a start quiet for 1,500 ms restarted after {describe(quiet, 0)}")
    print(f"  decoding, silent decoding worker {describe([g['silent'] for g in grace], 0)}; failing one "
          f"{describe([g['failing'] for g in grace], 0)}  (GRACE_MS {grace[0]['grace']})")


class Shared:
    """One persistent profile (as the tests' shared contexts), reduced motion, no service worker."""

    def __init__(self, playwright, folder: Path):
        from helpers.benchpage import DEBUG_HOOKS

        self.context = playwright.chromium.launch_persistent_context(
            folder, executable_path=chromium(), args=LAUNCH_FLAGS, viewport={"width": 1280, "height": 900},
            reduced_motion="reduce", service_workers="block")
        self.context.add_init_script(DEBUG_HOOKS)

    def new_page(self):
        return self.context.new_page()


def main(argv=None) -> int:
    import tempfile

    from playwright.sync_api import sync_playwright

    from helpers.loopback import LoopbackSite

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, default=REPO / "_site", help="a built site (./dev build)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", nargs="*", choices=["clicks", "replay", "count", "offline", "timers"])
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        sys.exit(f"no built site at {args.site}: run ./dev build")
    wanted = set(args.only or ["clicks", "replay", "count", "offline", "timers"])
    print(f"responsiveness of {args.site} (CPUs: {os.cpu_count()}, load average {load()})")
    with LoopbackSite(args.site) as served, sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        browser = p.chromium.launch(executable_path=chromium(), args=LAUNCH_FLAGS)
        shared = Shared(p, Path(profile))
        print(f"Chromium {browser.version}")
        if "clicks" in wanted:
            clicks(shared, served.url, args.rounds)
        if "replay" in wanted:
            replay(browser, served.url, args.rounds)
        if "count" in wanted:
            count(shared, served.url, args.rounds)
        if "offline" in wanted:
            offline(browser, args.site, args.rounds)
        if "timers" in wanted:
            timers(shared, args.site, served.url, args.rounds)
        shared.context.close()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
