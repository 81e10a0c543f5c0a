"""Exact selection samplers for integer scores: law, privacy audit, bad input."""

import itertools

import numpy as np
import pytest
from scipy.stats import chi2

from sksmooth.mechanisms import (
    exact_exponential_mechanism,
    exponential_mechanism_log_probabilities,
    permute_and_flip,
)
from sksmooth.mechanisms import _exact_selection
from sksmooth.metrics import audit_epsilon

SCORES = np.array([3, 0, 1, 2, 3, -5, 7, 6])
N = 200_000


def chi_square_pvalue(draws, probs):
    observed = np.bincount(draws, minlength=probs.size)
    expected = probs * draws.size
    big = expected >= 20
    obs = np.append(observed[big], observed[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return chi2.sf(((obs - exp) ** 2 / exp).sum(), obs.size - 1)


def permute_and_flip_probabilities(scores, epsilon, sensitivity):
    """P(r) = p_r E[1/(1 + #heads among the others)], by enumeration."""
    p = np.exp(epsilon * (scores - scores.max()) / (2 * sensitivity))
    n = scores.size
    probs = np.zeros(n)
    for r in range(n):
        others = [j for j in range(n) if j != r]
        for heads in itertools.product([0, 1], repeat=n - 1):
            weight = np.prod([p[j] if h else 1 - p[j] for j, h in zip(others, heads)])
            probs[r] += p[r] * weight / (1 + sum(heads))
    return probs


@pytest.mark.parametrize("epsilon, sensitivity", [(1.0, 1.0), (0.3, 2.0)])
def test_exact_exponential_mechanism_law(epsilon, sensitivity):
    rng = np.random.default_rng(0)
    draws = exact_exponential_mechanism(SCORES, epsilon, sensitivity, rng, size=N)
    probs = np.exp(exponential_mechanism_log_probabilities(SCORES, epsilon, sensitivity))
    assert chi_square_pvalue(draws, probs) > 1e-4
    wrong = np.exp(exponential_mechanism_log_probabilities(SCORES, 1.1 * epsilon, sensitivity))
    assert chi_square_pvalue(draws, wrong) < 1e-6


def test_exact_exponential_mechanism_monotonic_law():
    rng = np.random.default_rng(1)
    draws = exact_exponential_mechanism(SCORES, 0.5, 1.0, rng, monotonic=True, size=N)
    probs = np.exp(exponential_mechanism_log_probabilities(SCORES, 0.5, 1.0, monotonic=True))
    assert chi_square_pvalue(draws, probs) > 1e-4


@pytest.mark.parametrize("epsilon", [1.0, 0.3])
def test_permute_and_flip_law(epsilon):
    rng = np.random.default_rng(2)
    draws = permute_and_flip(SCORES, epsilon, 1.0, rng, size=N)
    probs = permute_and_flip_probabilities(SCORES, epsilon, 1.0)
    assert abs(probs.sum() - 1) < 1e-12
    assert chi_square_pvalue(draws, probs) > 1e-4
    assert chi_square_pvalue(draws, permute_and_flip_probabilities(SCORES, 1.1 * epsilon, 1.0)) < 1e-6


@pytest.mark.parametrize("n", [100_000, pytest.param(1_000_000, marks=pytest.mark.slow)])
def test_large_candidate_sets_are_fast_and_accurate(n):
    rng = np.random.default_rng(3)
    scores = rng.integers(0, n, size=n)
    for sampler in (exact_exponential_mechanism, permute_and_flip):
        picks = np.array([sampler(scores, 1.0, 1.0, rng) for _ in range(3)])
        assert np.all(scores.max() - scores[picks] <= 40)


@pytest.mark.parametrize("sampler", [exact_exponential_mechanism, permute_and_flip])
def test_far_coins_fallback_is_exact(sampler, monkeypatch):
    # With the cut at gamma >= 1, most coins take the path that in normal use
    # only runs with probability e^-64: its law must still be exact.
    monkeypatch.setattr(_exact_selection, "_FAR_GAMMA", 1)
    rng = np.random.default_rng(5)
    draws = sampler(SCORES, 0.7, 1.0, rng, size=4_000)
    if sampler is permute_and_flip:
        probs = permute_and_flip_probabilities(SCORES, 0.7, 1.0)
    else:
        probs = np.exp(exponential_mechanism_log_probabilities(SCORES, 0.7, 1.0))
    assert chi_square_pvalue(draws, probs) > 1e-4


class _RecordedCoins:
    """Heads exactly on ``heads``; every candidate flipped, in order."""

    def __init__(self, heads):
        self.heads, self.flipped = heads, []

    def flip(self, candidates, rng):
        self.flipped.extend(candidates.tolist())
        return np.isin(candidates, self.heads)


class _RecordedProposals:
    """A generator recording every uniform proposal it draws."""

    def __init__(self, seed):
        self.rng, self.proposed = np.random.default_rng(seed), []

    def integers(self, low, high, size):
        out = self.rng.integers(low, high, size=size)
        self.proposed.extend(out.tolist())
        return out


def test_one_draw_flips_coins_in_first_proposal_order_and_returns_the_first_head():
    # the law of permute-and-flip by construction: candidates in order of first
    # appearance among i.i.d. uniform proposals (a uniform order), one independent
    # coin each (the coins' law: the tests above), the first head wins
    n = 100
    for seed in range(30):
        heads = np.random.default_rng(1000 + seed).choice(n, size=1 + seed % 3, replace=False)
        coins, rng = _RecordedCoins(heads), _RecordedProposals(seed)
        # the acceptance estimate only sizes the batches: 1.0 makes several of 16
        acceptance = heads.size / n if seed % 2 else 1.0
        pick = _exact_selection._first_head_in_random_order(coins, n, acceptance, rng)
        assert coins.flipped == list(dict.fromkeys(rng.proposed))  # once each, in order
        assert pick == next(c for c in coins.flipped if c in heads)


def test_one_draw_with_many_likely_heads_takes_the_random_order(monkeypatch):
    visits = []
    one_by_one = _exact_selection._first_head_in_random_order
    monkeypatch.setattr(_exact_selection, "_first_head_in_random_order",
                        lambda *args: visits.append(one_by_one(*args)) or visits[-1])
    monkeypatch.setattr(_exact_selection, "_FEW_VISITS", 0)
    picks = [permute_and_flip(SCORES, 0.7, 1.0, np.random.default_rng(6)) for _ in range(5)]
    assert picks == visits


# the frequencies of the one-by-one draws (the two tests above check its construction)
@pytest.mark.parametrize("far_gamma", [64, 1])
@pytest.mark.slow
def test_permute_and_flip_one_draw_in_random_order_is_exact(far_gamma, monkeypatch):
    # One draw with many likely heads visits candidates one by one in a
    # random order (here forced); its law is permute-and-flip's.
    visits = []
    one_by_one = _exact_selection._first_head_in_random_order
    monkeypatch.setattr(_exact_selection, "_first_head_in_random_order",
                        lambda *args: visits.append(1) or one_by_one(*args))
    monkeypatch.setattr(_exact_selection, "_FEW_VISITS", 0)
    monkeypatch.setattr(_exact_selection, "_FAR_GAMMA", far_gamma)
    rng = np.random.default_rng(6)
    draws = np.array([permute_and_flip(SCORES, 0.7, 1.0, rng) for _ in range(10_000)])
    assert len(visits) == draws.size
    assert chi_square_pvalue(draws, permute_and_flip_probabilities(SCORES, 0.7, 1.0)) > 1e-4


# Worst-case neighbours for selection (sensitivity 1): candidate 0 gains a
# point while the ten others lose one.
K = 10
SCORES0 = np.r_[1, np.zeros(K, dtype=int)]
SCORES1 = np.r_[0, np.ones(K, dtype=int)]


def chose_first(outs):
    return np.asarray(outs) == 0


@pytest.mark.parametrize("sampler, floor", [(exact_exponential_mechanism, 0.7),
                                            (permute_and_flip, 0.7)])
def test_audit_exact_selection(sampler, floor):
    def correct(scores, rng, n):
        return sampler(scores, 1.0, 1, rng, size=n)

    def double_epsilon(scores, rng, n):
        return sampler(scores, 2.0, 1, rng, size=n)

    ok = audit_epsilon(correct, SCORES0, SCORES1, chose_first, N, random_state=0, batch=True)
    assert floor < ok.epsilon_lower <= 1.0
    broken = audit_epsilon(double_epsilon, SCORES0, SCORES1, chose_first, N,
                           random_state=0, batch=True)
    assert broken.epsilon_lower > 1.0


class _IntegersOnly(np.random.Generator):
    def __getattribute__(self, name):
        if name in ("random", "gumbel", "exponential", "standard_exponential",
                    "laplace", "uniform", "choice", "permutation", "shuffle"):
            raise AssertionError(f"sampler used rng.{name}")
        return super().__getattribute__(name)


def test_only_uniform_integers_are_used():
    rng = _IntegersOnly(np.random.PCG64(0))
    exact_exponential_mechanism(SCORES, 0.7, 1.0, rng, size=100)
    permute_and_flip(SCORES, 0.7, 1.0, rng, size=100)


def test_returns_int_for_single_draw():
    rng = np.random.default_rng(4)
    assert isinstance(exact_exponential_mechanism([1, 2], 1.0, 1.0, rng), int)
    assert isinstance(permute_and_flip([1, 2], 1.0, 1.0, rng), int)
    # integral floats are accepted
    assert permute_and_flip(np.array([0.0, 100.0]), 1.0, 1.0, rng) == 1


@pytest.mark.parametrize("sampler", [exact_exponential_mechanism, permute_and_flip])
@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(scores=[0.5, 1.0]), ValueError, "integer-valued"),
        (dict(scores=["a"]), TypeError, "scores"),
        (dict(scores=[]), ValueError, "non-empty"),
        (dict(scores=[[1, 2]]), ValueError, "1-D"),
        (dict(scores=[1, np.nan]), ValueError, "integer-valued"),
        (dict(epsilon=0.0), ValueError, "epsilon"),
        (dict(sensitivity=-1.0), ValueError, "sensitivity"),
        (dict(size=0), ValueError, "size"),
        (dict(monotonic="yes"), TypeError, "monotonic"),
    ],
)
def test_bad_input(sampler, kwargs, exc, match):
    args = dict(scores=[1, 2, 3], epsilon=1.0, sensitivity=1.0,
                rng=np.random.default_rng(0)) | kwargs
    with pytest.raises(exc, match=match):
        sampler(**args)


@pytest.mark.parametrize("sampler", [exact_exponential_mechanism, permute_and_flip])
def test_scores_up_to_two_to_the_61_are_accepted_exactly(sampler):
    """The cap is "smaller than 2^61": 2^61 - 1 (1 - 2^61) is a score, 2^61 is not (a float
    comparison rounded 2^61 - 1 up and refused it)."""
    rng = np.random.default_rng(0)
    top = 2**61 - 1
    assert sampler(np.array([top, 0]), 1.0, 1.0, rng) == 0
    assert sampler(np.array([-top, 0]), 1.0, 1.0, rng) == 1
    with pytest.raises(ValueError, match="smaller than 2"):
        sampler(np.array([top + 1, 0]), 1.0, 1.0, rng)
