"""Per-round privacy parameters and the noise of MWEM-type mechanisms.

Substitution neighbours (``n`` public); integer counts with discrete Laplace
(``delta = 0``) or discrete Gaussian (``delta > 0``, zCDP) noise; exact
integer selection scores. Sensitivities and the per-round split:
``docs/derivations.rst``, section "Per-round privacy of the MWEM family".
"""

import functools
import math
from typing import NamedTuple

import numpy as np

from ..accounting import zcdp_from_dp_budget
from ..mechanisms import (
    discrete_gaussian_mechanism,
    discrete_laplace_mechanism,
    exact_exponential_mechanism,
)

__all__ = ["RoundParameters", "round_parameters", "select", "measure_counts", "zcdp_budget",
           "integer_scores", "SCORE_SCALE"]

SCORE_SCALE = 2**16  # selection scores are integers in units of 1 / (n SCORE_SCALE)


class RoundParameters(NamedTuple):
    selection_epsilon: float
    selection_sensitivity: int  # of the integer selection score (units 1/(n SCORE_SCALE))
    noise: str  # 'laplace' (discrete) or 'gaussian' (discrete)
    noise_scale: float  # discrete Laplace scale or discrete Gaussian sigma, COUNT units
    measurement_sensitivity: float  # L1 (Laplace) or L2 (Gaussian), count units
    measurement_epsilon: float  # Laplace: per-round epsilon; Gaussian: nan
    rho_per_round: float  # zCDP per round (nan for pure DP)

    @property
    def noise_std(self):
        """Standard deviation of one measured count's noise, count units (the continuous
        law's: ``sqrt(2) b`` for Laplace of scale ``b``, ``sigma`` for Gaussian)."""
        return self.noise_scale * (math.sqrt(2.0) if self.noise == "laplace" else 1.0)


@functools.lru_cache(maxsize=256)
def zcdp_budget(epsilon, delta):
    """``rho`` whose zCDP-to-DP conversion is ``epsilon`` at ``delta`` (memoised: a bisection)."""
    return zcdp_from_dp_budget(epsilon, delta)


def round_parameters(epsilon, delta, n_rounds, selection_fraction, n, by_table):
    """Per-round mechanism parameters for a total ``(epsilon, delta)`` budget."""
    f = float(selection_fraction)
    sel_sens = (2 if by_table else 1) * SCORE_SCALE
    if delta == 0:
        eps_round = epsilon / n_rounds
        eps_sel = f * eps_round
        eps_meas = (1 - f) * eps_round
        l1 = 2 if by_table else 1  # integer: the discrete Laplace needs it
        return RoundParameters(eps_sel, sel_sens, "laplace", l1 / eps_meas, l1, eps_meas,
                               float("nan"))
    rho = zcdp_budget(epsilon, delta)
    rho_round = rho / n_rounds
    eps_sel = math.sqrt(8 * f * rho_round)
    l2 = math.sqrt(2.0) if by_table else 1.0
    sigma = l2 / math.sqrt(2 * (1 - f) * rho_round)
    return RoundParameters(eps_sel, sel_sens, "gaussian", sigma, l2, float("nan"), rho_round)


def integer_scores(model_answers, counts, n):
    """``|round(SCORE_SCALE n a) - SCORE_SCALE k|`` elementwise, exact int64.

    ``model_answers`` are public (fractions answered by the current model),
    ``counts`` the private integer counts.
    """
    public = np.rint(np.asarray(model_answers, dtype=float) * (n * SCORE_SCALE)).astype(np.int64)
    return np.abs(public - SCORE_SCALE * np.asarray(counts, dtype=np.int64))


def select(scores, params, rng):
    """Exponential mechanism over integer ``scores`` (higher is better), sampled exactly."""
    return int(exact_exponential_mechanism(np.asarray(scores, dtype=np.int64),
                                           params.selection_epsilon,
                                           params.selection_sensitivity, rng))


def measure_counts(counts, params, rng):
    """Integer counts plus exact discrete noise (int64, same shape as ``counts``)."""
    counts = np.asarray(counts)
    if not np.issubdtype(counts.dtype, np.integer):
        raise TypeError("measure_counts needs integer counts (exact discrete mechanisms).")
    if params.noise == "laplace":
        noisy = discrete_laplace_mechanism(counts, params.measurement_epsilon,
                                           params.measurement_sensitivity, rng)
    else:
        noisy = discrete_gaussian_mechanism(counts, params.noise_scale, rng)
    return np.asarray(noisy, dtype=np.int64).reshape(counts.shape)
