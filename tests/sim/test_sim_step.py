"""(e) What a step records, greedy mode, the other rules, determinism, and bad input."""

from __future__ import annotations

import json
import math
import random

import pytest

from sim import load_language
from sim.speculative import (
    first_token, first_tokens, residual_distribution, sample_target, speculative_step,
    typical_threshold,
)

DRAFTS = ("bigram", "unigram", "same")


def run(language, draft, n_steps, seed, gamma=4, **options):
    rng = random.Random(seed)
    context = language.encode({"en": "said the", "zh": "慢慢"}[language.lang])
    traces = []
    for _ in range(n_steps):
        trace = speculative_step(language.target, language.draft(draft), context, gamma, rng, **options)
        traces.append(trace)
        context = (context + trace.written)[-2:]
    return traces


def check_trace(language, trace, draft_name):
    """The trace is internally consistent and its numbers are the models' (dense reference)."""
    target, draft = language.target, language.draft(draft_name)
    gamma, context = trace.gamma, trace.context
    assert len(trace.guesses) == gamma
    assert 1 <= trace.n_written <= gamma + 1
    checked = [g.checked for g in trace.guesses]
    n_checked = sum(checked)
    assert checked == [True] * n_checked + [False] * (gamma - n_checked)
    kept = [g.kept for g in trace.guesses]
    assert kept == [True] * trace.n_kept + [False] * (gamma - trace.n_kept)
    guesses = [g.token for g in trace.guesses]
    assert trace.written[: trace.n_kept] == guesses[: trace.n_kept]
    if trace.n_kept == gamma:
        assert trace.bonus is not None and trace.replacement is None and trace.residual is None
        assert trace.written == guesses + [trace.bonus]
        assert n_checked == gamma
    else:
        assert trace.bonus is None and trace.replacement is not None
        assert trace.written == guesses[: trace.n_kept] + [trace.replacement]
        assert n_checked == trace.n_kept + 1
    for i, g in enumerate(trace.guesses):
        here = context + guesses[:i]
        p, q = target.distribution(here), draft.distribution(here)
        assert g.p == p[g.token] and g.q == q[g.token]
        assert g.ratio == g.p / g.q
        if g.checked and not trace.greedy and trace.rule != "typical":
            assert 0 <= g.r < 1
            assert g.kept == (g.r <= g.ratio)
        else:
            assert g.r is None


