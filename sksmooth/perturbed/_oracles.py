"""Exact weighted 0-1 ERM oracles, as scikit-learn classifiers.

The privacy guarantee of perturbed ERM (Block, Shetty, *Small loss bounds
for online learning separated function classes: a Gaussian process
perspective*, arXiv:2502.10292, 2025; Alg. 2, Lemma 2) needs an oracle that
returns an *exact* minimiser of the weighted 0-1 loss over a *fixed finite*
class ``F``:

    f_hat = argmin_{f in F}  sum_i w_i * 1[f(x_i) != y_i],    w_i >= 0.

With labels in {-1, +1} and hypotheses in {-1, +1},
``1[f(x) != y] = (1 - y f(x)) / 2``, so minimising the weighted error is
maximising the weighted correlation ``sum_i w_i y_i f(x_i)``. Every oracle
below computes the correlation of *all* hypotheses of its class at once
(sorting / cumulative sums, a matrix product, or a fast Walsh-Hadamard
transform) and returns the first maximiser in a fixed canonical order, so
that ties are broken data-independently.

Each oracle also exposes what :class:`~sksmooth.perturbed.PerturbedERMClassifier`
needs to *certify* the guarantee: the class size ``|F|`` and the matrix of
the class evaluated on the separating points (to compute the separation
``rho``, Def. 5 of Block and Shetty), and data-independent separating designs.
Fitted oracles store only the selected hypothesis, never statistics of the
training data, so that releasing a fitted oracle releases only ``f_hat``.
"""

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from .._domain import domain_row_indices, grid_threshold
from .._private_data import box_position
from .._validation import BinaryLabels, check_binary_target, check_bounds, check_positive_int
from ..classes._discrete import nearest_cube_points
from ..exceptions import PrivacyLeakWarning

__all__ = [
    "FiniteClassERMClassifier",
    "MulticlassStumpERMClassifier",
    "StumpERMClassifier",
    "ThresholdERMClassifier",
    "ParityERMClassifier",
    "fwht",
    "min_pairwise_distance",
    "spectral_separation",
]

# Largest Gram block formed at once when computing pairwise distances.
_GRAM_CHUNK = 2048


@dataclass(frozen=True)
class PreparedRows:
    """Rows encoded for an oracle's additive statistic.

    ``index``: where each row (or each row and feature) lands in the
    statistic; ``context``: what the selection needs besides the statistic
    (e.g. the stump grid).
    """

    index: np.ndarray
    n_rows: int
    n_features: int
    context: object = None


def fwht(values):
    """Fast Walsh-Hadamard transform (unnormalised), along the last axis.

    Returns ``c`` with ``c[S] = sum_u values[u] * (-1) ** popcount(S & u)``,
    i.e. the correlation of the vector ``values`` (indexed by points ``u`` of
    ``{0, 1}^k`` written in binary) with every parity ``chi_S``.
    ``O(k 2^k)`` operations.

    Parameters
    ----------
    values : array-like of shape (..., 2**k)

    Returns
    -------
    ndarray of shape (..., 2**k), float
    """
    a = np.array(values, dtype=float)
    n = a.shape[-1]
    if n & (n - 1):
        raise ValueError(f"fwht needs a length that is a power of 2, got {n}.")
    lead = a.shape[:-1]
    h = 1
    while h < n:
        a = a.reshape(*lead, -1, 2, h)
        left, right = a[..., 0, :], a[..., 1, :]
        a = np.stack([left + right, left - right], axis=-2)
        h *= 2
    return a.reshape(*lead, n)


def min_pairwise_distance(values):
    """Minimum pairwise empirical L2 distance between the columns of ``values``.

    ``values[i, j] = f_j(z_i)``; the distance is
    ``||f - g||_m = sqrt(mean_i (f(z_i) - g(z_i))**2)`` (Def. 5 of
    Block and Shetty, arXiv:2502.10292, with the empirical measure on the ``z_i``).
    Returns 0.0 if two columns coincide and ``inf`` for fewer than two
    columns. Computed through the Gram matrix in blocks (no loop over pairs).
    """
    values = np.asarray(values, dtype=float)
    m, k = values.shape
    if k < 2:
        return np.inf
    sq = np.einsum("ij,ij->j", values, values)
    best = np.inf
    for start in range(0, k, _GRAM_CHUNK):
        block = values[:, start:start + _GRAM_CHUNK]
        d2 = sq[start:start + _GRAM_CHUNK, None] + sq[None, :] - 2 * (block.T @ values)
        rows = np.arange(block.shape[1])
        d2[rows, start + rows] = np.inf
        best = min(best, float(d2.min()))
    return float(np.sqrt(max(best, 0.0) / m))


def spectral_separation(values):
    """Separation certified by Prop. 1 of Block and Shetty (arXiv:2502.10292).

    ``rho = sigma_min(A) * sqrt(2 / m)`` where ``A[i, j] = f_j(z_i)``.
    A lower bound on :func:`min_pairwise_distance` (0 when the class has
    more functions than points, as ``A`` then has a non-trivial kernel).
    """
    values = np.asarray(values, dtype=float)
    m, k = values.shape
    if k > m:
        return 0.0
    sigma_min = np.linalg.svd(values, compute_uv=False).min()
    return float(sigma_min * np.sqrt(2.0 / m))


