"""Sparse selection (Ghazi, Golowich, Kumar & Manurangsi, STOC 2021, §5.2):
padding, exact law, (eps, delta)-DP exactly, bad input."""

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

from sksmooth.mechanisms._audit_cases import sparse_selection_padding_audit
from sksmooth.mechanisms import exponential_mechanism_log_probabilities, sparse_selection
from sksmooth.mechanisms._sparse_selection import (
    _count_candidates,
    _sparse_selection_log_probabilities,
    sparse_selection_log_padding,
)


def test_padding_hand_value():
    # l=2, eps=1, delta=0.1: 2 e^{0.5} * 9 = 29.677 -> 30
    assert np.exp(sparse_selection_log_padding(2, 1.0, 0.1)) == pytest.approx(30.0)
    # delta close to 1: condition 1 (K >= l a / (a - 1)) binds: 1*e^0.05/(e^0.05-1) = 20.5 -> 21
    assert np.exp(sparse_selection_log_padding(1, 0.1, 0.9)) == pytest.approx(21.0)
    # huge K stays finite in log space
    assert np.isfinite(sparse_selection_log_padding(10**6, 500.0, 1e-300))


def _law(user_sets, l, eps, delta):
    cands, counts = _count_candidates(user_sets, l, "raise")
    logp = _sparse_selection_log_probabilities(counts, eps, sparse_selection_log_padding(l, eps, delta))
    law = dict(zip(cands, np.exp(logp[:-1])))
    law["__fallback__"] = np.exp(logp[-1])
    return law


def test_aggregated_dummies_equal_materialised_dummies():
    users = [{"a", "b"}, {"a"}, {"c", "a"}, {"b"}]
    l, eps, delta = 2, 1.0, 0.1
    K = int(round(np.exp(sparse_selection_log_padding(l, eps, delta))))
    cands, counts = _count_candidates(users, l, "raise")
    explicit = exponential_mechanism_log_probabilities(np.r_[counts, np.zeros(K)], eps, 1.0)
    agg = _sparse_selection_log_probabilities(counts, eps, np.log(K))
    np.testing.assert_allclose(agg[:-1], explicit[: len(counts)], rtol=1e-12)
    assert agg[-1] == pytest.approx(logsumexp(explicit[len(counts):]), rel=1e-12)


def test_frequencies_match_exact_law_and_fallback():
    users = [{"a", "b"}, {"a"}, {"c", "a"}, {"b", "a"}, ["b", "b"]]  # duplicates count once
    l, eps, delta = 2, 1.0, 0.1
    law = _law(users, l, eps, delta)
    assert law["b"] == pytest.approx(law["a"] * np.exp(-0.5))  # counts 4 vs 3
    n = 20_000
    draws = sparse_selection(users, l, eps, delta, np.random.default_rng(0),
                             fallback="__fallback__", size=n)
    keys = list(law)
    counts = np.array([draws.count(k) for k in keys])
    expected = n * np.array([law[k] for k in keys])
    assert stats.chisquare(counts, expected).pvalue > 1e-3
    # fallback (a dummy drawn) has exactly K / Z probability: K=30, Z = 30 + e^2 + e^1.5 + e^0.5
    z = 30 + np.exp(2.0) + np.exp(1.5) + np.exp(0.5)
    assert law["__fallback__"] == pytest.approx(30 / z)
    assert abs(counts[keys.index("__fallback__")] / n - 30 / z) < 4 * np.sqrt(30 / z / n)


def _hockey_stick(p, q, eps):
    keys = set(p) | set(q)
    return sum(max(0.0, p.get(k, 0.0) - np.exp(eps) * q.get(k, 0.0)) for k in keys)


def _check_dp(d0, d1, l, eps, delta, law=_law):
    p, q = law(d0, l, eps, delta), law(d1, l, eps, delta)
    return max(_hockey_stick(p, q, eps), _hockey_stick(q, p, eps))


@pytest.mark.parametrize("eps, delta", [(1.0, 0.05), (0.3, 1e-3), (2.0, 0.2), (0.05, 0.5)])
def test_exact_privacy_on_random_neighbours(eps, delta):
    rng = np.random.default_rng(7)
    l = 3
    for _ in range(200):
        m = rng.integers(1, 6)
        users = [set(rng.choice(8, size=rng.integers(0, l + 1), replace=False).tolist())
                 for _ in range(m)]
        other = list(users)
        other[rng.integers(m)] = set(rng.choice(8, size=rng.integers(0, l + 1), replace=False).tolist())
        assert _check_dp(users, other, l, eps, delta) <= delta * (1 + 1e-9)


