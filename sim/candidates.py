"""Several candidates for one position, and the rules that check them, on any distributions.

The draft offers k candidates x1..xk for one position; the target checks them in order against
a distribution that changes after each rejection:

- "exact": SpecInfer's multi-step speculative sampling (Miao et al., ASPLOS 2024, arXiv:2305.09781).
  The candidates are drawn i.i.d. from q, with replacement. x_j is kept when r <= p_j(x_j)/q(x_j),
  where p_1 = p and, after x_j is rejected, p_{j+1} = max(0, p_j - q) normalised; q stays q.
  If all k are rejected, the token is drawn from p_{k+1}. Exact because x_j is a fresh draw from q
  whatever happened before, so the one-candidate identity
      min(p_j, q) + (1 - sum min(p_j, q)) * p_{j+1} = p_j
  unrolls from the last candidate back to the first: the output follows p_1 = p.
  With k = 1 it is Leviathan et al.'s rule. A rejected token has p_j(x) < q(x), so p_{j+1}(x) = 0:
  a repeated candidate is then always rejected (the price of drawing with replacement).
- "recursive": recursive rejection sampling (Jeon et al. 2024, arXiv:2402.14160). The candidates
  are drawn from q without replacement: x_{j+1} from q_{j+1} = q with x1..xj removed and
  renormalised. x_j is kept when r <= p_j(x_j)/q_j(x_j); after a rejection
  p_{j+1} = max(0, p_j - q_j) normalised. The same identity on (p_j, q_j) makes it exact.

and three rules that are wrong on purpose, for the page to show drifting:
- "keep_any_survivor": every candidate is checked on its own against the original p,
  r <= p(x_j)/q(x_j), the first survivor kept, the residual max(0, p - q) if none survives.
  A token the draft likes less than the target gets k chances at the full min(p, q) share.
- "replace_from_p", "typical": the one-candidate rules of sim.speculative, candidate after
  candidate (checked against p), the replacement drawn from p.

Distributions here are anything with prob(w), probs_at(ids) and sample(rng): the models'
ChainDistribution, the Residual of sim.sparse, and those of sim.weights (Weights, whose
arithmetic also runs on fractions.Fraction, so the tests enumerate exactly the code the sampler
runs; HeadAndTail, a tempered chain or its residual).
"""

from __future__ import annotations

from collections import OrderedDict

from .sparse import ChainDistribution, Residual
from .speculative import RULES, residual_of, typical_threshold
from .speculative import _exact_or_float_sum as _total  # floats: fsum; Fractions: exact
from .weights import HeadAndTail, Weights, head_and_tail_residual

# The bench's rules (sim.speculative.RULES, k = 1) and the two that only mean something with k > 1.
CANDIDATE_RULES = (*RULES, "recursive", "keep_any_survivor")
WITHOUT_REPLACEMENT = ("recursive",)


class WithoutTokens:
    """q with some tokens removed and renormalised: what is left to draw from without replacement."""

    __slots__ = ("q", "removed", "mass")

    def __init__(self, q, removed):
        self.q = q
        self.removed = frozenset(removed)
        self.mass = 1 - _total(q.probs_at(sorted(self.removed)))

    def prob(self, w: int):
        return 0 * self.mass if w in self.removed else self.q.prob(w) / self.mass

    def probs_at(self, ids) -> list:
        return [self.prob(w) for w in ids]

    def sample(self, rng) -> int:
        """A draw from q, again until it is not a removed token (rejection keeps q's own sampler)."""
        while True:
            w = self.q.sample(rng)
            if w not in self.removed:
                return w


def _support_and_probs(p):
    """(ids, probabilities) of p where it may be positive."""
    if isinstance(p, Weights):
        return p.ids, [w / p.total for w in p.weights]
    if isinstance(p, HeadAndTail) and p.coef <= 0:
        return p.ids, [w / p.total for w in p.weights]
    if isinstance(p, Residual) and p.tail_scale <= 0.0:
        return p.head_ids, [d / p.total for d in p.head_weights]
    if isinstance(p, (Residual, HeadAndTail)):  # with a tail: every id (O(V))
        pairs = p.pairs()
        return [w for w, _ in pairs], [v for _, v in pairs]
    ids = range(len(p.base))  # a whole chain, against a distribution that is not one
    return ids, p.probs_at(ids)


_RESIDUALS: OrderedDict = OrderedDict()
_RESIDUAL_CACHE_SIZE = 1024  # entries keep tempered distributions alive: bounded memory


