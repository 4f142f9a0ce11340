"""The test suite's own statistics (tests/helpers/statistical.py), checked against closed forms and simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers.statistical import FALSE_ALARM, cells, goodness_of_fit, noncentral_chi_square_sf, pearson_moments, power

from sim import stats


def test_noncentral_tail_reduces_to_the_central_one_and_matches_a_closed_form():
    for x, df in ((3.84, 1), (10.0, 4), (60.0, 40)):
        assert noncentral_chi_square_sf(x, df, 0.0) == stats.chi_square_sf(x, df)
    # df = 2: P(X > x) = Q_1(sqrt(lam), sqrt(x)), Marcum's Q; for x = 0 it is 1.
    assert noncentral_chi_square_sf(0.0, 2, 7.0) == pytest.approx(1.0, abs=1e-12)
    # Mean df + lam: the tail at a point far below the mean is nearly 1, far above nearly 0.
    assert noncentral_chi_square_sf(5.0, 3, 200.0) > 1 - 1e-12
    assert noncentral_chi_square_sf(600.0, 3, 200.0) < 1e-12


def test_noncentral_tail_matches_simulation():
    rng = np.random.default_rng(7)
    for df, lam, x in ((3, 10.0, 7.81), (5, 40.0, 30.0), (1, 0.5, 3.84)):
        draws = rng.noncentral_chisquare(df, lam, size=400_000)
        simulated = float((draws >= x).mean())
        se = math.sqrt(simulated * (1 - simulated) / draws.size)
        assert abs(noncentral_chi_square_sf(x, df, lam) - simulated) < 5.5 * se + 1e-4


def test_pearson_moments_are_exact():
    rng = np.random.default_rng(8)
    p, q, n = [0.5, 0.3, 0.15, 0.05], [0.45, 0.3, 0.2, 0.05], 300
    counts = rng.multinomial(n, q, size=300_000)
    x = ((counts - n * np.array(p)) ** 2 / (n * np.array(p))).sum(axis=1)
    mean, sd = pearson_moments(n, p, q)
    assert mean == pytest.approx(x.mean(), abs=5.5 * x.std() / math.sqrt(x.size))
    assert sd == pytest.approx(x.std(), rel=0.01)


@pytest.mark.parametrize("p, q, n", [([0.5, 0.3, 0.2], [0.45, 0.33, 0.22], 10_000),
                                     ([0.4, 0.2, 0.1, 0.1, 0.1, 0.05, 0.05], [0.37, 0.23, 0.1, 0.1, 0.09, 0.06, 0.05], 11_000)])
def test_power_near_the_target_is_not_overstated(p, q, n):
    """Where the computed power is about 0.999, the wrong sampler is rejected at least that often."""
    computed = power(n, p, q)
    assert 0.998 < computed < 0.99995
    groups = cells(n, p)
    critical = stats.chi_square_critical(len(groups) - 1, FALSE_ALARM)
    counts = np.random.default_rng(9).multinomial(n, q, size=40_000)
    expected = n * np.array([sum(p[i] for i in g) for g in groups])
    pooled = np.stack([counts[:, g].sum(axis=1) for g in groups], axis=1)
    rejected = float((((pooled - expected) ** 2 / expected).sum(axis=1) >= critical).mean())
    assert rejected >= computed - 5.5 * math.sqrt(computed * (1 - computed) / 40_000)


def test_goodness_of_fit_pools_rare_categories_like_the_sim():
    observed, p = [40, 30, 20, 5, 3, 2], [0.4, 0.3, 0.2, 0.05, 0.03, 0.02]
    fit = goodness_of_fit(observed, p)
    statistic, df = stats.chi_square_statistic(observed, p)
    assert (fit.statistic, fit.df) == pytest.approx((statistic, df))
    assert fit.passed and not goodness_of_fit([90, 5, 5, 0, 0, 0], p).passed
