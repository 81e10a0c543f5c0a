"""A private estimate of every feature's range, for users without public bounds.

Each end of each feature is one AboveThreshold (Dwork and Roth 2014, Thm 3.23;
monotone counts, Lyu, Su and Li 2017) on a public grid, the unbounded quantile estimate of Durfee (NeurIPS 2023,
arXiv:2305.01177): no data-dependent choice before the noise, no bound assumed.
"""

import warnings

import numpy as np
from sklearn.base import BaseEstimator

from .._constraints import EPSILON, RANDOM_STATE, Check, Real, validate_params
from .._guarantee import Guarantee, PrivacySpent
from .._untrusted import read_numbers
from ..exceptions import DefaultsWarning, user_stacklevel
from .._randomness import SEEDED_NOISE_NOTE, release_randomness
from ..accounting._ledger import ACCOUNTANT, charge
from ..mechanisms import sample_discrete_laplace

__all__ = ["PrivateBounds"]

_SOURCE = ("AboveThreshold: Dwork and Roth, The Algorithmic Foundations of Differential "
           "Privacy, 2014, Thm 3.23, with monotone queries (Lyu, Su and Li, PVLDB 2017, "
           "arXiv:1603.01699); on an unbounded public grid as in Durfee, NeurIPS 2023, "
           "arXiv:2305.01177")

# The 'auto' grid: 0 and +-10^(k/20) for 10^-6 <= |c| <= 10^9, 20 points a decade
# (each step 12.2% of the value): 601 public candidates, the same for every table.
_STEPS_PER_DECADE = 20
_DECADES = (-6, 9)
# A warning when the threshold's margin leaves more than this share of n per end outside
_MARGIN_SHARE = 0.05


def _auto_grid():
    magnitudes = 10.0 ** (np.arange(_DECADES[0] * _STEPS_PER_DECADE,
                                    _DECADES[1] * _STEPS_PER_DECADE + 1) / _STEPS_PER_DECADE)
    return np.concatenate([-magnitudes[::-1], [0.0], magnitudes])


def _check_grid(value, name="grid"):
    if isinstance(value, str):
        if value != "auto":
            raise ValueError(f"{name} must be 'auto' or an increasing array of candidates.")
        return value
    grid = np.asarray(value, dtype=float)
    if grid.ndim != 1 or grid.size < 2 or not np.all(np.isfinite(grid)) \
            or np.any(np.diff(grid) <= 0):
        raise ValueError(f"{name} must be a 1-D strictly increasing array of at least two "
                         "finite public candidates (or 'auto').")
    return grid


