"""Sections of ``sksmooth demo``: one function per estimator.

Each section is a generator ``section(out_dir, fast, progress)`` yielding the
report lines; figures are written to ``out_dir`` when matplotlib is installed.
"""

import numpy as np

from .accounting import BudgetAccountant
from .metrics._audit_suite import audit_cases


def _mechanisms(out_dir, fast, progress):
    acc = BudgetAccountant(epsilon=10.0)
    from .mechanisms import laplace_mechanism

    rng = np.random.default_rng(0)
    true = 42.0
    noisy = laplace_mechanism(true, 1.0, 1.0, rng)
    acc.spend(1.0, 0.0, label="laplace count")
    yield f"Laplace count: true {true:.0f}, released {noisy:.2f} (eps=1)"
    case = audit_cases()[0]
    result = case.run(case.n_trials // (20 if fast else 1), 0)
    yield (
        f"audit of the Laplace mechanism: eps lower bound {result.epsilon_lower:.3f} "
        f"<= claimed {case.epsilon}"
    )
    yield f"ledger: {acc}"


SECTIONS = [("privacy primitives", _mechanisms)]
