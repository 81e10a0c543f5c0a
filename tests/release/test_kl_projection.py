"""KL projection onto sigma-smooth distributions (000 App. F, Alg. 3, Claim F.1)."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import logsumexp

from sksmooth.release import kl_project_smooth
from sksmooth.release._projection import kl_divergence


def _random_log_weights(rng, n, spread):
    return rng.normal(scale=spread, size=n)


@pytest.mark.parametrize("n", [1, 2, 7, 100, 5000])
@pytest.mark.parametrize("sigma", [1.0, 0.5, 0.1, 0.01])
def test_output_in_polytope(n, sigma):
    rng = np.random.default_rng(n)
    lz = kl_project_smooth(_random_log_weights(rng, n, 3.0), sigma)
    z = np.exp(lz)
    assert np.all(z >= 0)
    assert z.sum() == pytest.approx(1.0, abs=1e-10)
    assert np.all(z <= 1.0 / (sigma * n) * (1 + 1e-9))


def test_already_smooth_is_unchanged():
    rng = np.random.default_rng(0)
    lw = rng.normal(scale=0.01, size=50)
    lw -= logsumexp(lw)
    np.testing.assert_allclose(kl_project_smooth(lw, 0.5), lw, atol=1e-12)


def test_sigma_one_gives_uniform():
    lz = kl_project_smooth(np.array([0.0, 3.0, -2.0, 10.0]), 1.0)
    np.testing.assert_allclose(np.exp(lz), 0.25, atol=1e-12)


def test_structure_capped_top_rest_proportional():
    rng = np.random.default_rng(1)
    lw = _random_log_weights(rng, 200, 2.0)
    sigma = 0.2
    lz = kl_project_smooth(lw, sigma)
    cap = 1 / (sigma * 200)
    capped = np.isclose(np.exp(lz), cap, rtol=1e-9)
    assert capped.any() and not capped.all()
    # capped coordinates are exactly the largest inputs
    assert lw[capped].min() >= lw[~capped].max()
    # the others keep their ratios to the input
    ratio = lz[~capped] - lw[~capped]
    np.testing.assert_allclose(ratio, ratio[0], atol=1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_optimal_against_scipy(seed):
    rng = np.random.default_rng(seed)
    n, sigma = 6, 0.4
    lw = _random_log_weights(rng, n, 2.0)
    lp = lw - logsumexp(lw)
    cap = 1 / (sigma * n)
    lz = kl_project_smooth(lw, sigma)
    ours = kl_divergence(lz, lp)

    def objective(z):
        z = np.clip(z, 1e-300, None)
        return float(np.sum(z * (np.log(z) - lp)))

    res = minimize(
        objective,
        x0=np.full(n, 1 / n),
        method="SLSQP",
        bounds=[(0, cap)] * n,
        constraints=[{"type": "eq", "fun": lambda z: z.sum() - 1}],
        options={"ftol": 1e-14, "maxiter": 500},
    )
    assert res.success
    assert ours <= res.fun + 1e-8
    np.testing.assert_allclose(np.exp(lz), res.x, atol=1e-5)


@pytest.mark.parametrize("seed", range(5))
def test_pythagorean_inequality_claim_f1(seed):
    """KL(P||Dtilde) >= KL(P||D) + KL(D||Dtilde) for every sigma-smooth P (Claim F.1)."""
    rng = np.random.default_rng(seed)
    n, sigma = 300, 0.1
    lw = _random_log_weights(rng, n, 4.0)
    lq = lw - logsumexp(lw)
    lz = kl_project_smooth(lw, sigma)
    for _ in range(20):
        # a random sigma-smooth distribution P
        P = kl_project_smooth(_random_log_weights(rng, n, 3.0), sigma)
        lhs = kl_divergence(P, lq)
        rhs = kl_divergence(P, lz) + kl_divergence(lz, lq)
        assert lhs >= rhs - 1e-9


def test_extreme_log_weights_no_overflow():
    lw = np.array([1e5, -1e5, 0.0, 5e4, -np.inf])
    lz = kl_project_smooth(lw, 0.5)
    z = np.exp(lz)
    assert np.all(np.isfinite(lz[:4]))
    assert z.sum() == pytest.approx(1.0)
    assert z.max() <= 1 / (0.5 * 5) + 1e-12


def test_bad_input():
    with pytest.raises(ValueError, match="1-D"):
        kl_project_smooth(np.zeros((2, 2)), 0.5)
    with pytest.raises(ValueError, match="NaN"):
        kl_project_smooth(np.array([0.0, np.nan]), 0.5)
    with pytest.raises(ValueError, match="support"):
        kl_project_smooth(np.array([0.0, -np.inf, -np.inf, -np.inf]), 0.5)
    with pytest.raises(ValueError, match="support"):  # no finite weight at all
        kl_project_smooth(np.full(3, -np.inf), 0.5)


@pytest.mark.parametrize("kind", ["normal", "heavy", "ties", "two levels", "zeros",
                                  "geometric"])
@pytest.mark.parametrize("sigma", [0.9, 0.3, 0.05])
def test_sorting_the_largest_weights_gives_the_full_sort_solution(kind, sigma, monkeypatch):
    from sksmooth.release import _projection

    rng = np.random.default_rng(7)
    lw = {"normal": rng.normal(scale=3.0, size=4000),
          "heavy": rng.standard_cauchy(size=4000),
          "ties": rng.integers(0, 4, size=4000).astype(float) * 5.0,
          "two levels": np.where(np.arange(4000) < 100, 5.0, 0.0),  # ties take them all
          "zeros": np.where(rng.uniform(size=4000) < 0.05, -np.inf, rng.normal(size=4000)),
          "geometric": -0.01 * np.arange(4000.0)}[kind]
    partial = kl_project_smooth(lw, sigma)  # the top m, quadrupled as needed
    largest = _projection._largest
    monkeypatch.setattr(_projection, "_largest", lambda lw, m: largest(lw, lw.size))
    np.testing.assert_allclose(np.exp(partial), np.exp(kl_project_smooth(lw, sigma)),
                               rtol=1e-9, atol=1e-15)
