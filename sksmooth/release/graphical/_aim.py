"""AIM-style adaptive selection and measurement of marginal tables.

McKenna, Mullins, Sheldon & Miklau (2022), Alg. 2: 1-way initialisation,
rounds of exponential-mechanism selection and discrete Gaussian measurement,
annealing, and a last round that spends exactly the remainder (zCDP
accounting). The steps and both neighbouring relations:
``docs/derivations.rst``, section "AIM's rounds and their accounting".
"""

import itertools
import math

import numpy as np
from threadpoolctl import threadpool_limits  # a scikit-learn dependency

from ._budget import (
    ADD_REMOVE,
    SCORE_SCALE,
    WEIGHT_SCALE,
    SelectionResult,
    _Budget,
    exact_scores,
    integer_l1_errors,
    report_budget,
    select_exact,
    start_fitter,
)
from ._domain import table_size

__all__ = [
    "candidate_tables",
    "select_and_measure",
    "adaptive_rounds",
    "round_signal_to_noise",
]

_EXPECTED_ABS_NORMAL = math.sqrt(2.0 / math.pi)  # E|Z| for Z ~ N(0, 1)


def candidate_tables(workload, n_attrs):
    """Downward closure of the workload and AIM's overlap weights.

    Parameters
    ----------
    workload : sequence of (tuple of int, float)
        Tables (attribute sets) and their weights.
    n_attrs : int

    Returns
    -------
    tables : list of tuple
    weights : ndarray of shape (len(tables),)
    """
    closure = set()
    for attrs, _ in workload:
        attrs = tuple(sorted(attrs))
        for k in range(1, len(attrs) + 1):
            closure.update(itertools.combinations(attrs, k))
    tables = sorted(closure, key=lambda t: (len(t), t))
    members = np.zeros((len(tables), n_attrs))
    for i, t in enumerate(tables):
        members[i, list(t)] = 1.0
    work = np.zeros((len(workload), n_attrs))
    for j, (attrs, _) in enumerate(workload):
        work[j, list(attrs)] = 1.0
    weights = (members @ work.T) @ np.array([float(w) for _, w in workload])
    return tables, weights


def _errors(fitter, tables):
    """Integer L1 error of the model on every candidate table."""
    return integer_l1_errors((fitter.total * m for m in fitter.model.marginals(tables)),
                             (fitter.data.counts(attrs) for attrs in tables))


def _select(fitter, tables, weights, sigma, epsilon, size_limit, rng):
    """Exponential mechanism over the candidates that fit the size cap.

    AIM's score: the weighted L1 error minus its expected measurement noise
    ``sqrt(2/pi) sigma |cells|``. The cap depends only on released
    quantities (the measured sets), so restricting to eligible tables is
    free. Eligibility is checked lazily: a batch of independent draws of the
    mechanism over the candidates still alive is read in order, the first
    eligible draw is the pick; otherwise every table known to be ineligible
    is removed and a batch is drawn over the rest. The first eligible draw
    of an i.i.d. sequence, and (choice axiom) a draw after removing
    ineligible tables, both have exactly the law of the mechanism over the
    eligible set. Before the first draw, the candidates of at least 1/64 of
    the alive mass are checked (a strong signal's top tables often do not
    fit); batches of 1, 4, 16, then 64 draws save sampler calls. Neither
    changes the law. Each candidate is checked once, a batch (drawn or
    heavy, padded with the best-scored unchecked ones to 32) in one call
    (``fitting``: their junction trees triangulated together).
    """
    errors = _errors(fitter, tables)
    weights = np.asarray(weights, dtype=float)
    penalties = np.array([_EXPECTED_ABS_NORMAL * sigma * table_size(fitter.data.shape, attrs)
                          for attrs in tables])
    l1 = fitter.budget.neighbouring.l1
    eligible = {}
    scores = exact_scores(errors, weights, penalties)
    best = np.argsort(-scores, kind="stable")

    def check(candidates):  # each candidate's eligibility, computed once, many at a time
        new = [i for i in dict.fromkeys(candidates) if i not in eligible]
        if new:
            pad = (i for i in best if i not in eligible and i not in new)
            new += itertools.islice(pad, max(0, 32 - len(new)))
            eligible.update(zip(new, fitter.model.fitting([tables[i] for i in new],
                                                          size_limit).tolist()))

    alive = _without_heavy_misfits(scores, best[:256], check, eligible,
                                   epsilon / (2.0 * WEIGHT_SCALE * SCORE_SCALE * l1))
    draws = 1
    while True:
        index = np.flatnonzero(alive)
        picks = index[select_exact(errors[alive], weights[alive], penalties[alive], l1,
                                   epsilon, rng, size=draws)]
        check(picks.tolist())
        for pick in picks:
            if eligible[pick]:
                return tables[pick]
        alive[[i for i, fits in eligible.items() if not fits]] = False
        draws = min(4 * draws, 64)


