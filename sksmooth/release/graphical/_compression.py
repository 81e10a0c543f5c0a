"""MST's domain compression: rare levels merged after the noisy 1-way step.

MST (McKenna, Miklau & Sheldon 2021, §4, "compress domain") keeps, for every
column, the levels whose noisy 1-way count is at least ``3 sigma`` and
merges the others into one level. The rule reads only released (noisy)
counts, so it is post-processing. The 2-way measurements are then taken on
the compressed tables: fewer cells carry the same per-cell noise, so the
tables that matter are estimated more precisely. The merged level's 1-way
measurement is the sum of its levels' noisy counts (std ``sigma sqrt(m)``
for ``m`` merged levels, one std per cell in
:class:`~._estimation.Measurement`). The released model spreads a merged
level's mass uniformly over its levels (marginals and sampled rows), as the
reference implementation does when it maps rows back.

A column keeps its levels unchanged when all of them pass the threshold, or
when fewer than two would (merging would leave less than one bit).

References
----------
McKenna, Miklau & Sheldon, "Winning the NIST Contest: A scalable and
general approach to differentially private synthetic data", Journal of
Privacy and Confidentiality 11(3), 2021, arXiv:2108.04978, §4.
"""

import math

import numpy as np

from ._domain import as_attrs, table_shape
from ._estimation import Measurement

__all__ = ["LevelGroups", "CompressedCounts", "CompressedModel", "compress_levels"]

SUPPORT_THRESHOLD = 3.0  # keep a level whose noisy count is >= 3 sigma (MST §4)


class LevelGroups:
    """For every attribute, the group (compressed level) of each original level.

    Parameters
    ----------
    group_of : sequence of int ndarray
        ``group_of[a][level]`` in ``0 .. n_groups_a - 1``; kept levels first
        (in their order), the merged level last.
    """

    def __init__(self, group_of):
        self.group_of = [np.asarray(g, dtype=np.int64) for g in group_of]
        self.shape = tuple(int(g.max()) + 1 for g in self.group_of)
        self.group_size = [np.bincount(g) for g in self.group_of]
        # levels sorted by group, and where each group starts: for sampling back
        self._members = [np.argsort(g, kind="stable") for g in self.group_of]
        self._start = [np.concatenate([[0], np.cumsum(s)[:-1]]) for s in self.group_size]

    @property
    def original_shape(self):
        return tuple(len(g) for g in self.group_of)

    def compress_table(self, table, attrs):
        """Integer counts over ``attrs`` summed within groups."""
        table = np.asarray(table)
        index = np.ix_(*[self.group_of[a] for a in attrs])
        cells = np.ravel_multi_index(index, table_shape(self.shape, attrs))
        size = math.prod(table_shape(self.shape, attrs))
        flat = np.bincount(np.broadcast_to(cells, table.shape).ravel(),
                           weights=table.ravel().astype(float), minlength=size)
        return flat.reshape(table_shape(self.shape, attrs))

    def expand_table(self, table, attrs):
        """A compressed marginal spread uniformly over each group's levels."""
        out = np.asarray(table, dtype=float)
        for axis, a in enumerate(attrs):
            per_level = 1.0 / self.group_size[a][self.group_of[a]]
            out = np.take(out, self.group_of[a], axis=axis)
            out = out * per_level.reshape([-1 if i == axis else 1 for i in range(out.ndim)])
        return out

    def expand_rows(self, codes, rng):
        """Rows of compressed codes to original levels, uniform within a group."""
        out = np.empty_like(codes)
        for a, groups in enumerate(self.group_of):
            g = codes[:, a]
            offset = np.floor(rng.random(len(g)) * self.group_size[a][g]).astype(np.int64)
            offset = np.minimum(offset, self.group_size[a][g] - 1)
            out[:, a] = self._members[a][self._start[a][g] + offset]
        return out


def compress_levels(measurements):
    """``LevelGroups`` from the noisy 1-way measurements (one per attribute, in order).

    Returns ``None`` when no attribute is compressed.
    """
    group_of, changed = [], False
    for m in measurements:
        keep = np.asarray(m.values) >= SUPPORT_THRESHOLD * m.sigma
        n_keep = int(keep.sum())
        if keep.all() or n_keep < 2:
            group_of.append(np.arange(keep.size))
            continue
        groups = np.full(keep.size, n_keep, dtype=np.int64)
        groups[keep] = np.arange(n_keep)
        group_of.append(groups)
        changed = True
    return LevelGroups(group_of) if changed else None


def compress_measurement(groups, m):
    """A 1-way measurement re-expressed on its compressed levels (per-cell std)."""
    (a,) = m.attrs
    sums = np.bincount(groups.group_of[a], weights=m.values, minlength=groups.shape[a])
    sigma = float(m.sigma) * np.sqrt(groups.group_size[a].astype(float))
    return Measurement(m.attrs, sums, sigma)


class CompressedCounts:
    """The private count tables, summed within the level groups."""

    def __init__(self, data, groups):
        self.data, self.groups = data, groups
        self.shape = groups.shape
        self.n = data.n
        self._cache = {}

    def counts(self, attrs):
        attrs = as_attrs(attrs)
        if attrs not in self._cache:
            table = self.groups.compress_table(self.data.counts(attrs), attrs)
            self._cache[attrs] = np.rint(table).astype(np.int64)
        return self._cache[attrs]


class CompressedModel:
    """A model over compressed levels, read and sampled on the original levels.

    Marginals and rows of a merged level are spread uniformly over its
    levels. It is a finished release (``marginal``, ``sample``, ``size``,
    ``fits``); it is not updated further, so it has no ``multiply``.
    """

    def __init__(self, inner, groups):
        self.inner, self.groups = inner, groups
        self.shape = groups.original_shape

    @property
    def size(self):
        return self.inner.size

    def fits(self, attrs, max_size):
        return self.inner.fits(attrs, max_size)

    def marginal(self, attrs):
        attrs = as_attrs(attrs)
        return self.groups.expand_table(self.inner.marginal(attrs), attrs)

    def sample(self, n_samples, rng):
        return self.groups.expand_rows(self.inner.sample(n_samples, rng), rng)
