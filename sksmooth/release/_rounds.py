"""The MWEM loop over a release model: select, measure, update (SPEC §7).

One round (Hardt, Ligett, McSherry 2012; Haghtalab, Roughgarden, Shetty
2020, App. E, Alg. 2): the exponential mechanism selects the candidate (a
table or a query) the current model answers worst, its integer counts are
measured with discrete noise (:func:`._privacy.measure_counts`), and the
model is multiplied by a factor over the candidate's attributes. Everything
after the measurement is post-processing.

The ``rounds`` parameter objects say what a round measures and how:
:class:`TableRounds` (whole tables; the model is only touched through the
:class:`~._model.ReleaseModel` protocol, so a factored model can replace the
dense one) and :class:`QueryRounds` (single queries, the papers'
algorithm). :func:`make_model` is the one place where a representation is
chosen: the dense vector while the product domain has at most
``max_dense_size`` points, otherwise the factored graphical model of
:mod:`.graphical`, capped as AIM caps it (McKenna, Mullins, Sheldon &
Miklau, VLDB 2022, arXiv:2201.12677, §4): a candidate whose junction tree
would exceed ``max_model_size`` floats is not eligible for selection, a rule
of released selections only, so it costs no privacy.
"""

import math
from dataclasses import dataclass, field

import numpy as np
from sklearn.base import BaseEstimator

from .._constraints import Boolean, Integer, Options, Real, check_parameter_object
from ._dense_model import DenseModel
from .graphical import FactoredModel
from ._privacy import integer_scores, measure_counts, select

__all__ = ["make_model", "is_dense", "TableRounds", "QueryRounds", "as_rounds", "check_rounds",
           "MWRun", "run_mw"]

_FLOOR = 1e-12
_STEP_CLIP = 0.5  # trust region of one table MW update (log-factor), by measurement
_FIT_WORK = 1e10  # point updates of the passes after the last round (about a minute)
_MAX_FIT_PASSES = 100


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


_AUTO = Options("auto")
AUTO_QUERY_ROUNDS_CAP = 2000
_RULES = {
    "n_iter": (_AUTO, Integer(1, high=5000, cap_reason=(
        "run time: every round is one O(N) update of the model and two exact "
        "samples (milliseconds each)"))),
    "selection_fraction": Real(0, 1, closed="neither"),
    "exclude_measured": Boolean(),
    "update": Options("mw", "ipf"),
    "learning_rate": Real(0, 1e3, closed="right"),
    "n_passes": Integer(0, high=1000, cap_reason=(
        "run time: every pass re-applies all past measurements")),
    "output": Options("average", "last"),
}
TABLE_SELECTION_FRACTION = 0.3  # of a table round's budget, by measurement


class _Rounds(BaseEstimator):
    """What a round of MWEM selects and measures (the ``rounds`` parameter)."""

    def _assign(self, n_iter, selection_fraction, exclude_measured, update, learning_rate,
                n_passes, output):
        self.n_iter = n_iter
        self.selection_fraction = selection_fraction
        self.exclude_measured = exclude_measured
        self.update = update
        self.learning_rate = learning_rate
        self.n_passes = n_passes
        self.output = output

    def for_workload(self, workload):
        return self

    def passes(self, model_size, T):
        return self.n_passes

    def fit_passes(self, model_size, T):
        """Most passes over all measurements after the last round (0: none)."""
        return 0


