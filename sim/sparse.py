"""Distributions that cost time in proportion to the continuations seen, not the vocabulary.

Every interpolated Witten-Bell distribution of the models is a chain of rows over one
unigram base:

    P1(w) = c(w) / N
    P(w)  = (c_k(w) + T_k * ( ... (c_1(w) + T_1 * P1(w)) / D_1 ... )) / D_k,   D = c(h) + T(h)

where row k holds the counts c_k(w) seen after the history at that level. Outside the union
of the rows' continuations (the "support") every count is zero, so there P(w) is a scalar
times P1(w). Lookups, sampling, sum min(p, q), residuals and entropies therefore only touch
the support, plus a few precomputed sums over the unigram base.

Probabilities are computed with the very same floating-point expression as the dense
reference in sim.models, so the two agree bit for bit at every token (the tests check it).
Nothing here uses the built-in sum() on floats: its rounding changed in CPython 3.12, and a
trace must be identical in every Python the page may run on; math.fsum is correctly rounded.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from itertools import accumulate


class Unigram:
    """The base of every chain: P1(w) = c(w)/N, with tables for sampling and entropy."""

    def __init__(self, counts: list[int]):
        if not counts or min(counts) < 1:
            raise ValueError("every vocabulary token needs a unigram count of at least 1")
        self.counts = list(counts)
        self.tokens = sum(self.counts)  # N, an exact integer
        n = self.tokens
        self.probs = [c / n for c in self.counts]
        self.cumulative = list(accumulate(self.counts))  # integers: exact
        # sum_w P1(w) log P1(w), for entropies of distributions with a unigram tail.
        self.plogp_total = math.fsum(p * math.log(p) for p in self.probs)
        self._by_frequency = None

    @property
    def by_frequency(self) -> list[int]:
        """Ids from most to least frequent, ties by id. The models' vocabularies are already
        in this order (then this is range(V)); hand-made models need not be."""
        if self._by_frequency is None:
            counts = self.counts
            if all(counts[i] >= counts[i + 1] for i in range(len(counts) - 1)):
                self._by_frequency = range(len(counts))
            else:
                self._by_frequency = sorted(range(len(counts)), key=lambda w: (-counts[w], w))
        return self._by_frequency

    def __len__(self) -> int:
        return len(self.counts)

    def sample(self, rng) -> int:
        """Inverse CDF on the integer cumulative counts (one uniform draw)."""
        return bisect_right(self.cumulative, rng.random() * self.tokens)


class Row:
    """The continuations of one history at one level, ready for lookup and sampling."""

    __slots__ = ("ids", "counts", "cumulative", "count_of", "seen", "types", "denominator")

    def __init__(self, ids: list[int], counts: list[int]):
        self.ids = ids
        self.counts = counts
        self.cumulative = list(accumulate(counts))
        self.count_of = dict(zip(ids, counts))
        self.seen = self.cumulative[-1]  # c(h)
        self.types = len(ids)  # T(h)
        self.denominator = self.seen + self.types  # c(h) + T(h)

    def sample(self, rng) -> int:
        """A continuation drawn in proportion to its count (one uniform draw)."""
        return self.ids[bisect_right(self.cumulative, rng.random() * self.seen)]


class ChainDistribution:
    """A model's next-token distribution at one context: rows (lowest order first) over P1.

    Built once per distinct combination of rows and cached by the model; the support,
    argmax and entropy are computed on first use.
    """

    __slots__ = ("rows", "base", "scale", "_support", "_support_set", "_argmax", "_entropy")

    def __init__(self, rows: tuple[Row, ...], base: Unigram):
        self.rows = rows
        self.base = base
        scale = 1.0
        for row in rows:
            scale = scale * row.types / row.denominator
        # P(w) = scale * P1(w) outside the support (up to rounding).
        self.scale = scale
        self._support = None
        self._support_set = None
        self._argmax = None
        self._entropy = None

    # --- single tokens -------------------------------------------------------------
    def prob(self, w: int) -> float:
        v = self.base.probs[w]
        for row in self.rows:
            v = (row.count_of.get(w, 0) + row.types * v) / row.denominator
        return v

    def probs_at(self, ids: list[int]) -> list[float]:
        """prob(w) for many tokens at once; the same arithmetic, a level at a time."""
        base = self.base.probs
        values = [base[w] for w in ids]
        for row in self.rows:
            get, t, d = row.count_of.get, row.types, row.denominator
            values = [(get(w, 0) + t * v) / d for w, v in zip(ids, values)]
        return values

    def sample(self, rng) -> int:
        """Walk down the chain: at each level a count-proportional continuation with
        probability c(h)/D, else go one level lower; at the bottom, a unigram draw."""
        for row in reversed(self.rows):
            if rng.random() * row.denominator < row.seen:
                return row.sample(rng)
        return self.base.sample(rng)

    # --- support -----------------------------------------------------------------------
    @property
    def support(self) -> list[int]:
        """Sorted ids with a count at some level of the chain."""
        if self._support is None:
            seen: set[int] = set()
            for row in self.rows:
                seen.update(row.ids)
            self._support_set = frozenset(seen)
            self._support = sorted(seen)
        return self._support

    @property
    def support_set(self) -> frozenset:
        if self._support_set is None:
            self.support
        return self._support_set

    def argmax(self) -> int:
        """Most likely token, ties to the lowest id (like max over the dense list).

        Outside the support P(w) grows with P1(w), so the best token there is the most
        frequent one missing from the support (lowest id among equals).
        """
        if self._argmax is None:
            support_set = self.support_set
            candidates = list(self.support)
            for w in self.base.by_frequency:
                if w not in support_set:
                    candidates.append(w)
                    break
            candidates.sort()
            values = self.probs_at(candidates)
            best = 0
            for i in range(1, len(candidates)):
                if values[i] > values[best]:
                    best = i
            self._argmax = candidates[best]
        return self._argmax

    def entropy(self) -> float:
        """H(P) in nats; the tail sum uses sum_w P1 log P1 precomputed over the base."""
        if self._entropy is None:
            support = self.support
            values = self.probs_at(support)
            head = math.fsum(v * math.log(v) for v in values)
            tail = 0.0
            outside = outside_count(self.base, support)
            if outside:
                base = self.base.probs
                p1_logp1_outside = self.base.plogp_total - math.fsum(
                    base[w] * math.log(base[w]) for w in support)
                s = self.scale
                tail = s * (math.log(s) * outside / self.base.tokens + p1_logp1_outside)
            self._entropy = -(head + tail)
        return self._entropy

    def pairs(self) -> list[list]:
        """[[id, prob], ...] for every id with prob > 0, sorted by id (JSON-ready)."""
        return [[w, v] for w, v in enumerate(self.dense()) if v > 0.0]

    def dense(self) -> list[float]:
        """All V probabilities (O(V), not cached; for display and checks, not for the step)."""
        return self.probs_at(range(len(self.base)))


def outside_count(base: Unigram, ids) -> int:
    """N minus the unigram counts of ids: N * P1(outside ids), as an exact integer."""
    counts = base.counts
    total = base.tokens
    for w in ids:
        total -= counts[w]
    return total


class Residual:
    """max(0, p - q) normalised: what replaces a rejected guess. Also holds beta = sum min(p, q).

    Nested case (every draft on the bench): the draft's chain is the target's chain without
    its top rows (bigram under trigram, unigram under anything, the target itself). Then
    p(w) = A(w) + lam * q(w) with A supported on the top rows' continuations and lam < 1, so
    p - q = A(w) - (1 - lam) q(w) is negative everywhere else: the residual lives on those
    few ids only, and beta = 1 - its mass. Cost: the size of the target's top rows.

    General case: on the union U of both supports the values are computed token by token;
    outside U, p - q = (scale_p - scale_q) * P1(w), so its mass is a scalar times the unigram
    mass outside U, and it is sampled by drawing from P1 until the token falls outside U.
    Models over different unigram bases (hand-made ones in tests) take U = the whole vocabulary.
    """

    __slots__ = ("target", "draft", "union", "union_set", "head_ids", "head_weights",
                 "head_cumulative", "head_mass", "tail_scale", "tail_mass", "total", "beta",
                 "_head")

    def __init__(self, target: ChainDistribution, draft: ChainDistribution, *, general: bool = False):
        """general=True takes the union path even for nested chains (the tests compare both)."""
        self.target, self.draft = target, draft
        self._head = None
        nested = len(draft.rows)
        if not general and draft.base is target.base and target.rows[:nested] == draft.rows:
            self._init_nested(target.rows[nested:])
        else:
            self._init_general()
        self.head_cumulative = list(accumulate(self.head_weights))
        self.total = self.head_mass + self.tail_mass  # = 1 - beta

    def _differences(self, ids: list[int]):
        """ids where p > q with p - q there, and min(p, q) at every id."""
        p_values = self.target.probs_at(ids)
        q_values = self.draft.probs_at(ids)
        head_ids, head_weights, mins = [], [], []
        for w, p, q in zip(ids, p_values, q_values):
            d = p - q
            if d > 0.0:
                head_ids.append(w)
                head_weights.append(d)
                mins.append(q)
            else:
                mins.append(p)
        self.head_ids, self.head_weights = head_ids, head_weights
        self.head_mass = math.fsum(head_weights)
        return mins

    def _init_nested(self, top_rows: tuple[Row, ...]):
        if len(top_rows) == 1:
            ids = top_rows[0].ids
        else:
            ids = sorted({w for row in top_rows for w in row.ids})
        self.union = ids
        self.union_set = None
        self._differences(ids)
        self.tail_scale = 0.0
        self.tail_mass = 0.0
        self.beta = 1.0 - self.head_mass

    def _init_general(self):
        target, draft = self.target, self.draft
        if draft.base is target.base:
            union = sorted(target.support_set | draft.support_set)
        else:
            union = list(range(len(target.base)))
        self.union = union
        self.union_set = frozenset(union)
        mins = self._differences(union)
        base = target.base
        outside_share = outside_count(base, union) / base.tokens  # P1(outside U)
        tail_scale = target.scale - draft.scale
        self.tail_scale = tail_scale if tail_scale > 0.0 else 0.0
        self.tail_mass = self.tail_scale * outside_share
        self.beta = math.fsum(mins) + min(target.scale, draft.scale) * outside_share

    def sample(self, rng) -> int:
        """One draw from the normalised residual. If p = q (nothing left), falls back to p,
        which cannot happen after a real rejection since then every guess is kept."""
        if self.total <= 0.0:
            return self.target.sample(rng)
        u = rng.random() * self.total
        if u < self.head_mass and self.head_ids:
            i = bisect_right(self.head_cumulative, u)
            return self.head_ids[min(i, len(self.head_ids) - 1)]
        base, union = self.target.base, self.union_set
        while True:
            w = base.sample(rng)
            if w not in union:
                return w

    @property
    def head(self) -> dict[int, float]:
        if self._head is None:
            self._head = dict(zip(self.head_ids, self.head_weights))
        return self._head

    def prob(self, w: int) -> float:
        if self.total <= 0.0:
            return 0.0
        d = self.head.get(w)
        if d is not None:
            return d / self.total
        if self.tail_scale > 0.0 and w not in self.union_set:
            return self.tail_scale * self.target.base.probs[w] / self.total
        return 0.0

    def pairs(self) -> list[list]:
        """[[id, prob], ...] for every id with prob > 0, sorted by id (JSON-ready).

        Short in the nested case; with a unigram tail it lists most of the vocabulary (O(V))."""
        if self.total <= 0.0:
            return []
        total = self.total
        if self.tail_scale <= 0.0:
            return [[w, d / total] for w, d in zip(self.head_ids, self.head_weights)]
        head, union, scale = self.head, self.union_set, self.tail_scale
        result = []
        for w, p1 in enumerate(self.target.base.probs):
            if w in union:
                d = head.get(w)
                if d is not None:
                    result.append([w, d / total])
            else:
                result.append([w, scale * p1 / total])
        return result
