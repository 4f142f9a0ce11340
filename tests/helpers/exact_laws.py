"""Exact laws of the several-candidate rules, enumerated path by path through the sim's own
Verifier and residuals (sim.candidates) on Fractions: the tree tests, the tempering tests and the
sampling tests compare the sampler with these."""

from __future__ import annotations

import itertools
import random
from collections import defaultdict
from fractions import Fraction

from sim.candidates import CHOSEN, Verifier, WithoutTokens, likeliest_candidates
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
    """(candidates, probability) as sim.candidates.draw_candidates draws them (chosen ones: one
    tuple, certain)."""
    size = len(q.weights)
    if rule in CHOSEN:
        yield tuple(likeliest_candidates(q, k)), Fraction(1)
        return
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


# --- a depth-2 tree --------------------------------------------------------------------------------

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


# --- chosen guesses as a tree (sim.guess_tree) --------------------------------------------------------

def guess_tree_law(p_at, tree) -> dict[tuple, Fraction]:
    """Probability of each written sequence after one pass over a GuessTree, checked by the "topk"
    rule through the sim's own Verifier: p_at(path) is the target after the guesses `path`."""
    law: dict[tuple, Fraction] = defaultdict(Fraction)

    def walk(node, path: tuple, weight: Fraction):
        kids, p = tree.children(node), p_at(path)
        if not kids:
            for y, py in enumerate(p.weights):
                if py:
                    law[path + (y,)] += weight * p.prob(y)
            return
        verifier = Verifier(p, None, "topk")
        for i in kids:
            x = tree.tokens[i]
            keep = min(Fraction(1), verifier.ratio(x))
            if keep:
                walk(i, path + (x,), weight * keep)
            weight *= 1 - keep
            if not weight:
                return
            verifier.reject(x)
        rest = verifier.fallback()
        for y in range(len(p.weights)):
            if rest.prob(y):
                law[path + (y,)] += weight * rest.prob(y)

    walk(None, (), Fraction(1))
    return dict(law)
