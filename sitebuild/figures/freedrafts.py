"""Chapters 14 to 16: the drafts without a second model (prompt lookup, suffix decoding) on each book.

Each figure is the bench's own readout (sim.bench.Bench.readouts, a session of requests on the
prompt, sim.bench.free_passes.bench_readouts) at the bench's defaults but for the draft, the prompt
(sim.prompts) and the temperature, so the prose quotes what the reader's bench shows:

    refrain         "echo" at T = 0: the request repeats a refrain of the book, and so does the target
    fresh_greedy    "fresh" at T = 0: new text, which greedy n-gram text soon turns into a loop
    fresh           "fresh" at T = 1 (the bench's default): sampled new text

and, for suffix decoding, the session's first request against its second (sim.free_runs'
per-request counts): the second finds the first in its tree of earlier outputs.
"""

from __future__ import annotations

from functools import lru_cache

from sim.bench.free_passes import BENCH_REQUESTS
from sim.free_runs import REQUEST_TOKENS, RUN_SEED, run_source
from sim.prompts import prompt_ids

from .formats import Figures, fixed, pct, times
from .measured import DEFAULT_GAMMA, shared_bench

CASES = {
    "refrain": {"prompt": "echo", "temperature": 0},
    "fresh_greedy": {"prompt": "fresh", "temperature": 0},
    "fresh": {"prompt": "fresh"},
}
SOURCES = ("lookup", "suffix")


def free_figures(language) -> Figures:
    """Each source's alpha, tokens per pass, speed-up and share of passes with a guess in each case,
    and suffix decoding's first and second request on the fresh prompt at T = 0."""
    bench = shared_bench(language)
    f = Figures()
    for source in SOURCES:
        for case, args in CASES.items():
            got = bench.readouts({"draft": source, **args})
            name = f"{source}_{case}"
            f.add(f"{name}_alpha", got["alpha"], fixed(2))
            f.add(f"{name}_tpp", got["tokens_per_pass_counted"], fixed(2))
            f.add(f"{name}_speedup", got["speedup"], times())
            f.add(f"{name}_coverage_pct", got["coverage"] * 100, pct(0))
    first, second = first_and_second_request(language, "suffix")
    f.add("suffix_first_request_tpp", first, fixed(2))
    f.add("suffix_second_request_tpp", second, fixed(2))
    f.add("free_requests", BENCH_REQUESTS)
    f.add("free_request_tokens", REQUEST_TOKENS)
    return f


@lru_cache(maxsize=8)  # the chapters' figures and the question bank's claims ask for the same sessions
def first_and_second_request(language, source: str) -> tuple[float, float]:
    """Tokens per pass of a session's first and second request (sim.free_runs' per-request counts),
    greedy, on the fresh prompt: the second can find the first among the session's earlier outputs."""
    run = run_source(language, source, prompt_ids(language, "fresh"), gamma=DEFAULT_GAMMA, requests=2,
                     tokens=REQUEST_TOKENS, seed=RUN_SEED, temperature=0)
    first, second = run["per_request"]
    return first["tokens_per_pass"], second["tokens_per_pass"]
