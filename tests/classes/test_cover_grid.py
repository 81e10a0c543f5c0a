"""Certified radii of grid covers (thresholds, stumps, boxes) vs brute force.

The true uniform-measure disagreement is computed on a fine grid of cell
midpoints whose cells align with the cover grid, so it is exact for these
piecewise-constant concepts up to the grid resolution.
"""

import numpy as np
import pytest

from sksmooth.classes import BoxConcepts, Boxes, StumpConcepts, Stumps, Thresholds


def _midpoint_grid(lower, upper, m):
    axes = [lo + (np.arange(m) + 0.5) / m * (hi - lo) for lo, hi in zip(lower, upper)]
    return np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, len(lower))


def _disagreement(target_values, cover_values):
    """(n_targets, n_cover) mean disagreement over the points (rows)."""
    # float32 is exact here: the counts stay far below 2**24
    t = target_values.astype(np.float32)
    c = cover_values.astype(np.float32)
    agree = t.T @ c + (1 - t).T @ (1 - c)
    return 1.0 - agree.astype(np.float64) / t.shape[0]


def _radius(targets, cover, points):
    D = _disagreement(targets.evaluate(points), cover.evaluate(points))
    return D.min(axis=1).max(), D


@pytest.mark.parametrize("gamma", [0.2, 0.05, 0.013])
def test_threshold_cover_radius_matches_brute_force(gamma):
    lower, upper = -3.0, 5.0
    cover = Thresholds().cover(bounds=(lower, upper), gamma=gamma)
    assert cover.gamma_certified and cover.is_bracketing
    assert cover.gamma <= gamma
    n_cells = round(1 / (2 * cover.gamma))
    assert cover.n_concepts == 2 * (n_cells - 1) + 2
    m = 2 * n_cells * 50
    points = _midpoint_grid([lower], [upper], m)
    # targets: every threshold on a grid 4x finer than the cover's, both orientations,
    # including thresholds at cover-cell midpoints (the worst case) and outside the box
    b = np.linspace(lower - 1, upper + 1, 8 * n_cells + 1)
    targets = StumpConcepts(np.zeros(2 * len(b), int), np.concatenate([b, b]),
                            np.repeat([1, -1], len(b)), 1)
    radius, D = _radius(targets, cover, points)
    assert radius <= cover.gamma + 1e-12
    assert radius >= cover.gamma - 1.0 / m  # the bound is attained
    # bracketing: each target lies between two cover elements within bracket_width
    tv, cv = targets.evaluate(points), cover.evaluate(points)
    t32, c32 = tv.astype(np.float32), cv.astype(np.float32)
    below = ((1 - t32).T @ c32) == 0  # (targets, cover): cover <= target pointwise
    above = (t32.T @ (1 - c32)) == 0  # cover >= target pointwise
    width = _disagreement(cv, cv)
    for t in range(targets.n_concepts):
        w = width[np.ix_(np.flatnonzero(below[t]), np.flatnonzero(above[t]))]
        assert w.min() <= cover.bracket_width + 1e-12


def test_stump_cover_radius_brute_force_two_features():
    lower, upper = np.array([0.0, -1.0]), np.array([1.0, 3.0])
    cover = Stumps().cover(bounds=(lower, upper), gamma=0.07)
    n_cells = round(1 / (2 * cover.gamma))
    assert cover.gamma == pytest.approx(1 / 16)
    assert cover.n_concepts == 2 * 2 * (n_cells - 1) + 2
    points = _midpoint_grid(lower, upper, 8 * n_cells)
    feats, thr, sgn = [], [], []
    for f in range(2):
        b = np.linspace(lower[f], upper[f], 4 * n_cells + 1)
        for s in (1, -1):
            feats += [f] * len(b)
            thr += list(b)
            sgn += [s] * len(b)
    targets = StumpConcepts(feats, thr, sgn, 2)
    radius, _ = _radius(targets, cover, points)
    assert radius <= cover.gamma + 1e-12
    assert radius >= cover.gamma - 1e-9


def test_degenerate_feature_gets_no_grid():
    cover = Stumps().cover(bounds=([0.0, 2.0], [1.0, 2.0]), gamma=0.1)
    assert set(cover.feature[2:].tolist()) == {0}
    all_flat = Stumps().cover(bounds=(1.0, 1.0), gamma=0.1, n_features=3)
    assert all_flat.n_concepts == 2 and all_flat.gamma == 0.0


