"""Composition theorems, zCDP, and splitting a budget over adaptive rounds (SPEC §3.4)."""

import math
from fractions import Fraction
from typing import NamedTuple, Optional

import numpy as np
from scipy.optimize import minimize_scalar

from .._validation import check_delta, check_epsilon, check_nonnegative, check_positive_int
from ..mechanisms._common import bisect_float, check_sensitivity

__all__ = [
    "RoundBudget",
    "advanced_composition",
    "basic_composition",
    "exact_rest",
    "split_budget",
    "zcdp_exponential",
    "zcdp_from_dp_budget",
    "zcdp_gaussian",
    "zcdp_to_dp",
]


def _check_nonneg_array(values, name, upper=np.inf, upper_open=False):
    try:
        arr = np.atleast_1d(np.asarray(values, dtype=float))
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number or a 1-D array of them.") from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {arr.shape}.")
    if np.any(np.isnan(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must be >= 0 (no NaN), got {values!r}.")
    if np.any(arr > upper) or (upper_open and np.any(arr >= upper)):
        bound = f"< {upper}" if upper_open else f"<= {upper}"
        raise ValueError(f"{name} must be {bound}, got {values!r}.")
    return arr


def _check_method(method, allowed, name="method"):
    if method not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {method!r}.")
    return method


def basic_composition(epsilons, deltas):
    """Basic (sequential) composition: ``(sum eps_i, sum delta_i)``.

    Valid for adaptive composition of any mechanisms (Dwork & Roth 2014,
    Thm 3.16).

    Parameters
    ----------
    epsilons : float or array-like of shape (n_releases,)
        Each ``>= 0``.
    deltas : float or array-like of shape (n_releases,)
        Each in ``[0, 1]``; a scalar is used for every release.

    Returns
    -------
    epsilon, delta : float
        ``delta`` is capped at 1.

    Examples
    --------
    >>> basic_composition([0.5, 0.25], [1e-6, 0.0])
    (0.75, 1e-06)
    """
    eps = _check_nonneg_array(epsilons, "epsilons")
    dlt = _check_nonneg_array(deltas, "deltas", upper=1.0)
    if dlt.size == 1:
        dlt = np.full(eps.shape, dlt[0])
    if dlt.shape != eps.shape:
        raise ValueError(
            f"deltas must be a scalar or have the same length as epsilons "
            f"({eps.size}), got length {dlt.size}."
        )
    return float(eps.sum()), float(min(1.0, dlt.sum()))


def advanced_composition(epsilon0, delta0, n_rounds, delta_prime):
    """Advanced composition of ``T`` adaptive ``(eps0, delta0)``-DP mechanisms.

    ``eps = eps0 sqrt(2 T ln(1/delta')) + T eps0 (e^{eps0} - 1)/(e^{eps0} + 1)``,
    ``delta = T delta0 + delta'`` (advanced composition [1]_, as used in the
    MWEM privacy analysis [2]_; the ``tanh(eps0/2)`` term is the bound on the
    expected privacy loss, Dwork & Rothblum 2016). For ``delta0 > 0`` this form is the third
    bound of Kairouz, Oh & Viswanath (ICML 2015; arXiv:1311.0776, Thm 3.5),
    whose delta ``1 - (1 - delta0)^T (1 - delta')`` is at most the one
    returned. The formula is returned as is; it can exceed basic
    composition ``T eps0`` for large ``eps0`` or small ``T``
    (:func:`split_budget` takes the better of the two).

    Parameters
    ----------
    epsilon0 : float
        Per-round epsilon, > 0.
    delta0 : float
        Per-round delta, in [0, 1).
    n_rounds : int
        Number of rounds ``T >= 1``.
    delta_prime : float
        Slack ``delta'`` in (0, 1).

    Returns
    -------
    epsilon, delta : float

    References
    ----------
    .. [1] C. Dwork, G. N. Rothblum, S. Vadhan, "Boosting and Differential
       Privacy", FOCS 2010, Theorem III.3.
    .. [2] M. Hardt, K. Ligett, F. McSherry, "A Simple and Practical Algorithm
       for Differentially Private Data Release", NeurIPS 2012,
       arXiv:1012.4763, Section 2 (the privacy of MWEM).

    Examples
    --------
    >>> eps, delta = advanced_composition(0.1, 0.0, 100, 1e-6)
    >>> round(eps, 4), delta
    (5.7561, 1e-06)
    """
    epsilon0 = check_epsilon(epsilon0, "epsilon0")
    delta0 = check_delta(delta0, "delta0")
    n_rounds = check_positive_int(n_rounds, "n_rounds")
    delta_prime = check_delta(delta_prime, "delta_prime", allow_zero=False)
    eps = epsilon0 * np.sqrt(2.0 * n_rounds * -np.log(delta_prime)) + (
        n_rounds * epsilon0 * np.tanh(epsilon0 / 2.0)
    )
    return float(eps), float(min(1.0, n_rounds * delta0 + delta_prime))


def zcdp_gaussian(sensitivity, noise_std):
    """zCDP parameter of the Gaussian mechanism: ``rho = Delta^2 / (2 s^2)``.

    Bun & Steinke (2016), Prop. 1.6. zCDP composes additively.

    Examples
    --------
    >>> zcdp_gaussian(1.0, 2.0)
    0.125
    """
    sensitivity = check_sensitivity(sensitivity)
    noise_std = check_sensitivity(noise_std, "noise_std")
    return float(sensitivity**2 / (2.0 * noise_std**2))


def zcdp_exponential(epsilon):
    """zCDP parameter of the ``epsilon``-DP exponential mechanism: ``eps^2 / 8``.

    The exponential mechanism is ``epsilon``-bounded-range, hence
    ``eps^2/8``-zCDP (Cesar & Rogers 2021, Lemma 3.2). Applies to
    :func:`sksmooth.mechanisms.exponential_mechanism` (also with
    ``monotonic=True``, which is ``epsilon``-bounded-range as well), not to
    arbitrary ``epsilon``-DP mechanisms (those are ``eps^2/2``-zCDP, Bun &
    Steinke 2016, Prop. 1.4). It does **not** apply to
    :func:`sksmooth.mechanisms.sparse_selection`: that is only
    ``(epsilon, delta)``-DP (an output of one input can have probability 0
    under a neighbour, so no finite ``rho`` holds); account it with
    :func:`basic_composition` or :func:`advanced_composition`.

    Examples
    --------
    >>> zcdp_exponential(2.0)
    0.5
    """
    epsilon = check_epsilon(epsilon)
    return float(epsilon**2 / 8.0)


def _zcdp_to_dp_standard(rho, delta):
    return rho + 2.0 * np.sqrt(rho * -np.log(delta))


def _zcdp_to_dp_cks(rho, delta):
    """Canonne, Kamath & Steinke (2020), Prop. 12 / Cor. 13, solved for eps.

    ``delta = exp((a-1)(a rho - eps)) / (a-1) * (1 - 1/a)^a`` for any
    ``a > 1``, i.e. ``eps(a) = a rho + (ln(1/delta) - ln a)/(a - 1) +
    ln(1 - 1/a)``. Every ``a`` gives a valid bound, so an inexact minimiser
    only costs tightness, never privacy.
    """
    log_inv_delta = -np.log(delta)  # not log(1 / delta): 1 / 1e-310 overflows

    def eps_of(t):
        a = 1.0 + np.exp(t)  # a - 1 = e^t > 0
        return a * rho + (log_inv_delta - np.log(a)) / np.exp(t) + np.log1p(-1.0 / a)

    res = minimize_scalar(eps_of, bounds=(-30.0, 30.0), method="bounded",
                          options={"xatol": 1e-10})
    candidates = [eps_of(res.x), eps_of(-30.0), eps_of(30.0)]
    return float(min(candidates))


def zcdp_to_dp(rho, delta, method="cks"):
    """Convert ``rho``-zCDP to ``(eps, delta)``-DP; return ``eps``.

    Parameters
    ----------
    rho : float
        >= 0.
    delta : float
        In (0, 1).
    method : {"cks", "standard"}, default="cks"
        ``"standard"``: ``eps = rho + 2 sqrt(rho ln(1/delta))`` (Bun & Steinke
        2016, Prop. 1.3). ``"cks"``: the tighter conversion of Canonne, Kamath
        & Steinke (2020, Cor. 13), optimised over the Renyi order; the
        result is never larger than the standard one (the minimum of both is
        returned).

    Returns
    -------
    epsilon : float

    Examples
    --------
    >>> round(zcdp_to_dp(0.5, 1e-5, method="standard"), 4)
    5.2985
    """
    rho = check_nonnegative(rho, "rho")
    delta = check_delta(delta, allow_zero=False)
    _check_method(method, ("cks", "standard"))
    if rho == 0:
        return 0.0
    eps = _zcdp_to_dp_standard(rho, delta)
    if method == "cks":
        eps = min(eps, _zcdp_to_dp_cks(rho, delta))
    return float(max(eps, 0.0))


def zcdp_from_dp_budget(epsilon, delta, method="cks"):
    """Largest ``rho`` whose :func:`zcdp_to_dp` conversion is ``<= epsilon``.

    ``method="standard"`` inverts ``eps = rho + 2 sqrt(rho ln(1/delta))`` in
    closed form: ``rho = (sqrt(ln(1/delta) + eps) - sqrt(ln(1/delta)))^2``.
    ``method="cks"`` inverts the CKS conversion by bisection (the returned
    ``rho`` always converts back to at most ``epsilon``).

    Examples
    --------
    >>> rho = zcdp_from_dp_budget(1.0, 1e-6, method="standard")
    >>> round(zcdp_to_dp(rho, 1e-6, method="standard"), 12)
    1.0
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    _check_method(method, ("cks", "standard"))
    log_inv_delta = -np.log(delta)  # not log(1 / delta): 1 / 1e-310 overflows
    # sqrt(L + eps) - sqrt(L) without cancellation (a tiny epsilon made the
    # difference inexact and the guard below walk ulp by ulp for hours)
    rho_std = (epsilon / (np.sqrt(log_inv_delta + epsilon) + np.sqrt(log_inv_delta))) ** 2
    # Guard the closed form against rounding: never return rho that converts above eps.
    while _zcdp_to_dp_standard(rho_std, delta) > epsilon:
        rho_std = np.nextafter(rho_std, 0.0)
    if method == "standard":
        return float(rho_std)
    lo, hi = rho_std, max(2.0 * rho_std, epsilon)
    while zcdp_to_dp(hi, delta) <= epsilon:
        lo, hi = hi, 2.0 * hi
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if zcdp_to_dp(mid, delta) <= epsilon:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    return float(lo)


class RoundBudget(NamedTuple):
    """Per-round privacy parameters returned by :func:`split_budget`.

    Attributes
    ----------
    epsilon : float
        Per-round epsilon for a pure ``epsilon``-DP (or ``(epsilon, delta)``)
        mechanism. With ``method="zcdp"`` it is ``sqrt(2 rho)``, valid for ANY
        pure ``epsilon``-DP mechanism (Laplace, report-noisy-max).
    delta : float
        Per-round delta (0 for ``method="zcdp"``).
    rho : float or None
        Per-round zCDP budget (``method="zcdp"`` only). Spend it with a
        Gaussian mechanism of std ``Delta / sqrt(2 rho)`` or an exponential
        mechanism with ``epsilon = exponential_epsilon``.
    exponential_epsilon : float or None
        ``sqrt(8 rho)``, the epsilon of an exponential mechanism costing
        ``rho`` (``method="zcdp"`` only; Cesar & Rogers 2021).
    """

    epsilon: float
    delta: float
    rho: Optional[float] = None
    exponential_epsilon: Optional[float] = None


# Relative margin absorbing the rounding error of evaluating sqrt/log/tanh
# (a few ulps) when a per-round value is found by bisection on a float formula.
_FLOAT_MARGIN = 1e-12


def _round_share(total, n_rounds, already=0.0):
    """Largest float ``x <= (total - already) / n_rounds`` with ``n x + already <= total`` exactly.

    ``total / n_rounds`` rounds to nearest, so ``n_rounds`` copies of it can
    exceed ``total`` by a few ulps; step down until the exact (rational) sum
    fits.
    """
    share = (total - already) / n_rounds
    exact_total, exact_already = Fraction(total), Fraction(already)
    while share > 0 and Fraction(share) * n_rounds + exact_already > exact_total:
        share = float(np.nextafter(share, 0.0))
    return share


def exact_rest(total, spent=()):
    """What the last spend may take: the largest float ``r >= 0`` with
    ``sum(spent) + r <= total`` in exact (rational) arithmetic.

    Give the last of several adaptive spends (rounds, measurements) ``r``:
    together they use ``total`` up to one rounding of ``r`` and never more,
    whereas ``total - math.fsum(spent)`` rounds to nearest and can exceed
    ``total`` by an ulp (what made AIM's zCDP spends exceed their budget by
    2.2e-16 relative). Every float sum of the spends (``math.fsum``, a
    ledger's) then stays within one ulp of ``total``.

    Parameters
    ----------
    total : float
        The budget (epsilon, delta or rho), finite and ``>= 0``.
    spent : iterable of float
        The spends already made, each finite and ``>= 0``.

    Returns
    -------
    float
        ``0.0`` when ``spent`` already uses up ``total``.

    Examples
    --------
    >>> import math
    >>> parts = [0.1] * 9
    >>> rest = exact_rest(1.0, parts)
    >>> rest, math.fsum(parts + [rest]) == 1.0
    (0.09999999999999995, True)
    """
    values = [float(v) for v in spent]
    if not all(math.isfinite(v) and v >= 0 for v in [float(total)] + values):
        raise ValueError(f"total and spent must be finite and >= 0, got total={total!r} and "
                         f"spent={values!r}.")
    exact = Fraction(float(total)) - sum(map(Fraction, values), Fraction(0))
    if exact <= 0:
        return 0.0
    rest = float(exact)
    return math.nextafter(rest, 0.0) if rest > exact else rest


def _advanced_round_epsilon(epsilon, delta0, n_rounds, delta_prime):
    """Largest eps0 whose advanced composition is <= epsilon (bisection).

    The float formula is compared with ``epsilon (1 - 1e-12)`` so that its
    rounding error can never push the true composition above ``epsilon``.
    """
    target = epsilon * (1.0 - _FLOAT_MARGIN)
    return bisect_float(
        lambda e0: advanced_composition(e0, delta0, n_rounds, delta_prime)[0] <= target,
        0.0, epsilon)[0]


def split_budget(epsilon, delta, n_rounds, method="basic"):
    """Split a total ``(epsilon, delta)`` over ``T`` adaptive rounds.

    Every round may be chosen adaptively from earlier outputs; running ``T``
    mechanisms each with the returned per-round parameters composes to at
    most ``(epsilon, delta)`` (exactly, in rational arithmetic on the returned
    floats: shares are rounded down, and values found by bisection on a float
    formula keep a ``1e-12`` relative margin):

    * ``"basic"``: ``(eps/T, delta/T)`` by basic composition.
    * ``"advanced"``: ``delta' = delta/2`` and ``delta0 = delta/(2T)``; ``eps0``
      is the largest value (bisection) with ``advanced_composition(eps0,
      delta0, T, delta') <= epsilon``, or ``eps/T`` if that is larger (basic
      composition with ``delta0 = delta/(2T)`` then also fits). Needs
      ``delta > 0``.
    * ``"zcdp"``: ``rho = zcdp_from_dp_budget(epsilon, delta)`` and each round
      gets ``rho/T`` (zCDP adds up); see :class:`RoundBudget` for how to
      spend it. Needs ``delta > 0``.

    Parameters
    ----------
    epsilon : float
        Total epsilon, > 0.
    delta : float
        Total delta in [0, 1) (> 0 for "advanced" and "zcdp").
    n_rounds : int
        ``T >= 1``.
    method : {"basic", "advanced", "zcdp"}, default="basic"

    Returns
    -------
    RoundBudget

    Examples
    --------
    >>> split_budget(1.0, 1e-6, 4)
    RoundBudget(epsilon=0.25, delta=2.5e-07, rho=None, exponential_epsilon=None)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    n_rounds = check_positive_int(n_rounds, "n_rounds")
    _check_method(method, ("basic", "advanced", "zcdp"))
    if method == "basic":
        return RoundBudget(_round_share(epsilon, n_rounds), _round_share(delta, n_rounds))
    if delta == 0:
        raise ValueError(
            f"method={method!r} needs delta > 0 (it trades delta for a smaller "
            "epsilon); pass e.g. delta=1e-6 or use method='basic' for pure DP."
        )
    if method == "advanced":
        delta_prime = delta / 2.0
        delta0 = _round_share(delta, n_rounds, already=delta_prime)
        eps0 = _advanced_round_epsilon(epsilon, delta0, n_rounds, delta_prime)
        return RoundBudget(max(eps0, _round_share(epsilon, n_rounds)), delta0)
    # the margin keeps n_rounds * (per-round rho) <= rho exactly, also after
    # the squares of the rounded sqrt(2 rho) and sqrt(8 rho)
    rho = zcdp_from_dp_budget(epsilon, delta) * (1.0 - _FLOAT_MARGIN) / n_rounds
    return RoundBudget(
        float(np.sqrt(2.0 * rho)), 0.0, rho, float(np.sqrt(8.0 * rho))
    )
