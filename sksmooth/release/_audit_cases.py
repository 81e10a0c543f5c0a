"""Audit cases of the release estimators for the catalog :mod:`sksmooth.audits`.

Each case runs the real estimator on a neighbouring pair with an event on
which the analysis is as tight as it gets, and a deliberately broken variant
(twice the budget it accounts for, made inside the estimator) that the audit
must catch at the same number of trials, or says it has no power there. The
full set of release audits (every step and configuration) is in
``tests/release/test_release_privacy_audit.py``.
"""

import warnings

import numpy as np

from ..exceptions import SksmoothWarning
from ..mechanisms._audit_cases import overspending
from ..metrics import AuditCase, audit_epsilon, audit_epsilon_search
from . import MWEM, AdaptiveMarginalSynthesizer, ProjectedSmoothMWEM, TableRounds, Workload

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


def _runner(cls, params, dataset0, dataset1, output, event):
    def mechanism(dataset, rng):
        with warnings.catch_warnings():  # audits seed every run (not certified, warned)
            warnings.simplefilter("ignore", SksmoothWarning)
            return output(cls(random_state=rng, **params).fit(dataset))

    def run(n_trials, random_state):
        return audit_epsilon(mechanism, dataset0, dataset1, event, n_trials,
                             random_state=random_state)

    return run


def _overspent_runner(params, dataset0, dataset1, output, event, cls=MWEM):
    def run_overspent(factor, n_trials, random_state):
        with overspending(factor):
            return _runner(cls, params, dataset0, dataset1, output, event)(
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


def _projected_measurement_case(epsilon=3.0):
    # The measurement case of _smooth_mwem_measurement_case on Projected
    # Smooth MWEM (sigma-smooth iterates): the projection only post-processes
    # the released noisy counts, so the same tail event reaches e^{eps_meas}.
    dataset0 = np.zeros((4, 1))
    dataset1 = np.array([[0.0], [0.0], [0.0], [1.0]])
    params = dict(_one_cell_measurement_params(epsilon), sigma=0.5)
    return AuditCase(
        f"ProjectedSmoothMWEM(sigma=0.5, eps={epsilon}), discrete Laplace "
        "measurement of a table, tail event",
        epsilon, 0.0,
        _runner(ProjectedSmoothMWEM, params, dataset0, dataset1, _noisy_counts, _tail_event),
        500, min_fraction=0.6,
        run_overspent=_overspent_runner(params, dataset0, dataset1, _noisy_counts,
                                        _tail_event, ProjectedSmoothMWEM),
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
            _chunked_measurement_case(), _projected_measurement_case(),
            # detectable factors: measured by benchmarks/bench_audits.py (seed 1234)
            _synthesizer_case("mst", "substitution", 4.0),
            _synthesizer_case("mst", "add_remove", 4.0),
            _synthesizer_case("aim", "substitution", 8.0),
            _synthesizer_case("aim", "add_remove", 4.0)]
