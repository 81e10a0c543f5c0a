"""Fit a factored model to all noisy marginal measurements at once.

Private-PGM estimation (McKenna, Sheldon & Miklau 2019): find the
distribution whose marginals best explain every measurement,

    minimise  L(p) = 1/2 sum_r || N p_r - y_r ||^2 / sigma_r^2

over distributions ``p`` of the exponential family with one log-factor
``theta_r`` per measured attribute set ``r`` (``p_r`` is the marginal of ``p``
on ``r``, ``y_r`` the noisy counts, ``sigma_r`` their noise std, ``N`` the
total count). Every measurement is weighted by the inverse of its noise std,
so precise tables count more. The loss is convex in the marginals, and
entropic mirror descent on the marginal polytope is a step on the
log-factors: ``theta_r <- theta_r - eta * dL/dp_r`` followed by exact
inference (junction-tree calibration) for the new marginals.

Step size: ``L`` is smooth relative to the entropy with constant
``sum_r (N / sigma_r)^2`` (the Hessian of each term is ``(N/sigma_r)^2`` and
``||p_r - q_r||_1 <= ||p - q||_1``), so ``eta = 1 / sum_r (N/sigma_r)^2``
always decreases the loss. The solver starts each iteration at twice the
last accepted step and halves it until the Armijo condition holds (never
below the safe step), which is what makes it fast in practice.

References
----------
McKenna, Sheldon & Miklau, "Graphical-model based estimation and inference
for differential privacy", ICML 2019, arXiv:1901.09136, §4 (Alg. 1,
mirror descent with line search).
Lu, Freund & Nesterov, "Relatively smooth convex optimization by
first-order methods", SIAM J. Optim. 2018 (step 1/L under relative
smoothness).
"""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ._domain import as_attrs
from ._factor import Factor
from ._junction_tree import containing_clique, junction_tree
from ._model import FactoredModel, calibrated_probabilities

__all__ = ["Measurement", "EstimationResult", "estimate", "estimate_total"]


@dataclass(frozen=True)
class Measurement:
    """Noisy counts ``values`` of the table over ``attrs``, noise std ``sigma``.

    ``sigma`` is a float (every cell) or an array broadcastable to
    ``values`` (one std per cell, e.g. a cell that sums several noisy
    cells, :mod:`._compression`).
    """

    attrs: tuple
    values: np.ndarray
    sigma: float


class EstimationResult(NamedTuple):
    model: FactoredModel
    loss: float
    n_iter: int


def estimate_total(measurements):
    """Inverse-variance weighted estimate of the number of records.

    The sum of a measured table's noisy counts has variance
    ``sum of the cells' sigma^2``; the weighted mean of those sums is the
    minimum-variance unbiased combination. Post-processing: no privacy cost.
    """
    sums = np.array([float(m.values.sum()) for m in measurements])
    var = np.array([float(np.sum(np.broadcast_to(np.square(m.sigma), m.values.shape)))
                    for m in measurements])
    total = float(np.sum(sums / var) / np.sum(1.0 / var))
    return max(total, 1.0)


def _grouped(measurements):
    """Measurements over the same attributes, as ``{attrs: [measurements]}``."""
    groups = {}
    for m in measurements:
        groups.setdefault(as_attrs(m.attrs), []).append(m)
    return groups


class _Objective:
    """Loss and gradient of the weighted least squares, per attribute set."""

    def __init__(self, groups, total):
        self.attrs = list(groups)
        # sum_j ||N p - y_j||^2/s_j^2 = sum W (p - ybar)^2 + const, W = sum_j N^2/s_j^2
        # (per cell when a measurement has one std per cell)
        self.weights, self.targets, self.const = [], [], 0.0
        for attrs in self.attrs:
            ms = groups[attrs]
            w = [np.broadcast_to(total**2 / np.square(m.sigma), m.values.shape) for m in ms]
            ys = [m.values / total for m in ms]
            weight = sum(w)
            target = sum(wi * y for wi, y in zip(w, ys)) / weight
            self.weights.append(weight)
            self.targets.append(target)
            self.const += 0.5 * sum(float(np.sum(wi * (y - target) ** 2)) for wi, y in zip(w, ys))
        self.smoothness = float(sum(np.max(w) for w in self.weights))

    def __call__(self, marginals):
        loss, grads = self.const, []
        for w, target, mu in zip(self.weights, self.targets, marginals):
            diff = mu - target
            loss += 0.5 * float(np.sum(w * diff * diff))
            grads.append(w * diff)
        return loss, grads


