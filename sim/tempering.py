"""Temperature and top-p: the distributions the two models actually sample from.

Chapter 05 ("The acceptance rule") defines p and q as each model's distribution after any
temperature or top-k/top-p cut; the rule and its proof never ask where they came from. So both
models' distributions are reshaped here, the same way, before the rule sees them:

    tempered(P, T)(w) = P(w)^(1/T) / sum_v P(v)^(1/T)      (softmax of the logits divided by T)

then top-p (nucleus sampling, Holtzman et al. 2020): keep the smallest set of likeliest tokens
(ties: lower id first) whose mass reaches top_p, and renormalise. T = 1 with top_p = 1 leaves a
distribution as it is (the sampler then runs on the models' own chains, bit for bit);
T = 0 is greedy decoding, which the step handles itself (argmax), so it never reaches here.

A model's chain (sim.sparse) is P(w) = scale * P1(w) outside its support, so tempered it is
scale^(1/T) * P1(w)^(1/T) there: one table of P1^(1/T) per model base and temperature, and the
tempered chain costs the size of its support, like the chain itself (HeadAndTail below; its
residuals keep that shape). A top-p cut leaves a short explicit list (candidates.Weights).
Results are cached per distribution and setting, like the residuals.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from fractions import Fraction

from .weights import HeadAndTail, PowerTable, Weights

TEMPERATURES = (0.0, 0.5, 0.7, 1.0, 1.3)  # 0 = greedy
TOP_PS = (0.9, 0.95, 1.0)  # 1 = no cut
_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 1024  # sparse entries, but a top-p nucleus can hold most of V: bounded


def check_sampling(temperature, top_p) -> None:
    """A clear error for a temperature or top-p outside the fixed sets."""
    if temperature not in TEMPERATURES:
        raise ValueError(f"temperature must be one of {list(TEMPERATURES)}, got {temperature!r}")
    if top_p not in TOP_PS:
        raise ValueError(f"top_p must be one of {list(TOP_PS)}, got {top_p!r}")


def is_plain(temperature, top_p) -> bool:
    """True when sampling uses the models' distributions unchanged."""
    return temperature == 1 and top_p >= 1


def temper_values(ids, probs: list, temperature, top_p) -> Weights:
    """The tempered, top-p-cut distribution of probabilities `probs` at `ids`.

    Fractions stay exact when 1/T is a whole number (T = 1, 0.5); floats are scaled by the
    largest value first, so no power underflows."""
    if not 0 < temperature:
        raise ValueError(f"temperature must be positive here (0 is greedy), got {temperature!r}")
    exact = bool(probs) and isinstance(probs[0], Fraction)
    if temperature == 1:
        weights = list(probs)
    elif exact:
        exponent = 1 / Fraction(str(temperature))
        if exponent.denominator != 1:
            raise ValueError(f"exact tempering needs 1/T to be a whole number, got T = {temperature}")
        weights = [v ** exponent.numerator for v in probs]
    else:
        top = max(probs)
        weights = [power(v / top, 1 / temperature) for v in probs]
    pairs_kept = [(w, v) for w, v in zip(ids, weights) if v > 0]
    if top_p < 1:
        pairs_kept = _nucleus(pairs_kept, Fraction(str(top_p)) if exact else top_p)
    if len(pairs_kept) == len(weights) and isinstance(ids, range):
        return Weights(ids, weights)
    return Weights([w for w, _ in pairs_kept], [v for _, v in pairs_kept])


def _nucleus(pairs: list, top_p) -> list:
    """The likeliest (id, weight) pairs whose mass first reaches top_p of the total, by id."""
    values = [v for _, v in pairs]
    total = math.fsum(values) if values and isinstance(values[0], float) else sum(values)
    threshold = top_p * total
    kept, mass = [], 0 * total
    for w, v in sorted(pairs, key=lambda pair: (-pair[1], pair[0])):
        kept.append((w, v))
        mass += v
        if mass >= threshold:
            break
    return sorted(kept)


def tempered(dist, temperature, top_p):
    """dist reshaped by temperature and top-p (dist itself when both are neutral); cached."""
    if is_plain(temperature, top_p):
        return dist
    key = (id(dist), temperature, top_p)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is dist:
        _CACHE.move_to_end(key)
        return hit[1]
    result = tempered_chain(dist, temperature, top_p)
    _CACHE[key] = (dist, result)
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return result


_TABLES: dict = {}
_LN2_HI, _LN2_LO = 0.6931471805599453, 2.3190468138462996e-17  # ln 2 = hi + lo
_SQRT_HALF = 0.7071067811865476


def power(x: float, a: float) -> float:
    """x ** a for 0 < x, from +, -, *, / and exact frexp/ldexp only (a few ulps from x ** a).

    Not x ** a itself: pow() comes from the platform's C library, which is not correctly rounded
    everywhere, and Pyodide's differs from glibc's in the last bit now and then; a trace must be
    the same in every Python (tests/sim/test_tree_pyodide.py). IEEE arithmetic is."""
    m, e = math.frexp(x)  # x = m 2^e, 0.5 <= m < 1
    if m < _SQRT_HALF:
        m, e = 2 * m, e - 1
    s = (m - 1) / (m + 1)  # ln m = 2 atanh(s), |s| < 0.172
    s2 = s * s
    series, term = 0.0, s
    for n in range(1, 24, 2):
        series += term / n
        term *= s2
    y = a * (2 * series) + a * e * _LN2_HI  # a ln x
    k = round(y / _LN2_HI)
    r = (y - k * _LN2_HI) - k * _LN2_LO + a * e * _LN2_LO  # |r| < 0.35
    total, term = 1.0, 1.0
    for n in range(1, 18):
        term = term * r / n
        total += term
    return math.ldexp(total, k)


def power_table(base, exponent: float) -> PowerTable:
    """P1(w)^exponent over a unigram base, with its cumulative sums (one per base and temperature)."""
    key = (id(base), exponent)
    hit = _TABLES.get(key)
    if hit is None or hit.base is not base:
        hit = _TABLES[key] = PowerTable(base, [power(v, exponent) for v in base.probs])
    return hit


def tempered_chain(dist, temperature, top_p):
    """A chain tempered in the time of its support: head = support values^(1/T), tail =
    scale^(1/T) * P1^(1/T) elsewhere; then the top-p cut, if any, as explicit Weights."""
    exponent = 1 / temperature
    support = dist.support
    head = [power(v, exponent) for v in dist.probs_at(support)]
    result = HeadAndTail(support, head, power(dist.scale, exponent), power_table(dist.base, exponent),
                         dist.support_set)
    return result if top_p >= 1 else result.nucleus(top_p)
