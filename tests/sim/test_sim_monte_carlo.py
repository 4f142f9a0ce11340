"""The samplers themselves, by goodness-of-fit tests with fixed seeds (tests/helpers/statistical.py).

Each test that should pass is paired with a named wrong sampler at the same size, whose
rejection has a computed power of at least 0.999 (stated per test) and is seen to happen.
"""

from __future__ import annotations

import random

import pytest
from helpers.statistical import check_fit_and_power, histogram

from sim.bench.tubes import spec_distribution
from sim.speculative import first_token, first_tokens, residual_of, sample_target, speculative_step

DRAWS = 200_000
TUBE_CONTEXTS = {"en": "said the", "zh": "慢慢"}


def law_of(language, context, rule):
    """The exact law of the first speculative token under a rule (bench's tube law)."""
    p, q = language.target.sparse(context), language.draft("bigram").sparse(context)
    return spec_distribution(p, q, rule, False)


# --- the next token on the real models -----------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_speculative_first_token_follows_p(sim_languages, lang):
    """200,000 speculative draws of the next token fit p over the whole vocabulary. Wrong
    samplers at the same size: the replace-from-p rule and Medusa's typical acceptance, each
    rejected with computed power > 0.999999."""
    language = sim_languages[lang]
    context = language.encode(TUBE_CONTEXTS[lang])
    p = language.target.distribution(context)
    draws = first_tokens(language.target, language.draft("bigram"), context, random.Random(11), DRAWS)
    kept = sum(1 for _, k in draws if k)
    assert 0 < kept < DRAWS  # both kinds of token occur
    observed = histogram((t for t, _ in draws), len(p))
    for rule in ("replace_from_p", "typical"):
        wrong = first_tokens(language.target, language.draft("bigram"), context, random.Random(11), DRAWS, rule=rule)
        strength = check_fit_and_power(observed, p, law_of(language, context, rule),
                                       histogram((t for t, _ in wrong), len(p)))
        assert strength > 0.999999


def test_first_token_is_one_draw_of_first_tokens(en):
    context = en.encode("said the")
    a, b = random.Random(5), random.Random(5)
    singles = [first_token(en.target, en.draft("bigram"), context, a) for _ in range(300)]
    assert singles == first_tokens(en.target, en.draft("bigram"), context, b, 300)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_full_step_first_written_token_follows_p(sim_languages, lang):
    """The first token written by 20,000 whole gamma = 4 steps fits p. Wrong sampler at the same
    size: whole steps with the replace-from-p rule (whose first token has the law
    min(p, q) + (1 - beta) p), rejected with computed power > 0.999999."""
    language = sim_languages[lang]
    context = language.encode(TUBE_CONTEXTS[lang])
    p = language.target.distribution(context)

    def firsts(rule):
        rng = random.Random(12)
        return histogram((speculative_step(language.target, language.draft("bigram"), context, 4, rng,
                                           rule=rule).written[0] for _ in range(20_000)), len(p))

    strength = check_fit_and_power(firsts("exact"), p, law_of(language, context, "replace_from_p"),
                                   firsts("replace_from_p"))
    assert strength > 0.999999


# --- the pieces: sampling from p, and from the residual --------------------------------------------

@pytest.mark.parametrize("lang,text,wrong_text", [("en", "said the", "the"), ("en", "the the", "alice"),
                                                  ("en", "", "the"), ("zh", "慢慢", "慢")])
def test_sampling_from_the_target_follows_p(sim_languages, lang, text, wrong_text):
    """100,000 draws from the target fit p. Wrong sampler at the same size: the target at a
    shorter or different context (it forgot a token of history), rejected with computed power
    > 0.999999."""
    language = sim_languages[lang]
    context = language.encode(text)
    wrong_context = language.encode(wrong_text)
    p = language.target.distribution(context)
    rng, wrong_rng = random.Random(13), random.Random(13)
    tokens = [sample_target(language.target, context, rng) for _ in range(DRAWS // 2)]
    wrong = [sample_target(language.target, wrong_context, wrong_rng) for _ in range(DRAWS // 2)]
    strength = check_fit_and_power(histogram(tokens, len(p)), p, language.target.distribution(wrong_context),
                                   histogram(wrong, len(p)))
    assert strength > 0.999999


@pytest.mark.parametrize("lang,text,draft", [("en", "said the", "bigram"), ("en", "said the", "unigram"),
                                             ("zh", "慢慢", "unigram"), ("en", "the the", "unigram")])
def test_sampling_from_the_residual_follows_it(sim_languages, lang, text, draft):
    """100,000 draws from the residual max(0, p - q) fit it. Wrong sampler at the same size:
    drawing from p instead (what the replace-from-p rule does), rejected with computed power
    > 0.999999."""
    language = sim_languages[lang]
    context = language.encode(text)
    p_dense = language.target.distribution(context)
    q_dense = language.draft(draft).distribution(context)
    residual_dense = [max(0.0, a - b) for a, b in zip(p_dense, q_dense)]
    total = sum(residual_dense)
    residual_dense = [r / total for r in residual_dense]
    residual = residual_of(language.target.sparse(context), language.draft(draft).sparse(context))
    rng, wrong_rng = random.Random(14), random.Random(14)
    tokens = [residual.sample(rng) for _ in range(DRAWS // 2)]
    wrong = [language.target.sparse(context).sample(wrong_rng) for _ in range(DRAWS // 2)]
    strength = check_fit_and_power(histogram(tokens, len(p_dense)), residual_dense, p_dense,
                                   histogram(wrong, len(p_dense)))
    assert strength > 0.999999
