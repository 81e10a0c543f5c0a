"""Exact discrete Laplace / Gaussian samplers (Canonne, Kamath & Steinke 2020).

The pmf checks compare 2*10^5 draws (10^6 in the slow run) with the
closed-form pmf by a chi-square test; each test also shows that the same
check rejects a sampler whose scale is off by 5%, so it can fail.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import chi2

from sksmooth.accounting import zcdp_to_dp
from sksmooth.mechanisms import (
    discrete_gaussian_delta,
    discrete_gaussian_mechanism,
    discrete_laplace_mechanism,
    sample_discrete_gaussian,
    sample_discrete_laplace,
)
from sksmooth.mechanisms._discrete import (
    _bernoulli_exp_minus_fraction,
    _bernoulli_exp_minus_lookup,
    _bernoulli_exp_minus_one,
    survivors_exp_minus_one,
    _uniform_below,
)
from sksmooth.metrics import audit_epsilon

N_DRAWS = 200_000
DRAWS = [N_DRAWS, pytest.param(1_000_000, marks=pytest.mark.slow)]


def discrete_laplace_pmf(support, scale):
    b = math.exp(-1.0 / scale)
    return (1 - b) / (1 + b) * np.exp(-np.abs(support) / scale)


def discrete_gaussian_pmf(support, sigma2):
    wide = np.arange(-int(40 * math.sqrt(sigma2)) - 20, int(40 * math.sqrt(sigma2)) + 21)
    norm = np.exp(-wide.astype(float) ** 2 / (2 * sigma2)).sum()
    return np.exp(-support.astype(float) ** 2 / (2 * sigma2)) / norm


def chi_square_pvalue(samples, pmf):
    """Chi-square goodness of fit; cells with expected count < 20 are pooled."""
    n = samples.size
    lo, hi = int(samples.min()), int(samples.max())
    support = np.arange(lo, hi + 1)
    probs = pmf(support)
    keep = probs * n >= 20
    observed = np.bincount(samples - lo, minlength=support.size)
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(probs[keep] * n, n - probs[keep].sum() * n)
    if exp[-1] < 20:  # fold a tiny remainder cell into the largest one
        obs[np.argmax(exp[:-1])] += obs[-1]
        obs, exp = obs[:-1], exp[:-1] * n / exp[:-1].sum()
    stat = ((obs - exp) ** 2 / exp).sum()
    return chi2.sf(stat, obs.size - 1)


@pytest.mark.parametrize("n_draws", DRAWS)
@pytest.mark.parametrize("scale", [1.0, 1 / 3, 2.5, 10.0])
def test_discrete_laplace_pmf(scale, n_draws):
    rng = np.random.default_rng(1)
    x = sample_discrete_laplace(scale, n_draws, rng)
    assert x.dtype == np.int64 and x.shape == (n_draws,)
    assert chi_square_pvalue(x, lambda s: discrete_laplace_pmf(s, scale)) > 1e-4
    # exact variance 2 b / (1 - b)^2, b = e^{-1/scale}; std error ~ var sqrt(5/n)
    b = math.exp(-1 / scale)
    var = 2 * b / (1 - b) ** 2
    assert abs(x.var() - var) < 6 * var * math.sqrt(5 / n_draws) + 1e-9
    # the same check rejects a 5% larger scale
    wrong = sample_discrete_laplace(scale * 1.05, n_draws, rng)
    assert chi_square_pvalue(wrong, lambda s: discrete_laplace_pmf(s, scale)) < 1e-6


@pytest.mark.parametrize("n_draws", DRAWS)
@pytest.mark.parametrize("sigma2", [1.0, 13.69, 100.0, 0.25])
def test_discrete_gaussian_pmf(sigma2, n_draws):
    rng = np.random.default_rng(2)
    x = sample_discrete_gaussian(sigma2, n_draws, rng)
    assert x.dtype == np.int64
    assert chi_square_pvalue(x, lambda s: discrete_gaussian_pmf(s, sigma2)) > 1e-4
    wrong = sample_discrete_gaussian(sigma2 * 1.05, n_draws, rng)
    assert chi_square_pvalue(wrong, lambda s: discrete_gaussian_pmf(s, sigma2)) < 1e-6


# The mechanisms' own noise against the exact law (the samplers above are
# checked through their sigma^2 / scale; these check what each mechanism
# passes them): a factor-2 error in sigma or epsilon fails here first.
@pytest.mark.parametrize("sigma", [0.7, 2.0, 5.5])
def test_discrete_gaussian_mechanism_noise_is_n_z_0_sigma2(sigma):
    rng = np.random.default_rng(11)
    values = np.array([[3, -7], [0, 10**6]])
    noisy = discrete_gaussian_mechanism(values, sigma, rng, size=10_000)
    noise = (noisy - values).ravel()
    law = lambda s: discrete_gaussian_pmf(s, sigma**2)  # noqa: E731
    assert chi_square_pvalue(noise, law) > 1e-4
    single = np.array([discrete_gaussian_mechanism(4, sigma, rng) - 4 for _ in range(500)])
    assert abs(single.var() - sigma**2) < 6 * sigma**2 * math.sqrt(2 / 500) + 0.1
    # the check has power: noise of twice (or half) sigma fails it
    for wrong in (2 * sigma, sigma / 2):
        assert chi_square_pvalue(discrete_gaussian_mechanism(0, wrong, rng, size=20_000),
                                 law) < 1e-6


@pytest.mark.parametrize("epsilon, sensitivity", [(1.0, 1), (0.5, 2), (3.0, 4)])
def test_discrete_laplace_mechanism_noise_has_scale_sensitivity_over_epsilon(epsilon,
                                                                             sensitivity):
    rng = np.random.default_rng(12)
    values = np.array([5, -2, 0])
    noise = (discrete_laplace_mechanism(values, epsilon, sensitivity, rng,
                                        size=10_000) - values).ravel()
    scale = sensitivity / epsilon
    assert chi_square_pvalue(noise, lambda s: discrete_laplace_pmf(s, scale)) > 1e-4
    for wrong in (2 * epsilon, epsilon / 2):
        off = discrete_laplace_mechanism(0, wrong, sensitivity, rng, size=20_000)
        assert chi_square_pvalue(off, lambda s: discrete_laplace_pmf(s, scale)) < 1e-6


def test_bernoulli_exp_components():
    rng = np.random.default_rng(3)
    n = 400_000
    tol = 5 * math.sqrt(0.25 / n)
    assert abs(_bernoulli_exp_minus_one(n, rng).mean() - math.exp(-1)) < tol
    # all of t trials: screened on their u_2 digits first, then the rest of each trial
    for trials in (1, 2, 3):
        kept = survivors_exp_minus_one(n, trials, rng)
        assert np.all(np.diff(kept) > 0) and kept.size <= n
        assert abs(kept.size / n - math.exp(-trials)) < tol, trials
    assert survivors_exp_minus_one(5, 0, rng).tolist() == [0, 1, 2, 3, 4]
    r = np.full(n, 3, dtype=np.int64)
    assert abs(_bernoulli_exp_minus_fraction(r, 7, rng).mean() - math.exp(-3 / 7)) < tol
    # gamma = N/d above 1 and with a denominator far beyond int64
    d = 3 * 2**100 + 1
    numerators = np.array([0, 5 * d // 2, d - 1], dtype=object)
    index = np.repeat(np.arange(3), n // 4)
    hits = _bernoulli_exp_minus_lookup(index, numerators, d, rng)
    for j, gamma in enumerate([0.0, 2.5, 1.0]):
        assert abs(hits[index == j].mean() - math.exp(-gamma)) < 2 * tol, j


def test_uniform_below_big_bound_is_uniform():
    rng = np.random.default_rng(4)
    bound = 3 * 2**70
    u = _uniform_below(bound, 60_000, rng)
    assert all(0 <= v < bound for v in u)
    thirds = np.bincount([int(v) // 2**70 for v in u], minlength=3)
    assert thirds.min() > 19_000


def test_exotic_scales_are_exact_rationals():
    rng = np.random.default_rng(5)
    # tiny scale: essentially always 0; huge denominators go through Python ints
    assert np.all(sample_discrete_laplace(1e-300, 1000, rng) == 0)
    x = sample_discrete_laplace(Fraction(10**20 + 1, 10**20), 50_000, rng)
    assert chi_square_pvalue(x, lambda s: discrete_laplace_pmf(s, 1.0)) > 1e-4
    y = sample_discrete_gaussian(Fraction(1, 3), 50_000, rng)
    assert chi_square_pvalue(y, lambda s: discrete_gaussian_pmf(s, 1 / 3)) > 1e-4


class _IntegersOnly(np.random.Generator):
    """A Generator whose only usable source of randomness is ``integers``."""

    def __getattribute__(self, name):
        if name in ("random", "normal", "standard_normal", "laplace", "exponential",
                    "standard_exponential", "gumbel", "uniform", "geometric", "binomial"):
            raise AssertionError(f"sampler used rng.{name}")
        return super().__getattribute__(name)


def test_only_uniform_integers_are_used():
    rng = _IntegersOnly(np.random.PCG64(0))
    sample_discrete_laplace(0.7, 1000, rng)
    sample_discrete_gaussian(2.3, 1000, rng)
    same0 = sample_discrete_gaussian(2.3, 50, np.random.default_rng(9))
    same1 = sample_discrete_gaussian(2.3, 50, np.random.default_rng(9))
    np.testing.assert_array_equal(same0, same1)


def test_mechanism_shapes_and_types():
    rng = np.random.default_rng(6)
    assert isinstance(discrete_laplace_mechanism(4, 1.0, 1, rng), int)
    assert isinstance(discrete_gaussian_mechanism(4, 2.0, rng), int)
    counts = np.array([[1, 2, 3], [4, 5, 6]])
    out = discrete_laplace_mechanism(counts, 0.5, 2, rng, size=7)
    assert out.shape == (7, 2, 3) and out.dtype == np.int64
    assert discrete_gaussian_mechanism(counts, 1.5, rng).shape == (2, 3)
    # noise has scale sensitivity/epsilon exactly
    noise = discrete_laplace_mechanism(0, 0.5, 2, rng, size=N_DRAWS)
    assert chi_square_pvalue(noise, lambda s: discrete_laplace_pmf(s, 4.0)) > 1e-4


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(scale=0.0), ValueError, "scale"),
        (dict(scale=-1.0), ValueError, "scale"),
        (dict(scale=float("nan")), ValueError, "scale"),
        (dict(scale=float("inf")), ValueError, "scale"),
        (dict(scale="1"), TypeError, "scale"),
        (dict(scale=True), TypeError, "scale"),
        (dict(scale=1e300), ValueError, "scale"),
        (dict(size=-1), ValueError, "size"),
        (dict(size=2.0), TypeError, "size"),
    ],
)
def test_sampler_rejects_bad_input(kwargs, exc, match):
    args = dict(scale=1.0, size=3, rng=np.random.default_rng(0)) | kwargs
    with pytest.raises(exc, match=match):
        sample_discrete_laplace(**args)


def test_mechanisms_reject_bad_input():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="integer-valued"):
        discrete_laplace_mechanism(1.5, 1.0, 1, rng)
    with pytest.raises(TypeError, match="value"):
        discrete_laplace_mechanism("3", 1.0, 1, rng)
    with pytest.raises(TypeError, match="sensitivity"):
        discrete_laplace_mechanism(3, 1.0, 1.0, rng)
    with pytest.raises(ValueError, match="sensitivity"):
        discrete_laplace_mechanism(3, 1.0, 0, rng)
    with pytest.raises(ValueError, match="epsilon"):
        discrete_laplace_mechanism(3, 0.0, 1, rng)
    with pytest.raises(ValueError, match="sigma"):
        discrete_gaussian_mechanism(3, -2.0, rng)
    with pytest.raises(ValueError, match="size"):
        discrete_gaussian_mechanism(3, 2.0, rng, size=0)


def above_zero(outs):
    return np.asarray(outs) >= 1


@pytest.mark.parametrize("epsilon", [0.5, 1.0])
def test_audit_discrete_laplace_mechanism(epsilon):
    # Counts 1 vs 0, event {output >= 1}: P_1 / P_0 = e^eps exactly, so the
    # audit reaches most of the claim; half the noise (2 eps) is caught.
    def mechanism(value, rng, n):
        return discrete_laplace_mechanism(value, epsilon, 1, rng, size=n)

    ok = audit_epsilon(mechanism, 1, 0, above_zero, 200_000, random_state=0, batch=True)
    assert 0.9 * epsilon < ok.epsilon_lower <= epsilon

    def half_noise(value, rng, n):
        return discrete_laplace_mechanism(value, 2 * epsilon, 1, rng, size=n)

    broken = audit_epsilon(half_noise, 1, 0, above_zero, 200_000, random_state=0, batch=True)
    assert broken.epsilon_lower > epsilon


@pytest.mark.parametrize("sigma, epsilon, sensitivity", [(2.5, 1.0, 1), (1.3, 0.5, 2), (6.0, 2.0, 3)])
def test_discrete_gaussian_delta_is_the_hockey_stick_divergence(sigma, epsilon, sensitivity):
    # Recomputed from the definition: delta = sum_x max(0, P[Y + Delta = x] - e^eps P[Y = x]).
    support = np.arange(-400, 401)
    pmf = discrete_gaussian_pmf(support, sigma ** 2)
    shifted = np.roll(pmf, sensitivity)  # P[Y + Delta = x]
    expected = np.maximum(0.0, shifted - np.exp(epsilon) * pmf).sum()
    assert discrete_gaussian_delta(epsilon, sigma, sensitivity) == pytest.approx(expected, rel=1e-9)
    # and never above the zCDP conversion's delta at the same epsilon (CKS Thm 4 + Cor 13)
    rho = sensitivity ** 2 / (2 * sigma ** 2)
    assert zcdp_to_dp(rho, discrete_gaussian_delta(epsilon, sigma, sensitivity)) >= epsilon



def test_discrete_gaussian_delta_costs_order_sigma_whatever_epsilon():
    # the support reached eps sigma^2: sigma = 1e4 needed 1.6 GB, 1e5 failed (a review)
    import tracemalloc

    from sksmooth.mechanisms import discrete_gaussian_delta

    tracemalloc.start()
    delta = discrete_gaussian_delta(1.0, 1e4)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 50e6 and 0.0 <= delta < 1e-300 + 1e-12
    # the same value as a sum over the whole support where that is small
    sigma, eps = 2.5, 1.0
    y = np.arange(-400, 401, dtype=float)
    pmf = np.exp(-y * y / (2 * sigma**2))
    pmf /= pmf.sum()
    exact = pmf[y > eps * sigma**2 - 0.5].sum() - np.exp(eps) * pmf[y > eps * sigma**2 + 0.5].sum()
    assert exact <= discrete_gaussian_delta(eps, sigma) <= exact * (1 + 1e-9)


@pytest.mark.parametrize("epsilon, sigma, sensitivity", [
    (200.0, 0.15, 3), (50.0, 0.3, 1), (200.0, 0.1414213562373095, 2), (1.0, 2.5, 1),
    (0.5, 0.3, 5)])
def test_discrete_gaussian_delta_is_never_below_the_exact_delta(epsilon, sigma, sensitivity):
    # a threshold rounded onto an integer dropped that integer's mass: 2.23363e-10
    # against the exact 2.23378e-10 (a review); now found in exact arithmetic
    mp = pytest.importorskip("mpmath")
    from sksmooth.mechanisms import discrete_gaussian_delta

    mp.mp.dps = 80
    s2, eps = mp.mpf(sigma) ** 2, mp.mpf(epsilon)
    reach = int(40 * sigma + 60)
    mass = {y: mp.e ** (-mp.mpf(y) ** 2 / (2 * s2)) for y in range(-reach, reach + 1)}
    norm = mp.fsum(mass.values())
    centre = eps * s2 / sensitivity

    def tail(threshold):
        return mp.fsum(m for y, m in mass.items() if y > threshold) / norm

    exact = max(mp.mpf(0), tail(centre - mp.mpf(sensitivity) / 2)
                - mp.e ** eps * tail(centre + mp.mpf(sensitivity) / 2))
    delta = discrete_gaussian_delta(epsilon, sigma, sensitivity)
    assert mp.mpf(delta) >= exact and delta <= 1.0
    assert delta <= exact * (1 + 0.01) + 1e-11  # the cancellation margin, not more


def test_discrete_gaussian_delta_is_at_most_one():
    from sksmooth.mechanisms import discrete_gaussian_delta

    assert discrete_gaussian_delta(1.0, 0.05) == 1.0  # 1 + 1e-12 before the cap
    assert discrete_gaussian_delta(1e308, 1e3) <= 1e-299  # numpy's arange failed
