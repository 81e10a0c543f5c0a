"""Laplace and Gaussian mechanisms: noise scale, calibration, bad input."""

import numpy as np
import pytest
from scipy import stats

from sksmooth.mechanisms import gaussian_mechanism, gaussian_noise_std, laplace_mechanism
from sksmooth.mechanisms._gaussian import _balle_wang_delta


def test_laplace_scale_ks():
    eps, sens = 0.5, 2.0
    noisy = laplace_mechanism(3.0, eps, sens, np.random.default_rng(0), size=50_000)
    assert stats.kstest(noisy, stats.laplace(loc=3.0, scale=sens / eps).cdf).pvalue > 1e-3
    assert stats.kstest(noisy, stats.laplace(loc=3.0, scale=sens / (2 * eps)).cdf).pvalue < 1e-6
    assert np.var(noisy) == pytest.approx(2 * (sens / eps) ** 2, rel=0.05)


def test_laplace_shapes_and_types():
    rng = np.random.default_rng(0)
    assert isinstance(laplace_mechanism(1.0, 1.0, 1.0, rng), float)
    assert laplace_mechanism(np.zeros((2, 3)), 1.0, 1.0, rng).shape == (2, 3)
    assert laplace_mechanism([1.0, 2.0], 1.0, 1.0, rng, size=4).shape == (4, 2)


def test_gaussian_scale_ks():
    eps, delta, sens = 0.8, 1e-6, 1.5
    std = gaussian_noise_std(eps, delta, sens)
    noisy = gaussian_mechanism(-1.0, eps, delta, sens, np.random.default_rng(1), size=50_000)
    assert stats.kstest(noisy, stats.norm(loc=-1.0, scale=std).cdf).pvalue > 1e-3
    assert stats.kstest(noisy, stats.norm(loc=-1.0, scale=0.9 * std).cdf).pvalue < 1e-6
    classic = gaussian_mechanism(0.0, eps, delta, sens, np.random.default_rng(1),
                                 calibration="classic", size=50_000)
    assert np.std(classic) == pytest.approx(
        np.sqrt(2 * np.log(1.25 / delta)) * sens / eps, rel=0.02)


def test_classic_formula_hand_value():
    # sqrt(2 ln(1.25/1e-5)) = sqrt(2 * 11.736069) = 4.844805
    assert gaussian_noise_std(0.5, 1e-5, 1.0, "classic") == pytest.approx(4.844805 / 0.5, rel=1e-6)


@pytest.mark.parametrize("eps", [0.05, 0.3, 0.99, 1.0, 3.0, 20.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-12])
@pytest.mark.parametrize("sens", [1.0, 7.5])
def test_analytic_satisfies_exact_condition_and_is_minimal(eps, delta, sens):
    std = gaussian_noise_std(eps, delta, sens)
    assert _balle_wang_delta(std, eps, sens) <= delta
    # minimal: 0.1% less noise already violates the exact condition
    assert _balle_wang_delta(0.999 * std, eps, sens) > delta
    if eps < 1:
        assert std <= gaussian_noise_std(eps, delta, sens, "classic")


def test_analytic_reference_value():
    # Balle & Wang (2018), Fig. 1 regime: eps=1, delta=1e-5 gives sigma ~ 3.73.
    assert gaussian_noise_std(1.0, 1e-5, 1.0) == pytest.approx(3.73, abs=0.01)


