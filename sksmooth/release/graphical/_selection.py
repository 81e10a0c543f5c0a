"""AIM-style adaptive selection and measurement of marginal tables.

The loop of AIM (McKenna, Mullins, Sheldon & Miklau 2022), written from the
paper's description:

1. **Candidates.** The workload's tables and all their non-empty subsets
   (the downward closure); candidate ``r`` has weight
   ``w_r = sum_s c_s |r ∩ s|`` over workload tables ``s`` of weight ``c_s``,
   so small tables that many workload tables share are worth measuring.
2. **Initialisation.** Every 1-way marginal is measured (Gaussian noise of
   std ``sigma_0``) and the model is estimated from them.
3. **Rounds.** The exponential mechanism picks the table with the largest
   ``w_r (||N p_r - x_r||_1 - sqrt(2/pi) sigma n_r)``: the model's error on
   the table minus the L1 error the measurement's own noise is expected to
   leave (``E|Z| = sqrt(2/pi) sigma`` per cell, ``n_r`` cells). Tables whose
   junction tree would exceed the model-size cap (scaled by the fraction of
   budget spent, as AIM does) are not eligible. The chosen table's counts
   get discrete Gaussian noise; the model is re-estimated from all
   measurements (:mod:`._estimation`).
4. **Annealing.** When the re-estimated model's marginal on the table just
   measured moved by less than the noise it would carry
   (``sqrt(2/pi) sigma n_r``), the current noise level is no longer
   informative: ``sigma`` is halved and the selection epsilon doubled.
5. **Stopping.** When the remaining budget cannot pay two more rounds at
   the current parameters, one last round spends exactly the remainder.

Budget accounting is zCDP: a selection with epsilon ``e`` costs ``e^2/8``
(the exponential mechanism is ``e``-bounded-range, Cesar & Rogers 2021), a
measurement with std ``sigma`` costs ``Delta_2^2 / (2 sigma^2)`` (discrete
Gaussian, Canonne, Kamath & Steinke 2020). Costs add up exactly to the
budget ``rho``; every spend is recorded in :attr:`SelectionResult.records`.

Neighbouring relation (:class:`Neighbouring`): ``"add_remove"`` (AIM's: one
record added or removed; a table's count vector moves by 1 in L1 and L2;
``N`` is private and estimated from the measurements) or ``"substitution"``
(one record replaced; L1 2, L2 sqrt(2); ``N`` is public).

References
----------
McKenna, Mullins, Sheldon & Miklau, "AIM: An adaptive and iterative
mechanism for differentially private synthetic data", VLDB 2022,
arXiv:2201.12677, Alg. 2 and §4.
Cesar & Rogers, "Bounding, concentrating, and truncating: unifying privacy
loss composition for data analytics", ALT 2021 (exponential mechanism,
eps^2/8-zCDP).
Canonne, Kamath & Steinke, "The discrete Gaussian for differential
privacy", NeurIPS 2020, arXiv:2004.00010.
"""

import itertools
import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ...mechanisms import exact_exponential_mechanism
from ._compression import CompressedCounts, compress_measurement
from ._domain import table_shape, table_size
from ._estimation import Measurement, estimate, estimate_total
from ._model import FactoredModel
from ._noise import add_discrete_gaussian

__all__ = [
    "Neighbouring",
    "ADD_REMOVE",
    "SUBSTITUTION",
    "PrivacyRecord",
    "SelectionResult",
    "candidate_tables",
    "select_and_measure",
    "adaptive_rounds",
    "measure_total",
    "round_signal_to_noise",
]

_EXPECTED_ABS_NORMAL = math.sqrt(2.0 / math.pi)  # E|Z| for Z ~ N(0, 1)


class Neighbouring(NamedTuple):
    """Sensitivities of one table's count vector under a neighbouring relation."""

    name: str
    l1: float  # bounds the change of ||N p_r - x_r||_1, i.e. of the score / w_r
    l2: float  # the measurement's L2 sensitivity
    public_total: bool  # whether the number of records is public


ADD_REMOVE = Neighbouring("add_remove", 1.0, 1.0, False)
SUBSTITUTION = Neighbouring("substitution", 2.0, math.sqrt(2.0), True)


class PrivacyRecord(NamedTuple):
    """One spend: ``kind`` is ``"measure"`` (``scale`` = sigma) or
    ``"select"`` (``scale`` = epsilon of the exponential mechanism)."""

    kind: str
    attrs: tuple
    scale: float
    rho: float


@dataclass
class SelectionResult:
    """Outcome of the adaptive loop (all of it is released)."""

    model: FactoredModel
    measurements: list
    total: float
    records: list = field(default_factory=list)

    @property
    def rho_spent(self):
        return float(math.fsum(r.rho for r in self.records))


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


