"""The bench's own measurements on each page's book, with fixed seeds: what the bench shows first.

Each page measures its own book's models, so these figures differ between the languages.
Three measurements, each cached between builds (cache.py):
- the bench's readouts at its defaults and with the unigram draft;
- alpha from several seeds of the chapters' run, to show how much one run's alpha moves;
- how often the target's most likely token is among the draft's top few (the tree section).
Two more are not figures: the readout measurements of the page's first picture (readout_table),
which the page's snapshot opens its session with, so the readouts it shows answer at once when
the worker is live (every other setting is measured in the worker, on first use); and alpha
against temperature for each draft (alpha_temperature), which the speed-up tab prints for the
draft in use (about 5 s of CPython a language: too slow for the worker to measure on a click).
The readouts of the drafts without a second model and their sessions' first and second
requests (free_draft_readouts, first_and_second_request: chapters 14 to 16 and the question
bank's claims) are kept the same way, each by its settings.
"""

from __future__ import annotations

import hashlib
import random
import weakref

from sim import bench as bench_settings
from sim import owntext, stats
from sim.bench import Bench
from sim.bench.commands import bench_prefix_ids, top_by_p
from sim.bench.settings import BY_NAME
from sim.free_runs import REQUEST_TOKENS, RUN_SEED, run_source
from sim.prompts import prompt_ids
from sim.session import measurements_json

from .. import numbers
from .cache import cached
from .formats import AsReadout, Figures, fixed, pct, sig, times
from .roofline import answer_decode_seconds, roofline

DEFAULT_GAMMA = bench_settings.DEFAULTS["gamma"]
DEFAULT_TEMPERATURE = bench_settings.DEFAULTS["temperature"]
DRAFT_COST = bench_settings.DRAFT_COST  # c: the small cylinder turns in a tenth of the big one's time
LAB_GAMMA = bench_settings.MAX_GAMMA  # the second suggested experiment: the bench's largest gamma
MEASURE_TOKENS = bench_settings.READOUT_TOKENS
MEASURE_SEED = bench_settings.READOUT_SEED

# The chapters' alpha comes from one run; this many runs (that one and the next seeds) show
# how far another seed would move it. Only alpha is measured per seed: the formula gives the rest.
NOISE_RUNS = 8
# Candidates per position in the tree section: the draft's 1..COVERAGE_TOP most likely tokens.
COVERAGE_TOP = 3

READOUT_FIELDS = ("alpha", "tokens_per_pass_counted", "tokens_per_pass_formula", "speedup",
                  "best_gamma", "best_speedup", "alpha_rules", "mean_acceptance_length",
                  "draft_acceptance_rate", "draft_acceptance_rate_formula")
# 'Going further' compares the exact rules' alpha_k at these k (the bench's own readouts).
RULE_KS = (2, 3, 4)
READOUT_SETTINGS = {"bigram": {}, "unigram": {"draft": "unigram"},
                    **{f"k{k}": {"candidates": k} for k in RULE_KS}}


# One Bench per language for the measurements below: its cache of runs is shared, so a run two
# of them need (the bigram and unigram drafts at temperature 1) is made once. Each run has its
# own seeded generator, so sharing changes no number.
_BENCHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def shared_bench(language) -> Bench:
    bench = _BENCHES.get(language)
    if bench is None:
        bench = _BENCHES[language] = Bench(language)
    return bench


def readouts(language) -> dict:
    """The bench's readouts (sim.bench.Bench.readouts) for each setting the chapters quote."""

    def measure():
        bench = shared_bench(language)
        out = {}
        for name, args in READOUT_SETTINGS.items():
            got = bench.readouts(args)
            out[name] = {field: got[field] for field in READOUT_FIELDS}
        return out

    return cached("readouts", language, {"settings": READOUT_SETTINGS}, measure)


