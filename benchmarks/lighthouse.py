"""Lighthouse (the version package.json pins) on the built site: mobile and desktop, both languages.

    .venv/bin/python benchmarks/lighthouse.py [--site _site] [--runs 1] [--port N] [--tasks] [--compare-site DIR]

Serves the built site with the production headers and gzip, as a static host answers
(throttled_server, on an unthrottled link: Lighthouse simulates its own), runs Lighthouse's command
line in Debian's Chromium for /en/specdec/ and /zh/specdec/ with its mobile defaults (4x CPU
throttling, simulated slow 4G) and its desktop preset, and prints the four category scores and
the total blocking time and the cumulative layout shift; with --runs N, the median of N runs. With --tasks, under each row,
each run's long tasks (Lighthouse's own list: when each starts and how long it takes on its
simulated 4x-throttled timeline, and the script it names, if any) and its main-thread time by
kind: where a blocking time comes from, and the audits each category below 100 missed.
With --compare-site, another built site is measured in the same runs, the two in turns and in
alternating order (A B, B A, A B, ...): run one after the other, the first of two invocations
read slower whichever site it was (total blocking time 132 against 98 ms with one site first,
164 against 109 ms with the other), an order that a comparison must cancel out.
Targets: mobile performance >= 98 on both languages (desktop 100) and TBT <= 150 ms;
CLS <= 0.02 (going live moves nothing).
The machine is shared: compare figures from one run with each other, not with another day's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "benchmarks"))

from throttled_server import Link, throttled_server  # noqa: E402

CLI = ROOT / "node_modules" / "lighthouse" / "cli" / "index.js"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage"


def lighthouse(url: str, desktop: bool) -> dict:
    """One Lighthouse run: the category scores (0-100) and TBT in ms."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        command = ["node", str(CLI), url, "--output=json", f"--output-path={out}", "--quiet",
                   f"--chrome-flags={CHROME_FLAGS}", "--only-categories=" + ",".join(CATEGORIES)]
        if desktop:
            command.append("--preset=desktop")
        env = {**os.environ, "CHROME_PATH": os.environ.get("SPECDEC_CHROMIUM", "/usr/bin/chromium")}
        subprocess.run(command, check=True, env=env, cwd=ROOT)
        report = json.loads(out.read_text(encoding="utf-8"))
    scores = {c: round(100 * report["categories"][c]["score"]) for c in CATEGORIES}
    audits = report["audits"]
    tasks = [(item["startTime"], item["duration"], item.get("url", "").rsplit("/", 1)[-1].split("?")[0] or "(the page)")
             for item in audits["long-tasks"]["details"]["items"]]
    work = [(item["groupLabel"], item["duration"]) for item in audits["mainthread-work-breakdown"]["details"]["items"]]
    # What each category below 100 lost points on: its audits that did not pass, with what they name.
    missed = {}
    for category in CATEGORIES:
        for ref in report["categories"][category]["auditRefs"]:
            audit = audits[ref["id"]]
            if ref["weight"] and audit["score"] is not None and audit["score"] < 1:
                items = (audit.get("details") or {}).get("items") or []
                named = [str((item.get("node") or {}).get("snippet") or item.get("url") or "")[:100] for item in items[:3]]
                missed.setdefault(category, []).append(f"{ref['id']} ({audit['score']}): {'; '.join(n for n in named if n)}")
    return {**scores, "tbt_ms": audits["total-blocking-time"]["numericValue"],
            "cls": audits["cumulative-layout-shift"]["numericValue"], "tasks": tasks, "work": work,
            "missed": missed, "benchmark_index": report["environment"]["benchmarkIndex"]}


def print_tasks(run: dict) -> None:
    """One run's long tasks, in the order they start, and its main-thread time by kind."""
    # Lighthouse's own measure of the machine's speed in that run (higher is faster): its
    # simulated 4x CPU slows what it observed, so a busy host inflates TBT with it.
    print(f"    run: TBT {run['tbt_ms']:.0f} ms, performance {run['performance']}, machine's benchmark index "
          f"{run['benchmark_index']:.0f}; long tasks (start ms, duration ms, script):")
    for start, duration, script in sorted(run["tasks"]):
        print(f"      {start:8.0f} {duration:6.0f}  {script}")
    print("    main thread: " + ", ".join(f"{label} {ms:.0f} ms" for label, ms in run["work"]))
    for category, missed in run["missed"].items():
        for line in missed:
            print(f"    {category} missed: {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "_site", help="a built site (./dev build)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--port", type=int, default=0, help="the server's port (default: a free one)")
    parser.add_argument("--tasks", action="store_true", help="also print each run's long tasks and main-thread time")
    parser.add_argument("--compare-site", type=Path, help="another built site, measured in turns with --site")
    args = parser.parse_args()
    if not CLI.exists():
        sys.exit(f"{CLI} is missing: run npm ci (package.json pins lighthouse)")
    sites = {"": args.site, **({" (compare)": args.compare_site} if args.compare_site else {})}
    for site in sites.values():
        if not (site / "en" / "specdec" / "index.html").exists():
            sys.exit(f"{site} holds no built site: run ./dev build")
    # Compressed like a host's answers: without it the page's 310 kB of HTML went uncompressed
    # and cost Lighthouse's simulated slow 4G over a second of first paint that no reader pays.
    servers = {label: throttled_server(site, args.port if not label else 0, Link(None, 0.0)) for label, site in sites.items()}
    try:
        print(f"{'page':<26}{'form':<9}" + "".join(f"{c:>16}" for c in CATEGORIES) + f"{'TBT ms':>10}{'CLS':>8}")
        for lang in ("en", "zh"):
            for desktop in (False, True):
                runs = {label: [] for label in servers}
                for turn in range(args.runs):
                    for label in (list(servers) if turn % 2 == 0 else list(reversed(servers))):
                        port = servers[label].server_address[1]
                        runs[label].append(lighthouse(f"http://127.0.0.1:{port}/{lang}/specdec/", desktop))
                for label, done in runs.items():
                    median = {k: statistics.median(r[k] for r in done) for k in (*CATEGORIES, "tbt_ms", "cls")}
                    print(f"{'/' + lang + '/specdec/' + label:<26}{'desktop' if desktop else 'mobile':<9}"
                          + "".join(f"{median[c]:>16.0f}" for c in CATEGORIES) + f"{median['tbt_ms']:>10.0f}{median['cls']:>8.3f}", flush=True)
                    if args.tasks:
                        for run in done:
                            print_tasks(run)
    finally:
        for server in servers.values():
            server.shutdown()


if __name__ == "__main__":
    main()
