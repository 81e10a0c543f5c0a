"""Audit case of :class:`PrivateBounds` for the catalog :mod:`sksmooth.audits`.

End to end (fit -> ``bounds_``) on a pair where both ends' AboveThreshold
are as tight as this estimator allows: the lower end's event is the
worst case of the sparse vector technique (every query scanned before it
stops moved by the record, the one it stops at not), the upper end's first
query moves too.
"""

import warnings

import numpy as np

from ..exceptions import SksmoothWarning
from ..mechanisms._audit_cases import overspending
from ..metrics import AuditCase, audit_epsilon
from ._private_bounds import PrivateBounds

__all__ = ["private_bounds_audit_cases"]


def _private_bounds_case(epsilon=4.0):
    # One feature, grid 0..4, tail 0, n = 7: each end has epsilon 2, noise scale
    # 1 and threshold 7 - 3 = 4. D0 = three rows at 4, one at 1, three below the
    # grid; D1 moves the row at 1 to 4. Lower end (scanning 4, 3, 2, 1): the counts
    # of rows >= 4, 3, 2 are 3 (D0) vs 4 (D1) and that of rows >= 1 is 4 in both, so
    # stopping at 1 costs the threshold's noise and the last query's; the upper end
    # then scans from 2, where the count of rows <= 2 is 4 vs 3. The exact law of
    # the event: probabilities 0.112 / 0.0108, a log-ratio 0.59 of the claim (the
    # best pair of an exact search over grids of 3 to 7 candidates); 2x overspent: 0.377 / 0.00194, 1.32 of it.
    # 4,000 trials: the 2x variant is caught with probability ~0.99 over seeds
    # (0.77 at 2,000); each fit draws exact discrete Laplace noise (~20 ms).
    grid = np.arange(5.0)
    dataset0 = np.array([[4.0], [4.0], [4.0], [1.0], [-1.0], [-1.0], [-1.0]])
    dataset1 = np.array([[4.0], [4.0], [4.0], [4.0], [-1.0], [-1.0], [-1.0]])

    def mechanism(dataset, rng):
        with warnings.catch_warnings():  # audits seed every run (not certified, warned)
            warnings.simplefilter("ignore", SksmoothWarning)
            box = PrivateBounds(epsilon=epsilon, tail=0.0, grid=grid, random_state=rng)
            lower, upper = box.fit(dataset).bounds_
        return float(lower[0]), float(upper[0])

    def box_one_two(bounds):
        return bounds == (1.0, 2.0)

    def run_overspent(factor, n_trials, random_state):
        with overspending(factor):
            return audit_epsilon(mechanism, dataset0, dataset1, box_one_two, n_trials,
                                 random_state=random_state)

    return AuditCase(
        f"PrivateBounds (eps={epsilon}, grid 0..4, n=7), bounds_ == (1, 2)", epsilon, 0.0,
        lambda n_trials, random_state: run_overspent(1.0, n_trials, random_state), 4_000,
        min_fraction=0.35, run_overspent=run_overspent)


def private_bounds_audit_cases():
    """The audit cases of :mod:`sksmooth.preprocessing`."""
    return [_private_bounds_case()]
