"""Noise calibration for Gaussian-perturbed ERM and Gaussian FTPL.

Block and Shetty, arXiv:2502.10292 (2025): Lemma 2 (privacy, ``epsilon <=
1``), Thm 1 (regret). Where the statement and its proof disagree the
proof's constants are used: ``docs/derivations.rst``, section "Calibration
of Gaussian-perturbed ERM and FTPL".
"""

import numpy as np

from .._validation import check_delta, check_epsilon, check_nonnegative

__all__ = [
    "finite_class_gaussian_complexity",
    "labelings_gaussian_complexity",
    "perturbation_epsilon",
    "perturbation_noise",
    "lemma1_min_noise",
    "ftpl_noise",
    "ftpl_regret_bound",
]

_LEMMA2_CONSTANT = 32.0
# Lemma 1 is run at delta / _DELTA_SLACK: the (1 - x)^-1 <= 2 factor on the
# additive delta in the proof of Lemma 4 (see the module docstring).
_DELTA_SLACK = 2.0
_THM1_CONSTANT = 64.0


def finite_class_gaussian_complexity(n_functions):
    """Upper bound ``sqrt(2 ln |F|)`` on ``G = E sup_f w(f)`` for a finite class.

    Each ``w(f)`` is N(0, 1) when ``f`` takes values in {-1, +1}; the
    expected maximum of ``n`` standard normals is at most ``sqrt(2 ln n)``.
    """
    n_functions = int(n_functions)
    if n_functions < 1:
        raise ValueError(f"n_functions must be >= 1, got {n_functions}.")
    return float(np.sqrt(2.0 * np.log(n_functions)))


def labelings_gaussian_complexity(n_points):
    """``G`` of the class of *all* labelings of ``m`` points: exactly ``sqrt(2 m / pi)``.

    ``sup_f m**-0.5 sum_i xi_i f(z_i) = m**-0.5 sum_i |xi_i|`` and
    ``E|xi| = sqrt(2/pi)``; this is below the finite-class bound
    ``sqrt(2 ln 2**m)``.
    """
    return float(np.sqrt(2.0 * n_points / np.pi))


def _check_rho_g(rho, gaussian_complexity):
    rho = float(rho)
    if not rho > 0 or not np.isfinite(rho):
        raise ValueError(f"rho must be a finite number > 0, got {rho!r}.")
    return rho, check_nonnegative(gaussian_complexity, "gaussian_complexity")


def _lemma2_factor(rho, delta, gaussian_complexity):
    rho, g = _check_rho_g(rho, gaussian_complexity)
    delta = check_delta(delta, allow_zero=False)
    return _LEMMA2_CONSTANT / rho**2 * (g + np.sqrt(2.0 * np.log(_DELTA_SLACK / delta)))


def perturbation_epsilon(noise, rho, delta, gaussian_complexity):
    """Epsilon of Alg. 2 at noise level ``eta = noise`` (Lemma 2 of Block and Shetty).

    ``epsilon = 32 / (eta rho^2) (G + sqrt(2 log(2/delta)))`` (Lemma 1 at
    ``delta / 2``, see the module docstring). The value is a
    valid guarantee only when it is ``<= 1`` (condition (6) of Lemma 1).
    """
    noise = float(noise)
    if not noise > 0:
        raise ValueError(f"noise must be > 0, got {noise!r}.")
    return float(_lemma2_factor(rho, delta, gaussian_complexity) / noise)


def perturbation_noise(epsilon, rho, delta, gaussian_complexity):
    """Noise ``eta`` making Alg. 2 (epsilon, delta)-DP by Lemma 2 (inverse of
    :func:`perturbation_epsilon`). Needs ``epsilon <= 1`` to be valid (see
    :func:`lemma1_min_noise`)."""
    epsilon = check_epsilon(epsilon)
    return float(_lemma2_factor(rho, delta, gaussian_complexity) / epsilon)


def lemma1_min_noise(rho, delta, gaussian_complexity):
    """Smallest ``eta`` allowed by condition (6) of Lemma 1 (= the noise of epsilon = 1)."""
    return float(_lemma2_factor(rho, delta, gaussian_complexity))


