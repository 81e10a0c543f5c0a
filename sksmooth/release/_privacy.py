"""Per-round privacy parameters and the noise of MWEM-type mechanisms.

Neighbouring relation: substitution (same n, one record replaced), so n is
public. Every measurement is a vector of integer **counts** (how many
records fall in each cell / satisfy the query), released with integer
noise; the fractions a user sees (``measurements_``, ``answers_``) are those
noisy counts divided by the public ``n`` — a deterministic post-processing
of an exact discrete release, so there is no floating-point noise to attack
(Mironov 2012). Sensitivities in count units:

* one query count: 1 (L1 = L2);
* one table (the cells of a marginal, disjoint): L1 2, L2 sqrt(2) — the
  replaced record leaves one cell and enters another.

Selection scores are exact integers in units of ``1/(n 2^16)``: the
public model's answers are rounded to that grid (post-processing of past
releases) and the data enter as integer counts, so a table's score
``sum_c |round(2^16 n M_t(c)) - 2^16 count_c|`` has sensitivity ``2 * 2^16``
and a query's ``|round(2^16 n q(D_t)) - 2^16 count|`` has ``2^16`` — the
same mechanism as on the fractions (sensitivities 2/n and 1/n) up to the
public rounding. Selection is then the exponential mechanism sampled
exactly (:func:`sksmooth.mechanisms.exact_exponential_mechanism`), so no
part of the release relies on floating-point noise.

Pure DP (``delta = 0``): T rounds, each ``f eps/T`` for the exponential
mechanism and ``(1-f) eps/T`` for a discrete Laplace measurement with scale
``L1/eps_meas`` — ``eps_meas``-DP for an integer query of L1 sensitivity
L1 (Canonne, Kamath, Steinke 2020, §2 / Thm 2 for the discrete Laplace);
basic composition gives eps (Haghtalab, Roughgarden, Shetty 2020, App. E,
Alg. 2 with f = 1/2).

Approximate DP (``delta > 0``): rho = zcdp_from_dp_budget(eps, delta); each
round spends ``f rho/T`` on the exponential mechanism (eps0-DP is
eps0^2/8-zCDP, bounded range) and ``(1-f) rho/T`` on a discrete Gaussian
measurement (integer query, L2 sensitivity Delta, variance parameter
``s^2``: exactly ``Delta^2/(2 s^2)``-zCDP, Canonne, Kamath, Steinke 2020,
Thm 4); zCDP composes additively and converts back to (eps, delta).

References
----------
Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential
Privacy", NeurIPS 2020, arXiv:2004.00010.
Mironov, "On significance of the least significant bits for differential
privacy", CCS 2012.
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
