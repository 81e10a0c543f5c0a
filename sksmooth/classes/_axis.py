"""Axis-aligned classes (thresholds, stumps, boxes) and their grid covers.

Grid covers depend on the public bounds only, have an exactly computed
(certified) radius and are bracketing. Theory: Haghtalab, Roughgarden,
Shetty, NeurIPS 2020, arXiv:2006.10129, Def. 2.1, Thm 3.3, App. C.1.
"""

import math

import numpy as np

from .._domain import grid_threshold
from ._base import (
    ConceptClass,
    FiniteConcepts,
    _check_cover_args,
    _fmt,
    _resolve_bounds,
    _warn_capped,
)

__all__ = ["StumpConcepts", "BoxConcepts", "Thresholds", "Stumps", "Boxes"]


class StumpConcepts(FiniteConcepts):
    """Finite set of decision stumps (1-D thresholds when ``n_features == 1``).

    Concept ``j`` is::

        c_j(x) = x[feature[j]] >= threshold[j]   if sign[j] == +1
        c_j(x) = x[feature[j]] <  threshold[j]   if sign[j] == -1

    so the two orientations at the same threshold are exact complements.

    Parameters
    ----------
    feature : array-like of int, shape (n_concepts,)
    threshold : array-like of float, shape (n_concepts,)
    sign : array-like of {-1, +1}, shape (n_concepts,)
    n_features : int
    **metadata
        ``bounds``, ``gamma``, ``gamma_certified``, ``vc_dim``,
        ``is_bracketing``, ``bracket_width`` (see :class:`FiniteConcepts`).

    Attributes
    ----------
    feature : ndarray of intp, shape (n_concepts,)
    threshold : ndarray of float, shape (n_concepts,)
    sign : ndarray of int8, shape (n_concepts,)

    Examples
    --------
    >>> from sksmooth.classes import Stumps
    >>> cover = Stumps().cover(bounds=([0, 0], [1, 1]), gamma=0.1)
    >>> cover.n_concepts, cover.gamma
    (18, 0.1)
    >>> cover.describe(2)
    'x[0] >= 0.2'
    """

    _param_names = ("feature", "threshold", "sign")

    def __init__(self, feature, threshold, sign, n_features, **metadata):
        super().__init__(n_features, **metadata)
        feature = np.asarray(feature)
        threshold = np.asarray(threshold, dtype=float)
        sign = np.asarray(sign)
        if not (feature.ndim == threshold.ndim == sign.ndim == 1
                and len(feature) == len(threshold) == len(sign)):
            raise ValueError(
                "feature, threshold and sign must be 1-D arrays of the same length, got "
                f"shapes {feature.shape}, {threshold.shape}, {sign.shape}.")
        if feature.size and (not np.issubdtype(feature.dtype, np.integer)
                             or feature.min() < 0 or feature.max() >= self.n_features):
            raise ValueError(f"feature must hold integers in [0, {self.n_features}).")
        if not np.all((sign == 1) | (sign == -1)):
            raise ValueError("sign must hold only -1 and +1.")
        if not np.all(np.isfinite(threshold)):
            raise ValueError("threshold must be finite.")
        self.feature = feature.astype(np.intp)
        self.threshold = threshold
        self.sign = sign.astype(np.int8)

    def _evaluate_chunk(self, X):
        return (X[:, self.feature] >= self.threshold) == (self.sign > 0)

    def describe(self, j):
        j = self._check_index(j)
        op = ">=" if self.sign[j] > 0 else "<"
        return f"x[{self.feature[j]}] {op} {_fmt(self.threshold[j])}"


