"""Covers and Hedge engines for the epochs of :class:`SmoothHedgeClassifier`.

One strategy per kind of cover, picked by :func:`cover_strategy`:
:class:`AxisCovers` (thresholds, stumps; exact :class:`AxisHedge`),
:class:`DenseCovers` (every other class, sized by ``max_expert_rounds``;
:class:`DenseHedge`) and :class:`GivenCover` (user hypotheses).
Theory: Haghtalab, Roughgarden, Shetty, NeurIPS 2020, arXiv:2006.10129, App. C.1, Alg. 1.
"""

import inspect
import math
import warnings
from dataclasses import dataclass
from functools import partial

import numpy as np

from .._domain import grid_threshold
from ..classes import (ConceptClass, FiniteConcepts, Halfspaces, StumpConcepts, Stumps,
                       Thresholds)
from ..classes._base import _fmt
from ..exceptions import DefaultsWarning
from ._halfspace_labellings import HalfspaceLabellings
from ._hedge import AxisHedge, DenseHedge, LabelPairs, Lazy, _frozen

__all__ = ["MulticlassStumpConcepts", "EpochCover", "cover_strategy", "learning_rate_auto"]


def learning_rate_auto(n_experts, n_rounds):
    """``eta = sqrt(8 ln K / T)``: minimises ``ln K / eta + eta T / 8``.

    Cesa-Bianchi & Lugosi 2006, Cor. 2.2; ``K = 1`` is treated as ``K = 2``.
    """
    return float(np.sqrt(8.0 * np.log(max(n_experts, 2)) / max(n_rounds, 1)))


class MulticlassStumpConcepts:
    """Finite set of multiclass stumps: class ``right[j]`` if ``x[feature[j]] >=
    threshold[j]``, else class ``left[j]`` (class indices into ``classes_``).

    Attributes
    ----------
    feature, threshold, left, right : ndarray of shape (n_concepts,)
    n_features, bounds, gamma, gamma_certified, is_bracketing, bracket_width
        As for :class:`sksmooth.classes.FiniteConcepts`.
    """

    def __init__(self, feature, threshold, left, right, n_features, *, bounds, gamma,
                 bracket_width):
        self.feature, self.threshold, self.left, self.right = feature, threshold, left, right
        self.n_features = int(n_features)
        self.bounds = bounds
        self.gamma = float(gamma)
        self.gamma_certified = True
        self.is_bracketing = True
        self.bracket_width = float(bracket_width)

    @property
    def n_concepts(self):
        return int(len(self.feature))

    def predict_index(self, X, j):
        """Class index predicted by concept ``j`` on each row of ``X``."""
        return np.where(X[:, self.feature[j]] >= self.threshold[j], self.right[j], self.left[j])

    def describe(self, j):
        return (f"class {self.right[j]} if x[{self.feature[j]}] >= {_fmt(self.threshold[j])} "
                f"else class {self.left[j]}")

    def cover_info(self):
        return {"concepts": type(self).__name__, "size": self.n_concepts, "gamma": self.gamma,
                "gamma_certified": True, "is_bracketing": True,
                "bracket_width": self.bracket_width}


@dataclass
class EpochCover:
    """What an epoch plays on: the cover, its Hedge engine and its radius.

    A deep copy shares the cover (never modified after construction) and
    copies the engine shallowly (its arrays are read-only and replaced on
    update, never written in place): the snapshot that ``@atomic_update``
    takes before each ``partial_fit`` costs O(1), not O(cover size).
    ``source``: the cover, or a :class:`Lazy` building it on first read.
    """

    source: object
    engine: object
    gamma: float
    gamma_target: float
    learning_rate: float
    capped_by: str  # '' or the parameter that stopped the cover at gamma_target
    # one (ln(1 / prior mass of an expert), bracket width, grid cells or None) per grid
    # of the cover: the terms of its regret bound (one entry unless sigma='auto')
    components: tuple = ()

    @property
    def n_experts(self):
        return int(self.engine.n_experts)

    @property
    def cover(self):
        return self.source() if isinstance(self.source, Lazy) else self.source

    def __deepcopy__(self, memo):
        return EpochCover(self.source, self.engine.snapshot(), self.gamma, self.gamma_target,
                          self.learning_rate, self.capped_by, self.components)


