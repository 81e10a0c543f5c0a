"""MWEM, Smooth MWEM and Projected Smooth MWEM: one estimator class per variant.

References
----------
Hardt, Ligett, McSherry, "A simple and practical algorithm for
differentially private data release", NeurIPS 2012 (MWEM).
Haghtalab, Roughgarden, Shetty, "Smoothed Analysis of Online and
Differentially Private Learning", NeurIPS 2020, arXiv:2006.10129: §4,
App. E (Alg. 2, Thm 4.2), App. F (Alg. 3, Claim F.1, Thm 4.3), App. G
(Lemma G.3).
"""

import math
import warnings
from dataclasses import dataclass, replace

import numpy as np
from sklearn.base import clone

from .._constraints import Check
from .._guarantee import Guarantee, PrivacySpent, mark_read_from_data
from .._progress import VERBOSE, Progress
from .._validation import check_delta_for_n, reads_data
from ..exceptions import PrivacyWarning, user_stacklevel
from ._base import (
    COMMON_CONSTRAINTS,
    DELTA_CONSTRAINT,
    JITTER_CONSTRAINT,
    SIGMA_CONSTRAINT,
    ReleaseContext,
    _root_floor,
    fewer_bins,
)
from ._dense_model import DenseModel
from ._outputs import ReleaseMixin
from ._privacy import RoundParameters, round_parameters
from ._projection import kl_project_smooth
from ._queries import as_workload
from ._rounds import (TABLE_SELECTION_FRACTION, TableRounds, as_rounds, check_rounds, is_dense,
                      make_model, run_mw)
from ._schema import DEFAULT_N_BINS

__all__ = ["MWEM", "SmoothMWEM", "ProjectedSmoothMWEM"]

_PAPER = ("Haghtalab, Roughgarden, Shetty, Smoothed Analysis of Online and Differentially "
          "Private Learning, NeurIPS 2020, arXiv:2006.10129")
_SOURCE_MWEM = ("Hardt, Ligett, McSherry, NeurIPS 2012 (MWEM); " + _PAPER + ", Thm 4.1")
_SOURCE_SMOOTH = _PAPER + ", App. E, Alg. 2, Thm 4.2"
_SOURCE_PROJ = _PAPER + ", App. F, Alg. 3, Thm 4.3"
_ERROR_BOUND_FAILURE = 0.05  # beta of error_bound_
_NO_SIGNAL = 100  # per-count noise std, in units of n, past which a round measures nothing
_MAX_WORK = 1e12  # cap on N * T * (1 + n_passes * T / 2 + fit_passes) point updates (a day)
_MAX_TABLE_CELLS_AUTO = 2**16  # cells of one measured table on an n_bins='auto' grid
_MAX_AUTO_GRID = 2**21  # points of an n_bins='auto' grid without sigma (run time)


@dataclass(frozen=True)
class _Plan:
    """Every choice of a fit that depends on public inputs only."""

    by_table: bool
    dense: bool
    exclude: bool
    n_rounds: int
    fraction: float
    update: str
    eta: float
    n_passes: int
    fit_passes: int  # most passes over all measurements after the last round
    output: str
    params: RoundParameters


