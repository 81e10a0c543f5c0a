import pytest

from sksmooth.metrics._audit_suite import audit_cases


@pytest.mark.parametrize("case", audit_cases(), ids=lambda c: c.name)
def test_audit_case_lower_bound_within_claim_and_informative(case):
    result = case.run(case.n_trials, 1234)
    # Valid: never above the claim. Informative: the chosen neighbouring pair
    # and event come close to it, so a broken mechanism would be caught.
    assert result.epsilon_lower <= case.epsilon
    assert result.epsilon_lower >= case.min_fraction * case.epsilon
