"""Audit cases of the release estimators for the catalog :mod:`sksmooth.audits`.

Each case runs the real estimator on a neighbouring pair with an event on
which the analysis is as tight as it gets, and a deliberately broken variant
(twice the budget it accounts for, made inside the estimator) that the audit
must catch at the same number of trials, or says it has no power there. The
release audits of other steps and configurations (the sampled universe, the
rounds' composition, the delta > 0 path of MWEM) are in
``tests/release/test_release_privacy_audit.py``.
"""

import warnings

import numpy as np

from ..accounting import zcdp_from_dp_budget, zcdp_to_dp
from ..exceptions import SksmoothWarning
from ..mechanisms._audit_cases import overspending
from ..metrics import AuditCase, audit_epsilon, audit_epsilon_search
from . import (
    MWEM,
    AdaptiveMarginalSynthesizer,
    GaussianPerQuery,
    LaplacePerQuery,
    ProjectedSmoothMWEM,
    SmoothMWEM,
    SubsampledNetMechanism,
    TableRounds,
    Workload,
)

__all__ = ["release_audit_cases"]


class _FirstChunkCountedTwice(MWEM):
    """Broken on purpose: the out-of-core path counts its first chunk twice.

    (The bug of an accumulator that counts the rows it opened the stream
    with, then counts all chunks again: a record of the first chunk moves
    every count by 2, so the measurement spends twice its epsilon.)
    """

    def _open_stream(self, X, y, params, randomness, whole_table, classes=None, n_rows=None):
        stream, rows = super()._open_stream(X, y, params, randomness, whole_table, classes,
                                           n_rows)
        stream.statistic.update(*rows)
        return stream, rows


def _chunked_runner(cls, params, dataset0, dataset1, output, event, split):
    def mechanism(dataset, rng):
        with warnings.catch_warnings():  # audits seed every run (not certified, warned)
            warnings.simplefilter("ignore", SksmoothWarning)
            est = cls(random_state=rng, **params)
            est.partial_fit(dataset[:split])
            est.partial_fit(dataset[split:])
            return output(est.release())

    def run(n_trials, random_state):
        return audit_epsilon(mechanism, dataset0, dataset1, event, n_trials,
                             random_state=random_state)

    return run


def _runner(cls, params, dataset0, dataset1, output, event, delta=0.0):
    def mechanism(dataset, rng):
        with warnings.catch_warnings():  # audits seed every run (not certified, warned)
            warnings.simplefilter("ignore", SksmoothWarning)
            return output(cls(random_state=rng, **params).fit(dataset))

    def run(n_trials, random_state):
        return audit_epsilon(mechanism, dataset0, dataset1, event, n_trials,
                             random_state=random_state, delta=delta)

    return run


def _overspent_runner(params, dataset0, dataset1, output, event, cls=MWEM, delta=0.0):
    def run_overspent(factor, n_trials, random_state):
        with overspending(factor):
            return _runner(cls, params, dataset0, dataset1, output, event, delta)(
                n_trials, random_state)

    return run_overspent


def _smooth_mwem_selection_case(epsilon=2.0):
    # Two binary attributes, the two 1-way marginals as tables, one round,
    # 90% of the budget on selection: the released selection distinguishes
    # the neighbours with a ratio close to e^{1.8} (derivation in
    # tests/release/test_release_privacy_audit.py).
    dataset0 = np.array([[1.0, 1.0]] * 3 + [[0.0, 1.0]] * 3)
    dataset1 = np.array([[1.0, 1.0]] * 3 + [[0.0, 1.0]] * 2 + [[1.0, 0.0]])
    params = dict(epsilon=epsilon, queries=Workload(kind="marginals", marginal_width=1),
                  rounds=TableRounds(n_iter=1, selection_fraction=0.9, n_passes=0),
                  levels=int, bounds=(0, 1))

    def output(est):
        return est.selected_[0]

    def event(table):
        return table == 0

    return AuditCase(
        f"MWEM (table measurement, eps={epsilon}), selection event",
        # 2,000 trials: at 1,000 the broken variant's bound fell below the claim for 1
        # seed in 20 (1.80 against 2.0; a review); at 2,000 it was 2.43-3.25 over 6 seeds
        epsilon, 0.0, _runner(MWEM, params, dataset0, dataset1, output, event), 2_000,
        min_fraction=0.4,
        run_overspent=_overspent_runner(params, dataset0, dataset1, output, event),
    )