def ftpl_noise(rho, gaussian_complexity, log_n_functions, horizon, loss_bound=1.0):
    """Noise of Thm 1 in the small-loss regime: the smallest ``eta`` satisfying (13).

    ``eta = 64 B / rho^2 * (G + sqrt(log(2 T |F|)))`` (with ``delta =
    1/(T |F|)`` as in the proof of Thm 1). ``log_n_functions = ln |F|``.
    """
    rho, g = _check_rho_g(rho, gaussian_complexity)
    log_term = np.sqrt(np.log(2.0 * horizon) + log_n_functions)
    return float(_THM1_CONSTANT * loss_bound / rho**2 * (g + log_term))


def _thm1_log_term(log_n_functions, horizon):
    return np.log(2.0 * horizon) + log_n_functions


def _thm1_stability(rho, gaussian_complexity, log_n_functions, horizon, loss_bound):
    """``x * eta`` of the proof of Thm 1 (module docstring): the larger of (14)'s
    and Lemma 1's factors."""
    log_2tf = _thm1_log_term(log_n_functions, horizon)
    # Lemma 1 at delta = 1/(_DELTA_SLACK T |F|): additive terms sum to B
    lemma1_term = gaussian_complexity + np.sqrt(
        2.0 * (np.log(_DELTA_SLACK * horizon) + log_n_functions))
    return loss_bound / rho**2 * max(_THM1_CONSTANT * np.sqrt(log_2tf),
                                     _LEMMA2_CONSTANT * lemma1_term)


def _theorem_noise(rho, gaussian_complexity, log_n_functions, horizon, best_loss=0.0,
                       loss_bound=1.0):
    """Thm 1's ``eta`` for best loss ``L*``: the minimiser of the proof's bound
    over condition (13) (:func:`ftpl_noise` at ``L* = 0`` and for small ``L*``)."""
    rho, g = _check_rho_g(rho, gaussian_complexity)
    minimum = ftpl_noise(rho, g, log_n_functions, horizon, loss_bound)
    if g == 0 or best_loss <= 0:
        return minimum
    c = _thm1_stability(rho, g, log_n_functions, horizon, loss_bound)
    return float(max(minimum, np.sqrt(c * best_loss / (2.0 * g))))


def ftpl_regret_bound(noise, rho, gaussian_complexity, log_n_functions, horizon,
                      best_loss=0.0, loss_bound=1.0):
    """Expected-regret bound of Gaussian FTPL (Thm 1 of Block and Shetty).

    At the theorem's ``eta`` (``_theorem_noise``; with ``L* = 0`` the
    smallest ``eta`` of condition (13), what ``noise='theory'`` plays) the
    bound as the theorem displays it, ``16 sqrt(B log(2T|F|) L*) / rho + 64 B
    log(2T|F|) / rho^2``, or the proof's ``2 eta G + B + x (L* + 2 eta G)``
    if that is smaller. At any other ``eta`` satisfying (13), the proof's
    form (the theorem is stated for its own ``eta`` only); ``inf`` when
    ``eta`` violates (13). The stability factor ``x`` is the larger of (14)'s
    and Lemma 1's (module docstring).

    References
    ----------
    A. Block and A. Shetty, "Small loss bounds for online learning separated
    function classes: a Gaussian process perspective", 2025,
    arXiv:2502.10292, Thm 1 (proof in App. C).
    """
    rho, g = _check_rho_g(rho, gaussian_complexity)
    if noise < ftpl_noise(rho, g, log_n_functions, horizon, loss_bound) * (1 - 1e-12):
        return float("inf")
    stability = _thm1_stability(rho, g, log_n_functions, horizon, loss_bound) / noise
    proof = 2 * noise * g + loss_bound + stability * (best_loss + 2 * noise * g)
    theorem_eta = _theorem_noise(rho, g, log_n_functions, horizon, best_loss, loss_bound)
    if abs(noise - theorem_eta) > 1e-9 * theorem_eta:
        return float(proof)
    log_2tf = _thm1_log_term(log_n_functions, horizon)
    displayed = (16.0 * np.sqrt(loss_bound * log_2tf * best_loss) / rho
                 + _THM1_CONSTANT * loss_bound * log_2tf / rho**2)
    return float(min(displayed, proof))
