"""The "topk" rule (sim.candidates): the draft's k likeliest tokens, chosen rather than drawn, each
checked as a point mass (kept with the probability p gives it after the refusals before it, then
struck out of p), and the chances alpha_k of the three exact rules (sim.alpha).

Exact part (fractions.Fraction, enumerated through the sim's own Verifier): the written token
follows p for k = 1..4 on random rational pairs and on planted ones (ties in q at the k-th place,
zeros in p on the candidates, q with fewer than k tokens, p on the candidates alone, p a point
mass); a depth-2 tree of topk levels follows the target (test_tree_exact). The named wrong
variant, the same chosen candidates checked by SpecInfer's rule as if they had been drawn from q
(r <= p_j(x)/q(x)), is not exact, by an asserted amount. alpha_k of "topk" is the mass p puts on
the candidates; "recursive"'s exact alpha_k (sim.alpha.recursive_alpha) is the enumerated chance.

Sampling part (tests/helpers/statistical.py: fixed seeds, false alarm 1e-7): 10,000 next-token
draws with k = 3 on both languages' models, at temperature 1 and at 0.7 with top-p 0.9, fit p;
the wrong variant at the same size is rejected with computed power > 0.999999, and its own draws
fail. The recursive estimate's mean over 20,000 seeded paths lies within 0.02 of the exact value
(Hoeffding: odds 2 exp(-16) < 1e-6), and a wrong estimate (refused tokens drawn from q_j itself)
is 0.02 or more away, so it would fail.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction as F

import pytest
from helpers.checked_draws import exact_check
from helpers.exact_laws import PLANTED, cases, check_level, dense, position_law
from helpers.statistical import check_fit_and_power, histogram

from sim.alpha import candidate_alpha, recursive_alpha, recursive_alpha_estimate, rule_alpha, topk_alpha
from sim.candidates import WithoutTokens, chosen_law, likeliest_candidates, residual
from sim.tempering import tempered
from sim.tree import position_draws

DRAWS = 10_000
PREFIX = {"en": "said the", "zh": "慢慢"}

# (p, q) planted for the chosen candidates: ties in q across the k-th place (the lower id goes
# first), zeros in p on the draft's favourites, a draft with fewer tokens than k, a target that
# lives on the candidates alone (no fallback), a point-mass target, q = p.
TOPK_PLANTED = [
    ([F(1, 2), F(1, 4), F(1, 8), F(1, 8)], [F(1, 3), F(1, 3), F(1, 3), F(0)]),
    ([F(0), F(0), F(1, 2), F(1, 2)], [F(2, 5), F(2, 5), F(1, 10), F(1, 10)]),
    ([F(1, 10), F(2, 10), F(3, 10), F(4, 10)], [F(0), F(1), F(0), F(0)]),
    ([F(3, 5), F(2, 5), F(0), F(0)], [F(1, 2), F(1, 2), F(0), F(0)]),
    ([F(0), F(0), F(1), F(0)], [F(1, 4)] * 4),
    ([F(1, 6), F(1, 3), F(1, 2)], [F(1, 6), F(1, 3), F(1, 2)]),
]


def all_cases(size: int, seed: int):
    yield from (pq for pq in TOPK_PLANTED if len(pq[0]) == size)
    yield from cases(size, seed)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize("size", [3, 4])
def test_chosen_candidates_write_p_exactly(size, k):
    for p, q in all_cases(size, seed=300 + 10 * size + k):
        assert position_law(p, q, k, "topk") == p, (p, q, k)


def test_ties_in_q_go_to_the_lower_id_and_zeros_in_q_are_not_offered():
    p, q = TOPK_PLANTED[0]
    assert likeliest_candidates(dense(q), 2) == [0, 1]
    assert likeliest_candidates(dense(q), 4) == [0, 1, 2]  # token 3 has q = 0: never offered
    assert likeliest_candidates(dense(TOPK_PLANTED[2][1]), 3) == [1]


def test_each_candidate_is_kept_with_its_own_p():
    """Kept at place j with probability p(x_j), whatever q: the law of the candidate kept."""
    for p, q in TOPK_PLANTED[:4]:
        xs = likeliest_candidates(dense(q), 3)
        kept = {}
        for x, prob, was_kept in check_level(dense(p), dense(q), 3, "topk"):
            if was_kept:
                kept[x] = kept.get(x, 0) + prob
        assert kept == {x: p[x] for x in xs if p[x]}


def as_sampled_law(p: list, q: list, k: int) -> list:
    """The wrong variant's law (chosen candidates, SpecInfer's check), in exact arithmetic."""
    return chosen_law(dense(p), dense(q), k, "exact", len(p))


def test_checking_chosen_candidates_as_if_drawn_is_not_exact():
    p, q = [F(1, 5), F(4, 5)], [F(4, 5), F(1, 5)]  # 'Going further''s two tokens
    assert as_sampled_law(p, q, 1) == [F(1, 4), F(3, 4)]  # a kept with p/q = 1/4 instead of 1/5
    assert as_sampled_law(p, q, 2) == [F(1, 4), F(3, 4)]
    assert position_law(p, q, 1, "topk") == position_law(p, q, 2, "topk") == p
    assert chosen_law(dense(p), dense(q), 2, "topk", 2) == p  # the law the figures print, enumerated
    p, q = PLANTED[0]  # p = (1/2, 1/3, 1/6), q = (1/6, 1/3, 1/2): the draft's favourite is p's least
    assert as_sampled_law(p, q, 1) == [F(2, 3), F(0), F(1, 3)]  # token 1 never comes out
    assert position_law(p, q, 1, "topk") == p


@pytest.mark.parametrize("k", [1, 2, 3])
def test_alpha_k_of_each_exact_rule_is_the_chance_some_candidate_is_kept(k):
    for p, q in all_cases(4, seed=40 + k):
        chances = {}
        for rule in ("exact", "recursive", "topk"):
            chances[rule] = sum(prob for _, prob, kept in check_level(dense(p), dense(q), k, rule) if kept)
        assert topk_alpha(dense(p), dense(q), k) == chances["topk"]
        assert sum(p[x] for x in likeliest_candidates(dense(q), k)) == chances["topk"]
        assert recursive_alpha(dense(p), dense(q), k) == chances["recursive"]
        assert candidate_alpha(dense(p), dense(q), k) == chances["exact"]
        assert rule_alpha(dense(p), dense(q), k, "exact") == chances["exact"]
        assert rule_alpha(dense(p), dense(q), k, "topk") == chances["topk"]


def test_rule_alpha_refuses_a_rule_that_is_not_exact():
    p, q = PLANTED[0]
    with pytest.raises(ValueError, match="exact rules"):
        rule_alpha(dense(p), dense(q), 2, "typical")


def naive_estimate(p, q, k: int, rng) -> float:
    """Wrong on purpose: each refused token drawn from q_j itself, not from its law given a refusal."""
    all_refused, p_now, removed = 1.0, p, []
    for j in range(k):
        q_now = WithoutTokens(q, removed) if removed else q
        left = residual(p_now, q_now)
        if left is None:
            return 1.0
        all_refused *= float(left.total)
        if j < k - 1:
            removed.append(q_now.sample(rng))
            p_now = left
    return 1.0 - all_refused


def test_the_recursive_estimate_is_unbiased():
    """20,000 seeded paths; Hoeffding bounds the false alarm at 2 exp(-2 n t^2) < 1e-6 for t = 0.02.
    Power: the naive estimate's exact mean is planted 0.02 or more away from the true value."""
    p = [0.05, 0.05, 0.3, 0.3, 0.3]
    q = [0.4, 0.4, 0.1, 0.05, 0.05]
    dp, dq = dense(p), dense(q)
    exact = float(recursive_alpha(dense([F(str(v)) for v in p]), dense([F(str(v)) for v in q]), 3))
    n, t = 20_000, 0.02
    assert 2 * math.exp(-2 * n * t * t) < 1e-6
    rng = random.Random(41)
    mean = math.fsum(recursive_alpha_estimate(dp, dq, 3, rng) for _ in range(n)) / n
    assert abs(mean - exact) < t, (mean, exact)
    # The naive estimate's mean, enumerated: refused tokens drawn from q_j.
    wrong = 0.0
    for a in range(5):
        for b in range(5):
            if b == a:
                continue
            chance = q[a] * q[b] / (1 - q[a])
            wrong += chance * naive_value(dp, dq, (a, b))
    assert abs(wrong - exact) >= 2 * t, (wrong, exact)
    rng = random.Random(41)
    wrong_mean = math.fsum(naive_estimate(dp, dq, 3, rng) for _ in range(n)) / n
    assert abs(wrong_mean - exact) >= t


