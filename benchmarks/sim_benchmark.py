"""How fast is the sim in CPython? Steps per second, distribution costs, load time, memory.

    .venv/bin/python benchmarks/sim_benchmark.py [--models DIR] [--steps N] [--pyodide]

Without --models the models are counted from the shared corpus in memory, as the build does;
with it, DIR/en.json and DIR/zh.json are read (e.g. a built site's models/ folder).
--pyodide also times the same steps in Pyodide under Node (node_modules/pyodide) and checks
that its traces equal CPython's.
The budget: one gamma = 4 step under 2 ms; the stretch goal is 0.2 ms. A tree's: a
tree step with k = 3 candidates and depth 4 within 1 ms; alpha against T and k is tabled too.
Also timed: the chapters' measurement (stats.measure, 2,000 tokens), which the build and the
page's readouts run once per setting they measure (about 0.2-0.4 s on the 2-core dev machine).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sim import stats  # noqa: E402
from model_files import model_json  # noqa: E402
from sim.models import load_language  # noqa: E402
from sim.alpha import alpha_by_temperature  # noqa: E402
from sim.speculative import first_tokens, residual_of, speculative_step  # noqa: E402
from sim.tree import tree_size, tree_step  # noqa: E402

GAMMA = 4
DRAFT_COST = 0.1
# A tree's budget: a step with k = 3 candidates and a depth-4 tree within 1 ms. Timed on the
# full 3-3-3-3 tree (120 nodes, the worst such tree) and on the smaller shapes a bench may offer.
TREE_SHAPES = ((3, 3, 3, 3), (3, 2, 1, 1), (3, 1, 1, 1), (1, 1, 1, 1))
# The bench's own trees (sim.bench.settings.Settings.widths: k candidates, then a line): k = 3 at the
# default gamma, and the largest, k = 4 at gamma 8 (33 lanes), timed in Pyodide at T = 0.7, top-p 0.9.
BENCH_SHAPES = ((3, 1, 1, 1), (4, 1, 1, 1, 1, 1, 1, 1))
TREE_BUDGET = 1e-3
TREE_SETTINGS = (("exact", 1.0, 1.0), ("recursive", 1.0, 1.0), ("exact", 0.7, 0.9))


def timed(fn, repeat: int) -> float:
    """Mean seconds per call."""
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def run_steps(language, n_steps: int, seed: int, draft: str = "bigram"):
    """n_steps speculative steps continuing the text; returns (seconds, contexts visited)."""
    target, q = language.target, language.draft(draft)
    context = language.encode(stats.DEFAULT_PREFIX[language.lang])
    rng = random.Random(seed)
    contexts = []
    start = time.perf_counter()
    for _ in range(n_steps):
        trace = speculative_step(target, q, context, GAMMA, rng)
        context = (context + trace.written)[-2:]
        contexts.append(context)
    return time.perf_counter() - start, contexts


def bench_language(lang: str, text: str, n_steps: int) -> None:
    print(f"\n== {lang} ==")
    gc.collect()
    t0 = time.perf_counter()
    doc = json.loads(text)
    t1 = time.perf_counter()
    language = load_language(doc)
    t2 = time.perf_counter()
    print(f"model JSON {len(text.encode('utf-8')):,} bytes; json.loads {1e3 * (t1 - t0):.1f} ms, "
          f"load_language {1e3 * (t2 - t1):.1f} ms")

    cold, contexts = run_steps(language, n_steps, seed=1)
    warm, _ = run_steps(language, n_steps, seed=1)  # same path again: every cache warm
    other, _ = run_steps(language, n_steps, seed=2)  # new path, caches partly warm
    print(f"speculative_step gamma={GAMMA}, bigram draft, {n_steps:,} steps continuing the text:")
    for label, seconds in (("cold caches", cold), ("same path again (warm)", warm),
                           ("another seed (partly warm)", other)):
        print(f"  {label:28s} {1e6 * seconds / n_steps:8.1f} us/step  {n_steps / seconds:9,.0f} steps/s")

    rng = random.Random(3)
    for name in ("bigram", "unigram"):
        trace = speculative_step(language.target, language.draft(name), contexts[-1], GAMMA, rng)
        while trace.residual is None:
            trace = speculative_step(language.target, language.draft(name), contexts[-1], GAMMA, rng)
        per_dict = timed(trace.to_dict, 50)
        print(f"  StepTrace.to_dict after a rejection, {name} draft: {1e6 * per_dict:.0f} us "
              f"({len(trace.residual.pairs())} residual entries)")

    sample = contexts[:: max(1, len(contexts) // 200)]
    target = language.target
    dense = timed(lambda: [target.distribution(c) for c in sample], 3) / len(sample)
    cached = timed(lambda: [target.sparse(c) for c in sample], 20) / len(sample)
    lookups = timed(lambda: [target.sparse(c).prob(7) for c in sample], 20) / len(sample)

    def cold_chains():
        target._by_tail.clear()
        target._chains.clear()
        for c in sample:
            target.sparse(c)
    cold_chain = timed(cold_chains, 3) / len(sample)
    draft = language.draft("bigram")
    pairs = [(target.sparse(c), draft.sparse(c)) for c in sample]
    residual_cost = timed(lambda: [type(residual_of(p, q))(p, q) for p, q in pairs], 3) / len(pairs)
    print(f"one target distribution over {len(sample)} visited contexts:")
    print(f"  dense (V={len(language.vocab)} floats)        {1e6 * dense:8.1f} us")
    print(f"  sparse, cached lookup             {1e6 * cached:8.2f} us  (+ one prob: {1e6 * lookups:.2f} us)")
    print(f"  sparse, built from cold           {1e6 * cold_chain:8.2f} us")
    print(f"  residual max(0,p-q) and beta      {1e6 * residual_cost:8.1f} us  (uncached; cached after)")

    tube = timed(lambda: first_tokens(target, draft, contexts[0], rng, 50), 40)
    print(f"test tube round (50 speculative first tokens): {1e3 * tube:.2f} ms")

    start = time.perf_counter()
    m = stats.measure(language, "bigram", gamma=GAMMA, n_tokens=2000, seed=20230201)
    seconds = time.perf_counter() - start
    best = stats.best_gamma(m["alpha"], DRAFT_COST)
    print(f"measure (2,000 tokens, bigram draft, gamma {GAMMA}): {seconds:.2f} s")
    print(f"  alpha {m['alpha']:.3f} (acceptance rate {m['acceptance_rate']:.3f}); "
          f"tokens per pass {m['tokens_per_pass']:.2f} counted, "
          f"{stats.expected_tokens_per_pass(m['alpha'], GAMMA):.2f} by the formula; "
          f"best gamma at c={DRAFT_COST}: {best} "
          f"(speed-up {stats.speedup(m['alpha'], best, DRAFT_COST):.2f}x vs "
          f"{stats.speedup(m['alpha'], GAMMA, DRAFT_COST):.2f}x at gamma {GAMMA})")
    bench_trees(language, max(200, n_steps // 10))
    bench_alpha(language)
    peak_load, peak_steps = memory_peaks(text, n_steps)
    print(f"tracemalloc peak: parse + load {peak_load / 1e6:.1f} MB; "
          f"then {n_steps:,} steps (caches) {peak_steps / 1e6:.1f} MB more")


def tree_steps_time(language, widths, n_steps: int, rule: str, temperature: float, top_p: float) -> float:
    """Best of three runs of n_steps tree steps along the text, in this process's CPU seconds per
    step (the machine is shared: wall time measures the neighbours too). The first run fills the
    caches; the best is the warm figure, as the page has once a reader has stepped a while."""
    best = float("inf")
    for _ in range(3):
        context = language.encode(stats.DEFAULT_PREFIX[language.lang])
        rng = random.Random(5)
        start = time.process_time()
        for _ in range(n_steps):
            trace = tree_step(language.target, language.draft("bigram"), context, widths, rng, rule=rule,
                              temperature=temperature, top_p=top_p)
            context = (context + trace.written)[-2:]
        best = min(best, (time.process_time() - start) / n_steps)
    return best


def bench_trees(language, n_steps: int) -> None:
    print(f"tree_step, bigram draft, {n_steps:,} steps continuing the text (CPU time, best of 3; budget "
          f"for k=3, depth 4: {1e3 * TREE_BUDGET:.0f} ms):")
    line = tree_steps_time(language, (1,) * GAMMA, n_steps, "exact", 1.0, 1.0)
    for rule, temperature, top_p in TREE_SETTINGS:
        for widths in TREE_SHAPES:
            seconds = tree_steps_time(language, widths, n_steps, rule, temperature, top_p)
            within = "" if widths[0] != 3 else ("  within budget" if seconds <= TREE_BUDGET else "  OVER BUDGET")
            print(f"  {rule:9s} T={temperature} top-p={top_p}  {'-'.join(map(str, widths))} "
                  f"({tree_size(widths) + 1:3d} lanes) {1e6 * seconds:8.1f} us/step "
                  f"({seconds / line:5.1f} x the plain line){within}")


def bench_alpha(language) -> None:
    """alpha_k against T (sim.alpha), bigram draft: the table the docs quote."""
    start = time.perf_counter()
    rows = {k: alpha_by_temperature(language, "bigram", k=k) for k in (1, 2, 3)}
    print(f"alpha_k against T, bigram draft, top-p 1 ({time.perf_counter() - start:.1f} s for the table):")
    temperatures = list(rows[1])
    print("  k  " + "".join(f"T={t:<6}" for t in temperatures))
    for k, row in rows.items():
        print(f"  {k}  " + "".join(f"{row[t]:<8.3f}" for t in temperatures))


def memory_peaks(text: str, n_steps: int) -> tuple[int, int]:
    """Peak traced memory of parsing and loading, then of running steps on top (separate run:
    tracemalloc slows Python down several times, so no timing is taken with it on)."""
    gc.collect()
    tracemalloc.start()
    language = load_language(json.loads(text))
    loaded, peak_load = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    run_steps(language, n_steps, seed=1)
    _, peak_steps = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak_load, peak_steps - loaded


# --- the same job in Pyodide ------------------------------------------------------------------------

PYODIDE_JOB = """
import json, random, time
from sim import load_language, speculative_step
from sim import stats

