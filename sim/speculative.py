"""One step of speculative sampling (Leviathan et al. 2023; Chen et al. 2023), traced for display.

The draft q proposes gamma tokens one after another; the target p scores every position in
one pass. Guesses are checked left to right: a guess x is kept when r <= p(x)/q(x) for a fresh
r ~ U[0, 1) (always, when q(x) <= p(x)). At the first rejection the rest are discarded and a
replacement is drawn from the residual max(0, p - q) / sum max(0, p - q). If every guess is
kept, a bonus token is drawn from p at the position after the last guess. Each step therefore
writes between 1 and gamma + 1 tokens, and every token written follows p exactly:
P(x) = min(p(x), q(x)) + (1 - sum_y min(p(y), q(y))) * residual(x) = p(x).

Two other rules exist for the page to show what goes wrong:
- "replace_from_p": the replacement comes from p instead of the residual. Deliberately
  broken: tokens the draft likes are then written too often.
- "typical": Medusa's typical acceptance (Cai et al. 2024, arXiv:2401.10774, section 2.3.1):
  keep a guess x when p(x) > min(epsilon, delta * exp(-H(p))), H in nats, with the defaults
  of the Medusa reference code, epsilon = 0.09 and delta = 0.3 = sqrt(epsilon)
  (posterior_threshold and posterior_alpha there, "recommended to be sqrt(posterior_threshold)");
  the comparison is strict, as in that code. On rejection a replacement is drawn from p.
  Not exact: guesses the target finds plausible are written whenever the draft offers them,
  so the written tokens do not follow p (tests/sim shows a chi-square test catching it).

Random numbers come only from the injected random.Random, in a fixed order (the draft's
guesses, then one r per checked guess, then the replacement or bonus draw), so one seed gives
one trace in every Python, CPython or Pyodide.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, field

from .sparse import ChainDistribution, Residual

# In the order the bench lists them: the exact rule, then the two that show why it matters.
RULES = ("exact", "typical", "replace_from_p")
TYPICAL_EPSILON = 0.09
TYPICAL_DELTA = 0.3


# --- the rule in plain arithmetic (works on floats and on fractions.Fraction) -------------

def keep_probability(p_x, q_x):
    """Chance that a guess x drawn from q is kept: min(1, p(x)/q(x))."""
    ratio = p_x / q_x
    return ratio if ratio < 1 else type(ratio)(1)


def residual_distribution(p: list, q: list) -> list:
    """Dense normalised max(0, p - q); all zeros when p = q (then nothing is ever rejected)."""
    differences = [pi - qi if pi > qi else 0 * pi for pi, qi in zip(p, q)]
    total = _exact_or_float_sum(differences)
    if not total:
        return differences
    return [d / total for d in differences]


def _exact_or_float_sum(values):
    if values and isinstance(values[0], float):
        return math.fsum(values)
    total = 0
    for v in values:
        total += v
    return total


def typical_threshold(p: ChainDistribution, epsilon: float = TYPICAL_EPSILON,
                      delta: float = TYPICAL_DELTA) -> float:
    """Medusa's typical-acceptance threshold min(epsilon, delta * exp(-H(p)))."""
    return min(epsilon, delta * math.exp(-p.entropy()))


# --- residuals are cached: the same pair of contexts comes back often ----------------------

_RESIDUALS: OrderedDict = OrderedDict()
_RESIDUAL_CACHE_SIZE = 4096


def residual_of(target: ChainDistribution, draft: ChainDistribution) -> Residual:
    """The (cached) Residual of a target and a draft distribution; also carries beta."""
    key = (id(target), id(draft))
    residual = _RESIDUALS.get(key)
    if residual is not None and residual.target is target and residual.draft is draft:
        _RESIDUALS.move_to_end(key)
        return residual
    residual = Residual(target, draft)
    _RESIDUALS[key] = residual
    if len(_RESIDUALS) > _RESIDUAL_CACHE_SIZE:
        _RESIDUALS.popitem(last=False)
    return residual


# --- the trace ------------------------------------------------------------------------------

@dataclass
class GuessCheck:
    """One draft guess and what the target made of it.

    checked is False for guesses after the first rejection (discarded unchecked); r is None
    when no random number decides (greedy, typical, or unchecked).
    """

    token: int
    q: float
    p: float
    ratio: float
    r: float | None
    kept: bool
    checked: bool
    target_dist: ChainDistribution = field(repr=False, compare=False)
    draft_dist: ChainDistribution = field(repr=False, compare=False)

    def to_dict(self) -> dict:
        return {"token": self.token, "q": self.q, "p": self.p, "ratio": self.ratio,
                "r": self.r, "kept": self.kept, "checked": self.checked}


