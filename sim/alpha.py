"""Acceptance with several candidates and a temperature: the numbers the bench will print.

alpha_k, the chance that some of k candidates is kept at a position, under the exact rule
(sim.candidates, i.i.d. candidates): candidate j is rejected with probability
1 - sum min(p_j, q) = the mass of max(0, p_j - q), so

    alpha_k = 1 - prod_{j=1..k} (1 - beta(p_j, q)),   p_1 = p, p_{j+1} = residual of (p_j, q).

With k = 1 this is Leviathan et al.'s beta = sum min(p, q). The other exact rules of
sim.candidates give other chances with the same k (rule_alpha):

    topk       the candidates are q's k likeliest, each kept with the probability p gives it
               after the refusals before it, so alpha_k = p(x_1) + ... + p(x_k): the mass p puts
               on the draft's top k (p(argmax q) at k = 1, where the other two rules give beta);
    recursive  candidate j + 1 is drawn from q without the j refused ones, so the chance the next
               is kept depends on which were refused: alpha_k = 1 - E[prod (1 - beta(p_j, q_j))]
               over the refused tokens' law. Computed exactly by enumeration (recursive_alpha,
               small distributions, Fractions), or estimated without bias by following one path
               (recursive_alpha_estimate): each refused token drawn from its law given a refusal,
               max(0, q_j - p_j) normalised, by drawing candidates from q_j until one is refused.

In greedy mode (temperature 0) the candidates are the draft's k likeliest tokens under every
rule, and alpha_k is 1 when they hold the target's first choice, else 0. alpha_by_temperature
averages alpha_k over the positions of one text the target writes from the bench's prefix (fixed
seed), the same positions at every temperature; alpha_by_rule averages each exact rule's alpha_k
over those same positions.
"""

from __future__ import annotations

import math
import random

from .candidates import EXACT_RULES, WithoutTokens, likeliest_candidates, residual, top_tokens
from .speculative import _exact_or_float_sum as _total
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


def topk_alpha(p, q, k: int):
    """alpha_k of the "topk" rule: the mass p puts on q's k likeliest tokens."""
    if type(k) is not int or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    return _total(p.probs_at(likeliest_candidates(q, k)))


def recursive_alpha(p, q, k: int, removed: tuple = ()):
    """alpha_k of "recursive", exactly: every sequence of refused candidates, weighted by its
    chance (for small distributions; Fractions stay exact). removed: candidates refused so far."""
    if type(k) is not int or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    q_now = WithoutTokens(q, removed) if removed else q
    if removed and not q_now.mass > 0:  # q has no token left to offer: no more candidates
        return 0
    left = residual(p, q_now)  # max(0, p_j - q_j) normalised; its total is 1 - beta(p_j, q_j)
    if left is None:  # p_j = q_j: this candidate is kept for sure
        return 1
    if k == 1:
        return 1 - left.total
    over = residual(q_now, p)  # the refused candidate's law: max(0, q_j - p_j) normalised
    later = 0 * left.total
    for w, chance in over.pairs():
        later += chance * (1 - recursive_alpha(left, q, k - 1, removed + (w,)))
    return 1 - left.total * later


def recursive_alpha_estimate(p, q, k: int, rng):
    """An unbiased estimate of recursive_alpha from one path: the refused candidates drawn from
    their law given a refusal (candidates drawn from q_j and checked, until one is refused)."""
    if type(k) is not int or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    all_refused = 1.0
    p_now, removed = p, []
    for j in range(k):  # the same steps as recursive_alpha, one refused token each
        q_now = WithoutTokens(q, removed) if removed else q
        if removed and not q_now.mass > 0:  # no token left to offer
            break
        left = residual(p_now, q_now)
        if left is None or left.total <= 0.0:
            return 1.0
        all_refused *= left.total
        if j == k - 1 or all_refused < 1e-12:  # later factors move alpha_k by less than this
            break
        while True:  # a candidate from q_j, checked as the rule checks it, until one is refused
            x = q_now.sample(rng)
            if rng.random() > p_now.prob(x) / q_now.prob(x):
                break
        removed.append(x)
        p_now = left
    return 1.0 - all_refused


def rule_alpha(p, q, k: int, rule: str, rng=None):
    """alpha_k at one position under an exact rule of sim.candidates (recursive: the estimate,
    from rng, for k > 1; with one candidate it is beta, as for "exact")."""
    if rule == "exact" or (rule == "recursive" and k == 1):
        return candidate_alpha(p, q, k)
    if rule == "topk":
        return topk_alpha(p, q, k)
    if rule == "recursive":
        return recursive_alpha_estimate(p, q, k, rng)
    raise ValueError(f"alpha_k is defined here for the exact rules {list(EXACT_RULES)}, not {rule!r}")


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


def alpha_by_rule(language, draft_name: str, temperature, top_p=1.0, k: int = 1,
                  contexts: list | None = None, seed: int = ALPHA_SEED) -> dict:
    """{rule: mean alpha_k} for each exact rule over the same contexts (default:
    text_contexts(language)); "recursive" is estimated from a generator seeded with `seed`.
    Greedy (temperature 0): every rule's candidates are the draft's k likeliest, so all agree."""
    check_sampling(temperature, top_p)
    target, draft = language.target, language.draft(draft_name)
    rng = random.Random(seed)
    values = {rule: [] for rule in EXACT_RULES}
    for context in text_contexts(language) if contexts is None else contexts:
        p, q = target.sparse(context), draft.sparse(context)
        if temperature == 0:
            for rule in EXACT_RULES:
                values[rule].append(greedy_alpha(p, q, k))
            continue
        p, q = tempered(p, temperature, top_p), tempered(q, temperature, top_p)
        for rule in EXACT_RULES:
            values[rule].append(float(rule_alpha(p, q, k, rule, rng)))
    return {rule: math.fsum(v) / len(v) for rule, v in values.items()}


def alpha_by_temperature(language, draft_name: str, *, top_p=1.0, k: int = 1, temperatures=TEMPERATURES,
                         positions: int = ALPHA_POSITIONS) -> dict:
    """{temperature: alpha_k} for a draft over one set of contexts: the curve the bench will plot."""
    contexts = text_contexts(language, positions)
    return {t: alpha_along_text(language, draft_name, t, top_p, k, contexts) for t in temperatures}