class _BaseERMOracle(ClassifierMixin, BaseEstimator):
    """Shared fit / predict logic of the exact 0-1 ERM oracles.

    Subclasses implement the additive statistic (``_erm_prepare``,
    ``_erm_accumulate``, ``_fit_statistic``; or override ``_fit_pm1``) and
    ``_predict_pm1(X)``; the ``_erm_*`` methods give
    :class:`PerturbedERMClassifier` what it needs to certify privacy.
    """

    _exact_erm = True
    # True when the class is defined by the ``bounds`` parameter.
    _erm_uses_bounds = False
    # True when the oracle has its own finite domain (no box needed).
    _erm_own_domain = False

    def fit(self, X, y, sample_weight=None):
        """Select an exact minimiser of the weighted 0-1 loss.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Binary labels (any two values).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights (``None`` = all ones). Negative weights are
            rejected: they do not define a weighted 0-1 ERM problem.

        Returns
        -------
        self
        """
        X, y = validate_data(self, X, y, dtype=float)
        check_binary_target(y)
        self.classes_ = BinaryLabels.fit_classes(y)
        weights = _check_sample_weight(sample_weight, X, dtype=float)
        if np.any(weights < 0):
            raise ValueError(
                f"{type(self).__name__}: sample_weight must be >= 0 (got min "
                f"{weights.min():.3g}); a negative weight does not define a 0-1 "
                "ERM problem. Flip the label and use the absolute weight."
            )
        X = self._check_domain(X)
        y_pm1 = BinaryLabels.encode(y, self.classes_)
        if weights.any():  # zero-weight rows change no loss, nor a data-derived grid
            keep = weights > 0
            X, y_pm1, weights = X[keep], y_pm1[keep], weights[keep]
        self._fit_pm1(X, y_pm1, weights)
        return self

    def _fit_validated(self, X, y_pm1, weights):
        """Fast path for PerturbedERMClassifier: inputs already validated,
        labels in {-1, +1}, weights finite and >= 0."""
        self.n_features_in_ = X.shape[1]
        self.classes_ = np.array([-1, 1])
        self._fit_pm1(self._check_domain(X), np.asarray(y_pm1, dtype=float), weights)
        return self

    # -- additive sufficient statistic --------------------------------------
    # The weighted 0-1 loss of every hypothesis is linear in the weights, so
    # it depends on the rows only through an additive statistic (signed
    # weights per grid cell, per cube point, per domain point): the ERM on a
    # union of row sets is the ERM of the sum of their statistics. Online
    # FTPL keeps the statistic of the past rows instead of the rows
    # (O(1) per round instead of O(t)).
    def _fit_pm1(self, X, y_pm1, weights):
        prepared = self._erm_prepare(X)
        self._fit_statistic(self._erm_accumulate(prepared, y_pm1, weights), prepared)

    def _erm_prepare(self, X, context=None):
        """Rows encoded for :meth:`_erm_accumulate` (a :class:`PreparedRows`);
        ``context``: that of rows prepared before by this oracle (reused)."""
        raise NotImplementedError

    def _erm_accumulate(self, prepared, y, weights, n_classes=2):
        """The additive statistic of weighted rows (labels +-1, or codes)."""
        raise NotImplementedError

    def _fit_statistic(self, statistic, prepared):
        """Select the hypothesis from a statistic (sets the fitted attributes)."""
        raise NotImplementedError

    def _erm_incremental(self):
        """Whether fitting is exactly :meth:`_fit_statistic` of the additive
        statistic (a subclass overriding ``_fit_pm1`` fits its own way)."""
        return type(self)._fit_pm1 is _BaseERMOracle._fit_pm1

    def _fit_from_statistic(self, statistic, prepared, n_classes=2):
        """PerturbedERMClassifier's online fast path (statistic of validated rows)."""
        self.n_features_in_ = prepared.n_features
        self.classes_ = np.array([-1, 1])
        self._fit_statistic(statistic, prepared)
        return self

    def _erm_predict_validated(self, X):
        """Predictions in the oracle's coding (+-1) of validated rows."""
        return self._predict_pm1(self._check_domain(X))

    def predict(self, X):
        """Predict labels with the selected hypothesis."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=float, reset=False)
        X = self._check_domain(X)
        return BinaryLabels.decode(self._predict_pm1(X), self.classes_)

    def _check_domain(self, X):
        return X

    def decision_function(self, X):
        """The selected hypothesis in {-1, +1} coding (+1 = ``classes_[1]``)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=float, reset=False)
        return self._predict_pm1(self._check_domain(X))

    def predict_proba(self, X):
        """0/1 scores of the selected hypothesis (a hard, uncalibrated score)."""
        h = self.decision_function(X)
        return np.column_stack([(1 - h) / 2, (1 + h) / 2])

    # -- hooks used by PerturbedERMClassifier ------------------------------
    def _erm_sanitize(self, X):
        """Map rows into the oracle's own domain by a fixed public rule (no box)."""
        return X

    def _erm_class_size(self, n_features):
        """Number of distinct hypotheses (``None`` if infinite)."""
        raise NotImplementedError

    def _erm_evaluate_class(self, Z):
        """Matrix ``(m, |F|)`` of the whole class on ``Z``, values in {-1, +1}."""
        raise NotImplementedError

    def _erm_separation(self, Z):
        """Minimum pairwise empirical L2 distance of the class on ``Z``."""
        return min_pairwise_distance(self._erm_evaluate_class(Z))

    def _erm_sample_domain(self, n_points, rng, lower, upper):
        """``n_points`` i.i.d. uniform points of the domain (the box by default)."""
        return rng.uniform(lower, upper, size=(n_points, len(lower)))

    def _erm_design(self, n_points, rng, lower, upper):
        """A data-independent separating design (default: uniform sample)."""
        return self._erm_sample_domain(n_points, rng, lower, upper)

    def _erm_default_n_points(self, n_features):
        return 1000

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class StumpERMClassifier(_BaseERMOracle):
    """Exact weighted 0-1 ERM over decision stumps on a grid of thresholds.

    The class ``F`` holds the two constant hypotheses and, for every feature
    ``j`` of non-zero width and grid index ``a = 1..n_thresholds``, the
    stumps ``s * (+1 if cell_j(x) >= a else -1)``, ``s in {-1, +1}``, where
    ``cell_j(x) = floor((x_j - lower_j) / step_j)`` clipped to
    ``[0, n_thresholds]`` and ``step_j = (upper_j - lower_j) /
    (n_thresholds + 1)``: thresholds at ``lower_j + a * step_j``. So
    ``|F| = 2 * n_features * n_thresholds + 2`` and ``F`` depends only on
    ``bounds``. ERM costs ``O(n d + d n_thresholds)`` per call (one
    ``bincount`` of signed weights per feature and cell, then cumulative
    sums).

    Parameters
    ----------
    n_thresholds : int, default=16
        Number of interior grid thresholds per feature.
    bounds : tuple (lower, upper) or None, default=None
        Public box defining the grid. ``None`` takes it from the training
        data (fine for non-private use; :class:`PerturbedERMClassifier`
        replaces it by its own public ``bounds``).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    feature_ : int
        Feature of the selected stump (-1 for a constant hypothesis).
    threshold_ : float
        Threshold of the selected stump (``-inf`` for a constant).
    sign_ : {-1, +1}
        Prediction (in {-1, +1} coding) above the threshold.
    bounds_ : tuple of ndarray
        The box that defines the grid.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.perturbed import StumpERMClassifier
    >>> X = np.array([[0.1], [0.2], [0.8], [0.9]]); y = [0, 0, 1, 1]
    >>> StumpERMClassifier(n_thresholds=3, bounds=(0, 1)).fit(X, y).predict(X)
    array([0, 0, 1, 1])
    """

    _erm_uses_bounds = True

    def __init__(self, n_thresholds=16, bounds=None):
        self.n_thresholds = n_thresholds
        self.bounds = bounds

    def _grid(self, n_features, X=None):
        n_thresholds = check_positive_int(self.n_thresholds, "n_thresholds")
        lower, upper = check_bounds(self.bounds, n_features, X, name="bounds")
        return n_thresholds, lower, upper

    def _cells(self, X, n_thresholds, lower, upper):
        # box_position: no overflow (a NaN cell cast to int64 was negative) for any
        # finite bounds
        cells = np.floor(box_position(X, lower, upper) * (n_thresholds + 1))
        cells = np.clip(cells, 0, n_thresholds).astype(np.int64)
        cells[:, ~(upper > lower)] = 0
        return cells

    def _active(self, lower, upper):
        return upper > lower

    def _erm_prepare(self, X, context=None):
        grid = context
        if grid is None:
            with warnings.catch_warnings():
                # Standalone (non-private) use may take the grid from the data.
                warnings.simplefilter("ignore", PrivacyLeakWarning)
                grid = self._grid(X.shape[1], X)
        n_thresholds, lower, upper = grid
        n, d = X.shape
        offsets = self._cells(X, n_thresholds, lower, upper) + (n_thresholds + 1) * np.arange(d)
        return PreparedRows(offsets.ravel(), n, d, grid)

    def _erm_accumulate(self, prepared, y, weights, n_classes=2):
        """Signed weight per feature and grid cell, shape ``(d, n_thresholds + 1)``."""
        n_thresholds = prepared.context[0]
        d = prepared.n_features
        return np.bincount(prepared.index, weights=np.repeat(weights * y, d),
                           minlength=d * (n_thresholds + 1)).reshape(d, n_thresholds + 1)

    def _fit_statistic(self, per_cell, prepared):
        n_thresholds, lower, upper = prepared.context
        # predict uses the grid of fit, not the (settable) parameters
        self.bounds_, self._n_thresholds = (lower, upper), n_thresholds
        d = per_cell.shape[0]
        total = per_cell[0].sum()
        # correlation of s=+1 stump (j, a) = total - 2 * sum_{c < a} per_cell[j, c]
        below = np.cumsum(per_cell, axis=1)[:, :n_thresholds]
        corr = total - 2.0 * below
        corr[~self._active(lower, upper)] = -np.inf
        # canonical order: const +1, const -1, (+1 stumps), (-1 stumps)
        minus = -corr
        minus[~self._active(lower, upper)] = -np.inf
        scores = np.concatenate([[total, -total], corr.ravel(), minus.ravel()])
        best = int(np.argmax(scores))
        self._set_hypothesis(best, d, n_thresholds, lower, upper)

    def _set_hypothesis(self, best, d, n_thresholds, lower, upper):
        if best < 2:
            self.feature_, self._cell_index, self.threshold_ = -1, 0, -np.inf
            self.sign_ = 1 if best == 0 else -1
            return
        best -= 2
        self.sign_ = 1 if best < d * n_thresholds else -1
        feature, a = divmod(best % (d * n_thresholds), n_thresholds)
        self.feature_, self._cell_index = int(feature), int(a + 1)
        self.threshold_ = float(grid_threshold(lower[feature], upper[feature], a + 1,
                                               n_thresholds + 1))

    def _predict_pm1(self, X):
        if self.feature_ < 0:
            return np.full(X.shape[0], float(self.sign_))
        lower, upper = self.bounds_
        cells = self._cells(X, self._n_thresholds, lower, upper)[:, self.feature_]
        return np.where(cells >= self._cell_index, 1.0, -1.0) * self.sign_

    def _erm_class_size(self, n_features):
        return 2 * n_features * check_positive_int(self.n_thresholds, "n_thresholds") + 2

    def _erm_evaluate_class(self, Z):
        Z = np.asarray(Z, dtype=float)
        n_thresholds, lower, upper = self._grid(Z.shape[1])
        cells = self._cells(Z, n_thresholds, lower, upper)
        active = self._active(lower, upper)
        above = cells[:, active, None] >= np.arange(1, n_thresholds + 1)
        plus = np.where(above.reshape(len(Z), -1), 1, -1).astype(np.int8)
        const = np.ones((len(Z), 1), dtype=np.int8)
        return np.hstack([const, -const, plus, -plus])

    def _joint_counts(self, Z):
        """``|A_{j,a} n A_{j',a'}|`` and ``|A_{j,a}|`` for the active features, with
        ``A_{j,a} = {i : cell_j(z_i) >= a}`` (joint histograms, suffix sums)."""
        Z = np.asarray(Z, dtype=float)
        n_thresholds, lower, upper = self._grid(Z.shape[1])
        cells = self._cells(Z, n_thresholds, lower, upper)[:, self._active(lower, upper)]
        d, n_cells = cells.shape[1], n_thresholds + 1
        if d == 0:
            return None, None
        pair = (np.arange(d)[:, None] * d + np.arange(d)[None, :]) * n_cells**2
        codes = pair[None] + cells[:, :, None] * n_cells + cells[:, None, :]
        joint = np.bincount(codes.ravel(), minlength=d * d * n_cells**2).reshape(
            d, d, n_cells, n_cells)
        inter = joint[:, :, ::-1, ::-1].cumsum(2).cumsum(3)[:, :, ::-1, ::-1]
        inter = inter[:, :, 1:, 1:].astype(float)  # a, a' = 1..n_thresholds
        return inter, np.einsum("jjaa->ja", inter)

    def _erm_separation(self, Z):
        """Exact minimum distance from joint cell histograms (no Gram matrix).

        Two {-1,+1} functions at empirical distance ``rho`` disagree on
        ``m rho^2 / 4`` points. Same-sign stumps disagree on
        ``|A| + |B| - 2 |A n B|`` points and opposite-sign ones on ``m``
        minus that. ``O(m d^2 + d^2 n_thresholds^2)``.
        """
        m = len(Z)
        inter, sizes = self._joint_counts(Z)
        if inter is None:
            return 2.0  # only the two constants: disagree everywhere
        d, n_thresholds = sizes.shape
        same = sizes[:, None, :, None] + sizes[None, :, None, :] - 2 * inter
        diag = np.arange(d)[:, None], np.arange(d)[:, None], np.arange(n_thresholds), \
            np.arange(n_thresholds)
        opposite = m - same
        same[diag] = np.inf  # f vs itself
        opposite[diag] = m
        with_const = np.minimum(sizes, m - sizes)
        disagree = min(same.min(), opposite.min(), with_const.min(), m)
        return float(2.0 * np.sqrt(max(disagree, 0) / m))

    def _erm_design(self, n_points, rng, lower, upper):
        """Randomised Latin design on the grid cells.

        ``r = max(1, n_points // (n_thresholds + 1))`` blocks; in each block
        every feature visits every grid cell exactly once (cell midpoints, an
        independent random permutation per feature and block). Two stumps on
        adjacent thresholds of one feature then differ on exactly one point
        per block: the separation is ``2 / sqrt(n_thresholds + 1)``, the best
        possible for this class, unless two stumps of different features
        happen to agree on all but few points (``rho`` is computed anyway).
        """
        n_thresholds = check_positive_int(self.n_thresholds, "n_thresholds")
        n_cells = n_thresholds + 1
        n_blocks = max(1, n_points // n_cells)
        d = len(lower)
        keys = rng.random((n_blocks, n_cells, d))
        cells = np.argsort(keys, axis=1).reshape(n_blocks * n_cells, d)
        return grid_threshold(lower, upper, cells + 0.5, n_cells)

    def _erm_default_n_points(self, n_features):
        return 64 * (check_positive_int(self.n_thresholds, "n_thresholds") + 1)


class ThresholdERMClassifier(StumpERMClassifier):
    """Exact weighted 0-1 ERM over 1-D thresholds.

    ``n_thresholds=None`` (default): exact ERM over *all* thresholds
    ``x -> s * sign(x - t)`` on the real line, by sorting the data and one
    cumulative sum (``O(n log n)``). The class is then infinite and
    ``threshold_`` is halfway between two rows' values, so
    :class:`PerturbedERMClassifier`'s private ``fit`` refuses it (its online
    ``partial_fit`` takes it). An integer ``n_thresholds`` restricts to a
    grid on ``bounds`` (the 1-D case of :class:`StumpERMClassifier`), which
    certifies.

    Parameters
    ----------
    n_thresholds : int or None, default=None
    bounds : tuple (lower, upper) or None, default=None

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    threshold_ : float
        Predict ``sign_`` (in {-1, +1} coding) for ``x >= threshold_``.
    sign_ : {-1, +1}
    n_features_in_ : int
        Always 1.

    Examples
    --------
    >>> from sksmooth.perturbed import ThresholdERMClassifier
    >>> ThresholdERMClassifier().fit([[0.], [1.], [2.]], [0, 1, 1]).threshold_
    0.5
    """

    def __init__(self, n_thresholds=None, bounds=None):
        super().__init__(n_thresholds=n_thresholds, bounds=bounds)

    def _check_domain(self, X):
        if X.shape[1] != 1:
            raise ValueError(
                f"{type(self).__name__} learns 1-D thresholds: X must have one "
                f"feature, got {X.shape[1]}. Use StumpERMClassifier."
            )
        return X

    @property
    def _over_the_whole_line(self):
        """The exact path: every threshold of the real line (an infinite class),
        instead of the grid on ``bounds``."""
        return self.n_thresholds is None

    @property
    def _erm_uses_bounds(self):
        return not self._over_the_whole_line

    @property
    def _erm_output_is_private_values(self):
        """The exact path's threshold is the midpoint of two rows' values: no private
        fit may release it (:func:`~sksmooth.perturbed._setup.make_oracle` refuses)."""
        return self._over_the_whole_line

    def _erm_incremental(self):
        # the exact path (n_thresholds=None) sorts the rows: no finite statistic
        return (not self._over_the_whole_line
                and type(self)._fit_pm1 is ThresholdERMClassifier._fit_pm1)

    def _fit_pm1(self, X, y_pm1, weights):
        if not self._over_the_whole_line:
            return super()._fit_pm1(X, y_pm1, weights)
        self._n_thresholds = None  # the exact path (read by predict)
        x = X[:, 0]
        order = np.argsort(x, kind="stable")
        xs, signed = x[order], (weights * y_pm1)[order]
        total = signed.sum()
        # cut after position i (between distinct values) or before everything
        last = np.flatnonzero(np.r_[xs[1:] != xs[:-1], True])
        below = np.r_[0.0, np.cumsum(signed)[last]]
        corr = total - 2.0 * below  # s = +1, threshold just above cut
        scores = np.concatenate([corr, -corr])
        best = int(np.argmax(scores))
        self.sign_ = 1 if best < len(corr) else -1
        cut = best % len(corr)
        if cut == 0:
            self.threshold_ = -np.inf
        elif cut == len(corr) - 1:
            self.threshold_ = np.inf
        else:
            self.threshold_ = float((xs[last[cut - 1]] + xs[last[cut - 1] + 1]) / 2)
        self.feature_ = 0

    def _predict_pm1(self, X):
        if self._n_thresholds is not None:
            return super()._predict_pm1(X)
        return np.where(X[:, 0] >= self.threshold_, 1.0, -1.0) * self.sign_

    def _erm_class_size(self, n_features):
        if self._over_the_whole_line:
            return None
        return super()._erm_class_size(n_features)

    def _erm_default_n_points(self, n_features):
        if self._over_the_whole_line:
            return 16
        return super()._erm_default_n_points(n_features)

    def _erm_evaluate_class(self, Z):
        if self._over_the_whole_line:
            raise ValueError("ThresholdERMClassifier(n_thresholds=None) is an infinite class.")
        return super()._erm_evaluate_class(Z)


class ParityERMClassifier(_BaseERMOracle):
    """Exact weighted 0-1 ERM over parities (Fourier characters) on {0,1}^k.

    Hypothesis ``S`` (a subset of ``{0..k-1}``) predicts the parity bit
    ``sum_{j in S} x_j mod 2``: in +-1 coding (``classes_[1]`` = +1) it is
    ``h_S = -chi_S`` with the character ``chi_S(x) = (-1) ** (sum_{j in S}
    x_j)``; ``2^k`` hypotheses (with ``include_negations=True`` also
    ``chi_S``). One call aggregates the signed weights ``w_i y_i`` per cube
    point (``bincount``), takes their fast Walsh-Hadamard transform, whose
    entry ``S`` is the weighted correlation of ``chi_S`` (so ``-`` that of
    ``h_S``), and returns the argmax: ``O(n + k 2^k)``. Parities are orthonormal under the uniform
    measure, so they are ``rho = sqrt(2)``-separated (Block and Shetty,
    arXiv:2502.10292, Prop. 3 and App. D.1; also with negations).

    Parameters
    ----------
    include_negations : bool, default=False

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    subset_ : int
        Bit mask of ``S`` (bit ``j`` is feature ``j``).
    sign_ : {-1, +1}
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.perturbed import ParityERMClassifier
    >>> X = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)])
    >>> y = (X[:, 0] + X[:, 2]) % 2
    >>> ParityERMClassifier().fit(X, y).subset_
    5
    """

    _max_bits = 24
    _erm_own_domain = True

    def __init__(self, include_negations=False):
        self.include_negations = include_negations

    def _check_domain(self, X):
        k = X.shape[1]
        if k > self._max_bits:
            raise ValueError(f"ParityERMClassifier supports up to {self._max_bits} bits, got {k}.")
        if not np.all((X == 0) | (X == 1)):
            raise ValueError("ParityERMClassifier needs X in {0, 1}^k (binary features).")
        return X

    def _erm_sanitize(self, X):
        """Every row becomes its nearest cube point (NaN -> 0)."""
        return nearest_cube_points(X)

    @staticmethod
    def _index(X):
        # exact in float64 for k <= 24 bits
        return (np.asarray(X, dtype=float) @ (2.0 ** np.arange(X.shape[1]))).astype(np.int64)

    def _erm_prepare(self, X, context=None):
        return PreparedRows(self._index(X), X.shape[0], X.shape[1])

    def _erm_accumulate(self, prepared, y, weights, n_classes=2):
        """Signed weight per cube point, shape ``(2^k,)``."""
        return np.bincount(prepared.index, weights=weights * y,
                           minlength=2**prepared.n_features)

    def _fit_statistic(self, agg, prepared):
        corr = -fwht(agg)  # correlation of h_S = -chi_S
        k = prepared.n_features
        scores = np.concatenate([corr, -corr]) if self.include_negations else corr
        best = int(np.argmax(scores))
        self.subset_ = best % (2**k)
        self.sign_ = 1 if best < 2**k else -1

    def _predict_pm1(self, X):
        parity = np.bitwise_count(self._index(X) & self.subset_) % 2
        return (2.0 * parity - 1.0) * self.sign_

    def _erm_class_size(self, n_features):
        return 2 ** (n_features + int(bool(self.include_negations)))

    def _erm_evaluate_class(self, Z):
        Z = self._check_domain(np.asarray(Z, dtype=float))
        idx = self._index(Z)
        subsets = np.arange(2 ** Z.shape[1], dtype=np.int64)
        values = (2 * (np.bitwise_count(idx[:, None] & subsets) % 2) - 1).astype(np.int8)
        return np.hstack([values, -values]) if self.include_negations else values

    def _erm_separation(self, Z):
        """Exact minimum distance via one FWHT of the histogram of ``Z``.

        ``||chi_S - chi_T||_m^2 = 2 - 2 mean_i chi_{S xor T}(z_i)`` and
        ``||chi_S + chi_T||_m^2 = 2 + 2 mean_i chi_{S xor T}(z_i)``.
        """
        Z = self._check_domain(np.asarray(Z, dtype=float))
        k = Z.shape[1]
        mean_char = fwht(np.bincount(self._index(Z), minlength=2**k)) / len(Z)
        d2 = 2.0 - 2.0 * mean_char[1:].max() if k > 0 else np.inf
        if self.include_negations:
            d2 = min(d2, 2.0 + 2.0 * mean_char.min())
        return float(np.sqrt(max(d2, 0.0)))

    def _erm_sample_domain(self, n_points, rng, lower, upper):
        return rng.integers(0, 2, size=(n_points, len(lower))).astype(float)

    def _erm_design(self, n_points, rng, lower, upper):
        """The whole cube, repeated ``max(1, n_points // 2^k)`` times (exactly uniform)."""
        k = len(lower)
        cube = ((np.arange(2**k)[:, None] >> np.arange(k)) & 1).astype(float)
        return np.tile(cube, (max(1, n_points // 2**k), 1))

    def _erm_default_n_points(self, n_features):
        return 2**n_features


class FiniteClassERMClassifier(_BaseERMOracle):
    """Exact weighted 0-1 ERM over a finite class.

    Parameters
    ----------
    concepts : array-like of shape (n_domain, n_concepts) or object
        Either the class as a matrix over a finite domain,
        ``concepts[u, j] = f_j(domain point u)`` with values in {-1, +1}
        (booleans: True -> +1), or a finite concept object with an
        ``evaluate(X) -> bool ndarray (n_points, n_concepts)`` method (a cover
        or workload from :mod:`sksmooth.classes`; True -> +1).
    domain : array-like of shape (n_domain, n_features) or None, default=None
        Matrix mode only: the domain points. ``None`` means ``X`` is a single
        column of integer domain indices in ``[0, n_domain)``. Points of ``X``
        outside the domain are rejected.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    concept_ : int
        Index (column) of the selected hypothesis.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.perturbed import FiniteClassERMClassifier
    >>> F = np.array([[1, -1], [1, 1], [-1, 1]])  # 3 domain points, 2 concepts
    >>> FiniteClassERMClassifier(F).fit([[0], [2]], [-1, 1]).concept_
    1
    """

    def __init__(self, concepts, domain=None):
        self.concepts = concepts
        self.domain = domain

    def _view(self):
        """The class as a strategy: a matrix over a finite domain, or a concept object."""
        if hasattr(self.concepts, "evaluate"):
            return _ConceptObjectView(self.concepts)
        return _MatrixView(self.concepts, self.domain)

    @property
    def _erm_own_domain(self):
        return self._view().own_domain

    def _erm_sanitize(self, X):
        """Rows outside the finite domain map to its first point (index 0)."""
        return self._view().sanitize(X)

    def _evaluate(self, X):
        return self._view().evaluate(X)

    def _erm_prepare(self, X, context=None):
        return PreparedRows(self._view().prepare(X), X.shape[0], X.shape[1])

    def _erm_incremental(self):
        # a concept object's prepared rows are the evaluated (n, |F|) matrix,
        # too big to keep for the m separating points: refit on rows instead
        return isinstance(self._view(), _MatrixView) and super()._erm_incremental()

    def _erm_accumulate(self, prepared, y, weights, n_classes=2):
        return self._view().statistic(prepared.index, weights * y)

    def _fit_statistic(self, statistic, prepared):
        view = self._view()
        best = int(np.argmax(view.scores(statistic)))
        self.concept_ = view.canonical(best) if hasattr(view, "canonical") else best

    def _predict_pm1(self, X):
        return self._view().evaluate(X)[:, self.concept_].astype(float)

    def _erm_class_size(self, n_features):
        return self._view().class_size(n_features)

    def _erm_evaluate_class(self, Z):
        return self._view().evaluate_class(np.asarray(Z, dtype=float))

    def _erm_sample_domain(self, n_points, rng, lower, upper):
        points = self._view().sample_domain(n_points, rng)
        if points is None:
            return super()._erm_sample_domain(n_points, rng, lower, upper)
        return points

    def _erm_design(self, n_points, rng, lower, upper):
        """The whole domain (repeated ``max(1, n_points // n_domain)`` times)."""
        points = self._view().design(n_points)
        if points is None:
            return super()._erm_design(n_points, rng, lower, upper)
        return points

    def _erm_default_n_points(self, n_features):
        return self._view().default_n_points


class _ConceptObjectView:
    """A finite concept object with ``evaluate(X) -> bool (n_points, n_concepts)``."""

    own_domain = False
    default_n_points = 1000

    def __init__(self, concepts):
        self.concepts = concepts

    def sanitize(self, X):
        return X

    def evaluate(self, X):
        return np.where(np.asarray(self.concepts.evaluate(X), dtype=bool), 1, -1).astype(np.int8)

    def prepare(self, X):
        return self.evaluate(X).astype(float)

    def statistic(self, values, signed):
        """Weighted correlation of every concept (additive over rows)."""
        return signed @ values

    def scores(self, statistic):
        return statistic

    def class_size(self, n_features):
        return int(getattr(self.concepts, "n_concepts", None) or
                   self.concepts.evaluate(np.zeros((1, n_features))).shape[1])

    def evaluate_class(self, Z):
        return self.evaluate(Z)

    def sample_domain(self, n_points, rng):
        return None  # the oracle's uniform points on the bounds

    def design(self, n_points):
        return None


class _MatrixView:
    """The class as a {-1, +1} matrix over a finite domain (rows: domain points)."""

    own_domain = True

    def __init__(self, concepts, domain):
        self.matrix = self._check_matrix(concepts)
        self.domain = domain
        self.n_domain = self.matrix.shape[0]
        self.default_n_points = self.n_domain

    @staticmethod
    def _check_matrix(concepts):
        M = np.asarray(concepts)
        if M.ndim != 2 or M.size == 0:
            raise ValueError(
                "concepts must be a non-empty (n_domain, n_concepts) matrix or an "
                f"object with evaluate(X); got shape {M.shape}."
            )
        if M.dtype == bool:
            return np.where(M, 1, -1).astype(np.int8)
        if not np.all((M == 1) | (M == -1)):
            raise ValueError("concepts must have values in {-1, +1} (or be boolean).")
        return M.astype(np.int8)

    def _points(self):
        if self.domain is None:
            return np.arange(self.n_domain)[:, None].astype(float)
        return np.asarray(self.domain, dtype=float)

    def domain_index(self, X):
        if self.domain is None:
            if X.shape[1] != 1 or not np.all(X == np.round(X)):
                raise ValueError(
                    "With domain=None, X must be one column of integer domain indices."
                )
            idx = X[:, 0].astype(np.int64)
            if idx.size and (idx.min() < 0 or idx.max() >= self.n_domain):
                raise ValueError(f"domain indices must lie in [0, {self.n_domain}).")
            return idx
        domain = np.asarray(self.domain, dtype=float)
        if domain.ndim != 2 or domain.shape[0] != self.n_domain or domain.shape[1] != X.shape[1]:
            raise ValueError(
                f"domain must have shape (n_domain={self.n_domain}, n_features={X.shape[1]}), "
                f"got {domain.shape}."
            )
        idx = domain_row_indices(domain, X)
        if np.any(idx < 0):
            # no count or value in the message: X may be private
            raise ValueError("some rows of X are not points of `domain`.")
        return idx

    def sanitize(self, X):
        if self.domain is None:
            col = np.round(np.clip(np.nan_to_num(X[:, :1], nan=0.0), 0, self.n_domain - 1))
            return col if X.shape[1] == 1 else np.hstack([col, X[:, 1:]])
        domain = np.asarray(self.domain, dtype=float)
        if domain.ndim != 2 or domain.shape[1] != X.shape[1]:
            return X  # structural mismatch: the oracle raises its (public) error
        idx = domain_row_indices(domain, np.nan_to_num(X, nan=np.inf))
        return np.where((idx >= 0)[:, None], X, domain[0])

    def evaluate(self, X):
        return self.matrix[self.domain_index(X)]

    def prepare(self, X):
        return self.domain_index(X)

    def statistic(self, index, signed):
        """Signed weight per domain point (additive over rows)."""
        return np.bincount(index, weights=signed, minlength=self.n_domain)

    def scores(self, statistic):
        return statistic @ self.matrix.astype(float)

    def canonical(self, index):
        """The first column equal to column ``index``: identical columns are one
        function, and which of them BLAS rounding favours depends on their places."""
        return int(np.argmax(np.all(self.matrix == self.matrix[:, [index]], axis=0)))

    def class_size(self, n_features):
        return int(np.unique(self.matrix, axis=1).shape[1])

    def evaluate_class(self, Z):
        # identical columns are one function (over the whole domain)
        _, keep = np.unique(self.matrix, axis=1, return_index=True)
        return self.evaluate(Z)[:, np.sort(keep)]

    def sample_domain(self, n_points, rng):
        return self._points()[rng.integers(0, self.n_domain, size=n_points)]

    def design(self, n_points):
        return np.tile(self._points(), (max(1, n_points // self.n_domain), 1))


def _is_exact_oracle(estimator):
    return isinstance(estimator, _BaseERMOracle)



class MulticlassStumpERMClassifier(StumpERMClassifier):
    """Exact weighted multiclass 0-1 ERM over stumps with a label per leaf.

    The class holds the ``k`` constants and, for every feature ``j`` of
    non-zero width, grid index ``a = 1..n_thresholds`` and ordered pair of
    *distinct* labels ``(c_below, c_above)``, the stump predicting
    ``c_above`` when ``cell_j(x) >= a`` and ``c_below`` otherwise (same grid
    as :class:`StumpERMClassifier`); ``|F| = k + d n_thresholds k (k - 1)``.
    ERM: one per-feature, per-cell, per-class weight histogram, cumulative
    sums, and for each split the best label on each side:
    ``O(n d + d n_thresholds k)``. Ties go to the first maximiser in a fixed
    order (constants first), independently of the data.

    Parameters
    ----------
    n_thresholds : int, default=16
    bounds : tuple (lower, upper) or None, default=None

    Attributes
    ----------
    classes_ : ndarray of shape (k,)
    feature_ : int
        -1 for a constant.
    threshold_ : float
    labels_ : tuple (index below, index above) into ``classes_``
    """

    def fit(self, X, y, sample_weight=None):
        """Select an exact minimiser of the weighted multiclass 0-1 loss."""
        X, y = validate_data(self, X, y, dtype=float)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        weights = _check_sample_weight(sample_weight, X, dtype=float)
        if np.any(weights < 0):
            raise ValueError("MulticlassStumpERMClassifier: sample_weight must be >= 0.")
        self._n_classes = len(self.classes_)
        self._fit_codes(X, codes, weights)
        return self

    def _fit_validated(self, X, codes, weights, n_classes=None):
        """PerturbedERMClassifier's fast path: labels are indices ``0..k-1``."""
        self.n_features_in_ = X.shape[1]
        self._n_classes = int(n_classes or (codes.max() + 1))
        self.classes_ = np.arange(self._n_classes)
        self._fit_codes(X, np.asarray(codes, dtype=np.int64), weights)
        return self

    def _fit_codes(self, X, codes, weights):
        prepared = self._erm_prepare(X)
        self._fit_statistic(self._erm_accumulate(prepared, codes, weights, self._n_classes),
                            prepared)

    def _erm_incremental(self):
        return type(self)._fit_codes is MulticlassStumpERMClassifier._fit_codes

    def _erm_accumulate(self, prepared, codes, weights, n_classes=2):
        """Weight per feature, grid cell and class, shape ``(d, n_thresholds + 1, k)``."""
        n_cells, d, k = prepared.context[0] + 1, prepared.n_features, int(n_classes)
        offsets = (prepared.index.reshape(-1, d) * k
                   + np.asarray(codes, dtype=np.int64)[:, None]).ravel()
        return np.bincount(offsets, weights=np.repeat(weights, d),
                           minlength=d * n_cells * k).reshape(d, n_cells, k)

    def _fit_from_statistic(self, statistic, prepared, n_classes=2):
        self.n_features_in_ = prepared.n_features
        self._n_classes = int(n_classes)
        self.classes_ = np.arange(self._n_classes)
        self._fit_statistic(statistic, prepared)
        return self

    def _erm_predict_validated(self, X):
        return self._predict_codes(X)

    def _fit_statistic(self, hist, prepared):
        n_thresholds, lower, upper = prepared.context
        self.bounds_, self._n_thresholds = (lower, upper), n_thresholds
        d, k = hist.shape[0], hist.shape[2]
        total = hist[0].sum(axis=0)
        below = np.cumsum(hist, axis=1)[:, :n_thresholds]  # (d, n_thresholds, k)
        above = total - below
        # correct weight of (c_below, c_above): below[c_below] + above[c_above], c_below != c_above
        pair = below[..., :, None] + above[..., None, :]
        pair[..., np.arange(k), np.arange(k)] = -np.inf
        pair[~self._active(lower, upper)] = -np.inf
        scores = np.concatenate([total, pair.ravel()])
        self._set_multiclass(int(np.argmax(scores)), d, n_thresholds, k, lower, upper)

    def _set_multiclass(self, best, d, n_thresholds, k, lower, upper):
        if best < k:
            self.feature_, self._cell_index, self.threshold_ = -1, 0, -np.inf
            self.labels_ = (best, best)
            return
        feature, a, c_below, c_above = np.unravel_index(best - k, (d, n_thresholds, k, k))
        self.feature_, self._cell_index = int(feature), int(a + 1)
        self.threshold_ = float(grid_threshold(lower[feature], upper[feature], a + 1,
                                               n_thresholds + 1))
        self.labels_ = (int(c_below), int(c_above))

    def _predict_codes(self, X):
        if self.feature_ < 0:
            return np.full(X.shape[0], self.labels_[0])
        lower, upper = self.bounds_
        cells = self._cells(X, self._n_thresholds, lower, upper)[:, self.feature_]
        return np.where(cells >= self._cell_index, self.labels_[1], self.labels_[0])

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=float, reset=False)
        return self.classes_[self._predict_codes(X)]

    def decision_function(self, X):
        """One-hot scores of the selected hypothesis (hard, uncalibrated); for two
        classes the scikit-learn convention, +1 for ``classes_[1]``, else -1."""
        scores = self.predict_proba(X)
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    def predict_proba(self, X):
        """0/1 scores of the selected hypothesis (hard, uncalibrated)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=float, reset=False)
        return np.eye(len(self.classes_))[self._predict_codes(X)]

    def _erm_class_size(self, n_features, n_classes=2):
        n_thresholds = check_positive_int(self.n_thresholds, "n_thresholds")
        return n_classes + n_features * n_thresholds * n_classes * (n_classes - 1)

    def _erm_separation(self, Z, n_classes=2):
        """Exact separation in the metric of the one-hot process,
        ``rho = sqrt(2 D / m)`` with ``D`` the fewest of the ``m`` points on
        which two distinct hypotheses disagree.

        Two split stumps ``(A, c1, c2)`` and ``(B, c3, c4)`` (``A``, ``B``
        the "above" sets) disagree on ``BB [c1!=c3] + BA [c1!=c4] +
        AB [c2!=c3] + AA [c2!=c4]`` points, the four region sizes coming
        from the joint histograms; the minimum runs over every achievable
        mismatch pattern of the labels. A stump and a constant disagree on at
        least the smaller side; two constants everywhere.
        """
        m, k = len(Z), int(n_classes)
        inter, sizes = self._joint_counts(Z)
        if inter is None:
            return float(np.sqrt(2.0))
        d, n_thresholds = sizes.shape
        size_a, size_b = sizes[:, None, :, None], sizes[None, :, None, :]
        regions = np.stack([m - size_a - size_b + inter, size_b - inter,
                            size_a - inter, inter])  # BB, BA, AB, AA
        labels = np.array([(c1, c2, c3, c4) for c1 in range(k) for c2 in range(k)
                           for c3 in range(k) for c4 in range(k) if c1 != c2 and c3 != c4])
        patterns = np.unique(np.stack([labels[:, 0] != labels[:, 2], labels[:, 0] != labels[:, 3],
                                       labels[:, 1] != labels[:, 2], labels[:, 1] != labels[:, 3]],
                                      axis=1), axis=0).astype(float)
        diag = (np.arange(d)[:, None], np.arange(d)[:, None], np.arange(n_thresholds),
                np.arange(n_thresholds))
        best = float(m)
        for pattern in patterns:  # at most 16 mismatch patterns
            disagree = np.tensordot(pattern, regions, axes=1)
            if pattern[0] == 0 and pattern[3] == 0:
                disagree[diag] = np.inf  # same split, same labels: the same hypothesis
            best = min(best, float(disagree.min()))
        best = min(best, float(np.minimum(sizes, m - sizes).min()))
        return float(np.sqrt(2.0 * max(best, 0.0) / m))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags
