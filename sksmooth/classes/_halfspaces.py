"""Halfspaces (affine and through the origin) and their data-independent covers.

``method='pairs'`` (2-D: one line per labelling of ``m`` uniform points) and
``method='sample'`` (random hyperplanes, each in both orientations, any
dimension); both radii are estimated by Monte Carlo (``gamma_certified=False``). Theory: Haghtalab,
Roughgarden, Shetty, NeurIPS 2020, arXiv:2006.10129, App. C.1.
"""

import functools
import math
import threading
import warnings

import numpy as np

from .._validation import check_generator, check_positive_int
from ..exceptions import DefaultsWarning, user_stacklevel
from ._base import (
    ConceptClass,
    FiniteConcepts,
    _check_cover_args,
    _fmt,
    _resolve_bounds,
)

__all__ = ["HalfspaceConcepts", "Halfspaces", "estimate_cover_radius"]

_DEFAULT_SAMPLE_CAP = 100_000  # default max_size of 'sample' covers
_DEFAULT_PAIRS_CAP = 1_000_000  # default max_size of 'pairs' covers (m <= 1000)


_FIRST_READ = threading.Lock()


class HalfspaceConcepts(FiniteConcepts):
    """Finite set of closed halfspaces ``coef[j] @ x + intercept[j] >= 0``.

    A row with ``coef[j] == 0`` is a constant concept (True iff
    ``intercept[j] >= 0``).

    Attributes
    ----------
    coef : ndarray of float, shape (n_concepts, n_features)
    intercept : ndarray of float, shape (n_concepts,)
        All zeros for a through-origin cover.
    """

    _param_names = ("coef", "intercept")

    def __init__(self, coef, intercept, **metadata):
        coef = np.asarray(coef, dtype=float)
        intercept = np.asarray(intercept, dtype=float)
        if coef.ndim != 2 or intercept.shape != (coef.shape[0],):
            raise ValueError(
                "coef must have shape (n_concepts, n_features) and intercept shape "
                f"(n_concepts,), got {coef.shape} and {intercept.shape}.")
        if not (np.all(np.isfinite(coef)) and np.all(np.isfinite(intercept))):
            raise ValueError("coef and intercept must be finite.")
        super().__init__(coef.shape[1], **metadata)
        self.coef, self.intercept, self._complements = coef, intercept, None

    @property
    def gamma(self):  # a sampled cover's Monte Carlo estimate: computed when first read
        with _FIRST_READ:  # the estimator's state is shared: one thread computes it
            if callable(self._gamma):
                self._gamma = float(self._gamma())
        return self._gamma

    @gamma.setter
    def gamma(self, value):
        self._gamma = value

    def __getstate__(self):  # copies, pickles and hashes hold the value
        return dict(vars(self), _gamma=self.gamma)

    def complements(self):
        """Index of each concept's complement ``(-coef[j], -intercept[j])`` (exact
        negation) in the set, ``-1`` if none; a matching (each index in one pair).
        Cached, and re-derived when a cached pair is no longer an exact negation
        (``coef`` or ``intercept`` changed in place, a subset)."""
        keys = np.ascontiguousarray(np.column_stack([self.coef, self.intercept]))
        cached = self._complements
        if cached is not None and len(cached) == len(keys):
            paired = np.flatnonzero(cached >= 0)
            if np.array_equal(keys[cached[paired]], -keys[paired]):
                return cached
        partner = np.full(len(keys), -1, np.intp)
        if len(keys):
            as_bytes = np.dtype((np.void, keys.shape[1] * keys.itemsize))
            own, negated = keys.view(as_bytes).ravel(), (-keys).view(as_bytes).ravel()
            order = np.argsort(own, kind="stable")
            at = np.minimum(np.searchsorted(own[order], negated), len(own) - 1)
            found = np.where(own[order][at] == negated, order[at], -1)
            hit = np.flatnonzero(found >= 0)
            mutual = hit[found[found[hit]] == hit]
            partner[mutual] = found[mutual]
        self._complements = partner
        return partner

    def _evaluate_chunk(self, X):
        # fl(a + b) >= 0 exactly when a >= -b (a rounded sum keeps the sign of the
        # exact one): the same values as ``X @ coef.T + intercept >= 0``, one pass less
        return X @ self.coef.T >= -self.intercept

    def describe(self, j):
        j = self._check_index(j)
        terms = [f"{_fmt(c)}*x[{f}]" for f, c in enumerate(self.coef[j]) if c != 0]
        b = self.intercept[j]
        if not terms:
            return "always True" if b >= 0 else "always False"
        lhs = " + ".join(terms).replace("+ -", "- ")
        if b != 0:
            lhs += f" + {_fmt(b)}" if b >= 0 else f" - {_fmt(-b)}"
        return f"{lhs} >= 0"