@dataclass
class StepTrace:
    """Everything one speculative step did, for the page to replay."""

    context: list[int]
    gamma: int
    rule: str
    greedy: bool
    target: str
    draft: str
    guesses: list[GuessCheck]
    n_kept: int
    replacement: int | None  # written after a rejection
    residual: object | None  # what the replacement was drawn from (Residual, or p itself)
    bonus: int | None  # written when every guess was kept
    written: list[int]

    @property
    def n_written(self) -> int:
        return len(self.written)

    def to_dict(self) -> dict:
        """JSON-safe and deterministic: equal traces give equal dicts (compare with ==).

        residual is a sparse list of [id, prob] with prob > 0, sorted by id (it may list most
        of the vocabulary: building it costs O(V), so call this only for steps shown).
        """
        return {
            "context": list(self.context),
            "gamma": self.gamma,
            "rule": self.rule,
            "greedy": self.greedy,
            "target": self.target,
            "draft": self.draft,
            "guesses": [g.to_dict() for g in self.guesses],
            "n_kept": self.n_kept,
            "replacement": self.replacement,
            "residual": None if self.residual is None else self.residual.pairs(),
            "bonus": self.bonus,
            "written": list(self.written),
            "n_written": self.n_written,
        }


# --- checks ------------------------------------------------------------------------------------

def _check_arguments(target, draft, context, gamma, rule):
    # Any number of guesses is a valid step (the bench's own limit is in sim/bench/settings.py).
    if type(gamma) is not int or gamma < 1:
        raise ValueError(f"gamma must be a positive integer, got {gamma!r}")
    _check_rule(rule)
    if draft.vocab_size != target.vocab_size:
        raise ValueError("draft and target have different vocabularies")
    return target.check_context(context)


def _check_rule(rule):
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}; choose one of {list(RULES)}")


def _kept(p_x: float, q_x: float, p: ChainDistribution, rule: str, rng):
    """(kept, r) for one guess under a sampling rule."""
    if rule == "typical":
        return p_x > typical_threshold(p), None
    r = rng.random()
    return r <= p_x / q_x, r


def _replacement(p: ChainDistribution, q: ChainDistribution, rule: str, rng):
    """(token, distribution drawn from) after a rejection under a sampling rule."""
    if rule == "exact":
        residual = residual_of(p, q)
        return residual.sample(rng), residual
    return p.sample(rng), p


# --- the public entry points -------------------------------------------------------------------

def speculative_step(target, draft, context, gamma, rng, *, greedy=False, rule="exact") -> StepTrace:
    """Run one draft-then-check step after `context` (token ids) and return its trace.

    rule is "exact", "replace_from_p" or "typical" (see the module docstring). With
    greedy=True the draft and the target both take their most likely token (ties to the
    lowest id), a guess is kept iff it is the target's choice, no random number is drawn,
    and rule plays no part.
    """
    context = _check_arguments(target, draft, context, gamma, rule)
    keep = max(target.order, draft.order) - 1  # the models look no further back
    running = context[max(0, len(context) - keep):]
    start = len(running)
    drafted = []
    for _ in range(gamma):
        q = draft.sparse(running)
        x = q.argmax() if greedy else q.sample(rng)
        drafted.append((x, q))
        running.append(x)

    guesses: list[GuessCheck] = []
    written: list[int] = []
    replacement = residual = bonus = None
    rejected = False
    for i, (x, q) in enumerate(drafted):
        p = target.sparse(running[: start + i])
        p_x, q_x = p.prob(x), q.prob(x)
        if rejected:
            guesses.append(GuessCheck(x, q_x, p_x, p_x / q_x, None, False, False, p, q))
            continue
        if greedy:
            best = p.argmax()
            kept, r = x == best, None
        else:
            kept, r = _kept(p_x, q_x, p, rule, rng)
        guesses.append(GuessCheck(x, q_x, p_x, p_x / q_x, r, kept, True, p, q))
        if kept:
            written.append(x)
            continue
        rejected = True
        if greedy:
            replacement = best
        else:
            replacement, residual = _replacement(p, q, rule, rng)
        written.append(replacement)
    if not rejected:
        p = target.sparse(running)
        bonus = p.argmax() if greedy else p.sample(rng)
        written.append(bonus)
    n_kept = sum(1 for g in guesses if g.kept)
    return StepTrace(context, gamma, rule, greedy, target.name, draft.name, guesses, n_kept,
                     replacement, residual, bonus, written)


def sample_target(target, context, rng, *, greedy=False) -> int:
    """The next token straight from the target (the comparison tube)."""
    p = target.sparse(target.check_context(context))
    return p.argmax() if greedy else p.sample(rng)


def first_token(target, draft, context, rng, *, rule="exact") -> tuple[int, bool]:
    """One speculative draw of the next token: (token, kept), kept False for a replacement.

    Uses random numbers in the same order as speculative_step with gamma = 1, so it writes
    the same first token for the same generator state.
    """
    return first_tokens(target, draft, context, rng, 1, rule=rule)[0]


def first_tokens(target, draft, context, rng, n: int, *, rule="exact") -> list[tuple[int, bool]]:
    """n independent speculative draws of the next token after the same context (the test
    tube's rounds); each is what first_token would return, one after another."""
    _check_rule(rule)
    if type(n) is not int or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    context = target.check_context(context)
    q = draft.sparse(context)
    p = target.sparse(context)
    draws = []
    for _ in range(n):
        x = q.sample(rng)
        kept, _ = _kept(p.prob(x), q.prob(x), p, rule, rng)
        if kept:
            draws.append((x, True))
        else:
            draws.append((_replacement(p, q, rule, rng)[0], False))
    return draws