def test_classic_rejects_large_epsilon():
    with pytest.raises(ValueError, match="epsilon < 1"):
        gaussian_noise_std(1.0, 1e-5, 1.0, "classic")
    with pytest.raises(ValueError, match="calibration"):
        gaussian_noise_std(0.5, 1e-5, 1.0, "exact")


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"value": np.nan}, ValueError, "value"),
        ({"value": "x"}, TypeError, "value"),
        ({"epsilon": -1.0}, ValueError, "epsilon"),
        ({"sensitivity": -1.0}, ValueError, "sensitivity"),
        ({"rng": 1.5}, TypeError, "rng"),
        ({"size": -3}, ValueError, "size"),
    ],
)
def test_laplace_bad_input(kwargs, exc, match):
    args = {"value": 1.0, "epsilon": 1.0, "sensitivity": 1.0, "rng": np.random.default_rng(0)}
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        laplace_mechanism(**args)


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"value": [1.0, np.inf]}, ValueError, "value"),
        ({"epsilon": 0}, ValueError, "epsilon"),
        ({"delta": 0.0}, ValueError, "delta"),
        ({"delta": 1.0}, ValueError, "delta"),
        ({"delta": "1e-5"}, TypeError, "delta"),
        ({"sensitivity": np.inf}, ValueError, "sensitivity"),
        ({"rng": object()}, TypeError, "rng"),
        ({"calibration": "fast"}, ValueError, "calibration"),
    ],
)
def test_gaussian_bad_input(kwargs, exc, match):
    args = {"value": 1.0, "epsilon": 0.5, "delta": 1e-5, "sensitivity": 1.0,
            "rng": np.random.default_rng(0)}
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        gaussian_mechanism(**args)


def _cancellation_free_log_delta(noise_std, eps):
    """log of the exact Gaussian-mechanism delta (sensitivity 1), no cancellation.

    delta = E[(1 - e^{eps - L})_+] with privacy loss L ~ N(mu, 2 mu),
    mu = 1/(2 s^2); with a = 1/(2s), z0 = eps s - a this is
    phi(z0) * int_0^inf (1 - e^{-2a t}) e^{-z0 t - t^2/2} dt, a positive
    integrand (checked against 80-digit mpmath to ~1e-14 relative).
    """
    from scipy.integrate import quad

    a = 1.0 / (2.0 * noise_std)
    z0 = eps * noise_std - a

    def integrand(t):
        return -np.expm1(-2.0 * a * t) * np.exp(-z0 * t - 0.5 * t * t)

    peak = max(0.0, -z0)
    split = peak + 50.0 / max(1.0, abs(z0))
    head = quad(integrand, 0.0, split, epsabs=0.0, epsrel=1e-13, limit=200,
                points=[peak] if peak > 0 else None)[0]
    tail = quad(integrand, split, np.inf, epsabs=0.0, epsrel=1e-13, limit=200)[0]
    return -0.5 * z0 * z0 - 0.5 * np.log(2.0 * np.pi) + np.log(head + tail)


@pytest.mark.parametrize(
    "eps, delta",
    [(1e-10, 1e-300), (1e-8, 1e-100), (1e-8, 1e-20), (1e-6, 1e-20), (1e-3, 1e-50),
     (0.1, 1e-300), (1.0, 1e-5), (50.0, 1e-10), (2.0, 0.5)],
)
def test_analytic_calibration_is_private_despite_cancellation(eps, delta):
    # Phi(a - b) - e^eps Phi(-a - b) cancels catastrophically for small eps and
    # small delta; the calibrated std must still meet the exact condition.
    std = gaussian_noise_std(eps, delta, 1.0)
    assert _cancellation_free_log_delta(std, eps) <= np.log(delta) + 1e-12


def test_a_noise_scale_past_the_float_range_is_refused_naming_epsilon():
    # epsilon=1e-308 gave Laplace noise of scale inf (values +-inf) and report-noisy-max
    # ties broken by overflowed noise, not uniformly (a review)
    from sksmooth.mechanisms import report_noisy_max

    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="epsilon is too small"):
        laplace_mechanism(0.0, 1e-308, 2.0, rng, size=3)
    with pytest.raises(ValueError, match="epsilon is too small"):
        report_noisy_max([0.0, 0.0, 0.0], 1e-308, 1.0, rng, size=3)
    np.testing.assert_array_equal(np.isfinite(laplace_mechanism(0.0, 1e-300, 2.0, rng, size=3)),
                                  True)


def test_the_exact_sampler_takes_a_rate_past_the_float_range():
    from sksmooth.mechanisms import exact_exponential_mechanism

    # epsilon / sensitivity past the float range raised OverflowError (a review);
    # the best candidate is then certain
    rng = np.random.default_rng(0)
    assert all(exact_exponential_mechanism([0, 1], 1e300, 5e-324, rng) == 1 for _ in range(5))
