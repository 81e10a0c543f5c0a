"""Finite concept instances and the concept-class interface (SPEC §3.2).

A finite instance evaluates points to a boolean ``(n_points, n_concepts)``
matrix (True is +1 for hypotheses, 1 for counting queries); a
:class:`ConceptClass` builds one from public inputs with ``cover``.
"""

import numbers
import warnings

import numpy as np

from .._validation import check_bounds, check_bounds_pair, check_positive_int
from ..exceptions import DefaultsWarning, user_stacklevel

__all__ = ["FiniteConcepts", "ConceptClass"]

# Upper bound on the number of elements of the per-chunk intermediate arrays
# built by ``evaluate`` (about 32 MB of float64).
_DEFAULT_CHUNK_ELEMENTS = 1 << 22


class FiniteConcepts:
    """A finite list of concepts ``c_j : X -> {False, True}`` on a box.

    Subclasses store structured parameters (one array entry per concept) and
    implement ``_evaluate_chunk`` and ``describe``; the base class handles
    validation, chunking and the cover metadata.

    Parameters
    ----------
    n_features : int
        Dimension of the instance space.
    bounds : tuple (lower, upper) of ndarray of shape (n_features,) or None
        The public domain box whose uniform measure defines ``gamma``.
    gamma : float or None
        Cover radius: every concept of the parent class is within uniform-
        measure disagreement ``gamma`` of some concept in this instance.
        ``None`` when this instance is not known to be a cover (e.g. after
        :meth:`subset`).
    gamma_certified : bool
        ``True`` if ``gamma`` is a proven upper bound, ``False`` if it is a
        Monte Carlo estimate.
    vc_dim : int or None
        VC dimension of the parent class that the cover assumes.
    is_bracketing : bool
        ``True`` if consecutive cover elements form brackets (003 Def. 2.1):
        every concept ``c`` of the parent class satisfies
        ``lo <= c <= hi`` pointwise for two elements ``lo, hi`` with
        uniform-measure disagreement at most ``bracket_width``.
    bracket_width : float or None
        Width of those brackets (``None`` if not bracketing).

    Attributes
    ----------
    n_concepts : int
        Number of concepts ``K``.
    n_features : int
    bounds, gamma, gamma_certified, vc_dim, is_bracketing, bracket_width
        As above.
    """

    #: names of the per-concept parameter arrays (first axis = concept);
    #: used by :meth:`subset`. Subclasses override.
    _param_names = ()

    def __init__(self, n_features, bounds=None, gamma=None, gamma_certified=False,
                 vc_dim=None, is_bracketing=False, bracket_width=None):
        self.n_features = int(n_features)
        self.bounds = bounds
        self.gamma = None if gamma is None else float(gamma)
        self.gamma_certified = bool(gamma_certified) and gamma is not None
        self.vc_dim = vc_dim
        self.is_bracketing = bool(is_bracketing)
        self.bracket_width = None if bracket_width is None else float(bracket_width)

    # ------------------------------------------------------------------ API
    @property
    def n_concepts(self):
        """Number of concepts ``K``."""
        return int(len(getattr(self, self._param_names[0])))

    def __len__(self):
        return self.n_concepts

    def evaluate(self, X, chunk_size=None):
        """Evaluate every concept on every point.

        Parameters
        ----------
        X : array-like of shape (n_points, n_features)
            Points (a 1-D array is accepted when ``n_features == 1``).
        chunk_size : int, optional
            Number of points per chunk. Default: chosen so that each chunk's
            intermediate arrays hold at most ~4M elements.

        Returns
        -------
        values : ndarray of bool, shape (n_points, n_concepts)
            ``values[i, j]`` is ``c_j(X[i])``.
        """
        X = self._check_X(X)
        n_points, n_concepts = X.shape[0], self.n_concepts
        if chunk_size is None:
            chunk_size = max(1, _DEFAULT_CHUNK_ELEMENTS // max(1, n_concepts * self._chunk_factor()))
        else:
            chunk_size = check_positive_int(chunk_size, "chunk_size")
        out = np.empty((n_points, n_concepts), dtype=bool)
        for start in range(0, n_points, chunk_size):
            stop = min(start + chunk_size, n_points)
            out[start:stop] = self._evaluate_chunk(X[start:stop])
        return out

    def evaluate_sign(self, X, chunk_size=None):
        """Evaluate as hypotheses: ``int8`` matrix with ``+1`` (True) / ``-1`` (False)."""
        values = self.evaluate(X, chunk_size=chunk_size)
        return np.where(values, np.int8(1), np.int8(-1))

    def describe(self, j):
        """Human-readable description of concept ``j`` (e.g. ``"x[3] >= 0.42"``)."""
        raise NotImplementedError

    def subset(self, indices):
        """Return a new instance holding the concepts ``indices`` (in that order).

        The subset is no longer known to be a cover: its ``gamma`` is ``None``
        and ``is_bracketing`` is ``False``.
        """
        indices = self._check_indices(indices)
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        for name in self._param_names:
            setattr(new, name, getattr(self, name)[indices])
        new.gamma = None
        new.gamma_certified = False
        new.is_bracketing = False
        new.bracket_width = None
        new._after_subset(indices)
        return new

    def __repr__(self):
        g = "None" if self.gamma is None else f"{self.gamma:.4g}"
        kind = "certified" if self.gamma_certified else "estimated"
        return (f"{type(self).__name__}(n_concepts={self.n_concepts}, "
                f"n_features={self.n_features}, gamma={g} ({kind}), vc_dim={self.vc_dim})")

    # ---------------------------------------------------------- internals
    def _chunk_factor(self):
        """Intermediate elements per (point, concept) pair in ``_evaluate_chunk``."""
        return 1

    def _evaluate_chunk(self, X):  # pragma: no cover - abstract
        raise NotImplementedError

    def _after_subset(self, indices):
        """Hook for subclasses with extra per-concept state."""

    def _check_indices(self, indices):
        indices = np.asarray(indices)
        if indices.dtype == bool:
            if indices.shape != (self.n_concepts,):
                raise ValueError(
                    f"indices: a boolean mask must have shape ({self.n_concepts},), "
                    f"got {indices.shape}.")
            return np.flatnonzero(indices)
        if indices.ndim != 1 or (indices.size and not np.issubdtype(indices.dtype, np.integer)):
            raise TypeError("indices must be a 1-D array of integer indices or a boolean mask.")
        indices = indices.astype(np.intp)
        if indices.size and (indices.min() < -self.n_concepts or indices.max() >= self.n_concepts):
            raise IndexError(f"indices out of range for {self.n_concepts} concepts.")
        return indices

    def _check_index(self, j):
        if isinstance(j, bool) or not isinstance(j, numbers.Integral):
            raise TypeError(f"j must be an integer concept index, got {j!r}.")
        j = int(j)
        if not -self.n_concepts <= j < self.n_concepts:
            raise IndexError(f"j={j} out of range for {self.n_concepts} concepts.")
        return j % self.n_concepts

    def _check_X(self, X):
        X = np.asarray(X)
        if X.dtype == object or not (np.issubdtype(X.dtype, np.number) or X.dtype == bool):
            raise TypeError(f"X must be a numeric array, got dtype {X.dtype}.")
        X = X.astype(float, copy=False)
        if X.ndim == 1 and self.n_features == 1:
            X = X[:, None]
        if X.ndim != 2:
            raise ValueError(
                f"X must be 2-D of shape (n_points, {self.n_features}), got shape {X.shape}.")
        if X.shape[1] != self.n_features:
            raise ValueError(
                f"X has {X.shape[1]} features but the concepts are defined on "
                f"n_features={self.n_features}.")
        if not np.all(np.isfinite(X)):
            raise ValueError("X contains NaN or inf; clean or impute it first.")
        return X


class ConceptClass:
    """An (infinite or large) concept class with a data-independent cover.

    Subclasses implement :meth:`cover`, returning a :class:`FiniteConcepts`.
    ``vc_dim(n_features)`` is the VC dimension the cover assumes.
    """

    def cover(self, bounds, gamma=None, max_size=None, random_state=None):
        raise NotImplementedError

    def vc_dim(self, n_features):
        raise NotImplementedError

    def __repr__(self):
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({params})"


# ---------------------------------------------------------------- helpers
def _resolve_bounds(bounds, n_features=None):
    """Validate public bounds; infer ``n_features`` from array bounds if not given."""
    if bounds is None:
        raise ValueError(
            "bounds=None: a data-independent cover needs the public domain box; "
            "pass bounds=(lower, upper), e.g. bounds=(0.0, 1.0).")
    if n_features is None:
        n_features = max(np.size(side) for side in check_bounds_pair(bounds))
    n_features = check_positive_int(n_features, "n_features")
    return check_bounds(bounds, n_features)


def _check_cover_args(gamma, max_size):
    """Validate ``gamma`` in (0, 1) and ``max_size`` >= 1; at least one must be given."""
    if gamma is None and max_size is None:
        raise ValueError(
            "cover() needs a target radius or a size: pass gamma=... (e.g. 0.01) "
            "and/or max_size=... (e.g. 10_000).")
    if gamma is not None:
        if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real) or np.isnan(gamma):
            raise TypeError(f"gamma must be a real number in (0, 1), got {gamma!r}.")
        gamma = float(gamma)
        if not 0 < gamma < 1:
            raise ValueError(
                f"gamma must lie in (0, 1) (a uniform-measure disagreement), got {gamma!r}.")
    if max_size is not None:
        max_size = check_positive_int(max_size, "max_size")
    return gamma, max_size


def _warn_capped(name, max_size, gamma, achieved):
    warnings.warn(
        f"{name}: gamma={gamma:.4g} needs more than max_size={max_size} concepts; "
        f"the cover is capped at max_size and its achieved gamma is {achieved:.4g}. "
        "Raise max_size or accept the larger gamma.",
        DefaultsWarning,
        stacklevel=user_stacklevel(),
    )


def _fmt(value):
    return f"{value:.6g}"
