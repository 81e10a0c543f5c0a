import pickle

import numpy as np
import pytest

from sksmooth.classes import HalfspaceConcepts, Halfspaces, estimate_cover_radius


def test_pairs_cover_realises_each_labelling_of_the_points_once():
    m = 25
    cover = Halfspaces().cover(bounds=([0.0, -2.0], [3.0, 2.0]), n_points=m, random_state=1)
    assert cover.method == "pairs" and cover.n_concepts == m * (m - 1) + 2
    labels = cover.evaluate(cover.points_)  # (m, K)
    distinct = np.unique(np.packbits(labels.T, axis=1), axis=0)
    # every concept gives a different labelling; m(m-1)+2 is the maximum number
    # of labellings of m points in general position by 2-D affine halfspaces
    assert len(distinct) == cover.n_concepts
    # and every random target's labelling of the points is among them
    rng = np.random.default_rng(5)
    w = rng.normal(size=(300, 2))
    b = -np.einsum("kd,kd->k", w, cover.points_.min(0) + rng.uniform(size=(300, 2)) * np.ptp(cover.points_, 0))
    tl = HalfspaceConcepts(w, b).evaluate(cover.points_)
    tkeys = {bytes(r) for r in np.packbits(tl.T, axis=1)}
    ckeys = {bytes(r) for r in np.packbits(labels.T, axis=1)}
    assert tkeys <= ckeys
    assert not cover.gamma_certified and not cover.is_bracketing and cover.vc_dim == 3


def test_pairs_radius_decreases_with_m():
    gammas = [Halfspaces().cover(bounds=(0.0, 1.0), n_features=2, n_points=m, random_state=0,
                                 n_mc_targets=100, n_mc_points=3000).gamma for m in (10, 40, 160)]
    assert gammas[0] > gammas[1] > gammas[2]
    assert gammas[2] < 0.08


def test_sampled_cover_radius_decreases_as_cover_grows():
    gammas = [Halfspaces().cover(bounds=(-1.0, 1.0), n_features=3, max_size=k, random_state=0,
                                 n_mc_targets=100, n_mc_points=1000).gamma for k in (20, 200, 2000)]
    assert gammas[0] > gammas[1] > gammas[2]


def test_sampled_cover_stops_at_gamma_and_warns_when_capped():
    cover = Halfspaces().cover(bounds=(0.0, 1.0), n_features=3, gamma=0.2, random_state=0,
                               n_mc_targets=50, n_mc_points=1000)
    assert cover.method == "sample" and cover.gamma <= 0.2
    with pytest.warns(UserWarning, match="max_size=50"):
        capped = Halfspaces().cover(bounds=(0.0, 1.0), n_features=3, gamma=0.01, max_size=50,
                                    random_state=0, n_mc_targets=50, n_mc_points=1000)
    assert capped.n_concepts == 50 and capped.gamma > 0.01


def test_sampled_cover_radius_is_estimated_when_read_and_pickled_with_its_value():
    kwargs = dict(bounds=(0.0, 1.0), n_features=3, max_size=300, random_state=0,
                  n_mc_targets=50, n_mc_points=500)
    pickled = pickle.loads(pickle.dumps(Halfspaces().cover(**kwargs)))
    cover = Halfspaces().cover(**kwargs)
    assert callable(vars(cover)["_gamma"])  # not estimated yet
    assert 0 < cover.gamma == pickled.gamma and cover.subset([0, 1]).gamma is None


@pytest.mark.parametrize("fit_intercept, size", [(True, 301), (False, 100)])
def test_sampled_cover_holds_each_hyperplane_in_both_orientations(fit_intercept, size):
    """Exact negations, so that label counts take a concept's complement from the
    concept's own products (half the work)."""
    cover = Halfspaces(fit_intercept=fit_intercept).cover(
        bounds=(-1.0, 2.0), n_features=3, max_size=size, random_state=0, n_mc_targets=20)
    partner = cover.complements()
    paired = np.flatnonzero(partner >= 0)
    assert len(paired) == (size - 3 if fit_intercept else size)  # constants, odd one out
    np.testing.assert_array_equal(cover.coef[partner[paired]], -cover.coef[paired])
    np.testing.assert_array_equal(cover.intercept[partner[paired]], -cover.intercept[paired])


def test_complements_stay_exact_negations_after_coef_changes_in_place():
    """Label counts take a paired concept's count from its partner's products, so
    a stale pairing would count another concept's complement."""
    concepts = HalfspaceConcepts([[1.0, 0.5], [-1.0, -0.5], [2.0, 1.0]], [0.25, -0.25, 3.0])
    assert list(concepts.complements()) == [1, 0, -1]
    assert list(concepts.subset([2, 1, 0]).complements()) == [-1, 2, 1]
    concepts.coef[1] = (0.5, 1.0)  # no longer the complement of concept 0
    assert list(concepts.complements()) == [-1, -1, -1]


