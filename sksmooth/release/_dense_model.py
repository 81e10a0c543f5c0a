"""The dense release model: one log-weight per point of the product domain.

First implementation of :class:`~sksmooth.release._model.ReleaseModel`
(the factored graphical model of :mod:`sksmooth.release.graphical` is the
second). The state is the vector of normalised log-probabilities over the
whole grid, kept in log space (no underflow however many factors are
multiplied in); the probabilities are cached once per update because every
marginal needs them. Cost per operation: O(N) for N grid points, memory 2N
floats — the right choice for small universes (up to ~2^24 points).
"""

import numpy as np

from ._mw import log_sum_exp

__all__ = ["DenseModel"]


class DenseModel:
    """Distribution over the product domain ``shape``, stored densely in log space.

    Parameters
    ----------
    shape : tuple of int
        Levels of each attribute (``shape[i]`` levels coded ``0..shape[i]-1``).
    log_p : ndarray of shape ``shape`` or (N,), optional
        Log-weights (need not be normalised). Default: uniform.
    """

    def __init__(self, shape, log_p=None):
        self.shape = tuple(int(s) for s in shape)
        if log_p is None:
            log_p = np.full(self.shape, -np.log(float(np.prod(self.shape, dtype=float))))
        log_p = np.asarray(log_p, dtype=float).reshape(self.shape)
        self.log_p = log_p - log_sum_exp(log_p)
        self._p = np.exp(self.log_p)

    @classmethod
    def from_probabilities(cls, p, shape):
        """Model of a probability vector ``p`` (zeros allowed)."""
        with np.errstate(divide="ignore"):
            return cls(shape, np.log(np.asarray(p, dtype=float)))

    @property
    def size(self):
        """Number of stored log-weights (the memory cap is on this)."""
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def probabilities(self):
        """Flat probability vector of length :attr:`size` (read-only view)."""
        view = self._p.reshape(-1)
        view.flags.writeable = False
        return view

    def marginal(self, attrs):
        """Marginal table over the sorted attribute tuple ``attrs``."""
        attrs = tuple(int(a) for a in attrs)
        if attrs == tuple(range(len(self.shape))):
            return self._p.copy()
        # einsum reduces many small axes several times faster than sum(axis=...)
        return np.einsum(self._p, range(len(self.shape)), list(attrs))

    def multiply(self, attrs, log_factor):
        """New model proportional to ``self * exp(log_factor)`` (factor over ``attrs``)."""
        attrs = tuple(int(a) for a in attrs)
        factor = np.asarray(log_factor, dtype=float).reshape([self.shape[a] for a in attrs])
        broadcast = [self.shape[a] if a in attrs else 1 for a in range(len(self.shape))]
        # the factor's axes are in the order of ``attrs`` (sorted), i.e. grid order
        return DenseModel(self.shape, self.log_p + factor.reshape(broadcast))

    def sample(self, n_samples, rng):
        """``n_samples`` i.i.d. rows of level codes, shape ``(n_samples, len(shape))``."""
        cdf = np.cumsum(self._p.reshape(-1))
        u = rng.uniform(0.0, cdf[-1], size=int(n_samples))
        flat = np.minimum(np.searchsorted(cdf, u, side="right"), self.size - 1)
        return np.stack(np.unravel_index(flat, self.shape), axis=1).astype(np.int64)
