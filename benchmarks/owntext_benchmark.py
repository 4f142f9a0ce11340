#!/usr/bin/env python3
"""Counting a reader's own text in the worker (Chromium through Playwright); prints the figures.

Budget: a 30,000-token text is counted in at most 1 s in the worker. Measured as the
round trip of the page's "use_text" command (the debug hooks keep it in window.specdecBenchTimings):
the text posted to the worker, checked, tokenised, counted into the three models, loaded, and
the summary back; an upper bound on the counting itself. Also printed: the whole action as the
reader waits for it (the bench redrawn on the new models, readouts measured), and the same
count in this CPython for comparison.

The texts, from the shared corpus (never copied into the repository): English, the opening of
Alice's Adventures in Wonderland cut at 30,000 tokens; Chinese, the five stories of 呐喊 one
after another, repeated until 30,000 characters (the five hold only ~18,800 tokens).

    .venv/bin/python benchmarks/owntext_benchmark.py              build into a temporary folder and serve it
    .venv/bin/python benchmarks/owntext_benchmark.py --url http://127.0.0.1:8123/ --repeats 7
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from browser_perf import LAUNCH_FLAGS, chromium, describe, fresh_build, serve  # noqa: E402

TOKENS = 30_000
BUDGET_MS = 1000.0


def text_of(lang: str, tokens: int = TOKENS) -> str:
    """A text of exactly `tokens` tokens (the bench's tokeniser) from the language's books."""
    from corpus.sources import corpus_dir
    from sim.text import strip_gutenberg, tokenize
    from sitebuild.counting import read_books

    books = [strip_gutenberg(t) for t in read_books(lang, corpus_dir())]
    text = "\n".join(books)
    while len(tokenize(lang, text)) < tokens:
        text += "\n" + text
    lo, hi = 0, len(text)  # the shortest prefix with `tokens` tokens
    while lo < hi:
        mid = (lo + hi) // 2
        if len(tokenize(lang, text[:mid])) >= tokens:
            hi = mid
        else:
            lo = mid + 1
    return text[:lo]


def measure(page, text: str, repeats: int) -> dict:
    """use_text round trips and whole actions, alternating with use_book so each count is fresh."""
    rounds, actions = [], []
    for _ in range(repeats):
        page.evaluate("() => window.specdecBench.dispatch({type: 'use_book'})")
        page.evaluate("() => { window.specdecBenchTimings.length = 0; }")
        t0 = time.perf_counter()
        page.evaluate("(text) => window.specdecBench.dispatch({type: 'use_text', text})", text)
        actions.append((time.perf_counter() - t0) * 1000)
        timings = page.evaluate("() => window.specdecBenchTimings")
        rounds += [t["ms"] for t in timings if t["command"] == "use_text"]
    source = page.evaluate("() => window.specdecBench.getState().source")
    return {"use_text_ms": rounds, "action_ms": actions, "source": source}


def cpython_ms(lang: str, text: str, repeats: int) -> list[float]:
    from sim.owntext import count_language

    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        count_language(lang, text)
        times.append((time.perf_counter() - t0) * 1000)
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="site root (default: build and serve a fresh copy)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)

    from helpers.benchpage import DEBUG_HOOKS, open_bench
    from playwright.sync_api import sync_playwright

    root = args.url or serve(fresh_build())
    root += "" if root.endswith("/") else "/"
    print(f"counting {TOKENS:,} tokens in the worker  (CPUs: {os.cpu_count()}, load average: {os.getloadavg()[0]:.2f})")
    worst = 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=LAUNCH_FLAGS)
        for lang in ("en", "zh"):
            text = text_of(lang)
            context = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
            context.add_init_script(DEBUG_HOOKS)  # window.specdecBenchTimings (site/static/js/bench/debug.js)
            page = context.new_page()
            open_bench(page, f"{root}{lang}/specdec/")
            got = measure(page, text, args.repeats)
            context.close()
            s = got["source"]
            print(f"{lang}: {len(text):,} characters, {s['tokens']:,} tokens, vocabulary {s['vocab']:,}, "
                  f"{s['bigram_types']:,} pairs, {s['trigram_types']:,} triples")
            over = statistics.median(got["use_text_ms"]) > BUDGET_MS
            worst |= over
            print(f"  use_text round trip in the worker, ms  {describe(got['use_text_ms'], 1)}  "
                  f"budget {BUDGET_MS:g}  {'OVER' if over else 'ok'}")
            print(f"  whole action (redrawn, readouts), ms   {describe(got['action_ms'], 1)}")
            print(f"  the same count in CPython {sys.version.split()[0]}, ms   {describe(cpython_ms(lang, text, args.repeats), 1)}")
        browser.close()
    return int(worst)


if __name__ == "__main__":
    sys.path.insert(0, str(REPO / "tests"))  # tests/helpers
    sys.path.insert(0, str(REPO / "benchmarks"))
    sys.exit(main())
