"""Empirical privacy audits of every mechanism (SPEC §8, §10).

Each correct mechanism must give an audit lower bound <= its claimed epsilon;
a deliberately broken variant must be caught (lower bound > claimed epsilon),
which shows the audit has the power to see the violation. Seeds are fixed; the
bound is valid at 95% confidence, so a correct mechanism exceeds its claim in
at most 5% of seeds.
"""

import numpy as np
import pytest

from sksmooth.mechanisms import (
    exponential_mechanism,
    gaussian_mechanism,
    gaussian_noise_std,
    laplace_mechanism,
    report_noisy_max,
    sparse_selection,
)
from sksmooth.mechanisms._sparse_selection import (
    _count_candidates,
    _sparse_selection_sample,
    sparse_selection_log_padding,
)
from sksmooth.metrics._audit import audit_epsilon, audit_epsilon_search

EPS = 1.0
N = 200_000
K = 10
# Worst-case-like neighbours for selection: candidate 0 gains, the others lose.
SCORES0 = np.r_[1.0, np.zeros(K)]
SCORES1 = np.r_[0.0, np.ones(K)]


def chose_first(outs):
    return np.asarray(outs) == 0


def _audit(mech, d0, d1, event=chose_first, **kw):
    return audit_epsilon(mech, d0, d1, event, N, random_state=0, batch=True, **kw)


@pytest.mark.parametrize("eps_used, broken", [(EPS, False), (2 * EPS, True)])
def test_audit_exponential_mechanism(eps_used, broken):
    res = _audit(lambda s, rng, n: exponential_mechanism(s, eps_used, 1.0, rng, size=n),
                 SCORES0, SCORES1)
    if broken:
        assert res.epsilon_lower > EPS
    else:
        assert 0.7 < res.epsilon_lower <= EPS


def test_audit_exponential_mechanism_monotonic():
    # Monotone neighbours (counts under add/remove): candidate 0 loses one count.
    res = _audit(lambda s, rng, n: exponential_mechanism(s, EPS, 1.0, rng, monotonic=True, size=n),
                 SCORES0, np.zeros(K + 1))
    assert 0.6 < res.epsilon_lower <= EPS
    # Using monotonic=True on NON-monotone neighbours is a privacy bug the audit sees.
    bad = _audit(lambda s, rng, n: exponential_mechanism(s, EPS, 1.0, rng, monotonic=True, size=n),
                 SCORES0, SCORES1)
    assert bad.epsilon_lower > EPS


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_audit_report_noisy_max(noise):
    ok = _audit(lambda s, rng, n: report_noisy_max(s, EPS, 1.0, rng, noise=noise, size=n),
                SCORES0, SCORES1)
    assert 0.7 < ok.epsilon_lower <= EPS
    half_noise = _audit(
        lambda s, rng, n: report_noisy_max(s, 2 * EPS, 1.0, rng, noise=noise, size=n),
        SCORES0, SCORES1)
    assert half_noise.epsilon_lower > EPS


def test_audit_laplace():
    above = lambda outs: outs > 1.0  # noqa: E731
    ok = _audit(lambda x, rng, n: laplace_mechanism(x, EPS, 1.0, rng, size=n), 1.0, 0.0, above)
    assert 0.9 < ok.epsilon_lower <= EPS
    half_noise = _audit(lambda x, rng, n: x + rng.laplace(scale=0.5 / EPS, size=n),
                        1.0, 0.0, above)
    assert half_noise.epsilon_lower > EPS


def test_audit_gaussian_with_delta():
    delta = 1e-5
    kw = dict(random_state=0, batch=True, delta=delta)
    ok = audit_epsilon_search(
        lambda x, rng, n: gaussian_mechanism(x, EPS, delta, 1.0, rng, size=n),
        1.0, 0.0, 1_000_000, **kw)
    assert ok.epsilon_lower <= EPS
    std = gaussian_noise_std(EPS, delta, 1.0)
    half_noise = audit_epsilon_search(
        lambda x, rng, n: x + rng.normal(scale=std / 2, size=n), 1.0, 0.0, 1_000_000, **kw)
    assert half_noise.epsilon_lower > EPS


