"""The tree sampler (sim.tree) itself: today's rule at k = 1 bit for bit, what a trace records,
and goodness-of-fit tests (tests/helpers/statistical.py: fixed seeds, false alarm 1e-7), each paired with
"keep any survivor" at the same size, rejected with a computed power of at least 0.999."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from fractions import Fraction

import pytest
from helpers.statistical import check_fit_and_power, histogram
from helpers.exact_laws import tree_law

from sim.candidates import CANDIDATE_RULES
from sim.speculative import RULES, speculative_step
from sim.tree import check_widths, position_draws, tree_size, tree_step

DRAWS = 10_000  # next-token draws with k candidates
TREE_STEPS = 4_000  # whole tree steps (each drafts and checks a tree)
PREFIX = {"en": "said the", "zh": "慢慢"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_line_is_todays_step_bit_for_bit(sim_languages, lang):
    """widths (1,)*gamma: same tokens, same random numbers, same generator state afterwards."""
    language = sim_languages[lang]
    for draft in ("bigram", "unigram", "same"):
        for rule in RULES:
            for greedy in (False, True):
                for gamma in (1, 4):
                    a, b = random.Random(3), random.Random(3)
                    context = language.encode(PREFIX[lang])
                    for _ in range(40):
                        line = speculative_step(language.target, language.draft(draft), context, gamma, a,
                                                rule=rule, greedy=greedy)
                        tree = tree_step(language.target, language.draft(draft), context, (1,) * gamma, b,
                                         rule=rule, greedy=greedy)
                        assert tree.written == line.written
                        assert [n.r for n in tree.nodes] == [g.r for g in line.guesses]
                        assert [n.kept for n in tree.nodes] == [g.kept for g in line.guesses]
                        assert a.getstate() == b.getstate()
                        assert tree.lanes == gamma + 1
                        context = (context + line.written)[-2:]


def test_a_trace_records_the_tree(en):
    trace = tree_step(en.target, en.draft("bigram"), en.encode(PREFIX["en"]), (3, 2, 1), random.Random(4))
    assert len(trace.nodes) == tree_size((3, 2, 1)) == 3 + 6 + 6 and trace.lanes == 16
    assert [n.depth for n in trace.nodes] == [0] * 3 + [1] * 6 + [2] * 6
    assert [n.parent for n in trace.nodes[3:9]] == [0, 0, 1, 1, 2, 2]
    # The kept path: each kept node's parent is the previous kept node; it is what was written.
    parents = [None, *trace.path]
    assert [trace.nodes[i].parent for i in trace.path] == parents[:-1]
    assert [trace.nodes[i].token for i in trace.path] == trace.written[:len(trace.path)]
    assert all(trace.nodes[i].kept for i in trace.path)
    assert (trace.bonus is None) == (trace.replacement is not None) == (len(trace.path) < 3)
    # Checked: at each level walked, the candidates up to the kept one (all, at a full rejection).
    assert trace.n_checked >= len(trace.path) + (trace.replacement is not None)
    assert json.loads(json.dumps(trace.to_dict(), allow_nan=False)) == trace.to_dict()


def test_greedy_tree_writes_the_targets_choices(zh):
    context = zh.encode(PREFIX["zh"])
    rng = random.Random(0)
    for _ in range(30):
        trace = tree_step(zh.target, zh.draft("bigram"), context, (3, 2), rng, temperature=0.0)
        for i, token in enumerate(trace.written):
            assert token == zh.target.sparse(context + trace.written[:i]).argmax()
        kids = [n for n in trace.nodes if n.depth == 0]
        assert len({n.token for n in kids}) == 3  # the draft's three likeliest, no repeats
        context = (context + trace.written)[-2:]


def test_recursive_candidates_never_repeat(en):
    rng = random.Random(2)
    for _ in range(50):
        trace = tree_step(en.target, en.draft("unigram"), en.encode("the"), (4, 3), rng, rule="recursive")
        for parent in {n.parent for n in trace.nodes}:
            tokens = [n.token for n in trace.nodes if n.parent == parent]
            assert len(tokens) == len(set(tokens))


@pytest.mark.parametrize("k", [1, 3])
def test_position_draws_are_first_tokens_of_one_level_trees(en, k):
    context = en.encode(PREFIX["en"])
    for rule in CANDIDATE_RULES:
        a, b = random.Random(9), random.Random(9)
        for _ in range(100):
            (token, _), = position_draws(en.target, en.draft("bigram"), context, a, 1, k, rule=rule)
            trace = tree_step(en.target, en.draft("bigram"), context, (k,), b, rule=rule)
            assert token == trace.written[0]
            if trace.bonus is None:  # else the tree drew its bonus too: start the next round level
                assert a.getstate() == b.getstate()
            a.setstate(b.getstate())


@pytest.mark.parametrize("widths,message", [((), "non-empty"), ((2, 0), "positive"), ((1.5,), "positive"),
                                            ((8, 8, 8, 8), "at most")])
def test_bad_widths(widths, message):
    with pytest.raises(ValueError, match=message):
        check_widths(widths)


def test_bad_settings(en):
    args = (en.target, en.draft("bigram"), en.encode("the"), (2,), random.Random(0))
    with pytest.raises(ValueError, match="unknown rule"):
        tree_step(*args, rule="any")
    with pytest.raises(ValueError, match="temperature must be one of"):
        tree_step(*args, temperature=0.8)
    with pytest.raises(ValueError, match="top_p must be one of"):
        tree_step(*args, top_p=0.5)


# --- goodness of fit --------------------------------------------------------------------------------

def keep_any_survivor_law(p: list, q: list, k: int) -> list:
    """The wrong rule's law for the next token (closed form, proven in test_tree_exact)."""
    beta = math.fsum(min(a, b) for a, b in zip(p, q))
    miss = (1 - beta) ** k
    return [min(a, b) * (1 - miss) / beta + miss * max(0.0, a - b) / (1 - beta) for a, b in zip(p, q)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_three_candidates_follow_p_on_the_real_models(sim_languages, lang):
    """10,000 draws of the next token with k = 3 candidates fit p, with and without replacement.
    Wrong sampler at the same size: "keep any survivor", rejected with computed power > 0.999999."""
    language = sim_languages[lang]
    target, draft = language.target, language.draft("bigram")
    context = language.encode(PREFIX[lang])
    p, q = target.distribution(context), draft.distribution(context)

    def counts(rule):
        draws = position_draws(target, draft, context, random.Random(31), DRAWS, 3, rule=rule)
        assert {kept for _, kept in draws} == {0, 1, 2, None}  # every candidate, and the residual, occur
        return histogram((t for t, _ in draws), len(p))

    wrong = counts("keep_any_survivor")
    for rule in ("exact", "recursive"):
        strength = check_fit_and_power(counts(rule), p, keep_any_survivor_law(p, q, 3), wrong)
        assert strength > 0.999999


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_tree_step_writes_p_first(sim_languages, lang):
    """The first token of 4,000 (3, 2, 1) tree steps fits p. Wrong sampler at the same size: the
    same trees under "keep any survivor", rejected with computed power > 0.999999."""
    language = sim_languages[lang]
    target, draft = language.target, language.draft("bigram")
    context = language.encode(PREFIX[lang])
    p, q = target.distribution(context), draft.distribution(context)

    def firsts(rule):
        rng = random.Random(32)
        return histogram((tree_step(target, draft, context, (3, 2, 1), rng, rule=rule).written[0]
                          for _ in range(TREE_STEPS)), len(p))

    strength = check_fit_and_power(firsts("exact"), p, keep_any_survivor_law(p, q, 3), firsts("keep_any_survivor"))
    assert strength > 0.999999


class ExactAt:
    """p_at[written] for tree_law: a model's exact distribution after the context and what was written."""

    def __init__(self, model, context):
        self.model, self.context, self.cache = model, list(context), {}

    def __getitem__(self, written: tuple) -> list[Fraction]:
        if written not in self.cache:
            self.cache[written] = self.model.distribution(self.context + list(written), exact=True)
        return self.cache[written]


def test_tiny_tree_steps_follow_the_enumerated_law(tiny):
    """5,000 (2, 2) tree steps on the tiny model write what the enumeration says, sequence by
    sequence. Wrong sampler at the same size: "keep any survivor" (its law enumerated the same
    way), rejected with computed power > 0.999999."""
    target, draft, context = tiny.target, tiny.draft("unigram"), tiny.encode("b a")
    p_at, q_at = ExactAt(target, context), ExactAt(draft, context)
    law = tree_law(p_at, q_at, (2, 2), "exact")
    wrong_law = tree_law(p_at, q_at, (2, 2), "keep_any_survivor")
    outcomes = sorted(set(law) | set(wrong_law))

    def counts(rule):
        rng = random.Random(33)
        seen = Counter(tuple(tree_step(target, draft, context, (2, 2), rng, rule=rule).written)
                       for _ in range(5_000))
        assert set(seen) <= set(outcomes)
        return [seen[o] for o in outcomes]

    strength = check_fit_and_power(counts("exact"), [float(law.get(o, 0)) for o in outcomes],
                                   [float(wrong_law.get(o, 0)) for o in outcomes], counts("keep_any_survivor"))
    assert strength > 0.999999