class BoxConcepts(FiniteConcepts):
    """Finite set of closed axis-aligned boxes.

    Concept ``j`` is ``all(lower[j] <= x <= upper[j])``; a box with
    ``lower[j, f] > upper[j, f]`` for some ``f`` is empty (the cover's empty
    box uses ``lower = +inf, upper = -inf``).

    Attributes
    ----------
    lower, upper : ndarray of float, shape (n_concepts, n_features)
        Corners (may hold ``±inf``).
    """

    _param_names = ("lower", "upper")

    def __init__(self, lower, upper, **metadata):
        lower = np.asarray(lower, dtype=float)
        upper = np.asarray(upper, dtype=float)
        if lower.ndim != 2 or lower.shape != upper.shape:
            raise ValueError(
                "lower and upper must be 2-D arrays of the same shape (n_concepts, "
                f"n_features), got {lower.shape} and {upper.shape}.")
        if np.any(np.isnan(lower)) or np.any(np.isnan(upper)):
            raise ValueError("lower and upper must not contain NaN.")
        super().__init__(lower.shape[1], **metadata)
        self.lower = lower
        self.upper = upper

    def _evaluate_chunk(self, X):
        # loop over features (few), never over concepts
        out = np.ones((X.shape[0], self.n_concepts), dtype=bool)
        for f in range(self.n_features):
            col = X[:, f:f + 1]
            out &= (col >= self.lower[:, f]) & (col <= self.upper[:, f])
        return out

    def _chunk_factor(self):
        return 3

    def describe(self, j):
        j = self._check_index(j)
        if np.any(self.lower[j] > self.upper[j]):
            return "empty box (always False)"
        parts = []
        for f in range(self.n_features):
            lo, hi = self.lower[j, f], self.upper[j, f]
            if np.isinf(lo) and np.isinf(hi):
                continue
            parts.append(f"{_fmt(lo)} <= x[{f}] <= {_fmt(hi)}")
        return " and ".join(parts) if parts else "always True"


# ----------------------------------------------------------------- classes
def _stump_vc_dim(n_features):
    """Largest n with 2**n <= 2 d (n - 1) + 2 (labelings of n points by stumps).

    On n distinct points a single feature yields at most 2 (n - 1)
    non-constant labelings, plus the two constants; shattering needs 2**n.
    This is an upper bound on the VC dimension, exact (= 2) for d = 1.
    """
    n = 1
    while 2 ** (n + 1) <= 2 * n_features * n + 2:
        n += 1
    return n


class _StumpLike(ConceptClass):
    def _grid_cover(self, bounds, gamma, max_size, n_features, name):
        gamma, max_size = _check_cover_args(gamma, max_size)
        lower, upper = _resolve_bounds(bounds, n_features)
        d = len(lower)
        live = np.flatnonzero(upper > lower)
        if max_size is not None and max_size < 2:
            raise ValueError(
                f"max_size={max_size} is too small: a stump cover holds at least the "
                "two constant concepts; pass max_size >= 2.")
        # N grid intervals per feature; certified radius 1 / (2N)
        n_needed = None if gamma is None else math.ceil(1.0 / (2.0 * gamma) - 1e-12)
        if len(live) == 0:
            n_cells = 1
        elif max_size is None:
            n_cells = n_needed
        else:
            n_cap = (max_size - 2) // (2 * len(live)) + 1
            n_cells = n_cap if n_needed is None else min(n_needed, n_cap)
        achieved = 0.0 if len(live) == 0 else 1.0 / (2.0 * n_cells)
        if n_needed is not None and len(live) and n_cells < n_needed:
            _warn_capped(name, max_size, gamma, achieved)

        interior = np.arange(1, n_cells)  # interior grid points 1..N-1 of N cells
        feats = np.repeat(live, len(interior))
        thr = grid_threshold(lower[feats], upper[feats], np.tile(interior, len(live)), n_cells)
        feature = np.concatenate([[0, 0], feats, feats])
        threshold = np.concatenate([[lower[0], lower[0]], thr, thr])
        sign = np.concatenate([[1, -1], np.ones(len(thr)), -np.ones(len(thr))]).astype(np.int8)
        return StumpConcepts(
            feature, threshold, sign, d,
            bounds=(lower, upper), gamma=achieved, gamma_certified=True,
            vc_dim=self.vc_dim(d), is_bracketing=True, bracket_width=2 * achieved,
        )


