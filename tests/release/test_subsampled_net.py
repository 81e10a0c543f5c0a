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


def test_candidate_errors_are_the_max_error_of_each_candidates_mean_answers():
    # the scores come from a sparse product (multiplicities / s) @ Q; repeated points
    # in a candidate count with their multiplicity
    from sksmooth.release._privacy import integer_scores
    from sksmooth.release._subsampled_net import _max_errors

    rng = np.random.default_rng(0)
    Q = rng.random((6, 5)).astype(np.float32)
    cands = rng.integers(0, 6, size=(40, 4))
    cands[0] = 2  # one point four times
    counts, n = rng.integers(0, 9, size=5), 8
    direct = [integer_scores(Q[c].astype(np.float64).mean(axis=0), counts, n).max()
              for c in cands]
    np.testing.assert_array_equal(_max_errors(Q, cands, counts, n), direct)