class MWEM(ReleaseMixin):
    """Private synthetic data by MWEM (Hardt, Ligett, McSherry 2012).

    Runs the Multiplicative Weights Exponential Mechanism over a
    data-independent universe (a grid over the public bounds, or points
    sampled uniformly on them) and a data-independent query workload, and
    releases a distribution over the universe from which synthetic rows are
    drawn. Accuracy: Thm 4.1 of Haghtalab, Roughgarden, Shetty (2020)
    (``error_bound_``, ``L = log N``). The variants for smooth data are
    :class:`SmoothMWEM` (a gamma-cover of an infinite query class) and
    :class:`ProjectedSmoothMWEM` (a sigma-smooth output).

    **Neighbouring relation.** Datasets are neighbours when they have the same
    size ``n`` and differ in one record (substitution; labels are part of the
    record). ``n`` is therefore public, and used to normalise answers and to
    pick ``'auto'`` parameters. All other ``'auto'`` choices depend only on
    public inputs (bounds, categorical levels, classes, epsilon, delta, sigma).

    **Privacy.** With ``delta=0``: pure ``epsilon``-DP by basic composition
    over T rounds (``rounds``), each spending ``selection_fraction * epsilon /
    T`` on the exponential mechanism and the rest on a measurement of
    **integer counts with discrete Laplace noise**. With ``delta>0``: the
    budget is converted to zCDP (``rho`` with ``zcdp_to_dp(rho, delta) =
    epsilon``), split equally across rounds; selection is the exponential
    mechanism (``eps0^2/8``-zCDP), measurement **discrete Gaussian** on the
    counts (exactly ``Delta^2/(2 s^2)``-zCDP, Canonne, Kamath, Steinke
    2020). Both discrete samplers are exact (integer arithmetic), so the
    released measurements carry no floating-point artefact (Mironov 2012);
    ``measurements_`` are the noisy counts divided by the public ``n``
    (post-processing). Sensitivities (substitution):

    ====================  ======================  ===================
    object                score (fractions)       counts L1 / L2
    ====================  ======================  ===================
    one query             1/n                     1 / 1
    one table (cells)     2/n                     2 / sqrt(2)
    ====================  ======================  ===================

    **Randomness.** ``random_state=None`` (default): the noise comes from
    fresh OS entropy at every fit (certified). A given ``random_state`` makes
    the run reproducible but the release *not certified* (``guarantee_``
    and the ledger say so; ``PrivacyLeakWarning``). The public choices
    (sampled universe, workload subset), the noise, and the synthetic rows
    use three independent streams, so emitted rows never reveal the noise.

    **Tables and pipelines.** ``X`` may be a pandas DataFrame with numeric,
    boolean, string and ``Categorical`` columns (levels are public: see
    ``levels``); ``sample``/``fit_resample``/``transform`` then return a
    DataFrame with the same names, and dtypes from public inputs (a
    Categorical kept; any other dtype follows the values, so numbers come
    back float64 or as their levels' dtype). A text or bool column
    must be declared (``levels``): its
    dtype follows the values, so it is not public and an undeclared such
    column is read as numbers within ``bounds`` (a text like a missing
    value), never refused — refusing it would tell that every row held
    text. ``fit_transform(X)`` emits synthetic rows; with a ``y`` it raises
    (a supervised pipeline would pair synthetic X with real y): use
    ``fit_resample`` or :meth:`as_sampler`.

    A table's selection score is the L1 distance between its current and its
    true marginal (sensitivity 2/n). Excluding already-measured queries,
    extra MW passes over past measurements, averaging or taking the last
    iterate, and sampling are post-processing.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget.
    delta : float, default=0.0
        ``0`` for pure DP (Laplace); ``> 0`` for zCDP accounting + Gaussian.
    queries : str, object or Workload, default='auto'
        The query workload: a name (``'marginals'``, ``'thresholds'``,
        ``'ranges'``, ``'halfspaces'``; ``'auto'``: all 1- to
        ``marginal_width``-way marginals on a grid universe, so that a round
        may measure a 1-way table directly, thresholds on a sampled one), an object with
        ``evaluate(X)``, a concept class with ``cover(...)``, or
        :class:`~sksmooth.release.Workload` with its width and size cap.
    rounds : {'table', 'query'}, TableRounds or QueryRounds, default='table'
        What a round selects and measures, how many rounds, and the update
        (post-processing). ``'table'`` (:class:`~sksmooth.release.TableRounds`):
        a whole table (marginal, or the cells behind a family of
        thresholds/boxes) for the price of one query; ``'query'``
        (:class:`~sksmooth.release.QueryRounds`): the papers' algorithm, one
        query per round. Dense workloads always measure single queries.
    universe : {'grid', 'sample'} or int, default='grid'
        ``'grid'``: the cells of a grid of ``n_bins`` per continuous feature;
        ``'sample'``: 10 000 points drawn uniformly on the public box (public
        randomness); an int: that many sampled points.
    n_bins : int or 'auto', default='auto'
        Bins per continuous feature of a grid universe. ``'auto'`` chooses
        them from epsilon, delta and the public n (``k`` = the continuous
        columns in a ``marginal_width``-way table): at most as many as keep
        a table's mean cell count above the noise std of one measurement
        when the budget is split over ``n_attributes + 1`` rounds, and
        within that 10 (``AdaptiveMarginalSynthesizer``'s default), or more
        when n epsilon lets the table plan measure every table (the
        workload's cells, a w-way table counted as ``b^min(w, k)``, at most
        ``n epsilon (1 - 0.3) / (8 sqrt(2))``); at most ``2^21``
        grid points (run time). With ``sigma``: ``ceil(n / sigma)``, the
        theory's cover, within ``max_universe_size`` points. Always at
        most ``2^16`` cells per measured table, at least 2 bins. A stream
        (``partial_fit``) fixes its grid at the first chunk, before n is
        known: 16 bins, fewer past ``2^16`` points (and ``sigma`` needs an
        integer ``n_bins`` there).
    max_universe_size : int, default=2**24
        Most floats the released model may hold (8 bytes each). A grid of at
        most this many points is kept as a dense vector (fastest). A larger
        grid with a table workload (``queries`` 'marginals', 'thresholds',
        'ranges') and ``output='last'`` (the default for tables) is kept
        *factored*: a graphical model over the measured tables (junction
        tree, :mod:`sksmooth.release.graphical`), and a table whose
        junction tree would exceed this many floats is not eligible for
        selection (AIM's rule; the eligible set depends only on the tables
        already selected, so it costs no privacy). Other workloads, the
        average of iterates and the projection need the dense vector: a
        larger grid is then an error. Sampled universes must have at most
        this many points.
    levels : None, int, sequence or dict, default=None
        The public levels of the categorical columns, as
        :class:`AdaptiveMarginalSynthesizer` takes them: one entry for every
        column, a sequence (one entry per column) or ``{column name or
        index: entry}``. An entry is an int ``L`` (codes ``0 .. L-1``), a
        list of levels, or ``int``: the integers between the column's public
        bounds. Such a column comes back with its levels' dtype (integers
        for integer levels). A column without an entry uses its pandas
        ``Categorical`` dtype's categories (the release is then marked not
        certified: ``astype('category')`` reads them from the data), and
        otherwise is continuous, binned on its bounds (floats out). Any
        other dtype follows the values (int64 vs float64, numpy bool,
        ``str``, ``convert_dtypes()``'s ``Int64``), so it is not public —
        one row can change it — and never makes a column categorical or
        integer. Levels are never read from the data; a value outside them
        is mapped to the first level.
    bounds : tuple (lower, upper), dict, 'data' or None, default=None
        Public domain box: a pair ``(lower, upper)`` (numbers, or one per
        column), or ``{column name or index: (lower, upper)}`` for every
        column without public levels (as ``AdaptiveMarginalSynthesizer``
        takes it). ``None`` is refused unless every column has public
        levels; the opt-in ``'data'`` takes it from the rows
        (``PrivacyLeakWarning``; no differential-privacy guarantee). Rows
        outside are clipped to it; how many
        were clipped is a statistic of the private data, so it is not stored
        or reported anywhere (no ``n_clipped_``).
    classes : array-like, 'data' or None, default=None
        Public label set when ``y`` is given. ``None``: a pandas
        ``Categorical`` ``y``'s categories (not certified, as for levels from
        a dtype), else refused; the opt-in ``'data'`` reads it from ``y``
        (``PrivacyLeakWarning``; no differential-privacy guarantee).
    jitter : bool, default=True
        Draw continuous synthetic coordinates uniformly inside their grid
        bin (from the sampling stream); ``False``: the bin centre.
    accountant : BudgetAccountant or None, default=None
        Ledger charged ``(epsilon, delta)`` when ``fit`` releases.
    random_state : None, int or Generator, default=None
        ``None`` for a certified release (see **Randomness**).
    verbose : int or bool, default=0
        ``>= 1``: after the charge, the number of rounds and a progress bar
        over them on stderr (tqdm when installed).

    Attributes
    ----------
    distribution_ : ndarray of shape (n_universe_points,) or None
        Released distribution over the universe (``None`` for a factored
        model: use ``model_.marginal(attrs)`` or ``sample``).
    distribution_average_, distribution_last_ : ndarray or None
        Average of iterates (theorem output) and last iterate (``None``
        for a factored model).
    universe_ : tuple (X_points, y_points)
        Universe points (bin centres for a grid); absent from a factored model.
    workload_ : object
        The query workload (``n_queries``, ``answers(p)``, ``describe(j)``).
    n_queries_ : int
    n_iter_ : int
        Rounds run (fewer than planned only when no table fits the
        factored model's size cap any more).
    n_fit_passes_ : int
        MW passes over all measurements after the last round (``rounds``'
        ``n_passes='auto'``: until the residual is at the noise level).
    model_ : ReleaseModel
        The released distribution behind the model protocol
        (``marginal``, ``multiply``, ``sample``): a ``DenseModel`` or,
        past ``max_universe_size`` grid points, a ``FactoredModel``.
    selected_ : list of int
        Selected tables (``rounds='table'``) or queries, in order.
    noisy_counts_ : list of int64 ndarray
        The released noisy counts (exact discrete mechanisms).
    measurements_ : list of ndarray
        ``noisy_counts_ / n`` (fractions; post-processing).
    noise_scale_ : float
        Discrete Laplace scale or discrete Gaussian sigma of each
        measurement, in fraction units (count units / n).
    selection_epsilon_ : float
        Per-round exponential-mechanism epsilon.
    cover_gamma_ : float or None
        Cover radius of the workload w.r.t. the continuous query class under
        the uniform measure (thresholds on a grid: ``1/(2 n_bins)``).
    error_bound_ : float or None
        Thm 4.1 / 4.2 / 4.3 bound on the max workload error for the run's T,
        holding with probability ``>= error_bound_confidence_`` (the proof of
        Thm 4.2 with Lemma E.4's tails at level ``beta / (2T)`` per event,
        instead of the papers' ``1 - 2T/|Q|``, which is vacuous once
        ``2T >= |Q|``); ``None`` when not applicable (not the theorems'
        algorithm, or a dense workload answered on raw rows).
    error_bound_confidence_ : float
        Probability ``1 - beta`` (``beta = 0.05``) of ``error_bound_``.
    privacy_spent_ : PrivacySpent
    guarantee_ : Guarantee
    n_features_in_ : int

    Notes
    -----
    The MW step for a table measurement adds ``min(eta L, 1/a_c) (m_c - a_c)``
    (clipped to ``[-1/2, 1/2]``) to the log weight of every point of cell ``c``: the
    sum of the single-cell MW updates, with the step scaled by the number of
    cells ``L`` (with the theorems' ``eta = 1/2`` unscaled, cells of mass
    ``1/L`` barely move). ``update='ipf'`` replaces it by the exact KL
    projection onto ``{D : D(c) = m_c for all cells}``, a Bregman projection,
    so Claim F.1's Pythagorean argument says it never moves away from any
    distribution matching the measurement; it fits the noise exactly and was
    slightly less accurate in the benchmark.

    Practical choices beyond the papers (all post-processing of the private
    selections and measurements, or functions of public inputs only): whole
    tables measured per round, extra MW passes, no re-selection, zCDP split
    for ``delta > 0``, last iterate for tables, ``'auto'`` T from the noise
    level. With ``rounds='query'`` and its defaults the theorems'
    algorithm runs unchanged (``error_bound_`` is then reported on grid
    workloads).

    References
    ----------
    Hardt, Ligett, McSherry, "A simple and practical algorithm for
    differentially private data release", NeurIPS 2012.
    Haghtalab, Roughgarden, Shetty, "Smoothed Analysis of Online and
    Differentially Private Learning", NeurIPS 2020, arXiv:2006.10129:
    App. E Alg. 2, App. F Alg. 3, Thm 4.1–4.3.
    Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential
    Privacy", NeurIPS 2020, arXiv:2004.00010.

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.release import MWEM
    >>> rng = np.random.default_rng(0)
    >>> X = (rng.random((500, 4)) < [0.2, 0.5, 0.7, 0.9]).astype(float)
    >>> mwem = MWEM(epsilon=1.0, levels=2).fit(X)
    >>> mwem.sample(3).shape
    (3, 4)
    """

    _parameter_constraints = {
        **COMMON_CONSTRAINTS,
        "delta": DELTA_CONSTRAINT,
        "rounds": Check(check_rounds, "'table', 'query', TableRounds(...) or QueryRounds(...)"),
        "jitter": JITTER_CONSTRAINT,
        "verbose": VERBOSE,
    }
    _variant = "MWEM"
    _theorem = "Thm 4.1"
    _source = _SOURCE_MWEM
    _projects = False  # every iterate projected (needs the dense model)

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=0.0,
        queries="auto",
        rounds="table",
        universe="grid",
        n_bins="auto",
        max_universe_size=2**24,
        levels=None,
        bounds=None,
        classes=None,
        jitter=True,
        accountant=None,
        random_state=None,
        verbose=0,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.queries = queries
        self.rounds = rounds
        self.universe = universe
        self.n_bins = n_bins
        self.max_universe_size = max_universe_size
        self.levels = levels
        self.bounds = bounds
        self.classes = classes
        self.jitter = jitter
        self.accountant = accountant
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------ the variant's hooks
    def _sigma(self, params):
        """The smoothness the data are assumed to have (``None``: no assumption)."""
        return None

    def _log_potential(self, uni):
        """``L``: the MW potential's start, ``log N`` (Thm 4.1)."""
        return math.log(max(uni.size, 2))

    def _project(self, sigma):
        """The map applied to every iterate (``None``: none)."""
        return None

    def _assumption_notes(self, sigma):
        """What the accuracy statement assumes and cannot certify."""
        return []

    # ------------------------------------------------------ fit / release
    def _release_context(self, data, params, randomness, whole_table):
        """Universe and workload, fixed at the first chunk (public inputs only)."""
        # a grid past max_universe_size is checked in _plan (factored model or error)
        uni = (self._grid(data, check_size=False, n_public=whole_table)
               if self.universe == "grid" else self._build_universe(data, randomness.public))
        workload = self._build_workload(uni, randomness.public)
        if workload.n_queries == 0:
            raise ValueError("The query workload is empty; check queries and n_queries.")
        return ReleaseContext(uni, workload)

    def _grid_bins(self, data, n_continuous, other_levels=1, n_public=True):
        """``n_bins='auto'`` from epsilon, delta and the public n (see ``n_bins``)."""
        if not n_public:  # a stream's first chunk: n is not known yet
            return super()._grid_bins(data, n_continuous, other_levels)
        spec = as_workload(self.queries)
        k = max(1, min(spec.marginal_width, n_continuous))  # continuous columns in a table
        n_attributes = len(data.lower) + int(data.classes is not None)
        width = min(spec.marginal_width, n_attributes)
        widths = range(1, width + 1) if spec.kind == "auto" else (width,)  # build_workload's
        # the table plan measures every table when n eps (1 - f) / (8 sqrt 2) reaches the
        # workload's cells (TableRounds.n_rounds), a w-way table counted as b^min(w, k)
        reach = data.n * self.epsilon * (1 - TABLE_SELECTION_FRACTION) / (8 * math.sqrt(2))
        covered = _root_floor(reach / math.comb(n_attributes, width), k)
        while covered > 1 and sum(math.comb(n_attributes, w) * covered ** min(w, k)
                                  for w in widths) > reach:
            covered -= 1
        fewest = round_parameters(self.epsilon, self.delta, n_attributes + 1,
                                  TABLE_SELECTION_FRACTION, data.n, True)
        above_noise = _root_floor(data.n / fewest.noise_std, k)
        want = min(above_noise, max(covered, DEFAULT_N_BINS))
        return self._bins_within(want, k, min(self.max_universe_size, _MAX_AUTO_GRID),
                                 n_continuous, other_levels)

    @staticmethod
    def _bins_within(want, k, points, n_continuous, other_levels):
        """``want`` bins, within ``2^16`` cells per table and ``points`` grid points."""
        cap = min(_root_floor(_MAX_TABLE_CELLS_AUTO, k),
                  _root_floor(points / max(other_levels, 1), n_continuous))
        return max(2, min(want, cap))

    def _release_stream(self, stream, params):
        """Run the mechanism on the accumulated counts; charge, then publish."""
        epsilon, delta, sigma = params["epsilon"], params["delta"], self._sigma(params)
        uni, workload, randomness = stream.context.universe, stream.context.workload, \
            stream.randomness
        data = replace(stream.frame, n_rows=stream.statistic.n)
        check_delta_for_n(delta, data.n)  # n is public (substitution)
        with self._refusal_recorded(data):  # the grid's size may depend on the rows
            plan, rounds = self._plan(params, data.n, uni, workload)
        counts = (stream.statistic.table_counts() if plan.by_table
                  else stream.statistic.query_counts())
        candidates = rounds.candidates(workload, counts, data.n)
        not_certified = self._not_certified(data, randomness)
        # charge, then run and publish: nothing of the release (not even the progress of
        # its rounds, which may stop early) is visible before the ledger agreed
        self._charge(data, epsilon, delta, certified=not not_certified)
        with Progress(type(self).__name__, params["verbose"], total=plan.n_rounds,
                      unit="rounds", min_total=1) as progress:
            progress.log(f"charged ({epsilon:g}, {delta:g}); {plan.n_rounds} rounds of "
                         "selection and measurement")
            run = run_mw(candidates, make_model(uni.shape, self.max_universe_size),
                         plan.n_rounds, plan.params, randomness.noise, exclude=plan.exclude,
                         n_passes=plan.n_passes, fit_passes=plan.fit_passes,
                         project=self._project(sigma),
                         max_model_size=self.max_universe_size, progress=progress)
        self._publish(run, plan, data, uni, workload, randomness, epsilon, delta, sigma,
                      not_certified)
        self._remember_input(stream)

    def _publish(self, run, plan, data, uni, workload, randomness, epsilon, delta, sigma,
                 not_certified):
        n = data.n
        self._universe = uni
        self.workload_ = workload
        self.n_queries_ = workload.n_queries
        self.n_iter_ = len(run.selected)
        self.selected_ = run.selected
        self.noisy_counts_ = run.noisy_counts
        self.measurements_ = [c / n for c in run.noisy_counts]
        self.noise_scale_ = plan.params.noise_scale / n
        self.selection_epsilon_ = plan.params.selection_epsilon
        if plan.dense:
            self.distribution_average_ = run.average / run.average.sum()
            self.distribution_last_ = run.last.marginal(tuple(range(len(uni.shape)))).reshape(-1)
        else:  # a factored model is never expanded to the grid
            self.distribution_average_ = self.distribution_last_ = None
        if plan.output == "average":
            self.model_ = DenseModel.from_probabilities(self.distribution_average_, uni.shape)
        else:
            self.model_ = run.last
        self.distribution_ = (self.distribution_average_ if plan.output == "average"
                              else self.distribution_last_)
        self.output_ = plan.output
        self.update_ = plan.update
        self.learning_rate_ = plan.eta
        self.n_passes_ = plan.n_passes
        self.n_fit_passes_ = run.fit_passes
        self.selection_fraction_ = plan.fraction
        self.exclude_measured_ = plan.exclude
        self.measurement_ = "table" if plan.by_table else "query"
        self.bounds_ = (data.lower, data.upper)
        self.classes_ = data.classes
        self.cover_gamma_ = self._cover_gamma(uni, workload)
        self.error_bound_ = self._error_bound(epsilon, delta, sigma, n, uni, workload, plan)
        self.error_bound_confidence_ = 1 - _ERROR_BOUND_FAILURE
        self.privacy_spent_ = PrivacySpent(epsilon, delta)
        self.guarantee_ = mark_read_from_data(
            self._guarantee(epsilon, delta, sigma, n, uni, workload, plan, not_certified),
            **self._read_from_data(data))

    def _plan(self, params, n, uni, workload):
        """Rounds, budget split and update rule (functions of public inputs only), and
        the rounds object that measures them."""
        rounds = as_rounds(params["rounds"]).for_workload(workload)
        by_table = isinstance(rounds, TableRounds)
        T = rounds.n_rounds(params["epsilon"], n, uni, workload, self._log_potential(uni))
        if rounds.exclude_measured:
            T = min(T, workload.n_groups if by_table else workload.n_queries)
        T = max(1, T)
        dense = uni.kind != "grid" or is_dense(uni.shape, self.max_universe_size)
        if not dense:
            self._check_factored(uni, workload, rounds.output)
        model_size = uni.size if dense else self.max_universe_size  # floats, at most
        n_passes = rounds.passes(model_size, T)
        fit_passes = rounds.fit_passes(model_size, T)
        if _work(rounds, model_size, T) > _MAX_WORK:  # the fix keeps the user's other settings
            fix = clone(as_rounds(params["rounds"])).set_params(
                n_iter=_most_rounds_within_work(rounds, model_size, T))
            raise ValueError(
                f"n_iter={T} rounds with n_passes={n_passes} over a model of {model_size:.3g} "
                f"floats is more than {_MAX_WORK:.0e} point updates (days of run time); "
                f"pass rounds={fix!r} (sksmooth.release; "
                "n_iter='auto' grows with epsilon * n), fewer n_passes, or a smaller "
                "max_universe_size.")
        fraction = rounds.selection_fraction
        round_params = round_parameters(params["epsilon"], params["delta"], T, fraction, n,
                                        by_table)
        if rounds.n_iter != "auto" and T > 1 and round_params.noise_std > _NO_SIGNAL * n:
            # a count lies in [0, n]: noise of std > 100 n leaves any two datasets'
            # measurements (and selections) within ~1% (group privacy over all n rows)
            power = 1 if round_params.noise == "laplace" else 2  # std ~ T or sqrt(T)
            most = max(1, int(T * (_NO_SIGNAL * n / round_params.noise_std) ** power))
            raise ValueError(
                f"rounds' n_iter={T} splits epsilon={params['epsilon']:g} so finely that "
                f"every measured count gets noise of std {round_params.noise_std:.3g}, more "
                f"than {_NO_SIGNAL} times the largest count (n={n} rows): no round would "
                f"measure anything. Use n_iter <= {most}, or a larger epsilon.")
        return _Plan(by_table, dense, bool(rounds.exclude_measured), T, float(fraction),
                     rounds.update, float(rounds.learning_rate), int(n_passes),
                     int(fit_passes), rounds.output,
                     self._round_parameters(params["epsilon"], params["delta"], T, fraction,
                                            n, by_table)), rounds

    def _check_factored(self, uni, workload, output):
        """A grid past ``max_universe_size`` is kept factored; say why it cannot be."""
        reasons = []
        if not workload.structured:
            reasons.append("the workload is not made of grid tables (use queries='marginals', "
                           "'thresholds' or 'ranges')")
        if self._projects:
            reasons.append(f"{type(self).__name__} projects the dense distribution")
        if output == "average":
            reasons.append("output='average' mixes dense iterates (use output='last')")
        smallest = sum(uni.shape)  # the uniform factored model: one table per attribute
        if self.max_universe_size < smallest:
            reasons.append(f"even the model of the 1-way tables holds {smallest} floats")
        if reasons:
            raise ValueError(
                f"the grid universe has {uni.size:.3g} points > max_universe_size="
                f"{self.max_universe_size}, so the release would be a factored model, but "
                + "; ".join(reasons) + ": " + fewer_bins(uni, self.max_universe_size))

    def _round_parameters(self, epsilon, delta, T, fraction, n, by_table):
        """Per-round mechanism parameters (a method so that audits can test a broken one)."""
        return round_parameters(epsilon, delta, T, fraction, n, by_table)

    # ------------------------------------------------------------- theory
    def _cover_gamma(self, uni, workload):
        if not workload.structured:
            gamma = getattr(workload, "gamma", None)
            return None if gamma is None else float(gamma)
        if uni.kind != "grid":
            return None
        name = workload.description
        cont = [j for j in range(uni.n_features) if not uni.categorical[j] and uni.shape[j] > 1]
        if not cont:
            return 0.0
        if name.startswith("thresholds"):
            return max(1.0 / (2 * uni.shape[j]) for j in cont)
        if "range" in name:
            width = max(len(t) for t in workload.tables)
            return min(1.0, width * max(1.0 / uni.shape[j] for j in cont))
        return 0.0  # marginal cells of the grid are the workload itself

    def _error_bound(self, epsilon, delta, sigma, n, uni, workload, plan):
        """Theorem bound on the max workload error for the run's T.

        Only for the theorems' algorithm: pure DP, single-query measurement,
        budget split 1/2, MW step 1/2, no extra passes, average of iterates;
        and only for a grid workload, whose true answers are those of the
        data encoded on the universe. A dense workload (sampled universe,
        halfspaces, user queries) is answered on the raw rows, which no
        distribution over the universe need match, so the theorems'
        potential argument (D_B, or its smooth witness, on the universe)
        does not apply and no bound is reported.
        """
        if (not workload.structured or plan.by_table or delta > 0 or plan.fraction != 0.5
                or plan.eta != 0.5 or plan.n_passes or plan.output != "average"
                or plan.update != "mw" or plan.exclude):
            return None
        # Proof of Thm 4.2 (App. E; Thm 4.1 = Hardt et al.) with the tail level of
        # Lemma E.4 made explicit. Per round (eps_sel = eps_meas = eps/(2T), sensitivity
        # 1/n), with probability >= 1 - beta/(2T) each:
        #   exponential mechanism: chosen error >= max error - A,
        #       A = 4T (log|Q| + log(2T/beta)) / (eps n);
        #   discrete Laplace on the count (scale b = 2T/eps): P(|Z| > x) <= 2 exp(-x/b),
        #       so |m_i - q_i(D_B)| <= B = 2T log(4T/beta) / (eps n)
        #       (the continuous Laplace of the paper has 1 in place of 2: log(2T/beta)).
        # Union bound over T rounds; Lemma E.3 + Jensen + concavity as in the proof:
        #   max error of the average <= 2 sqrt(Psi_0 / T) + A + B   w.p. >= 1 - beta,
        # Psi_0 <= log N (Thm 4.1) or log(1/sigma) (Thm 4.2 / 4.3, smooth data, Fact E.2).
        # With beta = 2T/|Q| this is the papers' 2 sqrt(Psi_0/T) + 10 T log|Q|/(eps n)
        # up to the discrete tail; that level is vacuous when 2T >= |Q|, hence fixed beta.
        T = plan.n_rounds
        beta = _ERROR_BOUND_FAILURE
        log_q = math.log(max(workload.n_queries, 1))
        selection = 4 * T * (log_q + math.log(2 * T / beta)) / (epsilon * n)
        measurement = 2 * T * math.log(4 * T / beta) / (epsilon * n)
        psi0 = self._potential_start(uni)
        return 2 * math.sqrt(psi0 / T) + selection + measurement

    def _potential_start(self, uni):
        """``Psi_0`` of the error bound: ``log N`` (Thm 4.1)."""
        return math.log(max(uni.size, 2))

    def _guarantee(self, epsilon, delta, sigma, n, uni, workload, plan, not_certified):
        claim = (f"({epsilon:g}, {delta:g})-differential privacy (substitution neighbours, "
                 f"n={n} public)")
        noise = ("discrete Laplace on integer counts (pure DP)" if delta == 0 else
                 "discrete Gaussian on integer counts (zCDP, converted to (eps, delta))")
        certified = [
            "universe and workload are data independent"
            + (" (except bounds taken from data)" if reads_data(self.bounds) else ""),
            "sensitivities: query count 1, table counts L1 2 / L2 sqrt(2), scores 1/n, 2/n",
            f"measurements: {noise}, sampled exactly with integer arithmetic",
            "bad rows (NaN, inf, off-domain, unknown labels or levels) mapped by a fixed "
            "public rule, never refused; how many is not released",
        ]
        notes = [
            f"variant: {self._variant}",
            f"measurement: {'whole tables' if plan.by_table else 'single queries'}, "
            f"T={plan.n_rounds}",
            *([f"after the rounds: {self.n_fit_passes_} MW passes over all measurements "
               f"(discrepancy principle; at most {plan.fit_passes})"] if plan.fit_passes else []),
            f"output: {'average of iterates' if plan.output == 'average' else 'last iterate'}",
            "selection: exponential mechanism on integer scores (public model answers "
            "rounded to 1/(n 2^16)), sampled exactly (exact_exponential_mechanism)",
            "measurements_ = noisy counts / n: a deterministic post-processing",
        ]
        notes += self._assumption_notes(sigma)
        if self.error_bound_ is not None:
            notes.append(
                f"max workload error <= {self.error_bound_:.4g} w.p. >= "
                f"{1 - _ERROR_BOUND_FAILURE:g} "
                f"({self._theorem})"
            )
        if self.cover_gamma_:
            flag = getattr(workload, "gamma_certified", None)
            built_in = type(workload).__module__.startswith("sksmooth.")
            how = ("certified" if flag is True or (built_in and flag is not False)
                   else "estimated or stated by the workload, not certified")
            notes.append(f"workload is a {self.cover_gamma_:.3g}-cover of the continuous class "
                         f"({how})")
        return Guarantee(
            claim=claim,
            source=self._source,
            certified=not not_certified,
            assumptions_certified=tuple(certified),
            assumptions_not_certified=tuple(not_certified),
            notes=tuple(notes),
        )


