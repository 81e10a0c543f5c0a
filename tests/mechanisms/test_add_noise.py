"""The shared ``add_noise`` step releases exactly what each mechanism released
before it was shared: same values from the same generator state, same
shape, same Python type for scalars, and (discrete mechanisms) integers
only, drawn from uniform integers only."""

import numpy as np
import pytest

from sksmooth.mechanisms import (
    discrete_gaussian_mechanism,
    discrete_laplace_mechanism,
    gaussian_mechanism,
    gaussian_noise_std,
    laplace_mechanism,
)
from sksmooth.mechanisms._discrete import _discrete_gaussian_rational, _discrete_laplace_rational
from fractions import Fraction

VALUES = [3.5, np.float64(2.0), np.array(1.25), [1.0, 2.0, 3.0], [[1, 2], [3, 4]], 7,
          np.arange(6, dtype=np.int32).reshape(2, 3), np.array([], dtype=float)]
SIZES = [None, 1, 4]


def _continuous_before(value, size, rng, draw):
    """The Laplace/Gaussian mechanisms' own code before add_noise."""
    arr = np.asarray(value, dtype=float)
    shape = arr.shape if size is None else (size,) + arr.shape
    noisy = arr + draw(rng, shape)
    if np.ndim(value) == 0 and size is None:
        return float(noisy)
    return noisy


def _discrete_before(value, size, draw):
    """The discrete mechanisms' ``_add_noise`` before it moved to _common."""
    arr = np.asarray(value).astype(np.int64)
    shape = arr.shape if size is None else (size,) + arr.shape
    noise = draw(int(np.prod(shape, dtype=np.int64))).reshape(shape)
    noisy = arr + noise
    if np.ndim(value) == 0 and size is None:
        return int(noisy)
    return noisy


def _same_release(new, old):
    assert type(new) is type(old)
    if isinstance(old, np.ndarray):
        assert new.shape == old.shape and new.dtype == old.dtype
        np.testing.assert_array_equal(new, old)
    else:
        assert new == old


@pytest.mark.parametrize("value", VALUES, ids=repr)
@pytest.mark.parametrize("size", SIZES)
def test_laplace_and_gaussian_release_what_they_released_before(value, size):
    scale = 2.0 / 0.7
    new = laplace_mechanism(value, 0.7, 2.0, np.random.default_rng(11), size=size)
    old = _continuous_before(value, size, np.random.default_rng(11),
                             lambda rng, shape: rng.laplace(scale=scale, size=shape))
    _same_release(new, old)
    std = gaussian_noise_std(0.7, 1e-5, 2.0, "analytic")
    new = gaussian_mechanism(value, 0.7, 1e-5, 2.0, np.random.default_rng(12),
                             calibration="analytic", size=size)
    old = _continuous_before(value, size, np.random.default_rng(12),
                             lambda rng, shape: rng.normal(scale=std, size=shape))
    _same_release(new, old)


@pytest.mark.parametrize("value", [v for v in VALUES if np.asarray(v).dtype.kind in "iu"
                                   or np.all(np.round(np.asarray(v, float)) == np.asarray(v, float))],
                         ids=repr)
@pytest.mark.parametrize("size", SIZES)
def test_discrete_mechanisms_release_what_they_released_before(value, size):
    scale = Fraction(3) / Fraction(0.7)
    new = discrete_laplace_mechanism(value, 0.7, 3, np.random.default_rng(13), size=size)
    rng = np.random.default_rng(13)
    old = _discrete_before(value, size, lambda n: _discrete_laplace_rational(
        scale.numerator, scale.denominator, n, rng))
    _same_release(new, old)
    new = discrete_gaussian_mechanism(value, 2.5, np.random.default_rng(14), size=size)
    rng = np.random.default_rng(14)
    old = _discrete_before(value, size, lambda n: _discrete_gaussian_rational(
        Fraction(2.5) ** 2, n, rng))
    _same_release(new, old)


class _IntegersOnly(np.random.Generator):
    def __getattribute__(self, name):
        if name in ("random", "normal", "standard_normal", "laplace", "exponential",
                    "standard_exponential", "gumbel", "uniform"):
            raise AssertionError(f"an exact mechanism used rng.{name}")
        return super().__getattribute__(name)


@pytest.mark.parametrize("value", [5, [1, 2, 3], np.array(4)])
def test_discrete_mechanisms_stay_exact_integers(value):
    rng = _IntegersOnly(np.random.PCG64(0))
    for out in (discrete_laplace_mechanism(value, 0.5, 2, rng),
                discrete_gaussian_mechanism(value, 1.5, rng),
                discrete_laplace_mechanism(value, 0.5, 2, rng, size=3)):
        if np.ndim(value) == 0 and np.ndim(out) == 0:
            assert type(out) is int
        else:
            assert out.dtype == np.int64