class _Budget:
    """Spends rho and keeps the record of every spend."""

    def __init__(self, rho, neighbouring):
        self.rho = float(rho)
        self.neighbouring = neighbouring
        self.records = []

    @property
    def used(self):
        return math.fsum(r.rho for r in self.records)

    @property
    def remaining(self):
        return max(self.rho - self.used, 0.0)

    def measure_cost(self, sigma):
        return self.neighbouring.l2**2 / (2.0 * sigma**2)

    def sigma_for(self, rho):
        return self.neighbouring.l2 / math.sqrt(2.0 * rho)

    def round_parameters(self, rho, n_rounds, measure_fraction):
        """``(sigma, epsilon)`` of ``n_rounds`` equal rounds sharing ``rho``, a
        fraction ``measure_fraction`` of each on its measurement."""
        return (self.sigma_for(measure_fraction * rho / n_rounds),
                math.sqrt(8.0 * (1.0 - measure_fraction) * rho / n_rounds))

    def spend_measure(self, attrs, sigma):
        self.records.append(PrivacyRecord("measure", attrs, sigma, self.measure_cost(sigma)))

    def spend_select(self, epsilon):
        self.records.append(PrivacyRecord("select", (), epsilon, epsilon**2 / 8.0))


class _Data:
    """Exact count tables of the private data (cached per attribute set)."""

    def __init__(self, codes, shape):
        self.codes = codes
        self.shape = shape
        self.n = len(codes)
        self._cache = {}

    def counts(self, attrs):
        if attrs not in self._cache:
            flat = np.ravel_multi_index(tuple(self.codes[:, list(attrs)].T),
                                        table_shape(self.shape, attrs))
            self._cache[attrs] = np.bincount(
                flat, minlength=table_size(self.shape, attrs)).reshape(
                    table_shape(self.shape, attrs))
        return self._cache[attrs]


class _Fitter:
    """Measure, re-estimate, remember — the post-selection half of a round."""

    def __init__(self, data, budget, rng, max_iter, total):
        self.data, self.budget, self.rng = data, budget, rng
        self.max_iter = max_iter
        self.public_total = total
        self.measurements = []
        self.model = FactoredModel.uniform(data.shape)
        self.total = total

    def measure(self, attrs, sigma):
        self.budget.spend_measure(attrs, sigma)
        noisy = add_discrete_gaussian(self.data.counts(attrs), sigma, self.rng)
        self.measurements.append(Measurement(attrs, noisy.astype(float), sigma))

    def regrouped(self, groups):
        """This fitter on compressed levels (:mod:`._compression`), same budget and noise.

        The measurements taken so far must be the 1-way ones; they are
        re-expressed on the groups. Post-processing: no privacy cost.
        """
        other = _Fitter(CompressedCounts(self.data, groups), self.budget, self.rng,
                        self.max_iter, self.public_total)
        other.measurements = [compress_measurement(groups, m) for m in self.measurements]
        return other

    def refit(self, max_iter=None):
        result = estimate(self.data.shape, self.measurements, total=self.public_total,
                          init=self.model, max_iter=max_iter or self.max_iter)
        self.model = result.model
        if self.public_total is None:
            self.total = estimate_total(self.measurements)
        return result


SCORE_SCALE = 2**16  # a model's expected count is rounded to 1/SCORE_SCALE (public rounding)
WEIGHT_SCALE = 2**10  # candidate weights, normalised to max 1, rounded to 1/WEIGHT_SCALE


def integer_l1_error(expected, counts):
    """``sum |round(S expected) - S counts|``, exactly, as an int (units ``1/S``).

    ``expected`` is public (the model's counts), ``counts`` the private
    integer table; one record moves the result by at most ``S`` times the
    table's L1 sensitivity. Integer scores let the exponential mechanism be
    sampled exactly (no floating-point selection, Mironov 2012).
    """
    public = np.rint(np.asarray(expected, dtype=float) * SCORE_SCALE).astype(np.int64)
    return int(np.abs(public - SCORE_SCALE * np.asarray(counts, dtype=np.int64)).sum())


def select_exact(errors, weights, penalties, l1, epsilon, rng):
    """Index drawn by the exponential mechanism on ``w_r (err_r - pen_r)``, exactly.

    ``errors`` are :func:`integer_l1_error` values; ``weights`` (> 0) and
    ``penalties`` (in counts) are public and are rounded to integers on a
    fixed scale (public post-processing of public numbers), so every score
    is an integer whose sensitivity is ``WEIGHT_SCALE * SCORE_SCALE * l1``;
    relative to it the scores are those of the real-valued mechanism up to
    that rounding.
    """
    w = np.asarray(weights, dtype=float)
    a = np.rint(w / w.max() * WEIGHT_SCALE).astype(np.int64)
    b = np.rint(a * SCORE_SCALE * np.asarray(penalties, dtype=float)).astype(np.int64)
    scores = a * np.asarray(errors, dtype=np.int64) - b
    if float(l1) != int(l1):
        raise ValueError(f"the table L1 sensitivity must be an integer, got {l1}.")
    return int(exact_exponential_mechanism(scores, epsilon,
                                           WEIGHT_SCALE * SCORE_SCALE * int(l1), rng))


