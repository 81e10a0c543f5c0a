"""Audit cases of PrivateProperClassifier for the catalog :mod:`sksmooth.audits`.

Exponential method: the whole estimator is audited on a pair where the
analysis is near tight. Littlestone method: end to end (``fit`` ->
``hypothesis_``) on singletons, whose SOA (all -1) is not in the class, so the
Lemma 6.2 set holds every singleton and the released one depends on a row
through GenericLearner; its two private components — sparse selection
(Ghazi et al. 2021 §5.2) and GenericLearner (Lemma 6.3) — are also audited
separately where each is tight. Noisy-means method:
``fit`` -> ``noisy_statistics_`` (pure, discrete Laplace) on a pair where every
coordinate moves, so one event reaches the whole loss (the box map; the
projected L1 map's calibration at strategy level). Each case has a 2x
variant the audit must catch at the same trial count.
"""

import math
import warnings

import numpy as np

from ..classes import FiniteClass
from ..exceptions import PrivacyLeakWarning
from ..mechanisms import sparse_selection
from ..mechanisms._audit_cases import overspending
from ..metrics import AuditCase, audit_epsilon
from ._methods import Littlestone, NoisyMeans
from ._private_proper import PrivateProperClassifier
from .littlestone import LittlestoneOracle
from ._prototypes import PrototypeStrategy
from .littlestone._polypri import generic_learner

__all__ = ["private_proper_audit_cases"]

# One domain point; h_0 = +1 against five copies of -1. Substituting one label
# moves h_0's score up by one and the others' down by one: the event {h_0}
# has true loss ln((5 + w) / (w (1 + 5 w))), w = e^{-eps/2} (0.83 at eps = 1).
_CLASS = FiniteClass(matrix=np.array([[1]] + [[-1]] * 5), domain=[[0.0]])
_X = np.zeros((21, 1))
_Y0 = np.array([1] * 11 + [0] * 10)
_Y1 = np.r_[0, _Y0[1:]]