class TableRounds(_Rounds):
    """``rounds='table'``: each round selects a whole table and measures all its cells.

    A table (a marginal, or the cells behind a family of thresholds or boxes)
    costs one query's budget: count sensitivity L1 2, L2 ``sqrt 2``, score
    (its L1 error) ``2/n``. A workload without tables (sampled universe,
    halfspaces, user queries) is measured query by query, by
    :class:`QueryRounds` with the values set here. ``'auto'``: the value in
    brackets on tables, QueryRounds' default otherwise; the table values were
    chosen by measurement (``benchmarks/bench_query_release.py``).

    Parameters
    ----------
    n_iter : int or 'auto', default='auto'
        Rounds T; ``'auto'``: as many tables as keep the per-cell noise std
        below a quarter of the mean cell mass, ``n eps 0.7 / (8 sqrt(2)
        L_mean)``, at least ``n_attributes + 1``, at most the number of tables.
        An explicit ``n_iter`` that leaves every measured count noise of std
        above ``100 n`` is refused (no round would measure anything).
    selection_fraction : float in (0, 1) or 'auto', default='auto'
        Share of each round's budget spent on selection (0.3).
    exclude_measured : bool or 'auto', default='auto'
        Never re-select a measured table (True; post-processing).
    update : {'mw', 'ipf'}, default='mw'
        Multiplicative weights summed over the table's cells, or IPF: each
        cell rescaled by ``m_c / D(c)`` after projecting the noisy table onto
        the simplex (the exact KL projection; less accurate in the benchmark).
        Post-processing, as every parameter but the first two.
    learning_rate : float or 'auto', default='auto'
        MW step ``eta`` (1/8), applied as ``eta L`` for ``L`` cells, at most
        the cell's relative error, clipped to ``[-1/2, 1/2]`` (a trust region).
    n_passes : int or 'auto', default='auto'
        Extra MW passes over past measurements after each round (10; fewer,
        ``5e8 / (N T^2)`` but at least 1, on large universes). ``'auto'``
        with the last iterate also fits the released model to the
        measurements after the last round (Hardt, Ligett, McSherry's
        re-use of all past measurements): passes over all of them until
        their squared residual is at the noise level, ``sum_t ||n a_t -
        y_t||^2 <= (1 + 2 sqrt((kappa - 1) / C)) C v`` (Morozov's
        discrepancy principle: ``C`` measured cells, ``v`` and ``kappa`` the
        variance and kurtosis of one count's noise, ``2 b^2`` and 6 for
        Laplace of scale ``b``, ``sigma^2`` and 3 for Gaussian, so the bound is
        the true data's expected residual plus two standard deviations),
        at most 100 passes and ``1e10`` point updates (``a_t``: the model's
        answer to measured table ``t``, ``y_t`` its noisy counts).
    output : {'auto', 'last', 'average'}, default='auto'
        The last iterate (``'auto'``) or the average of iterates.

    References
    ----------
    M. Hardt, K. Ligett and F. McSherry, "A simple and practical algorithm
    for differentially private data release", NeurIPS 2012, arXiv:1012.4763
    (repeated MW passes over past measurements).
    V. A. Morozov, "On the solution of functional equations by the method of
    regularization", Soviet Mathematics Doklady 7, 1966 (discrepancy principle).
    """

    _parameter_constraints = {name: rule if name in ("n_iter", "update") else (_AUTO, rule)
                              for name, rule in _RULES.items()}
    _on_tables = dict(selection_fraction=TABLE_SELECTION_FRACTION, exclude_measured=True,
                      learning_rate=0.125, output="last")

    def __init__(self, *, n_iter="auto", selection_fraction="auto", exclude_measured="auto",
                 update="mw", learning_rate="auto", n_passes="auto", output="auto"):
        self._assign(n_iter, selection_fraction, exclude_measured, update, learning_rate,
                     n_passes, output)

    def for_workload(self, workload):
        """These rounds with their ``'auto'`` values, or the single-query rounds with
        the values set here that a workload without tables needs."""
        given = {name: value for name, value in self.get_params().items()
                 if not (isinstance(value, str) and value == "auto")}
        if not workload.structured:
            return QueryRounds(**given)
        return TableRounds(**{**self._on_tables, **given})

    def n_rounds(self, epsilon, n, uni, workload, log_potential):
        if self.n_iter != "auto":
            return self.n_iter
        # the per-cell noise std of a measurement (Laplace: sqrt(2) * 2T / (n eps (1-f)),
        # f = 0.3) below a quarter of the average cell mass 1/L
        mean_cells = float(np.mean(workload.table_sizes))
        budget_T = int(n * epsilon * 0.7 / (8 * math.sqrt(2) * mean_cells))
        return min(workload.n_groups, max(uni.n_attributes + 1, budget_T))

    def passes(self, model_size, T):
        if self.n_passes != "auto":
            return self.n_passes
        return int(np.clip(5e8 / (model_size * T * T), 1, 10))

    def fit_passes(self, model_size, T):
        if self.n_passes != "auto" or self.output != "last":
            return 0
        return int(np.clip(_FIT_WORK / (model_size * T), 1, _MAX_FIT_PASSES))

    def candidates(self, workload, counts, n):
        return TableCandidates(workload, counts, n, self.update, self.learning_rate)


