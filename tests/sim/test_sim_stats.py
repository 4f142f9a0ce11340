"""The formulas, the measurement, and the chi-square functions the other tests rely on."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from sim import stats
from sim.speculative import speculative_step


# --- formulas -----------------------------------------------------------------------------------

def test_expected_tokens_per_pass():
    for alpha in (0.0, 0.2, 0.6, 0.9, 0.999999):
        for gamma in (0, 1, 4, 16):
            closed = (1 - alpha ** (gamma + 1)) / (1 - alpha)
            assert stats.expected_tokens_per_pass(alpha, gamma) == pytest.approx(closed, rel=1e-9)
    assert stats.expected_tokens_per_pass(1.0, 4) == 5
    assert stats.expected_tokens_per_pass(0.0, 4) == 1
    assert stats.expected_tokens_per_pass(Fraction(1, 2), 2) == Fraction(7, 4)


def test_the_papers_worked_example():
    """alpha = 0.6, gamma = 2, c = 0: ~53% more arithmetic, ~96% faster (theorem 3.11, 3.8)."""
    assert stats.speedup(0.6, 2, 0.0) == pytest.approx(1.96)
    assert stats.arithmetic_factor(0.6, 2, 0.0) == pytest.approx(3 / 1.96)
    assert round(stats.arithmetic_factor(0.6, 2), 2) == 1.53
    assert stats.arithmetic_factor(0.6, 2, 0.5) == pytest.approx(4 / 1.96)
    assert stats.speedup(0.6, 2, 0.1) == pytest.approx(1.96 / 1.2)
    assert stats.arithmetic_factor(1.0, 4) == 1.0


def test_best_gamma_is_the_best_of_all():
    for alpha in (0.0, 0.1, 0.3, 0.5, 0.63, 0.8, 0.9, 0.95, 1.0):
        for c in (0.0, 0.01, 0.1, 0.5):
            best = stats.best_gamma(alpha, c)
            values = [stats.speedup(alpha, g, c) for g in range(1, 33)]
            assert values[best - 1] == max(values)
            assert best == 1 + values.index(max(values))  # the smallest of equals
    assert stats.best_gamma(0.0, 0.1) == 1
    assert stats.best_gamma(1.0, 0.1) == 32
    assert stats.best_gamma(1.0, 0.1, max_gamma=8) == 8


@pytest.mark.parametrize("call", [
    lambda: stats.expected_tokens_per_pass(1.1, 4),
    lambda: stats.expected_tokens_per_pass(-0.1, 4),
    lambda: stats.expected_tokens_per_pass(0.5, -1),
    lambda: stats.speedup(0.5, 4, -0.1),
    lambda: stats.best_gamma(0.5, 0.1, max_gamma=0),
    lambda: stats.arithmetic_factor(0.5, 4, -1),
    lambda: stats.beta([0.5, 0.5], [1.0]),
])
def test_formula_arguments_are_checked(call):
    with pytest.raises(ValueError):
        call()


def test_beta():
    assert stats.beta([0.5, 0.5, 0.0], [0.2, 0.3, 0.5]) == pytest.approx(0.5)
    assert stats.beta([Fraction(1, 3), Fraction(2, 3)], [Fraction(1, 2), Fraction(1, 2)]) == Fraction(5, 6)
    assert stats.beta([0.25] * 4, [0.25] * 4) == 1.0


# --- measure --------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_measure_is_reproducible_and_plausible(sim_languages, lang):
    language = sim_languages[lang]
    first = stats.measure(language, "bigram", gamma=4, n_tokens=2000, seed=7)
    assert first == stats.measure(language, "bigram", gamma=4, n_tokens=2000, seed=7)
    assert 0.3 < first["alpha"] < 0.95
    assert 2000 <= first["tokens"] <= 2004
    assert first["passes"] == sum(first["written_per_pass_counts"])
    assert first["tokens"] == sum(k * n for k, n in enumerate(first["written_per_pass_counts"], 1))
    assert first["tokens_per_pass"] == first["tokens"] / first["passes"]
    assert abs(first["acceptance_rate"] - first["alpha"]) < 0.05
    unigram = stats.measure(language, "unigram", n_tokens=500, seed=7)
    assert unigram["alpha"] < first["alpha"]
    same = stats.measure(language, "same", n_tokens=500, seed=7)
    assert abs(same["alpha"] - 1) < 1e-12 and same["tokens_per_pass"] == 5
    assert first["best_gamma"] == stats.best_gamma(first["alpha"], 0.1)


def test_measure_alpha_is_the_mean_beta_over_checked_positions(en):
    """Replay the same steps and average beta from the dense reference at each checked guess."""
    seed, gamma = 8, 3
    measured = stats.measure(en, "bigram", gamma=gamma, n_tokens=120, seed=seed)
    rng = random.Random(seed)
    context = list(measured["prefix_ids"])[-2:]
    betas, written = [], 0
    while written < 120:
        trace = speculative_step(en.target, en.draft("bigram"), context, gamma, rng)
        guesses = [g.token for g in trace.guesses]
        for i, g in enumerate(trace.guesses):
            if g.checked:
                here = context + guesses[:i]
                betas.append(stats.beta(en.target.distribution(here), en.draft("bigram").distribution(here)))
        written += trace.n_written
        context = (context + trace.written)[-2:]
    assert measured["positions_checked"] == len(betas)
    assert abs(measured["alpha"] - math.fsum(betas) / len(betas)) < 1e-12


def test_measure_greedy_and_bad_arguments(en):
    greedy = stats.measure(en, "bigram", n_tokens=300, seed=1, greedy=True)
    other_seed = stats.measure(en, "bigram", n_tokens=300, seed=2, greedy=True)
    assert {**greedy, "seed": 2} == other_seed  # greedy decoding draws no random numbers
    with pytest.raises(ValueError, match="unknown draft"):
        stats.measure(en, "fourgram")
    with pytest.raises(ValueError, match="gamma"):
        stats.measure(en, "bigram", gamma=0)
    with pytest.raises(ValueError, match="n_tokens"):
        stats.measure(en, "bigram", n_tokens=0)


# --- chi-square -----------------------------------------------------------------------------------

def test_chi_square_tail_matches_closed_forms():
    for x in (0.01, 0.5, 1, 3.84, 10, 30, 60, 120):
        assert stats.chi_square_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-9, abs=1e-300)
        assert stats.chi_square_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-9)
    # Even df = 2k: Q(k, x/2) = exp(-x/2) * sum_{i<k} (x/2)^i / i!  (computed in logs).
    for df in (4, 10, 50, 200, 600, 1200):
        for x in (df * 0.5, df * 0.9, df, df * 1.2, df * 1.5 + 40):
            h = x / 2
            terms = [math.exp(i * math.log(h) - h - math.lgamma(i + 1)) for i in range(df // 2)]
            assert stats.chi_square_sf(x, df) == pytest.approx(math.fsum(terms), rel=1e-8)


def test_chi_square_critical_values():
    assert stats.chi_square_critical(1, 0.05) == pytest.approx(3.841458820694124, rel=1e-9)
    assert stats.chi_square_critical(10, 0.05) == pytest.approx(18.307038053275146, rel=1e-9)
    assert stats.chi_square_critical(1, 1e-6) == pytest.approx(23.92812697687947, rel=1e-9)
    for df in (1, 2, 7, 40, 393, 570, 1000):
        critical = stats.chi_square_critical(df, 1e-6)
        assert stats.chi_square_sf(critical, df) == pytest.approx(1e-6, rel=1e-6)
        if df >= 40:  # Wilson-Hilferty, a rough independent check (z = 4.7534 for 1e-6)
            z = 4.753424308822899
            wh = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
            assert critical == pytest.approx(wh, rel=0.01)


def test_chi_square_statistic_pools_rare_categories():
    statistic, df = stats.chi_square_statistic([50, 30, 15, 3, 2], [0.5, 0.3, 0.15, 0.03, 0.02])
    assert df == 3 and statistic == 0.0  # the two rare ones pooled into one category of 5
    statistic, df = stats.chi_square_statistic([60, 40, 0], [0.5, 0.5, 0.0])
    assert df == 1 and statistic == pytest.approx(4.0)
    statistic, df = stats.chi_square_statistic([60, 38, 2], [0.5, 0.49, 0.01])
    assert df == 1  # a rare pool too small to stand alone joins the smallest category
