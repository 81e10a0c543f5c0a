"""KL projection onto the polytope of sigma-smooth distributions.

Projected Smooth MWEM (Haghtalab, Roughgarden, Shetty, "Smoothed Analysis of Online and
Differentially Private Learning", NeurIPS 2020, arXiv:2006.10129, App. F, Alg. 3)
projects every multiplicative-weights iterate onto

    K = {z in R^N : z_i >= 0, sum_i z_i = 1, z_i <= 1 / (sigma N)},

the set of distributions whose density with respect to the uniform measure on
the N universe points is at most 1/sigma. The projection is the Bregman (KL)
projection ``argmin_{z in K} KL(z || p)``.

Solution (KKT conditions of the convex program): there is a threshold on the
weights such that every coordinate above it is clipped to the cap
``c = 1/(sigma N)`` and every coordinate below keeps its proportion to ``p``,

    z_i = min(c, lambda * p_i),  with lambda chosen so that sum_i z_i = 1.

The number ``k`` of capped coordinates is the smallest ``k`` for which the
largest uncapped coordinate, ``(1 - k c) p_(k+1) / S_k`` with
``S_k = sum_{j > k} p_(j)``, does not exceed the cap. Only the largest
weights are sorted: the top ``m`` (from twice the number above the cap,
quadrupled until ``k < m``), with ``S_k`` the mass of the sorted ones past
``k`` plus the unsorted rest. Everything is done in log space (``S_k`` by a
reversed cumulative ``logaddexp``), so weights of order ``exp(+-1e5)`` are
handled. Cost: O(N) and O(m log m) for the sort.
"""

import numpy as np
from .._logsumexp import logsumexp

__all__ = ["kl_project_smooth", "kl_divergence"]


def kl_project_smooth(log_weights, sigma):
    """KL-project a (log-space, unnormalised) distribution onto sigma-smooth ones.

    Parameters
    ----------
    log_weights : array-like of shape (N,)
        Logarithms of non-negative weights (need not be normalised; ``-inf``
        allowed for zero weights, at least one finite entry).
    sigma : float in (0, 1]
        Smoothness parameter: the output satisfies ``z_i <= 1 / (sigma N)``.

    Returns
    -------
    log_z : ndarray of shape (N,)
        Logarithm of the projection ``argmin_{z in K} KL(z || p)`` where ``p``
        is the normalised input (Haghtalab et al., NeurIPS 2020, App. F,
        Alg. 3, "KL Projection").

    Notes
    -----
    The projection exists only if ``K`` contains a point in the support of
    ``p``: the support must have at least ``sigma N`` points, otherwise a
    ``ValueError`` is raised. MW iterates have full support, so this never
    triggers inside the mechanisms.
    """
    lw = np.asarray(log_weights, dtype=float)
    if lw.ndim != 1 or lw.size == 0:
        raise ValueError("log_weights must be a non-empty 1-D array.")
    largest = lw.max(initial=-np.inf)  # NaN if any is NaN
    if np.isnan(largest) or largest == np.inf:
        raise ValueError("log_weights must not contain NaN or +inf.")
    if largest == -np.inf:
        raise ValueError("log_weights has no finite entry: a distribution with empty support "
                         "has no sigma-smooth projection.")
    n = lw.size
    log_cap = -np.log(sigma) - np.log(n)
    shift = logsumexp(lw)
    lw = lw - shift if shift != 0 else lw  # MW iterates arrive normalised
    if largest - shift <= log_cap:
        return lw
    support = np.count_nonzero(np.isfinite(lw)) if np.isneginf(lw.min()) else n
    if support * np.exp(log_cap) < 1 - 1e-12:
        raise ValueError(
            f"No sigma-smooth distribution is absolutely continuous w.r.t. the "
            f"input: its support has {support} points < sigma * N = {sigma * n:g}."
        )
    cap = np.exp(log_cap)
    m = min(n, max(64, 2 * np.count_nonzero(lw > log_cap)))
    while True:
        order, log_rest = _largest(lw, m)
        sorted_lw = lw[order]
        # tail_log_mass[k] = log sum_{j >= k} p_(j)   (0-based, descending order)
        tail_log_mass = np.logaddexp(np.logaddexp.accumulate(sorted_lw[::-1])[::-1], log_rest)
        k = np.arange(order.size)
        remaining = 1.0 - k * cap
        valid = remaining > 0
        # Largest uncapped coordinate when the top k are capped, in log space.
        with np.errstate(divide="ignore", invalid="ignore"):
            top_uncapped = np.where(
                valid, np.log(np.where(valid, remaining, 1.0)) + sorted_lw - tail_log_mass,
                np.inf)
        top_uncapped[np.isnan(top_uncapped)] = -np.inf  # zero-weight tail: nothing uncapped
        feasible = top_uncapped <= log_cap + 1e-12
        if feasible.any() or order.size == n:
            break
        m = min(n, 4 * m)
    n_capped = int(np.argmax(feasible)) if feasible.any() else n
    if n_capped == n or not np.isfinite(tail_log_mass[n_capped]):
        log_z = np.full(n, -np.inf)  # nothing left uncapped, or no mass left to scale
    else:
        log_z = lw + (np.log(1.0 - n_capped * cap) - tail_log_mass[n_capped])
    log_z[order[:n_capped]] = log_cap
    return log_z


def _largest(lw, m):
    """Indices of the ``m`` largest ``lw`` (more on ties) in decreasing order and the log
    mass of the others (``-inf`` when ``m`` is all of them)."""
    if m >= lw.size:
        return np.argsort(-lw, kind="stable"), -np.inf
    top = np.flatnonzero(lw >= np.partition(lw, lw.size - m)[lw.size - m])  # ties: >= m
    order = top[np.argsort(-lw[top], kind="stable")]
    if top.size == lw.size:  # ties at the m-th largest took them all
        return order, -np.inf
    log_top = logsumexp(lw[top])
    if log_top < -np.log(2):  # lw is normalised: the rest's mass 1 - top, exact enough
        return order, np.log1p(-np.exp(log_top))
    rest = np.ones(lw.size, bool)
    rest[top] = False
    return order, logsumexp(lw[rest])


def kl_divergence(log_p, log_q):
    """KL(p || q) for normalised log-space distributions (0 log 0 = 0)."""
    log_p = np.asarray(log_p, dtype=float)
    log_q = np.asarray(log_q, dtype=float)
    p = np.exp(log_p)
    mask = p > 0
    return float(np.sum(p[mask] * (log_p[mask] - log_q[mask])))
