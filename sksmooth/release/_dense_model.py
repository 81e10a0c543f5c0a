"""The dense release model: one probability per point of the product domain.

First implementation of :class:`~sksmooth.release._model.ReleaseModel`
(the factored graphical model of :mod:`sksmooth.release.graphical` is the
second). The state is the normalised probability vector over the whole
grid. A multiplicative update exponentiates its factor on the factor's own
cells (a table, not the grid), max-shifted so that no factor exceeds 1,
broadcasts it onto the grid and renormalises: one multiply per grid point,
no exponential of the whole grid. A model remembers the marginals it has
computed (it never changes), so the normaliser of a factor over a marginal
already computed is a sum over the table's cells, not over the grid.
Probabilities are kept at or above 1e-300, so the support is never lost to
underflow however many factors are multiplied in (the log-weights,
:attr:`DenseModel.log_p`, are then always finite): the grid is floored once
a lower bound on its smallest log-probability could fall below that. Cost
per operation: O(N) for N grid points — the right choice for small
universes (up to ~2^24 points).
"""

import math

import numpy as np

from .._logsumexp import logsumexp
from ._systematic import row_uniforms

__all__ = ["DenseModel"]

_TINY = 1e-300  # floor of a probability after an update (underflow guard)
_LOG_TINY = float(np.log(_TINY))
_LONG_ROW = 256  # contiguous elements per inner loop below which numpy's loops crawl


def sum_to(array, axes):
    """The sum of ``array`` over every axis not in the sorted ``axes`` (a marginal).

    Sums the run of axes with the longest contiguous rows first, so every
    numpy reduction reads long rows: ``einsum`` or ``sum(axis=...)`` over a grid
    whose last axes are small (a 2-level column last) read it with a short
    inner stride and were up to 100x slower.
    """
    keep = set(axes)
    x, left = array, list(range(array.ndim))  # the original axis of each axis of x
    while len(left) > len(keep):
        tails = [math.prod(x.shape[i + 1:]) for i in range(x.ndim)]
        i = max((i for i, a in enumerate(left) if a not in keep), key=tails.__getitem__)
        j = i + 1  # with the summed axes after it while the rows stay long
        while j < len(left) and left[j] not in keep and tails[j] >= _LONG_ROW:
            j += 1
        lead, run = math.prod(x.shape[:i]), math.prod(x.shape[i:j])
        x = x.reshape(lead, run, tails[j - 1]).sum(axis=1).reshape(x.shape[:i] + x.shape[j:])
        del left[i:j]
    return x.reshape([array.shape[a] for a in axes])


def times_factor(array, axes, factor):
    """``array * factor`` (a new array), ``factor`` over the sorted ``axes`` broadcast on
    the others; the factor is first spread over the trailing axes until the inner loop
    is long (numpy's broadcast loop over a small last axis is up to 40x slower)."""
    shape = array.shape
    broadcast = [shape[a] if a in axes else 1 for a in range(len(shape))]
    factor = np.reshape(factor, broadcast)
    k, tail = len(shape), 1
    while k > 0 and tail < _LONG_ROW:
        k -= 1
        tail *= shape[k]
    if k == 0 or all(broadcast[a] == shape[a] for a in range(k, len(shape))):
        return array * factor
    spread = np.broadcast_to(factor, tuple(broadcast[:k]) + shape[k:])
    lead = shape[:k] + (tail,)
    return (array.reshape(lead) * spread.reshape(tuple(broadcast[:k]) + (tail,))).reshape(shape)


class DenseModel:
    """Distribution over the product domain ``shape``, stored densely.

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
            p = np.full(self.shape, 1.0 / self.size)
        else:
            log_p = np.asarray(log_p, dtype=float).reshape(self.shape)
            p = np.exp(log_p - logsumexp(log_p.reshape(-1)))
        self._set(p, None)

    @classmethod
    def from_probabilities(cls, p, shape):
        """Model of a probability vector ``p`` (zeros allowed; normalised here)."""
        model = cls.__new__(cls)
        model.shape = tuple(int(s) for s in shape)
        p = np.asarray(p, dtype=float).reshape(model.shape)
        model._set(p / p.sum(), None)
        return model

    def _set(self, p, log_min):
        """State: probabilities ``p`` (owned), a lower bound ``log_min`` on their smallest
        log (``None``: computed here), and no marginal computed yet."""
        self._p = p
        if log_min is None:
            with np.errstate(divide="ignore"):
                log_min = float(np.log(p.min())) if p.size else 0.0
        self._log_min = log_min
        self._marginals = {}

    @property
    def size(self):
        """Number of stored probabilities (the memory cap is on this)."""
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def probabilities(self):
        """Flat probability vector of length :attr:`size` (read-only view)."""
        view = self._p.reshape(-1)
        view.flags.writeable = False
        return view

    @property
    def log_p(self):
        """Normalised log-probabilities (``-inf`` where a probability is 0)."""
        with np.errstate(divide="ignore"):
            return np.log(self._p)

    def fits(self, attrs, max_size):
        """Whether a factor over ``attrs`` keeps the model within ``max_size`` floats."""
        return True  # a factor never changes the dense model's size

    def marginal(self, attrs):
        """Marginal table over the sorted attribute tuple ``attrs``."""
        attrs = tuple(int(a) for a in attrs)
        if attrs == tuple(range(len(self.shape))):
            return self._p.copy()
        table = self._marginals.get(attrs)
        if table is None:  # from the smallest marginal computed over a superset, else the grid
            wider = [t for t in self._marginals if set(attrs) <= set(t)]
            if wider:
                source = min(wider, key=lambda t: self._marginals[t].size)
                table = sum_to(self._marginals[source], [source.index(a) for a in attrs])
            else:
                table = sum_to(self._p, attrs)
            self._marginals[attrs] = table
        return table.copy()

    def marginals(self, tables):
        """:meth:`marginal` of every attribute tuple in ``tables``."""
        return [self.marginal(t) for t in tables]

    def multiply(self, attrs, log_factor):
        """New model proportional to ``self * exp(log_factor)`` (factor over sorted ``attrs``)."""
        attrs = tuple(int(a) for a in attrs)
        factor = np.asarray(log_factor, dtype=float).reshape([self.shape[a] for a in attrs])
        factor = factor - factor.max()
        weights = np.exp(factor)
        table = self._marginals.get(attrs)
        if table is None:
            p = times_factor(self._p, attrs, weights)
            total = p.sum()
            p *= 1.0 / total
        else:  # the normaliser from the factor's own table: one pass over the grid
            total = float(np.sum(table * weights))
            p = times_factor(self._p, attrs, weights / total)
        log_min = self._log_min + float(factor.min()) - float(np.log(total))
        if log_min < _LOG_TINY:
            np.maximum(p, _TINY, out=p)
            log_min = None
        model = DenseModel.__new__(DenseModel)
        model.shape = self.shape
        model._set(p, log_min)
        return model

    def sample(self, n_samples, rng, scheme="systematic"):
        """``n_samples`` rows of level codes, shape ``(n_samples, len(shape))``;
        ``scheme``: ``'systematic'`` or ``'iid'`` (:mod:`._systematic`)."""
        cdf = np.cumsum(self._p.reshape(-1))
        u = cdf[-1] * row_uniforms(np.zeros(int(n_samples), dtype=np.int64), rng, scheme)
        flat = np.minimum(np.searchsorted(cdf, u, side="right"), self.size - 1)
        return np.stack(np.unravel_index(flat, self.shape), axis=1).astype(np.int64)
