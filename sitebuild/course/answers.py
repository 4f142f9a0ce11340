"""What the question bank's answers are, computed by the sim (bank.py reads the questions'
wording from site/<lang>/questions.toml and names these by key).

NUMBERS: a numerical question's answer from the values its question gives (`given`), with the
sim's own functions: sim.stats (tokens per pass, speed-up, theorem 3.11's arithmetic), sim.roofline
(bytes, times and busy shares on the bench's GPU and model), sim.alpha (alpha_k), sim.speculative
(the acceptance rule), and the bench's own readouts (sitebuild.figures.measured) for answers read
off the bench at a state the question links.

CLAIMS: a multiple-choice option's statement, as a test of the sim that is true or false. The
content file says which option is right; bank.py stops the build when the sim disagrees, so a
distractor's feedback cannot go on explaining a claim that has become true.
"""

from __future__ import annotations

import inspect
import math
from fractions import Fraction

from sim import alpha as sim_alpha
from sim import bench as bench_settings
from sim import roofline as rl
from sim import stats
from sim.speculative import keep_probability, residual_distribution
from sim.weights import Weights

from ..figures.worked import worked_example

GPU = rl.gpu(rl.DEFAULT_GPU)
MODEL = rl.model(rl.DEFAULT_MODEL)
CONTEXT = bench_settings.CONTEXT_TOKENS
MAX_GAMMA = bench_settings.MAX_GAMMA
FAR = 10_000  # a gamma far past any the bench offers: where a speed-up levels off


class BenchReadouts:
    """One language's bench, measured once (the build's figures cache the same readouts)."""

    def __init__(self, language):
        self.language = language
        self._readouts = None

    def readouts(self) -> dict:
        if self._readouts is None:
            from ..figures.measured import readouts

            self._readouts = readouts(self.language)
        return self._readouts


def _fractions(values) -> list[Fraction]:
    return [Fraction(str(v)) for v in values]


def _distribution(values, name: str) -> list[Fraction]:
    law = _fractions(values)
    if any(x < 0 for x in law) or sum(law) != 1:
        raise ValueError(f"{name} must be probabilities that add up to 1, got {values!r}")
    return law


def _token(p: list, token: int) -> int:
    if type(token) is not int or not 0 <= token < len(p):
        raise ValueError(f"token must be an index into p (0 to {len(p) - 1}), got {token!r}")
    return token


# --- numerical answers: name -> function of the question's given values (and the bench) ---------

def tokens_per_pass(alpha, gamma):
    return stats.expected_tokens_per_pass(alpha, gamma)


def speedup(alpha, gamma, c):
    return stats.speedup(alpha, gamma, c)


def best_gamma(alpha, c):
    return stats.best_gamma(alpha, c, max_gamma=MAX_GAMMA)


def extra_arithmetic_pct(alpha, gamma, c):
    """Theorem 3.11: arithmetic beyond plain decoding's, in percent."""
    return (stats.arithmetic_factor(alpha, gamma, c) - 1) * 100


def all_kept_pct(alpha, gamma):
    """The chance a pass keeps every one of its gamma guesses: the tokens-per-pass sum's last term."""
    return (stats.expected_tokens_per_pass(alpha, gamma) - stats.expected_tokens_per_pass(alpha, gamma - 1)) * 100


def tokens_written(kept, gamma):
    """What a pass writes when the bridge keeps `kept` of its gamma guesses: those, and one token
    of the target's own (a replacement, or the bonus when every guess is kept)."""
    if type(kept) is not int or type(gamma) is not int or not 0 <= kept <= gamma:
        raise ValueError(f"kept must be a whole number from 0 to gamma, got kept {kept!r}, gamma {gamma!r}")
    return kept + 1


def draft_acceptance_rate_pct(alpha, gamma):
    """vLLM's accepted over proposed, when every guess is kept with the same chance alpha."""
    return (stats.expected_tokens_per_pass(alpha, gamma) - 1) / gamma * 100


def mean_acceptance_length(alpha, gamma):
    """vLLM's and SGLang's one plus the accepted guesses per draft: the tokens a pass writes."""
    return stats.expected_tokens_per_pass(alpha, gamma)


def gb_per_token(batch, context):
    """GB one decoding step reads, shared by the batch's tokens: the weights once, and each
    sequence's own key/value cache."""
    if type(batch) is not int or batch < 1 or type(context) is not int or context < 0:
        raise ValueError(f"batch must be a positive and context a non-negative integer, got {batch!r}, {context!r}")
    return rl.bytes_per_step(MODEL, batch, context) / batch / 1e9


def ms_per_step(batch, context):
    return rl.step_seconds(GPU, MODEL, batch, context) * 1e3


def tokens_per_second(batch, context):
    return rl.tokens_per_second(GPU, MODEL, batch, context)


