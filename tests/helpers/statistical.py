"""The one goodness-of-fit check of the test suite, and the power it has against a wrong sampler.

Every statistical test in the suite asks the same question: do these counts fit these
probabilities? It is answered here, once: Pearson's chi-square over the categories, rare ones
pooled (expected count below MIN_EXPECTED), rejected at odds FALSE_ALARM = 1e-7, below the one
in a million the project allows for a false failure.

A test that cannot fail proves nothing, so each goodness-of-fit test is paired with a named wrong
sampler at the same size (same number of draws, same categories), and `power` computes the
chance that the test rejects it: the upper tail of a noncentral chi-square with the test's
degrees of freedom and noncentrality n * sum_c (q_c - p_c)^2 / p_c over the pooled categories
(the usual large-sample power of Pearson's test). Tests choose their size so that this is at least
POWER = 0.999, state it in their docstring, and also run the wrong sampler to see it rejected.
Imported by name (tests/ is on the path when pytest loads tests/conftest.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sim import stats

FALSE_ALARM = 1e-7
POWER = 0.999
MIN_EXPECTED = 5.0


@dataclass(frozen=True)
class Fit:
    statistic: float
    df: int
    critical: float

    @property
    def passed(self) -> bool:
        return self.statistic < self.critical


def cells(n: int, probabilities: list[float]) -> list[list[int]]:
    """Groups of category indices: one per category expected at least MIN_EXPECTED times in n
    draws, plus one for all the rare ones (merged into the smallest big cell if it is too small)."""
    big = [[i] for i, p in enumerate(probabilities) if n * p >= MIN_EXPECTED]
    rare = [i for i, p in enumerate(probabilities) if n * p < MIN_EXPECTED]
    if not rare:
        return big
    if n * math.fsum(probabilities[i] for i in rare) >= MIN_EXPECTED or not big:
        return big + [rare]
    smallest = min(big, key=lambda group: math.fsum(probabilities[i] for i in group))
    smallest.extend(rare)
    return big


def _sums(values: list, groups: list[list[int]]) -> list:
    return [math.fsum(values[i] for i in g) if isinstance(values[0], float) else sum(values[i] for i in g)
            for g in groups]


def goodness_of_fit(observed: list[int], probabilities: list[float]) -> Fit:
    """Pearson's test of counts against probabilities, at odds FALSE_ALARM."""
    n = sum(observed)
    groups = cells(n, probabilities)
    # The cells already hold MIN_EXPECTED each, so the sim's statistic pools nothing further.
    statistic, df = stats.chi_square_statistic(_sums(observed, groups), _sums(list(map(float, probabilities)), groups),
                                               min_expected=MIN_EXPECTED)
    return Fit(statistic, df, stats.chi_square_critical(df, FALSE_ALARM))


def _log_poisson(j: int, mean: float) -> float:
    return j * math.log(mean) - mean - math.lgamma(j + 1)


def noncentral_chi_square_sf(x: float, df: int, noncentrality: float) -> float:
    """P(X >= x) for X ~ chi-square(df) with noncentrality lam: a Poisson(lam / 2) mixture of
    central chi-squares with df + 2j degrees of freedom, summed outwards from the mode."""
    half = noncentrality / 2
    if half == 0:
        return stats.chi_square_sf(x, df)
    mode = int(half)
    total = 0.0
    for direction in (1, -1):
        j = mode if direction == 1 else mode - 1
        while j >= 0:
            w = math.exp(_log_poisson(j, half))
            total += w * stats.chi_square_sf(x, df + 2 * j)
            if w < 1e-16 and abs(j - half) > 10 * math.sqrt(half + 1):
                break
            j += direction
    return min(1.0, total)  # the Poisson weight not summed (< 1e-12) counts as no rejection


def _falling(n: int, k: int) -> float:
    out = 1.0
    for i in range(k):
        out *= n - i
    return out


def pearson_moments(n: int, p: list[float], q: list[float]) -> tuple[float, float]:
    """Exact mean and standard deviation of Pearson's statistic against p when n draws come from q.

    X = S / n - n with S = sum_i O_i^2 / p_i; the multinomial's factorial moments give E[O_i^2],
    E[O_i^4] and E[O_i^2 O_j^2] exactly, and the double sum over i != j factorises.
    """
    f2, f3, f4 = _falling(n, 2), _falling(n, 3), _falling(n, 4)
    a = [1.0 / x for x in p]
    mean_s = math.fsum(ai * (f2 * qi * qi + n * qi) for ai, qi in zip(a, q))
    sum_a_q2 = math.fsum(ai * qi * qi for ai, qi in zip(a, q))
    sum_a_q = math.fsum(ai * qi for ai, qi in zip(a, q))
    diagonal = math.fsum(ai * ai * (f4 * qi ** 4 + 6 * f3 * qi ** 3 + 7 * f2 * qi ** 2 + n * qi) for ai, qi in zip(a, q))
    square_a = lambda k: math.fsum(ai * ai * qi ** k for ai, qi in zip(a, q))  # noqa: E731
    off = (f4 * (sum_a_q2 ** 2 - square_a(4)) + 2 * f3 * (sum_a_q2 * sum_a_q - square_a(3))
           + f2 * (sum_a_q ** 2 - square_a(2)))
    return mean_s / n - n, math.sqrt(max(0.0, diagonal + off - mean_s ** 2)) / n


def power(n: int, p: list[float], wrong: list[float]) -> float:
    """Chance that n draws from `wrong` fail goodness_of_fit against p.

    Two large-sample approximations, and the smaller is returned: the noncentral chi-square
    (noncentrality n sum (q - p)^2 / p) and a normal law with the statistic's exact mean and
    variance under `wrong`. Checked by simulation on small cases: where the power is near
    0.999 the simulated rejection rate is at least the smaller of the two.
    """
    groups = cells(n, p)
    p_cells = _sums(list(map(float, p)), groups)
    q_cells = _sums(list(map(float, wrong)), groups)
    df = len(groups) - 1
    critical = stats.chi_square_critical(df, FALSE_ALARM)
    lam = n * math.fsum((q - pc) ** 2 / pc for q, pc in zip(q_cells, p_cells))
    mean, sd = pearson_moments(n, p_cells, q_cells)
    normal = 0.5 * math.erfc(-(mean - critical) / (sd * math.sqrt(2))) if sd > 0 else float(mean > critical)
    return min(noncentral_chi_square_sf(critical, df, lam), normal)


def histogram(tokens, size: int) -> list[int]:
    counts = [0] * size
    for t in tokens:
        counts[t] += 1
    return counts


def check_fit_and_power(observed: list[int], p: list[float], wrong_law: list[float],
                        wrong_observed: list[int] | None = None) -> float:
    """The counts fit p; n draws from the wrong sampler's law would fail with power >= POWER;
    and its own counts, at the same size, do fail. Returns the power (tests state it)."""
    n = sum(observed)
    fit = goodness_of_fit(observed, p)
    assert fit.passed, (fit, observed, p)
    strength = power(n, p, wrong_law)
    assert strength >= POWER, (n, strength)
    if wrong_observed is not None:
        assert sum(wrong_observed) == n
        assert not goodness_of_fit(wrong_observed, p).passed, (wrong_observed, p)
    return strength