class Halfspaces(ConceptClass):
    """Linear threshold functions ``w @ x + b >= 0``.

    Parameters
    ----------
    fit_intercept : bool, default=True
        ``True``: affine halfspaces (VC dimension ``d + 1``); ``False``:
        halfspaces through the origin of the original coordinates (VC ``d``).

    Examples
    --------
    >>> from sksmooth.classes import Halfspaces
    >>> cover = Halfspaces().cover(bounds=(0.0, [1.0, 1.0]), n_points=20, random_state=0)
    >>> cover.n_concepts, cover.gamma_certified, cover.vc_dim
    (382, False, 3)
    """

    def __init__(self, fit_intercept=True):
        self.fit_intercept = fit_intercept

    def vc_dim(self, n_features):
        return int(n_features) + (1 if self.fit_intercept else 0)

    def cover(self, bounds, gamma=None, max_size=None, random_state=None, n_features=None,
              method="auto", n_points=None, n_mc_targets=200, n_mc_points=2000):
        """Data-independent cover with a Monte Carlo radius estimate.

        Parameters
        ----------
        bounds : tuple (lower, upper)
            Public box; every feature needs ``lower < upper``.
        gamma : float in (0, 1), optional
            Target radius. ``'pairs'``: starts from ``m = ceil(8 / gamma)``
            points (calibrated: the estimated radius is then about
            ``0.85 gamma``) and redraws with ``1.5 m`` points until the
            estimate is ``<= gamma``; ``'sample'``: grows the cover until
            the estimate is ``<= gamma``. If the estimate still exceeds
            ``gamma`` (because of ``max_size``), a ``DefaultsWarning`` reports it.
        max_size : int, optional
            Cap on the number of concepts (``'pairs'``: ``m (m - 1) + 2 <=
            max_size``, default cap 1 000 000 unless ``n_points`` is given;
            ``'sample'``: default cap 100 000). A ``DefaultsWarning`` reports a
            binding cap (estimated radius above ``gamma``).
        random_state : None, int or Generator
            Seeds the points / sampled halfspaces and the Monte Carlo.
        n_features : int, optional
            Needed only when both bounds are scalars.
        method : {'auto', 'pairs', 'sample'}, default='auto'
            ``'auto'`` is ``'pairs'`` for 2-D affine halfspaces, else ``'sample'``.
        n_points : int >= 2, optional
            ``'pairs'`` only: the number ``m`` of uniform points.
        n_mc_targets, n_mc_points : int
            Monte Carlo sizes for :func:`estimate_cover_radius`.

        Returns
        -------
        HalfspaceConcepts
            ``gamma`` is the Monte Carlo estimate (``gamma_certified=False``);
            ``is_bracketing=False``. Extra attributes: ``method``,
            ``points_`` (the ``m`` points, ``'pairs'`` only).
        """
        if method not in ("auto", "pairs", "sample"):
            raise ValueError(f"method must be 'auto', 'pairs' or 'sample', got {method!r}.")
        if gamma is None and max_size is None and n_points is None:
            raise ValueError(
                "cover() needs gamma=..., max_size=... or (method='pairs') n_points=....")
        if gamma is not None or max_size is not None:
            gamma, max_size = _check_cover_args(gamma, max_size)
        n_mc_targets = check_positive_int(n_mc_targets, "n_mc_targets")
        n_mc_points = check_positive_int(n_mc_points, "n_mc_points", minimum=10)
        lower, upper = _resolve_bounds(bounds, n_features)
        if np.any(upper <= lower):
            raise ValueError(
                "bounds: Halfspaces.cover needs lower < upper on every feature (features "
                f"{np.flatnonzero(upper <= lower).tolist()[:10]} have zero width); drop them.")
        d = len(lower)
        rng = check_generator(random_state)
        if method == "auto":
            method = "pairs" if (d == 2 and self.fit_intercept) else "sample"
        if method == "pairs" and not (d == 2 and self.fit_intercept):
            raise ValueError("method='pairs' is implemented for 2-D affine halfspaces only; "
                             "use method='sample'.")
        if n_points is not None and method != "pairs":
            raise ValueError("n_points is used by method='pairs' only.")
        sampler = _HalfspaceSampler(lower, upper, self.fit_intercept)
        targets = sampler.sample(n_mc_targets, rng)
        meta = dict(bounds=(lower, upper), gamma_certified=False, vc_dim=self.vc_dim(d))

        cover, within = (self._pairs_cover(gamma, max_size, n_points, sampler, targets, meta,
                                           n_mc_points, rng, lower, upper) if method == "pairs"
                         else self._sampled_cover(gamma, max_size, sampler, targets, meta,
                                                  n_mc_points, rng, lower, upper, d))
        cover.method = method
        if gamma is not None and not within:
            warnings.warn(
                "Halfspaces.cover: the estimated radius (cover.gamma) exceeds the requested "
                f"gamma={gamma:.4g} at size {cover.n_concepts} (max_size={max_size}, default "
                f"cap {_DEFAULT_PAIRS_CAP if method == 'pairs' else _DEFAULT_SAMPLE_CAP}); raise "
                "max_size (or n_points) or accept the larger gamma.",
                DefaultsWarning, stacklevel=user_stacklevel())
        return cover

    def _pairs_cover(self, gamma, max_size, n_points, sampler, targets, meta, n_mc_points,
                     rng, lower, upper):
        """The 'pairs' construction (2-D affine); returns ``(cover, radius <= gamma)``."""
        m = (check_positive_int(n_points, "n_points", minimum=2) if n_points is not None
             else 2 if gamma is None else max(2, math.ceil(8.0 / gamma)))
        cap = _DEFAULT_PAIRS_CAP if max_size is None and n_points is None else max_size
        m_cap = None
        if cap is not None:
            if cap < 4:
                raise ValueError(f"max_size={cap} is too small; pass max_size >= 4.")
            m_cap = (1 + math.isqrt(4 * cap - 7)) // 2  # the largest m with m (m - 1) + 2 <= cap
            if n_points is not None and m > m_cap:
                warnings.warn(f"Halfspaces.cover: n_points={m} gives {m * (m - 1) + 2} "
                              f"concepts > max_size={cap}; using n_points={m_cap}.",
                              DefaultsWarning, stacklevel=user_stacklevel())
            m = m_cap if (n_points is None and gamma is None) else min(m, m_cap)
        while True:
            unit_points = rng.uniform(size=(m, 2))
            coef_n, icpt_n = _pair_lines(unit_points)
            coef, icpt = sampler.to_original(coef_n, icpt_n)
            cover = HalfspaceConcepts(coef, icpt, **meta)
            cover.points_ = lower + unit_points * (upper - lower)
            cover.gamma, _ = estimate_cover_radius(
                cover, targets, n_points=n_mc_points, random_state=rng,
                selection_points=cover.points_, exact_lookup=True)
            # gamma only (no n_points): grow m by 1.5x until the estimate reaches gamma
            if n_points is not None or gamma is None or cover.gamma <= gamma or m == m_cap:
                break
            m = math.ceil(1.5 * m) if m_cap is None else min(math.ceil(1.5 * m), m_cap)
        return cover, gamma is None or cover.gamma <= gamma

    def _sampled_cover(self, gamma, max_size, sampler, targets, meta, n_mc_points, rng,
                       lower, upper, d):
        """The 'sample' construction (any dimension); ``(cover, radius <= gamma)``."""
        cap = max_size if max_size is not None else _DEFAULT_SAMPLE_CAP
        if cap < 3:
            raise ValueError(f"max_size={cap} is too small; pass max_size >= 3.")
        sizes = [64 * 4**i for i in range(cap.bit_length() * (gamma is not None))
                 if 64 * 4**i < cap] + [cap]  # with a gamma: grown until within it
        coef, icpt = sampler.to_original(*_constants(d)) if self.fit_intercept else \
            (np.zeros((0, d)), np.zeros(0))
        partner = np.full(len(coef), -1)  # the constants are not exact negations
        est = _RadiusEstimator(targets, *[lower + rng.uniform(size=(n_mc_points, d)) * (
            upper - lower) for _ in range(2)], False, 4096)  # selection, fresh points
        for size in sizes:
            new = size - len(coef)
            c_new, i_new = sampler.to_original(*sampler.sample_unit((new + 1) // 2, rng))
            # each hyperplane in both orientations (exact negations: label counts get
            # a concept's complement from the concept's own products)
            coef = np.vstack([coef, np.vstack([c_new, -c_new])[:new]])
            icpt = np.concatenate([icpt, np.concatenate([i_new, -i_new])[:new]])
            half, pair = (new + 1) // 2, np.arange(new // 2) + len(partner)
            partner = np.concatenate([partner, pair + half, np.full(half - len(pair), -1),
                                      pair])  # complements() without its sort
            cover = HalfspaceConcepts(coef, icpt, **meta)
            cover._complements = partner
            # the estimate is a max: one target above gamma tells it is (all: when read)
            within = gamma is None or (est.estimate(cover, np.arange(1))[0] <= gamma
                                       and est.radius(cover) <= gamma)
            if within:  # (no gamma: one stage)
                break
        cover.gamma = functools.partial(est.radius, cover)
        return cover, within


def estimate_cover_radius(cover, targets, n_points=2000, random_state=None,
                          selection_points=None, exact_lookup=False, block_size=4096):
    """Monte Carlo estimate of the uniform-measure radius of ``cover`` over ``targets``.

    For each target concept, the nearest cover element is chosen on
    *selection* points (``selection_points``, or ``n_points`` fresh uniform
    points), then its disagreement with the target is measured on
    ``n_points`` *fresh* uniform points of ``cover.bounds``. Because the
    selected element is not necessarily the nearest one, each per-target
    value estimates an upper bound on the distance to the cover, without the
    optimistic bias of minimising over noisy estimates. The estimate is the
    maximum over targets (so it is a statistic of the targets' sample).

    Parameters
    ----------
    cover : FiniteConcepts
        Must have ``bounds``.
    targets : FiniteConcepts
        A sample of concepts of the class being covered.
    n_points : int
    random_state : None, int or Generator
    selection_points : ndarray of shape (n, n_features), optional
        Default: ``n_points`` fresh uniform points.
    exact_lookup : bool, default=False
        First look for a cover element with exactly the target's labelling
        of the selection points (fast when these are the cover's own
        construction points, ``points_`` of a 'pairs' cover); targets without
        an exact match fall back to the nearest-by-Hamming search.
    block_size : int
        Cover concepts evaluated at a time (memory bound).

    Returns
    -------
    gamma_hat : float
    per_target : ndarray of shape (n_targets,)
    """
    if cover.bounds is None:
        raise ValueError("cover.bounds is None: the uniform measure needs bounds.")
    rng = check_generator(random_state)
    lower, upper = cover.bounds
    if selection_points is None:
        selection_points = lower + rng.uniform(size=(n_points, len(lower))) * (upper - lower)
    fresh = lower + rng.uniform(size=(n_points, len(lower))) * (upper - lower)
    return _RadiusEstimator(targets, selection_points, fresh, exact_lookup,
                            block_size).estimate(cover)


class _RadiusEstimator:
    """Incremental nearest-element search on selection points + fresh-point measurement.

    ``estimate(cover, todo)`` scans for the targets ``todo`` the concepts added since, in
    the stages the cover grew by (the same nearest element whenever): each concept once.
    """

    def __init__(self, targets, selection_points, fresh_points, exact_lookup, block_size):
        self.points, self.fresh = selection_points, fresh_points
        self.T_sel, self.T_fresh = (targets.evaluate(p) for p in (selection_points, fresh_points))
        self.exact_lookup, self.block_size = exact_lookup, block_size
        n_targets = self.T_sel.shape[1]
        self.best, self.best_idx = np.full(n_targets, np.inf), np.zeros(n_targets, np.intp)
        self.sizes, self.stage = [0], np.zeros(n_targets, np.intp)  # stages scanned

    def _scan(self, cover, start, K, todo):
        if self.exact_lookup and start == 0 and len(todo):
            chosen = _select_by_lookup(cover, self.T_sel[:, todo], self.points, self.block_size)
            hit = chosen >= 0
            self.best[todo[hit]], self.best_idx[todo[hit]] = 0.0, chosen[hit]
            todo = todo[~hit]
        if len(todo):
            T = self.T_sel[:, todo]
            # Hamming distance T'(1 - C) + (1 - T)'C = #T + (1 - 2T)'C: integers below
            # 2^24, exact in float32
            n_true = np.count_nonzero(T, axis=0).astype(np.float32)[:, None]
            signs = (1 - 2 * T.astype(np.float32)).T
            scan = np.arange(start, K)
            partner = cover.complements() if isinstance(cover, HalfspaceConcepts) else None
            if partner is not None:  # a complement scanned with its concept
                scan = scan[~((partner[scan] >= start) & (partner[scan] < scan))]
            for lo in range(0, len(scan), self.block_size):
                idx = scan[lo:lo + self.block_size]
                # 64 points a chunk: the float64 products stay in cache (1.5x the default)
                C = cover.subset(idx).evaluate(self.points, chunk_size=64).astype(np.float32)
                dis = n_true + signs @ C
                self._keep_nearest(todo, dis, idx)
                if partner is not None:
                    # the complement disagrees where the concept agrees (points on the
                    # plane aside: the selection is then only worse, never optimistic)
                    twin = partner[idx] > idx
                    self._keep_nearest(todo, len(self.points) - dis[:, twin], partner[idx[twin]])

    def _keep_nearest(self, todo, dis, idx):
        if not len(idx):
            return
        j = dis.argmin(axis=1)
        val = dis[np.arange(len(j)), j]
        better = val < self.best[todo]
        self.best[todo[better]] = val[better]
        self.best_idx[todo[better]] = idx[j[better]]

    def estimate(self, cover, todo=None):
        """``(max, per target)``: disagreement on fresh points with the selected concept."""
        todo = np.arange(len(self.best)) if todo is None else todo
        if cover.n_concepts > self.sizes[-1]:
            self.sizes.append(cover.n_concepts)
        for stage in range(len(self.sizes) - 1):
            group = todo[self.stage[todo] == stage]
            self._scan(cover, *self.sizes[stage:stage + 2], group)
            self.stage[group] = stage + 1
        chosen = cover.subset(self.best_idx[todo]).evaluate(self.fresh)
        per_target = np.mean(self.T_fresh[:, todo] != chosen, axis=0)
        return float(per_target.max()), per_target

    def radius(self, cover):
        return self.estimate(cover)[0]


def _select_by_lookup(cover, T_sel, points, block_size):
    """Cover index with exactly the target's labelling on ``points`` (-1 if none)."""
    ckeys = np.concatenate([
        _bit_keys(cover.subset(np.arange(lo, min(lo + block_size, cover.n_concepts)))
                  .evaluate(points).T)
        for lo in range(0, cover.n_concepts, block_size)])
    tkeys = _bit_keys(T_sel.T)
    order = np.argsort(ckeys, kind="stable")
    pos = np.minimum(np.searchsorted(ckeys[order], tkeys), len(ckeys) - 1)
    return np.where(ckeys[order][pos] == tkeys, order[pos], -1)


def _bit_keys(B):
    packed = np.ascontiguousarray(np.packbits(B, axis=1))
    return packed.view(np.dtype((np.void, packed.shape[1]))).ravel()


def _constants(d):
    return np.zeros((2, d)), np.array([0.0, -1.0])  # always True, always False


def _pair_lines(P, chunk=2048):
    """Lines through every pair of 2-D points, split-rotated, both orientations.

    For the pair (i, j) with direction v = P[j] - P[i] and normal n = rot90(v),
    the line through the midpoint M is rotated counter-clockwise by theta,
    half the smallest angle under which another point is seen from M, so
    only P[i] and P[j] change side (P[i] -> positive side). Returns unit
    normals in the coordinates of ``P`` and intercepts, constants first.
    """
    m = len(P)
    I, J = np.triu_indices(m, k=1)
    coefs, icpts = [], []
    for start in range(0, len(I), chunk):
        i, j = I[start:start + chunk], J[start:start + chunk]
        v = P[j] - P[i]
        n = np.stack([-v[:, 1], v[:, 0]], 1)
        n /= np.linalg.norm(n, axis=1, keepdims=True)
        M = 0.5 * (P[i] + P[j])
        rel = P[None, :, :] - M[:, None, :]  # (pairs, m, 2)
        dist = np.linalg.norm(rel, axis=2)
        sin_angle = np.abs(np.einsum("pmk,pk->pm", rel, n)) / np.maximum(dist, 1e-300)
        rows = np.arange(len(i))
        sin_angle[rows, i] = np.inf
        sin_angle[rows, j] = np.inf
        theta = 0.5 * np.arcsin(np.minimum(sin_angle.min(axis=1), 1.0))
        theta = np.minimum(theta, 1e-3)
        c, s = np.cos(theta)[:, None], np.sin(theta)[:, None]
        n_rot = np.concatenate([c * n[:, :1] - s * n[:, 1:], s * n[:, :1] + c * n[:, 1:]], 1)
        b = -np.einsum("pk,pk->p", n_rot, M)
        coefs += [n_rot, -n_rot]
        icpts += [b, -b]
    c0, b0 = _constants(2)
    return np.vstack([c0] + coefs), np.concatenate([b0] + icpts)


class _HalfspaceSampler:
    """Random halfspaces in box-normalised coordinates u = (x - lower) / width."""

    def __init__(self, lower, upper, fit_intercept):
        with np.errstate(over="ignore"):
            width = upper - lower
        if not np.all(np.isfinite(width)):
            wide = np.flatnonzero(~np.isfinite(width)).tolist()[:10]
            raise ValueError(
                f"bounds: features {wide} have a width upper - lower beyond the float "
                "range. Pass the features' real public range, or rescale them (e.g. "
                "sksmooth.preprocessing.PublicBoundsScaler).")
        self.lower, self.width = lower, width
        self.fit_intercept = fit_intercept
        self.d = len(lower)

    def sample_unit(self, k, rng):
        normals = rng.normal(size=(k, self.d))
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
        if self.fit_intercept:
            anchor = rng.uniform(size=(k, self.d))  # hyperplane through a uniform box point
        else:
            anchor = np.broadcast_to(-self.lower / self.width, (k, self.d))  # the origin
        return normals, -np.einsum("kd,kd->k", normals, anchor)

    def to_original(self, coef_n, icpt_n):
        coef = coef_n / self.width
        if not self.fit_intercept:
            return coef, np.zeros(len(coef))
        return coef, icpt_n - coef @ self.lower

    def sample(self, k, rng):
        coef, icpt = self.to_original(*self.sample_unit(k, rng))
        return HalfspaceConcepts(coef, icpt, bounds=(self.lower, self.lower + self.width))
