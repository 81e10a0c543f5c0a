"""Subsampled Net Mechanism (Haghtalab, Roughgarden, Shetty, NeurIPS 2020, App. G, Alg. 4)."""

import itertools
import math
from dataclasses import replace

import numpy as np
from scipy import sparse

from .._constraints import Integer, Options
from .._guarantee import Guarantee, PrivacySpent, mark_read_from_data
from ._base import COMMON_CONSTRAINTS, JITTER_CONSTRAINT, MAX_UNIVERSE_CAP, ReleaseContext
from ._dense_model import DenseModel
from ._outputs import ReleaseMixin
from ._privacy import SCORE_SCALE, RoundParameters, integer_scores, select

__all__ = ["SubsampledNetMechanism"]

_SOURCE = ("Haghtalab, Roughgarden, Shetty, Smoothed Analysis of Online and Differentially "
           "Private Learning, NeurIPS 2020, arXiv:2006.10129, App. G, Alg. 4, Thm G.1 "
           "(privacy), Thm G.4 (accuracy)")
_MAX_CANDIDATE_ENTRIES = 5 * 10**7
# Workload values the scores read, synthetic_size * n_candidates * n_queries
# (10^9 at the defaults)
_MAX_SCORE_READS = 4 * 10**9


class SubsampledNetMechanism(ReleaseMixin):
    """Private data release over a random subsample of the universe (App. G, Alg. 4).

    1. Sample ``V``: ``n_universe`` points uniform on the public bounds
       (``universe='sample'``), or uniform cells of the grid
       (``universe='grid'``) — data independent (Lemma G.3).
    2. Candidates ``C``: datasets of ``synthetic_size`` points supported on
       ``V``. All multisets when there are at most ``n_candidates`` of them
       (the algorithm as stated); otherwise ``n_candidates`` of them drawn
       **data-independently** (each: weights ``w ~ Dirichlet(alpha 1)`` on
       ``V`` with ``alpha`` log-uniform in ``[0.01, 1]``, then
       ``synthetic_size`` points from ``w``), and ``guarantee_`` says so.
    3. Release one candidate ``B'`` by the exponential mechanism (on the
       release's noise stream; steps 1–2 use the public stream) with
       probability ``∝ exp(-eps n s(B', B) / 2)``, where ``s`` is the max
       workload error, of sensitivity 1/n under substitution (Thm G.1:
       ``(eps, 0)``-DP).

    Neighbouring relation: substitution (same ``n``, one record replaced);
    ``n`` is public. ``random_state=None`` (default) draws fresh OS entropy
    (certified); a given ``random_state`` marks the release not certified.
    DataFrames, pipelines and :meth:`as_sampler` work as in
    :class:`SmoothMWEM`.

    Parameters
    ----------
    epsilon : float, default=1.0
    queries : str, object or Workload, default='auto'
        The query workload (see :class:`~sksmooth.release.Workload`).
    synthetic_size : int, default=100
        Size of the candidate datasets (Alg. 4: ``O(d/gamma^2)``); at most
        10 000.
    n_candidates : int, default=5000
        Maximum number of candidates (enumerated if the exact set is not
        larger, sampled otherwise); at most 10^6,
        ``synthetic_size * n_candidates <= 5e7`` (memory) and
        ``synthetic_size * n_candidates * n_queries <= 4e9`` (time).
    universe : {'sample', 'grid'}, default='sample'
    n_universe : int or 'auto', default='auto'
        ``M = |V|`` (``'auto'``: 1000).
    n_bins : int or 'auto', default=8
        Bins per continuous feature of the grid ``V`` is drawn from (``'auto'``
        as in :class:`SmoothMWEM`).
    max_universe_size, levels, bounds, classes, jitter :
        as in :class:`SmoothMWEM` (the grid is the space ``V`` is drawn from).
    accountant : BudgetAccountant or None
    random_state : None, int or Generator

    Attributes
    ----------
    model_ : ReleaseModel
        The released distribution over V.
    distribution_ : ndarray of shape (M,)
        Empirical distribution of the released dataset on ``V``.
    synthetic_indices_ : ndarray of shape (synthetic_size,)
        Indices in ``V`` of the released dataset.
    candidates_enumerated_ : bool
    n_candidates_ : int
    workload_, n_queries_, privacy_spent_, guarantee_, n_features_in_

    References
    ----------
    Haghtalab, Roughgarden, Shetty, "Smoothed Analysis of Online and
    Differentially Private Learning", NeurIPS 2020, arXiv:2006.10129, App. G,
    Alg. 4, Thm G.1 (privacy), Lemma G.3, Thm G.4 (accuracy).
    Blackwell, MacQueen, "Ferguson Distributions via Polya Urn Schemes",
    Annals of Statistics 1(2), 1973 (the candidates' draws, step 2).
    """

    _parameter_constraints = {
        **COMMON_CONSTRAINTS,
        "synthetic_size": Integer(1, high=10_000, cap_reason=(
            "memory: every candidate stores synthetic_size indices")),
        "n_candidates": Integer(1, high=10**6, cap_reason=(
            "memory and run time: every candidate's error is computed")),
        "universe": Options("grid", "sample"),
        "n_universe": (Options("auto"), Integer(1, high=MAX_UNIVERSE_CAP, cap_reason=(
            "memory: 16 bytes per universe point"))),
        "jitter": JITTER_CONSTRAINT,
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        queries="auto",
        synthetic_size=100,
        n_candidates=5000,
        universe="sample",
        n_universe="auto",
        n_bins=8,
        max_universe_size=2**24,
        levels=None,
        bounds=None,
        classes=None,
        jitter=True,
        accountant=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.queries = queries
        self.synthetic_size = synthetic_size
        self.n_candidates = n_candidates
        self.universe = universe
        self.n_universe = n_universe
        self.n_bins = n_bins
        self.max_universe_size = max_universe_size
        self.levels = levels
        self.bounds = bounds
        self.classes = classes
        self.jitter = jitter
        self.accountant = accountant
        self.random_state = random_state

    def _check_public_parameters(self, params):
        s, K = params["synthetic_size"], params["n_candidates"]
        if s * K > _MAX_CANDIDATE_ENTRIES:
            raise ValueError(
                f"synthetic_size * n_candidates = {s * K:.3g} > {_MAX_CANDIDATE_ENTRIES:.0e} "
                "stored indices (memory); lower n_candidates or synthetic_size.")
        super()._check_public_parameters(params)

    def _release_context(self, data, params, randomness, whole_table):
        """V, the workload and its values on V, fixed at the first chunk (public stream)."""
        M = 1000 if params["n_universe"] == "auto" else params["n_universe"]
        uni, workload, Q, full = self._points(data, M, randomness.public)
        return ReleaseContext(uni, workload, counting_universe=full, extra=Q)

    def _release_stream(self, stream, params):
        """Release one candidate dataset by the exponential mechanism; charge, then publish."""
        epsilon, s, K = params["epsilon"], params["synthetic_size"], params["n_candidates"]
        uni, workload, Q = stream.context.universe, stream.context.workload, stream.context.extra
        randomness = stream.randomness
        data = replace(stream.frame, n_rows=stream.statistic.n)
        M = uni.size
        with self._refusal_recorded(data):  # n_queries counts the labels read from y
            if s * K * Q.shape[1] > _MAX_SCORE_READS:
                raise ValueError(
                    f"synthetic_size * n_candidates * n_queries = {s} * {K} * {Q.shape[1]} = "
                    f"{s * K * Q.shape[1]:.3g} > {_MAX_SCORE_READS:.0e} workload values to score "
                    "(time); lower synthetic_size, n_candidates or the workload's size "
                    "(queries=Workload(n_queries=...)).")
        counts = stream.statistic.query_counts()
        cands, enumerated, n_multisets = _candidates(M, s, K, randomness.public)
        errors = _max_errors(Q, cands, counts, data.n)
        # exponential mechanism on the noise stream, integer score -max error in units
        # 1/(n SCORE_SCALE): sensitivity SCORE_SCALE (a count moves by 1)
        select_params = RoundParameters(epsilon, SCORE_SCALE, "none", 0.0, 0.0,
                                        float("nan"), float("nan"))
        chosen = np.sort(cands[select(-errors, select_params, randomness.noise)])
        not_certified = self._not_certified(data, randomness)
        self._charge(data, epsilon, 0.0, certified=not not_certified)
        dist = np.bincount(chosen, minlength=M) / s
        self._universe = uni
        self.model_ = DenseModel.from_probabilities(dist, (M,))
        self.workload_ = _SubWorkload(Q)
        self.full_workload_ = workload
        self.n_queries_ = workload.n_queries
        self.distribution_ = dist
        self.synthetic_indices_ = chosen
        self.candidates_enumerated_ = bool(enumerated)
        self.n_candidates_ = int(len(cands))
        self.bounds_ = (data.lower, data.upper)
        self.classes_ = data.classes
        self.privacy_spent_ = PrivacySpent(epsilon, 0.0)
        self.guarantee_ = mark_read_from_data(
            self._guarantee(epsilon, data.n, M, s, len(cands), n_multisets, enumerated,
                            not_certified), **self._read_from_data(data))
        self._remember_input(stream)

    def _points(self, data, M, rng):
        """V, the workload and its values on V (public stream only)."""
        if self.universe == "grid":
            full = self._grid(data)
            flat = rng.integers(0, full.size, size=M)  # with replacement (Alg. 4)
            workload = self._build_workload(full, rng)
            if workload.structured:
                Q = workload.evaluate_codes(np.stack(np.unravel_index(flat, full.shape), axis=1))
            else:
                Q = workload.evaluate(*full.points(flat))
            return _SubUniverse(full, flat), workload, np.asarray(Q, dtype=np.float32), full
        uni = self._build_universe(data, rng, n_points=M)
        workload = self._build_workload(uni, rng)
        return uni, workload, np.asarray(workload.evaluate(*uni.points()), dtype=np.float32), uni

    def _guarantee(self, epsilon, n, M, s, n_cands, n_multisets, enumerated, not_certified):
        notes = [f"|V| = {M} universe points, candidates of size {s}",
                 "accuracy (not privacy, Thm G.4) assumes the data are (sigma, chi)-smooth, "
                 "which cannot be certified privately",
                 "selection: exponential mechanism on integer scores, sampled exactly "
                 "(sksmooth.mechanisms.exact_exponential_mechanism)"]
        if not enumerated:
            notes.append(
                f"candidate set: {n_cands} datasets sampled data-independently out of "
                f"{n_multisets:.3g}; Thm G.4's accuracy needs the best dataset on V in the "
                "candidate set, which is not guaranteed (privacy unaffected)"
            )
        return Guarantee(
            claim=f"({epsilon:g}, 0)-differential privacy (substitution neighbours, n={n} public)",
            source=_SOURCE,
            certified=not not_certified,
            assumptions_certified=(
                "V and the candidates are drawn independently of the data (public stream)",
                "score = max workload error, sensitivity 1/n (exact integer units)",
                "bad rows mapped by a fixed public rule, never refused",
            ),
            assumptions_not_certified=tuple(not_certified),
            notes=tuple(notes),
        )


def _candidates(M, s, K, rng):
    """All multisets of size s over V when at most K, else K sampled data-independently."""
    n_multisets = math.comb(M + s - 1, s)
    if n_multisets <= K:
        cands = np.array(list(itertools.combinations_with_replacement(range(M), s)),
                         dtype=np.int64).reshape(-1, s)
        return cands, True, n_multisets
    alpha = 10 ** rng.uniform(-2, 0, size=K)
    return _dirichlet_multinomial_draws(M, s, alpha, rng), False, n_multisets


def _dirichlet_multinomial_draws(M, s, alpha, rng):
    """Per ``alpha[i]``, ``s`` draws from ``w ~ Dirichlet(alpha[i] 1_M)`` on ``range(M)``.

    Blackwell and MacQueen's urn (Ann. Statist. 1973) for the Dirichlet process of
    concentration ``theta = M alpha`` and uniform base: draw ``t`` is a fresh uniform
    point with probability ``theta / (theta + t)``, independently of the earlier
    draws, else a copy of a uniformly chosen earlier draw. Each copy is resolved to
    its fresh ancestor by pointer jumping (``log2 s`` gathers): no ``M`` gamma draws
    per candidate and no loop over candidates.
    """
    theta = (M * alpha)[:, None]
    t = np.arange(s)
    fresh = rng.uniform(size=(len(alpha), s)) * (theta + t) < theta  # draw 0 always
    earlier = np.minimum((rng.uniform(size=fresh.shape) * t).astype(np.int64), t - 1)
    parent = np.where(fresh, t, earlier)
    for _ in range(max(1, s - 1).bit_length()):
        parent = np.take_along_axis(parent, parent, axis=1)
    return np.take_along_axis(rng.integers(0, M, size=fresh.shape), parent, axis=1)


def _max_errors(Q, cands, counts, n):
    """Integer max workload error of every candidate dataset (chunked, units 1/(n 2^16)).

    A candidate's answers are the mean of its points' rows of ``Q``: one sparse
    product (multiplicities / s) @ Q per chunk, not a gather of s rows per candidate.
    """
    K, s = cands.shape
    M, k = Q.shape
    Q = np.asarray(Q, dtype=np.float64)
    errors = np.empty(K, dtype=np.int64)
    chunk = max(1, 2**20 // max(k, s))  # (chunk, k) scores: a few MB
    for start in range(0, K, chunk):
        points = cands[start:start + chunk]
        weights = sparse.csr_matrix(
            (np.ones(points.size), points.ravel(), np.arange(0, points.size + 1, s)),
            shape=(len(points), M))
        weights.sum_duplicates()
        block = (weights @ Q) / s  # (b, k), public
        errors[start:start + chunk] = integer_scores(block, counts[None, :], n).max(axis=1)
    return errors


class _SubUniverse:
    """The points V (flat grid indices, with replacement) of a grid universe."""

    kind = "subsample"

    def __init__(self, full, flat):
        self.full = full
        self.flat = np.asarray(flat)
        self.size = len(self.flat)
        self.shape = (self.size,)
        self.has_labels = full.has_labels

    def decode(self, idx, rng=None, jitter=False):
        return self.full.decode(self.flat[np.asarray(idx)], rng=rng, jitter=jitter)

    def decode_codes(self, codes, rng=None, jitter=False):
        return self.decode(np.asarray(codes, dtype=np.int64).reshape(-1), rng, jitter)

    def points(self, idx=None):
        idx = np.arange(self.size) if idx is None else idx
        return self.full.decode(self.flat[np.asarray(idx)])


class _SubWorkload:
    """Workload values on V, for ``answer()``."""

    structured = False

    def __init__(self, Q):
        self._Q = Q
        self.n_queries = Q.shape[1]

    def answers(self, p):
        return p.astype(np.float32) @ self._Q
