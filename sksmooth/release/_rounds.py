"""The MWEM loop over a release model: select, measure, update (SPEC §7).

One round (Hardt, Ligett, McSherry 2012; Haghtalab, Roughgarden, Shetty
2020, App. E, Alg. 2): the exponential mechanism selects the candidate (a
table or a query) the current model answers worst, its integer counts are
measured with discrete noise (:func:`._privacy.measure_counts`), and the
model is multiplied by a factor over the candidate's attributes. Everything
after the measurement is post-processing.

Two strategies share the loop:

* :class:`TableRounds` — candidates are whole tables (all cells of a
  marginal, or the cells behind a family of thresholds/boxes); the model is
  only ever touched through the :class:`~._model.ReleaseModel` protocol
  (``marginal(attrs)``, ``multiply(attrs, log_factor)``), so a factored
  model can replace the dense one.
* :class:`QueryRounds` — candidates are single queries (the papers'
  algorithm); box queries of a grid workload also use the protocol, dense
  workloads (halfspaces, user queries, sampled universes) a factor over all
  attributes.

The model is created by :func:`make_model`, the one place where a
representation is chosen: the dense vector while the product domain has at
most ``max_dense_size`` points (one O(N) einsum per marginal, fastest on
small domains), otherwise the factored graphical model of
:mod:`.graphical`, whose size grows with the measured tables only. The
factored model is capped as AIM caps it (McKenna, Mullins, Sheldon &
Miklau, VLDB 2022, arXiv:2201.12677, §4): a candidate whose junction tree
would exceed ``max_model_size`` floats is not eligible for selection. The
cap depends only on the tables already selected (released), so restricting
the exponential mechanism to the eligible candidates costs no privacy.
"""

import math
from dataclasses import dataclass, field

import numpy as np

from ._dense_model import DenseModel
from .graphical import FactoredModel
from ._privacy import integer_scores, measure_counts, select
from ._projection import kl_project_smooth

__all__ = ["make_model", "is_dense", "TableRounds", "QueryRounds", "MWRun", "run_mw"]

_FLOOR = 1e-12
_STEP_CLIP = 0.5  # trust region of one table MW update (log-factor), by measurement


def is_dense(shape, max_dense_size):
    """The rule of :func:`make_model`: dense iff the domain has ``<= max_dense_size`` points."""
    return math.prod(int(k) for k in shape) <= max_dense_size


def make_model(shape, max_dense_size):
    """The uniform release model over the product domain ``shape``.

    Dense for at most ``max_dense_size`` points, factored beyond (module
    docstring). Both start uniform and implement the same protocol, so the
    MW loop gives the same result on either (up to rounding).
    """
    if is_dense(shape, max_dense_size):
        return DenseModel(shape)
    return FactoredModel.uniform(shape)


def _project_simplex(v):
    """Euclidean projection of ``v`` onto the probability simplex (sort-based)."""
    flat = np.ravel(v)
    u = np.sort(flat)[::-1]
    css = np.cumsum(u) - 1.0
    ind = np.arange(1, len(u) + 1)
    rho = np.nonzero(u - css / ind > 0)[0][-1]
    theta = css[rho] / (rho + 1.0)
    return np.maximum(v - theta, 0.0)


class TableRounds:
    """Select and measure whole tables (see module docstring).

    Parameters
    ----------
    workload : GridWorkload
    counts : list of int ndarray
        The data's count table of every candidate (private).
    n : int
        Public number of records (counts / n are fractions).
    update : {'mw', 'ipf'}
    eta : float
    """

    def __init__(self, workload, counts, n, update, eta):
        self.workload = workload
        self.tables = workload.tables
        self.counts = counts
        self.n = n
        self.update_rule = update
        self.eta = eta
        self.n_candidates = workload.n_groups

    def attrs_of(self, idx):
        """Attributes of candidate ``idx``'s factor."""
        return self.tables[idx]

    def current(self, model, idx):
        return model.marginal(self.tables[idx])

    def scores(self, model):
        """Integer L1 error of each table (units 1/(n 2^16), sensitivity 2^17)."""
        return np.array([integer_scores(model.marginal(t), c, self.n).sum()
                         for t, c in zip(self.tables, self.counts)], dtype=np.int64)

    def measure(self, idx, params, rng):
        return measure_counts(self.counts[idx], params, rng)

    def update(self, model, idx, noisy_counts, current=None):
        current = self.current(model, idx) if current is None else current
        measured = noisy_counts / self.n
        if self.update_rule == "mw":
            # step scaled by the number of cells L (a cell of average mass 1/L moves
            # by ~exp(eta x relative error)), at most the relative error itself on a
            # heavier cell (the first-order KL projection, log(m/a) ~ (m - a)/a:
            # a larger gain overshoots, a <- a exp(k (m - a)) oscillates once
            # k a > 2), and clipped to a trust region: unclipped steps collapse the
            # distribution onto noisy cells when n is small
            gain = np.minimum(self.eta * current.size, 1.0 / np.maximum(current, _FLOOR))
            log_factor = np.clip(gain * (measured - current), -_STEP_CLIP, _STEP_CLIP)
        else:  # KL projection onto the measured table (IPF) after a simplex projection
            target = np.maximum(_project_simplex(measured), _FLOOR)
            log_factor = np.log(target) - np.log(np.maximum(current, _FLOOR))
        return model.multiply(self.tables[idx], log_factor)


