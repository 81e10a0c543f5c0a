"""Log-space factors over attribute subsets.

A :class:`Factor` is a table of log-values over a sorted tuple of
attributes (see :mod:`._domain`). Products are sums of log-tables (broadcast
over the union of the attributes); marginalising sums exponentials with
``logsumexp``, so nothing under- or overflows however peaked the model is.
"""

from dataclasses import dataclass

import numpy as np

from ..._logsumexp import logsumexp

__all__ = ["Factor"]


@dataclass(frozen=True)
class Factor:
    """``values[x_attrs]`` = log of a non-negative table over ``attrs``."""

    attrs: tuple
    values: np.ndarray

    @classmethod
    def zeros(cls, shape, attrs):
        """The constant factor 1 (log 0) over ``attrs``."""
        return cls(tuple(attrs), np.zeros(tuple(shape[a] for a in attrs)))

    def expand(self, attrs):
        """Values broadcastable over the superset ``attrs`` (length-1 axes inserted)."""
        if self.attrs == tuple(attrs):
            return self.values
        missing = set(self.attrs) - set(attrs)
        if missing:
            raise ValueError(f"cannot expand factor over {self.attrs} to {tuple(attrs)}.")
        view = tuple(self.values.shape[self.attrs.index(a)] if a in self.attrs else 1
                     for a in attrs)
        return self.values.reshape(view)

    def product(self, other):
        """Factor over the union of the attributes, log-values added."""
        union = tuple(sorted(set(self.attrs) | set(other.attrs)))
        return Factor(union, self.expand(union) + other.expand(union))

    def marginalize(self, keep):
        """``log sum exp`` over the attributes not in ``keep``."""
        keep = tuple(a for a in self.attrs if a in set(keep))
        axes = tuple(i for i, a in enumerate(self.attrs) if a not in keep)
        if not axes:
            return self
        return Factor(keep, logsumexp(self.values, axis=axes))

    def log_total(self):
        """``log sum exp`` of all values (the log of the table's total)."""
        return float(logsumexp(self.values))

    def probabilities(self):
        """The table ``exp(values)`` normalised to sum to 1."""
        return np.exp(self.values - self.log_total())
