"""Per-query answering baselines: Laplace and Gaussian (answers only).

seeds/002_6ccc6583559482be.txt compares synthetic-data release (MWEM) with
answering the k queries directly with noise: the Gaussian mechanism needs
``n_Gauss ~ sqrt(k log k) / alpha`` records for max error ``alpha``, MWEM
``n_MWEM ~ log(k) sqrt(log m) / alpha^2``.

Neighbouring relation: substitution (same n, one record replaced), so each
query's answer has sensitivity 1/n and the vector of k answers has L1
sensitivity k/n and L2 sensitivity sqrt(k)/n (``sensitivity='per_query'``,
the baseline of 002). With ``sensitivity='structured'`` a structured
workload is answered from noisy tables instead (every table's cells, L1
``2 G/n``, L2 ``sqrt(2 G)/n`` for G tables), which is never worse.
"""

import math

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._guarantee import Guarantee, PrivacySpent
from .._validation import check_delta, check_epsilon, check_generator
from ..accounting import charge, check_accountant
from ..mechanisms import gaussian_mechanism, gaussian_noise_std, laplace_mechanism
from ._base import ReleaseData

__all__ = ["LaplacePerQuery", "GaussianPerQuery"]


class _PerQueryBase(ReleaseData):
    _noise = None

    def __init__(
        self,
        epsilon=1.0,
        delta=0.0,
        queries="auto",
        marginal_width=2,
        n_queries=None,
        sensitivity="per_query",
        universe="grid",
        n_bins="auto",
        n_universe="auto",
        max_universe_size=2**24,
        categorical_features=None,
        bounds=None,
        classes=None,
        accountant=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.queries = queries
        self.marginal_width = marginal_width
        self.n_queries = n_queries
        self.sensitivity = sensitivity
        self.universe = universe
        self.n_bins = n_bins
        self.n_universe = n_universe
        self.max_universe_size = max_universe_size
        self.categorical_features = categorical_features
        self.bounds = bounds
        self.classes = classes
        self.accountant = accountant
        self.random_state = random_state

    def _check_privacy(self):
        raise NotImplementedError

    def fit(self, X, y=None):
        """Answer the workload on ``X`` (and ``y``) with independent noise.

        Returns
        -------
        self
        """
        epsilon, delta = self._check_privacy()
        if self.sensitivity not in ("per_query", "structured"):
            raise ValueError(
                f"sensitivity must be 'per_query' or 'structured', got {self.sensitivity!r}."
            )
        self._check_universe_params()
        check_accountant(self.accountant)
        if self.accountant is not None:
            self.accountant.check(epsilon, delta)
        Xc, y, lower, upper, categorical, classes = self._validate_common(X, y)
        n = Xc.shape[0]
        rng = check_generator(self.random_state)
        uni = self._build_universe(lower, upper, categorical, classes, n, None, rng)
        workload = self._build_workload(uni, rng, n)
        k = workload.n_queries
        if self.sensitivity == "structured" and workload.structured:
            G = workload.n_groups
            l1, l2 = 2.0 * G / n, math.sqrt(2.0 * G) / n
            marginals = workload.data_marginals(uni.encode(Xc, y))
            flat = np.concatenate([m.ravel() for m in marginals])
            noisy_flat = self._release(flat, l1, l2, epsilon, delta, rng)
            splits = np.cumsum([m.size for m in marginals])[:-1]
            noisy = [v.reshape(m.shape) for v, m in zip(np.split(noisy_flat, splits), marginals)]
            answers = workload.answers_from_marginals(noisy)
        else:
            l1, l2 = k / n, math.sqrt(k) / n
            true = self._true_answers(workload, uni, Xc, y)
            answers = self._release(true, l1, l2, epsilon, delta, rng)
        charge(self.accountant, epsilon, delta, type(self).__name__)
        self.answers_ = answers
        self.workload_ = workload
        self.n_queries_ = k
        self.noise_scale_ = self._scale(l1, l2, epsilon, delta)
        self.privacy_spent_ = PrivacySpent(epsilon, delta)
        not_certified = []
        if self.bounds is None:
            not_certified.append("bounds are public (taken from data)")
        if uni.has_labels and self.classes is None:
            not_certified.append("label set is public (taken from y: PrivacyLeakWarning)")
        self.guarantee_ = Guarantee(
            claim=f"({epsilon:g}, {delta:g})-differential privacy (substitution neighbours)",
            source="seeds/002_6ccc6583559482be.txt (per-query answering baseline)",
            certified=not not_certified,
            assumptions_certified=(f"L1 sensitivity {l1:.3g}, L2 sensitivity {l2:.3g}",),
            assumptions_not_certified=tuple(not_certified),
        )
        return self

    def answer(self, queries=None):
        """The noisy answers of the fitted workload (answers only: no synthetic data)."""
        check_is_fitted(self, "answers_")
        if queries is not None:
            raise ValueError(
                f"{type(self).__name__} answers only its fitted workload; call answer() "
                "without arguments, or use SmoothMWEM to answer new queries."
            )
        return self.answers_

    def _release(self, values, l1, l2, epsilon, delta, rng):
        """One Laplace / Gaussian mechanism on the whole answer vector."""
        if self._noise == "laplace":
            return np.asarray(laplace_mechanism(values, epsilon, l1, rng), dtype=float)
        return np.asarray(gaussian_mechanism(values, epsilon, delta, l2, rng), dtype=float)



class LaplacePerQuery(_PerQueryBase):
    """Answer every query of the workload with Laplace noise (pure DP).

    Noise scale ``L1 / epsilon`` with ``L1 = k/n`` (``'per_query'``) or
    ``2 G/n`` (``'structured'``). See the module docstring for parameters
    (shared with :class:`SmoothMWEM`: queries, universe, bounds, ...).

    Attributes
    ----------
    answers_ : ndarray of shape (n_queries,)
    noise_scale_ : float
    workload_, n_queries_, privacy_spent_, guarantee_
    """

    _noise = "laplace"

    def _check_privacy(self):
        epsilon = check_epsilon(self.epsilon)
        delta = check_delta(self.delta)
        if delta != 0:
            raise ValueError("LaplacePerQuery is pure DP: pass delta=0 (or use GaussianPerQuery).")
        return epsilon, delta

    def _scale(self, l1, l2, epsilon, delta):
        return l1 / epsilon


class GaussianPerQuery(_PerQueryBase):
    """Answer every query of the workload with Gaussian noise ((eps, delta)-DP).

    Noise std from the foundation's analytic Gaussian calibration with L2
    sensitivity ``sqrt(k)/n`` (``'per_query'``) or ``sqrt(2 G)/n``
    (``'structured'``).

    Attributes
    ----------
    answers_ : ndarray of shape (n_queries,)
    noise_scale_ : float
    workload_, n_queries_, privacy_spent_, guarantee_
    """

    _noise = "gaussian"

    def __init__(
        self,
        epsilon=1.0,
        delta=1e-5,
        queries="auto",
        marginal_width=2,
        n_queries=None,
        sensitivity="per_query",
        universe="grid",
        n_bins="auto",
        n_universe="auto",
        max_universe_size=2**24,
        categorical_features=None,
        bounds=None,
        classes=None,
        accountant=None,
        random_state=None,
    ):
        super().__init__(
            epsilon=epsilon, delta=delta, queries=queries, marginal_width=marginal_width,
            n_queries=n_queries, sensitivity=sensitivity, universe=universe, n_bins=n_bins,
            n_universe=n_universe, max_universe_size=max_universe_size,
            categorical_features=categorical_features, bounds=bounds, classes=classes,
            accountant=accountant, random_state=random_state,
        )

    def _check_privacy(self):
        epsilon = check_epsilon(self.epsilon)
        delta = check_delta(self.delta, allow_zero=False)
        return epsilon, delta

    def _scale(self, l1, l2, epsilon, delta):
        return float(gaussian_noise_std(epsilon, delta, l2))