def test_padding_is_tight_on_worst_case():
    l, eps, delta = 3, 1.0, 0.01
    d0 = [{"x", "y", "z"}, set()]
    d1 = [set(), set()]
    assert _check_dp(d0, d1, l, eps, delta) <= delta

    def short_law(user_sets, l, eps, delta):  # 1% fewer dummies than derived
        cands, counts = _count_candidates(user_sets, l, "raise")
        log_k = sparse_selection_log_padding(l, eps, delta) + np.log(0.99)
        logp = _sparse_selection_log_probabilities(counts, eps, log_k)
        out = dict(zip(cands, np.exp(logp[:-1])))
        out["__fallback__"] = np.exp(logp[-1])
        return out

    assert _check_dp(d0, d1, l, eps, delta, law=short_law) > delta


def test_single_draw_types_and_oversized():
    rng = np.random.default_rng(0)
    assert sparse_selection([[(1, 2)]] * 100, 1, 2.0, 1e-3, rng) == (1, 2)
    assert sparse_selection([[]], 1, 1.0, 1e-3, rng, fallback="none") == "none"
    with pytest.raises(ValueError, match="max_set_size"):
        sparse_selection([{1, 2, 3}], 2, 1.0, 1e-3, rng, oversized="raise")
    # default: truncate to the first max_set_size distinct elements, no error
    out = sparse_selection([[1, 2, 3]] * 200, 2, 1.0, 1e-3, rng, size=50)
    assert set(out) <= {1, 2, None}


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"user_sets": "abc"}, TypeError, "user_sets"),
        ({"user_sets": [1, 2]}, TypeError, r"user_sets\[0\]"),
        ({"user_sets": [[[1], [2]]]}, TypeError, "unhashable"),
        ({"max_set_size": 0}, ValueError, "max_set_size"),
        ({"max_set_size": 1.5}, TypeError, "max_set_size"),
        ({"epsilon": 0.0}, ValueError, "epsilon"),
        ({"delta": 0.0}, ValueError, "delta"),
        ({"delta": 1.0}, ValueError, "delta"),
        ({"rng": "x"}, TypeError, "rng"),
        ({"oversized": "drop"}, ValueError, "oversized"),
        ({"size": 0}, ValueError, "size"),
    ],
)
def test_bad_input(kwargs, exc, match):
    args = {"user_sets": [{1}], "max_set_size": 2, "epsilon": 1.0, "delta": 1e-3,
            "rng": np.random.default_rng(0)}
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        sparse_selection(**args)


def test_extreme_epsilon_no_overflow():
    with np.errstate(over="raise", invalid="raise"):
        assert sparse_selection([{"a"}, {"a"}, {"b"}], 1, 1e300, 1e-9,
                                np.random.default_rng(0)) == "a"
        assert sparse_selection([{"a"}], 1, 1e-300, 0.5, np.random.default_rng(0),
                                fallback="F", size=3) == ["F"] * 3


def test_reproducible_independent_of_set_iteration_order():
    users_a = [["a", "b"], ["b", "c"], ["c", "a"]]
    users_b = [["b", "a"], ["c", "b"], ["a", "c"]]
    draw_a = sparse_selection(users_a, 2, 0.5, 0.3, np.random.default_rng(9), size=200)
    draw_b = sparse_selection(users_b, 2, 0.5, 0.3, np.random.default_rng(9), size=200)
    assert draw_a == draw_b


def test_log_padding_never_below_exact_log_k():
    # the sampler uses exp(log_padding) dummies; it must be >= the derived K
    # exactly (50-digit reference), not only up to the rounding of log/exp
    import decimal

    D = decimal.Decimal
    rng = np.random.default_rng(0)
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        for _ in range(1000):
            l = int(10 ** rng.uniform(0, 6))
            eps = float(10 ** rng.uniform(-3, 2.5))
            delta = float(10 ** rng.uniform(-300, -0.01))
            a = (D(eps) / 2).exp()
            k = D(l) * a * max((1 - D(delta)) / D(delta), 1 / (a - 1))
            exact = k.to_integral_value(rounding=decimal.ROUND_CEILING).ln()
            assert D(sparse_selection_log_padding(l, eps, delta)) >= exact


def test_sparse_selection_padding_delta_audit():
    # The padding is tight in delta: the delta audit of the correct padding
    # reaches most of delta; the padding short by e^{eps/4} exceeds it.
    ok = sparse_selection_padding_audit(400_000, 0)
    assert 0.9 * 1e-2 < ok.delta_lower <= 1e-2
    broken = sparse_selection_padding_audit(400_000, 0, broken=True)
    assert broken.delta_lower > 1e-2