def _without_heavy_misfits(scores, top, check, eligible, rate):
    """Alive mask after checking (``check``, answers in ``eligible``) the
    candidates of at least 1/64 of the alive mass ``exp(rate * score)`` among
    ``top`` (best first), and removing every table known not to fit (floats:
    which ones are checked is a performance choice; the draws stay exact)."""
    alive = np.ones(scores.size, dtype=bool)
    mass = np.exp(rate * (scores - scores.max()).astype(float))
    while True:
        heavy = top[alive[top] & (mass[top] >= mass[alive].sum() / 64)].tolist()
        check(heavy)
        alive[[i for i, fits in eligible.items() if not fits]] = False
        if all(eligible[i] for i in heavy):
            return alive


def select_and_measure(codes, shape, workload, rho, rng, *, neighbouring=ADD_REMOVE,
                       max_model_size=10**6, rounds_per_attr=16, measure_fraction=0.9,
                       max_iter=10, final_max_iter=500, prior=(), progress=None):
    """Run the adaptive loop (module docstring) on ``codes`` within ``rho``-zCDP.

    Parameters
    ----------
    codes : ndarray of int, shape (n, d), or MarginalCounts
        The private records as level codes (``0 <= codes[:, a] < shape[a]``),
        or their exact count tables accumulated chunk by chunk
        (:class:`~sksmooth.release._statistics.MarginalCounts`, covering
        every workload table): only counts of workload tables and their
        subsets are read.
    shape : tuple of int
        Public number of levels per attribute.
    workload : sequence of (tuple of int, float)
        Weighted tables whose marginals should be accurate.
    rho : float
        zCDP budget of the whole run (> 0).
    rng : numpy.random.Generator
        The privacy-noise stream.
    neighbouring : Neighbouring
    max_model_size : int
        Cap on the junction tree's floats (reached when the budget is spent).
    rounds_per_attr : int
        AIM's initial round count ``T = rounds_per_attr * d``.
    measure_fraction : float
        Share ``alpha`` of each round's rho spent on measurement.
    max_iter, final_max_iter : int
        Mirror-descent iterations after each round / at the end. Each
        round's estimation starts from the previous model, so a few
        iterations per round suffice to guide the selection; the final
        estimation, warm too, stops when its last 10 iterations gained
        under 1% of its loss decrease (``rtol``; 230 instead of 500
        iterations at 10^6 records, errors within 0.6%). (On the 40-column
        table at epsilon 2, 10 iterations per round instead of 30 took a
        third of the CPU time; at epsilon 0.5 the error was ~5% higher.)
    prior : sequence of PrivacyRecord
        Spends of ``rho`` made before the loop (a noisy record count); they
        are the first records of the result.
    progress : sksmooth._progress.Progress or None
        Advanced to the percentage of ``rho`` spent after every round.

    Returns
    -------
    SelectionResult
    """
    # the model's contractions are many small matrix products: BLAS threads only add
    # overhead (3x the CPU time on 2 cores)
    with threadpool_limits(limits=1, user_api="blas"):
        return _select_and_measure(codes, shape, workload, rho, rng, neighbouring,
                                   max_model_size, rounds_per_attr, measure_fraction,
                                   max_iter, final_max_iter, prior, progress)


