"""Query workloads of the grid-family releases, built from public inputs.

Named workloads (marginals, thresholds, ranges on a grid; thresholds,
ranges and a halfspace cover on a sampled universe), an object with
``evaluate``, a concept class with ``cover``, or a callable, described by
one :class:`Workload` parameter object; labels enter as one more attribute
(a query conjoined with each class).
"""

import numpy as np
from sklearn.base import BaseEstimator

from .._constraints import Check, Integer, NoneValue, check_parameter_object
from .._domain import grid_threshold
from ..classes import Halfspaces
from ._workload import DenseWorkload, GridWorkload

__all__ = ["Workload", "check_queries", "check_workload", "as_workload", "build_workload"]

_QUERY_NAMES = ("auto", "marginals", "thresholds", "ranges", "halfspaces")
_MAX_TABLE_CELLS = 2**24  # cells of one marginal table built from data counts


def check_queries(value, name):
    """A workload name or object (``Workload.kind``)."""
    if isinstance(value, str):
        if value not in _QUERY_NAMES:
            raise ValueError(f"{name} must be one of {_QUERY_NAMES}, an object with "
                             f"evaluate(X), or a concept class with cover(...); got {value!r}.")
        return value
    if hasattr(value, "evaluate") or hasattr(value, "cover") or (
            callable(value) and not isinstance(value, type)):
        return value
    raise TypeError(f"{name} must be one of {_QUERY_NAMES}, an object with evaluate(X), a "
                    f"concept class with cover(...), or a callable; got {type(value).__name__}.")


class Workload(BaseEstimator):
    """The query workload of a grid-family release (its ``queries`` parameter).

    ``queries=Workload(kind='marginals', marginal_width=3, n_queries=100)``;
    a bare name or object (``queries='marginals'``) stands for ``Workload(kind=...)``
    with the defaults below. Every choice is public (data independent).

    Parameters
    ----------
    kind : str or object, default='auto'
        ``'marginals'`` (all ``marginal_width``-way marginal cells; labels are
        an attribute), ``'thresholds'`` (CDF queries ``x_j <= t`` on each
        feature, at bin edges), ``'ranges'`` (axis-aligned boxes on every
        ``marginal_width``-subset of features), ``'halfspaces'`` (cover from
        :mod:`sksmooth.classes`, dense), an object with ``evaluate(X)`` (a
        finite workload), a concept class with ``cover(...)``, or a callable.
        ``'auto'``: on a grid universe the marginals of every width from 1 to
        ``marginal_width`` (all 1- and 2-way tables by default, as AIM's
        downward-closed workload: a round can then measure a 1-way table
        directly); thresholds on a sampled one.
    marginal_width : int, default=2
        Width ``k`` of k-way marginals / range-query boxes.
    n_queries : int or None, default=None
        Cap on the workload size: a uniformly random, data-independent subset
        of the queries is kept (the size of a concept class's cover, 2000 for
        ``None``; of a dense named workload, 1000 for ``None``).
    """

    _parameter_constraints = {
        "kind": Check(check_queries, "a workload name, object or callable"),
        "marginal_width": Integer(1, high=8, cap_reason=(
            "a k-way table has prod(levels) cells and there are C(d, k) tables; "
            "k > 8 is never cheaper than the full joint")),
        "n_queries": (NoneValue(), Integer(1, high=10**7, cap_reason=(
            "memory: the workload stores a row per query"))),
    }

    def __init__(self, *, kind="auto", marginal_width=2, n_queries=None):
        self.kind = kind
        self.marginal_width = marginal_width
        self.n_queries = n_queries


def as_workload(queries):
    """The :class:`Workload` a ``queries`` value stands for."""
    return queries if isinstance(queries, Workload) else Workload(kind=queries)


def check_workload(value, name):
    """The ``queries`` parameter: a :class:`Workload` (its parameters checked) or a
    workload name or object."""
    if isinstance(value, Workload):
        check_parameter_object(value, name)
        return value
    return check_queries(value, name)


def _check_width(uni, marginal_width):
    if marginal_width > uni.n_attributes:
        raise ValueError(
            f"marginal_width={marginal_width} exceeds the number of attributes "
            f"({uni.n_attributes}, labels included); lower marginal_width.")


