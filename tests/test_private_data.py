"""sksmooth._private_data: the public row maps never overflow (attack tests)."""

import warnings

import numpy as np

from sksmooth._private_data import box_position, sanitize_rows

_MAX = np.finfo(float).max


def test_nan_goes_to_the_centre_silently_for_bounds_near_the_float_range():
    # (lower + upper) / 2 overflowed to inf: NaN rows went to the upper bound and
    # an overflow warning appeared only when some row held a NaN
    lower, upper = np.array([0.5 * _MAX]), np.array([_MAX])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mapped = sanitize_rows(np.array([[np.nan], [0.6 * _MAX]]), lower, upper)
    assert mapped[0, 0] == 0.75 * _MAX and mapped[1, 0] == 0.6 * _MAX


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