def _one_cell_measurement_params(epsilon):
    """One binary attribute, one round that only measures (selection ~free)."""
    return dict(epsilon=epsilon, queries=Workload(kind="marginals", marginal_width=1),
                rounds=TableRounds(n_iter=1, selection_fraction=0.01, n_passes=0),
                levels=int, bounds=(0, 1))


def _noisy_counts(est):
    return est.noisy_counts_[0].ravel()


def _tail_event(counts):
    # counts (4, 0) vs (3, 1): probability ratio exactly e^{eps_meas} under
    # discrete Laplace noise of scale 2 / eps_meas
    return counts[1] >= 1 and counts[0] <= 3


def _smooth_mwem_measurement_case(epsilon=3.0):
    # n = 4: counts (4, 0) vs (3, 1), the tail event of _tail_event.
    dataset0 = np.zeros((4, 1))
    dataset1 = np.array([[0.0], [0.0], [0.0], [1.0]])
    params = _one_cell_measurement_params(epsilon)
    return AuditCase(
        f"MWEM (eps={epsilon}), discrete Laplace measurement of a table, tail event",
        epsilon, 0.0,
        _runner(MWEM, params, dataset0, dataset1, _noisy_counts, _tail_event), 500,
        min_fraction=0.6,
        run_overspent=_overspent_runner(params, dataset0, dataset1, _noisy_counts,
                                        _tail_event),
    )


def _chunked_measurement_case(epsilon=3.0):
    # The measurement case on the out-of-core path: the rows arrive in two
    # chunks (partial_fit, partial_fit, release), the differing record in
    # the first one. A first chunk counted twice gives (5, 0) vs (3, 2) and
    # a ratio near e^{4.6} on the same event.
    dataset0 = np.zeros((4, 1))
    dataset1 = np.array([[1.0], [0.0], [0.0], [0.0]])
    params = _one_cell_measurement_params(epsilon)
    return AuditCase(
        f"MWEM out of core (partial_fit x2 + release, eps={epsilon}), "
        "discrete Laplace measurement of a table, tail event",
        epsilon, 0.0,
        _chunked_runner(MWEM, params, dataset0, dataset1, _noisy_counts, _tail_event, 1),
        1_000, min_fraction=0.6,
        run_broken=_chunked_runner(_FirstChunkCountedTwice, params, dataset0, dataset1,
                                   _noisy_counts, _tail_event, 1),
        broken="the first chunk is counted twice (sensitivity 2 per cell, twice the epsilon)",
    )


def _sigma_measurement_case(cls, epsilon=3.0):
    # The measurement case of _smooth_mwem_measurement_case on Smooth MWEM
    # (sigma changes the accuracy analysis, not the release) and on Projected
    # Smooth MWEM (sigma-smooth iterates: the projection only post-processes
    # the released noisy counts), so the same tail event reaches e^{eps_meas}.
    dataset0 = np.zeros((4, 1))
    dataset1 = np.array([[0.0], [0.0], [0.0], [1.0]])
    params = dict(_one_cell_measurement_params(epsilon), sigma=0.5)
    return AuditCase(
        f"{cls.__name__}(sigma=0.5, eps={epsilon}), discrete Laplace "
        "measurement of a table, tail event",
        epsilon, 0.0,
        _runner(cls, params, dataset0, dataset1, _noisy_counts, _tail_event),
        500, min_fraction=0.6,
        run_overspent=_overspent_runner(params, dataset0, dataset1, _noisy_counts,
                                        _tail_event, cls),
    )