def build_workload(queries, uni, rng):
    """The query workload on ``uni`` (public inputs and the public stream)."""
    spec = as_workload(queries)
    queries, marginal_width, n_queries = spec.kind, spec.marginal_width, spec.n_queries
    if isinstance(queries, str):
        lower_orders = queries == "auto"  # 'auto' marginals: the 1- to k-way tables
        if queries == "auto":
            queries = "marginals" if uni.kind == "grid" else "thresholds"
        if uni.kind == "grid" and queries != "halfspaces":
            if queries in ("marginals", "ranges"):
                _check_width(uni, marginal_width)
            if queries == "marginals":
                wl = GridWorkload.marginals_workload(uni, marginal_width, lower_orders)
            elif queries == "thresholds":
                wl = GridWorkload.ranges_workload(uni, 1, prefix_only=True)
            else:
                wl = GridWorkload.ranges_workload(uni, marginal_width)
            if max(wl.table_sizes, default=0) > _MAX_TABLE_CELLS:
                raise ValueError(
                    f"a {marginal_width}-way table has more than {_MAX_TABLE_CELLS} "
                    "cells; lower marginal_width or n_bins.")
            if n_queries is not None:
                wl = wl.subsample(n_queries, rng)
            return wl
        return _dense_named_workload(queries, uni, rng, n_queries)
    if hasattr(queries, "evaluate"):
        concepts = queries
    elif hasattr(queries, "cover"):
        concepts = queries.cover(bounds=(uni.lower, uni.upper),
                                 max_size=n_queries or 2000, random_state=rng)
    else:
        return _wrap_concepts(uni, queries, None, "callable workload")
    wl = _wrap_concepts(uni, concepts.evaluate, getattr(concepts, "n_concepts", None),
                             type(concepts).__name__)
    wl.gamma = getattr(concepts, "gamma", None)
    wl.gamma_certified = getattr(concepts, "gamma_certified", None)
    return wl


def _wrap_concepts(uni, evaluate, n_concepts, name):
    if n_concepts is None:
        X0, _ = uni.points(np.arange(min(uni.size, 2)))
        n_concepts = np.asarray(evaluate(X0)).shape[1]
    if uni.has_labels:
        return DenseWorkload(uni, _LabelConjunction(evaluate, uni.classes),
                             n_concepts * len(uni.classes), description=f"{name} x label")
    return DenseWorkload(uni, _FeaturesOnly(evaluate), n_concepts, description=name)


def _dense_named_workload(name, uni, rng, n_queries):
    """Thresholds/ranges/halfspaces as dense queries (sampled universe)."""
    lower, upper = uni.lower, uni.upper
    budget = n_queries or 1000
    if name == "halfspaces":
        cover = _halfspace_cover(lower, upper, budget, rng)
        wl = _wrap_concepts(uni, cover.evaluate, cover.n_concepts, "halfspaces cover")
        wl.gamma = getattr(cover, "gamma", None)
        wl.gamma_certified = getattr(cover, "gamma_certified", None)
        return wl
    if name == "marginals":
        raise ValueError(
            "queries='marginals' needs universe='grid' (cells of a product grid); "
            "on a sampled universe use 'thresholds', 'ranges' or 'halfspaces'."
        )
    evaluate = _IntervalQueries.on_grid(name, lower, upper, budget)
    return _wrap_concepts(uni, evaluate, len(evaluate.features),
                               f"{name} on a grid of the bounds")


def _halfspace_cover(lower, upper, budget, rng):

    return Halfspaces().cover(bounds=(lower, upper), max_size=budget, random_state=rng)


class _FeaturesOnly:
    """Evaluate feature-only queries, ignoring labels (picklable)."""

    def __init__(self, evaluate):
        self.evaluate = evaluate

    def __call__(self, X, y=None):
        return self.evaluate(X)


class _LabelConjunction:
    """Queries ``q_j(x) and y == c`` for every base query j and class c (picklable)."""

    def __init__(self, evaluate, classes):
        self.evaluate = evaluate
        self.classes = classes

    def __call__(self, X, y):
        base = np.asarray(self.evaluate(X), dtype=bool)
        onehot = np.asarray(y)[:, None] == self.classes[None, :]
        return (base[:, :, None] & onehot[:, None, :]).reshape(len(X), -1)


class _IntervalQueries:
    """``lo_j < x_{f_j} <= hi_j`` on raw features (``lo = -inf`` for thresholds and for
    ranges from the lower bound, so that rows on the bound are counted)."""

    def __init__(self, features, lo, hi):
        self.features = features
        self.lo = lo
        self.hi = hi

    @classmethod
    def on_grid(cls, name, lower, upper, budget):
        d = len(lower)
        per_feature = max(1, budget // max(d, 1))
        feats, lo_t, hi_t = [], [], []
        for j in range(d):
            if name == "thresholds":
                t = grid_threshold(lower[j], upper[j], np.arange(1, per_feature + 1),
                                   per_feature + 1)
                lo_j, hi_j = np.full(len(t), -np.inf), t
            else:
                m = max(2, int(np.sqrt(2 * per_feature)))
                edges = grid_threshold(lower[j], upper[j], np.arange(m + 1), m)
                a, b = np.triu_indices(m)
                # the first bin is closed: a row on the lower bound is counted
                lo_j, hi_j = np.where(a == 0, -np.inf, edges[a]), edges[b + 1]
            feats.append(np.full(len(lo_j), j))
            lo_t.append(lo_j)
            hi_t.append(hi_j)
        return cls(np.concatenate(feats), np.concatenate(lo_t), np.concatenate(hi_t))

    def __call__(self, X):
        V = np.asarray(X, dtype=float)[:, self.features]
        return (V > self.lo) & (V <= self.hi)