def _errors(fitter, tables):
    """Integer L1 error of the model on every candidate table."""
    model, data, total = fitter.model, fitter.data, fitter.total
    return np.array([integer_l1_error(total * model.marginal(attrs), data.counts(attrs))
                     for attrs in tables], dtype=np.int64)


def _select(fitter, tables, weights, sigma, epsilon, size_limit, rng):
    """Exponential mechanism over the candidates that fit the size cap.

    AIM's score: the weighted L1 error minus its expected measurement noise
    ``sqrt(2/pi) sigma |cells|``. The cap depends only on released
    quantities (the measured sets), so restricting to eligible tables is
    free. Eligibility is checked lazily: a drawn ineligible table is removed
    and the mechanism redrawn over the rest; by the choice axiom of the
    exponential mechanism the result has exactly the law of the mechanism
    over the eligible set.
    """
    errors = _errors(fitter, tables)
    weights = np.asarray(weights, dtype=float)
    penalties = np.array([_EXPECTED_ABS_NORMAL * sigma * table_size(fitter.data.shape, attrs)
                          for attrs in tables])
    l1 = fitter.budget.neighbouring.l1
    alive = np.ones(len(tables), dtype=bool)
    while True:
        index = np.flatnonzero(alive)
        pick = index[select_exact(errors[alive], weights[alive], penalties[alive], l1,
                                  epsilon, rng)]
        if fitter.model.fits(tables[pick], size_limit):
            return tables[pick]
        alive[pick] = False


def select_and_measure(codes, shape, workload, rho, rng, *, neighbouring=ADD_REMOVE,
                       max_model_size=10**6, rounds_per_attr=16, measure_fraction=0.9,
                       max_iter=10, final_max_iter=500, progress=None):
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
        estimation runs to convergence. (On the 40-column benchmark table at
        epsilon 2, 10 iterations per round instead of 30 took a third of the
        CPU time; at epsilon 0.5 the error was ~5% higher.)
    progress : sksmooth._progress.Progress or None
        Advanced to the percentage of ``rho`` spent after every round.

    Returns
    -------
    SelectionResult
    """
    fitter = start_fitter(codes, shape, rho, rng, neighbouring, max_iter)
    d = len(fitter.data.shape)
    tables, weights = candidate_tables(workload, d)
    sigma, epsilon = fitter.budget.round_parameters(rho, rounds_per_attr * d, measure_fraction)
    for a in range(d):
        fitter.measure((a,), sigma)
    fitter.refit()
    adaptive_rounds(fitter, tables, weights, sigma, epsilon, max_model_size=max_model_size,
                    measure_fraction=measure_fraction, progress=progress)
    if progress is not None:
        progress.log(f"{len(fitter.measurements)} tables measured; final estimation")
    fitter.refit(final_max_iter)
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
        fitter.measure(attrs, sigma)
        fitter.refit()
        moved = fitter.total * np.abs(fitter.model.marginal(attrs) - before).sum()
        if moved <= _EXPECTED_ABS_NORMAL * sigma * table_size(fitter.data.shape, attrs) \
                and not final:
            sigma, epsilon = sigma / 2.0, epsilon * 2.0  # AIM's annealing
        report_budget(progress, budget, budget.rho)


def report_budget(progress, budget, rho):
    """Advance ``progress`` (a bar over 100) to the percentage of ``rho`` spent."""
    if progress is not None:
        # spends sum to rho up to float rounding: 99.99999...% is the whole budget
        progress.update(min(100, int(100 * budget.used / rho + 1e-9)) - progress.done)


def as_counts(codes, shape):
    """The private records as a count oracle (``.counts(attrs)``, ``.n``).

    ``codes`` is either the level-code array or an already accumulated
    :class:`~sksmooth.release._statistics.MarginalCounts` (out-of-core).
    """
    return codes if hasattr(codes, "counts") else _Data(codes, shape)


def start_fitter(codes, shape, rho, rng, neighbouring, max_iter):
    """The model fitter of a run within ``rho`` (total public under substitution)."""
    data = as_counts(codes, tuple(int(s) for s in shape))
    total = float(data.n) if neighbouring.public_total else None
    return _Fitter(data, _Budget(rho, neighbouring), rng, max_iter, total)


def measure_total(codes, rho, rng, neighbouring=ADD_REMOVE):
    """The number of records: public (substitution) or a discrete Gaussian count.

    Returns ``(total, records)``: under add/remove the count has L2
    sensitivity 1 and costs ``rho`` (one :class:`PrivacyRecord`); under
    substitution it is public and free (no record).
    """
    n = codes.n if hasattr(codes, "counts") else len(codes)
    if neighbouring.public_total:
        return float(n), []
    budget = _Budget(rho, ADD_REMOVE)  # a count moves by 1 when a record is added/removed
    sigma = budget.sigma_for(rho)
    budget.spend_measure((), sigma)
    noisy = float(add_discrete_gaussian(np.array([n]), sigma, rng)[0])
    return max(noisy, 1.0), budget.records


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