@pytest.mark.parametrize("draft", DRAFTS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_traces_are_consistent(sim_languages, lang, draft):
    language = sim_languages[lang]
    traces = run(language, draft, 60, seed=21)
    for trace in traces:
        check_trace(language, trace, draft)
        if trace.residual is not None:  # the residual recorded is max(0, p - q) normalised
            here = trace.context + [g.token for g in trace.guesses][: trace.n_kept]
            dense = residual_distribution(language.target.distribution(here),
                                          language.draft(draft).distribution(here))
            got = dict(trace.residual.pairs())
            assert all(abs(got.get(w, 0.0) - v) < 1e-12 for w, v in enumerate(dense))
            assert got[trace.replacement] > 0
    if draft == "same":
        assert all(t.n_written == 5 for t in traces)  # alpha = 1: every guess kept
    elif draft == "bigram":
        assert {t.n_written for t in traces} >= {1, 5}
    else:
        assert len({t.n_written for t in traces}) >= 2


def test_to_dict_is_json_safe_and_complete(en):
    traces = run(en, "bigram", 40, seed=22) + run(en, "unigram", 20, seed=22)
    assert any(t.residual is not None for t in traces) and any(t.bonus is not None for t in traces)
    for trace in traces:
        d = trace.to_dict()
        assert json.loads(json.dumps(d, allow_nan=False)) == d
        assert d["n_written"] == len(d["written"]) == trace.n_written
        assert set(d["guesses"][0]) == {"token", "q", "p", "ratio", "r", "kept", "checked"}
        if d["residual"] is not None:
            ids = [w for w, _ in d["residual"]]
            assert ids == sorted(set(ids))
            assert all(prob > 0 for _, prob in d["residual"])
            assert abs(math.fsum(prob for _, prob in d["residual"]) - 1) < 1e-12
            assert d["replacement"] in ids


def test_same_seed_same_trace_even_with_cold_caches(sim_model_docs, en):
    warm = [t.to_dict() for t in run(en, "bigram", 30, seed=23)]
    again = [t.to_dict() for t in run(en, "bigram", 30, seed=23)]
    fresh = load_language(sim_model_docs["en"])  # nothing cached yet
    cold = [t.to_dict() for t in run(fresh, "bigram", 30, seed=23)]
    assert warm == again == cold
    assert warm != [t.to_dict() for t in run(en, "bigram", 30, seed=24)]


@pytest.mark.parametrize("draft", DRAFTS)
def test_greedy_steps(sim_languages, draft):
    for language in sim_languages.values():
        target, q = language.target, language.draft(draft)
        rng = random.Random(25)
        state = rng.getstate()
        for trace in run(language, draft, 20, seed=25, greedy=True):
            check_trace(language, trace, draft)
            guesses = [g.token for g in trace.guesses]
            for i, g in enumerate(trace.guesses):
                here = trace.context + guesses[:i]
                q_dense, p_dense = q.distribution(here), target.distribution(here)
                assert g.token == q_dense.index(max(q_dense))  # draft argmax, lowest id on ties
                if g.checked:
                    assert g.kept == (g.token == p_dense.index(max(p_dense)))
            end = trace.context + trace.written[:-1]
            p_end = target.distribution(end)
            assert trace.written[-1] == p_end.index(max(p_end))  # replacement or bonus: target argmax
            assert trace.residual is None
        # Greedy steps draw no random numbers.
        speculative_step(target, q, language.encode("said the" if language.lang == "en" else "慢慢"),
                         4, rng, greedy=True)
        assert rng.getstate() == state
        if draft == "same":
            assert all(t.n_written == 5 for t in run(language, draft, 5, seed=1, greedy=True))


def test_greedy_target_sampling_is_argmax(en):
    context = en.encode("said the")
    p = en.target.distribution(context)
    assert sample_target(en.target, context, random.Random(1), greedy=True) == p.index(max(p))


def test_typical_rule_steps(en):
    for trace in run(en, "bigram", 60, seed=26, rule="typical"):
        check_trace(en, trace, "bigram")
        for i, g in enumerate(trace.guesses):
            if g.checked:
                here = trace.context + [x.token for x in trace.guesses][:i]
                assert g.kept == (g.p > typical_threshold(en.target.sparse(here)))
        if trace.residual is not None:  # the replacement comes from p itself
            here = trace.context + trace.written[:-1]
            assert trace.residual.pairs() == [[w, v] for w, v in enumerate(en.target.distribution(here))]


def test_replace_from_p_records_p(en):
    traces = run(en, "bigram", 40, seed=27, rule="replace_from_p")
    rejected = [t for t in traces if t.replacement is not None]
    assert rejected
    for trace in rejected:
        check_trace(en, trace, "bigram")
        here = trace.context + trace.written[:-1]
        assert trace.residual.pairs() == [[w, v] for w, v in enumerate(en.target.distribution(here))]


def test_first_token_is_a_gamma_one_step(zh):
    context = zh.encode("慢慢")
    for seed in range(300):
        token, kept = first_token(zh.target, zh.draft("bigram"), context, random.Random(seed))
        trace = speculative_step(zh.target, zh.draft("bigram"), context, 1, random.Random(seed))
        assert (token, kept) == (trace.written[0], trace.n_kept == 1)


@pytest.mark.parametrize("gamma", [0, -1, 2.0, True, "4", None])
def test_bad_gamma(en, gamma):
    with pytest.raises(ValueError, match="gamma"):
        speculative_step(en.target, en.draft("bigram"), [1, 2], gamma, random.Random(1))


def test_gamma_limits_are_accepted(en):
    for gamma in (1, 8, 24):  # the sampler has no ceiling; the bench's is sim.bench.MAX_GAMMA
        trace = speculative_step(en.target, en.draft("bigram"), [1, 2], gamma, random.Random(1))
        assert len(trace.guesses) == gamma


def test_bad_rule_draft_token_and_context(en):
    rng = random.Random(1)
    with pytest.raises(ValueError, match="rule"):
        speculative_step(en.target, en.draft("bigram"), [1, 2], 4, rng, rule="lenient")
    with pytest.raises(ValueError, match="rule"):
        first_token(en.target, en.draft("bigram"), [1, 2], rng, rule="lenient")
    with pytest.raises(ValueError, match="unknown draft 'trigram'"):
        en.draft("trigram")
    with pytest.raises(ValueError, match="'zzyzx'"):
        en.encode("said the zzyzx")
    for bad in ([-1], [len(en.vocab)], ["3"], [1.0], [True]):
        with pytest.raises(ValueError, match="token"):
            speculative_step(en.target, en.draft("bigram"), bad, 4, rng)
        with pytest.raises(ValueError, match="token"):
            sample_target(en.target, bad, rng)
        with pytest.raises(ValueError, match="token"):
            en.decode(bad)
    with pytest.raises(ValueError, match="n must be"):
        first_tokens(en.target, en.draft("bigram"), [1, 2], rng, -1)


def test_an_empty_context_is_allowed(en):
    trace = speculative_step(en.target, en.draft("bigram"), [], 4, random.Random(3))
    check_trace(en, trace, "bigram")
    assert trace.context == []


def test_only_the_last_two_tokens_matter(en):
    long_context = en.encode("alice was beginning to get very tired of sitting by her sister "
                             "on the bank , said the")
    a = speculative_step(en.target, en.draft("bigram"), long_context, 4, random.Random(9)).to_dict()
    b = speculative_step(en.target, en.draft("bigram"), long_context[-2:], 4, random.Random(9)).to_dict()
    assert a["context"] == long_context and b["context"] == long_context[-2:]
    assert {**a, "context": None} == {**b, "context": None}
