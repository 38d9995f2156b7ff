"""Statistics for evaluation: confidence intervals and Bradley-Terry / Elo ratings.

numpy only (no scipy): the Student-t quantile comes from a table for small
samples and the Cornish-Fisher expansion beyond it.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

# two-sided 95% Student-t quantiles t(0.975, df) for df = 1..30
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)
_Z975 = 1.959964
# below this many samples (deals) a t interval leans hard on the deal means being near
# normal, which skewed game rewards (fouls, bonuses) are not: reports warn
MIN_CI_SAMPLES = 30


def t_quantile_975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    if df <= len(_T975):
        return _T975[df - 1]
    z = _Z975
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


def mean_ci(samples: Sequence[float]) -> tuple[float, float]:
    """(mean, half-width of the 95% confidence interval); half-width is nan below 2 samples."""
    x = np.asarray(samples, dtype=float)
    if x.size == 0:
        return math.nan, math.nan
    mean = float(x.mean())
    if x.size < 2:
        return mean, math.nan
    return mean, float(t_quantile_975(x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))


def wilson_interval(successes: float, trials: float, z: float = _Z975) -> tuple[float, float]:
    """The 95% Wilson score interval (low, high) of a proportion ``successes / trials``:
    unlike mean +- t * se it stays inside [0, 1] and is not empty at 0 or at 1. ``successes``
    may be fractional (a tie for the best reward shares a win). (nan, nan) without trials."""
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"successes must lie in 0..trials, got {successes} of {trials}")
    if trials == 0:
        return math.nan, math.nan
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def ratio_ci(numerators: Sequence[float], denominators: Sequence[float]) -> tuple[float, float]:
    """(ratio of sums, half-width of its 95% confidence interval) of paired samples
    (x_i, y_i): R = sum x / sum y, the CI by the delta method over the samples
    (standard error sqrt(var(x - R y) / n) / mean y). nan where sum y is 0; the
    half-width is nan below 2 samples."""
    x, y = np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"numerators and denominators differ in length: {x.size} and {y.size}")
    if x.size == 0 or y.sum() == 0:
        return math.nan, math.nan
    ratio = float(x.sum() / y.sum())
    if x.size < 2:
        return ratio, math.nan
    residual = x - ratio * y
    se = float(residual.std(ddof=1)) / math.sqrt(x.size) / float(y.mean())
    return ratio, float(t_quantile_975(x.size - 1) * abs(se))


def ratio_wilson(numerators: Sequence[float], denominators: Sequence[float]) -> tuple[float, float] | None:
    """The 95% interval, inside [0, 1], of a rate that is a proportion of counts (each sample
    0 <= x_i <= y_i, e.g. Fantasyland entries of an episode's regular hands); None for any
    other ratio. Wilson's score interval at the effective sample size of the clustered
    samples: n_eff = R (1 - R) / se^2 with se the delta-method standard error of
    :func:`ratio_ci` (hands of one episode are not independent), at most the pooled count
    of trials, and that count where se is 0 (every sample at 0 or at 1). (nan, nan) with no trials."""
    x, y = np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"numerators and denominators differ in length: {x.size} and {y.size}")
    if x.size and not ((x >= 0).all() and (x <= y).all()):
        return None
    trials = float(y.sum())
    if x.size == 0 or trials == 0:
        return math.nan, math.nan
    ratio = float(x.sum()) / trials
    effective = trials
    if x.size >= 2 and 0 < ratio < 1:
        se = float((x - ratio * y).std(ddof=1)) / math.sqrt(x.size) / float(y.mean())
        if se > 0:
            effective = min(trials, ratio * (1 - ratio) / se**2)
    return wilson_interval(ratio * effective, effective)


def bradley_terry(wins: np.ndarray, prior: float = 0.5, iters: int = 10_000, tol: float = 1e-10) -> np.ndarray:
    """Bradley-Terry strengths (geometric mean 1) from ``wins[i, j]`` = games i won against j.

    Draws count half to each side. ``prior`` adds that many virtual wins each way to
    every pair that met, so an unbeaten player gets a finite rating. Hunter's MM
    algorithm; players who never met anyone keep strength 1.
    """
    w = np.asarray(wins, dtype=float)
    n = w.shape[0]
    if w.shape != (n, n):
        raise ValueError(f"wins must be a square matrix, got shape {w.shape}")
    games = w + w.T
    met = games > 0
    w = w + prior * met
    games = w + w.T
    total_wins = w.sum(axis=1)
    p = np.ones(n)
    active = games.sum(axis=1) > 0
    for _ in range(iters):
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1)
        new = np.where(active & (denom > 0), total_wins / np.where(denom > 0, denom, 1.0), 1.0)
        new[active] /= math.exp(np.log(new[active]).mean()) if active.any() else 1.0
        if np.max(np.abs(new - p)) < tol:
            p = new
            break
        p = new
    return p


def elo_ratings(wins: np.ndarray, base: float = 1500.0) -> np.ndarray:
    """Elo scale of the Bradley-Terry fit: 400*log10(strength), centred on ``base``."""
    strength = bradley_terry(wins)
    elo = 400.0 * np.log10(strength)
    return base + elo - elo.mean()


def expected_score(elo_a: float, elo_b: float) -> float:
    return 1.0 / (1.0 + 10 ** ((elo_b - elo_a) / 400.0))
