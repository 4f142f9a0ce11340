"""The numbers the page prints about speculative decoding, and the measurement behind them.

Formulas from Leviathan, Kalman, Matias (2023), arXiv:2211.17192:
- beta = sum_x min(p(x), q(x)), the chance one guess is kept (alpha = its expectation);
- expected tokens per target pass (their equation 1, i.i.d. acceptance):
  (1 - alpha^(gamma+1)) / (1 - alpha);
- expected speed-up with draft cost c per target cost (theorem 3.8):
  (1 - alpha^(gamma+1)) / ((1 - alpha)(gamma*c + 1));
- arithmetic spent relative to plain decoding (theorem 3.11):
  (1 - alpha)(gamma*c_hat + gamma + 1) / (1 - alpha^(gamma+1)).
Geometric sums are computed as 1 + alpha + ... + alpha^gamma, which is the same number, has
no 0/0 at alpha = 1, and keeps fractions.Fraction inputs exact.

Also here: the chi-square tail and critical value the test suite uses (no scipy in Pyodide).
"""

from __future__ import annotations

import math
import random

from .speculative import residual_of, speculative_step
from .sparse import ChainDistribution


# --- acceptance and speed ---------------------------------------------------------------------

def beta(p, q):
    """sum_x min(p(x), q(x)) for two dense lists (floats or Fractions) or two ChainDistributions."""
    if isinstance(p, ChainDistribution) and isinstance(q, ChainDistribution):
        return residual_of(p, q).beta
    if len(p) != len(q):
        raise ValueError(f"distributions of different lengths: {len(p)} and {len(q)}")
    mins = [pi if pi < qi else qi for pi, qi in zip(p, q)]
    if mins and isinstance(mins[0], float):
        return math.fsum(mins)
    total = 0
    for m in mins:
        total += m
    return total


def _check_alpha_gamma(alpha, gamma):
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha must lie in [0, 1], got {alpha!r}")
    if type(gamma) is not int or gamma < 0:
        raise ValueError(f"gamma must be a non-negative integer, got {gamma!r}")


def expected_tokens_per_pass(alpha, gamma):
    """(1 - alpha^(gamma+1)) / (1 - alpha); gamma + 1 when alpha = 1."""
    _check_alpha_gamma(alpha, gamma)
    total, term = 0 * alpha + 1, 0 * alpha + 1
    for _ in range(gamma):
        term = term * alpha
        total = total + term
    return total


def speedup(alpha, gamma, c):
    """Expected wall-time speed-up over plain decoding (theorem 3.8); c = draft/target cost."""
    if c < 0:
        raise ValueError(f"cost ratio c must be >= 0, got {c!r}")
    return expected_tokens_per_pass(alpha, gamma) / (gamma * c + 1)


def best_gamma(alpha, c, max_gamma: int = 32) -> int:
    """The gamma in 1..max_gamma with the highest expected speed-up (ties: the smaller)."""
    if type(max_gamma) is not int or max_gamma < 1:
        raise ValueError(f"max_gamma must be a positive integer, got {max_gamma!r}")
    best, best_value = 1, speedup(alpha, 1, c)
    for gamma in range(2, max_gamma + 1):
        value = speedup(alpha, gamma, c)
        if value > best_value:
            best, best_value = gamma, value
    return best


def arithmetic_factor(alpha, gamma, c_hat=0.0):
    """Arithmetic relative to plain decoding (theorem 3.11); c_hat = draft/target arithmetic."""
    if c_hat < 0:
        raise ValueError(f"c_hat must be >= 0, got {c_hat!r}")
    return (gamma * c_hat + gamma + 1) / expected_tokens_per_pass(alpha, gamma)


# --- measuring a draft on the real models --------------------------------------------------------

DEFAULT_PREFIX = {"en": "said the", "zh": "慢慢"}


def default_prefix(language) -> list[int]:
    """The bench's two-token prefix for the language (a reader's text: the one chosen from
    it); empty for models without those tokens."""
    if language.prefixes is not None:
        return list(language.prefixes["bench"])
    try:
        return language.encode(DEFAULT_PREFIX.get(language.lang, ""))
    except ValueError:
        return []