# Sparse selection: user 0 alone holds "x" in D0 and nothing in D1.
DELTA = 1e-2
USERS0 = [{"x"}] + [{"a"}] * 3
USERS1 = [set()] + [{"a"}] * 3


def test_audit_sparse_selection():
    def mech(users, rng, n):
        return np.asarray(sparse_selection(users, 1, EPS, DELTA, rng, size=n), dtype=object)

    for target in ("x", "a", None):
        res = _audit(mech, USERS0, USERS1, lambda outs, t=target: outs == t, delta=DELTA)
        assert res.epsilon_lower <= EPS, target


@pytest.mark.parametrize("log_padding", [-np.inf, np.log(1 / DELTA)])
def test_audit_catches_wrong_sparse_selection_padding(log_padding):
    # -inf: no dummies at all; log(l/delta): the padding without the e^{eps/2} factor.
    def mech(users, rng, n):
        cands, counts = _count_candidates(users, 1, "raise")
        idx = _sparse_selection_sample(counts, EPS, log_padding, rng, n)
        lookup = np.array(cands + [None], dtype=object)
        return lookup[idx]

    res = _audit(mech, USERS0, USERS1, lambda outs: outs == "x", delta=DELTA)
    assert res.epsilon_lower > EPS
    correct = sparse_selection_log_padding(1, EPS, DELTA)
    assert correct > log_padding


def _bindings():
    """Every (module, name) -> object binding of the package outside mechanisms."""
    import sys

    return {(name, attribute): value for name, module in list(sys.modules.items())
            if module is not None and name.startswith("sksmooth")
            for attribute, value in list(vars(module).items()) if callable(value)}


def test_overspending_spends_more_inside_the_release_and_charges_the_same():
    import warnings

    from sksmooth import AdaptiveMarginalSynthesizer, PerturbedERMClassifier  # noqa: F401
    from sksmooth.exceptions import SksmoothWarning
    from sksmooth.mechanisms._audit_cases import overspending

    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5)
    before = _bindings()

    def fit(seed):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SksmoothWarning)
            return AdaptiveMarginalSynthesizer(epsilon=1.0, delta=1e-3, levels=2,
                                               method="mst", random_state=seed).fit(X)

    correct = fit(0)
    with overspending(4.0):
        broken = fit(0)
        # the release's own Gaussian draws shrink too (PerturbedERM's perturbation)
        from sksmooth._randomness import release_randomness as patched
    assert _bindings() == before  # every binding restored
    assert broken.privacy_records_ == correct.privacy_records_
    assert broken.guarantee_ == correct.guarantee_
    assert broken.privacy_spent_ == correct.privacy_spent_
    assert not np.allclose(broken.model_.marginal((0, 1)), correct.model_.marginal((0, 1)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SksmoothWarning)
        draws = patched(3).noise.standard_normal(20_000)
    assert 0.2 < draws.std() < 0.3


def test_overspending_scales_what_the_release_passes_the_mechanisms():
    import sksmooth.release.graphical._noise  # noqa: F401  (binds the sampler)
    from sksmooth.mechanisms import discrete_gaussian_mechanism
    from sksmooth.mechanisms._audit_cases import overspending

    with overspending(2.0):
        patched = [value for value in _bindings().values()
                   if getattr(value, "__qualname__", "").startswith("_scaled_argument")]
        assert patched
        rng = np.random.default_rng(0)
        noisy = next(p for p in patched if p.__wrapped__ is discrete_gaussian_mechanism)(
            np.zeros(20_000, dtype=np.int64), 4.0, rng)
    assert 1.8 < noisy.std() < 2.2  # sigma 4 drawn at sigma 2
