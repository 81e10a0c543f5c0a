"""Classes on binary / categorical attributes: marginals, conjunctions, parities.

Finite classes on the integer grid of ``bounds``: the cover is the whole
workload (``gamma = 0``) unless ``max_size`` draws a public random subset.
Theory: Hardt, Ligett, McSherry, NeurIPS 2012, arXiv:1012.4763 (MWEM);
Block and Shetty, 2025, arXiv:2502.10292, Def. 5, Prop. 1 (separated classes).
"""

import itertools
import math
import warnings

import numpy as np

from .._validation import check_generator, check_positive_int
from ..exceptions import DefaultsWarning, user_stacklevel
from ._base import ConceptClass, FiniteConcepts, _resolve_bounds

__all__ = ["MarginalConcepts", "Marginals", "Conjunctions", "ParityConcepts", "Parities"]


class MarginalConcepts(FiniteConcepts):
    """Cells of marginal tables: conjunctions ``x[a_1] == v_1 and ... and x[a_k] == v_k``.

    Attributes
    ----------
    attributes : ndarray of intp, shape (n_concepts, k)
        Attribute indices of each cell; ``-1`` pads unused slots (so cells of
        different widths, e.g. conjunctions of 0..k literals, share one array).
    values : ndarray of int64, shape (n_concepts, k)
        Required value of each used attribute (ignored where attribute is -1).
    table : ndarray of intp, shape (n_concepts,)
        Index of the marginal table a cell belongs to.
    tables : list of tuple of int
        Attribute subset of each table; the cells of one table are disjoint
        and partition the domain, so a mechanism can measure a whole table
        with one noisy histogram (L1 sensitivity 2/n under substitution).
    table_offsets : ndarray of intp, shape (n_tables + 1,)
        Cells of table ``t`` are the concepts ``table_offsets[t]:table_offsets[t + 1]``.
    """

    _param_names = ("attributes", "values", "table")

    def __init__(self, attributes, values, table, tables, n_features, **metadata):
        super().__init__(n_features, **metadata)
        attributes = np.asarray(attributes, dtype=np.intp)
        values = np.asarray(values, dtype=np.int64)
        table = np.asarray(table, dtype=np.intp)
        if attributes.ndim != 2 or values.shape != attributes.shape or table.shape != (len(attributes),):
            raise ValueError("attributes and values must have shape (n_concepts, k) and table "
                             "shape (n_concepts,).")
        if attributes.size and (attributes.min() < -1 or attributes.max() >= n_features):
            raise ValueError(f"attributes must be in [0, {n_features}) or -1 (unused).")
        self.attributes, self.values, self.table = attributes, values, table
        self.tables = [tuple(int(a) for a in t) for t in tables]
        self._after_subset(None)

    def _after_subset(self, indices):
        if indices is not None:
            kept = np.unique(self.table)
            remap = np.full(len(self.tables), -1, dtype=np.intp)
            remap[kept] = np.arange(len(kept))
            self.tables = [self.tables[t] for t in kept]
            self.table = remap[self.table]
        contiguous = np.all(np.diff(self.table) >= 0) if len(self.table) else True
        if contiguous:
            self.table_offsets = np.searchsorted(self.table, np.arange(len(self.tables) + 1))
        else:
            self.table_offsets = None  # subset reordered the cells

    def _chunk_factor(self):
        return max(1, self.attributes.shape[1])

    def _evaluate_chunk(self, X):
        used = self.attributes >= 0
        Xa = X[:, np.where(used, self.attributes, 0)]  # (n, K, k)
        return np.all((Xa == self.values) | ~used, axis=2)

    def describe(self, j):
        j = self._check_index(j)
        parts = [f"x[{a}] == {v}" for a, v in zip(self.attributes[j], self.values[j]) if a >= 0]
        return " and ".join(parts) if parts else "always True"


def _integer_domain(bounds, n_features, name):
    lower, upper = _resolve_bounds(bounds, n_features)
    if not (np.all(lower == np.round(lower)) and np.all(upper == np.round(upper))):
        raise ValueError(
            f"bounds for {name} must be integers: feature f takes the values "
            "lower[f], ..., upper[f] (e.g. bounds=(0, 1) for binary attributes).")
    return lower.astype(np.int64), upper.astype(np.int64)