class QueryRounds(_Rounds):
    """``rounds='query'``: each round selects and measures one query (the papers' algorithm).

    With the defaults this is Alg. 2 of Haghtalab, Roughgarden, Shetty (2020)
    (MWEM of Hardt, Ligett, McSherry 2012 on a finite workload), the
    algorithm of Thm 4.1-4.3 (``error_bound_`` is reported on grid workloads).

    Parameters
    ----------
    n_iter : int or 'auto', default='auto'
        Rounds T; ``'auto'``: the minimiser of the theorem's bound ``2
        sqrt(L/T) + 10 T log|Q| / (eps n)``, ``T = (eps n sqrt(L) / (10
        log|Q|))^(2/3)``, with ``L = log N`` (MWEM, Thm 4.1) or ``log(1/sigma)``
        (Smooth MWEM, Thm 4.2/4.3), at most 2000 (beyond it the first term is
        below ``0.045 sqrt(L)``; an eps of 10^6 on 30 rows asked for 8000
        rounds, 21 s). An explicit ``n_iter`` that leaves every
        measured count noise of std above ``100 n`` is refused.
    selection_fraction : float in (0, 1), default=0.5
        Share of each round's budget spent on selection (Alg. 2).
    exclude_measured : bool, default=False
        Never re-select a measured query (post-processing); the theorems'
        analysis (Lemma E.4) selects over the whole cover.
    update : {'mw', 'ipf'}, default='mw'
        Multiplicative weights, or for a 0/1 query the two-sided rescaling
        ``q: m/q(D)``, ``1-q: (1-m)/(1-q(D))`` (IPF).
    learning_rate : float, default=0.5
        MW step ``eta`` (Alg. 2).
    n_passes : int, default=0
        Extra MW passes over past measurements after each round.
    output : {'average', 'last'}, default='average'
        The average of iterates (the theorems' output) or the last iterate.
    """

    _parameter_constraints = _RULES

    def __init__(self, *, n_iter="auto", selection_fraction=0.5, exclude_measured=False,
                 update="mw", learning_rate=0.5, n_passes=0, output="average"):
        self._assign(n_iter, selection_fraction, exclude_measured, update, learning_rate,
                     n_passes, output)

    def n_rounds(self, epsilon, n, uni, workload, log_potential):
        if self.n_iter != "auto":
            return self.n_iter
        log_q = math.log(max(workload.n_queries, 2))
        T = (epsilon * n * math.sqrt(log_potential) / (10 * log_q)) ** (2 / 3)
        return int(min(max(1, round(T)), AUTO_QUERY_ROUNDS_CAP))

    def candidates(self, workload, counts, n):
        return QueryCandidates(workload, counts, n, self.update, self.learning_rate)


_ROUNDS = {"table": TableRounds, "query": QueryRounds}


def as_rounds(rounds):
    """The rounds object a ``rounds`` value stands for ('table', 'query' or an object)."""
    return _ROUNDS[rounds]() if isinstance(rounds, str) else rounds


