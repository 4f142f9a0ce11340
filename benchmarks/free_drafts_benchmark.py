"""The drafts without a second model (sim.free_drafts) against the bench's bigram draft: the figures.

    SPECDEC_CORPUS=DIR .venv/bin/python benchmarks/free_drafts_benchmark.py [--requests N] [--tokens N]

Per language, prompt and source, at the bench's defaults (gamma 4, one candidate, temperature 1)
and greedy (temperature 0): alpha, acceptance by position (vLLM's per-position rate, over the
passes that had a guess), tokens per pass, vLLM's mean acceptance length and draft acceptance
rate, the share of passes with a guess, the cost c and the speed-up tokens per pass / (1 + c).
Runs are sessions of sim.free_runs (REQUESTS requests of REQUEST_TOKENS tokens from one prompt:
suffix decoding learns from the earlier ones). Prompts (sim.prompts): "none" is the book's bench
prefix, "echo" the book's passage the target follows most closely, then its opening (the
repeating prompt). The heads are counted from the book itself (the corpus is read, not the model
file). The bigram row is the bench's own readout at the same settings (sim.bench.readouts).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from corpus import tokenize  # noqa: E402
from corpus.sources import corpus_dir  # noqa: E402
from model_files import model_json  # noqa: E402
from sim.bench.readouts import Readouts  # noqa: E402
from sim.bench.settings import check_settings  # noqa: E402
from sim.free_drafts import SOURCES, SkipGramHeads  # noqa: E402
from sim.free_runs import REQUEST_TOKENS, REQUESTS, run_source  # noqa: E402
from sim.models import load_language  # noqa: E402
from sim.prompts import prompt_ids  # noqa: E402
from sitebuild.counting import read_books  # noqa: E402

import json  # noqa: E402

GAMMA = 4


def book_ids(language) -> list[int]:
    lang = language.lang
    return [language.index[t] for text in read_books(lang, corpus_dir()) for t in tokenize.tokenize(lang, text)]


def row(label: str, r: dict) -> str:
    by_position = " ".join(f"{x:.3f}" for x in r["accepted_by_position"])
    dar = "-" if r["draft_acceptance_rate"] is None else f"{r['draft_acceptance_rate']:.3f}"
    alpha = "-" if r["alpha"] is None else f"{r['alpha']:.3f}"
    return (f"| {label} | {alpha} | {by_position} | {r['tokens_per_pass']:.3f} | {r['mean_acceptance_length']:.3f} "
            f"| {dar} | {r['coverage']:.2f} | {r['c']:.3f} | {r['speedup']:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=REQUESTS)
    parser.add_argument("--tokens", type=int, default=REQUEST_TOKENS)
    args = parser.parse_args()
    started = time.perf_counter()
    print("| lang, prompt, T, source | alpha | accepted by position 1-4 | tokens/pass | mean acc. length "
          "| draft acc. rate | passes with a guess | c | speed-up |")
    print("|---|---|---|---|---|---|---|---|---|")
    for lang in ("en", "zh"):
        language = load_language(json.loads(model_json(lang, None)))
        heads = SkipGramHeads(book_ids(language), heads=GAMMA, top=1)
        readouts = Readouts(language)
        for temperature in (1, 0):
            b = readouts.readouts(check_settings({"temperature": temperature}))
            print(f"| {lang}, bench prefix, T={temperature}, bigram (readouts) | {b['alpha']:.3f} | (not counted) "
                  f"| {b['tokens_per_pass_counted']:.3f} | {b['mean_acceptance_length']:.3f} "
                  f"| {b['draft_acceptance_rate']:.3f} | 1.00 | {b['c']:.3f} | {b['speedup']:.3f} |")
            for kind in ("none", "echo"):
                prompt = prompt_ids(language, kind)
                for source in SOURCES:
                    r = run_source(language, source, prompt, gamma=GAMMA, requests=args.requests, tokens=args.tokens,
                                   temperature=temperature, heads=heads)
                    print(row(f"{lang}, {kind}, T={temperature}, {source}", r))
                    if source == "suffix":
                        first, later = r["per_request"][0], r["per_request"][1:]
                        mean_later = sum(x["tokens_per_pass"] for x in later) / len(later) if later else float("nan")
                        print(f"|   suffix: tokens/pass of the first request {first['tokens_per_pass']:.3f}, "
                              f"of the later ones {mean_later:.3f} | | | | | | | | |")
    print(f"\n{time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
