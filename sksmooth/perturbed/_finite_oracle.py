"""Exact weighted 0-1 ERM over a finite class given as a matrix over a
finite domain or as a concept object with ``evaluate``."""

import numpy as np

from .._domain import domain_row_indices
from ._oracle_base import PreparedRows, _BaseERMOracle

__all__ = ["FiniteClassERMClassifier"]


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

    def __init__(self, concepts, *, domain=None):
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
