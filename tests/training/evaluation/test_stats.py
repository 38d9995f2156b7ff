"""Confidence intervals and Bradley-Terry / Elo ratings."""
from __future__ import annotations

import math

import numpy as np
import pytest

from parlor.training.evaluation.stats import (
    bradley_terry,
    elo_ratings,
    expected_score,
    mean_ci,
    ratio_ci,
    ratio_wilson,
    t_quantile_975,
    wilson_interval,
)


def test_t_quantiles_match_the_table_and_approach_the_normal() -> None:
    assert t_quantile_975(1) == pytest.approx(12.706)
    assert t_quantile_975(10) == pytest.approx(2.228)
    assert t_quantile_975(40) == pytest.approx(2.021, abs=1e-3)
    assert t_quantile_975(120) == pytest.approx(1.980, abs=1e-3)
    assert t_quantile_975(10_000) == pytest.approx(1.960, abs=1e-3)
    with pytest.raises(ValueError):
        t_quantile_975(0)


def test_mean_ci_of_a_known_sample() -> None:
    mean, half = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    assert half == pytest.approx(3.182 * math.sqrt(5 / 3) / 2)
    assert math.isnan(mean_ci([1.0])[1]) and math.isnan(mean_ci([])[0])


def test_ci_width_shrinks_with_more_games() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(0.0, 1.0, 6400)
    widths = [mean_ci(x[:n])[1] for n in (100, 400, 1600, 6400)]
    assert widths[0] > widths[1] > widths[2] > widths[3]
    assert widths[0] / widths[3] == pytest.approx(8.0, rel=0.15)  # 1/sqrt(n)


def test_bradley_terry_recovers_known_strengths() -> None:
    true = np.array([4.0, 2.0, 1.0])
    rng = np.random.default_rng(1)
    wins = np.zeros((3, 3))
    for i in range(3):
        for j in range(i + 1, 3):
            w = rng.binomial(4000, true[i] / (true[i] + true[j]))
            wins[i, j], wins[j, i] = w, 4000 - w
    p = bradley_terry(wins)
    assert p[0] / p[1] == pytest.approx(2.0, rel=0.1)
    assert p[1] / p[2] == pytest.approx(2.0, rel=0.1)


def test_elo_orders_a_synthetic_tournament_and_predicts_its_scores() -> None:
    # A beats B 75%, B beats C 75%, A beats C 90%
    wins = np.array([[0, 75, 90], [25, 0, 75], [10, 25, 0]], dtype=float)
    elo = elo_ratings(wins)
    assert elo[0] > elo[1] > elo[2]
    assert elo.mean() == pytest.approx(1500.0)
    assert expected_score(elo[0], elo[1]) == pytest.approx(0.75, abs=0.05)


def test_an_unbeaten_player_gets_a_finite_rating() -> None:
    elo = elo_ratings(np.array([[0, 10], [0, 0]], dtype=float))
    assert np.all(np.isfinite(elo)) and elo[0] > elo[1]


def test_ratio_ci_is_the_ratio_of_sums_with_a_delta_method_interval() -> None:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 4000).astype(float)
    x = 2.5 * y + rng.normal(0, 1, y.size)
    ratio, ci = ratio_ci(x, y)
    assert ratio == pytest.approx(x.sum() / y.sum())
    assert abs(ratio - 2.5) < ci < 0.1   # covers the truth, and is narrow with 4000 samples
    small_ratio, small_ci = ratio_ci(x[:400], y[:400])
    assert small_ci > ci
    assert math.isnan(ratio_ci([1.0, 2.0], [0.0, 0.0])[0])   # nothing to divide by
    assert math.isnan(ratio_ci([1.0], [2.0])[1]) and ratio_ci([1.0], [2.0])[0] == 0.5
    with pytest.raises(ValueError, match="differ in length"):
        ratio_ci([1.0], [1.0, 2.0])


@pytest.mark.parametrize("successes,trials", [(0, 5), (5, 5), (1, 3), (2.5, 7), (50, 100), (0, 1)])
def test_wilson_interval_stays_in_0_1_and_holds_the_rate(successes, trials) -> None:
    from parlor.training.evaluation.stats import wilson_interval

    low, high = wilson_interval(successes, trials)
    assert 0.0 <= low <= successes / trials <= high <= 1.0 and high - low > 0.05


def test_wilson_interval_matches_the_textbook_value_and_refuses_bad_counts() -> None:
    from parlor.training.evaluation.stats import wilson_interval

    low, high = wilson_interval(8, 10)  # 0.8 of 10: Wilson (0.490, 0.943)
    assert (round(low, 3), round(high, 3)) == (0.490, 0.943)
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    with pytest.raises(ValueError, match="successes must lie in 0..trials"):
        wilson_interval(3, 2)


def test_a_rate_of_counts_gets_a_wilson_interval_inside_0_1_where_the_delta_ci_crosses_0() -> None:
    rng = np.random.default_rng(5)
    hands = rng.integers(4, 7, size=60).astype(float)  # regular hands per episode
    entries = np.zeros(60)
    entries[[3, 40]] = 1.0  # two Fantasyland entries in 60 episodes
    rate, half = ratio_ci(entries, hands)
    assert rate - half < 0  # the symmetric interval says a negative rate is plausible
    low, high = ratio_wilson(entries, hands)
    assert 0.0 <= low < rate < high <= 1.0
    assert high > rate + half * 0.5  # as wide as the data warrant, not a point


def test_ratio_wilson_is_plain_wilson_for_independent_yes_no_samples_and_none_for_other_ratios() -> None:
    x = np.array([1.0] * 30 + [0.0] * 70)
    low, high = ratio_wilson(x, np.ones(100))
    plain = wilson_interval(30, 100)
    assert low == pytest.approx(plain[0], abs=0.01) and high == pytest.approx(plain[1], abs=0.01)
    assert ratio_wilson([3.0, 5.0], [1.0, 2.0]) is None  # royalties per hand: not a proportion
    assert ratio_wilson([0.0, 0.0, 0.0], [5.0, 6.0, 5.0])[0] == 0.0  # never happened: [0, small]
    assert all(math.isnan(b) for b in ratio_wilson([], []))
