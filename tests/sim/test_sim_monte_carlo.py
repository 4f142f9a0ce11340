"""The samplers themselves, by chi-square tests at false-alarm odds 1e-6 with fixed seeds.

Each goodness-of-fit test that should pass is paired with one that must fail (the broken
rules), so the test is shown to have the power to notice a wrong distribution.
"""

from __future__ import annotations

import random

import pytest

from sim import stats
from sim.speculative import (
    first_token, first_tokens, residual_of, sample_target, speculative_step,
)

FALSE_ALARM = 1e-6
DRAWS = 200_000
TUBE_CONTEXTS = {"en": "said the", "zh": "慢慢"}


def goodness_of_fit(observed: list[int], probabilities: list[float]) -> tuple[float, float]:
    """(Pearson statistic, critical value at odds FALSE_ALARM), rare categories pooled."""
    statistic, df = stats.chi_square_statistic(observed, probabilities)
    return statistic, stats.chi_square_critical(df, FALSE_ALARM)


def histogram(tokens, size: int) -> list[int]:
    counts = [0] * size
    for t in tokens:
        counts[t] += 1
    return counts


# --- (c) the next token on the real models -----------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_speculative_first_token_follows_p(sim_languages, lang):
    language = sim_languages[lang]
    context = language.encode(TUBE_CONTEXTS[lang])
    p = language.target.distribution(context)
    draws = first_tokens(language.target, language.draft("bigram"), context, random.Random(11), DRAWS)
    kept = sum(1 for _, k in draws if k)
    assert 0 < kept < DRAWS  # both kinds of token occur
    statistic, critical = goodness_of_fit(histogram((t for t, _ in draws), len(p)), p)
    assert statistic < critical


@pytest.mark.parametrize("rule", ["replace_from_p", "typical"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_broken_rules_are_caught(sim_languages, lang, rule):
    """Same test, same size: the inexact rules must be rejected."""
    language = sim_languages[lang]
    context = language.encode(TUBE_CONTEXTS[lang])
    p = language.target.distribution(context)
    draws = first_tokens(language.target, language.draft("bigram"), context, random.Random(11), DRAWS,
                         rule=rule)
    statistic, critical = goodness_of_fit(histogram((t for t, _ in draws), len(p)), p)
    assert statistic > critical


def test_first_token_is_one_draw_of_first_tokens(en):
    context = en.encode("said the")
    a, b = random.Random(5), random.Random(5)
    singles = [first_token(en.target, en.draft("bigram"), context, a) for _ in range(300)]
    assert singles == first_tokens(en.target, en.draft("bigram"), context, b, 300)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_full_step_first_written_token_follows_p(sim_languages, lang):
    language = sim_languages[lang]
    context = language.encode(TUBE_CONTEXTS[lang])
    p = language.target.distribution(context)
    rng = random.Random(12)
    firsts = [speculative_step(language.target, language.draft("bigram"), context, 4, rng).written[0]
              for _ in range(20_000)]
    statistic, critical = goodness_of_fit(histogram(firsts, len(p)), p)
    assert statistic < critical


# --- the pieces: sampling from p, and from the residual --------------------------------------------

@pytest.mark.parametrize("lang,text", [("en", "said the"), ("en", "the the"), ("en", ""), ("zh", "慢慢")])
def test_sampling_from_the_target_follows_p(sim_languages, lang, text):
    language = sim_languages[lang]
    context = language.encode(text)
    p = language.target.distribution(context)
    rng = random.Random(13)
    tokens = [sample_target(language.target, context, rng) for _ in range(DRAWS // 2)]
    statistic, critical = goodness_of_fit(histogram(tokens, len(p)), p)
    assert statistic < critical
    # ...and the same draws fail against the unigram's distribution (the test has power).
    if text:
        q = language.draft("unigram").distribution(context)
        assert goodness_of_fit(histogram(tokens, len(q)), q)[0] > critical


@pytest.mark.parametrize("lang,text,draft", [("en", "said the", "bigram"), ("en", "said the", "unigram"),
                                             ("zh", "慢慢", "unigram"), ("en", "the the", "unigram")])
def test_sampling_from_the_residual_follows_it(sim_languages, lang, text, draft):
    language = sim_languages[lang]
    context = language.encode(text)
    p_dense = language.target.distribution(context)
    q_dense = language.draft(draft).distribution(context)
    residual_dense = [max(0.0, a - b) for a, b in zip(p_dense, q_dense)]
    total = sum(residual_dense)
    residual_dense = [r / total for r in residual_dense]
    residual = residual_of(language.target.sparse(context), language.draft(draft).sparse(context))
    rng = random.Random(14)
    tokens = [residual.sample(rng) for _ in range(DRAWS // 2)]
    statistic, critical = goodness_of_fit(histogram(tokens, len(p_dense)), residual_dense)
    assert statistic < critical
    assert goodness_of_fit(histogram(tokens, len(p_dense)), p_dense)[0] > critical