def check_rounds(value, name):
    """The ``rounds`` parameter: 'table', 'query', or a rounds object (its parameters checked)."""
    if isinstance(value, _Rounds):
        check_parameter_object(value, name)
        return value
    if isinstance(value, str) and value in _ROUNDS:
        return value
    raise (ValueError if isinstance(value, str) else TypeError)(
        f"{name} must be 'table', 'query', TableRounds(...) or QueryRounds(...); got "
        f"{value!r}.")


class TableCandidates:
    """Whole tables as the candidates of selection and measurement (``TableRounds``).

    ``counts``: the data's count table of every candidate (private); ``n``:
    the public number of records (counts / n are fractions).
    """

    def __init__(self, workload, counts, n, update, eta):
        self.workload = workload
        self.tables = workload.tables
        self.counts = counts
        self.n = n
        self.update_rule = update
        self.eta = eta
        self.n_candidates = workload.n_groups
        self._widest_first = sorted(range(self.n_candidates), key=lambda g: -len(self.tables[g]))

    def attrs_of(self, idx):
        """Attributes of candidate ``idx``'s factor."""
        return self.tables[idx]

    def current(self, model, idx):
        return model.marginal(self.tables[idx])

    def scores(self, model):
        """Integer L1 error of each table (units 1/(n 2^16), sensitivity 2^17)."""
        scores = np.empty(self.n_candidates, dtype=np.int64)
        widest = self._widest_first  # a narrower table's marginal is then a small sum
        for g, table in zip(widest, model.marginals([self.tables[g] for g in widest])):
            scores[g] = integer_scores(table, self.counts[g], self.n).sum()
        return scores

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


class QueryCandidates:
    """Single queries as the candidates of selection and measurement (``QueryRounds``)."""

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
            return wl.answers_from_marginals(model.marginals(wl.tables))
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
    fit_passes: int = 0  # passes over all measurements after the last round


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


def _fit_to_noise(rounds, model, run, params, max_passes, project):
    """Passes over all measurements until their residual is at the noise level.

    Morozov's discrepancy principle (``TableRounds``' ``n_passes``): the first
    iterate whose squared residual over the measured cells is within two
    standard deviations of the true data's expected residual is returned.
    Post-processing of the released measurements. Returns the model and the
    passes run.
    """
    cells = sum(counts.size for counts in run.noisy_counts)
    kurtosis = 6.0 if params.noise == "laplace" else 3.0  # E z^4 / var^2, continuous law
    target = cells * params.noise_std ** 2 * (1 + 2 * math.sqrt((kurtosis - 1) / cells))
    # the residual reads the widest tables first: a narrower marginal is then a small sum
    widest_first = sorted(zip(run.selected, run.noisy_counts),
                          key=lambda pair: -len(rounds.attrs_of(pair[0])))
    for done in range(max_passes):
        residual = sum(float(np.sum((rounds.n * np.asarray(rounds.current(model, idx)) - past)
                                    ** 2)) for idx, past in widest_first)
        if residual <= target:
            return model, done
        for idx, past in zip(run.selected, run.noisy_counts):
            model = rounds.update(model, idx, past)
        if project is not None:
            model = project(model)
    return model, max_passes


def run_mw(rounds, model, n_rounds, params, rng, *, exclude, n_passes, fit_passes=0,
           project=None, max_model_size=None, progress=None):
    """The MWEM loop; ``project`` maps each iterate (Projected Smooth MWEM: a dense
    model onto the sigma-smooth distributions); ``fit_passes``: most passes of
    :func:`_fit_to_noise` after the last round.

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
        if project is not None:
            model = project(model)
        if dense:
            average += model.marginal(all_attrs).reshape(-1)
        if progress is not None:
            progress.update(1)
    if fit_passes and run.selected:
        model, run.fit_passes = _fit_to_noise(rounds, model, run, params, fit_passes, project)
    run.last = model
    run.average = average / max(len(run.selected), 1) if dense else None
    return run
