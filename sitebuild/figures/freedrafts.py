"""Chapters 14 to 16: the drafts without a second model (prompt lookup, suffix decoding) on each book.

Each figure is the bench's own readout (sim.bench.Bench.readouts, a session of requests on the
prompt, sim.bench.free_passes.bench_readouts) at the bench's defaults but for the draft, the prompt
(sim.prompts) and the temperature, so the prose quotes what the reader's bench shows (each kept
between builds: measured.free_draft_readouts):

    refrain         "echo" at T = 0: the request repeats a refrain of the book, and so does the target
    fresh_greedy    "fresh" at T = 0: new text, which greedy n-gram text soon turns into a loop
    fresh           "fresh" at T = 1 (the bench's default): sampled new text

and, for suffix decoding, the session's first request against its second (sim.free_runs'
per-request counts): the second finds the first in its tree of earlier outputs.
"""

from __future__ import annotations

from sim.bench.free_passes import BENCH_REQUESTS
from sim.free_drafts import PROMPT_SOURCES
from sim.free_runs import REQUEST_TOKENS

from .formats import Figures, fixed, pct, times
from .measured import first_and_second_request, free_draft_readouts

CASES = {
    "refrain": {"prompt": "echo", "temperature": 0},
    "fresh_greedy": {"prompt": "fresh", "temperature": 0},
    "fresh": {"prompt": "fresh"},
}
SOURCES = PROMPT_SOURCES


def free_figures(language) -> Figures:
    """Each source's alpha, tokens per pass, speed-up and share of passes with a guess in each case,
    and suffix decoding's first and second request on the fresh prompt at T = 0."""
    f = Figures()
    for source in SOURCES:
        for case, args in CASES.items():
            got = free_draft_readouts(language, source, **args)
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
