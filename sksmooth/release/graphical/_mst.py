"""MST-style selection: measure a private maximum spanning tree of 2-way marginals.

The mechanism of McKenna, Miklau & Sheldon (2021), written from the paper,
with one change to its budget split (below): ``rho/3`` measures the 1-way
tables, ``2 rho/15`` selects the tree, ``8 rho/15`` measures the tree.

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
   components (``d - 1`` selections sharing ``2 rho/15``).
3. **2-way marginals.** The tree's tables are measured (``8 rho/15``) and a
   graphical model is fitted to all measurements (Private-PGM); its
   junction tree is the spanning tree itself, so it is small and exact.

With few records or many columns a measurement must be precise to be
useful; MST spends its budget on ``2d - 1`` tables only, where AIM's
``16 d`` initial rounds leave each measurement mostly noise.

**Budget split.** The paper gives selection and the tree's tables a third
each; AIM, by the same authors, gives selection a tenth of each round
(``alpha = 0.9``, McKenna et al. 2022, Alg. 2). Here the two thirds after
the 1-way step are split 1 : 4 (:data:`SELECTION_SHARE`). Measured on the
emitted rows' 2-way errors, 10 seeds per cell (report of issue 11,
``benchmarks/ablation_synthetic_tables.py``), against the equal split: the
mean error is lower in all 18 benchmark cells (six tables x epsilon in
{0.5, 1, 2}; by 1-14%) and in 13 of 15 cells of five tables that are not in
the benchmark (one tie, one 3% higher, within 1 SE); the downstream
accuracy is never lower; the max error is lower in 10 of the 18 cells
(one tie; higher in 7, by at most 7%; on breast30y at epsilon 2 the 3-way
max error is 9% higher at 20 seeds) and in 8 of the 15 held-out
cells (``benchmarks/results/mst_selection_share.json``). ``1 : 9`` (AIM's share) lowers the
mean error in 16 of 18 and 14 of 15 cells but the max error in fewer (9 of 18, 4 of 15),
and loses downstream accuracy on breast30y: with too little budget the
tree's edges are picked worse. Re-checked with the rows drawn as ``sample``
draws them and 3-way errors, shares 0.15 to 0.5, 10 seeds
(``systematic_rows_sweep`` in the same file): against the reference peers
on the 13 benchmark cells where ``method='auto'`` runs MST, 0.2 meets the
most targets (44 of 48, 4 within noise; 0.3: 41, 0.5: 26 and 2 missed);
0.3 lowers the max error in most cells and raises the mean error in most.
No share meets every target: the share trades max against mean error.
Where the max error comes from (``results/mst_selection_noise.json``): on
breast30y at epsilon 2, the same measurements with a noiseless selection
give a max 3-way error of .21 (the exact maximum spanning tree .20) against
.26 with the private one, so the selection's noise is the gap; subtracting
from each score the error the 1-way noise is expected to put into it
helps that table and hurts others (not adopted). Two other private
selections raise the errors (``results/mst_selection_variants.json``, 30
cells): each column picking its partner among at most ``d - 1`` candidates
instead of Kruskal's picks over all joining pairs, and one AIM round after
the tree, gated by a null candidate. None of Prim's algorithm (fewer
candidates per pick, the same tree without noise), a budget front- or
back-loaded over the picks, or a public prior for trees of small diameter
(the worst cells are those of strongly associated columns far apart in the
tree) changes it beyond seed noise (60 seeds, same file).
In the worst case the selection is as good as its budget allows up to
logarithmic factors:
every private spanning tree loses weight of order ``d^{3/2}`` on some input
(Pagh et al. 2024), and here the loss falls as ``1/sqrt(share)``
(``benchmarks/bench_mst_selection_theory.py``).

References
----------
McKenna, Miklau & Sheldon, "Winning the NIST Contest: A scalable and
general approach to differentially private synthetic data", Journal of
Privacy and Confidentiality 11(3), 2021, arXiv:2108.04978, §4 (Alg. 1).
McKenna, Mullins, Sheldon & Miklau, "AIM: An adaptive and iterative
mechanism for differentially private synthetic data", PVLDB 15(11), 2022,
arXiv:2201.12677, Alg. 2 (its selection / measurement split ``alpha``).
Pagh, Retschmeier, Wu & Zhang, "Optimal Bounds for Private Minimum Spanning
Trees via Input Perturbation", 2024, arXiv:2412.10130 (the lower bound).
"""

import itertools
import math

import numpy as np

from ._compression import CompressedModel, compress_levels
from ._budget import (
    ADD_REMOVE,
    SelectionResult,
    integer_l1_error,
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
