"""Temperature and top-p applied to both models before the rule (sim.tempering), and alpha against T.

Exact part: tempering at T = 1 and T = 0.5 (1/T whole) and every top-p cut is exact in Fractions,
so the rule is enumerated on the tempered p and q themselves (sim.candidates' Verifier, as in
test_tree_exact): k = 1..3 candidates write the tempered target exactly. Tempering only the
target is exact too (the draft's settings only move alpha, as chapter 20 says); tempering only
the draft is the named wrong sampler: it writes the untempered p.
Sampling part: draws on the real models fit the tempered target (chi-square, false alarm 1e-7),
the wrong sampler rejected at the same size with computed power > 0.999999.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
from helpers.checked_draws import exact_check
from helpers.statistical import check_fit_and_power, histogram
from helpers.exact_laws import cases, dense, position_law

from sim import stats
from sim.alpha import alpha_along_text, alpha_by_temperature, candidate_alpha, text_contexts
from sim.candidates import draw_candidates
from sim.tempering import TEMPERATURES, TOP_PS, check_sampling, temper_values, tempered
from sim.tree import position_draws

EXACT_SETTINGS = [(t, top_p) for t in (1.0, 0.5) for top_p in TOP_PS if (t, top_p) != (1.0, 1.0)]


def temper_exact(p: list, temperature, top_p) -> list[Fraction]:
    return temper_values(range(len(p)), p, temperature, top_p).dense(len(p))


def test_tempering_by_hand():
    p = [Fraction(1, 2), Fraction(1, 4), Fraction(1, 8), Fraction(1, 8)]
    assert temper_exact(p, 0.5, 1.0) == [Fraction(16, 22), Fraction(4, 22), Fraction(1, 22), Fraction(1, 22)]
    assert temper_exact(p, 1.0, 0.9) == p  # 1/2 + 1/4 + 1/8 = 7/8 < 0.9: the nucleus needs all four
    p = [Fraction(1, 2), Fraction(1, 4), Fraction(3, 20), Fraction(1, 10)]
    assert temper_exact(p, 1.0, 0.9) == [Fraction(5, 9), Fraction(5, 18), Fraction(1, 6), 0]  # mass 9/10
    assert temper_exact(p, 0.5, 0.9) == [Fraction(4, 5), Fraction(1, 5), 0, 0]  # squared: 125/138 in two


def test_top_p_ties_go_to_the_lower_id():
    p = [Fraction(1, 4)] * 4
    assert temper_exact(p, 1.0, 0.9) == p
    assert temper_exact([Fraction(1, 10)] * 10, 1.0, 0.9) == [Fraction(1, 9)] * 9 + [0]


def test_float_tempering_matches_a_softmax(en):
    """tempered() on a real chain equals softmax(log p / T) computed independently (1e-12 relative)."""
    context = en.encode("said the")
    dist = en.target.sparse(context)
    p = dist.dense()
    for t in (0.5, 0.7, 1.3):
        logits = [math.log(v) / t for v in p]
        top = max(logits)
        e = [math.exp(x - top) for x in logits]
        total = math.fsum(e)
        got = tempered(dist, t, 1.0).dense(len(p))
        assert all(abs(g - x / total) <= 1e-12 * (x / total) for g, x in zip(got, e))
        assert tempered(dist, t, 1.0) is tempered(dist, t, 1.0)  # cached
    assert tempered(dist, 1.0, 1.0) is dist  # neutral settings: the chain itself


def test_exact_tempering_is_the_float_one(en):
    context = en.encode("the")
    exact = en.target.distribution(context, exact=True)
    floats = tempered(en.target.sparse(context), 0.5, 0.9).dense(len(exact))
    reference = temper_exact(exact, 0.5, 0.9)
    assert [f > 0 for f in floats] == [r > 0 for r in reference]
    assert all(abs(f - float(r)) <= 1e-12 * float(r) for f, r in zip(floats, reference) if r)


@pytest.mark.parametrize("temperature,top_p", EXACT_SETTINGS)
@pytest.mark.parametrize("k", [1, 2, 3])
def test_the_rule_on_tempered_models_writes_the_tempered_target(temperature, top_p, k):
    for p, q in itertools.islice(cases(4, seed=int(temperature * 10) + k), 20):  # powers grow big
        p_t, q_t = temper_exact(p, temperature, top_p), temper_exact(q, temperature, top_p)
        for rule in ("exact", "recursive"):
            assert position_law(p_t, q_t, k, rule) == p_t
        assert position_law(p_t, q, k, "exact") == p_t  # tempering the target only: still exact
        if p_t != p:  # tempering the draft only: the untempered target comes out
            assert position_law(p, q_t, k, "exact") == p != p_t


def test_settings_outside_the_fixed_sets_are_refused():
    for bad in ((0.8, 1.0), (1.0, 0.5), (-1, 1.0)):
        with pytest.raises(ValueError, match="must be one of"):
            check_sampling(*bad)
    with pytest.raises(ValueError, match="whole number"):
        temper_exact([Fraction(1, 2)] * 2, 0.7, 1.0)


# --- sampling on the real models ----------------------------------------------------------------

def temper_draft_only(target, draft, context, rng, n, k, temperature, top_p):
    """The named wrong sampler: candidates from the tempered draft, checked against the raw target."""
    p = target.sparse(context)
    q = tempered(draft.sparse(context), temperature, top_p)
    return [exact_check(p, q, draw_candidates(q, k, rng, "exact"), rng) for _ in range(n)]


@pytest.mark.parametrize("lang,text", [("en", "said the"), ("zh", "慢慢")])
@pytest.mark.parametrize("temperature,top_p", [(0.7, 0.9), (1.3, 1.0)])
def test_draws_follow_the_tempered_target(sim_languages, lang, text, temperature, top_p):
    """10,000 next-token draws with k = 2 at (T, top-p) fit the tempered target, and never leave
    its nucleus. Wrong sampler at the same size: tempering the draft only, rejected with
    computed power > 0.999999."""
    language = sim_languages[lang]
    target, draft = language.target, language.draft("bigram")
    context = language.encode(text)
    size = len(language.vocab)
    p_t = tempered(target.sparse(context), temperature, top_p).dense(size)
    draws = position_draws(target, draft, context, random.Random(41), 10_000, 2, temperature=temperature,
                           top_p=top_p)
    observed = histogram((t for t, _ in draws), size)
    assert all(p_t[w] > 0 for w, c in enumerate(observed) if c)
    wrong = temper_draft_only(target, draft, context, random.Random(41), 10_000, 2, temperature, top_p)
    strength = check_fit_and_power(observed, p_t, target.distribution(context), histogram(wrong, size))
    assert strength > 0.999999


def test_greedy_draws_are_the_targets_choice(en):
    context = en.encode("said the")
    best = en.target.sparse(context).argmax()
    draws = position_draws(en.target, en.draft("unigram"), context, random.Random(0), 50, 3, temperature=0.0)
    assert {t for t, _ in draws} == {best}


# --- alpha against T ------------------------------------------------------------------------------

def test_alpha_at_t1_is_leviathans_beta(en):
    """k = 1, T = 1: the mean of beta = sum min(p, q) over the same contexts, exactly."""
    contexts = text_contexts(en, 60)
    betas = [stats.beta(en.target.sparse(c), en.draft("bigram").sparse(c)) for c in contexts]
    assert alpha_along_text(en, "bigram", 1.0, contexts=contexts) == math.fsum(betas) / len(betas)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_alpha_grows_with_candidates(sim_languages, lang):
    """At every T, more candidates keep more: alpha_1 < alpha_2 < alpha_3 (T = 0: <=, the draft's top
    choices either hold the target's or not), all in [0, 1]; greedy alpha is the share of contexts
    where the target's choice is among the draft's k likeliest."""
    language = sim_languages[lang]
    curves = [alpha_by_temperature(language, "bigram", k=k, positions=40) for k in (1, 2, 3)]
    for t in TEMPERATURES:
        values = [c[t] for c in curves]
        assert 0 <= values[0] and values[-1] <= 1
        assert values == sorted(values) and (t == 0 or len(set(values)) == 3), (t, values)
    contexts = text_contexts(language, 40)
    agree = sum(language.target.sparse(c).argmax() == language.draft("bigram").sparse(c).argmax() for c in contexts)
    assert curves[0][0.0] == agree / 40


def test_candidate_alpha_on_tempered_fractions():
    p, q = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)], [Fraction(1, 6), Fraction(1, 3), Fraction(1, 2)]
    p_t, q_t = temper_exact(p, 0.5, 1.0), temper_exact(q, 0.5, 1.0)
    beta = sum(min(a, b) for a, b in zip(p_t, q_t))
    assert candidate_alpha(dense(p_t), dense(q_t), 1) == beta


@pytest.mark.parametrize("lang,texts", [("en", ["said the", "queen ,"]), ("zh", ["慢慢"])])
def test_sparse_tempering_is_the_dense_one(sim_languages, lang, texts):
    """The tempered chain (support + a P1^(1/T) tail), its nucleus and its residuals against the
    tempered draft equal the same things computed over the whole vocabulary (1e-12 relative)."""
    from sim.candidates import residual

    language = sim_languages[lang]
    size = len(language.vocab)

    def close(a, b):
        assert [x > 0 for x in a] == [y > 0 for y in b]
        assert all(abs(x - y) <= 1e-12 * y for x, y in zip(a, b) if y)

    for text in texts:
        context = language.encode(text)
        for t in TEMPERATURES[1:]:
            for top_p in TOP_PS if t != 1 else TOP_PS[:-1]:  # (1, 1) is the chain itself
                dists = []
                for model in (language.target, language.draft("bigram")):
                    chain = model.sparse(context)
                    got = tempered(chain, t, top_p)
                    close(got.dense(size), temper_values(range(size), chain.dense(), t, top_p).dense(size))
                    dists.append(got)
                p, q = (d.dense(size) for d in dists)
                rest = [max(0.0, a - b) for a, b in zip(p, q)]
                left = residual(*dists)
                if left is None:  # one token of context: the trigram is the bigram there
                    assert not math.fsum(rest)
                    continue
                total = math.fsum(rest)  # once, not once per token
                close(left.dense(size), [r / total for r in rest])
                second = [max(0.0, a - b) for a, b in zip(left.dense(size), q)]
                total = math.fsum(second)
                close(residual(left, dists[1]).dense(size), [r / total for r in second])


def test_power_is_pow_to_a_few_ulps():
    """sim.tempering.power, made of IEEE arithmetic only (the same bits in every Python), is x ** a
    to within 1e-13 relative over the range the models' probabilities take."""
    from sim.tempering import power

    rng = random.Random(3)
    for _ in range(20_000):
        x = math.exp(-40 * rng.random())
        for t in TEMPERATURES[1:]:
            assert abs(power(x, 1 / t) - x ** (1 / t)) <= 1e-13 * x ** (1 / t)
    assert power(0.25, 2.0) == 0.0625 and power(1.0, 1 / 0.7) == 1.0
