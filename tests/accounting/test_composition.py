"""Composition formulas, zCDP conversions and budget splitting."""

import math
from fractions import Fraction

import numpy as np
import pytest

from sksmooth.accounting import (
    RoundBudget,
    advanced_composition,
    basic_composition,
    exact_rest,
    split_budget,
    zcdp_exponential,
    zcdp_from_dp_budget,
    zcdp_gaussian,
    zcdp_to_dp,
)
from sksmooth.mechanisms import gaussian_noise_std
from sksmooth.mechanisms._gaussian import _balle_wang_delta


def test_basic_composition_hand_values():
    assert basic_composition([0.5, 0.25, 0.25], [1e-6, 0.0, 2e-6]) == pytest.approx((1.0, 3e-6))
    assert basic_composition([0.1] * 10, 1e-7) == pytest.approx((1.0, 1e-6))
    assert basic_composition(2.0, 0.0) == (2.0, 0.0)
    assert basic_composition([0.1, 0.1], [0.7, 0.7])[1] == 1.0  # capped


def test_advanced_composition_hand_value():
    # eps0=0.1, T=100, delta'=1e-6:
    # 0.1*sqrt(200*ln(1e6)) = 5.256522 ; 100*0.1*(e^0.1-1)/(e^0.1+1) = 0.499584
    eps, delta = advanced_composition(0.1, 1e-8, 100, 1e-6)
    assert eps == pytest.approx(5.256522 + 0.499584, abs=1e-5)
    assert delta == pytest.approx(100 * 1e-8 + 1e-6)
    # second hand value: eps0=0.5, T=10, delta'=1e-3:
    # 0.5*sqrt(20*6.907755) = 5.876970 ; 10*0.5*tanh(0.25) = 1.224593
    assert advanced_composition(0.5, 0.0, 10, 1e-3)[0] == pytest.approx(7.101563, abs=1e-5)


def test_zcdp_hand_values():
    assert zcdp_gaussian(1.0, 2.0) == 0.125
    assert zcdp_gaussian(3.0, 1.5) == pytest.approx(2.0)
    assert zcdp_exponential(2.0) == 0.5
    # rho=0.5, delta=1e-5: 0.5 + 2*sqrt(0.5*11.512925) = 5.298526
    assert zcdp_to_dp(0.5, 1e-5, method="standard") == pytest.approx(5.298526, abs=1e-5)
    assert zcdp_to_dp(0.0, 1e-5) == 0.0


@pytest.mark.parametrize("noise_std", [0.5, 1.0, 3.0, 10.0, 50.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-10])
def test_cks_conversion_is_valid_and_tighter(noise_std, delta):
    """The Gaussian mechanism's exact (eps, delta) curve (Balle-Wang) is the
    ground truth: a valid conversion of rho = 1/(2 s^2) must give eps with
    exact_delta(eps) <= delta."""
    rho = zcdp_gaussian(1.0, noise_std)
    eps_cks = zcdp_to_dp(rho, delta)
    eps_std = zcdp_to_dp(rho, delta, method="standard")
    assert eps_cks <= eps_std
    assert _balle_wang_delta(noise_std, eps_cks) <= delta
    assert _balle_wang_delta(noise_std, eps_std) <= delta
    # and the conversion is not vacuous: the exact eps is within a modest factor
    assert eps_cks < 1.5 * _exact_gaussian_eps(noise_std, delta) + 0.05


def _exact_gaussian_eps(noise_std, delta):
    lo, hi = 0.0, 1.0
    while _balle_wang_delta(noise_std, hi) > delta:
        hi *= 2
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _balle_wang_delta(noise_std, mid) > delta else (lo, mid)
    return hi


@pytest.mark.parametrize("method", ["standard", "cks"])
@pytest.mark.parametrize("eps, delta", [(0.1, 1e-6), (1.0, 1e-5), (8.0, 1e-9)])
def test_zcdp_from_dp_budget_round_trip(method, eps, delta):
    rho = zcdp_from_dp_budget(eps, delta, method=method)
    back = zcdp_to_dp(rho, delta, method=method)
    assert back <= eps
    assert back == pytest.approx(eps, rel=1e-8)
    if method == "cks":
        assert rho >= zcdp_from_dp_budget(eps, delta, method="standard")


@pytest.mark.parametrize("eps, delta", [(1e-9, 1e-5), (1e-6, 1e-10)])
def test_zcdp_from_dp_budget_tiny_epsilon_returns_quickly(eps, delta):
    # the closed form used to cancel catastrophically for tiny epsilon, and the
    # rounding guard then stepped one ulp at a time (hung for > 10 minutes)
    rho = zcdp_from_dp_budget(eps, delta, method="standard")
    assert 0 < rho and zcdp_to_dp(rho, delta, method="standard") <= eps
    assert rho == pytest.approx(eps ** 2 / (4 * np.log(1 / delta)), rel=1e-6)


