"""Gaussian mechanism with classic and analytic calibration."""

import numpy as np
from scipy.special import log_ndtr, ndtr

from .._validation import check_delta, check_epsilon
from ._common import (add_noise, bisect_float, check_noise_scale, check_rng, check_sensitivity,
                      check_size, check_value)

__all__ = ["gaussian_mechanism", "gaussian_noise_std"]


def _balle_wang_delta(noise_std, epsilon, sensitivity=1.0):
    """Exact delta of the Gaussian mechanism (Balle & Wang 2018, Thm 8).

    ``Phi(D/(2s) - eps s/D) - e^eps Phi(-D/(2s) - eps s/D)``; the second term
    is evaluated in log space so that large ``eps`` cannot overflow.
    """
    ratio = noise_std / sensitivity
    a = 1.0 / (2.0 * ratio)
    b = epsilon * ratio
    return ndtr(a - b) - np.exp(epsilon + log_ndtr(-a - b))


# Constant of the forward rounding-error bound in _balle_wang_delta_upper.
# With 1/4 of it the calibration violated the exact condition (checked with
# 80-digit mpmath); with 8 no violation was found over eps in [1e-11, 700],
# delta in [1e-300, 0.9].
_ROUNDING_ERROR_FACTOR = 8.0


def _balle_wang_delta_upper(noise_std, epsilon):
    """Upper bound on the exact delta (sensitivity 1) despite rounding.

    ``Phi(a - b) - e^eps Phi(-a - b)`` cancels catastrophically when the two
    terms nearly agree (small ``eps``, small ``delta``): for ``eps = 1e-8,
    delta = 1e-100`` the float difference is off by 0.2 %, for ``eps =
    1e-10, delta = 1e-300`` by a factor 1e17. Each term is a Gaussian tail
    at an argument ``x`` computed with absolute error ``~ u (a + b)``, i.e.
    relative error ``~ u |x| (a + b)`` (``u`` = machine epsilon), so we add
    ``C u [(1 + |x1| (a + b)) t1 + (1 + |x2| (a + b) + eps) t2]``. Where
    there is no cancellation this changes the result by ~1e-15 relative.
    """
    a = 1.0 / (2.0 * noise_std)
    b = epsilon * noise_std
    x1, x2 = a - b, -a - b
    t1 = ndtr(x1)
    t2 = np.exp(epsilon + log_ndtr(x2))
    error = _ROUNDING_ERROR_FACTOR * np.finfo(float).eps * (
        (1.0 + abs(x1) * (a + b)) * t1 + (1.0 + abs(x2) * (a + b) + epsilon) * t2
    )
    return t1 - t2 + error


def _analytic_std(epsilon, delta):
    """Smallest ``s`` (for sensitivity 1) whose delta is provably ``<= delta``.

    The exact delta is strictly decreasing in ``s``; bisection on the
    rounding-safe upper bound :func:`_balle_wang_delta_upper` returns an
    upper end ``hi`` that satisfies the condition (never an ``s`` that
    violates it).
    """
    return bisect_float(lambda s: _balle_wang_delta_upper(s, epsilon) > delta, 0.0, 1.0)[1]


def gaussian_noise_std(epsilon, delta, sensitivity, calibration="analytic"):
    """Standard deviation of Gaussian noise giving (epsilon, delta)-DP.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, > 0.
    delta : float
        In (0, 1).
    sensitivity : float
        L2 sensitivity of the released statistic, > 0.
    calibration : {"analytic", "classic"}, default="analytic"
        ``"classic"``: ``sigma = sqrt(2 ln(1.25/delta)) * Delta / eps``
        (Dwork & Roth 2014, Thm A.1), valid only for ``epsilon < 1``; a
        ``ValueError`` is raised otherwise (the formula is not a proof of
        privacy there). ``"analytic"``: the smallest ``sigma`` satisfying the
        exact (necessary and sufficient) condition of Balle & Wang (2018,
        Thm 8), ``Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps
        Phi(-Delta/(2 sigma) - eps sigma/Delta) <= delta``, found by bisection
        on a bound that also covers the rounding error of this difference
        (it cancels catastrophically for tiny ``eps`` and ``delta``); valid
        for every ``epsilon > 0`` and (checked numerically) below the
        classic value.

    Returns
    -------
    noise_std : float

    References
    ----------
    Balle & Wang, "Improving the Gaussian mechanism for differential privacy:
    analytical calibration and optimal denoising", ICML 2018.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    sensitivity = check_sensitivity(sensitivity)
    if calibration == "classic":
        if epsilon >= 1:
            raise ValueError(
                f"calibration='classic' is only valid for epsilon < 1 "
                f"(Dwork & Roth, Thm A.1), got epsilon={epsilon}; use "
                "calibration='analytic', which is exact for every epsilon."
            )
        with np.errstate(over="ignore"):
            std = np.sqrt(2.0 * np.log(1.25 / delta)) * sensitivity / epsilon
        return float(check_noise_scale(std, "sqrt(2 log(1.25 / delta)) sensitivity / epsilon"))
    if calibration == "analytic":
        with np.errstate(over="ignore"):
            std = _analytic_std(epsilon, delta) * sensitivity
        return float(check_noise_scale(std, "the analytic std x sensitivity"))
    raise ValueError(
        f"calibration must be 'analytic' or 'classic', got {calibration!r}."
    )


def gaussian_mechanism(
    value, epsilon, delta, sensitivity, rng, calibration="analytic", size=None
):
    """Add Gaussian noise calibrated by :func:`gaussian_noise_std` to ``value``.

    (epsilon, delta)-DP when ``sensitivity`` bounds the L2 norm of the change
    of ``value`` between neighbouring datasets. With noise std ``s`` it is
    also ``Delta^2/(2 s^2)``-zCDP (:func:`sksmooth.accounting.zcdp_gaussian`).

    Parameters
    ----------
    value : float or array-like
    epsilon : float
    delta : float
        In (0, 1).
    sensitivity : float
        L2 sensitivity, > 0.
    rng : numpy.random.Generator
    calibration : {"analytic", "classic"}, default="analytic"
    size : int, optional
        Number of independent noisy copies (prepended axis). Each copy is
        one ``(epsilon, delta)``-DP release; all ``size`` copies together
        cost ``size`` times as much (composition). Meant for audits.

    Returns
    -------
    noisy : float or ndarray
        Same shape as ``value`` (float for scalar input), or
        ``(size, *value.shape)``.

    Notes
    -----
    Floating-point caveat: numpy's floating-point Gaussian sampler is not
    hardened against Mironov-style (2012) attacks; for integer statistics
    use :func:`discrete_gaussian_mechanism`, which is exact (see
    :mod:`sksmooth.mechanisms`).

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.mechanisms import gaussian_noise_std
    >>> round(gaussian_noise_std(1.0, 1e-5, 1.0), 2)
    3.73
    """
    arr, is_scalar = check_value(value)
    noise_std = gaussian_noise_std(epsilon, delta, sensitivity, calibration)
    rng = check_rng(rng)
    size = check_size(size)
    return add_noise(arr, is_scalar, size, lambda n: rng.normal(scale=noise_std, size=n))
