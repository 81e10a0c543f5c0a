import warnings

import numpy as np
import pytest

from sksmooth import SubsampledNetMechanism
from sksmooth.accounting import BudgetAccountant
from sksmooth.exceptions import PrivacyLeakWarning


def test_scoring_work_over_the_cap_is_refused_before_any_candidate_or_charge():
    # 10 000 * 5000 candidates scored on 2000 queries: 10^11 reads, minutes on 30 rows
    X = np.random.default_rng(0).uniform(0, 1, size=(30, 2))
    accountant = BudgetAccountant()
    est = SubsampledNetMechanism(bounds=(0, 1), synthetic_size=10_000, accountant=accountant)
    with pytest.raises(ValueError, match=r"synthetic_size \* n_candidates \* n_queries"):
        est.fit(X)
    assert not hasattr(est, "synthetic_indices_")
    assert accountant.spent.epsilon == 0 and len(accountant) == 0



def test_scoring_cap_refusal_after_reading_the_labels_from_y_is_recorded_not_private():
    # classes='data': 3 labels read from y make 2997 queries (2 labels: 1998), so whether
    # the cap refuses, and its message (n_queries), depend on the rows
    X = np.random.default_rng(0).uniform(0, 1, size=(30, 3))
    accountant = BudgetAccountant()
    est = SubsampledNetMechanism(bounds=(0, 1), classes="data", synthetic_size=100,
                                 n_candidates=15_000, accountant=accountant)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with pytest.raises(ValueError, match=r"n_queries = 100 \* 15000 \* 2997"):
            est.fit(X, np.arange(30) % 3)
    assert accountant.spent.n_not_private == 1 and accountant.spent.epsilon == 0

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


def test_candidate_draws_follow_the_dirichlet_multinomial_law():
    # s draws from w ~ Dirichlet(alpha 1_M): the sorted multiset's probability is
    # multinomial(c) * Gamma(M a) / Gamma(M a + s) * prod_j Gamma(a + c_j) / Gamma(a)
    from itertools import combinations_with_replacement
    from math import factorial

    from scipy.special import gammaln

    from sksmooth.release._subsampled_net import _dirichlet_multinomial_draws

    M, s, a, K = 3, 4, 0.5, 200_000
    draws = _dirichlet_multinomial_draws(M, s, np.full(K, a), np.random.default_rng(0))
    counts = np.stack([(draws == j).sum(axis=1) for j in range(M)], axis=1)
    for multiset in combinations_with_replacement(range(M), s):
        c = np.bincount(multiset, minlength=M)
        p = factorial(s) / np.prod([factorial(k) for k in c]) * np.exp(
            gammaln(M * a) - gammaln(M * a + s) + np.sum(gammaln(a + c) - gammaln(a)))
        seen = np.mean(np.all(counts == c, axis=1))
        assert abs(seen - p) <= 5 * np.sqrt(p * (1 - p) / K), (multiset, seen, p)
