"""MST-style selection: measure a private maximum spanning tree of 2-way marginals.

The mechanism of McKenna, Miklau & Sheldon (2021), written from the paper:
the zCDP budget ``rho`` is split in three equal parts.

1. **1-way marginals.** Every column's counts get discrete Gaussian noise
   (``d`` measurements sharing ``rho/3``). Levels whose noisy count is
   below ``3 sigma`` are merged into one level per column (MST's domain
   compression, post-processing; :mod:`._compression`), and a model is
   fitted to the 1-way measurements on the compressed levels.
2. **Selection.** Every pair of columns ``(i, j)`` is scored by how badly
   that model (the columns independent) explains the data's 2-way table,
   ``||N p_ij - x_ij||_1`` (sensitivity ``Delta_1`` of a table's counts).
   Kruskal's algorithm picks ``d - 1`` edges of a maximum spanning tree,
   each edge by the exponential mechanism over the pairs that join two
   components (``d - 1`` selections sharing ``rho/3``).
3. **2-way marginals.** The tree's tables are measured (``rho/3``) and a
   graphical model is fitted to all measurements (Private-PGM); its
   junction tree is the spanning tree itself, so it is small and exact.

With few records or many columns a measurement must be precise to be
useful; MST spends its budget on ``2d - 1`` tables only, where AIM's
``16 d`` initial rounds leave each measurement mostly noise.

References
----------
McKenna, Miklau & Sheldon, "Winning the NIST Contest: A scalable and
general approach to differentially private synthetic data", Journal of
Privacy and Confidentiality 11(3), 2021, arXiv:2108.04978, §4 (Alg. 1).
"""

import itertools
import math

import numpy as np

from ._compression import CompressedModel, compress_levels
from ._selection import (
    ADD_REMOVE,
    SelectionResult,
    integer_l1_error,
    report_budget,
    select_exact,
    start_fitter,
)

__all__ = ["select_spanning_tree"]


def _pair_scores(fitter, pairs):
    """``||N p_i p_j - x_ij||_1`` on every pair: the fitted model has 1-way factors
    only, so its 2-way marginals are products of its 1-way marginals."""
    model, data, total = fitter.model, fitter.data, fitter.total
    one_way = [model.marginal((a,)) for a in range(len(data.shape))]
    return np.array([integer_l1_error(total * np.outer(one_way[i], one_way[j]),
                                      data.counts((i, j))) for i, j in pairs], dtype=np.int64)


def _private_kruskal(scores, pairs, n_attrs, epsilon, sensitivity, budget, rng):
    """``n_attrs - 1`` edges of a spanning tree, each by the exponential mechanism."""
    component = np.arange(n_attrs)
    left = np.array([i for i, _ in pairs])
    right = np.array([j for _, j in pairs])
    chosen = []
    for _ in range(n_attrs - 1):
        joins = np.flatnonzero(component[left] != component[right])
        budget.spend_select(epsilon)
        pick = int(joins[select_exact(scores[joins], np.ones(joins.size), np.zeros(joins.size),
                                      sensitivity, epsilon, rng)])
        chosen.append(pairs[pick])
        old, new = component[right[pick]], component[left[pick]]
        component[component == old] = new
    return chosen


def select_spanning_tree(codes, shape, rho, rng, *, neighbouring=ADD_REMOVE, max_iter=30,
                         final_max_iter=1000, exempt=(), progress=None):
    """Run the MST mechanism (module docstring) on ``codes`` within ``rho``-zCDP.

    Parameters
    ----------
    codes : ndarray of int, shape (n, d), or MarginalCounts
        (with every 1- and 2-way table countable)
    shape : tuple of int
    rho : float
    rng : numpy.random.Generator
        The privacy-noise stream.
    neighbouring : Neighbouring
    max_iter, final_max_iter : int
        Mirror-descent iterations after the 1-way step / at the end.
    exempt : tuple of int
        Attributes whose levels are never merged by the domain compression
        (the label of a supervised release).
    progress : sksmooth._progress.Progress or None
        Stage lines and the percentage of ``rho`` spent.

    Returns
    -------
    SelectionResult
    """
    fitter = start_fitter(codes, shape, rho, rng, neighbouring, max_iter)
    budget, d = fitter.budget, len(fitter.data.shape)
    n_edges = d - 1
    parts = 3 if n_edges else 1
    sigma_one = budget.sigma_for(rho / parts / d)
    for a in range(d):
        fitter.measure((a,), sigma_one)
    groups = compress_levels(fitter.measurements, exempt)
    if groups is not None:
        fitter = fitter.regrouped(groups)
    if n_edges:
        fitter.refit()
        pairs = list(itertools.combinations(range(d), 2))
        epsilon = math.sqrt(8.0 * (rho / 3.0) / n_edges)
        edges = _private_kruskal(_pair_scores(fitter, pairs), pairs, d, epsilon,
                                 neighbouring.l1, budget, rng)
        # the rest of the budget (rho/3, up to rounding) measures the tree's tables
        sigma_two = budget.sigma_for(budget.remaining / n_edges)
        for edge in edges:
            fitter.measure(edge, sigma_two)
    report_budget(progress, budget, rho)
    if progress is not None:
        progress.log(f"{len(fitter.measurements)} tables measured; final estimation")
    fitter.refit(final_max_iter)
    model = fitter.model if groups is None else CompressedModel(fitter.model, groups)
    return SelectionResult(model, fitter.measurements, fitter.total, budget.records)
