"""Per-query answering baselines: Laplace and Gaussian (answers only).

Hardt, Ligett, McSherry (NeurIPS 2012) compare synthetic-data release
(MWEM) with answering the k queries directly with noise: the Gaussian
mechanism needs ``n_Gauss ~ sqrt(k log k) / alpha`` records for max error
``alpha``, MWEM ``n_MWEM ~ log(k) sqrt(log m) / alpha^2``.

Neighbouring relation: substitution (same n, one record replaced). The
answers are integer **counts** released with exact discrete noise
(discrete Laplace, or discrete Gaussian; Canonne, Kamath, Steinke,
NeurIPS 2020, arXiv:2004.00010); ``answers_`` is ``noisy_counts_ / n``, a
post-processing with no floating-point noise to attack (Mironov 2012).
Each query's count has sensitivity 1 and the vector of k counts has L1
sensitivity k and L2 sensitivity sqrt(k) (``sensitivity='per_query'``, the
baseline of the comparison). With ``sensitivity='structured'`` a
structured workload is answered from noisy count tables instead (every
table's cells, L1 ``2 G``, L2 ``sqrt(2 G)`` for G tables), which is never
worse.

Marginal, threshold and range workloads are answered from count tables
computed straight from the rows (``np.bincount`` of ravelled codes): no
grid is built, so ``max_universe_size`` does not limit them (only the size
of each table is capped).
"""

import math
from dataclasses import replace

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._constraints import Options
from .._guarantee import Guarantee, PrivacySpent, mark_read_from_data
from .._validation import check_delta_for_n
from ._base import COMMON_CONSTRAINTS, DELTA_CONSTRAINT, ReleaseContext, ReleaseData
from ._queries import as_workload
from ._privacy import RoundParameters, measure_counts, zcdp_budget

__all__ = ["LaplacePerQuery", "GaussianPerQuery"]

_SOURCE = ("per-query answering baseline of Hardt, Ligett, McSherry, NeurIPS 2012; "
           "discrete mechanisms of Canonne, Kamath, Steinke, NeurIPS 2020")
_STRUCTURED_NAMES = ("auto", "marginals", "thresholds", "ranges")