class PrivateBounds(BaseEstimator):
    """Differentially private ``(lower, upper)`` of every feature, from a public grid.

    For a table without a data dictionary, this is the private way to obtain
    the ``bounds`` every sksmooth estimator needs (reading them from the rows,
    ``bounds='data'``, is not private). Each end of each feature is one
    AboveThreshold on public candidates: the upper end is the first
    candidate ``c`` (in increasing order) at which the noisy count of rows
    ``<= c`` reaches the noisy threshold ``(1 - tail) n - 3 b``; the lower
    end, symmetrically, the first candidate (in decreasing order) with that
    many rows ``>= c``. ``b = 2 / epsilon_end`` is the noise scale: without
    the margin of three scales the noisy threshold exceeds ``n`` in about 2%
    of fits at ``n = 2000, epsilon = 1`` and the end then stops many steps
    beyond the data (up to the grid's end, ``1e9``). The grid is public and the same for every
    table, so nothing about the rows is assumed: not their scale, not their
    sign, not an outer bound.

    Privacy: ``epsilon`` is split equally over the ``2 d`` ends (basic
    composition); each end is ``epsilon / (2 d)``-differentially private
    under substitution of one row (``n`` public): the counts have
    sensitivity 1 and move in one direction between neighbours (monotone
    queries), the threshold and every count carry discrete Laplace noise of
    scale ``2 / epsilon_end`` (exact integer sampling). The spend is charged
    to ``accountant`` before ``bounds_`` is set. The lower end is found
    first, scanning down from the top of the grid; the upper end then scans
    up from it. Accuracy: an end stops near the rank it targets, up to a
    rank error of order ``(2 / epsilon_end) log(candidates passed)``; it
    needs ``n * epsilon_end`` well above ``2 log(grid size)`` (about 13 for
    the default grid): when it is not (decided from the public ``n``, ``d``
    and ``epsilon``), ``fit`` refuses before any charge, naming the epsilon
    that would do (at epsilon=1 the box missed every row of wine). Where it
    fits but the margin of three noise scales exceeds 5% of ``n`` at each end
    (wine at epsilon=5: about 31 rows, 18%), it warns
    (:class:`~sksmooth.DefaultsWarning`); the epsilon both messages name
    keeps the margin within 5%.
    With the default grid (12% steps) expect the box to exceed the data's
    range by a step or two at each end.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget of the whole estimate (every feature, both ends).
        Spend a stated share of the budget of the analysis that follows.
    tail : float, default=0.005
        Share of the rows each end may leave outside: the ends target the
        ``tail`` and ``1 - tail`` quantiles. Smaller is wider.
    grid : 'auto' or array-like of shape (n_candidates,), default='auto'
        Public increasing candidates for the ends. ``'auto'``: 0 and
        ``+-10^(k/20)`` from ``1e-6`` to ``1e9`` (601 values). Pass a finer
        grid when the features' scale is known (e.g. years:
        ``np.arange(1900, 2031)``).
    accountant : BudgetAccountant or None, default=None
        Ledger charged ``(epsilon, 0)`` before the estimate is published.
    random_state : None, int or Generator, default=None
        ``None``: fresh OS entropy (certified). A seed makes the noise
        reproducible (not certified, :class:`~sksmooth.PrivacyLeakWarning`).

    Attributes
    ----------
    bounds_ : tuple (lower, upper) of ndarray of shape (n_features,)
        The private box, in the form every estimator's ``bounds`` takes.
    bounds_by_column_ : dict
        ``{column: (lower, upper)}`` (column names for a DataFrame, else
        positions): the per-column form, which every estimator's ``bounds``
        takes too.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of str
        Column names of a DataFrame seen in ``fit``.
    privacy_spent_ : PrivacySpent
        ``(epsilon, 0)``.
    guarantee_ : Guarantee
        The privacy claim and what it rests on.

    References
    ----------
    .. [1] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
       Privacy", Foundations and Trends in TCS, 2014, Algorithm 1
       (AboveThreshold) and Theorem 3.23.
    .. [2] D. Durfee, "Unbounded Differentially Private Quantile and Maximum
       Estimation", NeurIPS 2023, arXiv:2305.01177.
    .. [3] M. Lyu, D. Su and N. Li, "Understanding the Sparse Vector
       Technique for Differential Privacy", PVLDB 10(6), 2017,
       arXiv:1603.01699, Algorithm 7 and Section 4 (monotone queries).
    .. [4] C. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
       Differential Privacy", NeurIPS 2020, arXiv:2004.00010 (exact discrete
       Laplace sampling).

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.preprocessing import PrivateBounds, PublicBoundsScaler
    >>> ages = np.random.default_rng(0).uniform(17.5, 42, size=(2000, 1))
    >>> box = PrivateBounds(epsilon=0.5).fit(ages)
    >>> scaler = PublicBoundsScaler(bounds=box.bounds_).fit(ages)
    """

    _parameter_constraints = {
        "epsilon": EPSILON,
        "tail": Real(0.0, 0.5, closed="left"),
        "grid": Check(_check_grid, "'auto' or an increasing array of candidates"),
        "accountant": ACCOUNTANT,
        "random_state": RANDOM_STATE,
    }

    def __init__(self, *, epsilon=1.0, tail=0.005, grid="auto", accountant=None,
                 random_state=None):
        self.epsilon = epsilon
        self.tail = tail
        self.grid = grid
        self.accountant = accountant
        self.random_state = random_state

    def fit(self, X, y=None):
        """Estimate every feature's range privately; charge, then publish ``bounds_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The private rows. NaN (and a non-number) counts as inside the box
            at either end, so the ends target the quantiles of the other rows;
            ``+-inf`` as beyond every candidate (a fixed rule: nothing is refused).
        y : ignored

        Returns
        -------
        self
        """
        params = validate_params(self)
        grid = _auto_grid() if isinstance(params["grid"], str) else params["grid"]
        randomness = release_randomness(params["random_state"])
        X = read_numbers(self, X, dtype=np.float64)
        n, d = X.shape
        epsilon_end = params["epsilon"] / (2 * d)
        margin = 3 * 2.0 / epsilon_end
        threshold = max(1, int(np.ceil((1.0 - params["tail"]) * n - margin)))
        # all public (n, d, epsilon, grid): n * epsilon_end that meets the data at all,
        # and that keeps the margin's rows within _MARGIN_SHARE of n at each end
        meets = (4.0 * np.log(len(grid)) + margin * epsilon_end) / (1.0 - params["tail"])
        enough = max(meets, margin * epsilon_end / _MARGIN_SHARE)
        suggestion = (f"Give epsilon >= {_ceil_3_digits(2 * d * enough / n):g}, fewer features "
                      "or a smaller public grid, or take bounds from a data dictionary "
                      "(published_bounds).")
        if threshold * epsilon_end < 4.0 * np.log(len(grid)):
            raise ValueError(
                f"PrivateBounds: epsilon={params['epsilon']:g} over {2 * d} ends leaves "
                f"{epsilon_end:.3g} each, too little for n={n} rows on {len(grid)} "
                f"candidates (n * epsilon per end = {n * epsilon_end:.3g}, needs about "
                f"{meets:.3g}): the box would miss the data. {suggestion}")
        if margin > _MARGIN_SHARE * n:
            warnings.warn(
                f"PrivateBounds: at epsilon={params['epsilon']:g} over {2 * d} ends, each "
                f"end aims about {margin:.0f} rows ({margin / n:.0%} of n={n}) inside the "
                "data beyond the tail (a margin of three noise scales); the estimators that "
                f"use the box clip the rows outside it. {suggestion}",
                DefaultsWarning, stacklevel=user_stacklevel())
        # counts[c, j] = #{i : X[i, j] <= grid[c]}: a sorted column and searchsorted.
        # A missing row counts as inside at either end (as -inf for <=, +inf for >=,
        # where NaN sorts), so the ends target the quantiles of the other rows; the
        # counts stay monotone with sensitivity 1
        ordered = np.sort(X, axis=0)
        at_most = np.isnan(X).sum(axis=0) + np.stack(
            [np.searchsorted(ordered[:, j], grid, side="right") for j in range(d)], axis=1)
        at_least = n - np.stack(
            [np.searchsorted(ordered[:, j], grid, side="left") for j in range(d)], axis=1)
        # the lower end first, scanning down from the top; then the upper end, scanning
        # up from the released lower end (post-processing: few empty candidates to pass)
        first = _above_threshold(at_least[::-1], threshold, epsilon_end, randomness.noise)
        lower_index = len(grid) - 1 - first
        upper_index = _above_threshold(at_most, threshold, epsilon_end, randomness.noise,
                                       start=np.minimum(lower_index + 1, len(grid) - 1))
        lower, upper = grid[lower_index], grid[upper_index]
        upper = np.where(upper > lower, upper, lower + 1.0)  # both at the grid's top
        charge(params["accountant"], params["epsilon"], 0.0, type(self).__name__,
               certified=not randomness.seeded, neighbouring="substitution")
        # ---- published from here on
        self.bounds_ = (lower, upper)
        names = getattr(self, "feature_names_in_", None)
        keys = list(names) if names is not None else list(range(d))
        self.bounds_by_column_ = {k: (float(lo), float(hi)) for k, lo, hi in zip(keys, lower, upper)}
        self.privacy_spent_ = PrivacySpent(params["epsilon"], 0.0)
        self.guarantee_ = Guarantee(
            claim=(f"({params['epsilon']:g}, 0)-differential privacy under substitution of "
                   f"one row (n={n} public)"),
            source=_SOURCE,
            certified=not randomness.seeded,
            assumptions_certified=(
                f"{2 * d} AboveThreshold releases of epsilon {epsilon_end:.4g} each, basic "
                "composition",
                "counts of rows below / above a public candidate have sensitivity 1",
                "discrete Laplace noise sampled exactly (integer arithmetic)",
                "the grid is public and chosen before the data is read"),
            assumptions_not_certified=(SEEDED_NOISE_NOTE,) if randomness.seeded else (),
            notes=(f"each end targets the {params['tail']:g} / {1 - params['tail']:g} "
                   "quantile less three noise scales; rows outside the box are clipped by the estimators that use it",),
        )
        # post-processing of the released ends (all published first: the warning may be
        # an error): a box at the grid's end says nothing
        at_end = [k for k, lo, hi in zip(keys, lower, upper) if lo <= grid[0] or hi >= grid[-1]]
        if at_end:
            warnings.warn(
                f"PrivateBounds: the box of column(s) {at_end} reaches an end of the grid "
                f"[{grid[0]:g}, {grid[-1]:g}], so it bounds nothing: such a column is "
                "non-numeric, mostly missing or beyond the grid. Convert it to numbers "
                "(e.g. pandas.to_numeric), drop it, or give a grid that covers it.",
                DefaultsWarning, stacklevel=user_stacklevel())
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # counted by a fixed rule, never refused
        tags.non_deterministic = True
        return tags


