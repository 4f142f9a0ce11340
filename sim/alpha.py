"""Acceptance with several candidates and a temperature: the numbers the bench will print.

alpha_k, the chance that some of k candidates is kept at a position, under the exact rule
(sim.candidates, i.i.d. candidates): candidate j is rejected with probability
1 - sum min(p_j, q) = the mass of max(0, p_j - q), so

    alpha_k = 1 - prod_{j=1..k} (1 - beta(p_j, q)),   p_1 = p, p_{j+1} = residual of (p_j, q).

With k = 1 this is Leviathan et al.'s beta = sum min(p, q). In greedy mode (temperature 0) the
candidates are the draft's k likeliest tokens, and alpha_k is 1 when they hold the target's
first choice, else 0. alpha_by_temperature averages alpha_k over the positions of one text the
target writes from the bench's prefix (fixed seed), the same positions at every temperature.
"""

from __future__ import annotations

import math
import random

from .candidates import residual, top_tokens
from .stats import default_prefix
from .tempering import TEMPERATURES, check_sampling, tempered

ALPHA_SEED = 2024
ALPHA_POSITIONS = 400


def candidate_alpha(p, q, k: int):
    """alpha_k at one position (floats, or Fractions for Weights of Fractions)."""
    if type(k) is not int or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    all_rejected = 1
    current = p
    for _ in range(k):
        left = residual(current, q)
        if left is None:  # p_j = q: the next candidate is kept for sure
            return 1 - 0 * all_rejected
        all_rejected = all_rejected * left.total  # the unnormalised mass: 1 - beta(p_j, q)
        current = left
    return 1 - all_rejected


def greedy_alpha(p, q, k: int) -> float:
    return 1.0 if p.argmax() in top_tokens(q, k) else 0.0


def text_contexts(language, positions: int = ALPHA_POSITIONS, seed: int = ALPHA_SEED) -> list[list[int]]:
    """The contexts of a text the (untempered) target writes from the bench's prefix: the same
    positions for every temperature, so the curve shows what T does and nothing else."""
    target = language.target
    keep = target.order - 1
    context = default_prefix(language)[-keep:] if keep else []
    rng = random.Random(seed)
    contexts = []
    for _ in range(positions):
        contexts.append(context)
        context = (context + [target.sparse(context).sample(rng)])[-keep:] if keep else []
    return contexts


def alpha_along_text(language, draft_name: str, temperature, top_p=1.0, k: int = 1,
                     contexts: list | None = None) -> float:
    """Mean alpha_k over the contexts (default: text_contexts(language))."""
    check_sampling(temperature, top_p)
    target, draft = language.target, language.draft(draft_name)
    values = []
    for context in text_contexts(language) if contexts is None else contexts:
        p, q = target.sparse(context), draft.sparse(context)
        if temperature == 0:
            values.append(greedy_alpha(p, q, k))
        else:
            values.append(float(candidate_alpha(tempered(p, temperature, top_p), tempered(q, temperature, top_p), k)))
    return math.fsum(values) / len(values)


def alpha_by_temperature(language, draft_name: str, *, top_p=1.0, k: int = 1, temperatures=TEMPERATURES,
                         positions: int = ALPHA_POSITIONS) -> dict:
    """{temperature: alpha_k} for a draft over one set of contexts: the curve the bench will plot."""
    contexts = text_contexts(language, positions)
    return {t: alpha_along_text(language, draft_name, t, top_p, k, contexts) for t in temperatures}
