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


@pytest.mark.parametrize("loader, n_features, first_name", [
    (load_breast_cancer_public, 30, "mean radius"),
    (load_digits_binary_public, 64, "pixel_0_0"),
])
@pytest.mark.parametrize("scale", [True, False])
def test_as_frame_gives_named_columns_and_the_same_values(loader, n_features, first_name, scale):
    pd = pytest.importorskip("pandas", reason="pandas not installed")
    X, y, bounds = loader(scale=scale)
    Xf, yf, bounds_f = loader(scale=scale, as_frame=True)
    assert isinstance(Xf, pd.DataFrame) and isinstance(yf, pd.Series)
    assert Xf.shape == (len(y), n_features) and Xf.columns[0] == first_name
    assert yf.name == "target"
    np.testing.assert_array_equal(Xf.to_numpy(), X)
    np.testing.assert_array_equal(yf.to_numpy(), y)
    np.testing.assert_array_equal(np.asarray(bounds_f, dtype=object)[0], np.asarray(bounds, dtype=object)[0])


def test_as_frame_without_pandas_names_the_fix(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="as_frame=False"):
        load_breast_cancer_public(as_frame=True)


@pytest.mark.parametrize("name", ["scale", "as_frame"])
def test_flags_must_be_booleans(name):
    with pytest.raises(TypeError, match=name):
        load_digits_binary_public(**{name: "yes"})
