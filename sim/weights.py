"""Distributions given by weights, normalised on use: the shapes the candidate rules and
tempering produce beside the models' own chains (sim.sparse).

    Weights      a few ids with weights (floats or fractions.Fraction): a top-p nucleus, a
                 residual after a rejection, or a hand-made distribution in the tests
    HeadAndTail  weights on a few ids plus coef * t(w) everywhere outside a set, with t a
                 PowerTable over the vocabulary: a tempered chain, or the residual of two
"""

from __future__ import annotations

import math
from bisect import bisect_right
from itertools import accumulate

from .speculative import _exact_or_float_sum as _total  # floats: fsum; Fractions: exact


class Weights:
    """A distribution on a few ids, given by positive weights (floats or Fractions), normalised on use."""

    __slots__ = ("ids", "weights", "total", "_index", "_cumulative", "_entropy")

    def __init__(self, ids, weights):
        """ids may be range(V) for a dense distribution (then no index is built)."""
        self.ids = ids if isinstance(ids, range) and ids.start == 0 and ids.step == 1 else list(ids)
        self.weights = list(weights)
        self.total = _total(self.weights)
        self._index = None
        self._cumulative = None
        self._entropy = None

    def prob(self, w: int):
        if isinstance(self.ids, range):
            return self.weights[w] / self.total if 0 <= w < len(self.weights) else 0 * self.total
        if self._index is None:
            self._index = dict(zip(self.ids, self.weights))
        weight = self._index.get(w)
        return 0 * self.total if weight is None else weight / self.total

    def probs_at(self, ids) -> list:
        return [self.prob(w) for w in ids]

    def sample(self, rng) -> int:
        """Inverse CDF on the cumulative weights (one uniform draw)."""
        if self._cumulative is None:
            self._cumulative = list(accumulate(self.weights))
        i = bisect_right(self._cumulative, rng.random() * self.total)
        return self.ids[min(i, len(self.ids) - 1)]

    def argmax(self) -> int:
        return min(zip(self.ids, self.weights), key=lambda pair: (-pair[1], pair[0]))[0]

    def entropy(self) -> float:
        if self._entropy is None:
            total = float(self.total)
            self._entropy = -math.fsum(w / total * math.log(w / total) for w in map(float, self.weights))
        return self._entropy

    def pairs(self) -> list[list]:
        """[[id, prob], ...] sorted by id (JSON-ready)."""
        return sorted([w, weight / self.total] for w, weight in zip(self.ids, self.weights))

    def dense(self, size: int) -> list:
        return self.probs_at(range(size))


class PowerTable:
    """Values t(w) over a vocabulary (P1^(1/T) for tempering) with cumulative sums for sampling."""

    __slots__ = ("base", "values", "cumulative", "total")

    def __init__(self, base, values: list[float]):
        self.base, self.values = base, values
        self.cumulative = list(accumulate(values))
        self.total = math.fsum(values)

    def outside(self, ids) -> float:
        """sum of t(w) over the vocabulary minus ids."""
        values = self.values
        return max(0.0, self.total - math.fsum(values[w] for w in ids))


class HeadAndTail:
    """weights on a few ids (the head), and coef * t(w) at every id outside a set (the tail),
    normalised on use: a tempered chain, or a residual of two (floats only).

    Sampling: the head by its cumulative weights; the tail by drawing from t until the token
    falls outside the set (the head's ids are always inside it)."""

    __slots__ = ("ids", "weights", "coef", "table", "inside", "head", "head_mass", "tail_mass", "total",
                 "_cumulative", "_entropy")

    def __init__(self, ids, weights, coef: float, table: PowerTable, inside: frozenset):
        self.ids, self.weights, self.coef, self.table, self.inside = list(ids), list(weights), coef, table, inside
        self.head = dict(zip(self.ids, self.weights))
        self.head_mass = math.fsum(self.weights)
        self.tail_mass = coef * table.outside(inside) if coef > 0 else 0.0
        self.total = self.head_mass + self.tail_mass
        self._cumulative = None
        self._entropy = None

    def prob(self, w: int) -> float:
        weight = self.head.get(w)
        if weight is not None:
            return weight / self.total
        if w in self.inside or self.coef <= 0:
            return 0.0
        return self.coef * self.table.values[w] / self.total

    def probs_at(self, ids) -> list:
        return [self.prob(w) for w in ids]

    def sample(self, rng) -> int:
        u = rng.random() * self.total
        if u < self.head_mass or self.tail_mass <= 0:
            if self._cumulative is None:
                self._cumulative = list(accumulate(self.weights))
            i = bisect_right(self._cumulative, u)
            return self.ids[min(i, len(self.ids) - 1)]
        table, inside = self.table, self.inside
        while True:
            w = bisect_right(table.cumulative, rng.random() * table.total)
            w = min(w, len(table.values) - 1)
            if w not in inside:
                return w

    def pairs(self) -> list[list]:
        """[[id, prob], ...] for every id with prob > 0, sorted by id (O(V) with a tail)."""
        return [[w, v] for w, v in enumerate(self.dense(len(self.table.values))) if v > 0]

    def dense(self, size: int) -> list:
        return self.probs_at(range(size))

    def entropy(self) -> float:
        if self._entropy is None:
            self._entropy = -math.fsum(v * math.log(v) for _, v in self.pairs())
        return self._entropy

    def nucleus(self, top_p) -> Weights:
        """The smallest set of likeliest tokens (ties: lower id) with mass >= top_p, as Weights.
        The tail is walked in the base's frequency order, which is its order by t."""
        threshold = top_p * self.total
        head = sorted(zip(self.weights, self.ids), key=lambda pair: (-pair[0], pair[1]))
        tail = (w for w in self.table.base.by_frequency if w not in self.inside) if self.coef > 0 else iter(())
        values, coef = self.table.values, self.coef
        next_tail = next(tail, None)
        kept, mass, i = [], 0.0, 0
        while mass < threshold and (i < len(head) or next_tail is not None):
            tail_value = coef * values[next_tail] if next_tail is not None else -1.0
            if i < len(head) and (head[i][0] > tail_value or (head[i][0] == tail_value and head[i][1] < next_tail)):
                value, w = head[i]
                i += 1
            else:
                value, w = tail_value, next_tail
                next_tail = next(tail, None)
            kept.append((w, value))
            mass += value
        kept.sort()
        return Weights([w for w, _ in kept], [v for _, v in kept])


def head_and_tail_residual(p: HeadAndTail, q: HeadAndTail):
    """max(0, p - q) normalised for two head-and-tail distributions over one table."""
    inside = p.inside | q.inside
    ids = sorted(inside)
    kept = [(w, a - b) for w, a, b in zip(ids, p.probs_at(ids), q.probs_at(ids)) if a > b]
    coef = p.coef / p.total - q.coef / q.total
    result = HeadAndTail([w for w, _ in kept], [d for _, d in kept], coef if coef > 0 else 0.0, p.table, inside)
    return result if result.total > 0 else None