@dataclass(frozen=True)
class EpochRequest:
    """Public inputs of one epoch's cover."""

    length: int
    gamma_target: float
    learning_rate: object  # 'auto' or float
    bounds: tuple
    n_features: int
    n_classes: int
    max_experts: int
    max_expert_rounds: int
    seed: int
    grid_targets: tuple = ()  # sigma='auto': one radius per grid sigma (axis covers)


class AxisCovers:
    """Certified grid covers of thresholds / stumps, binary or multiclass.

    ``N`` grid cells per feature give radius ``1 / (2N)`` and brackets of
    width ``1 / N`` (:class:`sksmooth.classes.Stumps`); a multiclass cover
    holds, at every interior grid threshold, every ordered pair of distinct
    classes, plus the ``k`` constant classifiers:
    ``K = k + d (N - 1) k (k - 1)``. The engine is built from the grids'
    thresholds; the cover's millions of stumps only when ``cover_`` is read.
    """

    def __init__(self, concepts):
        self.concepts = concepts

    def build(self, req):
        lower, upper = req.bounds
        live = np.flatnonzero(upper > lower)
        pairs = LabelPairs.binary() if req.n_classes == 2 else LabelPairs.all_pairs(req.n_classes)
        n_pairs = len(pairs.left)
        targets = req.grid_targets or (req.gamma_target,)
        n_needed = sorted({math.ceil(1.0 / (2.0 * t) - 1e-12) for t in targets}, reverse=True)
        grids = self._grid_sizes(n_needed, len(live) * n_pairs, req.n_classes,
                                 req.max_experts) if len(live) else [1]
        capped = "max_experts" if len(live) and grids[-1] < max(n_needed) else ""
        # per grid: the constants' point (the lowest threshold of feature 0: pair q there
        # predicts right[q]), then every interior threshold, each with every pair
        const_pair = np.array([np.flatnonzero((pairs.right == c) &
                                              (pairs.left == (c + 1) % req.n_classes))[0]
                               for c in range(req.n_classes)])
        n_points = np.array([(n - 1) * len(live) for n in grids])
        sizes = req.n_classes + n_pairs * n_points                     # experts per grid
        # prior: mass 1 / len(grids) per grid, spread evenly over its experts (mean 1)
        mass = sizes.sum() / (len(grids) * sizes)
        position, features, n_thresholds, position_threshold, point_mass = _grid_positions(
            grids, mass, live, lower, upper)
        count = np.repeat(point_mass[None], n_pairs, axis=0)
        count[const_pair, 0] += sum(mass.tolist())  # the constants' point is position 0
        experts = Lazy(partial(_grid_experts, position, n_points, const_pair, n_pairs, mass))
        # Hedge's regret against an expert of grid i is ln(len(grids) K_i) / eta + eta T / 8
        log_inv_prior = np.log(len(grids) * sizes)
        eta = _rate(req, int(len(grids) * sizes.max()))
        engine = AxisHedge(features, n_thresholds, position_threshold, count, experts,
                           sizes.sum(), pairs, req.n_classes, eta)
        gamma = 0.0 if len(live) == 0 else 1.0 / (2.0 * grids[-1])
        cover = Lazy(partial(_grid_cover, experts, features, n_thresholds, position_threshold,
                             pairs, req.n_features, self.concepts.vc_dim(req.n_features),
                             dict(bounds=(lower, upper), gamma=gamma, bracket_width=2.0 * gamma)))
        components = tuple((float(lp), 0.0 if len(live) == 0 else 1.0 / n, n * len(live))
                           for lp, n in zip(log_inv_prior, grids))
        return EpochCover(cover, engine, gamma, float(min(targets)), eta, capped, components)

    @staticmethod
    def _grid_sizes(n_needed, per_cell, n_constants, max_experts):
        """Cells of each grid of the union (``n_needed`` finest first), whose
        ``n_constants + (cells - 1) per_cell`` experts sum to at most
        ``max_experts``: the finest takes up to half of it (all of it alone), the
        coarser ones in turn what is left."""
        finest_share = max_experts // 2 if len(n_needed) > 1 else max_experts
        grids, used = [], 0
        for n in n_needed:
            room = max_experts - used if grids else finest_share
            cells = min(n, max(room - n_constants, 0) // per_cell + 1)
            if grids and (cells >= grids[-1] or cells < 2):
                continue  # as fine as a grid already held, or constants only
            grids.append(cells)
            used += n_constants + (cells - 1) * per_cell
        return sorted(grids)


def _grid_positions(grids, mass, live, lower, upper):
    """Each feature's distinct grid thresholds, sorted (feature 0's from the constants'
    point ``lower[0]``): ``(points, features, sizes, position_threshold, point_mass)``;
    ``points``: per grid, the position of each of its points (feature by feature);
    ``point_mass``: the prior mass of each position, ``mass`` per grid point."""
    features = np.union1d([0], live)
    points, thresholds, point_mass = [[] for _ in grids], [], []
    for f in features:
        values = [grid_threshold(lower[f], upper[f], np.arange(1, n if f in live else 1), n)
                  for n in grids]
        ends = np.cumsum([int(f == 0)] + [len(v) for v in values])
        every = np.concatenate([lower[:ends[0]]] + values)
        distinct = np.sort(every, kind="stable")  # of equal 0.0 and -0.0 the first stays
        distinct = distinct[np.diff(distinct, prepend=-np.inf) != 0]  # none: a 1-cell grid
        at = np.searchsorted(distinct, every)
        point_mass.append(np.bincount(at, np.repeat(np.r_[0.0, mass], np.diff(ends, prepend=0)),
                                      minlength=len(distinct)))
        at += sum(map(len, thresholds))
        thresholds.append(distinct)
        for part, start, end in zip(points, ends[:-1], ends[1:]):
            part.append(at[start:end])
    sizes = np.array([len(t) for t in thresholds])
    return (tuple(np.concatenate(p) for p in points), features[sizes > 0], sizes[sizes > 0],
            np.concatenate(thresholds), np.concatenate(point_mass))


def _grid_experts(position, n_points, const_pair, n_pairs, mass):
    """``(position, pair, log prior mass)`` of each expert of an :class:`AxisCovers`
    cover: per grid, its constants (position 0), then every pair at each of its points."""
    parts = []
    for points, n, m in zip(position, n_points, mass):
        at = np.concatenate([np.zeros(len(const_pair), np.intp), np.repeat(points, n_pairs)])
        pair = np.concatenate([const_pair, np.tile(np.arange(n_pairs), n)])
        parts.append((at, pair, np.full(len(at), np.log(m))))
    return tuple(_frozen(np.concatenate(a)) for a in zip(*parts))  # shared (Lazy)


def _grid_cover(experts, features, n_thresholds, position_threshold, pairs, n_features, vc_dim,
                meta):
    """The stumps of an :class:`AxisCovers` cover (built when ``cover_`` is read)."""
    position, pair, _ = experts()
    feature = np.repeat(features, n_thresholds)[position]
    threshold = position_threshold[position]
    if len(pairs.left) == 2:  # binary: pair 0 is sign +1 (x >= t -> class 1)
        cover = StumpConcepts(feature, threshold, np.where(pair == 0, 1, -1), n_features,
                              gamma_certified=True, is_bracketing=True, vc_dim=vc_dim, **meta)
    else:
        cover = MulticlassStumpConcepts(feature, threshold, pairs.left[pair], pairs.right[pair],
                                        n_features, **meta)
    for value in vars(cover).values():  # shared by copies and labels (Lazy): read-only
        for array in value if isinstance(value, tuple) else (value,):
            if isinstance(array, np.ndarray):
                _frozen(array)
    return cover


class GivenCover:
    """A finite set of hypotheses given by the user, used as is in every epoch."""

    def __init__(self, cover):
        self.cover = cover

    def build(self, req):
        cover = self.cover
        eta = _rate(req, cover.n_concepts)
        if isinstance(cover, StumpConcepts):  # one stump-cover test: the type
            engine = AxisHedge.from_experts(cover.feature, cover.threshold,
                                            np.where(cover.sign > 0, 0, 1), LabelPairs.binary(),
                                            2, eta)
        else:
            engine = DenseHedge(cover.n_concepts, eta)
        gamma = np.nan if cover.gamma is None else cover.gamma
        return EpochCover(cover, engine, gamma, req.gamma_target, eta, "",
                          ((float(np.log(max(cover.n_concepts, 1))), None, None),))


# Construction cost of a dense cover, in expert-round units per concept (the
# unit of max_expert_rounds): measured, rounded up.
_BUILD_COST = {"pairs": lambda k: 8.0 * math.sqrt(k), "sample": lambda k: 2000.0,
               "tuples": lambda k: 8000.0}
_HALFSPACE_MC = dict(n_mc_targets=100, n_mc_points=1000)


class DenseCovers:
    """Covers of any other concept class, sized by the work budget."""

    def __init__(self, concepts):
        self.concepts = concepts
        self._last = None  # (key, cover, gamma it was built for): see _reusable

    def _method(self, n_features):
        if isinstance(self.concepts, HalfspaceLabellings):
            return "tuples"
        if isinstance(self.concepts, Halfspaces):
            return "pairs" if (n_features == 2 and self.concepts.fit_intercept) else "sample"
        return None

    def _budget_size(self, req):
        """Largest K with K * (T + build cost per concept) <= max_expert_rounds."""
        build = _BUILD_COST.get(self._method(req.n_features), lambda k: 10.0)

        def fits(k):
            return k * (req.length + build(k)) <= req.max_expert_rounds

        # powers of two only: successive epochs often get the same size and
        # then reuse the cover instead of rebuilding it
        size = 4
        while 2 * size <= req.max_experts and fits(2 * size):
            size *= 2
        return size

    def _reusable(self, key, gamma_target):
        """The last cover serves again when built for the same size and box, and
        either it already meets the new target or it missed its own (then it
        was built up to the size cap, and a rebuild could only redraw it)."""
        if self._last is None or self._last[0] != key:
            return False
        cover, built_for = self._last[1], self._last[2]
        return cover.gamma <= gamma_target or cover.gamma > built_for

    def build(self, req):
        size = self._budget_size(req)
        key = (size, req.n_features, req.bounds[0].tobytes(), req.bounds[1].tobytes())
        target = min(req.gamma_target, 0.5)
        if self._reusable(key, target):
            cover = self._last[1]
        else:
            kwargs = dict(_HALFSPACE_MC) if isinstance(self.concepts, Halfspaces) else {}
            if "n_features" in _cover_parameters(self.concepts):
                kwargs["n_features"] = req.n_features
            with warnings.catch_warnings():
                # the caps are reported once per fit, in the estimator's own terms
                warnings.simplefilter("ignore", DefaultsWarning)
                cover = self.concepts.cover(bounds=req.bounds, gamma=target, max_size=size,
                                            random_state=req.seed, **kwargs)
            self._last = (key, cover, target)
        gamma = float(cover.gamma)
        capped = ""
        if gamma > req.gamma_target * (1 + 1e-9):
            # the next power of two would have broken this limit
            capped = "max_experts" if 2 * size > req.max_experts else "max_expert_rounds"
        eta = _rate(req, cover.n_concepts)
        width = getattr(cover, "bracket_width", None) \
            if getattr(cover, "is_bracketing", False) else None
        return EpochCover(cover, DenseHedge(cover.n_concepts, eta), gamma, req.gamma_target,
                          eta, capped, ((float(np.log(max(cover.n_concepts, 1))), width, None),))


def _cover_parameters(concepts):
    """Keyword parameters of ``concepts.cover`` (one home for the cover signature)."""
    return inspect.signature(concepts.cover).parameters


def _rate(req, n_experts):
    if req.learning_rate == "auto":
        return learning_rate_auto(n_experts, req.length)
    return float(req.learning_rate)


def cover_strategy(concepts):
    """The cover strategy for a resolved ``hypotheses`` value."""
    if isinstance(concepts, FiniteConcepts):
        return GivenCover(concepts)
    if isinstance(concepts, (Thresholds, Stumps)):
        return AxisCovers(concepts)
    if isinstance(concepts, ConceptClass):
        return DenseCovers(concepts)
    raise TypeError(f"unsupported hypotheses {type(concepts).__name__}")  # pragma: no cover


def supports_multiclass(strategy):
    return isinstance(strategy, AxisCovers)