def test_through_origin_cover():
    cover = Halfspaces(fit_intercept=False).cover(bounds=(-1.0, 2.0), n_features=2, max_size=100,
                                                  random_state=0, n_mc_targets=50)
    assert cover.method == "sample" and cover.vc_dim == 2
    np.testing.assert_array_equal(cover.intercept, 0.0)
    assert np.all(cover.evaluate(np.zeros((1, 2))))  # the origin lies on every boundary


def test_estimate_is_consistent_with_exact_disagreement():
    # 1-D-like case: halfspaces on x[0] only, where disagreement is |b - b'| exactly
    cover = HalfspaceConcepts(np.tile([[1.0, 0.0]], (11, 1)), -np.linspace(0, 1, 11),
                              bounds=(np.zeros(2), np.ones(2)))
    targets = HalfspaceConcepts(np.tile([[1.0, 0.0]], (3, 1)), -np.array([0.05, 0.5, 0.93]))
    g, per = estimate_cover_radius(cover, targets, n_points=20000, random_state=0)
    np.testing.assert_allclose(per, [0.05, 0.0, 0.03], atol=0.01)


def test_evaluate_matches_naive_and_describe():
    rng = np.random.default_rng(0)
    c = HalfspaceConcepts(rng.normal(size=(30, 3)), rng.normal(size=30))
    X = rng.normal(size=(100, 3))
    naive = np.stack([X @ c.coef[j] + c.intercept[j] >= 0 for j in range(30)], 1)
    np.testing.assert_array_equal(c.evaluate(X, chunk_size=13), naive)
    assert HalfspaceConcepts([[1.0, -2.0]], [0.5]).describe(0) == "1*x[0] - 2*x[1] + 0.5 >= 0"
    constant = HalfspaceConcepts([[0.0, 0.0], [0.0, 0.0]], [0.0, -1.0])  # a cover's two ends
    assert [constant.describe(j) for j in range(2)] == ["always True", "always False"]


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        (dict(bounds=(1.0, 0.0), n_features=2, max_size=10), ValueError, "lower > upper"),
        (dict(bounds=(0.0, [1.0, 0.0]), max_size=10), ValueError, "zero width"),
        (dict(bounds=(0.0, 1.0), n_features=2), ValueError, "gamma"),
        (dict(bounds=(0.0, 1.0), n_features=2, gamma=0.0), ValueError, "gamma"),
        (dict(bounds=(0.0, 1.0), n_features=2, n_points=1), ValueError, "n_points"),
        (dict(bounds=(0.0, 1.0), n_features=3, method="pairs", max_size=10), ValueError, "2-D"),
        (dict(bounds=(0.0, 1.0), n_features=2, method="x", max_size=10), ValueError, "method"),
        (dict(bounds=(0.0, 1.0), n_features=2, max_size=10, n_mc_points=5), ValueError, "n_mc_points"),
    ],
)
def test_halfspace_cover_bad_input(kwargs, err, match):
    with pytest.raises(err, match=match):
        Halfspaces().cover(**kwargs)


def test_halfspace_concepts_bad_shapes():
    with pytest.raises(ValueError, match="intercept"):
        HalfspaceConcepts(np.zeros((3, 2)), np.zeros(2))
    with pytest.raises(ValueError, match="finite"):
        HalfspaceConcepts([[np.inf, 0.0]], [0.0])


def test_pairs_cover_reaches_requested_gamma_and_respects_max_size():
    cover = Halfspaces().cover(bounds=(0.0, 1.0), n_features=2, gamma=0.1, random_state=0)
    assert cover.gamma <= 0.1 and len(cover.points_) >= 80
    with pytest.warns(UserWarning, match="max_size=50"):
        capped = Halfspaces().cover(bounds=(0.0, 1.0), n_features=2, n_points=30, max_size=50,
                                    random_state=0)
    assert capped.n_concepts <= 50
    with pytest.warns(UserWarning, match="exceeds the requested gamma"):
        Halfspaces().cover(bounds=(0.0, 1.0), n_features=2, gamma=0.01, max_size=200, random_state=0)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_bounds_wider_than_the_float_range_are_refused_naming_bounds(fit_intercept):
    # upper - lower overflows: the cover's halfspaces were nan and the
    # estimators reported "X contains NaN or inf" for a clean X
    with pytest.raises(ValueError, match=r"bounds: features \[0\] have a width"):
        Halfspaces(fit_intercept=fit_intercept).cover(
            bounds=([-1e308, 0.0], [1e308, 1.0]), max_size=50, random_state=0)


def test_smooth_hedge_with_too_wide_bounds_names_bounds():
    from sksmooth.online import SmoothHedgeClassifier

    X = np.random.default_rng(0).normal(size=(50, 2))
    with pytest.raises(ValueError, match="bounds: features"):
        SmoothHedgeClassifier(hypotheses="halfspaces", bounds=(-1e308, 1e308),
                              random_state=0).fit(X, (X[:, 0] > 0).astype(int))