class Thresholds(_StumpLike):
    """One-dimensional thresholds ``x >= b`` and ``x < b`` (both orientations).

    VC dimension 2 (1 per orientation); infinite Littlestone dimension, the
    showcase of smoothed online learning (Haghtalab et al. 2020, §3, App. B).

    Examples
    --------
    >>> from sksmooth.classes import Thresholds
    >>> cover = Thresholds().cover(bounds=(0.0, 1.0), gamma=0.05)
    >>> cover.n_concepts, cover.gamma, cover.gamma_certified
    (20, 0.05, True)
    """

    def vc_dim(self, n_features=1):
        return 2

    def cover(self, bounds, gamma=None, max_size=None, random_state=None):
        """Grid cover of 1-D thresholds (certified, bracketing).

        With ``N`` grid intervals of the bounds ``[l, u]`` the cover holds the
        interior thresholds ``l + i (u - l) / N`` (``0 < i < N``) in both
        orientations plus the two constants (``x >= l``: always True,
        ``x < l``: always False), ``2 (N - 1) + 2`` concepts. A target
        ``x >= b`` disagrees with the nearest grid threshold on at most half a
        cell, so ``gamma = 1 / (2N)`` exactly; consecutive elements bracket
        every target with width ``1 / N`` (``bracket_width = 2 gamma``).
        ``N = ceil(1 / (2 gamma))``, capped by ``max_size``.

        Parameters
        ----------
        bounds : tuple (lower, upper) of floats
        gamma : float in (0, 1), optional
            Target radius.
        max_size : int >= 2, optional
            Memory cap on the number of concepts (warns if it binds).
        random_state : ignored
            The grid is deterministic; accepted for a uniform signature.

        Returns
        -------
        StumpConcepts
            With ``n_features == 1`` and ``feature == 0``.
        """
        return self._grid_cover(bounds, gamma, max_size, 1, "Thresholds.cover")


class Stumps(_StumpLike):
    """Decision stumps: thresholds on any single feature, both orientations.

    ``vc_dim(d)`` is the largest ``n`` with ``2**n <= 2 d (n - 1) + 2``, an
    upper bound from counting labelings (``O(log d)``; exact for ``d = 1``).

    Examples
    --------
    >>> from sksmooth.classes import Stumps
    >>> cover = Stumps().cover(bounds=(0.0, [1.0, 2.0, 4.0]), gamma=0.25)
    >>> cover.n_concepts, cover.describe(0), cover.describe(1)
    (8, 'x[0] >= 0', 'x[0] < 0')
    """

    def vc_dim(self, n_features):
        return _stump_vc_dim(int(n_features))

    def cover(self, bounds, gamma=None, max_size=None, random_state=None, n_features=None):
        """Grid cover of decision stumps (certified, bracketing).

        Every feature with positive width gets the same relative grid as
        :meth:`Thresholds.cover` (``N - 1`` interior thresholds, both
        orientations); the two constants are shared: ``2 d (N - 1) + 2``
        concepts. A target stump on feature ``f`` is compared with stumps on
        ``f`` only, whose disagreement under the uniform measure on the box
        is ``|b - t| / (u_f - l_f)``, hence ``gamma = 1 / (2N)`` exactly and
        ``bracket_width = 1 / N``. Degenerate features (``l_f == u_f``) carry
        only constant stumps and get no grid.

        Parameters
        ----------
        bounds : tuple (lower, upper)
            Scalars or arrays of length ``n_features``.
        gamma : float in (0, 1), optional
        max_size : int >= 2, optional
        random_state : ignored (deterministic grid)
        n_features : int, optional
            Needed only when both bounds are scalars.

        Returns
        -------
        StumpConcepts
        """
        return self._grid_cover(bounds, gamma, max_size, n_features, "Stumps.cover")


