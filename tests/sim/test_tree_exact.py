"""Several candidates and trees of candidates, in exact arithmetic (fractions.Fraction).

Every law here is enumerated path by path through the sim's own Verifier and residuals
(sim.candidates), run on Fractions: what the sampler runs on floats. Proven:
- one position, k = 1..3 candidates, vocabularies of 3 and 4 tokens, 40 random rational pairs
  (p, q) per case plus planted ones with zeros in p, in q and in both: the token written follows
  p exactly, for "exact" (SpecInfer, i.i.d. candidates) and "recursive" (without replacement);
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

from sim.alpha import candidate_alpha
from sim.candidates import Verifier, WithoutTokens
from sim.weights import Weights

RANDOM_PAIRS = 40


def rational(rng, size: int, zeros: bool = True) -> list[Fraction]:
    """A random distribution with small integer weights (some zero when zeros=True)."""
    while True:
        weights = [rng.randint(0 if zeros else 1, 6) for _ in range(size)]
        if sum(weights):
            return [Fraction(w, sum(weights)) for w in weights]


def dense(values) -> Weights:
    return Weights(range(len(values)), values)


def candidate_tuples(q: Weights, k: int, rule: str):
    """(candidates, probability) as sim.candidates.draw_candidates draws them."""
    size = len(q.weights)
    if rule != "recursive":
        for xs in itertools.product(range(size), repeat=k):
            prob = Fraction(1)
            for x in xs:
                prob *= q.prob(x)
            if prob:
                yield xs, prob
        return

    def extend(drawn, prob):
        left = WithoutTokens(q, drawn) if drawn else q
        if len(drawn) == k or (drawn and not left.mass > 0):
            yield tuple(drawn), prob
            return
        for x in range(size):
            if left.prob(x):
                yield from extend(drawn + [x], prob * left.prob(x))

    yield from extend([], Fraction(1))


def check_level(p: Weights, q: Weights, k: int, rule: str):
    """Yield (token written, probability, whether a candidate was kept) over every path of one position."""
    for xs, prob in candidate_tuples(q, k, rule):
        verifier = Verifier(p, q, rule)
        weight = prob
        for x in xs:
            keep = min(Fraction(1), verifier.ratio(x))
            if keep:
                yield x, weight * keep, True
            weight *= 1 - keep
            if not weight:
                break
            verifier.reject(x)
        else:
            fallback = verifier.fallback()
            for y in range(len(p.weights)):
                if fallback.prob(y):
                    yield y, weight * fallback.prob(y), False


def position_law(p: list, q: list, k: int, rule: str) -> list[Fraction]:
    law = [Fraction(0)] * len(p)
    for y, prob, _ in check_level(dense(p), dense(q), k, rule):
        law[y] += prob
    return law


PLANTED = [  # (p, q): zeros in q, in p, in both, and q = p
    ([Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)], [Fraction(1, 6), Fraction(1, 3), Fraction(1, 2)]),
    ([Fraction(1, 2), Fraction(1, 2), Fraction(0)], [Fraction(0), Fraction(1, 4), Fraction(3, 4)]),
    ([Fraction(0), Fraction(1, 4), Fraction(3, 4)], [Fraction(1, 2), Fraction(1, 2), Fraction(0)]),
    ([Fraction(1), Fraction(0), Fraction(0), Fraction(0)], [Fraction(1, 4)] * 4),
    ([Fraction(1, 4)] * 4, [Fraction(0), Fraction(0), Fraction(1), Fraction(0)]),
    ([Fraction(1, 10), Fraction(2, 10), Fraction(3, 10), Fraction(4, 10)],) * 2,
]


def cases(size: int, seed: int):
    rng = random.Random(seed)
    yield from (pq for pq in PLANTED if len(pq[0]) == size)
    for _ in range(RANDOM_PAIRS):
        yield rational(rng, size), rational(rng, size)


@pytest.mark.parametrize("rule", ["exact", "recursive"])
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

def random_models(rng, size: int, depth: int):
    """Context-dependent p and q over `size` tokens, for every context up to `depth` tokens."""
    contexts = [c for n in range(depth + 1) for c in itertools.product(range(size), repeat=n)]
    return ({c: rational(rng, size) for c in contexts}, {c: rational(rng, size) for c in contexts})


def tree_law(p_at: dict, q_at: dict, widths: tuple, rule: str) -> dict[tuple, Fraction]:
    """Probability of each written sequence after one tree step (the subtrees of rejected
    candidates are never read, so only kept candidates' children are enumerated)."""
    law: dict[tuple, Fraction] = defaultdict(Fraction)

    def walk(written: tuple, weight: Fraction):
        if len(written) == len(widths):  # a kept leaf: the bonus from p
            for y, py in enumerate(p_at[written]):
                if py:
                    law[written + (y,)] += weight * py
            return
        p, q = dense(p_at[written]), dense(q_at[written])
        for y, prob, kept in check_level(p, q, widths[len(written)], rule):
            if kept:
                walk(written + (y,), weight * prob)
            else:
                law[written + (y,)] += weight * prob

    walk((), Fraction(1))
    return dict(law)


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


@pytest.mark.parametrize("rule", ["exact", "recursive"])
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
