"""The shared machinery of the exact weighted 0-1 ERM oracles.

Each oracle returns an exact minimiser of ``sum_i w_i 1[f(x_i) != y_i]``
(``w_i >= 0``) over a fixed finite class ``F``, the first maximiser of the
weighted correlation ``sum_i w_i y_i f(x_i)`` in a fixed order, and
implements :class:`~sksmooth.perturbed._protocol.ERMOracle`, which is what
the privacy of perturbed ERM needs (Block and Shetty, arXiv:2502.10292,
2025; Alg. 2, Lemma 2, Def. 5). A fitted oracle stores only the selected
hypothesis. The families live in ``_stump_oracle``, ``_threshold_oracle``,
``_parity_oracle``, ``_finite_oracle`` and ``_tree_oracle``.
"""

from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._untrusted import read_sample_weight
from .._validation import BinaryLabels, check_binary_target

__all__ = ["PreparedRows", "min_pairwise_distance", "spectral_separation"]

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
    ``_predict_pm1(X)``; the ``_erm_*`` members implement
    :class:`~sksmooth.perturbed._protocol.ERMOracle` (what each declares is
    documented there).
    """

    _erm_exact_finite_class = True
    _erm_output_is_private_values = False
    _erm_multiclass = False
    _erm_uses_bounds = False
    _erm_own_domain = False
    _erm_class_size_is_bound = False
    _erm_separation_is_bound = False
    _erm_separation_hint = ""

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
        weights = read_sample_weight(sample_weight, X.shape[0], type(self).__name__)
        X = self._erm_check_domain(X)
        y_pm1 = BinaryLabels.encode(y, self.classes_)
        keep = weights > 0  # zero-weight rows change no loss, nor a data-derived grid
        X, y_pm1, weights = X[keep], y_pm1[keep], weights[keep]
        self._fit_pm1(X, y_pm1, weights)
        return self

    def _erm_fit(self, X, y_pm1, weights, n_classes=2):
        """Fast path for PerturbedERMClassifier: inputs already validated,
        labels in {-1, +1}, weights finite and >= 0."""
        self.n_features_in_ = X.shape[1]
        self.classes_ = np.array([-1, 1])
        self._fit_pm1(self._erm_check_domain(X), np.asarray(y_pm1, dtype=float), weights)
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
        return self._predict_pm1(self._erm_check_domain(X))

    def predict(self, X):
        """Predict labels with the selected hypothesis."""
        return BinaryLabels.decode(self.decision_function(X), self.classes_)

    def _erm_check_domain(self, X):
        return X

    def decision_function(self, X):
        """The selected hypothesis in {-1, +1} coding (+1 = ``classes_[1]``)."""
        check_is_fitted(self)
        return self._erm_predict_validated(validate_data(self, X, dtype=float, reset=False))

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

    def _erm_certifying_n_points(self, n_features):
        return None  # the default design is the certifying one

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
