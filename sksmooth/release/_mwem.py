"""MWEM, Smooth MWEM and Projected Smooth MWEM as a scikit-learn transformer.

References: seeds/002_6ccc6583559482be.txt (MWEM, lecture notes);
seeds/000_08e60ac76481cbe2.txt, §4, App. E (Alg. 2, Thm 4.2), App. F
(Alg. 3, Claim F.1, Thm 4.3), App. G (Lemma G.3); conference version
seeds/003_a96633f97736c2ff.txt, Theorems 4.1–4.3.
"""

import math
import numbers
import warnings

import numpy as np

from .._guarantee import Guarantee, PrivacySpent
from .._validation import (
    check_delta,
    check_epsilon,
    check_generator,
    check_positive_int,
    check_probability,
    check_sigma,
)
from ..accounting import charge, check_accountant
from ..exceptions import PrivacyWarning
from ._base import ReleaseMixin
from ._projection import kl_project_smooth
from ._privacy import round_parameters, select, add_noise

__all__ = ["SmoothMWEM"]

_SOURCE_MWEM = "seeds/002_6ccc6583559482be.txt (MWEM); seeds/000_08e60ac76481cbe2.txt Thm 4.1"
_SOURCE_SMOOTH = "seeds/000_08e60ac76481cbe2.txt, App. E, Alg. 2, Thm 4.2"
_SOURCE_PROJ = "seeds/000_08e60ac76481cbe2.txt, App. F, Alg. 3, Thm 4.3"