def readout_table(model_json: str, language) -> str:
    """sim.session.measurements_json of the book's model: the measurements the default settings'
    readouts make, in CPython (about 0.1 s per language when the cache misses)."""
    text_sha256 = hashlib.sha256(model_json.encode("utf-8")).hexdigest()  # the table names it
    return cached("readout-table", language, {"rows": "first_measurements", "model_sha256": text_sha256},
                  lambda: {"json": measurements_json(model_json, language)})["json"]


def free_draft_readouts(language, draft: str, prompt: str, temperature=DEFAULT_TEMPERATURE) -> dict:
    """The bench's readouts (sim.bench.Bench.readouts) with a draft that needs no second model
    (prompt lookup, suffix decoding) on one of sim.prompts' prompts, at the bench's temperature
    unless one is given: chapters 14 to 16 quote them (freedrafts.py), and so do the question
    bank's claims (sitebuild/course/answers.py). Each is a session of requests, so each is kept,
    under its settings written out (the bench's temperature asked for by value or by default is
    one entry)."""
    args = {"draft": draft, "prompt": prompt, "temperature": temperature}
    return cached(f"free-{draft}-{prompt}-t{temperature}", language, args, lambda: shared_bench(language).readouts(args))


def first_and_second_request(language, source: str) -> tuple[float, float]:
    """Tokens per pass of a session's first and second request (sim.free_runs' per-request counts),
    greedy, on the fresh prompt: the second can find the first among the session's earlier outputs.
    Chapter 16 prints them for suffix decoding; the question bank's claims compare them."""
    params = {"source": source, "prompt": "fresh", "gamma": DEFAULT_GAMMA, "requests": 2,
              "tokens": REQUEST_TOKENS, "seed": RUN_SEED, "temperature": 0}

    def measure():
        run = run_source(language, source, prompt_ids(language, params["prompt"]),
                         **{name: params[name] for name in ("gamma", "requests", "tokens", "seed", "temperature")})
        return [request["tokens_per_pass"] for request in run["per_request"]]

    first, second = cached(f"first-second-{source}", language, params, measure)
    return first, second


def alpha_temperature(language) -> dict:
    """{"temperatures": [...], "drafts": {draft: [alpha at each temperature]}}: the readouts' alpha
    (sim.bench.Bench.readouts) at each temperature, one candidate, top-p 1, so the value at the
    temperature in use is the alpha the readouts show. Each is measured on the text its own
    temperature writes (greedy at 0: the greedy readouts' runs), as the papers measure theirs."""
    temperatures = list(BY_NAME["temperature"].values)
    drafts = list(bench_settings.DRAFTS)

    def measure():
        bench = shared_bench(language)
        return {"temperatures": temperatures,
                "drafts": {d: [bench.readouts({"draft": d, "temperature": t})["alpha"] for t in temperatures]
                           for d in drafts}}

    return cached("alpha-temperature", language, {"drafts": drafts, "temperatures": temperatures}, measure)


def alpha_by_seed(language) -> list[float]:
    """Alpha of the chapters' run (seed MEASURE_SEED first) and of NOISE_RUNS - 1 more seeds."""
    seeds = [MEASURE_SEED + i for i in range(NOISE_RUNS)]

    def measure():
        return [stats.measure(language, "bigram", gamma=bench_settings.READOUT_GAMMA,
                              n_tokens=MEASURE_TOKENS, seed=seed, c=DRAFT_COST)["alpha"]
                for seed in seeds]

    return cached("alpha-seeds", language, {"seeds": seeds, "tokens": MEASURE_TOKENS}, measure)


def top_coverage(language) -> list[float]:
    """Share of positions where the target's most likely token is among the draft's k most
    likely (k = 1..COVERAGE_TOP), along MEASURE_TOKENS tokens sampled from the target.

    This is what a greedy check of k candidates per position keeps: a candidate survives
    when it is the target's own choice, and k candidates give k chances.
    """

    def measure():
        target, draft = language.target, language.draft("bigram")
        rng = random.Random(MEASURE_SEED)
        context = bench_prefix_ids(language)
        hits = [0] * COVERAGE_TOP
        for _ in range(MEASURE_TOKENS):
            p, q = target.sparse(context), draft.sparse(context)
            best = p.argmax()
            ranked = [token for token, _ in top_by_p(q, COVERAGE_TOP)]
            if best in ranked:
                for k in range(ranked.index(best), COVERAGE_TOP):
                    hits[k] += 1
            context = (context + [p.sample(rng)])[-2:]
        return [h / MEASURE_TOKENS for h in hits]

    return cached("coverage", language, {"top": COVERAGE_TOP, "tokens": MEASURE_TOKENS}, measure)