def test_split_budget_basic_round_trip():
    rb = split_budget(1.0, 1e-6, 4)
    assert rb == RoundBudget(0.25, 2.5e-7)
    assert basic_composition([rb.epsilon] * 4, rb.delta) == pytest.approx((1.0, 1e-6))
    assert split_budget(2.0, 0.0, 5).delta == 0.0


@pytest.mark.parametrize("n_rounds", [1, 10, 100, 1000])
def test_split_budget_advanced_round_trip(n_rounds):
    eps, delta = 1.0, 1e-6
    rb = split_budget(eps, delta, n_rounds, method="advanced")
    adv_eps, adv_delta = advanced_composition(rb.epsilon, rb.delta, n_rounds, delta / 2)
    basic_eps, basic_delta = basic_composition([rb.epsilon] * n_rounds, rb.delta)
    assert min(adv_eps, basic_eps) <= eps * (1 + 1e-12)
    assert max(adv_delta, basic_delta) <= delta
    # never worse than basic composition (up to the ulp-level round-down
    # that keeps n_rounds * eps0 <= eps exactly)
    assert rb.epsilon >= eps / n_rounds * (1 - 1e-15)
    if n_rounds >= 100:  # advanced beats basic and uses the budget fully
        assert rb.epsilon > eps / n_rounds
        assert adv_eps == pytest.approx(eps, rel=1e-9)


@pytest.mark.parametrize("n_rounds", [1, 50, 1000])
def test_split_budget_zcdp_round_trip(n_rounds):
    eps, delta = 1.0, 1e-6
    rb = split_budget(eps, delta, n_rounds, method="zcdp")
    assert rb.delta == 0.0
    assert rb.rho * n_rounds == pytest.approx(zcdp_from_dp_budget(eps, delta))
    assert zcdp_to_dp(rb.rho * n_rounds, delta) <= eps * (1 + 1e-12)
    # pure eps0-DP costs eps0^2/2; the exponential mechanism eps_em^2/8
    assert rb.epsilon**2 / 2 == pytest.approx(rb.rho)
    assert zcdp_exponential(rb.exponential_epsilon) == pytest.approx(rb.rho)
    # a Gaussian mechanism spending rho per round
    std = 1.0 / np.sqrt(2 * rb.rho)
    assert zcdp_gaussian(1.0, std) == pytest.approx(rb.rho)


def test_split_methods_order_for_many_rounds():
    basic = split_budget(1.0, 1e-6, 500)
    adv = split_budget(1.0, 1e-6, 500, method="advanced")
    z = split_budget(1.0, 1e-6, 500, method="zcdp")
    assert basic.epsilon < adv.epsilon < z.epsilon


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: basic_composition([-1.0], [0.0]), ValueError, "epsilons"),
        (lambda: basic_composition([1.0, 1.0], [0.0, 0.0, 0.0]), ValueError, "deltas"),
        (lambda: basic_composition([1.0], [1.5]), ValueError, "deltas"),
        (lambda: basic_composition(["a"], [0.0]), TypeError, "epsilons"),
        (lambda: basic_composition([], []), ValueError, "epsilons"),
        (lambda: advanced_composition(0.0, 0.0, 10, 1e-6), ValueError, "epsilon0"),
        (lambda: advanced_composition(0.1, 1.0, 10, 1e-6), ValueError, "delta0"),
        (lambda: advanced_composition(0.1, 0.0, 0, 1e-6), ValueError, "n_rounds"),
        (lambda: advanced_composition(0.1, 0.0, 10, 0.0), ValueError, "delta_prime"),
        (lambda: zcdp_gaussian(0.0, 1.0), ValueError, "sensitivity"),
        (lambda: zcdp_gaussian(1.0, -1.0), ValueError, "noise_std"),
        (lambda: zcdp_exponential(-1.0), ValueError, "epsilon"),
        (lambda: zcdp_to_dp(-0.1, 1e-6), ValueError, "rho"),
        (lambda: zcdp_to_dp("x", 1e-6), TypeError, "rho"),
        (lambda: zcdp_to_dp(10**400, 1e-6), ValueError, "rho must be finite"),  # not OverflowError
        (lambda: zcdp_to_dp(0.1, 0.0), ValueError, "delta"),
        (lambda: zcdp_to_dp(0.1, 1e-6, method="rdp"), ValueError, "method"),
        (lambda: zcdp_from_dp_budget(0.0, 1e-6), ValueError, "epsilon"),
        (lambda: zcdp_from_dp_budget(1.0, 0.0), ValueError, "delta"),
        (lambda: split_budget(1.0, 0.0, 10, method="advanced"), ValueError, "delta > 0"),
        (lambda: split_budget(1.0, 0.0, 10, method="zcdp"), ValueError, "delta > 0"),
        (lambda: split_budget(1.0, 1e-6, 0), ValueError, "n_rounds"),
        (lambda: split_budget(1.0, 1e-6, 10, method="moments"), ValueError, "method"),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_gaussian_mechanism_calibration_consistent_with_zcdp():
    """A Gaussian calibrated for (eps, delta) has rho whose conversion is >= eps
    (conversions are upper bounds on the exact curve)."""
    std = gaussian_noise_std(1.0, 1e-5, 1.0)
    assert zcdp_to_dp(zcdp_gaussian(1.0, std), 1e-5) >= 1.0


