"""Data-independent universes for private query release (SPEC §7).

Two universes, both functions of public inputs only (bounds, bin counts,
categorical levels, label classes, random_state):

* :class:`GridUniverse` — the product grid of per-attribute levels: continuous
  features are cut into ``n_bins`` equal-width bins over the public bounds;
  categorical/binary features use their integer levels
  ``ceil(lower) .. floor(upper)`` natively; labels (if any) are one more
  categorical attribute. Points are stored implicitly (a flat index into the
  product shape), so universes of 10^6–10^7 points cost one float array.
  Continuous synthetic values are drawn uniformly inside their bin (with the
  release's sampling stream) or placed at its centre.
* :class:`SampleUniverse` — ``M`` points drawn uniformly on the bounds
  (categorical features uniformly on their levels, labels uniformly on the
  classes), independently of the data: the domain reduction of Haghtalab,
  Roughgarden, Shetty, "Smoothed Analysis of Online and Differentially
  Private Learning", NeurIPS 2020, arXiv:2006.10129, App. G, Lemma G.3 (if the data are
  sigma-smooth, with M = O((d + log 1/eta)/(sigma gamma^2)) a distribution
  on the sample answers every query of VC dimension d within gamma).

The uniform measure on either universe is the reference measure for
sigma-smoothness (equal-width bins have equal volume).
"""

import numpy as np

from .._domain import box_position, grid_threshold
from .._untrusted import level_codes

__all__ = ["GridUniverse", "SampleUniverse"]


class _AttributeSchema:
    """Public description of the attributes: bounds, categorical flags, classes."""

    def __init__(self, lower, upper, categorical, classes=None):
        self.lower = np.asarray(lower, dtype=float)
        self.upper = np.asarray(upper, dtype=float)
        self.categorical = np.asarray(categorical, dtype=bool)
        self.classes = None if classes is None else np.asarray(classes)
        self.n_features = len(self.lower)
        self.cat_levels = [
            np.arange(np.ceil(lo), np.floor(hi) + 1) if c else None
            for lo, hi, c in zip(self.lower, self.upper, self.categorical)
        ]
        for j, levels in enumerate(self.cat_levels):
            if levels is not None and levels.size == 0:
                raise ValueError(
                    f"categorical feature {j} has bounds ({self.lower[j]}, "
                    f"{self.upper[j]}) containing no integer level; categorical "
                    "features take the integer values between their bounds."
                )

    @property
    def has_labels(self):
        return self.classes is not None

    @property
    def n_attributes(self):
        return self.n_features + int(self.has_labels)


