"""Rows from a calibrated junction tree, clique by clique.

The root clique's attributes are drawn jointly from its belief; every other
clique, visited root to leaves, draws its attributes outside the separator
from the conditional table ``p(x_C \\ S | x_S)``, the separator ``S`` being
already drawn for every row. This is exact: on a junction tree the joint
factorises as ``p(x_root) * prod_C p(x_{C \\ S} | x_S)``.

Vectorised over rows (no loop over rows or cells): the conditional table is
a matrix ``(separator configurations, new configurations)`` of cumulative
sums, each row ending at 1. Shifting row ``s`` by ``s`` makes the
concatenation of all rows one increasing array, so a single
``searchsorted(flat, s_i + u_i)`` performs the inverse-CDF draw of every row
``i`` in its own conditional distribution. The uniforms are systematic within
each separator configuration by default (:mod:`sksmooth.release._systematic`:
every row keeps its exact conditional distribution, the counts of a clique
given its separator are within one of their expectation) or i.i.d.
(``scheme='iid'``). Resolution: the shift costs
``log2(n_separator_configurations)`` bits of the uniform's 52, i.e.
conditional probabilities are resolved to ``~2^-52 * n_sep``.
"""

import numpy as np
from scipy.special import logsumexp

from .._systematic import row_uniforms
from ._domain import table_shape

__all__ = ["sample_rows", "conditional_cdf", "draw_conditional"]


def conditional_cdf(belief, sep):
    """Cumulative conditional table of ``belief`` given the attributes ``sep``.

    Returns ``(cdf, new_attrs)``: ``cdf`` of shape (n_sep_configs,
    n_new_configs), rows increasing to exactly 1, the configurations in C
    order over ``sep`` and over ``new_attrs = belief.attrs \\ sep``.
    """
    attrs = belief.attrs
    new = tuple(a for a in attrs if a not in sep)
    order = [attrs.index(a) for a in sep] + [attrs.index(a) for a in new]
    values = np.transpose(belief.values, order)
    n_sep = int(np.prod(values.shape[:len(sep)], dtype=np.int64))
    values = values.reshape(n_sep, -1)
    top = values.max(axis=1)
    empty = ~np.isfinite(top)
    if empty.any():
        # a separator configuration with no mass in this clique but some in its
        # parent (exp underflow in one of them): the clique's marginal of the new
        # attributes, so that every row gets a level
        values[empty] = logsumexp(values[~empty], axis=0)
        top[empty] = values[empty].max(axis=1)
    prob = np.exp(values - top[:, None])
    cdf = np.cumsum(prob, axis=1)
    cdf /= cdf[:, -1:]
    cdf[:, -1] = 1.0
    return cdf, new


def draw_conditional(cdf, sep_index, u):
    """Inverse-CDF draw of row ``i`` from ``cdf[sep_index[i]]`` with uniform ``u[i]``."""
    n_new = cdf.shape[1]
    shifted = (cdf + np.arange(cdf.shape[0])[:, None]).ravel()
    pos = np.searchsorted(shifted, sep_index + u, side="right")
    return np.minimum(pos - sep_index * n_new, n_new - 1)


def sample_rows(tree, beliefs, shape, n_samples, rng, scheme="systematic"):
    """``n_samples`` rows of level codes drawn from the calibrated ``beliefs``.

    ``scheme``: ``'systematic'`` or ``'iid'`` (module docstring)."""
    rows = np.zeros((n_samples, len(shape)), dtype=np.int64)
    for clique, edge in tree.parent_order():
        sep = () if edge is None else tree.separators[edge]
        cdf, new = conditional_cdf(beliefs[clique], sep)
        if sep:
            sep_index = np.ravel_multi_index(tuple(rows[:, sep].T), table_shape(shape, sep))
        else:
            sep_index = np.zeros(n_samples, dtype=np.int64)
        flat = draw_conditional(cdf, sep_index, row_uniforms(sep_index, rng, scheme))
        if new:
            rows[:, new] = np.stack(np.unravel_index(flat, table_shape(shape, new)), axis=1)
    return rows