def _select_and_measure(codes, shape, workload, rho, rng, neighbouring, max_model_size,
                        rounds_per_attr, measure_fraction, max_iter, final_max_iter, prior,
                        progress):
    fitter = start_fitter(codes, shape, rho, rng, neighbouring, max_iter, prior)
    d = len(fitter.data.shape)
    tables, weights = candidate_tables(workload, d)
    sigma, epsilon = fitter.budget.round_parameters(fitter.budget.rest(), rounds_per_attr * d,
                                                    measure_fraction)
    for a in range(d):
        fitter.measure((a,), sigma)
    fitter.refit()
    adaptive_rounds(fitter, tables, weights, sigma, epsilon, max_model_size=max_model_size,
                    measure_fraction=measure_fraction, progress=progress)
    if progress is not None:
        progress.log(f"{len(fitter.measurements)} tables measured; final estimation")
    fitter.refit(final_max_iter, rtol=0.01)
    return SelectionResult(fitter.model, fitter.measurements, fitter.total, fitter.budget.records)


def adaptive_rounds(fitter, tables, weights, sigma, epsilon, *, max_model_size,
                    measure_fraction, progress=None):
    """AIM's rounds (module docstring, steps 3-5) until ``fitter``'s budget is spent.

    Starts at noise std ``sigma`` and selection ``epsilon``; the model-size
    cap grows with the fraction of the whole budget spent.
    """
    budget = fitter.budget
    final = False
    while not final and budget.remaining > 0:
        round_cost = budget.measure_cost(sigma) + epsilon**2 / 8.0
        if budget.remaining < 2.0 * round_cost:  # last round: spend exactly the rest
            sigma, epsilon = budget.round_parameters(budget.remaining, 1, measure_fraction)
            final = True
        size_limit = max_model_size * min(1.0, (budget.used + round_cost) / budget.rho)
        budget.spend_select(epsilon)
        attrs = _select(fitter, tables, weights, sigma, epsilon, size_limit, fitter.rng)
        before = fitter.model.marginal(attrs)
        fitter.measure(attrs, None if final else sigma)
        fitter.refit()
        moved = fitter.total * np.abs(fitter.model.marginal(attrs) - before).sum()
        if moved <= _EXPECTED_ABS_NORMAL * sigma * table_size(fitter.data.shape, attrs) \
                and not final:
            sigma, epsilon = sigma / 2.0, epsilon * 2.0  # AIM's annealing
        report_budget(progress, budget, budget.rho)


def round_signal_to_noise(total, shape, workload, rho, neighbouring=ADD_REMOVE,
                          rounds_per_attr=16, measure_fraction=0.9):
    """Mean cell count of a 2-way table over the noise std of one AIM round.

    AIM's first rounds measure tables with noise std
    ``sigma = Delta_2 sqrt(T / (2 alpha rho))``, ``T = rounds_per_attr * d``
    (:func:`select_and_measure`). A 2-way table of ``c`` cells holds on
    average ``N / c`` records per cell; below a ratio of 1 the noise of a
    measurement exceeds the signal it measures. Computed from public inputs
    and a (noisy) record count ``total``; ``inf`` when the workload's
    closure has no 2-way table.
    """
    tables, _ = candidate_tables(workload, len(shape))
    sizes = [table_size(shape, t) for t in tables if len(t) == 2]
    if not sizes:
        return math.inf
    sigma, _ = _Budget(rho, neighbouring).round_parameters(
        rho, rounds_per_attr * len(shape), measure_fraction)
    return float(total) / (float(np.mean(sizes)) * sigma)

