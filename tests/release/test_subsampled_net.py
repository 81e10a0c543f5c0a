import numpy as np
import pytest

from sksmooth import SubsampledNetMechanism
from sksmooth.accounting import BudgetAccountant


def test_scoring_work_over_the_cap_is_refused_before_any_candidate_or_charge():
    # 10 000 * 5000 candidates scored on 2000 queries: 10^11 reads, minutes on 30 rows
    X = np.random.default_rng(0).uniform(0, 1, size=(30, 2))
    accountant = BudgetAccountant()
    est = SubsampledNetMechanism(bounds=(0, 1), synthetic_size=10_000, accountant=accountant)
    with pytest.raises(ValueError, match=r"synthetic_size \* n_candidates \* n_queries"):
        est.fit(X)
    assert not hasattr(est, "synthetic_indices_")
    assert accountant.spent.epsilon == 0 and len(accountant) == 0
