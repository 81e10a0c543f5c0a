"""Row maps of ``method='noisy_means'``: public rules from a row to integer codes.

:class:`BoxCodes` (the row on the grid of the box) and :class:`ProjectedL1Codes`
(a public random projection, then the L1 ball, rescaled in integer arithmetic).
Each code's norm bounds are the sensitivities; the proofs are in
``docs/derivations.rst``, section "Row maps of noisy means".
"""

import math
from dataclasses import dataclass

import numpy as np

from .._domain import grid_threshold
from .._domain import box_coordinates, box_position

__all__ = ["BoxCodes", "ProjectedL1Codes", "project_onto_l1_ball", "random_projection"]

# E|N(0, 1)|: the L1 norm per coordinate of a projected box corner
_MEAN_ABS_NORMAL = math.sqrt(2.0 / math.pi)


def _count_weight(n_cells, dim):
    """``W = G ceil(sqrt(d))`` for a code map of ``d`` coordinates: the weight
    of the counts' coordinate (the Gaussian's), shared by both maps."""
    return n_cells * (math.isqrt(dim - 1) + 1)


def nearest_prototype_scores(Z, P, labels):
    """Per label, ``-min ||z - p||^2`` over its prototypes (rows ``P``, sorted ``labels``)."""
    scores = 2.0 * Z @ P.T - (P * P).sum(axis=1)[None, :] - (Z * Z).sum(axis=1)[:, None]
    starts = np.searchsorted(labels, np.arange(labels[-1] + 1))
    return np.maximum.reduceat(scores, starts, axis=1)


def project_onto_l1_ball(V, radius):
    """Euclidean projection of every row of ``V`` onto ``{v : ||v||_1 <= radius}``.

    Duchi et al. 2008, Fig. 1 (sort-based), vectorised over rows.
    """
    V = np.asarray(V, dtype=float)
    A = np.abs(V)
    out = V.copy()
    outside = A.sum(axis=1) > radius
    if not outside.any():
        return out
    U = -np.sort(-A[outside], axis=1)
    cumulative = np.cumsum(U, axis=1)
    j = np.arange(1, U.shape[1] + 1)
    support = ((U - (cumulative - radius) / j) > 0).sum(axis=1)
    theta = (cumulative[np.arange(len(support)), support - 1] - radius) / support
    out[outside] = np.sign(V[outside]) * np.maximum(A[outside] - theta[:, None], 0.0)
    return out


def random_projection(n_components, n_features, public_rng):
    """A ``(k, d)`` matrix with orthonormal rows, uniformly random (public stream)."""
    gaussian = public_rng.normal(size=(n_features, n_components))
    q, r = np.linalg.qr(gaussian)
    return (q * np.sign(np.diag(r))[None, :]).T  # sign fix: Haar-distributed


@dataclass(frozen=True)
class BoxCodes:
    """Grid-rounded, centred rows of the box: codes in ``[-G, G]^d``."""

    n_cells: int
    lower: np.ndarray
    upper: np.ndarray

    @property
    def dim(self):
        return len(self.lower)

    @property
    def l1_bound(self):
        return self.dim * self.n_cells

    @property
    def l2sq_bound(self):
        return self.dim * self.n_cells ** 2

    @property
    def count_weight(self):
        return _count_weight(self.n_cells, self.dim)

    @property
    def radix(self):
        """Grid points per coordinate of a prototype (codes ``0..2G``)."""
        return 2 * self.n_cells + 1

    def codes(self, X):
        G = self.n_cells
        q = np.rint(G * box_position(X, self.lower, self.upper)).astype(np.int64)
        return 2 * np.clip(q, 0, G) - G

    def prototype_codes(self, means):
        """Post-processing: means (code units) back to the box, clipped, on the grid."""
        return np.clip(np.rint(means + self.n_cells), 0, 2 * self.n_cells).astype(np.int64)

    def rule(self, codes, labels):
        prototypes = grid_threshold(self.lower, self.upper, codes, 2 * self.n_cells)
        return BoxPrototypeRule(prototypes, labels, self.lower, self.upper)

    def describe(self):
        return (f"on a grid of {self.radix} points per feature ({self.dim} features); "
                f"L1 sensitivity of a row {self.dim} x {self.n_cells} grid units")


