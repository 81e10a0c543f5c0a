"""Finite classes given explicitly: a concept-by-domain matrix or callables."""

import math

import numpy as np

from .._validation import call_user_function
from ._base import FiniteConcepts

__all__ = ["FiniteClass"]


class FiniteClass(FiniteConcepts):
    """A finite concept class given as a matrix over a finite domain or as callables.

    Exactly one of ``matrix`` and ``functions`` must be given.

    Parameters
    ----------
    matrix : array-like of shape (n_concepts, n_domain), optional
        ``matrix[j, i]`` is the value of concept ``j`` on domain point ``i``:
        bool, ``{0, 1}`` or ``{-1, +1}`` (``+1``/``1`` read as True). The layout
        (concepts as rows) is the ``K x |X|`` matrix of SPEC §6.
    domain : array-like of shape (n_domain, n_features), optional
        The domain points, in the column order of ``matrix``. Default: the
        indices ``0, ..., n_domain - 1`` as a single feature. ``evaluate``
        looks points up exactly; a point outside the domain is evaluated as
        the first domain point (rows may be private: mapped, never refused).
    functions : list of callables, optional
        Each maps an array ``X`` of shape ``(n_points, n_features)`` to a
        boolean-like array of shape ``(n_points,)``. Evaluation calls each
        function once per chunk (a loop over concepts is unavoidable here).
    n_features : int, optional
        Required with ``functions``; inferred from ``domain`` otherwise.
    names : list of str, optional
        Descriptions returned by :meth:`describe`.
    vc_dim : int, optional
        VC dimension to report; default ``floor(log2(n_concepts))``, the
        trivial upper bound for a finite class.

    Attributes
    ----------
    matrix : ndarray of bool, shape (n_concepts, n_domain) or None
    domain : ndarray of float, shape (n_domain, n_features) or None
    functions : ndarray of object, shape (n_concepts,) or None
    gamma : float
        ``0.0`` (certified): a finite class is its own exact cover.

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.classes import FiniteClass
    >>> F = FiniteClass(matrix=[[1, -1, 1], [-1, -1, 1]])
    >>> F.evaluate([[2], [0]]).astype(int).tolist()
    [[1, 1], [1, 0]]
    """

    def __init__(self, matrix=None, domain=None, functions=None, n_features=None,
                 names=None, vc_dim=None):
        if (matrix is None) == (functions is None):
            raise ValueError("FiniteClass needs exactly one of matrix=... or functions=....")
        if matrix is not None:
            matrix = np.asarray(matrix)
            if matrix.ndim != 2 or matrix.shape[0] == 0 or matrix.shape[1] == 0:
                raise ValueError(
                    "matrix must be a non-empty 2-D array of shape (n_concepts, n_domain), "
                    f"got shape {matrix.shape}.")
            if matrix.dtype != bool:
                if not np.issubdtype(matrix.dtype, np.number):
                    raise TypeError(f"matrix must be bool or numeric, got dtype {matrix.dtype}.")
                ok = np.isin(matrix, (-1, 0, 1))
                if not np.all(ok) or (np.any(matrix == 0) and np.any(matrix == -1)):
                    raise ValueError(
                        "matrix must hold bool, {0, 1} or {-1, +1} values (not a mix of "
                        "0 and -1).")
                matrix = matrix > 0
            if domain is None:
                domain = np.arange(matrix.shape[1], dtype=float)[:, None]
            domain = np.asarray(domain, dtype=float)
            if domain.ndim == 1:
                domain = domain[:, None]
            if domain.ndim != 2 or domain.shape[0] != matrix.shape[1]:
                raise ValueError(
                    f"domain must have shape (n_domain={matrix.shape[1]}, n_features), "
                    f"got {domain.shape}.")
            if not np.all(np.isfinite(domain)):
                raise ValueError("domain must be finite.")
            if n_features is not None and n_features != domain.shape[1]:
                raise ValueError(
                    f"n_features={n_features} disagrees with domain of shape {domain.shape}.")
            domain = domain + 0.0  # map -0.0 to 0.0 for exact byte lookup
            keys = self._row_keys(domain)
            order = np.argsort(keys, kind="stable")
            if np.any(keys[order][1:] == keys[order][:-1]):
                raise ValueError("domain contains duplicate points.")
            self._sorted_keys, self._order = keys[order], order
            n_feat = domain.shape[1]
            self._param_names = ("matrix",)
        else:
            if callable(functions):
                functions = [functions]
            functions = list(functions)
            if not functions or not all(callable(f) for f in functions):
                raise TypeError("functions must be a non-empty list of callables.")
            if n_features is None:
                raise ValueError("FiniteClass(functions=...) needs n_features=....")
            n_feat = n_features
            arr = np.empty(len(functions), dtype=object)
            arr[:] = functions
            functions = arr
            self._param_names = ("functions",)
        n_concepts = len(matrix) if matrix is not None else len(functions)
        if names is not None:
            names = np.asarray(list(names), dtype=object)
            if names.shape != (n_concepts,):
                raise ValueError(f"names must have length n_concepts={n_concepts}.")
            self._param_names = self._param_names + ("names",)
        if vc_dim is None:
            vc_dim = int(math.floor(math.log2(n_concepts))) if n_concepts > 1 else 0
        bounds = None if matrix is None else (domain.min(axis=0), domain.max(axis=0))
        super().__init__(n_feat, bounds=bounds, gamma=0.0, gamma_certified=True,
                         vc_dim=vc_dim, is_bracketing=True, bracket_width=0.0)
        self.matrix = matrix
        self.domain = domain
        self.functions = functions
        self.names = names

    def cover(self, bounds=None, gamma=None, max_size=None, random_state=None):
        """A finite class is its own exact cover (``gamma = 0``); returns ``self``."""
        if max_size is not None and max_size < self.n_concepts:
            raise ValueError(
                f"max_size={max_size} < n_concepts={self.n_concepts}: a FiniteClass is "
                "not reduced; use subset() to pick concepts explicitly.")
        return self

    @staticmethod
    def _row_keys(A):
        A = np.ascontiguousarray(A, dtype=float)
        return A.view(np.dtype((np.void, A.dtype.itemsize * A.shape[1]))).ravel()

    def _lookup(self, X):
        """``(index, found)``: each row's index in ``domain`` (0 where absent)."""
        keys = self._row_keys(self._check_X(X) + 0.0)
        pos = np.minimum(np.searchsorted(self._sorted_keys, keys), len(self._sorted_keys) - 1)
        found = self._sorted_keys[pos] == keys
        return np.where(found, self._order[pos], 0), found

    def domain_index(self, X):
        """Index of each row of ``X`` in ``domain``; raises ``ValueError`` if absent."""
        index, found = self._lookup(X)
        if not np.all(found):
            # X may be private: never copy its values into the message
            raise ValueError(
                "X holds a row that is not a point of this FiniteClass's domain (values "
                "not shown, X may be private); a matrix-defined class is only defined "
                "on its domain points: map or clip X onto the domain first.")
        return index

    def _evaluate_chunk(self, X):
        if self.matrix is not None:  # a row off the domain (maybe private): the first point
            return self.matrix.T[self._lookup(X)[0]]
        out = np.empty((X.shape[0], self.n_concepts), dtype=bool)
        for j, f in enumerate(self.functions):
            values = np.asarray(call_user_function(f, f"functions[{j}]", X, private=True))
            if values.shape != (X.shape[0],):
                raise ValueError(
                    f"functions[{j}] returned shape {values.shape}, expected ({X.shape[0]},).")
            out[:, j] = values > 0 if values.dtype != bool else values
        return out

    def describe(self, j):
        j = self._check_index(j)
        if self.names is not None:
            return str(self.names[j])
        if self.functions is not None:
            return f"functions[{j}] ({getattr(self.functions[j], '__name__', 'callable')})"
        ones = np.flatnonzero(self.matrix[j])
        pts = ", ".join(str(self.domain[i].tolist()) for i in ones[:4])
        more = ", ..." if len(ones) > 4 else ""
        return f"matrix row {j}: True on {len(ones)} domain point(s) {{{pts}{more}}}"