def naive_value(p, q, refused: tuple) -> float:
    """The naive estimate along one path of refused tokens."""
    all_refused, p_now, removed = 1.0, p, []
    for j in range(3):
        q_now = WithoutTokens(q, removed) if removed else q
        left = residual(p_now, q_now)
        if left is None:
            return 1.0
        all_refused *= float(left.total)
        if j < 2:
            removed.append(refused[j])
            p_now = left
    return 1.0 - all_refused


# --- sampling on the real models ----------------------------------------------------------------------

def as_sampled_draws(p, q, k: int, n: int, rng) -> list[int]:
    """The wrong variant, drawing: chosen candidates checked by SpecInfer's rule as if drawn from q."""
    chosen = likeliest_candidates(q, k)  # q's alone: the same for every draw
    return [exact_check(p, q, chosen, rng) for _ in range(n)]


def float_as_sampled_law(p, q, k: int, size: int) -> list[float]:
    return chosen_law(p, q, k, "exact", size)


def fit_topk(language, lang: str, temperature, top_p, k: int = 3) -> dict:
    """Draws of "topk" and of the wrong variant; what the test asserts and the report quotes."""
    from helpers.statistical import goodness_of_fit, power
    from sim import stats

    context = language.encode(PREFIX[lang])
    size = len(language.vocab)
    p = tempered(language.target.sparse(context), temperature, top_p)
    q = tempered(language.draft("bigram").sparse(context), temperature, top_p)
    p_dense = [p.prob(w) for w in range(size)]
    draws = position_draws(language.target, language.draft("bigram"), context, random.Random(51), DRAWS, k,
                           rule="topk", temperature=temperature, top_p=top_p)
    observed = histogram((t for t, _ in draws), size)
    wrong_law = float_as_sampled_law(p, q, k, size)
    wrong = histogram(as_sampled_draws(p, q, k, DRAWS, random.Random(51)), size)
    fit, wrong_fit = goodness_of_fit(observed, p_dense), goodness_of_fit(wrong, p_dense)
    return {"observed": observed, "p": p_dense, "wrong_law": wrong_law, "wrong": wrong,
            "kept": {kept for _, kept in draws}, "statistic": fit.statistic, "df": fit.df,
            "critical": fit.critical, "p_value": stats.chi_square_sf(fit.statistic, fit.df),
            "wrong_statistic": wrong_fit.statistic, "wrong_df": wrong_fit.df,
            "power": power(DRAWS, p_dense, wrong_law)}


@pytest.mark.parametrize("temperature,top_p", [(1, 1), (0.7, 0.9)])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_three_chosen_candidates_follow_p_on_the_real_models(sim_languages, lang, temperature, top_p):
    """10,000 next-token draws with the draft's three likeliest fit p. Wrong variant at the same
    size: the same candidates checked as if drawn from q, rejected with computed power > 0.999999."""
    got = fit_topk(sim_languages[lang], lang, temperature, top_p)
    assert {0, 1, 2, None} <= got["kept"] | {None}  # every place, and the fallback, occur
    strength = check_fit_and_power(got["observed"], got["p"], got["wrong_law"], got["wrong"])
    assert strength > 0.999999
