"""Tests of the labelling (d-tuple) halfspace cover (sksmooth/online/_halfspace_labellings.py)."""

import warnings

import numpy as np
import pytest

import sksmooth.online._halfspace_labellings as labellings_module
from sksmooth.classes import Halfspaces, HalfspaceConcepts
from sksmooth.classes._halfspaces import _bit_keys, _HalfspaceSampler
from sksmooth.online import HalfspaceLabellings, SmoothHedgeClassifier
from sksmooth.online._halfspace_labellings import (halfspace_labelling_cover, labelling_count)


def _distinct_labellings(cover):
    return len(np.unique(_bit_keys(cover.evaluate(cover.points_).T)))


@pytest.mark.parametrize("d, fit_intercept, m", [(1, True, 9), (2, True, 15), (3, True, 18),
                                                 (4, True, 12), (3, False, 20), (5, False, 12)])
def test_every_labelling_of_the_points_exactly_once(d, fit_intercept, m):
    """Cover's count 2 sum_{k<D} C(m-1, k) of the labellings of m points in
    general position, each realised by exactly one concept of the cover."""
    lower, upper = np.full(d, -2.0), np.linspace(1.0, 3.0, d)
    cover = halfspace_labelling_cover(lower, upper, m, fit_intercept, np.random.default_rng(d))
    expected = labelling_count(m, d + 1 if fit_intercept else d)
    assert cover.n_concepts == expected
    assert _distinct_labellings(cover) == expected
    assert np.all((cover.points_ >= lower) & (cover.points_ <= upper))


def test_count_check_catches_a_broken_enumeration(monkeypatch):
    """Deliberately broken: tilting every ray the same way (one sign pattern
    instead of all 2^(D-1)) misses labellings, and the count check sees it."""
    monkeypatch.setattr(labellings_module, "_sign_patterns",
                        lambda k: np.ones((1, k)))
    cover = halfspace_labelling_cover(np.zeros(3), np.ones(3), 15, True,
                                      np.random.default_rng(0))
    assert _distinct_labellings(cover) < labelling_count(15, 4)


def _exceed_fraction(cover, claimed, sample_points, n_targets=300, seed=11):
    """Fraction of fresh random target halfspaces whose cover element (chosen on
    fresh selection points) disagrees with them on more than ``claimed`` mass of
    the measure ``sample_points`` draws from (estimated on 4000 fresh points)."""
    rng = np.random.default_rng(seed)
    lower, upper = cover.bounds
    targets = _HalfspaceSampler(lower, upper, True).sample(n_targets, rng)
    select = lower + rng.random((2000, len(lower))) * (upper - lower)
    T, C = targets.evaluate(select).astype(np.float32), cover.evaluate(select).astype(np.float32)
    nearest = np.argmin(T.T @ (1 - C) + (1 - T).T @ C, axis=1)
    fresh = sample_points(rng, 4000)
    measured = np.mean(targets.evaluate(fresh) != cover.subset(nearest).evaluate(fresh), axis=0)
    return float(np.mean(measured > claimed))


def _uniform(rng, n):
    return rng.random((n, 3))


def _smooth(sigma):
    """Uniform on the corner box of volume sigma: density 1/sigma w.r.t. the uniform."""
    side = sigma ** (1.0 / 3.0)
    return lambda rng, n: side * rng.random((n, 3))


@pytest.mark.parametrize("concepts", [HalfspaceLabellings(), Halfspaces()],
                         ids=["tuples", "sampled"])
def test_measured_disagreement_within_claimed_gamma(concepts):
    """The reported gamma_ against an independent audit: fresh targets, fresh
    points, uniform and sigma-smooth measures (a sigma-smooth measure can
    inflate a uniform disagreement by at most 1 / sigma). At most 10 % of the
    targets may exceed the claim (the claim is itself a max over 200 Monte
    Carlo targets); a claim three times too small is caught."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        cover = concepts.cover(bounds=(0.0, 1.0), n_features=3, max_size=4096, random_state=0)
    claimed = cover.gamma
    assert 0.0 < claimed < 0.2
    assert _exceed_fraction(cover, claimed, _uniform) <= 0.10
    sigma = 0.25
    assert _exceed_fraction(cover, claimed / sigma, _smooth(sigma)) <= 0.10
    # the audit can fail: an overclaimed radius is caught
    assert _exceed_fraction(cover, claimed / 3.0, _uniform) > 0.10


def test_smooth_hedge_with_labelling_cover_in_3d():
    rng = np.random.default_rng(0)
    X = rng.random((1500, 3))
    y = (X @ [1.0, -1.0, 0.5] >= 0.2).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        clf = SmoothHedgeClassifier(hypotheses=HalfspaceLabellings(), bounds=(0.0, 1.0),
                                    horizon=len(y), random_state=0,
                                    max_expert_rounds=2 * 10 ** 7).partial_fit(X, y)
    assert clf.cover_.method == "tuples"
    assert isinstance(clf.cover_, HalfspaceConcepts)
    assert all(e["n_experts"] * e["length"] <= 2 * 10 ** 7 for e in clf.epochs_)
    assert clf.mistakes_ < 0.1 * len(y)
    assert clf.gamma_ == clf.epochs_[-1]["gamma"] and clf.gamma_ >= clf.gamma_target_
    assert not clf.regret_bound_is_class_  # the radius is estimated, not a bracketing


def test_cover_size_and_errors():
    cover = HalfspaceLabellings().cover(bounds=(0.0, 1.0), n_features=3, max_size=3000,
                                        random_state=0)
    assert cover.n_concepts <= 3000 and cover.n_concepts == labelling_count(len(cover.points_), 4)
    with pytest.raises(ValueError, match="max_size >= 16"):
        HalfspaceLabellings().cover(bounds=(0.0, 1.0), n_features=3, max_size=15)
    with pytest.raises(ValueError, match="d >= 2"):
        HalfspaceLabellings(fit_intercept=False).cover(bounds=(0.0, 1.0), n_features=1,
                                                       max_size=100)
    with pytest.raises(ValueError, match="lower < upper"):
        HalfspaceLabellings().cover(bounds=([0.0, 0.0], [1.0, 0.0]), max_size=100)
