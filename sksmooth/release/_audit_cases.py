"""Audit cases of the release estimators for the catalog :mod:`sksmooth.audits`."""

import numpy as np

from ..metrics import AuditCase, audit_epsilon
from ._mwem import SmoothMWEM

__all__ = ["release_audit_cases"]


def _smooth_mwem_case(epsilon=2.0):
    # Two binary attributes, the two 1-way marginals as tables, one round,
    # 90% of the budget on selection: the released selection distinguishes
    # the neighbours with a ratio close to e^{1.8} (see
    # tests/release/test_release_privacy_audit.py for the derivation).
    dataset0 = np.array([[1.0, 1.0]] * 3 + [[0.0, 1.0]] * 3)
    dataset1 = np.array([[1.0, 1.0]] * 3 + [[0.0, 1.0]] * 2 + [[1.0, 0.0]])

    def mechanism(dataset, rng):
        est = SmoothMWEM(
            epsilon=epsilon, queries="marginals", marginal_width=1, n_iter=1,
            selection_fraction=0.9, categorical_features=[0, 1], bounds=(0, 1),
            random_state=rng,
        )
        return est.fit(dataset).selected_[0]

    def run(n_trials, random_state):
        return audit_epsilon(
            mechanism, dataset0, dataset1, lambda table: table == 0, n_trials,
            random_state=random_state,
        )

    return AuditCase(
        f"SmoothMWEM (table measurement, eps={epsilon}), selection event",
        epsilon, 0.0, run, 1_500, min_fraction=0.4,
    )


def release_audit_cases():
    """The audit cases of the release estimators."""
    return [_smooth_mwem_case()]