def _work(rounds, model_size, T):
    """Point updates of ``T`` rounds over a model of ``model_size`` floats."""
    n_passes, fit_passes = rounds.passes(model_size, T), rounds.fit_passes(model_size, T)
    return model_size * T * (1 + n_passes * T / 2 + fit_passes)


def _most_rounds_within_work(rounds, model_size, T):
    """A ``T' <= T`` whose run is within ``_MAX_WORK`` (1 when none is: then refused),
    the largest where the work grows with the rounds (bisection)."""
    low, high = 1, T
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if _work(rounds, model_size, middle) <= _MAX_WORK else (
            low, middle - 1)
    return low


class SmoothMWEM(MWEM):
    """Private synthetic data by Smooth MWEM (Haghtalab, Roughgarden, Shetty 2020).

    MWEM over a data-independent gamma-cover of an infinite query class
    (App. E, Alg. 2), for data assumed ``sigma``-smooth: the accuracy bound
    depends on ``log(1/sigma)`` in place of the universe size (Thm 4.2,
    ``error_bound_``). With ``n_bins='auto'`` the grid has ``ceil(n /
    sigma)`` bins per continuous feature, so thresholds are covered at gamma
    = sigma / (2n), within ``max_universe_size`` (the achieved gamma is
    ``cover_gamma_``). Privacy does not depend on ``sigma``; every other
    parameter, attribute and the privacy statement are those of
    :class:`MWEM`.

    Parameters
    ----------
    sigma : float in (0, 1]
        Smoothness of the data: an assumption of the accuracy statement,
        never certified (``guarantee_`` says so; ``PrivacyWarning``).
        Without an assumed smoothness, use :class:`MWEM`.
    epsilon, delta, queries, rounds, universe, n_bins, n_universe, max_universe_size, \
levels, bounds, classes, jitter, accountant, random_state, verbose :
        As in :class:`MWEM`; ``rounds='query'`` runs Alg. 2 itself, and
        ``QueryRounds``' ``n_iter='auto'`` uses ``L = log(1/sigma)``.

    References
    ----------
    N. Haghtalab, T. Roughgarden and A. Shetty, "Smoothed Analysis of Online
    and Differentially Private Learning", NeurIPS 2020, arXiv:2006.10129,
    App. E (Alg. 2, Lemma E.3-E.4), Thm 4.2.
    """

    _parameter_constraints = {**MWEM._parameter_constraints, "sigma": SIGMA_CONSTRAINT}
    _variant = "Smooth MWEM"
    _theorem = "Thm 4.2"
    _source = _SOURCE_SMOOTH

    def __init__(
        self,
        sigma,
        *,
        epsilon=1.0,
        delta=0.0,
        queries="auto",
        rounds="table",
        universe="grid",
        n_bins="auto",
        max_universe_size=2**24,
        levels=None,
        bounds=None,
        classes=None,
        jitter=True,
        accountant=None,
        random_state=None,
        verbose=0,
    ):
        super().__init__(
            epsilon=epsilon, delta=delta, queries=queries, rounds=rounds, universe=universe,
            n_bins=n_bins, max_universe_size=max_universe_size,
            levels=levels, bounds=bounds, classes=classes, jitter=jitter, accountant=accountant,
            random_state=random_state, verbose=verbose)
        self.sigma = sigma

    def _sigma(self, params):
        return params["sigma"]

    def _log_potential(self, uni):
        # L = log(1/sigma) (Thm 4.2/4.3; same order as App. E's T); sigma = 1 assumes
        # nothing, hence log N
        return math.log(1 / self.sigma) if self.sigma < 1 else super()._log_potential(uni)

    def _potential_start(self, uni):
        return math.log(1 / self.sigma)  # Fact E.2

    def _assumption_notes(self, sigma):
        return [f"accuracy (not privacy) assumes the data are (sigma={sigma}, 0)-smooth, "
                "which cannot be certified privately"]

    def _release_context(self, data, params, randomness, whole_table):
        if not whole_table and self.universe == "grid" and self.n_bins == "auto":
            raise ValueError(
                "n_bins='auto' with sigma sizes the grid from n (ceil(n / sigma) bins), which "
                "is unknown at the first chunk of a stream; pass n_bins=<int> to partial_fit, "
                "or use fit on the whole table.")
        return super()._release_context(data, params, randomness, whole_table)

    def _grid_bins(self, data, n_continuous, other_levels=1, n_public=True):
        """``n_bins='auto'``: ``ceil(n / sigma)``, so thresholds are a gamma = sigma/(2n)
        cover (App. E, Alg. 2), capped so the grid fits in memory."""
        k = max(1, min(as_workload(self.queries).marginal_width, n_continuous))
        want = int(np.ceil(min(data.n / self.sigma, 2.0**62)))
        return self._bins_within(want, k, self.max_universe_size, n_continuous, other_levels)

    def _publish(self, *args):
        super()._publish(*args)
        warnings.warn(
            f"{type(self).__name__}: the accuracy guarantee assumes the data are "
            f"sigma-smooth (sigma={self.sigma}), which cannot be certified privately; "
            "privacy holds regardless. See guarantee_.", PrivacyWarning, stacklevel=user_stacklevel())