@dataclass(frozen=True)
class ProjectedL1Codes:
    """Public random projection to ``k`` dims, then the L1 ball of radius ``sqrt(2/pi) k``."""

    n_cells: int
    lower: np.ndarray
    upper: np.ndarray
    matrix: np.ndarray  # (k, d), orthonormal rows, public

    @property
    def dim(self):
        return self.matrix.shape[0]

    @property
    def radius(self):
        """``r = sqrt(2/pi) k`` in half box widths (module docstring)."""
        return _MEAN_ABS_NORMAL * self.dim

    @property
    def l1_bound(self):
        """``R = floor(r G)`` grid units (at least 1)."""
        return max(1, int(math.floor(self.radius * self.n_cells)))

    @property
    def l2sq_bound(self):
        return self.l1_bound ** 2  # ||v||_2 <= ||v||_1

    @property
    def count_weight(self):
        return _count_weight(self.n_cells, self.dim)

    @property
    def radix(self):
        return 2 * self.l1_bound + 1

    def embed(self, X):
        """``phi(x)``: centred, projected, shrunk onto the L1 ball of radius ``R / G``."""
        centred = 2.0 * box_position(X, self.lower, self.upper) - 1.0
        Z = centred @ self.matrix.T
        radius = self.l1_bound / self.n_cells
        return Z / np.maximum(1.0, np.abs(Z).sum(axis=1) / radius)[:, None]

    def codes(self, X):
        R = self.l1_bound
        # |v_j| <= R before the integer step (then no integer product below overflows)
        v = np.clip(np.rint(self.n_cells * self.embed(X)), -R, R).astype(np.int64)
        norm = np.abs(v).sum(axis=1, keepdims=True)
        # exact integer rescale where rounding left the ball: sum_j floor(|v_j| R / L) <= R
        rescaled = np.sign(v) * (np.abs(v) * R // np.maximum(norm, 1))
        return np.where(norm > R, rescaled, v)

    def prototype_codes(self, means):
        """Post-processing: onto the ball, rounded toward 0 (stays inside), shifted to ``0..2R``."""
        R = self.l1_bound
        inside = np.trunc(project_onto_l1_ball(means, R)).astype(np.int64)
        return inside + R

    def rule(self, codes, labels):
        prototypes = (codes - self.l1_bound) / float(self.n_cells)
        return ProjectedPrototypeRule(prototypes, labels, self)

    def describe(self):
        return (f"after a public random projection of the centred box to {self.dim} of "
                f"{len(self.lower)} dimensions and the L1 ball of radius "
                f"{self.l1_bound / self.n_cells:.4g} (grid 1/{self.n_cells}); L1 sensitivity "
                f"of a row {self.l1_bound} grid units, independent of the number of features")


def _point(p, shown):
    return "(" + ", ".join(f"{v:.3g}" for v in p[:shown]) + (
        ", ..." if len(p) > shown else "") + ")"


@dataclass(frozen=True)
class BoxPrototypeRule:
    """Nearest prototype in box-normalised Euclidean distance (released hypothesis)."""

    prototypes: np.ndarray  # (n_prototypes, n_features), on the public grid
    labels: np.ndarray  # (n_prototypes,) label codes, sorted; every label present
    lower: np.ndarray  # (n_features,) the public box
    upper: np.ndarray

    def class_scores(self, X):
        """Per label, ``-min ||(x - p) / width||^2`` over its prototypes (argmax:
        prediction); ``width = upper - lower`` (1 where a feature is degenerate)."""
        return nearest_prototype_scores(box_coordinates(X, self.lower, self.upper),
                                        box_coordinates(self.prototypes, self.lower, self.upper),
                                        self.labels)

    def codes(self, X):
        return np.argmax(self.class_scores(X), axis=1)

    def describe(self, classes):
        d = self.prototypes.shape[1]
        shown = min(d, 3)
        names = ", ".join(f"x[{j}]" for j in range(shown)) + (", ..." if d > shown else "")
        parts = [f"{classes[c]} at {_point(p, shown)}"
                 for c, p in zip(self.labels, self.prototypes)]
        return f"nearest prototype in ({names}): " + "; ".join(parts)


@dataclass(frozen=True)
class ProjectedPrototypeRule:
    """Nearest prototype of ``phi(x)`` (:class:`ProjectedL1Codes`), released hypothesis."""

    prototypes: np.ndarray  # (n_prototypes, k), in the projected space
    labels: np.ndarray
    row_map: ProjectedL1Codes  # public: box, projection matrix, radius

    def class_scores(self, X):
        """Per label, ``-min ||phi(x) - p||^2`` over its prototypes."""
        return nearest_prototype_scores(self.row_map.embed(X), self.prototypes, self.labels)

    def codes(self, X):
        return np.argmax(self.class_scores(X), axis=1)

    def describe(self, classes):
        k = self.prototypes.shape[1]
        shown = min(k, 3)
        parts = [f"{classes[c]} at {_point(p, shown)}"
                 for c, p in zip(self.labels, self.prototypes)]
        return (f"nearest prototype after a public random projection to {k} dimensions "
                f"(phi(x) = Q (2 (x - lower) / width - 1), shrunk to L1 radius "
                f"{self.row_map.l1_bound / self.row_map.n_cells:.3g}): " + "; ".join(parts))
