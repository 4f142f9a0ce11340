"""Tree steps give the same traces in Pyodide as in CPython, for the same seed and settings.

Through the cheapest path the repo has: Pyodide under Node (node_modules/pyodide, installed by
`./dev`), the runner of benchmarks/sim_benchmark.py --pyodide, with the sim's own files. One
Node run for both languages; a few tree steps per setting (every rule family, a temperature with
top-p, greedy), full traces compared: tokens, random numbers, ratios, residuals.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"

JOB = """
import random
from sim.models import load_language
from sim.tree import tree_step
import json

SETTINGS = [((3, 2, 1), "exact", 1.0, 1.0), ((2, 2), "recursive", 0.7, 0.9), ((3, 1), "keep_any_survivor", 1.3, 1.0),
            ((2, 2, 1), "exact", 0.0, 1.0), ((1, 1, 1, 1), "exact", 1.0, 1.0), ((3,), "typical", 0.5, 0.95)]
PREFIX = {"en": "said the", "zh": "慢慢"}

def job(lang, text, n_steps):
    language = load_language(json.loads(text))
    traces = []
    for widths, rule, temperature, top_p in SETTINGS:
        context = language.encode(PREFIX[lang]); rng = random.Random(21)
        for _ in range(n_steps):
            trace = tree_step(language.target, language.draft("bigram"), context, widths, rng, rule=rule,
                              temperature=temperature, top_p=top_p)
            traces.append(trace.to_dict())
            context = (context + trace.written)[-2:]
    return traces
"""


def load_benchmark():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location("sim_benchmark", BENCHMARKS / "sim_benchmark.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_tree_traces_are_the_same_in_pyodide(sim_model_docs):
    import json

    texts = {lang: json.dumps(doc) for lang, doc in sim_model_docs.items()}
    result = load_benchmark().run_pyodide(JOB, texts, 8)
    if isinstance(result, str):
        if result.startswith("skipped"):
            pytest.skip(f"Pyodide under Node: {result}")
        pytest.fail(f"Pyodide under Node {result}")
    namespace: dict = {}
    exec(JOB, namespace)
    for lang, text in texts.items():
        cpython = namespace["job"](lang, text, 8)
        assert len(cpython) == 48
        assert result[lang] == cpython, lang