def _ceil_3_digits(value):
    """``value`` rounded up to three significant digits (a printed epsilon that is enough)."""
    scale = 10.0 ** (2 - np.floor(np.log10(value)))
    return float(np.ceil(value * scale) / scale)


def _above_threshold(counts, threshold, epsilon, rng, start=None):
    """Per column, the index of the first row of ``counts`` (from ``start``) whose noisy
    value reaches the noisy ``threshold``; the last index when none does (an answer
    that does not depend on the data).

    AboveThreshold with threshold noise of scale ``2 / epsilon`` and query noise of
    scale ``2 / epsilon`` (``epsilon / 2`` for each): the counts of rows below (or
    above) a candidate move all in one direction between neighbours, monotone queries
    for which Lyu, Su and Li (PVLDB 2017, Alg. 7, Sec. 4) halve Dwork and Roth's
    ``4 / epsilon``. The noise is discrete Laplace on integer counts.
    """
    n_candidates, d = counts.shape
    noisy_threshold = threshold + sample_discrete_laplace(2.0 / epsilon, d, rng)
    noise = sample_discrete_laplace(2.0 / epsilon, n_candidates * d, rng).reshape(n_candidates, d)
    reached = counts + noise >= noisy_threshold
    if start is not None:
        reached &= np.arange(n_candidates)[:, None] >= start
    return np.where(reached.any(axis=0), reached.argmax(axis=0), n_candidates - 1)