class SmoothMWEM(ReleaseMixin):
    """Private synthetic data by (Smooth, Projected) MWEM.

    Runs the Multiplicative Weights Exponential Mechanism over a
    data-independent universe (a grid over the public bounds, or points
    sampled uniformly on them) and a data-independent query workload, and
    releases a distribution over the universe from which synthetic rows are
    drawn.

    * ``sigma=None, projection=False`` — classic MWEM (Hardt et al. 2012;
      seeds/002_6ccc6583559482be.txt), Thm 4.1 of seeds/000.
    * ``sigma`` set — Smooth MWEM (seeds/000_08e60ac76481cbe2.txt, App. E,
      Alg. 2): the workload is a data-independent gamma-cover of the query
      class; with ``n_bins='auto'`` the grid gives gamma = sigma / (2n)
      (thresholds), capped by ``max_universe_size`` (achieved gamma in
      ``cover_gamma_``). Error bound Thm 4.2 (``error_bound_``).
    * ``projection=True`` (needs ``sigma``) — Projected Smooth MWEM (App. F,
      Alg. 3): every iterate is KL-projected onto the sigma-smooth
      distributions ``{z >= 0, sum z = 1, z <= 1/(sigma N)}`` (O(N log N),
      :func:`~sksmooth.release.kl_project_smooth`), so the output is
      sigma-smooth and answers every query of the class, not only the cover
      (Thm 4.3).

    **Neighbouring relation.** Datasets are neighbours when they have the same
    size ``n`` and differ in one record (substitution; labels are part of the
    record). ``n`` is therefore public, and used to normalise answers and to
    pick ``'auto'`` parameters. All other ``'auto'`` choices depend only on
    public inputs (bounds, categorical levels, classes, epsilon, delta, sigma).

    **Privacy.** With ``delta=0``: pure ``epsilon``-DP by basic composition
    over ``n_iter`` rounds, each spending ``selection_fraction * epsilon /
    n_iter`` on the exponential mechanism and the rest on a Laplace
    measurement. With ``delta>0``: the budget is converted to zCDP
    (``rho`` with ``zcdp_to_dp(rho, delta) = epsilon``), split equally across
    rounds; selection is the exponential mechanism (``eps0^2/8``-zCDP),
    measurement Gaussian. Sensitivities (substitution):

    ====================  ===================  ===================
    object                score / L1           L2
    ====================  ===================  ===================
    one query             1/n                  1/n
    one table (cells)     2/n                  sqrt(2)/n
    ====================  ===================  ===================

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
    sigma : float in (0, 1] or None, default=None
        Smoothness parameter of the data (an assumption, never certified:
        ``guarantee_`` says so). Enables Smooth MWEM parameters.
    queries : str or object, default='auto'
        ``'marginals'`` (all ``marginal_width``-way marginal cells; labels are
        an attribute), ``'thresholds'`` (CDF queries ``x_j <= t`` on each
        feature, at bin edges), ``'ranges'`` (axis-aligned boxes on every
        ``marginal_width``-subset of features), ``'halfspaces'`` (cover from
        :mod:`sksmooth.classes`, dense), an object with ``evaluate(X)`` (a
        finite workload) or a concept class with ``cover(...)``. ``'auto'``:
        marginals on a grid universe, thresholds on a sampled one.
    marginal_width : int, default=2
        Width ``k`` of k-way marginals / range-query boxes.
    n_queries : int or None, default=None
        Cap on the workload size: a uniformly random, data-independent subset
        of the queries is kept.
    n_iter : int or 'auto', default='auto'
        Rounds T. ``'auto'``: with ``measurement='query'`` the minimiser of
        the theorem's bound ``2 sqrt(L/T) + 10 T log|Q| / (eps n)``, i.e.
        ``T = (eps n sqrt(L) / (10 log|Q|))^{2/3}`` with ``L = log(1/sigma)``
        (Thm 4.2/4.3; the order of seeds/000 App. E's T) or ``L = log N``
        (classic MWEM, Thm 4.1);
        with ``measurement='table'``: as many tables as keep the per-cell noise
        std below a quarter of the average cell mass,
        ``n eps 0.7 / (8 sqrt(2) L_mean)``, at least ``n_attributes + 1``, at
        most ``n_tables`` (public inputs only; constants chosen by measurement,
        ``benchmarks/bench_query_release.py``). Never more than the
        number of measurable candidates.
    measurement : {'table', 'query'}, default='table'
        ``'query'``: the papers' algorithm (select one query, measure it).
        ``'table'``: select a whole table (marginal, or the cells behind a
        family of thresholds/boxes) and measure all its cells at once for
        the price of one query (sensitivity 2/n). Dense workloads always
        measure single queries.
    exclude_measured : bool or 'auto', default='auto'
        Never re-select a measured table/query (post-processing of past
        selections, privacy unaffected). ``'auto'``: True for tables; False
        for ``measurement='query'``, because the theorems' analysis (000
        Lemma E.4) needs the selection to range over the whole cover. With
        exclusion, T is capped at the number of candidates.
    selection_fraction : float in (0, 1) or 'auto', default='auto'
        Share of each round's budget spent on selection. ``'auto'``: 1/2 for
        ``measurement='query'`` (Alg. 2), 0.3 for tables (by measurement).
    update : {'auto', 'mw', 'ipf'}, default='auto'
        How a measurement updates the distribution (post-processing, privacy
        unaffected). ``'mw'``: the multiplicative-weights rule of Alg. 2,
        ``D(x) *= exp(eta q(x) (m - q(D)))`` (for a table, summed over its
        cells). ``'ipf'``: the exact KL (Bregman) projection onto the
        measured constraint — for a table, ``D(x) *= m_c / D(c)`` on each
        cell ``c`` after projecting the noisy table onto the simplex
        (iterative proportional fitting); for a 0/1 query, the two-sided
        rescaling ``q: m/q(D)``, ``1-q: (1-m)/(1-q(D))``. ``'auto'``:
        ``'mw'`` (IPF fits the measurement noise exactly and was less
        accurate in ``benchmarks/bench_query_release.py``).
    learning_rate : float or 'auto', default='auto'
        MW step ``eta`` for ``update='mw'``. ``'auto'``: 1/2 for
        ``measurement='query'`` (Alg. 2); for tables the step applied is
        ``eta * L`` (``L`` = number of cells of the table, so a cell of
        average mass ``1/L`` moves by ``exp(eta x relative error)``) with
        ``eta = 1/8``, and each update's log-factors are clipped to
        ``[-1/2, 1/2]`` (a trust region; without it small-n fits collapse onto
        noisy cells). Both chosen by measurement.
    n_passes : int or 'auto', default='auto'
        Extra MW passes over all past measurements after each round
        (post-processing). ``'auto'``: 0 for ``measurement='query'`` (the
        theorems' algorithm); for tables ``10``, reduced to
        ``max(1, 5e8 / (N T^2))`` on large universes (N points, T rounds)
        to bound the running time.
    output : {'auto', 'average', 'last'}, default='auto'
        Released distribution: the average of iterates (the theorems' output)
        or the last iterate. ``'auto'``: average for ``measurement='query'``,
        last for tables (lower error by measurement). Both are stored.
    universe : {'grid', 'sample'}, default='grid'
    n_bins : int or 'auto', default='auto'
        Bins per continuous feature of a grid universe (``'auto'``: 16, or
        ``ceil(n/sigma)`` capped by ``max_universe_size`` when ``sigma`` is set).
    n_universe : int or 'auto', default='auto'
        Points of a sampled universe (``'auto'``: 10 000).
    max_universe_size : int, default=2**24
        Refuse universes larger than this (memory: 8 bytes per point).
    projection : bool, default=False
        Projected Smooth MWEM (requires ``sigma``).
    categorical_features : None, bool mask or int indices, default=None
        Categorical/binary features: their levels are the integers between
        their public bounds.
    bounds : tuple (lower, upper) or None, default=None
        Public domain box. ``None`` takes it from the data
        (``PrivacyLeakWarning``). Rows outside are clipped to it; how many
        were clipped is a statistic of the private data, so it is not stored
        or reported anywhere (no ``n_clipped_``).
    classes : array-like or None, default=None
        Public label set when ``y`` is given (``None``: from ``y``, with a
        ``PrivacyLeakWarning``).
    jitter : bool, default=False
        Sample continuous coordinates uniformly inside their bin instead of
        at the bin centre.
    accountant : BudgetAccountant or None, default=None
        Ledger charged ``(epsilon, delta)`` when ``fit`` releases.
    random_state : None, int or Generator, default=None

    Attributes
    ----------
    distribution_ : ndarray of shape (n_universe_points,)
        Released distribution over the universe.
    distribution_average_, distribution_last_ : ndarray
        Average of iterates (theorem output) and last iterate.
    universe_ : tuple (X_points, y_points)
        Universe points (bin centres for a grid).
    workload_ : object
        The query workload (``n_queries``, ``answers(p)``, ``describe(j)``).
    n_queries_ : int
    n_iter_ : int
        Rounds run.
    selected_ : list of int
        Selected tables (``measurement='table'``) or queries, in order.
    measurements_ : list of ndarray
        Noisy measurements (private outputs; releasing them is free).
    noise_scale_ : float
        Laplace scale or Gaussian std of each measurement (fraction units).
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
    The MW step for a table measurement adds ``eta L (m_c - a_c)`` (clipped
    to ``[-1/2, 1/2]``) to the log weight of every point of cell ``c``: the
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
    level. With ``measurement='query'`` and the defaults the theorems'
    algorithm runs unchanged (``error_bound_`` is then reported on grid
    workloads).

    References
    ----------
    Hardt, Ligett, McSherry (2012), A simple and practical algorithm for
    differentially private data release. Haghtalab, Roughgarden, Shetty,
    Smoothed analysis of online and differentially private learning
    (seeds/000_08e60ac76481cbe2.txt, seeds/003_a96633f97736c2ff.txt).

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.release import SmoothMWEM
    >>> rng = np.random.default_rng(0)
    >>> X = (rng.random((500, 4)) < [0.2, 0.5, 0.7, 0.9]).astype(float)
    >>> mwem = SmoothMWEM(epsilon=1.0, categorical_features=[0, 1, 2, 3],
    ...                   bounds=(0, 1), random_state=0).fit(X)
    >>> mwem.sample(3).shape
    (3, 4)
    """

    def __init__(
        self,
        epsilon=1.0,
        delta=0.0,
        sigma=None,
        queries="auto",
        marginal_width=2,
        n_queries=None,
        n_iter="auto",
        measurement="table",
        exclude_measured="auto",
        selection_fraction="auto",
        update="auto",
        learning_rate="auto",
        n_passes="auto",
        output="auto",
        universe="grid",
        n_bins="auto",
        n_universe="auto",
        max_universe_size=2**24,
        projection=False,
        categorical_features=None,
        bounds=None,
        classes=None,
        jitter=False,
        accountant=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.sigma = sigma
        self.queries = queries
        self.marginal_width = marginal_width
        self.n_queries = n_queries
        self.n_iter = n_iter
        self.measurement = measurement
        self.exclude_measured = exclude_measured
        self.selection_fraction = selection_fraction
        self.update = update
        self.learning_rate = learning_rate
        self.n_passes = n_passes
        self.output = output
        self.universe = universe
        self.n_bins = n_bins
        self.n_universe = n_universe
        self.max_universe_size = max_universe_size
        self.projection = projection
        self.categorical_features = categorical_features
        self.bounds = bounds
        self.classes = classes
        self.jitter = jitter
        self.accountant = accountant
        self.random_state = random_state

    # ------------------------------------------------------------- checks
    def _check_params(self):
        epsilon = check_epsilon(self.epsilon)
        delta = check_delta(self.delta)
        sigma = None if self.sigma is None else check_sigma(self.sigma)
        if self.measurement not in ("table", "query"):
            raise ValueError(
                f"measurement must be 'table' or 'query', got {self.measurement!r}."
            )
        if self.output not in ("auto", "average", "last"):
            raise ValueError(
                f"output must be 'auto', 'average' or 'last', got {self.output!r}."
            )
        if not (isinstance(self.exclude_measured, str) and self.exclude_measured == "auto"):
            if not isinstance(self.exclude_measured, (bool, np.bool_)):
                raise TypeError(
                    f"exclude_measured must be True, False or 'auto', got {self.exclude_measured!r}."
                )
        if not (isinstance(self.selection_fraction, str) and self.selection_fraction == "auto"):
            check_probability(self.selection_fraction, "selection_fraction")
        if not (isinstance(self.learning_rate, str) and self.learning_rate == "auto"):
            if (not isinstance(self.learning_rate, numbers.Real)
                    or isinstance(self.learning_rate, bool)
                    or not np.isfinite(self.learning_rate) or self.learning_rate <= 0):
                raise ValueError(
                    f"learning_rate must be a finite float > 0 or 'auto', got "
                    f"{self.learning_rate!r}."
                )
        if self.update not in ("auto", "mw", "ipf"):
            raise ValueError(f"update must be 'auto', 'mw' or 'ipf', got {self.update!r}.")
        if not (isinstance(self.n_passes, str) and self.n_passes == "auto"):
            check_positive_int(self.n_passes, "n_passes", minimum=0)
        if not (isinstance(self.n_iter, str) and self.n_iter == "auto"):
            check_positive_int(self.n_iter, "n_iter")
        if not isinstance(self.projection, (bool, np.bool_)):
            raise TypeError(f"projection must be True or False, got {self.projection!r}.")
        if self.projection and sigma is None:
            raise ValueError(
                "projection=True (Projected Smooth MWEM) projects onto sigma-smooth "
                "distributions and needs sigma; pass e.g. sigma=0.1."
            )
        self._check_universe_params()
        check_accountant(self.accountant)
        return epsilon, delta, sigma

    # ---------------------------------------------------------------- fit
    def fit(self, X, y=None):
        """Run the mechanism on the private data ``X`` (and labels ``y``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), optional
            Labels, treated as one more (categorical) attribute.

        Returns
        -------
        self
        """
        epsilon, delta, sigma = self._check_params()
        if self.accountant is not None:
            self.accountant.check(epsilon, delta)
        Xc, y, lower, upper, categorical, classes = self._validate_common(X, y)
        n = Xc.shape[0]
        rng = check_generator(self.random_state)
        uni = self._build_universe(lower, upper, categorical, classes, n, sigma, rng)
        workload = self._build_workload(uni, rng, n)
        if workload.n_queries == 0:
            raise ValueError("The query workload is empty; check queries and n_queries.")
        by_table = self.measurement == "table" and workload.structured
        n_candidates = workload.n_groups if by_table else workload.n_queries
        exclude = by_table if self.exclude_measured == "auto" else bool(self.exclude_measured)
        T = self._n_rounds(epsilon, delta, sigma, n, uni, workload,
                           n_candidates if exclude else None, by_table)
        fraction = self.selection_fraction
        if fraction == "auto":
            fraction = 0.3 if by_table else 0.5
        params = self._round_parameters(epsilon, delta, T, fraction, n, by_table)
        update = "mw" if self.update == "auto" else self.update
        eta = self.learning_rate
        if eta == "auto":
            eta = 0.125 if by_table else 0.5
        step = _Updater(workload, by_table, update, float(eta))
        if self.n_passes != "auto":
            n_passes = int(self.n_passes)
        elif by_table:
            n_passes = int(np.clip(5e8 / (uni.size * T * T), 1, 10))
        else:
            n_passes = 0

        true = self._true_answers(workload, uni, Xc, y)
        data_marginals = workload.data_marginals(uni.encode(Xc, y)) if by_table else None

        N = uni.size
        p = np.full(N, 1.0 / N)
        average = np.zeros(N)
        available = np.ones(n_candidates, dtype=bool)
        measured = []  # (index, noisy values)
        selected = []
        for _ in range(T):
            if by_table:
                current = workload.marginals(p)
                scores = np.array([np.abs(c - d).sum() for c, d in zip(current, data_marginals)])
            else:
                current = workload.answers(p)
                scores = np.abs(current - true)
            cand = np.flatnonzero(available)
            choice = int(cand[select(scores[cand], params, rng)])
            if exclude:
                available[choice] = False
            selected.append(choice)
            if by_table:
                m = add_noise(data_marginals[choice], params, rng)
            else:
                m = float(add_noise(np.array([true[choice]]), params, rng)[0])
            measured.append((choice, m))
            p = step(p, choice, m, current[choice])
            for _pass in range(n_passes):
                for idx, meas in measured:
                    p = step(p, idx, meas)
            np.maximum(p, _TINY, out=p)  # keep the support (underflow guard)
            p /= p.sum()
            if self.projection:
                p = np.exp(kl_project_smooth(np.log(p), sigma))
            average += p
        average /= T
        last = p
        output = self.output
        if output == "auto":
            output = "last" if by_table else "average"

        # ---- release: charge the ledger before exposing anything
        charge(self.accountant, epsilon, delta, type(self).__name__)
        self._universe = uni
        self.workload_ = workload
        self.n_queries_ = workload.n_queries
        self.n_iter_ = T
        self.selected_ = selected
        self.measurements_ = [m for _, m in measured]
        self.noise_scale_ = params.noise_scale
        self.selection_epsilon_ = params.selection_epsilon
        self.distribution_average_ = average / average.sum()
        self.distribution_last_ = last / last.sum()
        self.distribution_ = (
            self.distribution_average_ if output == "average" else self.distribution_last_
        )
        self.output_ = output
        self.update_ = update
        self.learning_rate_ = float(eta)
        self.n_passes_ = n_passes
        self.selection_fraction_ = float(fraction)
        self.exclude_measured_ = exclude
        self.measurement_ = "table" if by_table else "query"
        self.bounds_ = (lower, upper)
        self.classes_ = classes
        self.cover_gamma_ = self._cover_gamma(uni, workload)
        self.error_bound_ = self._error_bound(epsilon, delta, sigma, n, uni, workload, T, by_table,
                                              fraction, float(eta), n_passes)
        self.error_bound_confidence_ = 1 - _ERROR_BOUND_FAILURE
        self.privacy_spent_ = PrivacySpent(epsilon, delta)
        self.guarantee_ = self._guarantee(epsilon, delta, sigma, n, uni, workload, by_table, T)
        if sigma is not None:
            warnings.warn(
                "SmoothMWEM: the accuracy guarantee assumes the data are "
                f"sigma-smooth (sigma={sigma}), which cannot be certified privately; "
                "privacy holds regardless. See guarantee_.",
                PrivacyWarning,
                stacklevel=2,
            )
        return self

    def _round_parameters(self, epsilon, delta, T, fraction, n, by_table):
        """Per-round mechanism parameters (a method so that audits can test a broken one)."""
        return round_parameters(epsilon, delta, T, fraction, n, by_table)

    # ------------------------------------------------------------- theory
    def _n_rounds(self, epsilon, delta, sigma, n, uni, workload, n_candidates, by_table):
        if not isinstance(self.n_iter, str):
            T = int(self.n_iter)
        elif by_table:
            # as many tables as keep the per-cell noise std of a measurement below a
            # quarter of the average cell mass 1/L (Laplace: sqrt(2) * 2T / (n eps (1-f)),
            # f = 0.3), but at least n_attributes + 1 rounds
            mean_cells = float(np.mean(workload.table_sizes))
            budget_T = int(n * epsilon * 0.7 / (8 * math.sqrt(2) * mean_cells))
            T = min(workload.n_groups, max(uni.n_attributes + 1, budget_T))
        else:
            log_q = math.log(max(workload.n_queries, 2))
            # argmin_T of the theorem's bound 2 sqrt(L/T) + 10 T log|Q| / (eps n):
            # T = (eps n sqrt(L) / (10 log|Q|))^(2/3), with L = log N (Thm 4.1, MWEM)
            # or L = log(1/sigma) (Thm 4.2/4.3, smooth data; same order as App. E's T).
            L = math.log(max(uni.size, 2)) if sigma is None or sigma >= 1 else math.log(1 / sigma)
            T = (epsilon * n * math.sqrt(L) / (10 * log_q)) ** (2 / 3)
            T = max(1, int(round(T)))
        return max(1, T if n_candidates is None else min(T, n_candidates))

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

    def _error_bound(self, epsilon, delta, sigma, n, uni, workload, T, by_table, fraction, eta,
                     n_passes):
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
        if (not workload.structured or by_table or delta > 0 or fraction != 0.5 or eta != 0.5 or n_passes
                or self.output_ != "average" or self.update_ != "mw" or self.exclude_measured_):
            return None
        # Proof of Thm 4.2 (000 App. E; Thm 4.1 = Hardt et al.) with the tail level of
        # Lemma E.4 made explicit. Per round (eps_sel = eps_meas = eps/(2T), sensitivity
        # 1/n), with probability >= 1 - beta/(2T) each:
        #   exponential mechanism: chosen error >= max error - A,
        #       A = 4T (log|Q| + log(2T/beta)) / (eps n);
        #   Laplace (scale 2T/(eps n)): |m_i - q_i(D_B)| <= B = 2T log(2T/beta) / (eps n).
        # Union bound over T rounds; Lemma E.3 + Jensen + concavity as in the proof:
        #   max error of the average <= 2 sqrt(Psi_0 / T) + A + B   w.p. >= 1 - beta,
        # Psi_0 <= log N (Thm 4.1) or log(1/sigma) (Thm 4.2 / 4.3, smooth data, Fact E.2).
        # With beta = 2T/|Q| this is the papers' 2 sqrt(Psi_0/T) + 10 T log|Q|/(eps n);
        # that level is vacuous when 2T >= |Q| (common: T ~ (eps n)^(2/3)), hence fixed beta.
        beta = _ERROR_BOUND_FAILURE
        log_q = math.log(max(workload.n_queries, 1))
        tail = math.log(2 * T / beta)
        selection = 4 * T * (log_q + tail) / (epsilon * n)
        measurement = 2 * T * tail / (epsilon * n)
        if sigma is None:
            psi0 = math.log(max(uni.size, 2))  # Thm 4.1
        else:
            psi0 = math.log(1 / sigma)  # Thm 4.2 / 4.3 on the cover queries (|Q'| = n_queries)
        return 2 * math.sqrt(psi0 / T) + selection + measurement

    def _guarantee(self, epsilon, delta, sigma, n, uni, workload, by_table, T):
        claim = f"({epsilon:g}, {delta:g})-differential privacy (substitution neighbours, n={n} public)"
        certified = [
            "universe and workload are data independent"
            + ("" if self.bounds is not None else " (except bounds taken from data)"),
            "sensitivities: query 1/n, table L1 2/n, L2 sqrt(2)/n",
        ]
        not_certified = []
        notes = [
            f"variant: {'Projected Smooth MWEM' if self.projection else 'Smooth MWEM' if sigma else 'MWEM'}",
            f"measurement: {'whole tables' if by_table else 'single queries'}, T={T}",
            f"output: {'average of iterates' if self.output_ == 'average' else 'last iterate'}",
        ]
        if self.bounds is None:
            not_certified.append("bounds are public (taken from data: PrivacyLeakWarning)")
        if uni.has_labels and self.classes is None:
            not_certified.append("label set is public (taken from y: PrivacyLeakWarning)")
        if sigma is not None:
            notes.append(f"accuracy (not privacy) assumes the data are (sigma={sigma}, 0)-smooth, "
                         "which cannot be certified privately")
        if self.error_bound_ is not None:
            notes.append(
                f"max workload error <= {self.error_bound_:.4g} w.p. >= "
                f"{1 - _ERROR_BOUND_FAILURE:g} "
                f"({'Thm 4.3' if self.projection else 'Thm 4.2' if sigma else 'Thm 4.1'})"
            )
        if self.cover_gamma_:
            how = ("estimated (Monte Carlo), not certified"
                   if getattr(workload, "gamma_certified", True) is False else "certified")
            notes.append(f"workload is a {self.cover_gamma_:.3g}-cover of the continuous class "
                         f"({how})")
        source = _SOURCE_PROJ if self.projection else _SOURCE_SMOOTH if sigma else _SOURCE_MWEM
        return Guarantee(
            claim=claim,
            source=source,
            certified=not not_certified,
            assumptions_certified=tuple(certified),
            assumptions_not_certified=tuple(not_certified),
            notes=tuple(notes),
        )


def _project_simplex(v):
    """Euclidean projection of ``v`` onto the probability simplex (sort-based)."""
    flat = np.ravel(v)
    u = np.sort(flat)[::-1]
    css = np.cumsum(u) - 1.0
    ind = np.arange(1, len(u) + 1)
    rho = np.nonzero(u - css / ind > 0)[0][-1]
    theta = css[rho] / (rho + 1.0)
    return np.maximum(v - theta, 0.0)


_FLOOR = 1e-12
_ERROR_BOUND_FAILURE = 0.05  # beta of error_bound_
_TINY = 1e-300
_STEP_CLIP = 0.5  # trust region of one table MW update (log-factor), by measurement


class _Updater:
    """One measurement's update of the distribution (post-processing).

    The state is the normalised distribution ``p`` in linear space; every
    update multiplies it by ``exp(.)`` of log-factors computed on the table
    (or query), shifted so that the largest factor is 1, then renormalises.
    The factors of one update are bounded (``|eta (m - a)| <= eta``, IPF
    floors at 1e-12), and points are floored at ``_TINY`` so the support is
    never lost to underflow.
    """

    def __init__(self, workload, by_table, update, eta):
        self.workload = workload
        self.by_table = by_table
        self.update = update
        self.eta = eta

    def current(self, p, idx):
        wl = self.workload
        if self.by_table:
            return wl.marginal(p, idx)
        return wl.query_answer(p, idx)

    def __call__(self, p, idx, measured, current=None):
        if current is None:
            current = self.current(p, idx)
        wl = self.workload
        if self.by_table:
            if self.update == "mw":
                # step scaled by the number of cells L (a cell of average mass 1/L moves
                # by ~exp(eta x relative error)), clipped to a trust region: unclipped
                # steps overshoot and collapse the distribution when n is small
                step = self.eta * wl.table_sizes[idx] * (measured - current)
                wl.scale_table(p, idx, np.clip(step, -_STEP_CLIP, _STEP_CLIP))
            else:
                target = np.maximum(_project_simplex(measured), _FLOOR)
                wl.scale_table(p, idx, np.log(target) - np.log(np.maximum(current, _FLOOR)))
        else:
            if self.update == "mw":
                wl.scale_query(p, idx, self.eta * (measured - current))
            else:
                m = min(max(measured, 1e-6), 1 - 1e-6)
                a = min(max(current, _FLOOR), 1 - _FLOOR)
                wl.scale_query(p, idx, math.log(m / (1 - m)) - math.log(a / (1 - a)))
        p /= p.sum()
        return p