# The per-query baselines and the Subsampled Net Mechanism on one binary
# attribute whose two cells are the queries: four 0s vs three 0s and a 1.
_PER_QUERY_PAIR = np.zeros((4, 1)), np.array([[0.0], [0.0], [0.0], [1.0]])
_ONE_ATTRIBUTE = dict(queries=Workload(kind="marginals", marginal_width=1), levels=int,
                      bounds=(0, 1))


def _laplace_per_query_case(epsilon=3.0):
    # One table of L1 sensitivity 2: discrete Laplace of scale 2 / eps on
    # counts (4, 0) vs (3, 1), the tail event of _tail_event (ratio e^eps).
    params = dict(epsilon=epsilon, sensitivity="structured", **_ONE_ATTRIBUTE)

    def answers(est):
        return est.noisy_counts_

    return AuditCase(
        f"LaplacePerQuery (eps={epsilon}, one table), discrete Laplace answers, tail event",
        epsilon, 0.0, _runner(LaplacePerQuery, params, *_PER_QUERY_PAIR, answers, _tail_event),
        500, min_fraction=0.6,
        run_overspent=_overspent_runner(params, *_PER_QUERY_PAIR, answers, _tail_event,
                                        LaplacePerQuery),
    )


def _gaussian_per_query_case(epsilon=2.0, delta=1e-2, delta_audit=0.05):
    # The discrete Gaussian answers are exactly rho-zCDP (Canonne, Kamath and
    # Steinke 2020, Thm 4) for the rho the estimator spends; the (eps, delta)
    # it reports is a loose conversion of that rho that no feasible audit
    # approaches, so the claim audited is the rho-zCDP curve at delta' = 0.05.
    # The noisy cells' difference is -4 (four 0s) or -2 plus a discrete Gaussian
    # of sd sqrt(2) sigma = 2.56 (half that when overspent 2x, 4x rho); on the
    # half-space {cell 1 >= cell 0} the normal approximation of the bound at 2,000
    # trials is 0.48 of the claim for correct code and 1.57 of it for the 2x
    # variant. A threshold searched on held-out runs needed 4,000 trials.
    params = dict(epsilon=epsilon, delta=delta, sensitivity="structured", **_ONE_ATTRIBUTE)
    claim = zcdp_to_dp(zcdp_from_dp_budget(epsilon, delta), delta_audit)

    def answers(est):
        return est.noisy_counts_

    def ones_at_least_zeros(counts):
        return counts[1] >= counts[0]

    return AuditCase(
        f"GaussianPerQuery (eps={epsilon}, delta={delta}, one table): its rho-zCDP as "
        f"({claim:.3f}, {delta_audit})-DP, discrete Gaussian answers, cell 1 >= cell 0",
        claim, delta_audit,
        _runner(GaussianPerQuery, params, *_PER_QUERY_PAIR, answers, ones_at_least_zeros,
                delta_audit), 2_000,
        min_fraction=0.3,
        run_overspent=_overspent_runner(params, *_PER_QUERY_PAIR, answers, ones_at_least_zeros,
                                        GaussianPerQuery, delta_audit),
    )


def _subsampled_net_case(epsilon=1.0):
    # Candidates are single points of V (synthetic_size=1), V = 40 grid cells
    # (both values in V almost surely). Releasing the point 1 has score gap 1
    # (four 0s) vs 1/2 (three 0s, a 1) against the point 0 (sensitivity 1/4):
    # probability ~1/(1 + e^{2 eps}) vs ~1/(1 + e^{eps}), a log-ratio ~0.8 eps.
    params = dict(epsilon=epsilon, universe="grid", n_universe=40, synthetic_size=1,
                  **_ONE_ATTRIBUTE)

    def released(est):
        return est.sample(1)[0, 0]  # a point mass: deterministic

    def is_one(value):
        return value == 1.0

    return AuditCase(
        f"SubsampledNetMechanism (eps={epsilon}, one point of 40), released point 1",
        epsilon, 0.0,
        _runner(SubsampledNetMechanism, params, *_PER_QUERY_PAIR, released, is_one), 2_000,
        min_fraction=0.3,
        run_overspent=_overspent_runner(params, *_PER_QUERY_PAIR, released, is_one,
                                        SubsampledNetMechanism),
    )