class _PerQueryBase(ReleaseData):
    """Shared fit of the per-query baselines; subclasses choose the noise."""

    _parameter_constraints = {
        **COMMON_CONSTRAINTS,
        "delta": DELTA_CONSTRAINT,
        "sensitivity": Options("per_query", "structured"),
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=0.0,
        queries="auto",
        sensitivity="per_query",
        universe="grid",
        n_bins="auto",
        max_universe_size=2**24,
        levels=None,
        bounds=None,
        classes=None,
        accountant=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.queries = queries
        self.sensitivity = sensitivity
        self.universe = universe
        self.n_bins = n_bins
        self.max_universe_size = max_universe_size
        self.levels = levels
        self.bounds = bounds
        self.classes = classes
        self.accountant = accountant
        self.random_state = random_state

    def _check_public_parameters(self, params):
        self._check_delta(params["delta"])
        super()._check_public_parameters(params)

    def _release_context(self, data, params, randomness, whole_table):
        """Universe and workload, fixed at the first chunk (public inputs only)."""
        kind = as_workload(self.queries).kind
        structured_only = (self.universe == "grid" and isinstance(kind, str)
                           and kind in _STRUCTURED_NAMES)
        if structured_only:  # count tables from the rows: the grid is never built
            uni = self._grid(data, check_size=False)
        else:
            uni = self._build_universe(data, randomness.public)
        return ReleaseContext(uni, self._build_workload(uni, randomness.public))

    def _release_stream(self, stream, params):
        """Answer the workload from the accumulated counts with independent discrete noise."""
        epsilon, delta = params["epsilon"], params["delta"]
        workload, randomness = stream.context.workload, stream.randomness
        data = replace(stream.frame, n_rows=stream.statistic.n)
        n, k = data.n, workload.n_queries
        check_delta_for_n(delta, n)  # n is public (substitution)
        if self.sensitivity == "structured" and workload.structured:
            tables = stream.statistic.table_counts()
            G = workload.n_groups
            noise = self._noise_parameters(2 * G, math.sqrt(2.0 * G), epsilon, delta)
            flat = np.concatenate([t.ravel() for t in tables])
            noisy_flat = measure_counts(flat, noise, randomness.noise)
            splits = np.cumsum([t.size for t in tables])[:-1]
            noisy_tables = [v.reshape(t.shape) for v, t in
                            zip(np.split(noisy_flat, splits), tables)]
            noisy = workload.answers_from_marginals(noisy_tables)  # exact integer sums
        else:
            noise = self._noise_parameters(int(k), math.sqrt(k), epsilon, delta)
            noisy = measure_counts(stream.statistic.query_counts(), noise, randomness.noise)
        not_certified = self._not_certified(data, randomness)
        self._charge(data, epsilon, delta, certified=not not_certified)
        self.noisy_counts_ = np.asarray(noisy, dtype=np.int64)
        self.answers_ = self.noisy_counts_ / n
        self.workload_ = workload
        self.n_queries_ = k
        self.noise_scale_ = noise.noise_scale / n
        self.privacy_spent_ = PrivacySpent(epsilon, delta)
        self.guarantee_ = mark_read_from_data(Guarantee(
            claim=f"({epsilon:g}, {delta:g})-differential privacy (substitution neighbours)",
            source=_SOURCE,
            certified=not not_certified,
            assumptions_certified=(
                f"count sensitivity {'L1' if noise.noise == 'laplace' else 'L2'} = "
                f"{noise.measurement_sensitivity:.4g}",
                self._noise_note(),
                "bad rows mapped by a fixed public rule, never refused",
            ),
            assumptions_not_certified=tuple(not_certified),
            notes=("answers_ = noisy_counts_ / n: a deterministic post-processing",),
        ), **self._read_from_data(data))

    def answer(self, queries=None):
        """The noisy answers of the fitted workload (answers only: no synthetic data)."""
        check_is_fitted(self, "answers_")
        if queries is not None:
            raise ValueError(
                f"{type(self).__name__} answers only its fitted workload; call answer() "
                "without arguments, or use MWEM to answer new queries."
            )
        return self.answers_


class LaplacePerQuery(_PerQueryBase):
    """Answer every query of the workload with discrete Laplace noise (pure DP).

    Integer counts plus discrete Laplace noise of scale ``L1 / epsilon``
    (``L1 = k``, ``'per_query'``; ``2 G``, ``'structured'``), sampled
    exactly.

    Parameters
    ----------
    epsilon : float, default=1.0
    delta : float, default=0.0
        Must be 0 (pure DP); use :class:`GaussianPerQuery` for ``delta > 0``.
    sensitivity : {'per_query', 'structured'}, default='per_query'
        ``'per_query'``: the k counts have L1 sensitivity ``k`` (every query
        can change); ``'structured'``: a workload of whole tables is answered
        from noisy count tables, ``L1 = 2 G`` for ``G`` tables (changing a
        row moves two cells of each; the module docstring).
    queries, universe, n_bins, max_universe_size, \
levels, bounds, classes, accountant, random_state :
        as in :class:`MWEM`.

    Attributes
    ----------
    answers_ : ndarray of shape (n_queries,)
        ``noisy_counts_ / n``.
    noisy_counts_ : int64 ndarray of shape (n_queries,)
    noise_scale_ : float
        Discrete Laplace scale in fraction units.
    workload_, n_queries_, privacy_spent_, guarantee_

    References
    ----------
    Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential
    Privacy", NeurIPS 2020, arXiv:2004.00010 (discrete Laplace, §2).
    """

    def _check_delta(self, delta):
        if delta != 0:
            raise ValueError("LaplacePerQuery is pure DP: pass delta=0 (or use GaussianPerQuery).")

    def _noise_parameters(self, l1, l2, epsilon, delta):
        return RoundParameters(float("nan"), float("nan"), "laplace", l1 / epsilon, l1, epsilon,
                               float("nan"))

    def _noise_note(self):
        return "discrete Laplace on integer counts, sampled exactly (integer arithmetic)"


class GaussianPerQuery(_PerQueryBase):
    """Answer every query of the workload with discrete Gaussian noise ((eps, delta)-DP).

    Integer counts plus discrete Gaussian noise with ``sigma = L2 /
    sqrt(2 rho)``, ``rho = zcdp_from_dp_budget(epsilon, delta)`` (exactly
    ``rho``-zCDP for an integer query of L2 sensitivity ``L2 = sqrt(k)`` or
    ``sqrt(2 G)``, Canonne, Kamath, Steinke 2020, Thm 4; converted to
    ``(epsilon, delta)``). The zCDP route is a little more noise than an
    analytic continuous calibration: the price of exact sampling.

    Parameters
    ----------
    epsilon : float, default=1.0
    delta : float, default=1e-5
    sensitivity : {'per_query', 'structured'}, default='per_query'
        ``'per_query'``: L2 sensitivity ``sqrt(k)`` for k counts;
        ``'structured'``: ``sqrt(2 G)`` for a workload of ``G`` whole tables
        answered from noisy count tables (changing a row moves two cells of
        each).
    queries, universe, n_bins, max_universe_size, \
levels, bounds, classes, accountant, random_state :
        as in :class:`MWEM`.

    Attributes
    ----------
    answers_ : ndarray of shape (n_queries,)
    noisy_counts_ : int64 ndarray of shape (n_queries,)
    noise_scale_ : float
        Discrete Gaussian sigma in fraction units.
    workload_, n_queries_, privacy_spent_, guarantee_

    References
    ----------
    Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential
    Privacy", NeurIPS 2020, arXiv:2004.00010.
    """

    def __init__(self, *, epsilon=1.0, delta=1e-5, queries="auto", sensitivity="per_query",
                 universe="grid", n_bins="auto", max_universe_size=2**24,
                 levels=None, bounds=None, classes=None, accountant=None, random_state=None):
        super().__init__(
            epsilon=epsilon, delta=delta, queries=queries, sensitivity=sensitivity,
            universe=universe, n_bins=n_bins,
            max_universe_size=max_universe_size, levels=levels, bounds=bounds, classes=classes,
            accountant=accountant, random_state=random_state,
        )

    def _check_delta(self, delta):
        if delta == 0:
            raise ValueError("GaussianPerQuery needs delta in (0, 1), e.g. delta=1e-5 "
                             "(or use LaplacePerQuery for pure DP).")

    def _noise_parameters(self, l1, l2, epsilon, delta):
        rho = zcdp_budget(epsilon, delta)
        return RoundParameters(float("nan"), float("nan"), "gaussian", l2 / math.sqrt(2 * rho),
                               l2, float("nan"), rho)

    def _noise_note(self):
        return ("discrete Gaussian on integer counts (rho-zCDP, converted to (eps, delta)), "
                "sampled exactly (integer arithmetic)")