@pytest.mark.parametrize("noise_std, n_rounds, delta",
                         [(1.0, 1, 1e-5), (5.0, 100, 1e-6), (2.0, 10, 1e-3), (0.7, 3, 1e-9)])
def test_cks_matches_dp_accounting_rdp(noise_std, n_rounds, delta):
    """Cross-check against Google's dp_accounting when installed (optional)."""
    dp_accounting = pytest.importorskip("dp_accounting")
    rdp = dp_accounting.rdp.RdpAccountant()
    rdp.compose(dp_accounting.GaussianDpEvent(noise_std), n_rounds)
    pld = dp_accounting.pld.PLDAccountant()
    pld.compose(dp_accounting.GaussianDpEvent(noise_std), n_rounds)
    mine = zcdp_to_dp(n_rounds * zcdp_gaussian(1.0, noise_std), delta)
    # RDP on a discrete order grid vs our continuous optimum of the same bound
    assert mine == pytest.approx(rdp.get_epsilon(delta), rel=1e-3)
    assert mine >= pld.get_epsilon(delta)  # PLD is (near) exact: ours must not be below


def _decimal_advanced_epsilon(eps0, n_rounds, delta_prime):
    """Advanced composition evaluated with 50 significant digits."""
    import decimal

    with decimal.localcontext() as ctx:
        ctx.prec = 50
        e0 = decimal.Decimal(eps0)
        ex = e0.exp()
        tanh_half = (ex - 1) / (ex + 1)
        log_inv = -decimal.Decimal(delta_prime).ln()
        return e0 * (2 * n_rounds * log_inv).sqrt() + n_rounds * e0 * tanh_half


@pytest.mark.expensive
def test_split_budget_composes_back_exactly():
    # per-round values must compose to <= the total in exact arithmetic on the
    # returned floats, not only up to rounding (eps / T rounds up half the time)
    from fractions import Fraction

    rng = np.random.default_rng(0)
    for _ in range(100):
        eps = float(rng.uniform(0.01, 10.0))
        delta = float(10.0 ** rng.uniform(-12, -1))
        T = int(rng.integers(1, 2000))
        rb = split_budget(eps, delta, T)
        assert Fraction(rb.epsilon) * T <= Fraction(eps)
        assert Fraction(rb.delta) * T <= Fraction(delta)

        rb = split_budget(eps, delta, T, method="advanced")
        assert Fraction(rb.delta) * T + Fraction(delta / 2) <= Fraction(delta)
        basic_ok = Fraction(rb.epsilon) * T <= Fraction(eps)
        adv_ok = _decimal_advanced_epsilon(rb.epsilon, T, delta / 2) <= Fraction(eps)
        assert basic_ok or adv_ok

        rb = split_budget(eps, delta, T, method="zcdp")
        rho_total = Fraction(zcdp_from_dp_budget(eps, delta))
        assert Fraction(rb.rho) * T <= rho_total
        assert Fraction(rb.epsilon) ** 2 / 2 * T <= rho_total  # pure DP => eps^2/2-zCDP
        assert Fraction(rb.exponential_epsilon) ** 2 / 8 * T <= rho_total


def test_a_subnormal_delta_converts_without_overflow():
    # log(1 / 1e-310) overflowed: zcdp_to_dp gave inf, zcdp_from_dp_budget 0 (a review)
    import warnings

    from sksmooth.accounting import zcdp_from_dp_budget, zcdp_to_dp

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        eps = zcdp_to_dp(0.1, 1e-310)
        rho = zcdp_from_dp_budget(1.0, 1e-310)
    assert np.isfinite(eps) and 0 < rho and zcdp_to_dp(rho, 1e-310) <= 1.0
    assert eps > zcdp_to_dp(0.1, 1e-300)  # smaller delta, larger epsilon


def test_exact_rest_never_exceeds_the_total_and_uses_it_up():
    parts = [0.1] * 9
    naive = 1.0 - math.fsum(parts)  # rounds to nearest: exceeds the total
    assert sum(map(Fraction, parts + [naive])) > 1
    rest = exact_rest(1.0, parts)
    assert sum(map(Fraction, parts + [rest])) <= 1 < sum(
        map(Fraction, parts + [math.nextafter(rest, 2.0)]))
    rng = np.random.default_rng(0)
    for _ in range(200):
        total = float(rng.uniform(0.1, 10.0))
        spent = list(rng.dirichlet(np.ones(int(rng.integers(1, 30)))) * total * 0.999)
        rest = exact_rest(total, spent)
        exact = sum(map(Fraction, spent + [rest]))
        assert exact <= Fraction(total)  # never more, in exact arithmetic
        assert Fraction(total) - exact < Fraction(math.ulp(rest))  # and at most one ulp less
    assert exact_rest(1.0, [0.6, 0.6]) == 0.0 and exact_rest(1.0) == 1.0
    with pytest.raises(ValueError, match="finite and >= 0"):
        exact_rest(1.0, [-0.1])
