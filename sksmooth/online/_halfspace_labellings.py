"""Halfspace covers in any dimension: one halfspace per labelling of ``m`` uniform points.

Enumerates the labellings through every ``(D - 1)``-tuple of points (the
construction is explained in docs/guide/smooth_hedge.rst). Theory: Haghtalab,
Roughgarden, Shetty, NeurIPS 2020, arXiv:2006.10129, App. C.1; Cover, IEEE
Trans. Electronic Computers EC-14(3), 1965 (the number of labellings).
"""

import itertools
import math
import warnings

import numpy as np

from .._validation import check_generator, check_positive_int
from ..classes import HalfspaceConcepts, Halfspaces, estimate_cover_radius
from ..classes._base import _check_cover_args, _resolve_bounds
from ..classes._halfspaces import _bit_keys, _HalfspaceSampler
from ..exceptions import DefaultsWarning, user_stacklevel

__all__ = ["HalfspaceLabellings", "labelling_count", "candidate_count",
           "halfspace_labelling_cover"]

# bool cells (candidates x points) per enumeration chunk
_CHUNK_CELLS = 1 << 23
# candidates scanned at most by one cover (about 10 s of enumeration)
_MAX_CANDIDATES = 1 << 22


def labelling_count(n_points, dim):
    """Labellings of ``n_points`` points in general position by homogeneous
    halfspaces of ``R^dim`` (Cover 1965): ``2 sum_{k < dim} C(n_points - 1, k)``."""
    return 2 * sum(math.comb(n_points - 1, k) for k in range(dim))


def candidate_count(n_points, dim):
    """Candidates the tuple enumeration scans: ``C(m, dim - 1) 2^dim``."""
    return math.comb(n_points, dim - 1) * 2 ** dim


def _lifted(unit_points, lower, upper, fit_intercept):
    """Points as parameter-space hyperplanes: ``(u, 1)`` (affine) or ``u - origin``."""
    if fit_intercept:
        return np.hstack([unit_points, np.ones((len(unit_points), 1))])
    return unit_points + lower / (upper - lower)  # u - u(origin), u(origin) = -lower/width


def _sign_patterns(k):
    """Every vector in {-1, +1}^k, shape (2^k, k)."""
    return 1.0 - 2.0 * ((np.arange(2 ** k)[:, None] >> np.arange(k)) & 1)


def _tuples(n_points, k):
    flat = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(n_points), k)),
                       dtype=np.intp, count=math.comb(n_points, k) * k)
    return flat.reshape(-1, k)


def _rays(Z, tuples):
    """Unit normal of the hyperplane through each tuple's rows of ``Z`` and the
    values ``c0 . z_j`` at every point (exactly 0 on the tuple)."""
    A = Z[tuples]                                                   # (n, k, D)
    ray = np.linalg.svd(A)[2][:, -1, :]                             # null vector
    values = ray @ Z.T                                              # (n, m)
    np.put_along_axis(values, tuples, 0.0, axis=1)
    return ray, values


def _candidate_keys(values, tuples, patterns):
    """Bit keys of the labellings of every (tuple, orientation, pattern)."""
    n, m = values.shape
    side = values > 0                                               # orientation +1
    labels = np.concatenate([side, ~side])                          # (2n, m)
    tup = np.concatenate([tuples, tuples])
    labels = np.repeat(labels[:, None, :], len(patterns), axis=1)   # (2n, P, m)
    rows = np.arange(2 * n)[:, None, None]
    cols = np.arange(len(patterns))[None, :, None]
    labels[rows, cols, tup[:, None, :]] = patterns[None, :, :] > 0
    return _bit_keys(labels.reshape(-1, m))


def _candidates(Z, tuples, ray, values, patterns):
    """Unit parameters of every (orientation, tuple, pattern) candidate, in the
    order of :func:`_candidate_keys`: ``o c0 + delta pinv(A) s``, ``delta``
    half the largest tilt that moves no point off the tuple."""
    pinv = np.linalg.pinv(Z[tuples])                                # (n, D, k)
    tilt = np.einsum("nDk,Pk->nPD", pinv, patterns)                 # A tilt = s
    tilt_values = np.abs(np.einsum("nPD,mD->nPm", tilt, Z))         # (n, P, m)
    fixed = np.abs(values)
    np.put_along_axis(fixed, tuples, np.inf, axis=1)
    with np.errstate(divide="ignore"):
        room = np.min(fixed[:, None, :] / tilt_values, axis=2)      # (n, P)
    tilt *= 0.5 * np.minimum(room, 1.0)[:, :, None]
    out = np.concatenate([ray[:, None, :] + tilt, -ray[:, None, :] + tilt])  # (2n, P, D)
    out /= np.linalg.norm(out, axis=2, keepdims=True)
    return out.reshape(-1, Z.shape[1])


