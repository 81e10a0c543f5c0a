"""Exact weighted 0-1 ERM over parities on {0,1}^k by one fast
Walsh-Hadamard transform (Block and Shetty, arXiv:2502.10292, Prop. 3)."""

import numpy as np

from ..classes._discrete import nearest_cube_points
from ._oracle_base import PreparedRows, _BaseERMOracle

__all__ = ["ParityERMClassifier", "fwht"]


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

    def _erm_check_domain(self, X):
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
        Z = self._erm_check_domain(np.asarray(Z, dtype=float))
        idx = self._index(Z)
        subsets = np.arange(2 ** Z.shape[1], dtype=np.int64)
        values = (2 * (np.bitwise_count(idx[:, None] & subsets) % 2) - 1).astype(np.int8)
        return np.hstack([values, -values]) if self.include_negations else values

    def _erm_separation(self, Z):
        """Exact minimum distance via one FWHT of the histogram of ``Z``.

        ``||chi_S - chi_T||_m^2 = 2 - 2 mean_i chi_{S xor T}(z_i)`` and
        ``||chi_S + chi_T||_m^2 = 2 + 2 mean_i chi_{S xor T}(z_i)``.
        """
        Z = self._erm_check_domain(np.asarray(Z, dtype=float))
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