# AdaptiveMarginalSynthesizer: 40 records on two binary columns (10 per
# cell); the neighbour adds a record (1, 1) (add/remove) or replaces a (0, 0)
# by a (1, 1) (substitution). The released model's count of cell (1, 1)
# (minus that of (0, 0) under substitution) sums what every measurement saw
# of the record; its threshold is chosen on held-out runs. The loop spends
# its budget over 3 (MST) to ~20 (AIM) zCDP measurements and selections whose
# sum the conversion to (eps, delta) bounds, so even this event sees only
# part of the claim at a few hundred trials: eps=2 and delta=0.05 are where
# that conversion is tightest for events a few hundred trials can see.
_SYNTH_BASE = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 10)


def _synthesizer_pair(neighbouring):
    if neighbouring == "substitution":
        other = _SYNTH_BASE.copy()
        other[0] = [1, 1]
        return _SYNTH_BASE, other
    return _SYNTH_BASE, np.vstack([_SYNTH_BASE, [[1, 1]]])


def _synthesizer_run(method, neighbouring, epsilon, delta, factor=1.0):
    dataset0, dataset1 = _synthesizer_pair(neighbouring)

    def mechanism(dataset, rng):
        with warnings.catch_warnings():  # seeded runs, delta >= 1/n: warned by design
            warnings.simplefilter("ignore", SksmoothWarning)
            synth = AdaptiveMarginalSynthesizer(
                epsilon=epsilon, delta=delta, levels=2, method=method,
                neighbouring=neighbouring, random_state=rng).fit(dataset)
        counts = synth.n_records_ * np.asarray(synth.model_.marginal((0, 1))).reshape(2, 2)
        return counts[1, 1] - (counts[0, 0] if neighbouring == "substitution" else 0.0)

    def run(n_trials, random_state):
        with overspending(factor):
            return audit_epsilon_search(mechanism, dataset0, dataset1, n_trials,
                                        random_state=random_state, delta=delta)

    return run


def _synthesizer_case(method, neighbouring, detectable_factor, epsilon=2.0, delta=0.05):
    return AuditCase(
        f"AdaptiveMarginalSynthesizer(method={method!r}, neighbouring={neighbouring!r}, "
        f"eps={epsilon}, delta={delta}), model count of the record's cell",
        epsilon, delta, _synthesizer_run(method, neighbouring, epsilon, delta), 300,
        min_fraction=0.0,
        run_overspent=lambda factor, n_trials, random_state: _synthesizer_run(
            method, neighbouring, epsilon, delta, factor)(n_trials, random_state),
        detectable_factor=detectable_factor,
    )


def release_audit_cases():
    """The audit cases of the release estimators."""
    return [_smooth_mwem_selection_case(), _smooth_mwem_measurement_case(),
            _chunked_measurement_case(), _sigma_measurement_case(SmoothMWEM),
            _sigma_measurement_case(ProjectedSmoothMWEM), _laplace_per_query_case(),
            _gaussian_per_query_case(), _subsampled_net_case(),
            # detectable factors: measured by benchmarks/bench_audits.py (seed 1234)
            _synthesizer_case("mst", "substitution", 4.0),
            _synthesizer_case("mst", "add_remove", 4.0),
            _synthesizer_case("aim", "substitution", 8.0),
            _synthesizer_case("aim", "add_remove", 4.0)]