def halfspace_labelling_cover(lower, upper, n_points, fit_intercept, rng):
    """One halfspace per labelling of ``n_points`` uniform points of the box.

    Parameters
    ----------
    lower, upper : ndarray of shape (d,)
        Public box, ``lower < upper``.
    n_points : int
        ``m``; the cover has ``labelling_count(m, D)`` halfspaces (points in
        general position), the two constants replacing the all-in and all-out
        labellings for affine halfspaces.
    fit_intercept : bool
    rng : numpy.random.Generator
        Draws the points (public randomness).

    Returns
    -------
    HalfspaceConcepts
        ``points_`` holds the ``m`` points; ``gamma`` is left to the caller.
    """
    d = len(lower)
    dim = d + 1 if fit_intercept else d
    k = dim - 1
    if k < 1:
        raise ValueError("the tuple construction needs dimension >= 2 (use thresholds)")
    unit = rng.uniform(size=(n_points, d))
    Z = _lifted(unit, lower, upper, fit_intercept)
    tuples = _tuples(n_points, k)
    patterns = _sign_patterns(k)
    per_tuple = 2 * len(patterns) * n_points
    step = max(1, _CHUNK_CELLS // per_tuple)
    sums, keys = None, []
    for a in range(0, len(tuples), step):
        part = tuples[a:a + step]
        ray, values = _rays(Z, part)
        params = _candidates(Z, part, ray, values, patterns)     # (2n P, D) unit
        chunk_keys, inverse = np.unique(_candidate_keys(values, part, patterns),
                                        return_inverse=True)
        chunk_sums = np.zeros((len(chunk_keys), dim))
        np.add.at(chunk_sums, inverse, params)
        keys.append(chunk_keys)
        sums = chunk_sums if sums is None else np.vstack([sums, chunk_sums])
    keys = np.concatenate(keys)
    unique_keys, inverse = np.unique(keys, return_inverse=True)
    params = np.zeros((len(unique_keys), dim))
    np.add.at(params, inverse, sums)
    if fit_intercept:  # the exact constants replace the all-in / all-out labellings
        labels = params @ Z.T > 0
        keep = ~(labels.all(axis=1) | (~labels).all(axis=1))
        params = np.vstack([[np.r_[np.zeros(d), 1.0], np.r_[np.zeros(d), -1.0]], params[keep]])
    width = upper - lower
    coef = params[:, :d] / width
    if fit_intercept:
        intercept = params[:, d] - coef @ lower
    else:
        intercept = np.zeros(len(coef))
    cover = HalfspaceConcepts(coef, intercept, bounds=(lower, upper), gamma_certified=False,
                              vc_dim=dim)
    cover.points_ = lower + unit * width
    cover.method = "tuples"
    return cover


def _largest_points(dim, max_size):
    """Largest ``m`` whose cover fits ``max_size`` concepts and the candidate cap."""
    m = dim  # m <= dim: every labelling (2^m) is realised
    while (labelling_count(m + 1, dim) <= max_size
           and candidate_count(m + 1, dim) <= _MAX_CANDIDATES):
        m += 1
    return m


class HalfspaceLabellings(Halfspaces):
    """Halfspaces covered by the labellings of uniform points (d-tuple construction).

    The same concept class as :class:`sksmooth.classes.Halfspaces`; only the
    cover differs: one halfspace per labelling that halfspaces induce on
    ``m`` uniform points of the box (Haghtalab et al. 2020, App. C.1),
    enumerated through hyperplanes spanned by ``d`` of the points
    (``d - 1`` through the origin) and deduplicated; each labelling is
    represented by the normalised mean of its enumerated candidates, a point
    inside its cell of parameter space. Pass an instance as
    ``SmoothHedgeClassifier(hypotheses=HalfspaceLabellings())``.

    Measured (``benchmarks/results/covers.json``, ``halfspace_constructions``;
    uniform box, d = 3 to 5, sizes 2 000 to 33 000, 300 fresh random target
    halfspaces): at equal size its mean disagreement with the targets is 1.2
    to 1.4 times (95 % quantile 1.2 to 1.5 times) that of the default
    random-halfspace cover of :class:`~sksmooth.classes.Halfspaces`, which
    therefore stays the default. This one is the paper's construction: its
    radius goes to 0 as ``m`` grows by the epsilon-net theorem, not by the
    luck of the draw; neither radius is proven at these sizes (both are
    Monte Carlo estimates, ``gamma_certified=False``).

    References
    ----------
    .. [1] N. Haghtalab, T. Roughgarden, A. Shetty, "Smoothed Analysis of
       Online and Differentially Private Learning", NeurIPS 2020,
       arXiv:2006.10129, App. C.1 (cover from the labellings of uniform points).
    .. [2] T. M. Cover, "Geometrical and statistical properties of systems of
       linear inequalities with applications in pattern recognition", IEEE
       Trans. Electronic Computers EC-14(3), 1965.

    Examples
    --------
    >>> from sksmooth.online import HalfspaceLabellings
    >>> cover = HalfspaceLabellings().cover(bounds=(0.0, 1.0), n_features=3, n_points=12,
    ...                                     random_state=0)
    >>> cover.n_concepts, cover.method   # 2 (1 + 11 + 55 + 165) labellings of 12 points
    (464, 'tuples')
    """

    def cover(self, bounds, gamma=None, max_size=None, random_state=None, n_features=None,
              n_points=None, n_mc_targets=200, n_mc_points=2000):
        """Cover from the labellings of ``m`` uniform points.

        Parameters
        ----------
        bounds : tuple (lower, upper)
            Public box; every feature needs ``lower < upper``.
        gamma : float in (0, 1), optional
            Target radius: ``m`` grows by 25 % until the Monte Carlo estimate
            reaches it or ``max_size`` stops it (then a ``DefaultsWarning``).
        max_size : int, optional
            Cap on the number of concepts (default 100 000); ``m`` is the
            largest whose labelling count fits (and whose enumeration scans at
            most 2^22 candidates).
        random_state : None, int or Generator
            Seeds the points and the Monte Carlo.
        n_features : int, optional
            Needed only when both bounds are scalars.
        n_points : int, optional
            ``m`` itself (overrides ``gamma`` and ``max_size``).
        n_mc_targets, n_mc_points : int
            Monte Carlo sizes for :func:`sksmooth.classes.estimate_cover_radius`.

        Returns
        -------
        HalfspaceConcepts
            ``gamma`` is the Monte Carlo estimate (``gamma_certified=False``),
            ``method='tuples'``, ``points_`` the ``m`` points.
        """
        if gamma is not None or max_size is not None or n_points is None:
            gamma, max_size = _check_cover_args(gamma, 100_000 if max_size is None
                                                else max_size)
        n_mc_targets = check_positive_int(n_mc_targets, "n_mc_targets")
        n_mc_points = check_positive_int(n_mc_points, "n_mc_points", minimum=10)
        lower, upper = _resolve_bounds(bounds, n_features)
        if np.any(upper <= lower):
            raise ValueError("bounds: HalfspaceLabellings.cover needs lower < upper on every "
                             "feature; drop the zero-width features.")
        dim = len(lower) + (1 if self.fit_intercept else 0)
        if dim < 2:
            raise ValueError("HalfspaceLabellings needs d >= 2 through the origin (d = 1: "
                             "use thresholds).")
        if n_points is None and labelling_count(dim, dim) > max_size:
            raise ValueError(
                f"max_size={max_size} is too small for HalfspaceLabellings in dimension "
                f"{dim}: the smallest point set (m = {dim}) has {2 ** dim} labellings; "
                f"pass max_size >= {2 ** dim}.")
        rng = check_generator(random_state)
        targets = _HalfspaceSampler(lower, upper, self.fit_intercept).sample(n_mc_targets, rng)
        m_cap = _largest_points(dim, max_size) if n_points is None else \
            check_positive_int(n_points, "n_points", minimum=2)
        m = m_cap if (gamma is None or n_points is not None) else \
            min(m_cap, max(dim, math.ceil(2.0 * dim / gamma)))
        while True:
            cover = halfspace_labelling_cover(lower, upper, m, self.fit_intercept, rng)
            cover.gamma = estimate_cover_radius(cover, targets, n_points=n_mc_points,
                                                random_state=rng)[0]
            if gamma is None or cover.gamma <= gamma or m >= m_cap:
                break
            m = min(m_cap, math.ceil(1.25 * m))
        if gamma is not None and cover.gamma > gamma:
            warnings.warn(
                f"HalfspaceLabellings.cover: the estimated radius {cover.gamma:.4g} exceeds "
                f"gamma={gamma:.4g} at size {cover.n_concepts} (m={m} points, "
                f"max_size={max_size}); raise max_size or accept the larger gamma.",
                DefaultsWarning, stacklevel=user_stacklevel())
        return cover
