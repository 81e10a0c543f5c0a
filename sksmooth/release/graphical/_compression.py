"""MST's domain compression: rare levels merged after the noisy 1-way step.

MST (McKenna, Miklau & Sheldon 2021, §4, "compress domain") keeps, for every
column, the levels whose noisy 1-way count is at least ``3 sigma`` and
merges the others into one level. The rule reads only released (noisy)
counts, so it is post-processing. The 2-way measurements are then taken on
the compressed tables: fewer cells carry the same per-cell noise, so the
tables that matter are estimated more precisely. The merged level's 1-way
measurement is the sum of its levels' noisy counts (std ``sigma sqrt(m)``
for ``m`` merged levels, one std per cell in
:class:`~._estimation.Measurement`). The released model splits a merged
level's mass over its levels in proportion to their noisy 1-way counts
(clipped at 0; uniform if all are), i.e. the level within its group is taken
independent of the other columns — post-processing of released counts. (The
reference implementation maps merged rows back uniformly, which loses the
1-way information it already paid for.)

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

from .._systematic import row_uniforms
from ._domain import as_attrs, table_shape
from ._estimation import Measurement

__all__ = ["LevelGroups", "CompressedCounts", "CompressedModel", "compress_levels",
           "compress_measurement"]

SUPPORT_THRESHOLD = 3.0  # keep a level whose noisy count is >= 3 sigma (MST §4)


class LevelGroups:
    """For every attribute, the group (compressed level) of each original level.

    Parameters
    ----------
    group_of : sequence of int ndarray
        ``group_of[a][level]`` in ``0 .. n_groups_a - 1``.
    within : sequence of float ndarray, optional
        ``within[a][level]``: the share of its group's mass a level gets
        (non-negative; normalised within each group). Uniform when omitted
        or when a group's shares are all zero.
    """

    def __init__(self, group_of, within=None):
        self.group_of = [np.asarray(g, dtype=np.int64) for g in group_of]
        self.shape = tuple(int(g.max()) + 1 for g in self.group_of)
        self.group_size = [np.bincount(g) for g in self.group_of]
        within = [None] * len(self.group_of) if within is None else within
        self.within = [self._normalised(g, w) for g, w in zip(self.group_of, within)]
        # levels sorted by group, and each group's cumulative shares shifted by
        # its index (one increasing array): one searchsorted draws every row
        self._members = [np.argsort(g, kind="stable") for g in self.group_of]
        self._shifted_cdf = [self._cdf(g, w, m) for g, w, m in
                             zip(self.group_of, self.within, self._members)]

    @staticmethod
    def _normalised(groups, weights):
        weights = np.ones(groups.size) if weights is None else np.maximum(
            np.asarray(weights, dtype=float), 0.0)
        totals = np.bincount(groups, weights=weights)
        empty = totals[groups] <= 0  # a group without mass: uniform over its levels
        weights = np.where(empty, 1.0, weights)
        return weights / np.bincount(groups, weights=weights)[groups]

    @staticmethod
    def _cdf(groups, within, members):
        sorted_groups = groups[members]
        cum = np.cumsum(within[members])
        before = np.concatenate([[0.0], np.cumsum(np.bincount(groups, weights=within))])
        cdf = cum - before[sorted_groups]
        last = np.r_[sorted_groups[1:] != sorted_groups[:-1], True]
        cdf[last] = 1.0  # each group ends exactly at 1
        return cdf + sorted_groups

    @property
    def original_shape(self):
        return tuple(len(g) for g in self.group_of)

    def compress_table(self, table, attrs):
        """Counts over ``attrs`` summed within groups."""
        table = np.asarray(table)
        index = np.ix_(*[self.group_of[a] for a in attrs])
        cells = np.ravel_multi_index(index, table_shape(self.shape, attrs))
        size = math.prod(table_shape(self.shape, attrs))
        flat = np.bincount(np.broadcast_to(cells, table.shape).ravel(),
                           weights=table.ravel().astype(float), minlength=size)
        return flat.reshape(table_shape(self.shape, attrs))

    def expand_table(self, table, attrs):
        """A compressed marginal, each group's mass split by the levels' shares."""
        out = np.asarray(table, dtype=float)
        for axis, a in enumerate(attrs):
            out = np.take(out, self.group_of[a], axis=axis)
            out = out * self.within[a].reshape([-1 if i == axis else 1 for i in range(out.ndim)])
        return out

    def expand_rows(self, codes, rng, scheme="systematic"):
        """Rows of compressed codes to original levels, drawn by the shares within a group
        (uniforms by ``scheme``, :mod:`sksmooth.release._systematic`)."""
        out = np.empty_like(codes)
        for a, shifted in enumerate(self._shifted_cdf):
            g = codes[:, a]
            pos = np.searchsorted(shifted, g + row_uniforms(g, rng, scheme), side="right")
            end = np.cumsum(self.group_size[a])[g] - 1
            out[:, a] = self._members[a][np.minimum(pos, end)]
        return out


def compress_levels(measurements, exempt=()):
    """``LevelGroups`` from the noisy 1-way measurements (one per attribute, in order).

    Attributes in ``exempt`` keep their levels (a supervised release's
    label: merging labels would erase the very dependence a classifier
    trained on the synthetic rows needs). Returns ``None`` when no attribute
    is compressed.
    """
    group_of, changed = [], False
    for a, m in enumerate(measurements):
        keep = np.asarray(m.values) >= SUPPORT_THRESHOLD * m.sigma
        n_keep = int(keep.sum())
        if keep.all() or n_keep < 2 or a in exempt:
            group_of.append(np.arange(keep.size))
            continue
        groups = np.full(keep.size, n_keep, dtype=np.int64)
        groups[keep] = np.arange(n_keep)
        group_of.append(groups)
        changed = True
    # a merged level's share of its group: its noisy count (clipped at 0)
    within = [np.asarray(m.values, dtype=float) for m in measurements]
    return LevelGroups(group_of, within) if changed else None


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

    Marginals and rows of a merged level are split over its levels by
    their shares (:class:`LevelGroups`). It is a finished release (``marginal``, ``sample``, ``size``,
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
        return self.marginals([attrs])[0]

    def marginals(self, tables):
        tables = [as_attrs(t) for t in tables]
        inner = self.inner.marginals(tables)
        return [self.groups.expand_table(m, t) for t, m in zip(tables, inner)]

    def sample(self, n_samples, rng, scheme="systematic"):
        return self.groups.expand_rows(self.inner.sample(n_samples, rng, scheme), rng, scheme)
