"""Exponential mechanism and report-noisy-max: exact distributions, overflow, bad input."""

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import softmax

from sksmooth.mechanisms import (
    exponential_mechanism,
    exponential_mechanism_log_probabilities,
    report_noisy_max,
)

SCORES = np.array([0.0, 1.0, 2.0, 3.0, 5.0])


def _chi2_pvalue(draws, probs):
    counts = np.bincount(draws, minlength=len(probs))
    return stats.chisquare(counts, len(draws) * probs).pvalue


@pytest.mark.parametrize("monotonic, factor", [(False, 2.0), (True, 1.0)])
def test_frequencies_match_exact_softmax(monotonic, factor):
    eps, sens = 1.0, 1.0
    draws = exponential_mechanism(SCORES, eps, sens, np.random.default_rng(0),
                                  monotonic=monotonic, size=20_000)
    exact = softmax(eps * SCORES / (factor * sens))
    assert _chi2_pvalue(draws, exact) > 1e-3
    # The same draws reject the distribution with the wrong scale.
    wrong = softmax(eps * SCORES / (0.5 * factor * sens))
    assert _chi2_pvalue(draws, wrong) < 1e-6


def test_single_draw_matches_batched_law():
    rng = np.random.default_rng(1)
    draws = np.array([exponential_mechanism(SCORES, 0.7, 2.0, rng) for _ in range(4000)])
    assert _chi2_pvalue(draws, softmax(0.7 * SCORES / 4.0)) > 1e-3


def test_log_probabilities_exact():
    logp = exponential_mechanism_log_probabilities(SCORES, 1.3, 0.5)
    np.testing.assert_allclose(np.exp(logp), softmax(1.3 * SCORES / 1.0), rtol=1e-12)
    logp_m = exponential_mechanism_log_probabilities(SCORES, 1.3, 0.5, monotonic=True)
    np.testing.assert_allclose(np.exp(logp_m), softmax(1.3 * SCORES / 0.5), rtol=1e-12)


def test_no_overflow_one_million_candidates_huge_scores():
    n = 10**6
    scores = np.arange(n, dtype=float)  # scores up to 10^6
    eps = 1.0
    with np.errstate(over="raise", invalid="raise"):
        idx = exponential_mechanism(scores, eps, 1.0, np.random.default_rng(2))
        logp = exponential_mechanism_log_probabilities(scores, eps, 1.0)
    assert 0 <= idx < n
    assert np.all(np.isfinite(logp[-50:]))
    # Geometric law: P(top) = (1 - q) / (1 - q^n), q = e^{-eps/2}.
    q = np.exp(-eps / 2)
    assert logp[-1] == pytest.approx(np.log1p(-q) - np.log1p(-q**n), rel=1e-10)
    assert np.exp(logp).sum() == pytest.approx(1.0, rel=1e-9)


def test_shift_invariance_at_scores_one_million():
    draws = exponential_mechanism(1e6 + SCORES, 1.0, 1.0, np.random.default_rng(3), size=20_000)
    assert _chi2_pvalue(draws, softmax(SCORES / 2.0)) > 1e-3


def test_seeded_reproducible():
    a = exponential_mechanism(SCORES, 1.0, 1.0, np.random.default_rng(5), size=50)
    b = exponential_mechanism(SCORES, 1.0, 1.0, np.random.default_rng(5), size=50)
    np.testing.assert_array_equal(a, b)
    assert isinstance(exponential_mechanism(SCORES, 1.0, 1.0, np.random.default_rng(5)), int)


def _rnm_exact(scores, noise_pdf, noise_cdf):
    """P(i wins) = int pdf(x - s_i) prod_{j != i} cdf(x - s_j) dx (numerical)."""
    probs = []
    for i in range(len(scores)):
        def f(x, i=i):
            others = np.prod([noise_cdf(x - s) for j, s in enumerate(scores) if j != i])
            return noise_pdf(x - scores[i]) * others
        probs.append(integrate.quad(f, -60, 60, points=list(scores), limit=200)[0])
    return np.array(probs)


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
@pytest.mark.parametrize("monotonic", [False, True])
def test_report_noisy_max_frequencies(noise, monotonic):
    scores = np.array([0.0, 1.0, 2.5])
    eps, sens = 1.0, 1.0
    scale = (1.0 if monotonic else 2.0) * sens / eps
    dist = stats.laplace if noise == "laplace" else stats.expon
    exact = _rnm_exact(scores - scores.max(), lambda x: dist.pdf(x, scale=scale),
                       lambda x: dist.cdf(x, scale=scale))
    assert exact.sum() == pytest.approx(1.0, abs=1e-6)
    draws = report_noisy_max(scores, eps, sens, np.random.default_rng(4), noise=noise,
                             monotonic=monotonic, size=20_000)
    assert _chi2_pvalue(draws, exact) > 1e-3
    wrong = _rnm_exact(scores - scores.max(), lambda x: dist.pdf(x, scale=scale / 3),
                       lambda x: dist.cdf(x, scale=scale / 3))
    assert _chi2_pvalue(draws, wrong) < 1e-6


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"scores": []}, ValueError, "scores"),
        ({"scores": [[1.0, 2.0]]}, ValueError, "scores"),
        ({"scores": [1.0, np.nan]}, ValueError, "scores"),
        ({"scores": [1.0, -np.inf]}, ValueError, "scores"),
        ({"scores": ["a", "b"]}, TypeError, "scores"),
        ({"epsilon": 0.0}, ValueError, "epsilon"),
        ({"epsilon": "1"}, TypeError, "epsilon"),
        ({"epsilon": np.inf}, ValueError, "epsilon"),
        ({"sensitivity": 0.0}, ValueError, "sensitivity"),
        ({"sensitivity": None}, TypeError, "sensitivity"),
        ({"rng": "seed"}, TypeError, "rng"),
        ({"monotonic": "yes"}, TypeError, "monotonic"),
        ({"size": 0}, ValueError, "size"),
        ({"size": 2.5}, TypeError, "size"),
    ],
)
@pytest.mark.parametrize("func", [exponential_mechanism, report_noisy_max])
def test_bad_input(func, kwargs, exc, match):
    args = {"scores": [1.0, 2.0], "epsilon": 1.0, "sensitivity": 1.0,
            "rng": np.random.default_rng(0)}
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        func(**args)


