"""Audit cases of the release estimators for the catalog :mod:`sksmooth.audits`.

Each case runs the real estimator on a neighbouring pair (substitution)
with an event on which the analysis is tight, and a deliberately broken
variant (twice the budget it accounts for) that the audit must catch at the
same number of trials. The full set of release audits (every step and
configuration) is in ``tests/release/test_release_privacy_audit.py``.
"""

import warnings

import numpy as np

from ..exceptions import PrivacyLeakWarning
from ..metrics import AuditCase, audit_epsilon
from ._mwem import SmoothMWEM

__all__ = ["release_audit_cases"]


class _DoubledSelection(SmoothMWEM):
    """Broken on purpose: spends 2x the selection budget it accounts for."""

    def _round_parameters(self, epsilon, delta, T, fraction, n, by_table):
        params = super()._round_parameters(epsilon, delta, T, fraction, n, by_table)
        return params._replace(selection_epsilon=2 * params.selection_epsilon)


class _DoubledMeasurement(SmoothMWEM):
    """Broken on purpose: measures with twice the epsilon it accounts for."""

    def _round_parameters(self, epsilon, delta, T, fraction, n, by_table):
        params = super()._round_parameters(epsilon, delta, T, fraction, n, by_table)
        return params._replace(measurement_epsilon=2 * params.measurement_epsilon,
                               noise_scale=params.noise_scale / 2)


class _FirstChunkCountedTwice(SmoothMWEM):
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
            warnings.simplefilter("ignore", PrivacyLeakWarning)
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
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            return output(cls(random_state=rng, **params).fit(dataset))

    def run(n_trials, random_state):
        return audit_epsilon(mechanism, dataset0, dataset1, event, n_trials,
                             random_state=random_state)

    return run


def _smooth_mwem_selection_case(epsilon=2.0):
    # Two binary attributes, the two 1-way marginals as tables, one round,
    # 90% of the budget on selection: the released selection distinguishes
    # the neighbours with a ratio close to e^{1.8} (derivation in
    # tests/release/test_release_privacy_audit.py).
    dataset0 = np.array([[1.0, 1.0]] * 3 + [[0.0, 1.0]] * 3)
    dataset1 = np.array([[1.0, 1.0]] * 3 + [[0.0, 1.0]] * 2 + [[1.0, 0.0]])
    params = dict(epsilon=epsilon, queries="marginals", marginal_width=1, n_iter=1,
                  selection_fraction=0.9, n_passes=0, categorical_features=[0, 1],
                  bounds=(0, 1))

    def output(est):
        return est.selected_[0]

    def event(table):
        return table == 0

    return AuditCase(
        f"SmoothMWEM (table measurement, eps={epsilon}), selection event",
        # 2,000 trials: at 1,000 the broken variant's bound fell below the claim for 1
        # seed in 20 (1.80 against 2.0; a review); at 2,000 it was 2.43-3.25 over 6 seeds
        epsilon, 0.0, _runner(SmoothMWEM, params, dataset0, dataset1, output, event), 2_000,
        min_fraction=0.4,
        run_broken=_runner(_DoubledSelection, params, dataset0, dataset1, output, event),
        broken="exponential mechanism run at twice the selection epsilon it accounts for",
    )


def _one_cell_measurement_params(epsilon):
    """One binary attribute, one round that only measures (selection ~free)."""
    return dict(epsilon=epsilon, queries="marginals", marginal_width=1, n_iter=1,
                selection_fraction=0.01, n_passes=0, categorical_features=[0],
                bounds=(0, 1))


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
        f"SmoothMWEM (eps={epsilon}), discrete Laplace measurement of a table, tail event",
        epsilon, 0.0,
        _runner(SmoothMWEM, params, dataset0, dataset1, _noisy_counts, _tail_event), 500,
        min_fraction=0.6,
        run_broken=_runner(_DoubledMeasurement, params, dataset0, dataset1, _noisy_counts,
                           _tail_event),
        broken="counts measured with twice the epsilon the release accounts for",
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
        f"SmoothMWEM out of core (partial_fit x2 + release, eps={epsilon}), "
        "discrete Laplace measurement of a table, tail event",
        epsilon, 0.0,
        _chunked_runner(SmoothMWEM, params, dataset0, dataset1, _noisy_counts, _tail_event, 1),
        1_000, min_fraction=0.6,
        run_broken=_chunked_runner(_FirstChunkCountedTwice, params, dataset0, dataset1,
                                   _noisy_counts, _tail_event, 1),
        broken="the first chunk is counted twice (sensitivity 2 per cell, twice the epsilon)",
    )


def release_audit_cases():
    """The audit cases of the release estimators."""
    return [_smooth_mwem_selection_case(), _smooth_mwem_measurement_case(),
            _chunked_measurement_case()]
