#!/usr/bin/env python3
"""What a reader waits for the readouts of a setting, in a real browser (Chromium, the snapshot start).

The build measures only the first picture's readouts (the default settings) into the snapshot's
table; every other setting is measured in the worker the first time it is asked for. This times,
per language, the page's `readouts` round trip (page -> worker -> sim -> page):
  table     the default settings (the table's row: no measuring)
  new       settings not asked before (a new draft, gamma, rule or mode: one measurement each,
            two when the draft or mode is new, as alpha needs the gamma-4 run too)
  again     the same settings asked a second time (the session's cache)
and, beside them, the CPU time CPython takes for the same measurements (the ratio is Pyodide's
slowdown on this machine). Not a test: read the medians, and their ratios, on a quiet machine.

    ./dev build && .venv/bin/python benchmarks/readout_latency.py [--out _site]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from helpers.benchpage import DEBUG_HOOKS  # noqa: E402
from sitebuild.serve import make_server  # noqa: E402

LAUNCH_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
LIVE = "#b[data-mode=live][data-busy=false]"
# Settings a reader may move to, none of them the default (bigram, gamma 4, sampling, exact).
NEW = [{"gamma": 2}, {"gamma": 6}, {"gamma": 8}, {"draft": "unigram"}, {"draft": "unigram", "gamma": 7},
       {"draft": "same"}, {"rule": "typical"}, {"rule": "replace_from_p", "gamma": 3}, {"greedy": True},
       {"greedy": True, "gamma": 5}, {"draft": "same", "gamma": 2, "greedy": True}, {"gamma": 1}]

TIME_CALLS = """async (cases) => {
  const api = window.specdecBench;
  await api.idle();
  const base = api.getState().bench.settings;
  const out = {table: [], new: [], again: []};
  const time = async (settings) => {
    const t = performance.now();
    await api.call('readouts', {...base, ...settings});
    return performance.now() - t;
  };
  for (let i = 0; i < 5; i++) out.table.push(await time({}));
  for (const c of cases) out.new.push(await time(c));
  for (const c of cases) out.again.push(await time(c));
  return out;
}"""


def cpython_ms(lang: str, out: Path) -> list[float]:
    """CPU ms CPython takes to measure the same new settings' readouts on the same model."""
    from sim import bench
    from sim.session import open_session

    session = open_session((out / "models" / f"{lang}.json").read_text(encoding="utf-8"))
    times = []
    for case in NEW:
        started = time.process_time()
        session.bench.readouts({**bench.DEFAULTS, **case})
        times.append((time.process_time() - started) * 1e3)
    return times


def median(values: list[float]) -> str:
    return f"{statistics.median(values):7.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "_site", help="a built site (default: _site)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    server = make_server(args.out.resolve(), "127.0.0.1", 0, verbose=False)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=LAUNCH_FLAGS)
        for lang in ("en", "zh"):
            page = browser.new_page()
            page.add_init_script(DEBUG_HOOKS)  # LIVE reads the debug hooks' marks
            page.goto(f"{url}{lang}/specdec/")
            page.wait_for_selector(LIVE, state="attached", timeout=180_000)
            got = page.evaluate(TIME_CALLS, NEW)
            page.close()
            native = cpython_ms(lang, args.out)
            ratio = statistics.median(got["new"]) / statistics.median(native)
            print(f"{lang}: readouts round trip, median: table {median(got['table'])}, "
                  f"new setting {median(got['new'])} (max {max(got['new']):.0f} ms; CPython "
                  f"{median(native)} of CPU, x{ratio:.1f}), asked again {median(got['again'])}")
            print(f"    new, each: {json.dumps([round(t) for t in got['new']])}")
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main()