def busy_pct(batch):
    return rl.busy_fraction(GPU, MODEL, batch) * 100


def lanes_busy_pct(lanes):
    return rl.lanes_busy_fraction(GPU, MODEL, lanes) * 100


def balance_lanes():
    return rl.balance_lanes(GPU, MODEL)


def keep_chance(p, q, token):
    p, q = _distribution(p, "p"), _distribution(q, "q")
    return keep_probability(p[_token(p, token)], q[token])


def beta(p, q):
    return stats.beta(_distribution(p, "p"), _distribution(q, "q"))


def residual(p, q, token):
    p, q = _distribution(p, "p"), _distribution(q, "q")
    return residual_distribution(p, q)[_token(p, token)]


def alpha_k(p, q, k):
    """alpha_k of k candidates drawn from q (the exact rule), at one position."""
    p, q = _distribution(p, "p"), _distribution(q, "q")
    ids = range(len(p))
    return sim_alpha.candidate_alpha(Weights(ids, p), Weights(ids, q), k)


def bench_alpha(bench):
    return bench.readouts()["bigram"]["alpha"]


def bench_unigram_alpha(bench):
    return bench.readouts()["unigram"]["alpha"]


def bench_mean_acceptance_length(bench):
    return bench.readouts()["bigram"]["mean_acceptance_length"]


def bench_draft_acceptance_rate_pct(bench):
    return bench.readouts()["bigram"]["draft_acceptance_rate"] * 100


def bench_speedup(bench):
    return bench.readouts()["bigram"]["speedup"]


NUMBERS = {f.__name__: f for f in (
    tokens_per_pass, speedup, best_gamma, all_kept_pct, tokens_written, extra_arithmetic_pct, draft_acceptance_rate_pct,
    mean_acceptance_length, gb_per_token, ms_per_step, tokens_per_second, busy_pct, lanes_busy_pct,
    balance_lanes, keep_chance, beta, residual, alpha_k, bench_alpha, bench_unigram_alpha,
    bench_mean_acceptance_length, bench_draft_acceptance_rate_pct, bench_speedup)}


def inputs(name: str) -> list[str]:
    """The given values a computation takes (the bench is passed, never given)."""
    return [p for p in inspect.signature(NUMBERS[name]).parameters if p != "bench"]


def compute(name: str, given: dict, bench: BenchReadouts) -> float:
    f = NUMBERS[name]
    args = dict(given)
    if "bench" in inspect.signature(f).parameters:
        args["bench"] = bench
    value = f(**args)
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} gave {value}")
    return value


# --- claims: name -> a test of the sim, true or false -------------------------------------------

def _close(a, b, rel=1e-9) -> bool:
    return math.isclose(float(a), float(b), rel_tol=rel)


def _worked() -> dict:
    return worked_example()