def test_bad_input_log_probabilities_and_noise():
    with pytest.raises(ValueError, match="epsilon"):
        exponential_mechanism_log_probabilities([1.0], -1.0, 1.0)
    with pytest.raises(ValueError, match="scores"):
        exponential_mechanism_log_probabilities([], 1.0, 1.0)
    with pytest.raises(ValueError, match="noise"):
        report_noisy_max([1.0, 2.0], 1.0, 1.0, np.random.default_rng(0), noise="gumbel")


def test_extreme_epsilon_no_overflow():
    with np.errstate(over="raise", invalid="raise"):
        assert exponential_mechanism([0.0, 1e6, 3.0], 1e300, 1.0, np.random.default_rng(0)) == 1
        assert report_noisy_max([0.0, 1e6, 3.0], 1e300, 1.0, np.random.default_rng(0)) == 1
        logp = exponential_mechanism_log_probabilities([0.0, 1e6], 1e300, 1.0)
    assert logp[1] == 0.0 and np.exp(logp[0]) == 0.0


def test_overflowing_scale_keeps_ties_uniform_and_no_nan():
    # epsilon / (2 sensitivity) overflows to inf: the limit law is uniform on
    # the maximisers, never NaN (which argmax would turn into "first maximiser")
    with np.errstate(over="ignore"):
        assert np.isinf(1e308 / (2 * 1e-10))
    logp = exponential_mechanism_log_probabilities([0.0, 1.0, 1.0], 1e308, 1e-10)
    assert not np.any(np.isnan(logp))
    np.testing.assert_allclose(np.exp(logp), [0.0, 0.5, 0.5])
    draws = exponential_mechanism(
        [0.0, 1.0, 1.0], 1e308, 1e-10, np.random.default_rng(0), size=2000
    )
    counts = np.bincount(draws, minlength=3)
    assert counts[0] == 0 and 900 < counts[1] < 1100


def test_gumbel_noise_range_is_lower_then_upper():
    # it was (upper, lower) while its comments named the ends the other way round
    # (found by a review)
    from sksmooth.mechanisms import GUMBEL_NOISE_RANGE

    lower, upper = GUMBEL_NOISE_RANGE
    assert lower == pytest.approx(-3.6038, abs=1e-4) and upper == pytest.approx(36.7368, abs=1e-4)
    noise = np.random.default_rng(0).gumbel(size=10**6)
    assert lower <= noise.min() and noise.max() <= upper


@pytest.mark.parametrize("dtype", [None, np.int64, np.uint64, object])
def test_integer_scores_past_2_53_keep_their_sensitivity(dtype):
    # converted to floats first, 2^60 + 128 and 2^60 + 129 both rounded: neighbouring
    # score vectors one apart gave log-probabilities 127 apart at epsilon 1 (a review)
    base = 2**60 if dtype is not object else 10**30
    a = [base + 128, base]
    b = [base + 129, base]
    if dtype is not None:
        a, b = np.array(a, dtype=dtype), np.array(b, dtype=dtype)
    la = exponential_mechanism_log_probabilities(a, 1.0, 1.0)
    lb = exponential_mechanism_log_probabilities(b, 1.0, 1.0)
    assert np.max(np.abs(la - lb)) <= 1.0 + 1e-9
    np.testing.assert_allclose(la[1] - la[0], -64.0)


def test_a_boolean_among_integer_scores_keeps_the_exact_shift():
    # an object array with a bool skipped the exact shift (a review)
    a = np.array([True, 2**60 + 128, 2**60], dtype=object)
    b = np.array([True, 2**60 + 129, 2**60], dtype=object)
    la = exponential_mechanism_log_probabilities(a, 1.0, 1.0)
    lb = exponential_mechanism_log_probabilities(b, 1.0, 1.0)
    assert np.max(np.abs(la - lb)) <= 1.0 + 1e-9
    with pytest.raises(TypeError, match="scores must be a 1-D array"):
        exponential_mechanism_log_probabilities([0, [1]], 1.0, 1.0)


def test_integer_scores_numpy_would_read_as_floats_keep_the_exact_shift():
    # 2^64 - 1 beside -1 makes numpy pick float64: neighbours one apart gave outputs
    # 1023 apart (a review)
    a = exponential_mechanism_log_probabilities([2**64 - 1, 2**64 - 1024, -1], 1.0, 1.0)
    b = exponential_mechanism_log_probabilities([2**64 - 1, 2**64 - 1025, -1], 1.0, 1.0)
    assert np.max(np.abs(a[:2] - b[:2])) <= 1.0 + 1e-9
