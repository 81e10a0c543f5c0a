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

Sorting the log-weights once gives the number ``k`` of capped coordinates as
the smallest ``k`` for which the largest uncapped coordinate,
``(1 - k c) p_(k+1) / S_k`` with ``S_k = sum_{j > k} p_(j)``, does not exceed
the cap. Everything is done in log space (``S_k`` by a reversed cumulative
``logaddexp``), so weights of order ``exp(+-1e5)`` are handled. Cost:
O(N log N) for the sort, O(N) for the rest.
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
    if np.any(np.isnan(lw)) or np.any(lw == np.inf):
        raise ValueError("log_weights must not contain NaN or +inf.")
    n = lw.size
    log_cap = -np.log(sigma) - np.log(n)
    lw = lw - logsumexp(lw)
    if np.max(lw) <= log_cap:
        return lw
    support = np.count_nonzero(np.isfinite(lw))
    if support * np.exp(log_cap) < 1 - 1e-12:
        raise ValueError(
            f"No sigma-smooth distribution is absolutely continuous w.r.t. the "
            f"input: its support has {support} points < sigma * N = {sigma * n:g}."
        )
    order = np.argsort(-lw, kind="stable")
    sorted_lw = lw[order]
    # tail_log_mass[k] = log sum_{j >= k} p_(j)   (0-based, descending order)
    tail_log_mass = np.logaddexp.accumulate(sorted_lw[::-1])[::-1]
    cap = np.exp(log_cap)
    k = np.arange(n)
    remaining = 1.0 - k * cap
    valid = remaining > 0
    # Largest uncapped coordinate when the top k are capped, in log space.
    with np.errstate(divide="ignore", invalid="ignore"):
        top_uncapped = np.where(
            valid, np.log(np.where(valid, remaining, 1.0)) + sorted_lw - tail_log_mass, np.inf
        )
    top_uncapped[np.isnan(top_uncapped)] = -np.inf  # zero-weight tail: nothing uncapped
    feasible = top_uncapped <= log_cap + 1e-12
    n_capped = int(np.argmax(feasible)) if feasible.any() else n
    log_z_sorted = np.empty(n)
    log_z_sorted[:n_capped] = log_cap
    if n_capped < n:
        with np.errstate(invalid="ignore"):
            tail = np.log(1.0 - n_capped * cap) + sorted_lw[n_capped:] - tail_log_mass[n_capped]
        tail[np.isneginf(sorted_lw[n_capped:])] = -np.inf
        log_z_sorted[n_capped:] = tail
    log_z = np.empty(n)
    log_z[order] = log_z_sorted
    return log_z


def kl_divergence(log_p, log_q):
    """KL(p || q) for normalised log-space distributions (0 log 0 = 0)."""
    log_p = np.asarray(log_p, dtype=float)
    log_q = np.asarray(log_q, dtype=float)
    p = np.exp(log_p)
    mask = p > 0
    return float(np.sum(p[mask] * (log_p[mask] - log_q[mask])))
