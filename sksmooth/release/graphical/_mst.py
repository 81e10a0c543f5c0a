"""MST-style selection: measure a private maximum spanning tree of 2-way marginals.

McKenna, Miklau & Sheldon (2021), Alg. 1: noisy 1-way tables (``rho/3``), a
private maximum spanning tree (``2 rho/15``), its 2-way tables (``8 rho/15``).
The budget split and its measurements: ``docs/derivations.rst``, section
"MST-style selection".
"""

import itertools
import math

import numpy as np

from ._compression import CompressedModel, compress_levels
from ._budget import (
    ADD_REMOVE,
    SelectionResult,
    integer_l1_errors,
    report_budget,
    select_exact,
    start_fitter,
)

__all__ = ["select_spanning_tree", "measure_spanning_tree", "ONE_WAY_SHARE", "SELECTION_SHARE"]

ONE_WAY_SHARE = 1.0 / 3.0  # of rho: the 1-way tables (as in the paper)
SELECTION_SHARE = 0.2  # of the rest: the d - 1 picks; the tree's tables get 0.8


def _pair_scores(fitter, pairs):
    """``||N p_i p_j - x_ij||_1`` on every pair: the fitted model has 1-way factors
    only, so its 2-way marginals are products of its 1-way marginals."""
    model, data, total = fitter.model, fitter.data, fitter.total
    one_way = [model.marginal((a,)) for a in range(len(data.shape))]
    return integer_l1_errors((total * np.outer(one_way[i], one_way[j]) for i, j in pairs),
                             (data.counts((i, j)) for i, j in pairs))


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
                         final_max_iter=1000, exempt=(), prior=(), progress=None):
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
    prior : sequence of PrivacyRecord
        Spends of ``rho`` made before (a noisy record count).
    progress : sksmooth._progress.Progress or None
        Stage lines and the percentage of ``rho`` spent.

    Returns
    -------
    SelectionResult
    """
    fitter = start_fitter(codes, shape, rho, rng, neighbouring, max_iter, prior)
    fitter, groups = measure_spanning_tree(fitter, fitter.budget.rest(), exempt, last=True)
    report_budget(progress, fitter.budget, rho)
    if progress is not None:
        progress.log(f"{len(fitter.measurements)} tables measured; final estimation")
    fitter.refit(final_max_iter)
    model = fitter.model if groups is None else CompressedModel(fitter.model, groups)
    return SelectionResult(model, fitter.measurements, fitter.total, fitter.budget.records)


def measure_spanning_tree(fitter, rho, exempt=(), last=False):
    """Steps 1-3 of the module docstring, spending ``rho`` of ``fitter``'s budget
    (``last``: the rest of it, exactly, as the last measurement's share).

    ``fitter`` must not have measured anything yet. Returns ``(fitter,
    groups)``: the fitter holding the ``2d - 1`` measurements (on the
    compressed levels ``groups`` when some were merged, else ``groups`` is
    ``None``), its model not yet fitted to the tree's tables.
    """
    budget, d = fitter.budget, len(fitter.data.shape)
    spent_before = budget.used
    n_edges = d - 1
    one_way = ONE_WAY_SHARE if n_edges else 1.0
    sigma_one = budget.sigma_for(rho * one_way / d)
    for a in range(d):
        fitter.measure((a,), None if last and not n_edges and a == d - 1 else sigma_one)
    groups = compress_levels(fitter.measurements, exempt)
    if groups is not None:
        fitter = fitter.regrouped(groups)
    if n_edges:
        fitter.refit()
        pairs = list(itertools.combinations(range(d), 2))
        selection = rho * (1.0 - ONE_WAY_SHARE) * SELECTION_SHARE
        epsilon = math.sqrt(8.0 * selection / n_edges)
        edges = _private_kruskal(_pair_scores(fitter, pairs), pairs, d, epsilon,
                                 budget.neighbouring.l1, budget, fitter.rng)
        # the rest of rho (8 rho/15, up to rounding) measures the tree's tables
        sigma_two = budget.sigma_for((rho - (budget.used - spent_before)) / n_edges)
        for i, edge in enumerate(edges):
            fitter.measure(edge, None if last and i == n_edges - 1 else sigma_two)
    return fitter, groups
