import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from sksmooth.datasets import (
    load_breast_cancer_public,
    load_digits_binary_public,
    published_bounds,
)


def test_breast_cancer_bounds_are_the_published_table():
    X_raw, y, (lower, upper) = load_breast_cancer_public(scale=False)
    assert lower.shape == upper.shape == (30,)
    assert np.all(lower < upper)
    # the published table is the data's true range (rounded), so almost
    # nothing is clipped when scaling
    X, y2, bounds = load_breast_cancer_public()
    assert bounds == (0.0, 1.0) and X.min() >= 0 and X.max() <= 1
    inside = (X_raw >= lower - 1e-9) & (X_raw <= upper + 1e-9)
    assert inside.mean() > 0.99
    np.testing.assert_array_equal(y, y2)
    assert published_bounds(load_breast_cancer().DESCR)[0][0] == lower[0]


def test_digits_binary():
    X, y, bounds = load_digits_binary_public()
    assert X.shape == (1797, 64) and set(np.unique(y)) == {0, 1}
    assert X.max() <= 1 and bounds == (0.0, 1.0)


def test_published_bounds_rejects_text_without_table():
    with pytest.raises(ValueError, match="Summary Statistics"):
        published_bounds("no table here")