def _marginal_cells(lower, upper, subsets):
    """Cells of the marginal tables on ``subsets`` (a loop over tables, not cells)."""
    k = max((len(s) for s in subsets), default=0)
    attrs, vals, table = [], [], []
    for t, subset in enumerate(subsets):
        grids = [np.arange(lower[a], upper[a] + 1) for a in subset]
        combos = (np.stack(np.meshgrid(*grids, indexing="ij"), -1).reshape(-1, len(subset))
                  if subset else np.zeros((1, 0), dtype=np.int64))
        n = len(combos)
        a = np.full((n, k), -1, dtype=np.intp)
        v = np.zeros((n, k), dtype=np.int64)
        a[:, :len(subset)] = subset
        v[:, :len(subset)] = combos
        attrs.append(a)
        vals.append(v)
        table.append(np.full(n, t))
    return np.vstack(attrs), np.vstack(vals), np.concatenate(table)


class _MarginalLike(ConceptClass):
    def _workload(self, bounds, max_size, random_state, n_features, sizes, name):
        if max_size is not None:
            max_size = check_positive_int(max_size, "max_size")
        lower, upper = _integer_domain(bounds, n_features, name)
        d = len(lower)
        if max(sizes) > d:
            raise ValueError(f"{name}: k={max(sizes)} exceeds n_features={d}.")
        subsets = [s for size in sizes for s in itertools.combinations(range(d), size)]
        counts = np.array([math.prod(int(upper[a] - lower[a] + 1) for a in s) for s in subsets])
        keep = np.arange(len(subsets))
        gamma = 0.0
        if max_size is not None and counts.sum() > max_size:
            rng = check_generator(random_state)
            order = rng.permutation(len(subsets))
            fits = np.cumsum(counts[order]) <= max_size
            keep = np.sort(order[fits])
            if len(keep) == 0:
                raise ValueError(f"max_size={max_size} is smaller than one marginal table "
                                 f"({counts.min()} cells); raise max_size.")
            # certified: a dropped cell c is within P(c) + P(c') of any kept cell c'
            size = (upper - lower + 1).astype(float)
            meas = np.array([1.0 / math.prod(size[list(s)]) for s in subsets])
            dropped = np.setdiff1d(np.arange(len(subsets)), keep)
            gamma = float(meas[dropped].max() + meas[keep].min())
            warnings.warn(
                f"{name}: the workload has {counts.sum()} cells > max_size={max_size}; kept "
                f"{len(keep)} of {len(subsets)} tables at random ({counts[keep].sum()} cells), "
                f"achieved gamma={gamma:.4g} (requested gamma=0, the full workload).",
                DefaultsWarning, stacklevel=user_stacklevel())
        attrs, vals, table = _marginal_cells(lower, upper, [subsets[t] for t in keep])
        n_cells = len(attrs)
        return MarginalConcepts(
            attrs, vals, table, [subsets[t] for t in keep], d,
            bounds=(lower.astype(float), upper.astype(float)), gamma=gamma,
            gamma_certified=True, vc_dim=int(math.floor(math.log2(max(n_cells, 1)))),
            is_bracketing=gamma == 0.0, bracket_width=0.0 if gamma == 0.0 else None)


class Marginals(_MarginalLike):
    """All cells of all ``k``-way marginal tables on categorical attributes.

    Feature ``f`` takes the integer values ``lower[f], ..., upper[f]`` of the
    public ``bounds`` (binary: ``bounds=(0, 1)``). The workload is finite, so
    it is its own exact cover (``gamma = 0``, certified).

    Parameters
    ----------
    k : int >= 1
        Width of the marginals.

    Examples
    --------
    >>> from sksmooth.classes import Marginals
    >>> W = Marginals(2).cover(bounds=(0, 1), n_features=3)
    >>> W.n_concepts, W.tables, W.describe(5)
    (12, [(0, 1), (0, 2), (1, 2)], 'x[0] == 0 and x[2] == 1')
    """

    def __init__(self, k=2):
        self.k = k

    def vc_dim(self, n_features):
        return None  # reported per workload as floor(log2(n_cells))

    def cover(self, bounds, gamma=None, max_size=None, random_state=None, n_features=None):
        """The full workload of ``k``-way marginal cells, tables contiguous.

        ``gamma`` is accepted for a uniform signature and ignored (the
        workload is exact). If the workload exceeds ``max_size``, a random
        (data-independent) subset of whole tables is kept with a
        ``DefaultsWarning`` and a certified ``gamma = max P(dropped cell) +
        min P(kept cell)``. ``vc_dim`` is ``floor(log2(n_cells))``.
        """
        k = check_positive_int(self.k, "k")
        return self._workload(bounds, max_size, random_state, n_features, [k], "Marginals")