def measure(language, draft_name: str, *, gamma: int = 4, n_tokens: int = 2000, seed: int = 2023,
            prefix_ids=None, greedy: bool = False, rule: str = "exact", c: float = 0.1) -> dict:
    """Write n_tokens (at least) by speculative decoding from a fixed seed and prefix; report.

    prefix_ids defaults to DEFAULT_PREFIX ("said the", "慢慢"). The text runs on from step to
    step; the last pass may overshoot n_tokens by up to gamma tokens ("tokens" says how many).

    alpha is the mean of beta = sum_x min(p(x), q(x)) over the positions where a guess was
    checked while writing the text: every position the target visited and judged a guess at
    (guesses discarded after a rejection are not counted). It is Leviathan et al.'s alpha
    estimated along this text, so the i.i.d. formulas can be compared with what happened.
    acceptance_rate is the share of checked guesses that were kept: in sampling mode it
    estimates the same alpha (noisier); in greedy mode it is the only meaningful one.
    alpha_topk is the mean, over the same positions, of p(the draft's likeliest token): the chance
    one guess is kept had the draft offered its likeliest token instead of a draw (the "topk"
    rule of sim.candidates, with one candidate).
    tokens_per_pass is counted: tokens written / target passes (one pass per step).
    """
    draft = language.draft(draft_name)
    target = language.target
    keep = target.order - 1
    if prefix_ids is None:
        prefix_ids = default_prefix(language)
    context = target.check_context(prefix_ids)[-keep:] if keep else []
    if type(n_tokens) is not int or n_tokens < 1:
        raise ValueError(f"n_tokens must be a positive integer, got {n_tokens!r}")
    rng = random.Random(seed)
    betas: list[float] = []
    tops: list[float] = []
    written = passes = kept = checked = 0
    written_counts = [0] * (gamma + 2)
    sample: list[int] = []
    while written < n_tokens:
        trace = speculative_step(target, draft, context, gamma, rng, greedy=greedy, rule=rule)
        passes += 1
        written += trace.n_written
        written_counts[trace.n_written] += 1
        for guess in trace.guesses:
            if guess.checked:
                checked += 1
                kept += guess.kept
                betas.append(residual_of(guess.target_dist, guess.draft_dist).beta)
                tops.append(guess.target_dist.prob(guess.draft_dist.argmax()))
        if len(sample) < 60:
            sample.extend(trace.written)
        context = (context + trace.written)[-keep:] if keep else []
    alpha = math.fsum(betas) / len(betas)
    return {
        "lang": language.lang,
        "draft": draft.name if draft_name != "same" else "same",
        "gamma": gamma,
        "greedy": greedy,
        "rule": rule,
        "seed": seed,
        "prefix_ids": list(prefix_ids),
        "tokens": written,
        "passes": passes,
        "tokens_per_pass": written / passes,
        "positions_checked": checked,
        "alpha": alpha,
        "alpha_topk": math.fsum(tops) / len(tops),
        "acceptance_rate": kept / checked,
        "written_per_pass_counts": written_counts[1:],  # index k-1: passes writing k tokens
        "expected_tokens_per_pass": expected_tokens_per_pass(alpha, gamma),
        "c": c,
        "speedup": speedup(alpha, gamma, c),
        "best_gamma": best_gamma(alpha, c),
        "sample_text": language.decode(sample[:60]),
    }


# --- chi-square, for the tests (no scipy in the browser or the suite) ------------------------------

def _upper_regularised_gamma(a: float, x: float) -> float:
    """Q(a, x) = Gamma(a, x) / Gamma(a): series for x < a + 1, continued fraction otherwise."""
    if x <= 0:
        return 1.0
    log_prefix = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(10000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-17:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefix))
    # Modified Lentz for the continued fraction of Gamma(a, x).
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return math.exp(log_prefix) * h


def chi_square_sf(statistic: float, df: int) -> float:
    """P(X >= statistic) for X ~ chi-square with df degrees of freedom."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df!r}")
    return _upper_regularised_gamma(df / 2, statistic / 2)


def chi_square_critical(df: int, false_alarm: float) -> float:
    """The x with P(X >= x) = false_alarm (bisection on chi_square_sf, to ~1e-12 relative)."""
    if not 0 < false_alarm < 1:
        raise ValueError(f"false_alarm must lie in (0, 1), got {false_alarm!r}")
    lo, hi = 0.0, max(1.0, 2.0 * df)
    while chi_square_sf(hi, df) > false_alarm:
        lo, hi = hi, hi * 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if chi_square_sf(mid, df) > false_alarm:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * hi:
            break
    return hi


def chi_square_statistic(observed: list[int], probabilities: list[float], min_expected: float = 5.0):
    """Pearson's statistic and degrees of freedom, pooling categories expected < min_expected.

    Pooled categories form one extra category (kept only if its expectation is big enough,
    otherwise merged into the smallest remaining one). Returns (statistic, df).
    """
    n = 0
    for o in observed:
        n += o
    big_o, big_e = [], []
    pool_o, pool_e = 0, 0.0
    for o, p in zip(observed, probabilities):
        e = n * p
        if e >= min_expected:
            big_o.append(o)
            big_e.append(e)
        else:
            pool_o += o
            pool_e += e
    if pool_e >= min_expected or not big_e:
        big_o.append(pool_o)
        big_e.append(pool_e)
    elif pool_e > 0 or pool_o > 0:
        smallest = min(range(len(big_e)), key=big_e.__getitem__)
        big_o[smallest] += pool_o
        big_e[smallest] += pool_e
    statistic = math.fsum((o - e) ** 2 / e for o, e in zip(big_o, big_e) if e > 0)
    return statistic, len(big_o) - 1
