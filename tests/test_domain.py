"""The public grid on the bounds box (sksmooth._domain.grid_threshold)."""

import numpy as np
import pytest

from sksmooth._domain import grid_threshold


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