class Conjunctions(_MarginalLike):
    """Conjunctions of at most ``max_literals`` literals ``x[a] == v``.

    On binary attributes a literal is ``x[a]`` or ``not x[a]``. The class is
    the union of the ``j``-way marginal cells for ``j = 0..max_literals``
    (``j = 0``: the always-True conjunction); tables are as in
    :class:`Marginals`.
    """

    def __init__(self, max_literals=2):
        self.max_literals = max_literals

    def vc_dim(self, n_features):
        return None

    def cover(self, bounds, gamma=None, max_size=None, random_state=None, n_features=None):
        """The full (finite) class; same conventions as :meth:`Marginals.cover`."""
        k = check_positive_int(self.max_literals, "max_literals")
        return self._workload(bounds, max_size, random_state, n_features, list(range(k + 1)),
                              "Conjunctions")


def nearest_cube_points(X):
    """The nearest point of ``{0, 1}^d`` to each row, a fixed public map (a half as
    np.round reads it; NaN as 0, for the parity ERM oracle: a concept class refuses
    NaN before): a row off the cube is mapped, never refused (the refusal would
    depend on one private row)."""
    return np.round(np.clip(np.nan_to_num(X, nan=0.0), 0.0, 1.0))


class ParityConcepts(FiniteConcepts):
    """Parities (Fourier characters) on binary attributes ``x in {0, 1}^d``; any
    other point of the box is read as its nearest cube point (:func:`nearest_cube_points`).

    Concept ``j`` is True iff ``sum(x[i] for i in S_j)`` is even, i.e. the
    character ``chi_S(x) = (-1)^{sum_{i in S} x_i}`` equals ``+1`` (so the
    hypothesis read of True -> +1 is exactly ``chi_S``). Distinct characters
    are orthogonal under the uniform measure: they disagree on exactly half
    the cube, their L2 distance is ``rho = sqrt(2)``.

    Attributes
    ----------
    masks : ndarray of int64, shape (n_concepts,)
        ``S_j`` as a bitmask: bit ``i`` set iff ``i in S_j``.
    rho : float
        ``sqrt(2)``, the pairwise L2 separation (004).
    """

    _param_names = ("masks",)
    rho = math.sqrt(2.0)

    def __init__(self, masks, n_features, **metadata):
        n_features = check_positive_int(n_features, "n_features")
        if n_features > 62:
            raise ValueError(f"Parities support n_features <= 62 (int64 bitmasks), got {n_features}.")
        super().__init__(n_features, **metadata)
        masks = np.asarray(masks)
        if masks.ndim != 1 or (masks.size and not np.issubdtype(masks.dtype, np.integer)):
            raise TypeError("masks must be a 1-D array of integer bitmasks.")
        masks = masks.astype(np.int64)
        if masks.size and (masks.min() < 0 or masks.max() >= (1 << n_features)):
            raise ValueError(f"masks must lie in [0, 2**{n_features}).")
        self.masks = masks
        self._weights = (np.int64(1) << np.arange(n_features, dtype=np.int64))

    def _check_X(self, X):
        return nearest_cube_points(super()._check_X(X))

    def encode(self, X):
        """Points as int64 bitmasks (bit ``i`` = ``x[i]``)."""
        return self._check_X(X).astype(np.int64) @ self._weights

    def _evaluate_chunk(self, X):
        codes = X.astype(np.int64) @ self._weights
        return (np.bitwise_count(codes[:, None] & self.masks) & 1) == 0

    def subset_of(self, j):
        """Tuple of the attribute indices in ``S_j``."""
        j = self._check_index(j)
        m = int(self.masks[j])
        return tuple(i for i in range(self.n_features) if m >> i & 1)

    def describe(self, j):
        S = self.subset_of(j)
        if not S:
            return "always True (empty parity)"
        return " + ".join(f"x[{i}]" for i in S) + " is even"


