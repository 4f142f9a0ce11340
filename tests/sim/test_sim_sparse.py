"""(e) The fast sparse path against the dense reference, on many contexts of the real models."""

from __future__ import annotations

import math
import random

import pytest

from sim import stats
from sim.models import NgramModel, load_language
from sim.sparse import Residual, Unigram
from sim.speculative import residual_distribution, residual_of, speculative_step, typical_threshold

TOL = 1e-12


def visited_contexts(language, n_steps=150, seed=3):
    """Contexts a run of speculative decoding visits, plus short, unseen and odd ones."""
    rng = random.Random(seed)
    context = language.encode({"en": "said the", "zh": "慢慢"}[language.lang])
    contexts = [[], [0], [len(language.vocab) - 1], [0, 0], context]
    for _ in range(n_steps):
        trace = speculative_step(language.target, language.draft("bigram"), context, 4, rng)
        context = (context + trace.written)[-2:]
        contexts.append(context)
    v = len(language.vocab)
    for _ in range(40):  # random pairs: mostly histories never seen
        contexts.append([rng.randrange(v), rng.randrange(v)])
    contexts.append([rng.randrange(v) for _ in range(7)])  # longer than any order
    return contexts


@pytest.fixture(scope="module", params=["en", "zh"])
def language_and_contexts(request, sim_languages):
    language = sim_languages[request.param]
    return language, visited_contexts(language)


def models_of(language):
    return [language.target, language.draft("bigram"), language.draft("unigram")]


def test_unseen_histories_are_among_the_contexts(language_and_contexts):
    language, contexts = language_and_contexts
    trigram = language.target.levels[1]
    assert sum(trigram.find(c[-2:]) < 0 for c in contexts if len(c) >= 2) >= 20


