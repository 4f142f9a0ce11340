"""Several candidates and trees of candidates, in exact arithmetic (fractions.Fraction).

Every law here is enumerated path by path through the sim's own Verifier and residuals
(sim.candidates), run on Fractions: what the sampler runs on floats. Proven:
- one position, k = 1..3 candidates, vocabularies of 3 and 4 tokens, 40 random rational pairs
  (p, q) per case plus planted ones with zeros in p, in q and in both: the token written follows
  p exactly, for "exact" (SpecInfer, i.i.d. candidates), "recursive" (without replacement) and
  "topk" (the draft's likeliest, chosen: tests/sim/test_topk.py has its planted cases);
- a depth-2 tree of every widths (k1, k2) with k1, k2 in 1..3, on random context-dependent
  p and q over 3 tokens: every prefix of what is written, continued by the target, has the
  target's chained probability;
- "keep any survivor" is not exact: its law on a planted example differs from p by an exact,
  asserted amount, and matches its closed form on the random cases.
"""

from __future__ import annotations

import itertools
import random
from collections import defaultdict
from fractions import Fraction

import pytest
from helpers.exact_laws import PLANTED, cases, check_level, dense, position_law, random_models, tree_law

from sim.alpha import candidate_alpha


@pytest.mark.parametrize("rule", ["exact", "recursive", "topk"])
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("size", [3, 4])
def test_one_position_follows_p_exactly(rule, k, size):
    for p, q in cases(size, seed=100 * size + k):
        assert position_law(p, q, k, rule) == p, (p, q, k, rule)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_alpha_k_is_the_chance_some_candidate_is_kept(k):
    """sim.alpha.candidate_alpha (1 - the product of the residual masses) against the enumeration."""
    for p, q in cases(4, seed=7 + k):
        kept = sum(prob for _, prob, was_kept in check_level(dense(p), dense(q), k, "exact") if was_kept)
        assert candidate_alpha(dense(p), dense(q), k) == kept
    p, q = PLANTED[0]
    assert candidate_alpha(dense(p), dense(q), 1) == sum(min(a, b) for a, b in zip(p, q))


def keep_any_survivor_law(p, q, k):
    """Closed form of the wrong rule: each try keeps min(p, q) of the mass, k tries, then the residual."""
    beta = sum(min(a, b) for a, b in zip(p, q))
    rest = [max(Fraction(0), a - b) for a, b in zip(p, q)]
    miss = (1 - beta) ** k
    return [min(a, b) * (1 - miss) / beta + (miss * r / (1 - beta) if beta < 1 else 0)
            for a, b, r in zip(p, q, rest)]


def test_keep_any_survivor_is_not_exact():
    p, q = PLANTED[0]  # p = (1/2, 1/3, 1/6), q = (1/6, 1/3, 1/2): beta = 2/3, residual all on token 0
    law = position_law(p, q, 2, "keep_any_survivor")
    assert law == [Fraction(1, 3), Fraction(4, 9), Fraction(2, 9)]
    assert [a - b for a, b in zip(law, p)] == [Fraction(-1, 6), Fraction(1, 9), Fraction(1, 18)]
    assert position_law(p, q, 1, "keep_any_survivor") == p  # one candidate: the exact rule
    for size in (3, 4):
        for p, q in cases(size, seed=size):
            if sum(min(a, b) for a, b in zip(p, q)) > 0:
                assert position_law(p, q, 3, "keep_any_survivor") == keep_any_survivor_law(p, q, 3)


# --- a depth-2 tree -----------------------------------------------------------------------------------

def assert_prefixes_follow_target(law: dict, p_at: dict, size: int, depth: int):
    """P(written, continued by the target, starts with s) = p(s1) p(s2 | s1) ... for |s| <= depth + 1."""
    def chained(start: tuple, tokens: tuple) -> Fraction:
        prob = Fraction(1)
        for i, x in enumerate(tokens):
            prob *= p_at[start + tokens[:i]][x]
        return prob

    assert sum(law.values()) == 1
    starts_with: dict[tuple, Fraction] = defaultdict(Fraction)
    for written, prob in law.items():
        for n in range(1, depth + 2):
            if n <= len(written):
                starts_with[written[:n]] += prob
            else:
                for extension in itertools.product(range(size), repeat=n - len(written)):
                    starts_with[written + extension] += prob * chained(written, extension)
    for n in range(1, depth + 2):
        for prefix in itertools.product(range(size), repeat=n):
            assert starts_with.get(prefix, 0) == chained((), prefix), prefix


@pytest.mark.parametrize("rule", ["exact", "recursive", "topk"])
@pytest.mark.parametrize("widths", [(k1, k2) for k1 in (1, 2, 3) for k2 in (1, 2, 3)])
def test_depth_two_tree_follows_the_target(rule, widths):
    rng = random.Random(sum(widths) * 10 + widths[0])
    for _ in range(3):
        p_at, q_at = random_models(rng, 3, 2)
        assert_prefixes_follow_target(tree_law(p_at, q_at, widths, rule), p_at, 3, 2)


def test_the_tree_check_can_fail():
    """The same check rejects a depth-2 tree run by "keep any survivor"."""
    p_at, q_at = random_models(random.Random(5), 3, 2)
    p_at[()], q_at[()] = PLANTED[0]
    with pytest.raises(AssertionError):
        assert_prefixes_follow_target(tree_law(p_at, q_at, (2, 2), "keep_any_survivor"), p_at, 3, 2)
