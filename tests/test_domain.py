"""The public grid on the bounds box (sksmooth._domain.grid_threshold)."""

import numpy as np
import pytest

import warnings

from sksmooth._domain import box_distance, box_position, grid_threshold


@pytest.mark.parametrize("lower, upper", [(0.0, 1.0), (-3.0, 7.5), (2.0, 2.0 + 1e-9)])
def test_grid_matches_the_direct_formula_on_ordinary_bounds(lower, upper):
    index = np.arange(0, 17)
    direct = lower + index / 16 * (upper - lower)
    np.testing.assert_allclose(grid_threshold(lower, upper, index, 16), direct,
                               rtol=1e-15, atol=1e-15 * abs(upper))


def test_grid_is_finite_and_increasing_on_the_widest_bounds():
    lower, upper = -1e308, 1e308
    with np.errstate(over="ignore"):
        assert not np.isfinite(lower + 0.5 * (upper - lower))  # the overflow avoided
    points = grid_threshold(lower, upper, np.arange(0, 9), 8)
    assert np.all(np.isfinite(points)) and np.all(np.diff(points) > 0)
    assert points[4] == 0.0


def test_grid_ends_are_exactly_the_bounds():
    lower = np.array([0.1, -1e308, 3.0])
    upper = np.array([0.7, 1e308, 3.3])
    n_cells = 3
    np.testing.assert_array_equal(grid_threshold(lower, upper, 0, n_cells), lower)
    np.testing.assert_array_equal(grid_threshold(lower, upper, n_cells, n_cells), upper)


# ------------------------------------------ old formula, tiny and huge boxes
def test_grid_moves_at_most_two_ulps_from_the_previous_formula():
    # the covers and interval grids computed lower + (i / n) (upper - lower)
    # before; the halves formula rounds differently in ~15% of the interior
    # points, by <= 2 ulp of the larger bound (both within 2.5 ulp of exact)
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(500):
        scale = 10.0 ** rng.integers(-6, 7)
        lower = rng.normal() * scale
        upper = lower + abs(rng.normal()) * scale + 1e-12
        n = int(rng.integers(2, 100))
        index = np.arange(1, n)
        before = lower + (index / n) * (upper - lower)
        ulp = np.spacing(max(abs(lower), abs(upper)))
        worst = max(worst, np.max(np.abs(grid_threshold(lower, upper, index, n) - before)) / ulp)
    assert worst <= 2.0


@pytest.mark.parametrize("lower, upper", [
    (5e-324, 1e-323), (0.0, 5e-324), (-1e-310, 1e-310), (1e-320, 3e-320),
    (-np.finfo(float).max, np.finfo(float).max), (1e308, np.finfo(float).max)])
def test_grid_stays_in_the_box_and_sorted_on_extreme_bounds(lower, upper):
    # failed before the clip for subnormal bounds: halving 5e-324 gives 0, so
    # the interior points of (5e-324, 1e-323) were 0, below the box
    points = grid_threshold(np.float64(lower), np.float64(upper), np.arange(0, 11), 10)
    assert np.all(np.isfinite(points))
    assert np.all((points >= lower) & (points <= upper))
    assert np.all(np.diff(points) >= 0)


@pytest.mark.parametrize("lower, upper", [
    (0.0, 5e-324), (5e-324, 1e-323), (-1e-310, 1e-310), (0.0, 1.0), (-3.0, 7.5),
    (-1e308, 1e308), (-np.finfo(float).max, np.finfo(float).max)])
def test_box_distance_across_the_box_is_one(lower, upper):
    # failed before for subnormal widths: x / 2 underflowed, the distance from
    # lower to upper of (0, 5e-324) was 0
    distance = box_distance(np.array([lower, upper]), np.float64(lower), lower, upper)
    np.testing.assert_array_equal(distance, [0.0, 1.0])


def test_box_distance_equals_the_direct_formula_on_ordinary_boxes():
    rng = np.random.default_rng(1)
    lower = rng.normal(size=200) * 10.0 ** rng.integers(-6, 7, size=200)
    upper = lower + np.abs(rng.normal(size=200)) * 10.0 ** rng.integers(-6, 7, size=200)
    x, point = rng.uniform(lower, upper), rng.uniform(lower, upper)
    np.testing.assert_array_equal(box_distance(x, point, lower, upper),
                                  np.abs(x - point) / (upper - lower))


_MAX = np.finfo(float).max


def test_box_position_never_overflows_and_equals_the_direct_formula():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pos = box_position(np.array([[-_MAX, 0.0, _MAX, 5.0]]),
                           np.array([-_MAX, -_MAX, -_MAX, 5.0]), np.array([_MAX, _MAX, _MAX, 5.0]))
    np.testing.assert_array_equal(pos, [[0.0, 0.5, 1.0, 0.0]])  # degenerate feature: 0
    rng = np.random.default_rng(0)
    lower, upper = rng.normal(size=5), rng.normal(size=5) + 3.0
    X = rng.uniform(lower, upper, size=(100, 5))
    np.testing.assert_array_equal(box_position(X, lower, upper), (X - lower) / (upper - lower))

