"""The zCDP budget and measurements shared by AIM and MST.

Neighbouring relations and their sensitivities, the record of every spend
(costs sum exactly to the budget: the last measurement takes exactly the
rest), the measure-and-refit step, and exact selection on integer scores.
Accounting is zCDP: a selection with epsilon ``e`` costs ``e^2/8`` (Cesar &
Rogers, ALT 2021), a measurement with std ``sigma`` costs
``Delta_2^2 / (2 sigma^2)`` (discrete Gaussian, Canonne, Kamath & Steinke,
NeurIPS 2020, arXiv:2004.00010).
"""

import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ...accounting import exact_rest
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
    "integer_l1_errors",
    "select_exact",
    "exact_scores",
    "report_budget",
    "as_counts",
    "start_fitter",
    "measure_total",
]


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


class _Budget:
    """Spends rho and keeps the record of every spend (``prior``: spends made
    before, such as a noisy record count)."""

    def __init__(self, rho, neighbouring, prior=()):
        self.rho = float(rho)
        self.neighbouring = neighbouring
        self.records = list(prior)

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

    def rest(self):
        """What the last spend may take: the spends plus it never exceed ``rho``."""
        return exact_rest(self.rho, [r.rho for r in self.records])

    def spend_measure(self, attrs, sigma=None):
        """Record a measurement of std ``sigma`` and return ``sigma``; ``None``: the
        last one, which spends exactly :meth:`rest` (its std rounded up to fit)."""
        if sigma is None:
            cost = self.rest()
            sigma = self.sigma_for(cost)
            while self.measure_cost(sigma) > cost:
                sigma = math.nextafter(sigma, math.inf)
        else:
            cost = self.measure_cost(sigma)
        self.records.append(PrivacyRecord("measure", attrs, sigma, cost))
        return sigma

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

    def measure(self, attrs, sigma=None):
        """Measure ``attrs`` with std ``sigma`` (``None``: the rest of the budget)."""
        sigma = self.budget.spend_measure(attrs, sigma)
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

    def refit(self, max_iter=None, rtol=0.0):
        result = estimate(self.data.shape, self.measurements, total=self.public_total,
                          init=self.model, max_iter=max_iter or self.max_iter, rtol=rtol)
        self.model = result.model
        if self.public_total is None:
            self.total = estimate_total(self.measurements)
        return result


SCORE_SCALE = 2**16  # a model's expected count is rounded to 1/SCORE_SCALE (public rounding)
WEIGHT_SCALE = 2**10  # candidate weights, normalised to max 1, rounded to 1/WEIGHT_SCALE


def integer_l1_errors(expected, counts, batch_cells=1 << 20):
    """``sum |round(S e) - S c|`` of every table, exactly, as int64 (units ``1/S``).

    ``expected`` (the model's counts, public) and ``counts`` (the private
    integer tables) are iterables of tables, paired in order; one record
    moves each result by at most ``S`` times the table's L1 sensitivity.
    Integer scores let the exponential mechanism be sampled exactly (no
    floating-point selection, Mironov 2012). Tables are read lazily and
    scored a batch of about ``batch_cells`` cells per numpy pass, so memory
    stays bounded however many (or large) the tables are.
    """
    errors, batch, cells = [], [], 0
    for pair in zip(expected, counts):
        batch.append(pair)
        cells += np.size(pair[0])
        if cells >= batch_cells:
            errors.append(_batch_l1_errors(batch))
            batch, cells = [], 0
    if batch:
        errors.append(_batch_l1_errors(batch))
    return np.concatenate(errors) if errors else np.zeros(0, np.int64)


def _batch_l1_errors(batch):
    expected, counts = zip(*batch)
    public = np.rint(np.concatenate([np.ravel(e) for e in expected]).astype(float)
                     * SCORE_SCALE).astype(np.int64)
    private = SCORE_SCALE * np.concatenate([np.ravel(c) for c in counts]).astype(np.int64)
    starts = np.cumsum([0] + [np.size(e) for e in expected[:-1]])
    return np.add.reduceat(np.abs(public - private), starts)


def select_exact(errors, weights, penalties, l1, epsilon, rng, size=None):
    """Index drawn by the exponential mechanism on ``w_r (err_r - pen_r)``, exactly
    (``size``: that many independent draws, an array).

    ``errors`` are :func:`integer_l1_errors` values; ``weights`` (> 0) and
    ``penalties`` (in counts) are public and are rounded to integers on a
    fixed scale (public post-processing of public numbers), so every score
    is an integer whose sensitivity is ``WEIGHT_SCALE * SCORE_SCALE * l1``;
    relative to it the scores are those of the real-valued mechanism up to
    that rounding.
    """
    if float(l1) != int(l1):
        raise ValueError(f"the table L1 sensitivity must be an integer, got {l1}.")
    picks = exact_exponential_mechanism(exact_scores(errors, weights, penalties), epsilon,
                                        WEIGHT_SCALE * SCORE_SCALE * int(l1), rng, size=size)
    return int(picks) if size is None else picks.tolist()


def exact_scores(errors, weights, penalties):
    """The integer scores :func:`select_exact` draws from (its docstring)."""
    w = np.asarray(weights, dtype=float)
    a = np.rint(w / w.max() * WEIGHT_SCALE).astype(np.int64)
    b = np.rint(a * SCORE_SCALE * np.asarray(penalties, dtype=float)).astype(np.int64)
    return a * np.asarray(errors, dtype=np.int64) - b


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


def start_fitter(codes, shape, rho, rng, neighbouring, max_iter, prior=()):
    """The model fitter of a run within ``rho`` (total public under substitution),
    ``prior`` the spends already made of it."""
    data = as_counts(codes, tuple(int(s) for s in shape))
    total = float(data.n) if neighbouring.public_total else None
    return _Fitter(data, _Budget(rho, neighbouring, prior), rng, max_iter, total)


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


