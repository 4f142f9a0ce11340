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
- "topk": the draft's k likeliest tokens (those q gives any probability, likeliest first, ties to
  the lower id), chosen, not drawn: the tree EAGLE-2 and EAGLE-3 build, and SGLang's trees.
  A chosen candidate is a point mass, q_j = 1 at x_j, so the one-candidate rule becomes: keep
  x_j when r <= p_j(x_j); after a refusal p_{j+1} = p_j with x_j struck out and renormalised
  (max(0, p_j - point mass) normalised); if all k are refused, draw from p_{k+1}. Exact by the
  same identity: P(x_j) = p(x_j) for each candidate and p(y) for every other token, whatever q
  is; q only decides which tokens are offered. (SGLang's TreeSpeculativeSamplingTargetOnly
  kernel draws one uniform u per position and keeps the first x_j with u <= p(x_1) + ... +
  p(x_j): the same law, each candidate kept with probability p(x_j).)

and three rules that are wrong on purpose, for the page to show drifting:
- "keep_any_survivor": every candidate is checked on its own against the original p,
  r <= p(x_j)/q(x_j), the first survivor kept, the residual max(0, p - q) if none survives.
  A token the draft likes less than the target gets k chances at the full min(p, q) share.
- "replace_from_p", "typical": the one-candidate rules of sim.speculative, candidate after
  candidate (checked against p), the replacement drawn from p.

Checking chosen candidates as if they had been drawn from q (r <= p_j(x_j)/q(x_j), SpecInfer's
rule on the draft's top k) is not exact: the tests run it as the wrong variant of "topk".

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

# The bench's rules: sim.speculative.RULES (k = 1), two more exact ones and one wrong on purpose
# that only differs from them with k > 1 ("topk" differs from "exact" at any k: its candidates are chosen).
CANDIDATE_RULES = (*RULES, "recursive", "topk", "keep_any_survivor")
EXACT_RULES = ("exact", "recursive", "topk")  # the rules that keep the target's distribution
WITHOUT_REPLACEMENT = ("recursive",)
CHOSEN = ("topk",)  # candidates are the draft's likeliest, not draws
# Below this mass, what is left of p after striking the refused candidates is listed token by token
# (O(V)) rather than drawn by redrawing from p until a token is not struck (1/mass draws on average).
LISTED_BELOW = 1 / 16


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

    def pairs(self) -> list[list]:
        """[[id, prob], ...] where positive, sorted by id (O(V) when q has a tail)."""
        ids, values = _support_and_probs(self.q)
        mass = self.mass
        return sorted([w, v / mass] for w, v in zip(ids, values) if v > 0 and w not in self.removed)

    def sample(self, rng) -> int:
        """A draw from q, again until it is not a removed token (rejection keeps q's own sampler)."""
        while True:
            w = self.q.sample(rng)
            if w not in self.removed:
                return w


def _support_and_probs(p):
    """(ids, probabilities) of p where it may be positive."""
    if isinstance(p, WithoutTokens):
        ids, values = _support_and_probs(p.q)
        kept = [(w, v / p.mass) for w, v in zip(ids, values) if w not in p.removed]
        return [w for w, _ in kept], [v for _, v in kept]
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
    (fewer than k if q has fewer tokens), or chosen for "topk" (likeliest_candidates: no random
    number). One uniform draw per candidate from q's sampler, plus any redrawn repeats without
    replacement."""
    if rule in CHOSEN:
        return likeliest_candidates(q, k)
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


def likeliest_candidates(q, k: int) -> list[int]:
    """The "topk" rule's candidates: q's k likeliest tokens that q gives any probability (fewer
    when a top-p cut leaves fewer), likeliest first, ties to the lowest id."""
    return [w for w in top_tokens(q, k) if q.prob(w) > 0]


def top_tokens(dist, k: int) -> list[int]:
    """The k likeliest tokens, likeliest first, ties to the lowest id (greedy candidates)."""
    if isinstance(dist, HeadAndTail) and dist.coef > 0:  # a tempered chain: its tail in P1's order
        tail = [w for w in dist.table.base.by_frequency[:len(dist.inside) + k] if w not in dist.inside][:k]
        pairs = list(zip(dist.ids, dist.weights)) + [(w, dist.coef * dist.table.values[w]) for w in tail]
        pairs.sort(key=lambda pair: (-pair[1], pair[0]))
        return [w for w, _ in pairs[:k]]
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
        if self.rule in CHOSEN:  # q_j is the point mass at x: p_j(x) / 1
            return self.p_now.prob(x)
        if self.rule in EXACT_RULES:
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
        elif self.rule in CHOSEN:
            self.p_now = struck_out(self.p, self.rejected) or self.p_now

    def fallback(self):
        """What the token is drawn from once every candidate was rejected."""
        if self.rule in EXACT_RULES:
            return self.p_now
        if self.rule == "keep_any_survivor":
            return residual(self.p, self.q) or self.p
        return self.p



def struck_out(p, removed):
    """p with the tokens `removed` struck out and renormalised (what "topk" checks the next
    candidate against, and draws from once all are refused); None if nothing is left (only by
    float rounding: a candidate holding all that is left is kept for sure). Below LISTED_BELOW
    of mass the rest is listed token by token, so a draw never waits on many redraws from p."""
    left = WithoutTokens(p, removed)
    if isinstance(left.mass, float) and left.mass < LISTED_BELOW:
        ids, values = _support_and_probs(p)
        kept = [(w, v) for w, v in zip(ids, values) if v > 0 and w not in left.removed]
        return Weights([w for w, _ in kept], [v for _, v in kept]) if kept else None
    return left if left.mass > 0 else None


def chosen_law(p, q, k: int, rule: str, size: int) -> list:
    """The law of the token written when q's k likeliest (likeliest_candidates) are checked by
    `rule` (floats, or Fractions for Weights of Fractions): "topk" gives p itself; "exact"
    checks the chosen candidates as if they had been drawn from q, which is not exact."""
    verifier, law, still = Verifier(p, q, rule), [0 * p.prob(0)] * size, 1 + 0 * p.prob(0)
    for x in likeliest_candidates(q, k):
        keep = min(1, verifier.ratio(x))
        law[x] += still * keep
        still *= 1 - keep
        if not still:
            return law
        verifier.reject(x)
    rest = verifier.fallback()
    return [a + still * rest.prob(w) for w, a in enumerate(law)]