class Parities(ConceptClass):
    """Parities / Fourier characters ``chi_S`` on ``{0, 1}^d`` with ``min_degree <= |S| <= max_degree``.

    The showcase rho-separated class of 004 (``rho = sqrt(2)``). VC dimension
    of all ``2**d`` parities is ``d``; for a degree range the reported value
    is ``min(d, floor(log2(n_concepts)))`` (an upper bound).

    Parameters
    ----------
    max_degree : int or None, default=None
        ``None``: all degrees up to ``d``.
    min_degree : int, default=1
        ``0`` includes the constant character (always True).

    Examples
    --------
    >>> from sksmooth.classes import Parities
    >>> P = Parities(max_degree=2).cover(bounds=(0, 1), n_features=3)
    >>> P.n_concepts, P.describe(3)
    (6, 'x[0] + x[1] is even')
    """

    def __init__(self, max_degree=None, min_degree=1):
        self.max_degree = max_degree
        self.min_degree = min_degree

    def vc_dim(self, n_features):
        return int(n_features)

    def cover(self, bounds, gamma=None, max_size=None, random_state=None, n_features=None):
        """All parities in the degree range (``gamma = 0``, certified).

        Distinct parities disagree on exactly half the cube, so a cover with
        radius < 1/2 must hold the whole class. If it exceeds ``max_size``, a
        random (data-independent) subset is kept with a ``DefaultsWarning`` and
        the certified radius is then exactly ``1/2``. ``bounds`` must be
        ``(0, 1)``. Ordered by degree, then lexicographically.
        """
        lower, upper = _integer_domain(bounds, n_features, "Parities")
        if np.any(lower != 0) or np.any(upper != 1):
            raise ValueError("bounds for Parities must be (0, 1): attributes are binary.")
        d = len(lower)
        if d > 62:
            raise ValueError(f"Parities support n_features <= 62, got {d}.")
        min_deg = check_positive_int(self.min_degree, "min_degree", minimum=0)
        max_deg = d if self.max_degree is None else check_positive_int(self.max_degree, "max_degree", minimum=0)
        if min_deg > max_deg:
            raise ValueError(f"min_degree={min_deg} > max_degree={max_deg}.")
        max_deg = min(max_deg, d)
        total = sum(math.comb(d, j) for j in range(min_deg, max_deg + 1))
        if max_size is not None:
            max_size = check_positive_int(max_size, "max_size")
        if total > 5_000_000 and (max_size is None or max_size > 5_000_000):
            raise ValueError(f"Parities: {total} characters is too many to enumerate; pass "
                             "max_size=... (random subset) or a smaller max_degree.")
        masks = np.array([sum(1 << i for i in S) for j in range(min_deg, max_deg + 1)
                          for S in itertools.combinations(range(d), j)], dtype=np.int64) \
            if total <= 5_000_000 else None
        gamma = 0.0
        if max_size is not None and total > max_size:
            rng = check_generator(random_state)
            if masks is None:
                fits = max((k for k in range(min_deg, max_deg + 1)
                            if sum(math.comb(d, j) for j in range(min_deg, k + 1)) <= 5_000_000),
                           default=None)
                fix = ("use fewer features" if fits is None else
                       f"pass hypotheses=Parities(min_degree={min_deg}, max_degree={fits}) or "
                       "a smaller degree, or use fewer features")
                raise ValueError(
                    f"Parities: {total} characters of degree {min_deg} to {max_deg} on {d} "
                    f"features are too many to sample a subset from (at most 5e6); {fix}.")
            masks = masks[np.sort(rng.choice(len(masks), size=max_size, replace=False))]
            gamma = 0.5
            warnings.warn(
                f"Parities: {total} characters > max_size={max_size}; kept a random subset, "
                "achieved gamma=0.5 (distinct parities disagree on half the cube).",
                DefaultsWarning, stacklevel=user_stacklevel())
        vc = min(d, int(math.floor(math.log2(len(masks))))) if len(masks) > 1 else 0
        if min_deg <= 1 and max_deg == d and gamma == 0.0:
            vc = d
        return ParityConcepts(masks, d, bounds=(lower.astype(float), upper.astype(float)),
                              gamma=gamma, gamma_certified=True, vc_dim=vc,
                              is_bracketing=gamma == 0.0, bracket_width=0.0 if gamma == 0.0 else None)