class QueryRounds:
    """Select and measure single queries (the papers' algorithm)."""

    def __init__(self, workload, counts, n, update, eta):
        self.workload = workload
        self.counts = np.asarray(counts, dtype=np.int64)
        self.n = n
        self.update_rule = update
        self.eta = eta
        self.n_candidates = workload.n_queries

    def _answers(self, model):
        wl = self.workload
        if wl.structured:
            return wl.answers_from_marginals([model.marginal(t) for t in wl.tables])
        return wl.answers(model.marginal(self._attrs(model)).reshape(-1))

    def _attrs(self, model):
        return tuple(range(len(model.shape)))

    def attrs_of(self, idx):
        """Attributes of candidate ``idx``'s factor (all of them for a dense workload)."""
        wl = self.workload
        if wl.structured:
            return wl.query_table(idx)
        return tuple(range(len(wl.universe.shape)))

    def current(self, model, idx):
        wl = self.workload
        if wl.structured:
            return wl.query_answer_from_marginal(model.marginal(wl.query_table(idx)), idx)
        return float(wl.query_values(idx) @ model.marginal(self._attrs(model)).reshape(-1))

    def scores(self, model):
        """Integer absolute error of each query (units 1/(n 2^16), sensitivity 2^16)."""
        return integer_scores(self._answers(model), self.counts, self.n)

    def measure(self, idx, params, rng):
        return measure_counts(self.counts[idx:idx + 1], params, rng)

    def update(self, model, idx, noisy_counts, current=None):
        current = self.current(model, idx) if current is None else current
        measured = float(noisy_counts[0]) / self.n
        if self.update_rule == "mw":
            log_step = self.eta * (measured - current)
        else:
            m = min(max(measured, 1e-6), 1 - 1e-6)
            a = min(max(current, _FLOOR), 1 - _FLOOR)
            log_step = math.log(m / (1 - m)) - math.log(a / (1 - a))
        wl = self.workload
        if wl.structured:
            attrs = wl.query_table(idx)
            return model.multiply(attrs, log_step * wl.query_indicator(idx))
        attrs = self._attrs(model)
        return model.multiply(attrs, log_step * wl.query_values(idx).astype(float))


@dataclass
class MWRun:
    """What the loop produced (private until published)."""

    selected: list = field(default_factory=list)
    noisy_counts: list = field(default_factory=list)  # int64 arrays, one per round
    last: object = None  # the last model
    average: np.ndarray = None  # flat average of the iterates' distributions


def _choose(rounds, model, scores, available, params, rng, max_model_size):
    """Exponential mechanism over the available candidates that fit the size cap.

    A drawn candidate that would grow the model past ``max_model_size`` is
    removed and the mechanism redrawn over the rest: by the choice axiom of
    the exponential mechanism the outcome has exactly its law over the
    eligible set (which depends on released selections only).
    """
    eligible = available.copy()
    while True:
        candidates = np.flatnonzero(eligible)
        if candidates.size == 0:
            return None
        choice = int(candidates[select(scores[candidates], params, rng)])
        if model.fits(rounds.attrs_of(choice), max_model_size):
            return choice
        eligible[choice] = False


def run_mw(rounds, model, n_rounds, params, rng, *, exclude, n_passes, sigma=None,
           max_model_size=None, progress=None):
    """The MWEM loop; ``sigma`` set = KL projection onto sigma-smooth distributions.

    ``rng`` is the release's noise stream (selection and measurement). The
    average of the iterates is kept only for a dense model (a mixture of
    factored models is not a factored model); ``max_model_size`` caps a
    factored model (``None``: no cap). The loop stops early when no
    candidate is eligible any more. ``progress`` (a ``Progress``) counts rounds.
    """
    run = MWRun()
    dense = isinstance(model, DenseModel)
    all_attrs = tuple(range(len(model.shape)))
    average = np.zeros(model.size) if dense else None
    available = np.ones(rounds.n_candidates, dtype=bool)
    cap = math.inf if max_model_size is None else max_model_size
    for _ in range(n_rounds):
        scores = rounds.scores(model)
        choice = _choose(rounds, model, scores, available, params, rng, cap)
        if choice is None:
            break
        if exclude:
            available[choice] = False
        noisy = rounds.measure(choice, params, rng)
        run.selected.append(choice)
        run.noisy_counts.append(noisy)
        model = rounds.update(model, choice, noisy)
        for _pass in range(n_passes):  # extra passes: post-processing of past measurements
            for idx, past in zip(run.selected, run.noisy_counts):
                model = rounds.update(model, idx, past)
        if sigma is not None:  # Projected Smooth MWEM (App. F, Alg. 3): dense only
            model = DenseModel(model.shape, kl_project_smooth(model.log_p.reshape(-1), sigma))
        if dense:
            average += model.marginal(all_attrs).reshape(-1)
        if progress is not None:
            progress.update(1)
    run.last = model
    run.average = average / max(len(run.selected), 1) if dense else None
    return run
