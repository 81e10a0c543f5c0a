"""Per-round privacy parameters of MWEM-type mechanisms.

Neighbouring relation: substitution (same n, one record replaced), so n is
public. Sensitivities in fraction units (answers are means over records):

* one query ``q(D) = mean q(x)``: 1/n (L1 = L2);
* one table (the cells of a marginal, disjoint): L1 2/n, L2 sqrt(2)/n —
  the replaced record leaves one cell (-1/n) and enters another (+1/n);
* selection score of a table ``||M(D_t) - M(D)||_1``: 2/n (triangle
  inequality with the L1 sensitivity of M(D)); of a query
  ``|q(D_t) - q(D)|``: 1/n.

Pure DP (``delta = 0``): T rounds, each ``(f eps/T)`` for the exponential
mechanism and ``((1-f) eps/T)`` for Laplace; basic composition gives eps
(000 App. E, Alg. 2 with f = 1/2).

Approximate DP (``delta > 0``): rho = zcdp_from_dp_budget(eps, delta); each
round spends ``f rho/T`` on the exponential mechanism (eps0-DP is
eps0^2/8-zCDP, bounded range) and ``(1-f) rho/T`` on the Gaussian mechanism
(L2 sensitivity Delta, std s: Delta^2/(2 s^2)-zCDP); zCDP composes additively
and converts back to (eps, delta).
"""

import math
from typing import NamedTuple

import numpy as np

from ..accounting import zcdp_from_dp_budget
from ..mechanisms import exponential_mechanism, laplace_mechanism

__all__ = ["RoundParameters", "round_parameters", "select", "add_noise"]


class RoundParameters(NamedTuple):
    selection_epsilon: float
    selection_sensitivity: float
    noise: str  # 'laplace' or 'gaussian'
    noise_scale: float  # Laplace scale b or Gaussian std, fraction units
    measurement_sensitivity: float  # L1 (Laplace) or L2 (Gaussian), fraction units
    measurement_epsilon: float  # Laplace: per-round epsilon; Gaussian: nan
    rho_per_round: float  # zCDP per round (nan for pure DP)


def round_parameters(epsilon, delta, n_rounds, selection_fraction, n, by_table):
    """Per-round mechanism parameters for a total ``(epsilon, delta)`` budget."""
    f = float(selection_fraction)
    sel_sens = (2.0 if by_table else 1.0) / n
    if delta == 0:
        eps_round = epsilon / n_rounds
        eps_sel = f * eps_round
        eps_meas = (1 - f) * eps_round
        l1 = (2.0 if by_table else 1.0) / n
        return RoundParameters(eps_sel, sel_sens, "laplace", l1 / eps_meas, l1, eps_meas,
                               float("nan"))
    rho = zcdp_from_dp_budget(epsilon, delta)
    rho_round = rho / n_rounds
    eps_sel = math.sqrt(8 * f * rho_round)
    l2 = (math.sqrt(2.0) if by_table else 1.0) / n
    std = l2 / math.sqrt(2 * (1 - f) * rho_round)
    return RoundParameters(eps_sel, sel_sens, "gaussian", std, l2, float("nan"), rho_round)


def select(scores, params, rng):
    """Exponential mechanism over ``scores`` (higher is better)."""
    return int(exponential_mechanism(np.asarray(scores, dtype=float), params.selection_epsilon,
                                     params.selection_sensitivity, rng))


def add_noise(values, params, rng):
    """Noisy copy of ``values`` (a query answer or a table, fraction units)."""
    values = np.asarray(values, dtype=float)
    if params.noise == "laplace":
        return np.asarray(
            laplace_mechanism(values, params.measurement_epsilon,
                              params.measurement_sensitivity, rng), dtype=float
        )
    return values + rng.normal(0.0, params.noise_scale, size=values.shape)
