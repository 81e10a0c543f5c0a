"""Subsampled Net Mechanism (seeds/000_08e60ac76481cbe2.txt, App. G, Alg. 4)."""

import math

import numpy as np

from .._guarantee import Guarantee, PrivacySpent
from .._validation import check_epsilon, check_generator, check_positive_int
from ..accounting import charge, check_accountant
from ._base import ReleaseMixin
from ._privacy import RoundParameters, select

__all__ = ["SubsampledNetMechanism"]

_SOURCE = "seeds/000_08e60ac76481cbe2.txt, App. G, Alg. 4, Thm G.1 (privacy), Thm G.4 (accuracy)"


class SubsampledNetMechanism(ReleaseMixin):
    """Private data release over a random subsample of the universe (000 Alg. 4).

    1. Sample ``V``: ``n_universe`` points uniform on the public bounds
       (``universe='sample'``), or uniform cells of the grid
       (``universe='grid'``) — data independent (Lemma G.3).
    2. Candidates ``C``: datasets of ``synthetic_size`` points supported on
       ``V``. All multisets when there are at most ``n_candidates`` of them
       (the algorithm as stated); otherwise ``n_candidates`` of them drawn
       **data-independently** (each: weights ``w ~ Dirichlet(alpha 1)`` on
       ``V`` with ``alpha`` log-uniform in ``[0.01, 1]``, then
       ``synthetic_size`` points from ``w``), and ``guarantee_`` says so.
    3. Release one candidate ``B'`` by the exponential mechanism with
       probability ``∝ exp(-eps n s(B', B) / 2)``, where ``s`` is the max
       workload error, of sensitivity 1/n under substitution (Thm G.1:
       ``(eps, 0)``-DP).

    Neighbouring relation: substitution (same ``n``, one record replaced);
    ``n`` is public.

    Parameters
    ----------
    epsilon : float, default=1.0
    queries, marginal_width, n_queries : see :class:`SmoothMWEM`.
    synthetic_size : int, default=100
        Size of the candidate datasets (Alg. 4: ``O(d/gamma^2)``).
    n_candidates : int, default=5000
        Maximum number of candidates (enumerated if the exact set is not
        larger, sampled otherwise).
    universe : {'sample', 'grid'}, default='sample'
    n_universe : int or 'auto', default='auto'
        ``M = |V|`` (``'auto'``: 1000).
    n_bins, max_universe_size, categorical_features, bounds, classes, jitter :
        as in :class:`SmoothMWEM` (the grid is the space ``V`` is drawn from).
    accountant : BudgetAccountant or None
    random_state : None, int or Generator

    Attributes
    ----------
    distribution_ : ndarray of shape (M,)
        Empirical distribution of the released dataset on ``V``.
    synthetic_indices_ : ndarray of shape (synthetic_size,)
        Indices in ``V`` of the released dataset.
    candidates_enumerated_ : bool
    n_candidates_ : int
    workload_, n_queries_, privacy_spent_, guarantee_, n_features_in_
    """

    def __init__(
        self,
        epsilon=1.0,
        queries="auto",
        marginal_width=2,
        n_queries=None,
        synthetic_size=100,
        n_candidates=5000,
        universe="sample",
        n_universe="auto",
        n_bins=8,
        max_universe_size=2**24,
        categorical_features=None,
        bounds=None,
        classes=None,
        jitter=False,
        accountant=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.queries = queries
        self.marginal_width = marginal_width
        self.n_queries = n_queries
        self.synthetic_size = synthetic_size
        self.n_candidates = n_candidates
        self.universe = universe
        self.n_universe = n_universe
        self.n_bins = n_bins
        self.max_universe_size = max_universe_size
        self.categorical_features = categorical_features
        self.bounds = bounds
        self.classes = classes
        self.jitter = jitter
        self.accountant = accountant
        self.random_state = random_state

    def fit(self, X, y=None):
        """Release a synthetic dataset supported on a random subsample of the universe.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), optional
            Labels (one more attribute).

        Returns
        -------
        self
        """
        epsilon = check_epsilon(self.epsilon)
        s = check_positive_int(self.synthetic_size, "synthetic_size")
        K = check_positive_int(self.n_candidates, "n_candidates")
        self._check_universe_params()
        check_accountant(self.accountant)
        if self.accountant is not None:
            self.accountant.check(epsilon, 0.0)
        Xc, y, lower, upper, categorical, classes = self._validate_common(X, y)
        n = Xc.shape[0]
        rng = check_generator(self.random_state)
        M = 1000 if self.n_universe == "auto" else check_positive_int(self.n_universe, "n_universe")
        if self.universe == "grid":
            full = self._build_universe(lower, upper, categorical, classes, n, None, rng)
            flat = rng.integers(0, full.size, size=M)  # with replacement (Alg. 4)
            workload = self._build_workload(full, rng, n)
            if workload.structured:
                Q = workload.evaluate_codes(np.stack(np.unravel_index(flat, full.shape), axis=1))
            else:
                Q = workload.evaluate(*full.points(flat))
            uni = _SubUniverse(full, flat)
        else:
            uni = self._build_universe(lower, upper, categorical, classes, n, None, rng,
                                       n_points=M)
            workload = self._build_workload(uni, rng, n)
            Q = workload.evaluate(*uni.points())
        Q = np.asarray(Q, dtype=np.float32)  # (M, k)
        true = self._true_answers(workload, getattr(uni, "full", uni), Xc, y)

        n_multisets = math.comb(M + s - 1, s)
        enumerated = n_multisets <= K
        if enumerated:
            cands = _all_multisets(M, s)
        else:
            alpha = 10 ** rng.uniform(-2, 0, size=K)
            cands = np.empty((K, s), dtype=np.int64)
            for start in range(0, K, 512):
                stop = min(K, start + 512)
                w = rng.gamma(alpha[start:stop, None], size=(stop - start, M))
                w /= w.sum(axis=1, keepdims=True)
                cdf = np.cumsum(w, axis=1)
                u = rng.uniform(size=(stop - start, s)) * cdf[:, -1:]
                cands[start:stop] = np.minimum(
                    np.stack([np.searchsorted(c, uu) for c, uu in zip(cdf, u)]), M - 1
                )
        errors = np.empty(len(cands))
        chunk = max(1, int(2e7 // (s * max(Q.shape[1], 1))))
        for start in range(0, len(cands), chunk):
            block = Q[cands[start:start + chunk]].mean(axis=1)  # (b, k)
            errors[start:start + chunk] = np.abs(block - true).max(axis=1)
        params = RoundParameters(epsilon, 1.0 / n, "none", 0.0, 0.0, float("nan"), float("nan"))
        choice = select(-errors, params, rng)
        chosen = np.sort(cands[choice])

        charge(self.accountant, epsilon, 0.0, type(self).__name__)
        dist = np.bincount(chosen, minlength=M) / s
        self._universe = uni
        self.workload_ = _SubWorkload(Q)
        self.full_workload_ = workload
        self.n_queries_ = workload.n_queries
        self.distribution_ = dist
        self.synthetic_indices_ = chosen
        self.candidates_enumerated_ = bool(enumerated)
        self.n_candidates_ = int(len(cands))
        self.bounds_ = (lower, upper)
        self.classes_ = classes
        self.privacy_spent_ = PrivacySpent(epsilon, 0.0)
        notes = [f"|V| = {M} universe points, candidates of size {s}",
                 "accuracy (not privacy, Thm G.4) assumes the data are (sigma, chi)-smooth, "
                 "which cannot be certified privately"]
        not_cert = []
        if not enumerated:
            notes.append(
                f"candidate set: {len(cands)} datasets sampled data-independently out of "
                f"{n_multisets:.3g}; Thm G.4's accuracy needs the best dataset on V in the "
                "candidate set, which is not guaranteed (privacy unaffected)"
            )
        if self.bounds is None:
            not_cert.append("bounds are public (taken from data: PrivacyLeakWarning)")
        if uni.has_labels and self.classes is None:
            not_cert.append("label set is public (taken from y: PrivacyLeakWarning)")
        self.guarantee_ = Guarantee(
            claim=f"({epsilon:g}, 0)-differential privacy (substitution neighbours, n={n} public)",
            source=_SOURCE,
            certified=not not_cert,
            assumptions_certified=(
                "V and the candidates are drawn independently of the data",
                "score = max workload error, sensitivity 1/n",
            ),
            assumptions_not_certified=tuple(not_cert),
            notes=tuple(notes),
        )
        return self


def _all_multisets(M, s):
    """All non-decreasing index tuples of length ``s`` over ``range(M)``."""
    import itertools

    return np.array(list(itertools.combinations_with_replacement(range(M), s)), dtype=np.int64)


class _SubUniverse:
    """The points V (flat grid indices, with replacement) of a grid universe."""

    kind = "subsample"

    def __init__(self, full, flat):
        self.full = full
        self.flat = np.asarray(flat)
        self.size = len(self.flat)
        self.has_labels = full.has_labels

    def decode(self, idx, rng=None, jitter=False):
        return self.full.decode(self.flat[np.asarray(idx)], rng=rng, jitter=jitter)

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
