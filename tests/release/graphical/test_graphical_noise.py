"""Discrete Gaussian measurement noise: goodness of fit to the exact pmf."""

import numpy as np
import pytest
from scipy.stats import chi2

from sksmooth.release.graphical._noise import add_discrete_gaussian, discrete_gaussian_noise


@pytest.mark.parametrize("sigma", [0.7, 3.3, 25.0])
def test_matches_discrete_gaussian_pmf(sigma):
    draws = discrete_gaussian_noise(sigma, 100_000, np.random.default_rng(7))
    support = np.arange(-int(8 * sigma) - 2, int(8 * sigma) + 3)
    pmf = np.exp(-support**2 / (2 * sigma**2))
    pmf /= pmf.sum()
    # pool cells with small expectation into their neighbours' tails
    expected = pmf * len(draws)
    observed = np.bincount(np.clip(draws, support[0], support[-1]) - support[0], minlength=len(support))
    keep = expected > 5
    stat = np.sum((observed[keep] - expected[keep]) ** 2 / expected[keep])
    assert chi2.sf(stat, keep.sum() - 1) > 1e-4
    assert observed[~keep].sum() < 5 * max(1, (~keep).sum())


def test_rounded_gaussian_is_caught():
    """Broken variant: rounding a continuous Gaussian of the same sigma is not
    the discrete Gaussian at small sigma; the same test rejects it."""
    sigma = 0.7
    draws = np.rint(np.random.default_rng(7).normal(0, sigma, 100_000)).astype(int)
    support = np.arange(-8, 9)
    pmf = np.exp(-support**2 / (2 * sigma**2))
    pmf /= pmf.sum()
    expected = pmf * len(draws)
    observed = np.bincount(np.clip(draws, -8, 8) + 8, minlength=17)
    keep = expected > 5
    stat = np.sum((observed[keep] - expected[keep]) ** 2 / expected[keep])
    assert chi2.sf(stat, keep.sum() - 1) < 1e-4


def test_noisy_counts_are_integers():
    out = add_discrete_gaussian(np.array([[3, 0], [1, 7]]), 2.0, np.random.default_rng(0))
    assert out.shape == (2, 2) and out.dtype.kind == "i"