def _exponential_run(true_epsilon):
    def mechanism(y, rng):
        clf = PrivateProperClassifier(
            hypotheses=_CLASS, epsilon=true_epsilon, bounds=(0.0, 1.0), classes=[0, 1],
            random_state=int(rng.integers(2**31)),  # reproducible audit only
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            return clf.fit(_X, y).hypothesis_.index

    def run(n_trials, random_state):
        return audit_epsilon(mechanism, _Y0, _Y1, lambda index: index == 0, n_trials,
                             random_state=random_state)

    return run


def _generic_learner_run(true_epsilon):
    # six hypotheses on six points; the data sit on point 0, where h_0 says +1
    matrix = -np.ones((6, 6), dtype=int)
    matrix[0, 0] = 1
    matrix[np.arange(1, 6), np.arange(1, 6)] = 1
    oracle = LittlestoneOracle(matrix)
    x_idx = np.zeros(21, dtype=np.int64)

    def mechanism(y, rng):
        y_pm1 = np.where(y == 1, 1.0, -1.0)
        return generic_learner(oracle, np.arange(6), x_idx, y_pm1, true_epsilon, rng)

    def run(n_trials, random_state):
        return audit_epsilon(mechanism, _Y0, _Y1, lambda index: index == 0, n_trials,
                             random_state=random_state)

    return run


# Singletons h_1..h_K on points 1..K, and point 0 where all say -1. Their SOA is all -1,
# not a member, so the Lemma 6.2 minimax set is uniform over the K singletons (200 draws
# hold all six). 40 rows sit at point 0 (every h right); the neighbour flips the label
# of the row at point 1, so h_1 gains 1 against the others. With n_generic = 40 of 41
# rows the flipped row feeds GenericLearner with probability 40/41, else PolyPriLearn.
_LS_K = 6
_LS_MATRIX = np.where(np.arange(_LS_K + 1)[None, :] == np.arange(1, _LS_K + 1)[:, None], 1, -1)
_LS_DOMAIN = np.arange(_LS_K + 1, dtype=float)[:, None]
_LS_X = np.r_[[[1.0]], np.zeros((40, 1))]
_LS_Y0 = np.zeros(41, dtype=int)
_LS_Y1 = np.r_[1, _LS_Y0[1:]]
_LS_DELTA = 1e-6
# one fit per trial: 1000 trials catch the 2x overspend (its bound ~1.2 > 1)
LITTLESTONE_TRIALS = 1_000


def littlestone_loss(epsilon, k=_LS_K, p=40 / 41):
    """True loss of the event {h_1 released} of :func:`littlestone_fit_run` (GenericLearner
    with probability ``p``, else a uniform pick: ``1 / k`` on both sides)."""
    w = math.exp(-epsilon / 2)
    p0 = p * w / (w + k - 1) + (1 - p) / k
    p1 = p / (1 + (k - 1) * w) + (1 - p) / k
    return math.log(p1 / p0)


def littlestone_fit_run(epsilon, overspend=1.0):
    """Audit run of ``fit`` -> ``hypothesis_`` with ``method=Littlestone`` (the pair above);
    ``overspend`` > 1: the estimator's mechanisms at ``overspend * epsilon``, the same
    charge and guarantee (:func:`~sksmooth.mechanisms._audit_cases.overspending`)."""
    hypotheses = FiniteClass(matrix=_LS_MATRIX, domain=_LS_DOMAIN)
    method = Littlestone(domain=_LS_DOMAIN, n_generic=40, n_chunks=1, h_size=200)

    def mechanism(y, rng):
        clf = PrivateProperClassifier(
            hypotheses=hypotheses, method=method, epsilon=epsilon, delta=_LS_DELTA,
            classes=[0, 1], random_state=int(rng.integers(2**31)))  # reproducible audit only
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # seeded; n below Thm 6.4's
            index = clf.fit(_LS_X, y).hypothesis_.index
        assert clf.privacy_spent_ == (epsilon, _LS_DELTA)  # the charge stays epsilon
        return index

    def run(n_trials, random_state):
        with overspending(overspend):
            return audit_epsilon(mechanism, _LS_Y0, _LS_Y1, lambda index: index == 0,
                                 n_trials, random_state=random_state, delta=_LS_DELTA)

    return run


# 60 users, 30 hold {u} and 30 hold {v}; the neighbour moves one user from u
# to v: P0(u) ~ 1/2, P1(u) ~ 1/(1 + e^eps), loss ln((1 + e^eps)/2) (0.62 at 1).
_SETS0 = [["u"]] * 30 + [["v"]] * 30
_SETS1 = [["u"]] * 29 + [["v"]] * 31
_SPARSE_DELTA = 1e-6


def _sparse_selection_run(true_epsilon):
    def mechanism(sets, rng):
        return sparse_selection(sets, 1, true_epsilon, _SPARSE_DELTA, rng, fallback="dummy")

    def run(n_trials, random_state):
        return audit_epsilon(mechanism, _SETS0, _SETS1, lambda out: out == "u", n_trials,
                             random_state=random_state, delta=_SPARSE_DELTA)

    return run


# d = 1, G = 1, two labels: the neighbour moves a row from (x=0, label 0) to
# (x=1, label 1), so each of (S_0, S_1, W N_0, W N_1) moves by 1 (W = 1) and
# the event "every coordinate on D1's side of D1's value" has loss exactly
# 4 / b = epsilon (discrete Laplace tails). With projection=1 the same pair is
# built in d = 3 features: the two rows are opposite corners along the public
# projection, whose codes are -R and +R (R = 1): the loss is still 4 / b,
# whatever d (the projected L1 map's sensitivity does not grow with d).
_MEANS_Y0 = np.array([0] * 6 + [1] * 5)
# one fit per trial: 2000 trials catch the 2x overspend (its bound ~1.3 > 1)
NOISY_MEANS_TRIALS = 2_000
_MEANS_Y1 = np.r_[1, _MEANS_Y0[1:]]


def _means_rows(strategy):
    """Rows of the pair: 6 at the 'low' corner, 5 at the 'high' one; D1 moves one."""
    if strategy.row_map is None:
        low, high = strategy.lower, strategy.upper
    else:  # opposite box corners along the public projection's direction
        up = strategy.row_map.matrix[0] > 0
        low = np.where(up, strategy.lower, strategy.upper)
        high = np.where(up, strategy.upper, strategy.lower)
    X0 = np.array([low] * 6 + [high] * 5)
    return X0, np.r_[[high], X0[1:]]


def noisy_means_laplace_run(true_epsilon, projection=None, bounds=(0.0, 1.0)):
    """Audit run of the pure noisy-means release (vectorised over trials)."""
    params = dict(hypotheses="prototypes", bounds=bounds, gamma=0.5,
                  neighbouring="substitution", epsilon=true_epsilon, delta=0.0,
                  prototypes_per_label=1, projection=projection)
    n_features = 1 if projection is None else 3
    strategy = PrototypeStrategy.build(params, np.zeros((11, n_features)), 2,
                                       np.random.default_rng(0))  # public stream
    noise = strategy.calibration(params)
    X0, X1 = _means_rows(strategy)
    stats = {name: strategy.accumulate(strategy.empty_statistics(), X, y)
             for name, X, y in (("d0", X0, _MEANS_Y0), ("d1", X1, _MEANS_Y1))}

    def flat(s):
        return np.r_[s.sums.ravel(), strategy.count_weight * s.counts]

    target = flat(stats["d1"])
    direction = np.sign(target - flat(stats["d0"]))

    def mechanism(name, rng, n):
        sums, counts = strategy.noisy_statistics(stats[name], noise, rng, size=n)
        return np.column_stack([sums.reshape(n, -1), counts])

    def run(n_trials, random_state):
        return audit_epsilon(mechanism, "d0", "d1",
                             lambda out: np.all(direction * (out - target) >= 0, axis=1),
                             n_trials, random_state=random_state, batch=True)

    return run


def noisy_means_fit_run(epsilon, projection=None, overspend=1.0):
    """Audit run of the whole release path: ``fit`` -> ``noisy_statistics_`` (pure, the
    pair and event of :func:`noisy_means_laplace_run`); ``overspend`` > 1 is the broken
    variant (:func:`~sksmooth.mechanisms._audit_cases.overspending`: the estimator's noise
    for ``overspend * epsilon``, the same charge and guarantee)."""
    method = NoisyMeans(gamma=0.5, prototypes_per_label=1, projection=projection)
    n_features = 1 if projection is None else 3
    params = dict(hypotheses="prototypes", bounds=(0.0, 1.0), gamma=0.5, delta=0.0,
                  neighbouring="substitution", epsilon=epsilon, prototypes_per_label=1,
                  projection=projection)
    strategy = PrototypeStrategy.build(params, np.zeros((11, n_features)), 2,
                                       np.random.default_rng(0))  # the estimator's public map
    X0, X1 = _means_rows(strategy)
    data = {"d0": (X0, _MEANS_Y0), "d1": (X1, _MEANS_Y1)}
    exact = {name: strategy.accumulate(strategy.empty_statistics(), X, y)
             for name, (X, y) in data.items()}
    flat = {name: np.r_[s.sums.ravel(), strategy.count_weight * s.counts]
            for name, s in exact.items()}
    direction = np.sign(flat["d1"] - flat["d0"])

    def mechanism(name, rng):
        clf = PrivateProperClassifier(
            hypotheses="prototypes", method=method, epsilon=epsilon, bounds=(0.0, 1.0),
            classes=[0, 1], random_state=int(rng.integers(2**31)))  # reproducible audit only
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # seeded; little data
            sums, counts = clf.fit(*data[name]).noisy_statistics_
        assert clf.privacy_spent_ == (epsilon, 0.0)  # the charge stays epsilon
        return np.r_[sums.ravel(), counts]

    def run(n_trials, random_state):
        with overspending(overspend):
            return audit_epsilon(mechanism, "d0", "d1",
                                 lambda out: bool(np.all(direction * (out - flat["d1"]) >= 0)),
                                 n_trials, random_state=random_state)

    return run


def private_proper_audit_cases(epsilon=1.0):
    """The audit cases of :class:`PrivateProperClassifier` (both methods)."""
    w = math.exp(-epsilon / 2)
    exponential_loss = math.log((5 + w) / (w * (1 + 5 * w)))
    return [
        AuditCase(
            f"PrivateProperClassifier(method='exponential'), 1 vs 5 concepts (eps={epsilon}; "
            f"true loss {exponential_loss:.2f})",
            # 20 seeds: the lowest bound was 0.351 of the claim (a review): 0.3 leaves room
            epsilon, 0.0, _exponential_run(epsilon), 1_000, min_fraction=0.3,
            run_broken=_exponential_run(2 * epsilon), broken="selection run at 2x epsilon",
        ),
        AuditCase(
            f"PrivateProperClassifier(method=Littlestone()): fit -> hypothesis_ on {_LS_K} "
            f"singletons, one label flipped (eps={epsilon}, delta={_LS_DELTA:g}; true loss "
            f"{littlestone_loss(epsilon):.2f})",
            epsilon, _LS_DELTA, littlestone_fit_run(epsilon), LITTLESTONE_TRIALS,
            min_fraction=0.3,
            run_overspent=lambda factor, n_trials, random_state: littlestone_fit_run(
                epsilon, overspend=factor)(n_trials, random_state),
            broken="the estimator's mechanisms at 2x epsilon, charging epsilon",
        ),
        AuditCase(
            f"PrivateProperClassifier(method='littlestone'): GenericLearner step (eps={epsilon})",
            epsilon, 0.0, _generic_learner_run(epsilon), 3_000, min_fraction=0.5,
            run_broken=_generic_learner_run(2 * epsilon), broken="step run at 2x epsilon",
        ),
        AuditCase(
            f"PrivateProperClassifier(method='littlestone'): sparse-selection step "
            f"(eps={epsilon}, delta={_SPARSE_DELTA:g})",
            # 20 seeds: the lowest bound was 0.394 of the claim, under 0.4 once (a review)
            epsilon, _SPARSE_DELTA, _sparse_selection_run(epsilon), 3_000, min_fraction=0.35,
            run_broken=_sparse_selection_run(2 * epsilon), broken="step run at 2x epsilon",
        ),
        AuditCase(
            f"PrivateProperClassifier(method=NoisyMeans(), delta=0): fit -> noisy_statistics_, "
            f"one row changes value and label (eps={epsilon}; true loss {epsilon:g})",
            epsilon, 0.0, noisy_means_fit_run(epsilon), NOISY_MEANS_TRIALS, min_fraction=0.5,
            run_broken=noisy_means_fit_run(epsilon, overspend=2.0),
            broken="the estimator's noise calibrated for 2x epsilon, charging epsilon",
        ),
        AuditCase(
            f"PrivateProperClassifier(method='noisy_means', delta=0, projection=1): projected "
            f"L1 map in 3 features, opposite corners (eps={epsilon}; true loss {epsilon:g})",
            epsilon, 0.0, noisy_means_laplace_run(epsilon, projection=1), 20_000,
            min_fraction=0.7, run_broken=noisy_means_laplace_run(2 * epsilon, projection=1),
            broken="noise at 2x epsilon (the strategy's map; the release path is the case above)",
        ),
    ]