class Boxes(ConceptClass):
    """Closed axis-aligned boxes ``{x : a <= x <= b}`` (intervals in 1-D).

    VC dimension ``2 d``.
    """

    def vc_dim(self, n_features):
        return 2 * int(n_features)

    def cover(self, bounds, gamma=None, max_size=None, random_state=None, n_features=None):
        """Grid cover of boxes (certified, bracketing).

        Each feature of positive width gets a grid of ``N`` cells; the cover
        holds every box whose corners lie on the grid (``N (N + 1) / 2``
        intervals per feature, product over the ``d'`` non-degenerate
        features) plus the empty box. Rounding each face of a target box to
        the nearest grid point moves each side by at most half a cell, so the
        per-feature interval disagreement is at most ``1 / N``; the symmetric
        difference of two boxes lies in the union over features of the
        per-feature differences, hence the certified radius

        ``gamma = 1 - (1 - 1 / N) ** d'``

        (approached by near-full boxes with faces at cell midpoints). Inner
        and outer rounding give brackets of width ``1 - (1 - 2 / N) ** d'``.

        Parameters
        ----------
        bounds : tuple (lower, upper)
        gamma : float in (0, 1), optional
        max_size : int >= 2, optional
        random_state : ignored (deterministic grid)
        n_features : int, optional

        Returns
        -------
        BoxConcepts
        """
        gamma, max_size = _check_cover_args(gamma, max_size)
        lower, upper = _resolve_bounds(bounds, n_features)
        d = len(lower)
        live = np.flatnonzero(upper > lower)
        dl = len(live)
        if max_size is not None and max_size < 2:
            raise ValueError(f"max_size={max_size} is too small for a box cover; pass max_size >= 2.")

        def size(n):
            return (n * (n + 1) // 2) ** dl + 1

        def radius(n):
            return 1.0 - (1.0 - 1.0 / n) ** dl

        n_needed = None
        if gamma is not None and dl:
            n_needed = max(1, math.ceil(1.0 / (1.0 - (1.0 - gamma) ** (1.0 / dl)) - 1e-9))
            while radius(n_needed) > gamma:  # guard against rounding
                n_needed += 1
        if dl == 0:
            n_cells = 1
        else:
            n_cells = n_needed
            if max_size is not None:
                n_cap = 1
                while size(n_cap + 1) <= max_size:
                    n_cap += 1
                n_cells = n_cap if n_needed is None else min(n_needed, n_cap)
        achieved = 0.0 if dl == 0 else radius(n_cells)
        if n_needed is not None and dl and n_cells < n_needed:
            _warn_capped("Boxes.cover", max_size, gamma, achieved)

        # all grid intervals [g_a, g_b], a < b, as grid indices
        a_idx, b_idx = np.triu_indices(n_cells + 1, k=1)
        n_int = len(a_idx)
        # every dl-tuple of interval indices, in C order (meshgrid takes at most 32 axes)
        flat = np.arange(n_int**dl)
        grids = np.stack([(flat // n_int**(dl - 1 - k)) % n_int for k in range(dl)], axis=-1) \
            if dl else np.zeros((1, 0), dtype=np.int64)
        n_boxes = len(grids)
        lo = np.broadcast_to(lower, (n_boxes, d)).copy()
        hi = np.broadcast_to(upper, (n_boxes, d)).copy()
        if dl:
            lo[:, live] = grid_threshold(lower[live], upper[live], a_idx[grids], n_cells)
            hi[:, live] = grid_threshold(lower[live], upper[live], b_idx[grids], n_cells)
        lo = np.vstack([lo, np.full((1, d), np.inf)])
        hi = np.vstack([hi, np.full((1, d), -np.inf)])
        bracket = 0.0 if dl == 0 else 1.0 - max(0.0, 1.0 - 2.0 / n_cells) ** dl
        return BoxConcepts(
            lo, hi, bounds=(lower, upper), gamma=achieved, gamma_certified=True,
            vc_dim=self.vc_dim(d), is_bracketing=True, bracket_width=bracket,
        )
