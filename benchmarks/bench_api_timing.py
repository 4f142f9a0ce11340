"""How long do the bench's commands take? Times Session.handle as the worker calls it (JSON in, out).

    .venv/bin/python benchmarks/bench_api_timing.py [--models DIR] [--steps N] [--rounds N]

Without --models the models are counted from the shared corpus in memory, as the build does;
with it, DIR/en.json and DIR/zh.json are read (e.g. a built site's models/ folder).

Budget in the worker (Pyodide, maybe 1.5-3x slower than CPython): one animated gamma = 4
step < 20 ms, one tube round of 50 + 50 draws < 100 ms; so here we aim for < 5 ms and
< 30 ms. Steps are timed along a text the bench writes (each step continues the last one,
so most contexts are new to the caches, as on the page). Readouts are reported separately:
they run the chapters' 2,000-token measurement once per new setting, then come from a cache.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sim.session import open_session  # noqa: E402
from model_files import model_json  # noqa: E402

STEP_BUDGET_MS = 5.0
TUBE_BUDGET_MS = 30.0


def timed(session, command: str, args: dict) -> tuple[float, dict]:
    text = json.dumps(args, ensure_ascii=False)
    start = time.perf_counter()
    reply = session.handle(command, text)
    elapsed = (time.perf_counter() - start) * 1e3
    parsed = json.loads(reply)
    if not parsed["ok"]:
        raise SystemExit(f"{command} failed: {parsed['error']}")
    return elapsed, parsed["result"]


def summary(name: str, values: list[float], budget: float | None = None) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
    line = (f"  {name:<34} n={len(values):<4} median {statistics.median(values):7.2f} ms"
            f"  p95 {p95:7.2f} ms  max {values[-1]:7.2f} ms")
    if budget is not None:
        line += f"  (budget {budget:g} ms: {'ok' if p95 < budget else 'OVER'})"
    return line


def run(lang: str, text: str, steps: int, rounds: int) -> None:
    start = time.perf_counter()
    session = open_session(text)
    print(f"{lang}: open_session {(time.perf_counter() - start) * 1e3:.0f} ms")
    settings = {"draft": "bigram", "gamma": 4, "greedy": False, "batch": 1, "seed": 1, "rule": "exact"}

    _, sentence = timed(session, "start", {})
    for label, extra in (("step gamma=4 (exactness 6 rows)", {"exactness_top": 6}),
                         ("step gamma=4 (no exactness)", {"exactness_top": 0}),
                         ("step gamma=8", {"gamma": 8, "exactness_top": 6}),
                         ("step gamma=4 typical", {"rule": "typical", "exactness_top": 6}),
                         ("step gamma=4 greedy", {"greedy": True, "exactness_top": 6})):
        context = [t["id"] for t in sentence["tokens"]]
        times = []
        for i in range(steps):
            args = {**settings, **extra, "seed": 7, "context": context[-2:], "step_index": i}
            ms, result = timed(session, "step", args)
            times.append(ms)
            context += [w["id"] for w in result["written"]]
        print(summary(label, times, STEP_BUDGET_MS))

    for label, extra in (("tube_round exact", {}), ("tube_round typical", {"rule": "typical"}),
                         ("tube_round replace_from_p", {"rule": "replace_from_p"})):
        times = [timed(session, "tube_round", {**settings, **extra, "round": r, "draws": 50, "top": 8})[0]
                 for r in range(rounds)]
        print(summary(label, times, TUBE_BUDGET_MS))

    times = [timed(session, "exactness", {"context": [int(i)], "top": 8})[0] for i in range(60)]
    print(summary("exactness (60 one-token contexts)", times))
    times = [timed(session, "start", {"seed": s})[0] for s in range(60)]
    print(summary("start (random sentence)", times))
    times = [timed(session, "link", {"query": [["gamma", "9"], ["draft", "unigram"]]})[0] for _ in range(60)]
    print(summary("link (parse a query)", times))

    # The page's own calls: a link replayed from scratch, then One step extending the cached run.
    worst = [["steps", "200"], ["rounds", "100"], ["gamma", "8"], ["draft", "unigram"], ["rule", "typical"]]
    replay, reply = timed(session, "act", {"action": {"type": "load", "query": worst}, "measure": False})
    times = []
    state = reply["state"]
    for _ in range(30):
        state = {**state, "steps": 150}
        ms, _ = timed(session, "act", {"state": state, "action": {"type": "step"}, "measure": False})
        times.append(ms)
    print(f"  act load steps=200&rounds=100&gamma=8&draft=unigram&rule=typical: {replay:.0f} ms (readouts apart)")
    print(summary("act step (cached run)", times))

    first, _ = timed(session, "readouts", settings)
    again, _ = timed(session, "readouts", {**settings, "batch": 64})
    other_gamma, _ = timed(session, "readouts", {**settings, "gamma": 6})
    other_draft, _ = timed(session, "readouts", {**settings, "draft": "unigram"})
    print(f"  readouts: first {first:.0f} ms, cached {again:.2f} ms, new gamma {other_gamma:.0f} ms,"
          f" new draft {other_draft:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=None)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=100)
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]} ({sys.platform})")
    for lang in ("en", "zh"):
        run(lang, model_json(lang, args.models), args.steps, args.rounds)


if __name__ == "__main__":
    main()
