import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_iris, load_wine

from sksmooth.datasets import (
    load_breast_cancer_public,
    load_digits_binary_public,
    load_iris_public,
    load_wine_public,
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


@pytest.mark.parametrize("load, first, last", [
    (load_wine, (11.0, 14.8), (278.0, 1680.0)),  # extra Mean and SD columns, capitals
    (load_iris, (4.3, 7.9), (0.1, 2.5)),  # a Class Correlation column and "(high!)"
    (load_breast_cancer, (6.981, 28.11), (0.055, 0.208)),
])
def test_published_bounds_reads_every_bundled_summary_table(load, first, last):
    data = load()
    lower, upper = published_bounds(data.DESCR)
    assert lower.shape == upper.shape == (data.data.shape[1],)
    assert (lower[0], upper[0]) == first and (lower[-1], upper[-1]) == last
    # the table is the rows' rounded range: almost every value lies inside it
    assert ((data.data >= lower) & (data.data <= upper)).mean() > 0.99


@pytest.mark.parametrize("load", [load_diabetes, load_digits])
def test_published_bounds_names_the_alternative_where_there_is_no_table(load):
    with pytest.raises(ValueError, match="PrivateBounds"):
        published_bounds(load().DESCR)


@pytest.mark.parametrize("loader, n_features, n_classes", [
    (load_wine_public, 13, 3), (load_iris_public, 4, 3)])
def test_multiclass_loaders_scale_the_published_box(loader, n_features, n_classes):
    X, y, bounds = loader()
    X_raw, y_raw, (lower, upper) = loader(scale=False)
    assert bounds == (0.0, 1.0) and X.shape[1] == n_features == lower.size
    assert X.min() >= 0 and X.max() <= 1 and len(np.unique(y)) == n_classes
    np.testing.assert_array_equal(y, y_raw)
    inside = np.all((X_raw >= lower) & (X_raw <= upper), axis=1)
    np.testing.assert_allclose(X[inside], (X_raw[inside] - lower) / (upper - lower))


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
    (load_wine_public, 13, "alcohol"),
    (load_iris_public, 4, "sepal length (cm)"),
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
