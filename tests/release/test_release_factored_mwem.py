"""SmoothMWEM on a factored model: one rule chooses dense vs factored, and both
give the same release on small universes; grids past 2^24 points work."""

import warnings

import numpy as np
import pytest

from sksmooth.release import MWEM, ProjectedSmoothMWEM, TableRounds
from sksmooth.release._dense_model import DenseModel
from sksmooth.release._rounds import is_dense, make_model
from sksmooth.release.graphical import FactoredModel

_LEVELS = 3
_D = 6  # 3^6 = 729 grid points


def _correlated(n, d, levels, seed=0):
    """Rows whose neighbouring columns are strongly dependent."""
    rng = np.random.default_rng(seed)
    X = np.empty((n, d))
    X[:, 0] = rng.integers(0, levels, n)
    for j in range(1, d):
        copy = rng.random(n) < 0.7
        X[:, j] = np.where(copy, X[:, j - 1], rng.integers(0, levels, n))
    return X


def _fit(max_universe_size, **params):
    X = _correlated(3000, _D, _LEVELS)
    est = MWEM(epsilon=2.0, levels=int, bounds=(0, _LEVELS - 1),
               max_universe_size=max_universe_size, random_state=3, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded release: PrivacyLeakWarning
        return est.fit(X)


def test_one_rule_chooses_the_representation():
    assert isinstance(make_model((3,) * 6, 729), DenseModel)
    assert isinstance(make_model((3,) * 6, 728), FactoredModel)
    assert is_dense((4,) * 12, 2**24) and not is_dense((4,) * 13, 2**24)


@pytest.mark.parametrize("update", ["mw", "ipf"])
def test_factored_and_dense_agree_exactly_on_a_small_universe(update):
    # 729 points; a cap of 700 floats forces the factored model, and the 6
    # measured 2-way tables keep its junction tree far below the cap, so the
    # two runs see the same candidates, draw the same noise and must release
    # the same distribution
    dense = _fit(2**24, rounds=TableRounds(n_iter=6, n_passes=2, update=update))
    factored = _fit(700, rounds=TableRounds(n_iter=6, n_passes=2, update=update))
    assert isinstance(dense.model_, DenseModel)
    assert isinstance(factored.model_, FactoredModel)
    assert factored.model_.size <= 700
    assert factored.selected_ == dense.selected_
    for a, b in zip(factored.noisy_counts_, dense.noisy_counts_):
        np.testing.assert_array_equal(a, b)
    for attrs in [(0,), (0, 1), (2, 5), (0, 3, 4)]:
        np.testing.assert_allclose(factored.model_.marginal(attrs), dense.model_.marginal(attrs),
                                   rtol=0, atol=1e-12)
    np.testing.assert_allclose(factored.answer(), dense.answer(), rtol=0, atol=1e-12)
    assert factored.distribution_ is None and dense.distribution_ is not None


def test_factored_model_stays_within_the_size_cap():
    # all 15 two-way tables measured would need the full 729-float joint
    est = _fit(200, queries="marginals", rounds=TableRounds(n_iter=15, n_passes=1))
    assert isinstance(est.model_, FactoredModel)
    assert est.model_.size <= 200
    assert 0 < est.n_iter_ < 15  # stopped when no table fit any more


@pytest.mark.expensive
def test_grid_past_2_24_points_works_and_learns():
    # 30 ten-level columns: 1e30 grid points; neighbouring columns copy each other
    X = _correlated(4000, 30, 10, seed=1)
    est = MWEM(epsilon=2.0, levels=int, bounds=(0, 9))
    est.fit(X)
    assert isinstance(est.model_, FactoredModel)
    assert est.model_.size <= est.max_universe_size
    rows = est.sample(4000, random_state=0)
    assert rows.shape == (4000, 30)

    def pair_table(Z, a, b):
        return np.bincount((Z[:, a] * 10 + Z[:, b]).astype(int), minlength=100) / len(Z)

    # the released rows keep the strong neighbour dependence the uniform model lacks
    truth = np.mean([pair_table(X, j, j + 1) for j in range(29)], axis=0)
    synth = np.mean([pair_table(rows, j, j + 1) for j in range(29)], axis=0)
    uniform_error = np.abs(truth - 0.01).sum()
    assert np.abs(truth - synth).sum() < 0.5 * uniform_error


@pytest.mark.parametrize("params, match", [
    (dict(rounds=TableRounds(output="average")), "output='average'"),
    (dict(cls=ProjectedSmoothMWEM, sigma=0.5), "projects"),
    (dict(queries="halfspaces"), "not made of grid tables"),
])
def test_what_needs_the_dense_grid_says_so(params, match):
    X = _correlated(200, _D, _LEVELS)
    params = dict(params)
    cls = params.pop("cls", MWEM)
    with pytest.raises(ValueError, match=match):
        cls(levels=int, bounds=(0, _LEVELS - 1), max_universe_size=700, **params).fit(X)


def test_answer_of_arbitrary_queries_needs_the_dense_grid():
    est = _fit(700, rounds=TableRounds(n_iter=2))
    with pytest.raises(ValueError, match="factored"):
        est.answer(lambda X: X[:, :1] > 0)


def test_universe_points_of_a_factored_model_are_refused_before_allocating_the_grid():
    est = _fit(700, rounds=TableRounds(n_iter=2))
    with pytest.raises(AttributeError, match="factored model.*model_.marginal"):
        est.universe_
    assert not hasattr(est, "universe_") and "model_" in dir(est)  # IPython completion
    assert len(_fit(10**6, rounds=TableRounds(n_iter=2)).universe_[0]) == _LEVELS**_D


@pytest.mark.parametrize("scheme", ["systematic", "iid"])
def test_dense_rows_are_within_one_of_every_cell_s_expectation(scheme):
    """Systematic draws put ``floor(n p)`` or ``ceil(n p)`` rows on every grid
    point; i.i.d. draws do not; both keep every point's probability (the mean
    count over draws)."""
    p = np.random.default_rng(9).dirichlet(np.ones(12))
    model = DenseModel.from_probabilities(p, (3, 4))
    rng = np.random.default_rng(10)
    counts = np.array([np.bincount(np.ravel_multi_index(tuple(model.sample(500, rng, scheme).T),
                                                        (3, 4)), minlength=12)
                       for _ in range(400)])
    within_one = np.abs(counts - 500 * p).max() < 1.0 + 1e-9
    assert within_one == (scheme == "systematic")
    # the mean count of every point is 500 p (4 standard errors of the i.i.d. count)
    assert np.all(np.abs(counts.mean(0) - 500 * p) < 4 * np.sqrt(500 * p * (1 - p) / 400))


def test_table_mw_passes_converge_to_a_precise_measurement_wherever_the_mass_sits():
    # found by a review: on an 11 x 11 grid whose mass sits in 6 cells, the step eta L
    # (m - a) had gain 15 on cells of mass ~0.17 and oscillated: 100 passes ended
    # further from an (almost) exact measurement (0.044) than the default 10 (0.018)
    rng = np.random.default_rng(2)
    a = rng.integers(0, 3, 5000)
    X = np.column_stack([a, (a + rng.integers(0, 2, 5000)) % 4])
    gaps = []
    for n_passes in (10, 100):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the seed
            mw = MWEM(epsilon=1e4, bounds=(0, 10), levels={0: int, 1: int},
                      queries="marginals", random_state=0,
                      rounds=TableRounds(n_passes=n_passes)).fit(X)
        gaps.append(np.max(np.abs(mw.answer() - mw.measurements_[0].ravel())))
    assert gaps[1] < gaps[0] / 5 and gaps[1] < 0.005