class ProjectedSmoothMWEM(SmoothMWEM):
    """Private sigma-smooth synthetic data by Projected Smooth MWEM (Haghtalab et al. 2020).

    :class:`SmoothMWEM` whose every iterate is KL-projected onto the
    sigma-smooth distributions ``{z >= 0, sum z = 1, z <= 1/(sigma N)}``
    (App. F, Alg. 3; O(N log N), :func:`~sksmooth.release.kl_project_smooth`),
    so the output is sigma-smooth and answers every query of the class, not
    only the cover (Thm 4.3, ``error_bound_``). The projection is
    post-processing: the privacy statement is that of :class:`MWEM`. It
    needs the dense model (a grid of at most ``max_universe_size`` points).

    Parameters
    ----------
    sigma : float in (0, 1]
        Smoothness of the data and of the output (see :class:`SmoothMWEM`).
    epsilon, delta, queries, rounds, universe, n_bins, n_universe, max_universe_size, \
levels, bounds, classes, jitter, accountant, random_state, verbose :
        As in :class:`MWEM`.

    References
    ----------
    N. Haghtalab, T. Roughgarden and A. Shetty, "Smoothed Analysis of Online
    and Differentially Private Learning", NeurIPS 2020, arXiv:2006.10129,
    App. F (Alg. 3, Claim F.1), Thm 4.3.
    """

    _variant = "Projected Smooth MWEM"
    _theorem = "Thm 4.3"
    _source = _SOURCE_PROJ
    _projects = True

    def _project(self, sigma):
        def project(model):  # App. F, Alg. 3: dense only
            return DenseModel(model.shape, kl_project_smooth(model.log_p.reshape(-1), sigma))
        return project