def settings() -> Figures:
    """The bench's settings, as the chapters name them (the same on both pages)."""
    f = Figures()
    f.add("default_gamma", DEFAULT_GAMMA)
    f.add("default_gamma_plus_one", DEFAULT_GAMMA + 1)
    f.add("draft_cost", DRAFT_COST, fixed(1))
    f.add("lab_gamma", LAB_GAMMA)
    f.add("measure_tokens", MEASURE_TOKENS)
    f.add("same_alpha", 1)  # a copy of the target: every guess is kept
    f.add("same_tokens_per_pass", DEFAULT_GAMMA + 1)
    f.add("same_speedup", stats.speedup(1.0, DEFAULT_GAMMA, DRAFT_COST), times())
    # With every guess kept, (gamma + 1) / (gamma c + 1) keeps rising with gamma, towards 1/c.
    f.add("same_speedup_best_bench", stats.speedup(1.0, LAB_GAMMA, DRAFT_COST), times())
    f.add("same_speedup_limit", 1 / DRAFT_COST, times(0))
    for t in BY_NAME["temperature"].values:
        if t not in (0, 1):  # the bench's temperatures, as 'Going further' names them
            f.add("temperature_" + str(t).replace(".", ""), t, fixed(1))
    f.add("own_max_characters", owntext.MAX_CHARACTERS)  # a reader's own text (chapter 13)
    f.add("own_min_tokens", owntext.MIN_TOKENS)
    return f


def bench_figures(language) -> Figures:
    """One language's measured figures: chapters 7, 8 and 13, the FAQ and 'Going further'."""
    got = readouts(language)
    main, unigram = got["bigram"], got["unigram"]
    alpha = main["alpha"]
    f = Figures()
    f.add("bench_alpha", alpha, fixed(2))
    f.add("bench_tokens_per_pass", main["tokens_per_pass_counted"], fixed(2))
    f.add("bench_tokens_per_pass_formula", main["tokens_per_pass_formula"], fixed(2))
    f.add("bench_speedup", main["speedup"], times())
    f.add("bench_best_gamma", main["best_gamma"])
    # Chapter 8: the lanes a pass lights at the best gamma (its guesses and the bonus position),
    # as a share of those the arithmetic can fill while the weights stream by.
    f.add("bench_best_lanes", main["best_gamma"] + 1)
    f.add("bench_best_lanes_pct", (main["best_gamma"] + 1) / roofline().raw()["balance_lanes"] * 100, pct(1))
    f.add("bench_best_speedup", main["best_speedup"], times())
    f.add("bench_lab_speedup", stats.speedup(alpha, LAB_GAMMA, DRAFT_COST), times())
    f.add("bench_unigram_alpha", unigram["alpha"], fixed(2))
    f.add("bench_unigram_speedup", unigram["speedup"], times())
    # The draft's cost at which gamma = DEFAULT_GAMMA stops paying: E / (gamma c + 1) = 1.
    tokens = stats.expected_tokens_per_pass(alpha, DEFAULT_GAMMA)
    f.add("break_even_cost", (tokens - 1) / DEFAULT_GAMMA, fixed(2))
    noise(f, alpha_by_seed(language), main)
    # 'Going further' (p and q): alpha against temperature with the bigram draft, as the readouts print it.
    curve = alpha_temperature(language)
    for t, a in zip(curve["temperatures"], curve["drafts"]["bigram"]):
        f.add("alpha_temp_" + str(t).replace(".", ""), a, fixed(2))
    coverage = top_coverage(language)
    f.add("coverage_top", COVERAGE_TOP)
    f.add("coverage_one_pct", coverage[0] * 100, pct(1))
    f.add("coverage_top_pct", coverage[-1] * 100, pct(1))
    rule_alphas(f, main, {k: got[f"k{k}"] for k in RULE_KS})
    engine_metrics(f, main)
    time_to_first_token(f, main)
    return f