class GridUniverse(_AttributeSchema):
    """Product grid over the public bounds (and label classes).

    Parameters
    ----------
    lower, upper : ndarray of shape (n_features,)
        Public bounds.
    categorical : ndarray of bool, shape (n_features,)
        Which features are categorical (integer levels between the bounds).
    n_bins : ndarray of int, shape (n_features,)
        Bins per continuous feature (ignored for categorical ones).
    classes : ndarray or None
        Label classes (public), appended as the last attribute.
    """

    kind = "grid"

    def __init__(self, lower, upper, categorical, n_bins, classes=None):
        super().__init__(lower, upper, categorical, classes)
        n_bins = np.broadcast_to(np.asarray(n_bins, dtype=int), (self.n_features,))
        levels = []
        for j in range(self.n_features):
            if self.categorical[j]:
                levels.append(len(self.cat_levels[j]))
            else:
                levels.append(int(n_bins[j]) if self.upper[j] > self.lower[j] else 1)
        if self.has_labels:
            levels.append(len(self.classes))
        self.shape = tuple(int(v) for v in levels)
        self.size = int(np.prod(self.shape, dtype=np.float64))

    # -- encoding -------------------------------------------------------
    def encode(self, X, y=None):
        """Level codes of shape (n, n_attributes) for clipped data.

        Vectorised over all columns of a kind at once: categorical codes are
        ``rint(x) - first level``, continuous ones ``floor((x - lower) /
        width * n_bins)`` (on halves: finite for any finite bounds), then
        clipped to ``[0, L - 1]``.
        """
        X = np.asarray(X, dtype=float)
        d = self.n_features
        shape = np.asarray(self.shape[:d], dtype=float)
        cat = np.flatnonzero(self.categorical)
        cont = np.flatnonzero(~self.categorical)
        first = np.array([self.cat_levels[j][0] for j in cat])
        if cat.size == d:  # all categorical: no column gathering
            V = np.rint(X)
            V -= first
        else:
            V = np.empty_like(X)
            V[:, cat] = np.rint(X[:, cat]) - first
            # on halves: no overflow (a NaN code) for bounds as wide as the float range
            rel = box_position(X[:, cont], self.lower[cont], self.upper[cont])
            V[:, cont] = np.floor(rel * shape[cont])
        np.maximum(V, 0.0, out=V)
        np.minimum(V, shape - 1, out=V)
        codes = np.empty((X.shape[0], self.n_attributes), dtype=np.int64)
        codes[:, :d] = V
        if self.has_labels:
            try:
                codes[:, -1] = np.searchsorted(self.classes, y)
            except TypeError:  # labels read from y (warned) of types that do not compare
                codes[:, -1] = level_codes(y, self.classes)
        return codes

    def level_values(self, j):
        """Representative feature values of the levels of attribute ``j``."""
        if j == self.n_features:
            return self.classes
        if self.categorical[j]:
            return self.cat_levels[j]
        if self.upper[j] == self.lower[j]:
            return np.array([self.lower[j]])
        m = self.shape[j]  # bin centres, on halves: finite for any finite bounds
        return grid_threshold(self.lower[j], self.upper[j], np.arange(m) + 0.5, m)

    def decode(self, flat, rng=None, jitter=False):
        """Feature rows (and labels) of universe points given by flat index.

        With ``jitter=True`` continuous coordinates are drawn uniformly inside
        their bin (post-processing with fresh public randomness), otherwise
        bin centres are returned.
        """
        return self._decode_levels(np.unravel_index(np.asarray(flat), self.shape), rng, jitter)

    def decode_codes(self, codes, rng=None, jitter=False):
        """Rows of level codes ``(n, n_attributes)`` (a model's sample) to features.

        Column by column, never through a flat index (a factored model's
        grid can have more points than an int64 counts).
        """
        codes = np.asarray(codes, dtype=np.int64).reshape(-1, len(self.shape))
        return self._decode_levels(tuple(codes.T), rng, jitter)

    def _decode_levels(self, codes, rng, jitter):
        X = np.empty((len(codes[0]), self.n_features))
        for j in range(self.n_features):
            if jitter and not self.categorical[j] and self.shape[j] > 1:  # inside the bin
                X[:, j] = grid_threshold(self.lower[j], self.upper[j],
                                         codes[j] + rng.random(X.shape[0]), self.shape[j])
            else:
                X[:, j] = self.level_values(j)[codes[j]]
        y = self.classes[codes[-1]] if self.has_labels else None
        return X, y

    def points(self, flat=None):
        """Decoded feature rows of all (or the given) universe points."""
        if flat is None:
            flat = np.arange(self.size)
        return self.decode(flat)


class SampleUniverse(_AttributeSchema):
    """``n_points`` points uniform on the public bounds (Haghtalab et al. 2020, Lemma G.3).

    Drawn once from ``rng`` at construction, independently of the data.
    """

    kind = "sample"

    def __init__(self, lower, upper, categorical, n_points, rng, classes=None):
        super().__init__(lower, upper, categorical, classes)
        self.size = int(n_points)
        X = grid_threshold(self.lower, self.upper, rng.random((self.size, self.n_features)), 1)
        for j in range(self.n_features):
            if self.categorical[j]:
                levels = self.cat_levels[j]
                X[:, j] = levels[rng.integers(0, len(levels), size=self.size)]
        self.X = X
        self.y = (
            self.classes[rng.integers(0, len(self.classes), size=self.size)]
            if self.has_labels
            else None
        )
        self.shape = (self.size,)

    def decode(self, flat, rng=None, jitter=False):
        flat = np.asarray(flat)
        return self.X[flat], (None if self.y is None else self.y[flat])

    def decode_codes(self, codes, rng=None, jitter=False):
        """Rows of point indices ``(n, 1)`` (a model's sample) to features."""
        return self.decode(np.asarray(codes, dtype=np.int64).reshape(-1), rng, jitter)

    def points(self, flat=None):
        if flat is None:
            return self.X, self.y
        return self.decode(flat)