@pytest.mark.parametrize("gamma", [0.45, 0.35])
def test_box_cover_radius_brute_force(gamma):
    lower, upper = np.array([0.0, 10.0]), np.array([2.0, 11.0])
    cover = Boxes().cover(bounds=(lower, upper), gamma=gamma)
    n_cells = round(1 / (1 - np.sqrt(1 - cover.gamma)))
    assert cover.gamma == pytest.approx(1 - (1 - 1 / n_cells) ** 2)
    assert cover.gamma <= gamma
    assert cover.n_concepts == (n_cells * (n_cells + 1) // 2) ** 2 + 1
    # targets: all boxes with corners on a grid 2x finer than the cover's
    # (so faces sit at cover-cell midpoints), plus degenerate ones
    fine = 2 * n_cells
    a, b = np.triu_indices(fine + 1, k=0)
    rel_lo, rel_hi = a / fine, b / fine
    i, j = np.meshgrid(np.arange(len(a)), np.arange(len(a)), indexing="ij")
    i, j = i.ravel(), j.ravel()
    width = upper - lower
    lo = np.stack([lower[0] + rel_lo[i] * width[0], lower[1] + rel_lo[j] * width[1]], 1)
    hi = np.stack([lower[0] + rel_hi[i] * width[0], lower[1] + rel_hi[j] * width[1]], 1)
    targets = BoxConcepts(lo, hi)
    points = _midpoint_grid(lower, upper, 8 * n_cells)
    radius, _ = _radius(targets, cover, points)
    assert radius <= cover.gamma + 1e-12
    # the union bound is tight to first order: the brute-force radius is at
    # least the near-full-box value 2/N - O(1/N^2)
    assert radius >= 0.6 * cover.gamma


def test_box_cover_past_32_features():
    # numpy's meshgrid takes at most 32 arrays: 33 features crashed with a
    # RuntimeError from inside the cover (found by a review)
    with pytest.warns(UserWarning):
        C = Boxes().cover(bounds=(np.zeros(33), np.ones(33)), gamma=0.1, max_size=1000)
    assert C.n_concepts >= 2  # the whole box (one interval per feature) and the empty one
    X = np.random.default_rng(0).random((5, 33))
    assert C.evaluate(X).shape == (5, C.n_concepts)


def test_box_bracket_width():
    cover = Boxes().cover(bounds=(0.0, 1.0), gamma=0.25, n_features=1)
    assert cover.n_concepts == 11 and cover.gamma == 0.25  # N = 4
    assert cover.bracket_width == pytest.approx(0.5)
    points = _midpoint_grid([0.0], [1.0], 400)
    targets = BoxConcepts([[0.13], [0.5], [0.3]], [[0.61], [0.52], [0.99]])
    tv, cv = targets.evaluate(points), cover.evaluate(points)
    width = _disagreement(cv, cv)
    for t in range(3):
        below = np.flatnonzero(np.all(cv <= tv[:, [t]], axis=0))
        above = np.flatnonzero(np.all(cv >= tv[:, [t]], axis=0))
        assert width[np.ix_(below, above)].min() <= cover.bracket_width + 1e-12


def test_max_size_caps_and_warns():
    with pytest.warns(UserWarning, match="max_size=50.*achieved gamma"):
        cover = Stumps().cover(bounds=(0.0, 1.0), gamma=0.001, max_size=50, n_features=3)
    assert cover.n_concepts <= 50
    assert cover.gamma == pytest.approx(1 / (2 * 9))  # 2*3*(N-1)+2 <= 50 -> N = 9
    only_size = Stumps().cover(bounds=(0.0, 1.0), max_size=50, n_features=3)
    assert only_size.n_concepts == cover.n_concepts
    with pytest.warns(UserWarning, match="max_size"):
        boxes = Boxes().cover(bounds=(0.0, 1.0), gamma=0.01, max_size=1000, n_features=2)
    assert boxes.n_concepts <= 1000


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        (dict(bounds=(1.0, 0.0), gamma=0.1), ValueError, "lower > upper"),
        (dict(bounds=(0.0, 1.0), gamma=0.0), ValueError, "gamma"),
        (dict(bounds=(0.0, 1.0), gamma=-0.5), ValueError, "gamma"),
        (dict(bounds=(0.0, 1.0), gamma=1.5), ValueError, "gamma"),
        (dict(bounds=(0.0, 1.0), gamma="a"), TypeError, "gamma"),
        (dict(bounds=(0.0, 1.0)), ValueError, "gamma=.*max_size"),
        (dict(bounds=(0.0, 1.0), max_size=1), ValueError, "max_size"),
        (dict(bounds=(0.0, 1.0), max_size=2.5), TypeError, "max_size"),
        (dict(bounds=None, gamma=0.1), ValueError, "bounds"),
        (dict(bounds=(0.0, np.inf), gamma=0.1), ValueError, "finite"),
        (dict(bounds=5.0, gamma=0.1), TypeError, "bounds"),
    ],
)
def test_cover_bad_input(kwargs, err, match):
    for cls in (Thresholds(), Stumps(), Boxes()):
        with pytest.raises(err, match=match):
            cls.cover(**kwargs)


def test_thresholds_reject_several_features():
    with pytest.raises(ValueError, match="bounds"):
        Thresholds().cover(bounds=([0, 0], [1, 1]), gamma=0.1)
    with pytest.raises(ValueError, match="X has 2 features"):
        Thresholds().cover(bounds=(0, 1), gamma=0.1).evaluate(np.zeros((3, 2)))


@pytest.mark.parametrize("concepts", [Thresholds(), Stumps(), Boxes()])
def test_grid_covers_of_the_widest_bounds_are_finite(concepts):
    # the direct formula lower + t (upper - lower) overflowed to inf here
    bounds = (np.array([-1e308, 0.0]), np.array([1e308, 1.0]))
    if isinstance(concepts, Thresholds):
        bounds = (bounds[0][:1], bounds[1][:1])
    cover = concepts.cover(bounds=bounds, gamma=0.1)
    ends = (cover.lower, cover.upper) if isinstance(cover, BoxConcepts) else (cover.threshold,)
    for end in ends:
        inside = end[np.isfinite(end)]  # the empty box uses +-inf on purpose
        assert len(inside) > 0 and np.all(np.abs(inside) <= 1e308)
    X = np.array([[-5e307, 0.2], [5e307, 0.8]])[:, : len(bounds[0])]
    assert cover.evaluate(X).shape == (2, len(cover))