def rule_alphas(f: Figures, main: dict, by_k: dict) -> None:
    """'Going further': alpha_k of the three exact rules at the same positions, k = 1 and RULE_KS."""
    f.add("topk_alpha_1", main["alpha_rules"]["topk"], fixed(2))
    for k, got in by_k.items():
        f.add(f"rule_table_k{k}", k)  # the table's own column of k
        for rule, value in got["alpha_rules"].items():
            f.add(f"alpha_{rule}_k{k}", value, fixed(2))


def engine_metrics(f: Figures, main: dict) -> None:
    """Chapter 14: what vLLM and SGLang would report for the bench's default run."""
    f.add("bench_mal", main["mean_acceptance_length"], fixed(2))
    f.add("bench_accepted_per_pass", main["mean_acceptance_length"] - 1, fixed(2))
    # The rates the readouts print beside alpha, as they print them: the chapter sets them side by side.
    f.add("bench_dar", main["draft_acceptance_rate"], AsReadout(numbers.pct))
    f.add("bench_dar_formula", main["draft_acceptance_rate_formula"], AsReadout(numbers.pct))
    f.add("bench_alpha_pct", main["alpha"] * 100, pct(0))
    # The spec_accept_rate of SGLang's older releases: the tokens a pass writes (guesses kept and the
    # target's own) over the tokens it checks, the tree's root counted (gamma + 1 for a line of gamma
    # guesses). Current releases count as vLLM does, which bench_dar already gives.
    f.add("bench_sglang_rate_pct", main["mean_acceptance_length"] / (DEFAULT_GAMMA + 1) * 100, pct(0))


def time_to_first_token(f: Figures, main: dict) -> None:
    """Chapter 14: the prompt's prefill does not move; each later token takes the step time over
    the speed-up (the bench's default, at its c), on the roofline's H100 and Llama 3.1 8B."""
    shared = roofline().raw()
    step_ms = shared["ms_per_token"] / main["speedup"]
    f.add("spec_ms_per_token", step_ms, sig(3, "ms"))
    f.add("answer_spec_s", (shared["prefill_ms"] + shared["answer_tokens"] * step_ms) / 1e3, sig(3, "s"))
    # With the prompt's cache read at every step too, at the same speed-up.
    decode_s = answer_decode_seconds()
    f.add("spec_ms_per_token_after_prompt", shared["ms_per_token_after_prompt"] / main["speedup"], sig(3, "ms"))
    f.add("answer_spec_cache_s", shared["prefill_ms"] / 1e3 + decode_s / main["speedup"], sig(3, "s"))


def noise(f: Figures, alphas: list[float], main: dict) -> None:
    """Chapter 8: how far the best and default gamma's speed-ups move from seed to seed."""
    best = main["best_gamma"]
    at_best = [stats.speedup(a, best, DRAFT_COST) for a in alphas]
    at_default = [stats.speedup(a, DEFAULT_GAMMA, DRAFT_COST) for a in alphas]
    f.add("noise_runs", len(alphas))
    f.add("noise_alpha_low", min(alphas), fixed(3))
    f.add("noise_alpha_high", max(alphas), fixed(3))
    f.add("noise_best_low", min(at_best), times())
    f.add("noise_best_high", max(at_best), times())
    f.add("noise_default_low", min(at_default), times())
    f.add("noise_default_high", max(at_default), times())
    f.add("noise_gap", main["best_speedup"] - main["speedup"], times())
    f.add("noise_gap_pct", (main["best_speedup"] - main["speedup"]) / main["speedup"] * 100, pct(1))
    f.add("noise_same_best", sum(stats.best_gamma(a, DRAFT_COST, max_gamma=LAB_GAMMA) == best
                                 for a in alphas))