CLAIMS = {
    # One token at a time (the roofline, batch 1)
    "reading_outlasts_arithmetic": lambda b, g: rl.step_seconds(GPU, MODEL) > rl.arithmetic_seconds(GPU, MODEL),
    "arithmetic_outlasts_reading": lambda b, g: rl.arithmetic_seconds(GPU, MODEL) > rl.step_seconds(GPU, MODEL),
    "weights_do_not_fit": lambda b, g: MODEL.weight_bytes > GPU.memory,
    # Several sequences at once
    "cache_grows_with_batch": lambda b, g: rl.bytes_per_step(MODEL, 64, CONTEXT) - rl.bytes_per_step(MODEL, 32, CONTEXT)
        == rl.kv_cache_bytes(MODEL, 32, CONTEXT) > 0,
    "each_sequence_reads_the_weights": lambda b, g: _added_bytes(g) == (g["larger"] - g["smaller"]) * MODEL.streamed_bytes,
    "cache_grows_with_batch": lambda b, g: _added_bytes(g) == rl.kv_cache_bytes(MODEL, g["larger"] - g["smaller"], CONTEXT) > 0,
    "batch_costs_no_extra_reading": lambda b, g: _added_bytes(g) == 0,
    # Why the output keeps the target's distribution (chapter 6's worked example, exact)
    "residual_gives_p": lambda b, g: _worked()["total"] == _worked()["p"],
    "redraw_from_p_gives_p": lambda b, g: _worked()["wrong"] == _worked()["p"],
    "exact_needs_a_close_draft": lambda b, g: not (_worked()["total"] == _worked()["p"] and _worked()["beta"] < 1),
    "kept_guesses_alone_give_p": lambda b, g: _worked()["kept"] == _worked()["p"],
    # The acceptance rate: what temperature does (the bench's readouts, bigram draft)
    "greedy_raises_alpha": lambda b, g: _alpha_at(b, 0) > _alpha_at(b, 1),
    "temperature_leaves_alpha": lambda b, g: _close(_alpha_at(b, 0), _alpha_at(b, 1), 1e-3),
    "greedy_lowers_alpha": lambda b, g: _alpha_at(b, 0) < _alpha_at(b, 1),
    # How much faster
    "speedup_falls_past_best_gamma": lambda b, g: stats.speedup(g["alpha"], MAX_GAMMA, g["c"])
        < stats.speedup(g["alpha"], best_gamma(g["alpha"], g["c"]), g["c"]),
    "more_gamma_always_faster": lambda b, g: all(stats.speedup(g["alpha"], n + 1, g["c"]) > stats.speedup(g["alpha"], n, g["c"])
                                                 for n in range(1, MAX_GAMMA)),
    "speedup_ignores_draft_cost": lambda b, g: all(stats.speedup(g["alpha"], n, g["c"]) == stats.speedup(g["alpha"], n, 0.0)
                                                   for n in range(1, MAX_GAMMA + 1)),
    # It spends idle arithmetic
    "speculation_does_more_arithmetic": lambda b, g: all(stats.arithmetic_factor(a / 10, n, 0.0) > 1
                                                          for a in range(10) for n in range(1, MAX_GAMMA + 1)),
    "speculation_saves_arithmetic": lambda b, g: any(stats.arithmetic_factor(a / 10, n, 0.0) < 1
                                                      for a in range(10) for n in range(1, MAX_GAMMA + 1)),
    "plain_decoding_leaves_mill_idle": lambda b, g: rl.busy_fraction(GPU, MODEL, 1) < 0.05,
    "plain_decoding_keeps_mill_busy": lambda b, g: rl.busy_fraction(GPU, MODEL, 1) > 0.5,
    # No second model: a draft that always agrees
    "agreeing_draft_tends_to_one_over_c": lambda b, g: stats.speedup(1.0, FAR, g["c"]) < 1 / g["c"]
        and _close(stats.speedup(1.0, FAR, g["c"]), 1 / g["c"], 1e-3),
    "agreeing_draft_grows_without_bound": lambda b, g: stats.speedup(1.0, FAR, g["c"]) > 1 / g["c"],
    "agreeing_draft_best_gamma_is_small": lambda b, g: best_gamma(1.0, g["c"]) < MAX_GAMMA,
    # In today's serving engines: what the draft acceptance rate counts
    "rate_counts_untested_guesses": lambda b, g: b.readouts()["bigram"]["draft_acceptance_rate"] < b.readouts()["bigram"]["alpha"],
    "rate_is_alpha": lambda b, g: _close(b.readouts()["bigram"]["draft_acceptance_rate"], b.readouts()["bigram"]["alpha"], 1e-3),
    "rate_counts_the_bonus": lambda b, g: b.readouts()["bigram"]["draft_acceptance_rate"] > b.readouts()["bigram"]["alpha"],
    # Drafts from the text itself, and a draft that remembers (the bench's own readouts, sitebuild.figures.measured)
    "sampled_text_leaves_the_refrain": lambda b, g: _free(b, "lookup", "echo", 1)["coverage"] < 0.2,
    "lookup_costs_a_model_pass": lambda b, g: _free(b, "lookup", "echo", 1)["c"] > 0,
    "greedy_refrain_gains_nothing": lambda b, g: _free(b, "lookup", "echo", 0)["tokens_per_pass_counted"] < 1.1,
    "second_request_finds_the_first": lambda b, g: _second_gains(b, "suffix"),
    "lookup_learns_across_requests": lambda b, g: _second_gains(b, "lookup"),
    "suffix_gains_when_sampled": lambda b, g: _free(b, "suffix", "fresh", 1)["tokens_per_pass_counted"] > 2,
}


def _added_bytes(g: dict) -> float:
    """What a step at the larger batch reads beyond one at the smaller, at the bench's context."""
    return rl.bytes_per_step(MODEL, g["larger"], CONTEXT) - rl.bytes_per_step(MODEL, g["smaller"], CONTEXT)


def _alpha_at(bench: BenchReadouts, temperature) -> float:
    from ..figures.measured import alpha_temperature

    curve = alpha_temperature(bench.language)
    return curve["drafts"]["bigram"][curve["temperatures"].index(temperature)]


def _free(bench: BenchReadouts, draft: str, prompt: str, temperature) -> dict:
    from ..figures.measured import free_draft_readouts

    return free_draft_readouts(bench.language, draft, prompt, temperature)


def _second_gains(bench: BenchReadouts, draft: str) -> bool:
    """A session's second request writes more a pass than its first (greedy, the fresh prompt)."""
    from ..figures.measured import first_and_second_request

    first, second = first_and_second_request(bench.language, draft)
    return second > first


def claim(name: str, bench: BenchReadouts, given: dict) -> bool:
    """Whether the claim holds, for the values its question gives (KeyError names one it lacks)."""
    return bool(CLAIMS[name](bench, given))