def test_sparse_probabilities_are_the_dense_ones_bit_for_bit(language_and_contexts):
    language, contexts = language_and_contexts
    for model in models_of(language):
        for context in contexts:
            dense = model.distribution(context)
            chain = model.sparse(context)
            assert len(dense) == len(language.vocab)
            assert abs(math.fsum(dense) - 1) < TOL
            assert chain.dense() == dense
            for w in (0, 1, len(dense) // 2, len(dense) - 1, *chain.support[:5]):
                assert chain.prob(w) == dense[w]


def test_beta_and_residuals_agree_with_dense(language_and_contexts):
    language, contexts = language_and_contexts
    target = language.target
    for name in ("bigram", "unigram", "same"):
        draft = language.draft(name)
        for context in contexts[::3]:
            p, q = target.distribution(context), draft.distribution(context)
            p_chain, q_chain = target.sparse(context), draft.sparse(context)
            dense_residual = residual_distribution(p, q)
            for general in (False, True):
                residual = Residual(p_chain, q_chain, general=general)
                assert abs(residual.beta - stats.beta(p, q)) < TOL
                assert abs(residual.total - (1 - stats.beta(p, q))) < TOL
                pairs = residual.pairs()
                assert [w for w, _ in pairs] == sorted(w for w, _ in pairs)
                sparse_residual = [0.0] * len(p)
                for w, prob in pairs:
                    assert prob > 0
                    sparse_residual[w] = prob
                if residual.total > 0:
                    assert abs(math.fsum(sparse_residual) - 1) < TOL
                for a, b in zip(sparse_residual, dense_residual):
                    assert abs(a - b) < TOL
                for w in (0, 1, *residual.head_ids[:3]):
                    assert abs(residual.prob(w) - dense_residual[w]) < TOL
            assert stats.beta(p_chain, q_chain) == residual_of(p_chain, q_chain).beta


def skip_model(language):
    """Same unigram base, trigram rows straight over it: not a lower-order chain of the target."""
    return NgramModel("skip", 3, language.target.base, [language.target.levels[1]])


def assert_residual_matches_dense(p_model, q_model, context):
    p, q = p_model.distribution(context), q_model.distribution(context)
    residual = Residual(p_model.sparse(context), q_model.sparse(context))
    assert abs(residual.beta - stats.beta(p, q)) < TOL
    dense_residual = residual_distribution(p, q)
    got = dict((w, prob) for w, prob in residual.pairs())
    for w, expected in enumerate(dense_residual):
        assert abs(got.get(w, 0.0) - expected) < TOL
    return residual


def test_residuals_of_drafts_that_are_not_nested(language_and_contexts):
    """The general path: union of supports, plus a unigram tail when the target's is larger."""
    language, contexts = language_and_contexts
    skip = skip_model(language)
    reversed_counts = NgramModel("reversed", 1, Unigram(language.target.base.counts[::-1]), [])
    tails = 0
    for context in contexts[::5]:
        assert_residual_matches_dense(language.target, skip, context)
        tails += assert_residual_matches_dense(skip, language.target, context).tail_mass > 0
        assert_residual_matches_dense(language.target, reversed_counts, context)
    assert tails >= 5


def test_sampling_from_a_residual_with_a_tail(en):
    """100,000 draws from a residual with a unigram tail fit it. Wrong sampler at the same size:
    one that ignores the tail (draws from the union of supports only), rejected with computed
    power > 0.999999."""
    from bisect import bisect_right

    from helpers.statistical import check_fit_and_power, histogram

    skip = skip_model(en)
    context = en.encode("said the")
    residual = Residual(skip.sparse(context), en.target.sparse(context))
    assert residual.tail_mass > 0.5 * residual.total  # most of it outside the union
    dense = residual_distribution(skip.distribution(context), en.target.distribution(context))
    head_only = [0.0] * len(dense)
    for w, weight in zip(residual.head_ids, residual.head_weights):
        head_only[w] = weight / residual.head_mass
    rng, wrong_rng = random.Random(8), random.Random(8)
    tokens = [residual.sample(rng) for _ in range(100_000)]
    wrong = [residual.head_ids[min(bisect_right(residual.head_cumulative, wrong_rng.random() * residual.head_mass),
                                   len(residual.head_ids) - 1)] for _ in range(100_000)]
    strength = check_fit_and_power(histogram(tokens, len(dense)), dense, head_only, histogram(wrong, len(dense)))
    assert strength > 0.999999


def test_entropy_and_argmax_agree_with_dense(language_and_contexts):
    language, contexts = language_and_contexts
    for model in models_of(language):
        for context in contexts[::2]:
            dense = model.distribution(context)
            chain = model.sparse(context)
            entropy = -math.fsum(v * math.log(v) for v in dense)
            assert abs(chain.entropy() - entropy) < TOL
            assert chain.argmax() == dense.index(max(dense))
            threshold = typical_threshold(chain)
            assert threshold == min(0.09, 0.3 * math.exp(-chain.entropy()))


def test_argmax_ties_go_to_the_lowest_id():
    model = NgramModel("flat", 1, Unigram([3, 5, 5, 2, 5]), [])
    assert model.sparse([]).argmax() == 1
    assert model.distribution([]).index(max(model.distribution([]))) == 1


def test_row_lookup_agrees_with_the_reference_lookup(sim_languages):
    for language in sim_languages.values():
        for level in language.target.levels:
            histories = list(zip(*level.columns))
            for i, h in enumerate(histories[::7]):
                assert level.find(h) == level.dense_lookup(h) == 7 * i
            rng = random.Random(4)
            v = len(language.vocab)
            for _ in range(500):
                h = tuple(rng.randrange(v) for _ in range(level.order - 1))
                assert level.find(h) == level.dense_lookup(h)


def test_rows_match_the_declared_totals(sim_languages):
    for language in sim_languages.values():
        for level in language.target.levels:
            for i in range(0, len(level.types), 13):
                row = level.row(i)
                assert row.seen == level.total[i] and row.types == level.types[i]


def test_a_model_file_with_wrong_totals_is_refused(tiny_doc):
    import copy

    doc = copy.deepcopy(tiny_doc)
    doc["trigram"]["total"][0] += 1
    language = load_language(doc)
    history = [column[0] for column in doc["trigram"]["history"]]
    with pytest.raises(ValueError, match="total/types"):
        language.target.sparse(history)
    doc = copy.deepcopy(tiny_doc)
    doc["tokens"] += 1
    with pytest.raises(ValueError, match="tokens"):
        load_language(doc)
    doc = copy.deepcopy(tiny_doc)
    doc["format"] = "something/2"
    with pytest.raises(ValueError, match="format"):
        load_language(doc)


def test_no_dense_work_on_the_step_path(en, monkeypatch):
    """The step never builds a dense distribution (that is the point of the fast path)."""
    from sim.sparse import ChainDistribution

    def refuse(*_args, **_kwargs):
        raise AssertionError("dense distribution built during a step")

    monkeypatch.setattr(NgramModel, "distribution", refuse)
    monkeypatch.setattr(ChainDistribution, "dense", refuse)
    rng = random.Random(5)
    context = en.encode("said the")
    for name in ("bigram", "unigram", "same"):
        for _ in range(200):
            trace = speculative_step(en.target, en.draft(name), context, 4, rng)
            context = (context + trace.written)[-2:]