def residual(p, q):
    """max(0, p - q) normalised: Weights, or the cached Residual for two chains; None if nothing
    is left (p = q, when no candidate can be rejected). Cached: the residuals of tempered
    distributions cost O(V), and the next residual is keyed by the cached one."""
    if isinstance(p, ChainDistribution) and isinstance(q, ChainDistribution):
        result = residual_of(p, q)
        return result if result.total > 0 else None
    if isinstance(q, WithoutTokens):  # made afresh for every draw: nothing to reuse
        return _residual(p, q)
    key = (id(p), id(q))
    hit = _RESIDUALS.get(key)
    if hit is not None and hit[0] is p and hit[1] is q:
        _RESIDUALS.move_to_end(key)
        return hit[2]
    result = _residual(p, q)
    _RESIDUALS[key] = (p, q, result)
    if len(_RESIDUALS) > _RESIDUAL_CACHE_SIZE:
        _RESIDUALS.popitem(last=False)
    return result


def _residual(p, q):
    if isinstance(p, HeadAndTail) and isinstance(q, HeadAndTail) and p.table is q.table:
        return head_and_tail_residual(p, q)
    ids, p_values = _support_and_probs(p)
    q_values = q.probs_at(ids)
    kept = [(w, a - b) for w, a, b in zip(ids, p_values, q_values) if a > b]
    if not kept:
        return None
    return Weights([w for w, _ in kept], [d for _, d in kept])


def draw_candidates(q, k: int, rng, rule: str) -> list[int]:
    """k candidates from q: i.i.d. (with replacement), or without replacement for "recursive"
    (fewer than k if q has fewer tokens). One uniform draw per candidate from q's sampler, plus
    any redrawn repeats without replacement."""
    if rule not in WITHOUT_REPLACEMENT:
        return [q.sample(rng) for _ in range(k)]
    drawn: list[int] = []
    left = q
    for _ in range(k):
        if drawn and not left.mass > 0:
            break
        x = left.sample(rng)
        drawn.append(x)
        left = WithoutTokens(q, drawn)
    return drawn


def top_tokens(dist, k: int) -> list[int]:
    """The k likeliest tokens, likeliest first, ties to the lowest id (greedy candidates)."""
    if isinstance(dist, ChainDistribution):
        if k == 1:
            return [dist.argmax()]
        ids = list(dist.support)
        inside = dist.support_set
        for w in dist.base.by_frequency:  # outside the support P grows with P1
            if len(ids) >= len(dist.support) + k:
                break
            if w not in inside:
                ids.append(w)
        values = dist.probs_at(ids)
    else:
        ids, values = dist.ids, dist.weights
    order = sorted(range(len(ids)), key=lambda i: (-values[i], ids[i]))
    return [ids[i] for i in order[:k]]


class Verifier:
    """One position's check, candidate by candidate: what decides the next candidate, and what is
    drawn once all are rejected. The same object serves the sampler (floats) and the tests (Fractions)."""

    def __init__(self, p, q, rule: str):
        if rule not in CANDIDATE_RULES:
            raise ValueError(f"unknown rule {rule!r}; choose one of {list(CANDIDATE_RULES)}")
        self.p, self.q, self.rule = p, q, rule
        self.p_now, self.q_now = p, q  # p_j and q_j
        self.rejected: list[int] = []

    @property
    def draws_r(self) -> bool:
        """Whether a uniform r decides (not for "typical", whose test is a threshold)."""
        return self.rule != "typical"

    def ratio(self, x: int):
        """What r is compared with: p_j(x)/q_j(x) for the exact rules, p(x)/q(x) for the others
        (kept when r <= it; "typical" draws no r and shows the ratio only)."""
        if self.rule in ("exact", "recursive"):
            return self.p_now.prob(x) / self.q_now.prob(x)
        return self.p.prob(x) / self.q.prob(x)

    def passes_threshold(self, x: int) -> bool:
        """Medusa's typical acceptance: p(x) above min(epsilon, delta exp(-H(p)))."""
        return self.p.prob(x) > typical_threshold(self.p)

    def reject(self, x: int) -> None:
        """x was rejected: move on to p_{j+1} (and q_{j+1} without replacement)."""
        self.rejected.append(x)
        if self.rule == "exact":
            self.p_now = residual(self.p_now, self.q) or self.p_now
        elif self.rule == "recursive":
            self.p_now = residual(self.p_now, self.q_now) or self.p_now
            self.q_now = WithoutTokens(self.q, self.rejected)

    def fallback(self):
        """What the token is drawn from once every candidate was rejected."""
        if self.rule in ("exact", "recursive"):
            return self.p_now
        if self.rule == "keep_any_survivor":
            return residual(self.p, self.q) or self.p
        return self.p

