"""The empirical privacy audit itself: validity (coverage), power, bad input."""

import numpy as np
import pytest
from scipy import stats

from sksmooth.metrics._audit import (
    AuditResult,
    _clopper_pearson,
    _epsilon_lower,
    audit_epsilon,
    audit_epsilon_search,
)


def randomized_response(eps):
    keep = np.exp(eps) / (1 + np.exp(eps))

    def mech(bit, rng, n):
        return np.where(rng.random(n) < keep, bit, 1 - bit)

    return mech


def test_clopper_pearson_known_values():
    lo, up = _clopper_pearson(0, 100, 0.025)
    assert lo == 0.0 and up == pytest.approx(1 - 0.025 ** (1 / 100))
    lo, up = _clopper_pearson(100, 100, 0.025)
    assert up == 1.0 and lo == pytest.approx(0.025 ** (1 / 100))
    lo, up = _clopper_pearson(30, 100, 0.025)
    assert lo == pytest.approx(stats.beta.ppf(0.025, 30, 71))
    assert up == pytest.approx(stats.beta.ppf(0.975, 31, 70))


@pytest.mark.parametrize("confidence", [0.95, 0.5])
def test_bound_is_valid_for_tight_mechanism(confidence):
    """Randomized response has privacy loss exactly eps on the event {1}:
    the bound must exceed eps in at most 1 - confidence of repetitions."""
    eps, n, reps = 1.0, 2000, 20_000
    keep = np.exp(eps) / (1 + np.exp(eps))
    rng = np.random.default_rng(0)
    k0 = rng.binomial(n, keep, size=reps)  # event "output == 1" under bit 1
    k1 = rng.binomial(n, 1 - keep, size=reps)  # ... under bit 0
    bounds = np.maximum(_epsilon_lower(k0, k1, n, confidence, 0.0).max(axis=0), 0)
    violations = np.mean(bounds > eps)
    assert violations <= 1 - confidence
    # The naive point estimate (no confidence bound) overclaims about half the time:
    # the test above could fail.
    assert np.mean(np.log(k0 / k1) > eps) > 0.3


def test_power_and_result_fields():
    res = audit_epsilon(randomized_response(1.0), 1, 0, lambda o: o == 1, 100_000,
                        random_state=0, batch=True)
    assert isinstance(res, AuditResult)
    assert 0.95 < res.epsilon_lower <= 1.0
    assert res.n_trials == 100_000 and res.confidence == 0.95 and res.delta == 0.0
    assert res.count0 > res.count1
    # Swapping the datasets / using the complement event finds the same bound.
    swapped = audit_epsilon(randomized_response(1.0), 0, 1, lambda o: o == 0, 100_000,
                            random_state=0, batch=True)
    assert swapped.epsilon_lower == pytest.approx(res.epsilon_lower, abs=0.03)
    assert "dataset1 over dataset0" in audit_epsilon(
        randomized_response(1.0), 0, 1, lambda o: o == 1, 100_000, random_state=0,
        batch=True).direction


def test_non_batch_mode_and_reproducibility():
    def mech(bit, rng):
        return int(randomized_response(1.0)(bit, rng, 1)[0])

    a = audit_epsilon(mech, 1, 0, lambda o: o == 1, 3000, random_state=3)
    b = audit_epsilon(mech, 1, 0, lambda o: o == 1, 3000, random_state=3)
    assert a == b
    assert 0.0 < a.epsilon_lower <= 1.0


def test_delta_lowers_the_bound():
    mech = randomized_response(2.0)
    r0 = audit_epsilon(mech, 1, 0, lambda o: o == 1, 50_000, random_state=0, batch=True)
    r1 = audit_epsilon(mech, 1, 0, lambda o: o == 1, 50_000, random_state=0, batch=True,
                       delta=0.5)
    assert r1.epsilon_lower < r0.epsilon_lower
    assert r1.delta == 0.5


def test_identical_datasets_give_zero():
    res = audit_epsilon(randomized_response(1.0), 1, 1, lambda o: o == 1, 20_000,
                        random_state=0, batch=True)
    assert res.epsilon_lower == 0.0


def test_search_uses_held_out_half():
    def mech(x, rng, n):
        return x + rng.laplace(scale=1.0, size=n)

    res = audit_epsilon_search(mech, 1.0, 0.0, 200_000, random_state=0, batch=True)
    assert res.n_trials == 100_000
    assert res.threshold is not None
    assert 0.9 < res.epsilon_lower <= 1.0
    # Non-batch with a statistic on structured outputs.
    res2 = audit_epsilon_search(lambda x, rng: {"v": x + rng.laplace()}, 1.0, 0.0, 4000,
                                statistic=lambda o: o["v"], random_state=1)
    assert res2.n_trials == 2000 and res2.epsilon_lower <= 1.0


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"mechanism": 3}, TypeError, "mechanism"),
        ({"event": "x"}, TypeError, "event"),
        ({"n_trials": 0}, ValueError, "n_trials"),
        ({"n_trials": 1.5}, TypeError, "n_trials"),
        ({"confidence": 1.0}, ValueError, "confidence"),
        ({"delta": -0.1}, ValueError, "delta"),
        ({"batch": "yes"}, TypeError, "batch"),
        ({"random_state": "seed"}, TypeError, "random_state"),
        ({"mechanism": lambda d, rng, n: np.zeros(n - 1)}, ValueError, "n=10"),
        ({"event": lambda outs: True}, ValueError, "event"),
    ],
)
def test_bad_input(kwargs, exc, match):
    args = {"mechanism": lambda d, rng, n: rng.random(n), "dataset0": 0, "dataset1": 1,
            "event": lambda outs: outs > 0.5, "n_trials": 10, "batch": True}
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        audit_epsilon(**args)


def test_search_bad_input():
    mech = lambda d, rng, n: rng.random(n)  # noqa: E731
    with pytest.raises(ValueError, match="n_trials"):
        audit_epsilon_search(mech, 0, 1, 1, batch=True)
    with pytest.raises(ValueError, match="n_thresholds"):
        audit_epsilon_search(mech, 0, 1, 10, n_thresholds=0, batch=True)
    with pytest.raises(TypeError, match="statistic"):
        audit_epsilon_search(mech, 0, 1, 10, statistic=3, batch=True)
    with pytest.raises(ValueError, match="statistic"):
        audit_epsilon_search(lambda d, rng, n: rng.random((n, 2)), 0, 1, 10, batch=True)
