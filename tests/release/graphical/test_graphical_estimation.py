"""Private-PGM-style estimation: recovers marginals from exact measurements."""

import numpy as np
import pytest

from sksmooth.release.graphical import FactoredModel, Measurement, estimate, estimate_total
from sksmooth.release.graphical._factor import Factor

SETS = [(0,), (1,), (2,), (3,), (4,), (0, 1), (1, 2), (2, 3), (3, 4), (0, 4)]


def true_measurements(p, total, sets, sigma=1.0):
    d = p.ndim
    return [Measurement(s, total * p.sum(axis=tuple(a for a in range(d) if a not in s)), sigma)
            for s in sets]


@pytest.mark.parametrize("seed", [0, 1])
def test_recovers_noiseless_marginals(seed):
    rng = np.random.default_rng(seed)
    shape = (3, 4, 2, 3, 4)
    p = rng.dirichlet(np.full(int(np.prod(shape)), 0.5)).reshape(shape)
    meas = true_measurements(p, 1000.0, SETS)
    result = estimate(shape, meas, total=1000.0, max_iter=2000, tol=1e-13)
    for m in meas:
        np.testing.assert_allclose(result.model.marginal(m.attrs), m.values / 1000.0, atol=1e-6)


def test_precise_measurement_wins():
    """Two conflicting measurements of one table: the estimate is their
    inverse-variance weighted mean."""
    a = Measurement((0,), np.array([80.0, 20.0]), 1.0)
    b = Measurement((0,), np.array([40.0, 60.0]), 3.0)
    result = estimate((2,), [a, b], total=100.0, max_iter=500, tol=1e-14)
    expected = (0.8 * 9 + 0.4) / 10
    np.testing.assert_allclose(result.model.marginal((0,))[0], expected, atol=1e-6)


def test_estimate_total_weights_by_variance():
    a = Measurement((0,), np.array([50.0, 50.0]), 1.0)  # sum 100, var 2
    b = Measurement((0, 1), np.full((2, 2), 30.0), 1.0)  # sum 120, var 4
    assert estimate_total([a, b]) == pytest.approx((100 / 2 + 120 / 4) / (1 / 2 + 1 / 4))


def test_warm_start_keeps_solution():
    rng = np.random.default_rng(3)
    shape = (3, 3, 3)
    p = rng.dirichlet(np.ones(27)).reshape(shape)
    meas = true_measurements(p, 500.0, [(0, 1), (1, 2)])
    first = estimate(shape, meas, total=500.0, max_iter=1000, tol=1e-13)
    second = estimate(shape, meas, total=500.0, init=first.model, max_iter=3)
    assert second.loss <= first.loss + 1e-9


def test_rtol_stops_when_the_last_window_gains_little_of_the_decrease_so_far():
    rng = np.random.default_rng(1)
    shape = (3, 4, 2, 3, 4)
    p = rng.dirichlet(np.full(int(np.prod(shape)), 0.5)).reshape(shape)
    meas = true_measurements(p, 1000.0, SETS)
    stop = estimate(shape, meas, total=1000.0, max_iter=400, tol=0.0, rtol=0.05).n_iter
    assert 10 < stop < estimate(shape, meas, total=1000.0, max_iter=400, tol=0.0).n_iter

    def loss(k):  # after k iterations (the runs share their first iterations)
        return estimate(shape, meas, total=1000.0, max_iter=k, tol=0.0).loss

    for k, stops in [(stop - 1, False), (stop, True)]:
        assert (loss(k - 10) - loss(k) <= 0.05 * (loss(0) - loss(k))) == stops


def test_reused_calibrations_are_the_models_own():
    """The estimate hands its model the clique marginals of its last calibration, and a
    warm start reuses its init's only when the init is the same distribution: an init
    factor over a table no measurement has (here (0,), inside the clique (0, 1)) is
    dropped, so that init's calibration would be wrong."""
    rng = np.random.default_rng(0)
    shape = (3, 4, 2)
    meas = [Measurement((0, 1), rng.uniform(10, 50, size=(3, 4)), 2.0),
            Measurement((1, 2), rng.uniform(10, 50, size=(4, 2)), 2.0)]
    result = estimate(shape, meas, total=400.0, max_iter=5)
    model = result.model
    fresh = FactoredModel(shape, model.factors, model.tree)
    for got, want in zip(model.clique_probabilities, fresh.clique_probabilities):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    skewed = FactoredModel(shape, model.factors + (Factor((0,), np.array([3.0, 0.0, -3.0])),),
                           model.tree)
    assert skewed.tree == model.tree
    skewed.clique_probabilities  # computed: a reuse would read it
    got = estimate(shape, meas, total=400.0, init=skewed, max_iter=0).loss
    want = estimate(shape, meas, total=400.0, init=fresh, max_iter=0).loss
    assert got == pytest.approx(want, rel=1e-12)
