"""Exact weighted 0-1 ERM over decision stumps on a public grid (binary and
multiclass); the ERM is a cumulative sum of per-cell weights."""

import warnings

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._domain import box_position, grid_threshold
from .._untrusted import read_sample_weight
from .._validation import check_bounds, check_positive_int
from ..exceptions import PrivacyLeakWarning
from ._oracle_base import PreparedRows, _BaseERMOracle

__all__ = ["StumpERMClassifier", "MulticlassStumpERMClassifier"]


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

    def __init__(self, n_thresholds=16, *, bounds=None):
        self.n_thresholds = n_thresholds
        self.bounds = bounds

    def _grid(self, n_features, X=None):
        n_thresholds = check_positive_int(self.n_thresholds, "n_thresholds")
        lower, upper = check_bounds(self.bounds, n_features, X, name="bounds", private=False,
                                    columns=getattr(self, "feature_names_in_", None))
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
        self._set_hypothesis(best, d, n_thresholds)

    def _set_hypothesis(self, best, d, n_thresholds):
        if best < 2:
            self._set_split(-1, 0)
            self.sign_ = 1 if best == 0 else -1
            return
        best -= 2
        self.sign_ = 1 if best < d * n_thresholds else -1
        feature, a = divmod(best % (d * n_thresholds), n_thresholds)
        self._set_split(feature, a + 1)

    def _set_split(self, feature, cell_index):
        """The fitted split: cells from ``cell_index`` on are above it, on the grid of
        ``bounds_`` (``feature < 0``: no split, a constant)."""
        if feature < 0:
            self.feature_, self._cell_index, self.threshold_ = -1, 0, -np.inf
            return
        lower, upper = self.bounds_
        self.feature_, self._cell_index = int(feature), int(cell_index)
        self.threshold_ = float(grid_threshold(lower[feature], upper[feature],
                                               self._cell_index, self._n_thresholds + 1))

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
    n_thresholds, bounds
        As in :class:`StumpERMClassifier`.

    Attributes
    ----------
    classes_ : ndarray of shape (k,)
    labels_ : tuple (index below, index above) into ``classes_``
    feature_, threshold_, bounds_, n_features_in_
        As in :class:`StumpERMClassifier`.
    """

    _erm_multiclass = True

    def fit(self, X, y, sample_weight=None):
        """Select an exact minimiser of the weighted multiclass 0-1 loss."""
        X, y = validate_data(self, X, y, dtype=float)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        weights = read_sample_weight(sample_weight, X.shape[0], type(self).__name__)
        self._n_classes = len(self.classes_)
        self._fit_codes(X, codes, weights)
        return self

    def _erm_fit(self, X, codes, weights, n_classes=None):
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
        self._set_multiclass(int(np.argmax(scores)), d, n_thresholds, k)

    def _set_multiclass(self, best, d, n_thresholds, k):
        if best < k:
            self._set_split(-1, 0)
            self.labels_ = (best, best)
            return
        feature, a, c_below, c_above = np.unravel_index(best - k, (d, n_thresholds, k, k))
        self._set_split(feature, a + 1)
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
