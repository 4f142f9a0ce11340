"""Exactness of the rule in exact arithmetic (fractions.Fraction), no sampling involved.

(a) On the real models: P(first token written = x) = p(x) for every x in the vocabulary.
(b) On a tiny model: every path of one gamma = 3 step, enumerated; the written tokens
    follow the target's chained distribution.
(d) For context-free models: the number of tokens written per pass has its exact law.
For (b) and (d) the sampler is then checked against the enumerated laws by goodness-of-fit
tests (tests/helpers/statistical.py: fixed seeds, false-alarm odds 1e-7), each paired with a named wrong
sampler at the same size, rejected with a computed power of at least 0.999.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter, defaultdict
from fractions import Fraction

import pytest
from helpers.statistical import check_fit_and_power

from sim import stats
from sim.models import NgramModel
from sim.sparse import Unigram
from sim.speculative import keep_probability, residual_distribution, speculative_step, typical_threshold

DRAFTS = ("bigram", "unigram", "same")


def first_token_law(p: list, q: list) -> list:
    """P(first written = x): guess x kept, or any guess rejected and x drawn from the residual."""
    kept = [qx * keep_probability(px, qx) for px, qx in zip(p, q)]
    rejected = 1 - stats.beta(p, q)
    residual = residual_distribution(p, q)
    return [k + rejected * r for k, r in zip(kept, residual)]


# --- (a) the real models ----------------------------------------------------------------------

EXACT_CONTEXTS = {
    "en": ["", "the", "said the", "alice was", "the the", "queen ,"],
    "zh": ["", "我", "慢慢", "的了", "孔乙己"],
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_first_token_follows_p_exactly(sim_languages, lang):
    language = sim_languages[lang]
    target = language.target
    for text in EXACT_CONTEXTS[lang]:
        context = language.encode(text)
        p = target.distribution(context, exact=True)
        assert sum(p) == 1
        for name in DRAFTS:
            q = language.draft(name).distribution(context, exact=True)
            assert sum(q) == 1
            law = first_token_law(p, q)
            assert law == p, f"{lang} {text!r} draft {name}"
            # The rejection chance 1 - beta is exactly the residual's unnormalised mass.
            assert 1 - stats.beta(p, q) == sum(max(0, a - b) for a, b in zip(p, q))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_floats_are_the_exact_values_rounded(sim_languages, lang):
    """The float models are the Fraction models to within rounding (1e-14 relative)."""
    language = sim_languages[lang]
    for text in EXACT_CONTEXTS[lang]:
        context = language.encode(text)
        for model in (language.target, *language.drafts.values()):
            exact = model.distribution(context, exact=True)
            floats = model.distribution(context)
            for e, f in zip(exact, floats):
                assert abs(Fraction(f) - e) <= Fraction(1, 10**14) * e


def test_the_broken_rule_is_not_exact_in_fractions(en):
    """Drawing the replacement from p instead of the residual changes the law (the check can fail)."""
    context = en.encode("said the")
    p = en.target.distribution(context, exact=True)
    q = en.draft("bigram").distribution(context, exact=True)
    kept = [qx * keep_probability(px, qx) for px, qx in zip(p, q)]
    rejected = 1 - stats.beta(p, q)
    broken = [k + rejected * px for k, px in zip(kept, p)]
    assert broken != p
    assert sum(broken) == 1


# --- (b) every path of one step on a tiny model --------------------------------------------------

class ExactDistributions:
    """model.distribution(context, exact=True), cached per context."""

    def __init__(self, model):
        self.model = model
        self.cache = {}

    def __call__(self, context: tuple) -> list:
        if context not in self.cache:
            self.cache[context] = self.model.distribution(list(context), exact=True)
        return self.cache[context]


def step_law(target, draft, context: tuple, gamma: int, from_p: bool = False) -> dict[tuple, Fraction]:
    """Probability of each written sequence after one speculative step, path by path.

    from_p: the law of the broken rule that draws a replacement from p, not from the residual."""
    p_at, q_at = ExactDistributions(target), ExactDistributions(draft)
    vocab = range(target.vocab_size)
    law: dict[tuple, Fraction] = defaultdict(Fraction)
    for guesses in itertools.product(vocab, repeat=gamma):
        weight = Fraction(1)  # the draft proposes all guesses first
        for i, x in enumerate(guesses):
            weight *= q_at(context + guesses[:i])[x]
        if weight == 0:
            continue
        for i, x in enumerate(guesses):  # then the target checks them left to right
            here = context + guesses[:i]
            p, q = p_at(here), q_at(here)
            keep = keep_probability(p[x], q[x])
            if keep < 1:
                residual = p if from_p else residual_distribution(p, q)
                for y in vocab:
                    if residual[y]:
                        law[guesses[:i] + (y,)] += weight * (1 - keep) * residual[y]
            weight *= keep
            if weight == 0:
                break
        else:
            p = p_at(context + guesses)
            for y in vocab:
                law[guesses + (y,)] += weight * p[y]
    return dict(law)


def chained(p_at, context: tuple, tokens: tuple) -> Fraction:
    prob = Fraction(1)
    for i, x in enumerate(tokens):
        prob *= p_at(context + tokens[:i])[x]
    return prob


def assert_written_tokens_follow_target(target, law, context, gamma):
    """Complete each written sequence by sampling the target; all prefixes follow the chain.

    P(written, then continued by the target, starts with x1..xk) must equal
    p(x1) p(x2 | x1) ... p(xk | x1..xk-1) for every k <= gamma + 1 and every x1..xk.
    """
    p_at = ExactDistributions(target)
    vocab = range(target.vocab_size)
    assert sum(law.values()) == 1
    assert all(1 <= len(w) <= gamma + 1 for w in law)
    starts_with: dict[tuple, Fraction] = defaultdict(Fraction)
    for written, prob in law.items():
        n = len(written)
        for k in range(1, n + 1):
            starts_with[written[:k]] += prob
        for k in range(n + 1, gamma + 2):  # shorter writes, continued by the target
            for extension in itertools.product(vocab, repeat=k - n):
                starts_with[written + extension] += prob * chained(p_at, context + written, extension)
    for k in range(1, gamma + 2):
        for prefix in itertools.product(vocab, repeat=k):
            assert starts_with.get(prefix, 0) == chained(p_at, context, prefix), (k, prefix)


def skewed_unigram(counts):
    """A context-free model with its own counts over the tiny vocabulary: a draft unlike the target."""
    return NgramModel("skewed", 1, Unigram(counts), [])


@pytest.mark.parametrize("draft_name", ["bigram", "unigram", "same", "skewed"])
@pytest.mark.parametrize("context_text", ["", "a", "b a", "e e"])
def test_every_path_of_a_step_keeps_the_target_law(tiny, draft_name, context_text):
    assert len(tiny.vocab) <= 6
    draft = skewed_unigram([1, 1, 2, 3, 9]) if draft_name == "skewed" else tiny.draft(draft_name)
    context = tuple(tiny.encode(context_text))
    law = step_law(tiny.target, draft, context, gamma=3)
    assert_written_tokens_follow_target(tiny.target, law, context, gamma=3)


def test_the_enumeration_can_fail(tiny):
    """The same check rejects the law of the broken rule (replacement drawn from p)."""
    target, draft = tiny.target, tiny.draft("unigram")
    context = tuple(tiny.encode("b a"))
    p_at, q_at = ExactDistributions(target), ExactDistributions(draft)
    law = defaultdict(Fraction)
    for x in range(target.vocab_size):  # gamma = 1, replacement from p
        p, q = p_at(context), q_at(context)
        keep = keep_probability(p[x], q[x])
        for y in range(target.vocab_size):
            law[(y,)] += q[x] * (1 - keep) * p[y]
        for y in range(target.vocab_size):
            law[(x, y)] += q[x] * keep * p_at(context + (x,))[y]
    with pytest.raises(AssertionError):
        assert_written_tokens_follow_target(target, dict(law), context, gamma=1)


# --- (d) tokens written per pass, context-free models ----------------------------------------------

def tokens_per_pass_law(beta, gamma):
    """P(n = k) = beta^(k-1) (1 - beta) for k <= gamma, beta^gamma for k = gamma + 1."""
    return {k: beta ** (k - 1) * (1 - beta) for k in range(1, gamma + 1)} | {gamma + 1: beta ** gamma}


@pytest.mark.parametrize("gamma", [1, 2, 4])
def test_tokens_per_pass_law_for_context_free_models(gamma):
    target = skewed_unigram([5, 3, 1, 1, 2])
    draft = skewed_unigram([1, 2, 3, 4, 1])
    p = target.distribution([], exact=True)
    beta = stats.beta(p, draft.distribution([], exact=True))
    assert 0 < beta < 1
    law = step_law(target, draft, (), gamma)
    lengths = defaultdict(Fraction)
    for written, prob in law.items():
        lengths[len(written)] += prob
    assert dict(lengths) == tokens_per_pass_law(beta, gamma)
    # And the mean is the paper's (1 - beta^(gamma+1)) / (1 - beta).
    mean = sum(k * v for k, v in lengths.items())
    assert mean == stats.expected_tokens_per_pass(beta, gamma) == (1 - beta ** (gamma + 1)) / (1 - beta)


# --- (b) on the tiny model: the sampler writes what the enumeration says ----------------------------

def test_tiny_step_samples_follow_the_enumerated_law(tiny):
    """30,000 gamma = 3 steps on the tiny model write what the enumeration says, sequence by
    sequence. Wrong sampler at the same size: the replace-from-p rule (its law enumerated the
    same way), rejected with computed power > 0.999999."""
    target, draft, gamma = tiny.target, tiny.draft("bigram"), 3
    context = tiny.encode("b a")
    law = step_law(target, draft, tuple(context), gamma)
    wrong_law = step_law(target, draft, tuple(context), gamma, from_p=True)
    outcomes = sorted(set(law) | set(wrong_law))

    def counts(rule):
        rng = random.Random(15)
        seen = Counter(tuple(speculative_step(target, draft, context, gamma, rng, rule=rule).written)
                       for _ in range(30_000))
        assert set(seen) <= set(outcomes)
        return [seen[o] for o in outcomes]

    strength = check_fit_and_power(counts("exact"), [float(law.get(o, 0)) for o in outcomes],
                                   [float(wrong_law.get(o, 0)) for o in outcomes], counts("replace_from_p"))
    assert strength > 0.999999


# --- (d) tokens per pass, by sampling -------------------------------------------------------------

def test_tokens_per_pass_samples_follow_the_law():
    """The tokens written by 30,000 gamma = 4 steps of context-free models follow the law
    beta^(k-1) (1 - beta). Wrong sampler at the same size: Medusa's typical acceptance, which
    keeps a guess x when p(x) passes its threshold (here every token does, so every guess is
    kept), rejected with computed power > 0.999999."""
    target = NgramModel("t", 1, Unigram([5, 3, 1, 1, 2]), [])
    draft = NgramModel("d", 1, Unigram([1, 2, 3, 4, 1]), [])
    gamma = 4
    p = target.distribution([], exact=True)
    q = draft.distribution([], exact=True)
    law = tokens_per_pass_law(stats.beta(p, q), gamma)
    threshold = typical_threshold(target.sparse([]))
    typical_beta = sum(qx for px, qx in zip(p, q) if px > threshold)
    wrong_law = tokens_per_pass_law(typical_beta, gamma)

    def lengths(rule):
        rng = random.Random(16)
        seen = Counter(speculative_step(target, draft, [], gamma, rng, rule=rule).n_written for _ in range(30_000))
        return [seen[k] for k in sorted(law)]

    strength = check_fit_and_power(lengths("exact"), [float(law[k]) for k in sorted(law)],
                                   [float(wrong_law[k]) for k in sorted(law)], lengths("typical"))
    assert strength > 0.999999