def job(lang, text, n_steps):
    t0 = time.perf_counter(); doc = json.loads(text); t1 = time.perf_counter()
    language = load_language(doc); t2 = time.perf_counter()
    timings, traces = [], []
    for _ in range(2):  # cold caches, then the same path again
        context = language.encode(stats.DEFAULT_PREFIX[lang]); rng = random.Random(1)
        start = time.perf_counter()
        for _ in range(n_steps):
            trace = speculative_step(language.target, language.draft("bigram"), context, 4, rng)
            if len(traces) < 50:
                traces.append(trace.to_dict())
            context = (context + trace.written)[-2:]
        timings.append((time.perf_counter() - start) / n_steps)
    start = time.perf_counter()
    measured = stats.measure(language, "bigram", n_tokens=2000, seed=20230201)
    measure_seconds = time.perf_counter() - start
    tree_traces, tree_seconds = tree_job(language, lang, n_steps // 10)
    shapes = bench_shape_times(language, lang, n_steps // 10)
    return {"parse": t1 - t0, "load": t2 - t1, "cold": timings[0], "warm": timings[1],
            "measure": measure_seconds, "alpha": measured["alpha"], "traces": traces,
            "tree_traces": tree_traces, "tree": tree_seconds, "shapes": shapes}

def tree_job(language, lang, n_steps):
    # Tree steps (sim.tree) at a few settings, their traces, and the time of a k = 3, depth-4 step.
    from sim.tree import tree_step
    traces = []
    for widths, rule, temperature, top_p in [((3, 2, 1), "exact", 1.0, 1.0), ((2, 2), "recursive", 0.7, 0.9),
                                             ((3, 1), "keep_any_survivor", 1.3, 1.0), ((2, 2, 1), "exact", 0.0, 1.0)]:
        context = language.encode(stats.DEFAULT_PREFIX[lang]); rng = random.Random(7)
        for _ in range(10):
            trace = tree_step(language.target, language.draft("bigram"), context, widths, rng, rule=rule,
                              temperature=temperature, top_p=top_p)
            traces.append(trace.to_dict())
            context = (context + trace.written)[-2:]
    context = language.encode(stats.DEFAULT_PREFIX[lang]); rng = random.Random(8)
    start = time.perf_counter()
    for _ in range(n_steps):
        trace = tree_step(language.target, language.draft("bigram"), context, (3, 3, 3, 3), rng)
        context = (context + trace.written)[-2:]
    return traces, (time.perf_counter() - start) / max(1, n_steps)


def bench_shape_times(language, lang, n_steps):
    # The bench's trees at T = 0.7, top-p 0.9 and at T = 1: best of three runs along the text (the
    # first fills the caches), seconds per step.
    from sim.tree import tree_step
    out = {}
    for widths in [(3, 1, 1, 1), (4, 1, 1, 1, 1, 1, 1, 1)]:
        for temperature, top_p in [(0.7, 0.9), (1.0, 1.0)]:
            runs = []
            for _ in range(3):
                context = language.encode(stats.DEFAULT_PREFIX[lang]); rng = random.Random(9)
                start = time.perf_counter()
                for _ in range(n_steps):
                    trace = tree_step(language.target, language.draft("bigram"), context, widths, rng,
                                      temperature=temperature, top_p=top_p)
                    context = (context + trace.written)[-2:]
                runs.append((time.perf_counter() - start) / n_steps)
            # cold: the first run, which tempers every new context it meets; warm: the best
            out["-".join(map(str, widths)) + f" T={temperature} top-p={top_p}"] = [runs[0], min(runs)]
    return out
"""

PYODIDE_RUNNER = """
import { loadPyodide } from "%(pyodide)s/pyodide.mjs";
import fs from "fs";
const py = await loadPyodide({ indexURL: "%(pyodide)s/" });
py.FS.mkdir("/sim");
for (const f of fs.readdirSync("%(sim)s")) {
  if (f.endsWith(".py")) py.FS.writeFile("/sim/" + f, fs.readFileSync("%(sim)s/" + f));
}
py.runPython("import sys; sys.path.insert(0, '/')");
py.runPython(fs.readFileSync("%(job)s", "utf8"));
const job = py.globals.get("job");
const out = { python: py.runPython("sys.version.split()[0]") };
for (const lang of ["en", "zh"]) {
  out[lang] = JSON.parse(py.runPython("import json; json.dumps")(job(lang, fs.readFileSync("%(models)s/" + lang + ".json", "utf8"), %(steps)d)));
}
console.log(JSON.stringify(out));
"""


def run_pyodide(job_source: str, texts: dict[str, str], n_steps: int) -> dict | str:
    """Run job_source's job(lang, model_text, n_steps) for each language in Pyodide under Node:
    {"python": version, lang: result, ...}, or a sentence saying why it could not run.
    tests/sim/test_tree_pyodide.py runs its own job through this too."""
    pyodide = REPO / "node_modules" / "pyodide"
    node = shutil.which("node")
    if node is None or not (pyodide / "pyodide.mjs").exists():
        return "skipped (needs node and node_modules/pyodide)"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for lang, text in texts.items():
            (tmp / f"{lang}.json").write_text(text, encoding="utf-8")
        (tmp / "job.py").write_text(job_source, encoding="utf-8")
        runner = tmp / "run.mjs"
        runner.write_text(PYODIDE_RUNNER % {"pyodide": pyodide, "sim": REPO / "sim", "job": tmp / "job.py",
                                            "models": tmp, "steps": n_steps}, encoding="utf-8")
        done = subprocess.run([node, str(runner)], capture_output=True, text=True)
    if done.returncode != 0:
        return f"failed\n{done.stderr[-2000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench_pyodide(texts: dict[str, str], n_steps: int) -> None:
    result = run_pyodide(PYODIDE_JOB, texts, n_steps)
    if isinstance(result, str):
        print(f"\nPyodide: {result}")
        return
    namespace: dict = {}
    exec(PYODIDE_JOB, namespace)
    print(f"\n== Pyodide (Python {result['python']}) under Node, {n_steps:,} steps ==")
    for lang, text in texts.items():
        got = result[lang]
        cpython = namespace["job"](lang, text, n_steps)
        same = all(got[key] == cpython[key] for key in ("traces", "alpha", "tree_traces"))
        print(f"{lang}: json.loads {1e3 * got['parse']:.0f} ms, load_language {1e3 * got['load']:.0f} ms; "
              f"step cold {1e6 * got['cold']:.0f} us, warm {1e6 * got['warm']:.0f} us "
              f"({1 / got['cold']:,.0f}-{1 / got['warm']:,.0f} steps/s); measure {got['measure']:.2f} s; "
              f"tree step k=3 depth 4 (3-3-3-3): {1e6 * got['tree']:.0f} us; "
              f"traces and alpha identical to CPython: {same}")
        for shape, (cold, warm) in got["shapes"].items():
            here = cpython["shapes"][shape]
            print(f"  bench tree {shape}: cold {1e6 * cold:.0f}, warm {1e6 * warm:.0f} us/step in Pyodide "
                  f"(CPython here: {1e6 * here[0]:.0f}, {1e6 * here[1]:.0f} us)")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, help="folder with en.json and zh.json")
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--pyodide", action="store_true", help="also time Pyodide under Node")
    args = parser.parse_args(argv)
    print(f"Python {sys.version.split()[0]} on {sys.platform}")
    texts = {lang: model_json(lang, args.models) for lang in ("en", "zh")}
    for lang, text in texts.items():
        bench_language(lang, text, args.steps)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"\nmax RSS of this process: {rss / 1024:.0f} MB (includes numpy and the corpus build)")
    if args.pyodide:
        bench_pyodide(texts, min(args.steps, 2000))


if __name__ == "__main__":
    main()