def _marginals(tree, hosts, factors, shape, dense=None):
    """Every factor's marginal, and the clique marginals they are summed from
    (``dense``: already calibrated ones of this distribution on ``tree``)."""
    if dense is None:
        dense = calibrated_probabilities(
            tree, FactoredModel(shape, factors, tree).clique_potentials())
    out = []
    for f, h in zip(factors, hosts):
        clique = tree.cliques[h]
        axes = tuple(i for i, a in enumerate(clique) if a not in f.attrs)
        out.append(dense[h].sum(axis=axes) if axes else dense[h])
    return out, dense


def estimate(shape, measurements, total=None, init=None, max_iter=200, tol=1e-3, window=10,
             rtol=0.0):
    """Mirror descent on the log-factors of the measured attribute sets.

    Parameters
    ----------
    shape : tuple of int
    measurements : sequence of Measurement
    total : float, optional
        Number of records ``N`` (public under substitution); estimated from
        the measurements (:func:`estimate_total`) when ``None``.
    init : FactoredModel, optional
        Warm start: its factors over measured attribute sets are reused.
    max_iter : int
        Iteration cap (each iteration = one or a few calibrations).
    tol, window : float, int
        Stop when the loss decreased by less than ``tol`` times the number
        of measured cells over the last ``window`` iterations. At the
        optimum each measured cell contributes about 1/2 to the loss and the
        loss fluctuates by about ``sqrt(cells / 2)`` between noise draws, so
        smaller improvements are statistically irrelevant.
    rtol : float
        Or by less than ``rtol`` times its decrease since the start (AIM's
        final estimation: at 10^6 records the loss stays far above the
        noise level while the errors have settled).

    Returns
    -------
    EstimationResult
    """
    shape = tuple(shape)
    groups = _grouped(measurements)
    total = estimate_total(measurements) if total is None else float(total)
    objective = _Objective(groups, total)
    tree = junction_tree(objective.attrs, shape)
    hosts = [containing_clique(tree.cliques, a) for a in objective.attrs]
    previous = {f.attrs: f.values for f in (init.factors if init is not None else ())}
    theta = [Factor(a, previous.get(a, np.zeros(objective.targets[i].shape)).copy())
             for i, a in enumerate(objective.attrs)]
    # a warm start on the same tree is the same distribution (new factors are zero):
    # its calibrated cliques are reused
    same = (init is not None and init.tree == tree
            and all(f.attrs in groups for f in init.factors))
    mu, dense = _marginals(tree, hosts, theta, shape,
                           init.clique_probabilities if same else None)
    loss, grads = objective(mu)
    safe = 1.0 / objective.smoothness
    step = 4.0 * safe
    scale = sum(t.size for t in objective.targets)
    history = [loss]
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        proposed = step
        while True:
            trial = [Factor(t.attrs, t.values - step * g) for t, g in zip(theta, grads)]
            trial_mu, trial_dense = _marginals(tree, hosts, trial, shape)
            trial_loss, trial_grads = objective(trial_mu)
            # Armijo: decrease at least half the linear prediction
            predicted = sum(float(np.sum(g * (m - tm))) for g, m, tm in zip(grads, mu, trial_mu))
            if trial_loss <= loss - 0.5 * predicted or step <= safe:
                break
            step = max(step / 2.0, safe)
        first_try = step == proposed
        theta, mu, dense, loss, grads = trial, trial_mu, trial_dense, trial_loss, trial_grads
        history.append(loss)
        if first_try:  # grow only after a step that needed no backtracking
            step *= 2.0
        if len(history) > window and history[-1 - window] - loss <= max(
                tol * scale, rtol * (history[0] - loss)):
            break
    model = FactoredModel(shape, theta, tree, clique_probabilities=dense)
    return EstimationResult(model, float(loss), n_iter)
