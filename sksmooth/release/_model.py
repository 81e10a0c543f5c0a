"""The released distribution behind one protocol (SPEC §2, §7).

A release estimator's state is a distribution over a finite product domain
(each attribute has ``shape[i]`` levels, coded ``0 .. shape[i]-1``). The MW
family only ever needs four operations on it, so every representation
implements exactly these — as private-pgm's dense and factored marginal
oracles share one signature:

- ``marginal(attrs)``: the marginal table over a sorted tuple of attribute
  indices (an ndarray of shape ``[shape[a] for a in attrs]``, sums to 1);
  ``marginals(tables)``: the list of them for many tuples (computed together);
- ``multiply(attrs, log_factor)``: a new model proportional to
  ``model * exp(log_factor)``, the factor defined over ``attrs``;
- ``sample(n_samples, rng, scheme)``: rows of level codes, ``(n, n_attrs)``,
  each with the model's distribution; ``scheme='systematic'`` (low-variance
  counts, :mod:`._systematic`) or ``'iid'``;
- ``size``: number of stored floats (for memory caps);
- ``fits(attrs, max_size)``: whether a factor over ``attrs`` keeps ``size``
  within ``max_size`` (AIM's model-size rule; always true for the dense
  vector, whose size never changes).

Implementations: the dense vector (:mod:`._dense_model`, fast for small
domains) and the factored graphical model (:mod:`.graphical`), chosen by one
rule from the domain size and the measured cliques.
"""

from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["ReleaseModel"]


@runtime_checkable
class ReleaseModel(Protocol):
    """What the MW family needs of a released distribution."""

    shape: tuple

    @property
    def size(self) -> int: ...

    def fits(self, attrs: tuple, max_size: int) -> bool: ...

    def marginal(self, attrs: tuple) -> np.ndarray: ...

    def marginals(self, tables: list) -> list: ...

    def multiply(self, attrs: tuple, log_factor: np.ndarray) -> "ReleaseModel": ...

    def sample(self, n_samples: int, rng: np.random.Generator,
               scheme: str = "systematic") -> np.ndarray: ...
