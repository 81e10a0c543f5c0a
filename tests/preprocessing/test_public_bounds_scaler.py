import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from sksmooth import PrivacyLeakWarning
from sksmooth.preprocessing import PublicBoundsScaler


_PRIVATE_ROWS = ("it precedes private estimators, so it reads rows by their rule: a "
                 "non-number (the check's dict entry, a complex value) is mapped like a "
                 "missing value, never refused (the refusal would be a release)")


@parametrize_with_checks([PublicBoundsScaler(bounds=(-10.0, 10.0))],
                         expected_failed_checks=lambda estimator: {
                             "check_complex_data": _PRIVATE_ROWS,
                             "check_dtype_object": _PRIVATE_ROWS})
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_maps_public_box_and_ignores_data_range():
    X = np.array([[1.0, 50.0], [3.0, 150.0]])
    scaler = PublicBoundsScaler(bounds=([0, 0], [4, 100])).fit(X)
    np.testing.assert_allclose(scaler.transform(X), [[0.25, 0.5], [0.75, 1.0]])
    # a count of clipped private rows is a statistic of the data: not stored
    assert not hasattr(scaler, "n_clipped_")
    # the fitted map depends on the bounds only: other data, same map
    other = PublicBoundsScaler(bounds=([0, 0], [4, 100])).fit(X[:1] * 0)
    np.testing.assert_allclose(other.transform(X), scaler.transform(X))


def test_inverse_and_degenerate_feature():
    X = np.array([[1.0, 2.0], [3.0, 2.0]])
    scaler = PublicBoundsScaler(bounds=([0, 2], [4, 2]), feature_range=(-1, 1)).fit(X)
    Z = scaler.transform(X)
    np.testing.assert_allclose(Z[:, 1], 0.0)
    np.testing.assert_allclose(scaler.inverse_transform(Z), X)


def test_bounds_from_data_only_with_the_opt_in():
    X = np.array([[0.0], [2.0]])
    with pytest.raises(ValueError, match="bounds=None.*PrivateBounds.*bounds='data'"):
        PublicBoundsScaler().fit(X)  # the default: refused, naming the alternatives
    with pytest.warns(PrivacyLeakWarning):
        scaler = PublicBoundsScaler(bounds="data").fit(X)
    np.testing.assert_array_equal(scaler.transform(X), [[0.0], [1.0]])


@pytest.mark.parametrize("feature_range", [(1, 0), (0,), "ab", (0, np.inf), (-np.inf, 1),
                                           (np.nan, 1)])
def test_bad_feature_range(feature_range):
    with pytest.raises(ValueError, match="feature_range"):
        PublicBoundsScaler(bounds=(0, 1), feature_range=feature_range).fit([[0.5]])


def test_bounds_wider_than_the_float_range_scale_without_overflow():
    # upper - lower = 2e308 overflows: the scale used to be 0 and every value
    # mapped to the lower end of feature_range
    X = np.array([[-1e308], [0.0], [5e307], [1e308]])
    scaler = PublicBoundsScaler(bounds=(-1e308, 1e308)).fit(X)
    Z = scaler.transform(X)
    np.testing.assert_allclose(Z.ravel(), [0.0, 0.5, 0.75, 1.0], rtol=1e-12)
    np.testing.assert_allclose(scaler.inverse_transform(Z), X, rtol=1e-12)
    flat = PublicBoundsScaler(bounds=([1e308, 0.0], [1e308, 1.0])).fit([[1e308, 0.5]])
    assert np.all(np.isfinite(flat.inverse_transform(flat.transform([[1e308, 0.5]]))))


def test_private_rows_are_mapped_like_the_private_estimators_map_them():
    # the scaler refused NaN (an error exactly when some private row held one, in a
    # private Pipeline) and stored how many rows were clipped (found by a docs review)
    X = np.array([[np.nan, 5.0], [np.inf, -np.inf], ["n/a", 12.0]], dtype=object)
    Z = PublicBoundsScaler(bounds=(0, 10)).fit_transform(X)
    np.testing.assert_array_equal(Z, [[0.5, 0.5], [1.0, 0.0], [0.5, 1.0]])


def test_a_feature_range_as_wide_as_the_floats_does_not_overflow():
    # high - low overflowed: transform gave [nan, inf, inf] (a review)
    scaler = PublicBoundsScaler(bounds=(0, 1), feature_range=(-1e308, 1e308)).fit([[0.0]])
    Z = scaler.transform([[0.0], [0.5], [1.0], [0.25]])
    np.testing.assert_allclose(Z.ravel(), [-1e308, 0.0, 1e308, -5e307])
    np.testing.assert_allclose(scaler.inverse_transform(Z).ravel(), [0.0, 0.5, 1.0, 0.25])


def test_the_output_stays_within_the_feature_range():
    # rounding passed the range's end by one float step (a review)
    low, high = -26.08908472609203, -1.014400066356889
    Z = PublicBoundsScaler(bounds=(0, 1), feature_range=(low, high)).fit_transform(
        [[1.0], [0.0], [0.3]])
    assert Z.min() >= low and Z.max() <= high


def test_dataframe_keeps_its_names_through_a_private_pipeline():
    pd = pytest.importorskip("pandas", reason="pandas not installed")
    from sklearn.pipeline import make_pipeline

    from sksmooth import PrivateProperClassifier
    from sksmooth.datasets import load_breast_cancer_public

    X, y, bounds = load_breast_cancer_public(scale=False, as_frame=True)
    scaler = PublicBoundsScaler(bounds=bounds).fit(X)
    Z = scaler.transform(X)
    assert isinstance(Z, pd.DataFrame) and list(Z.columns) == list(X.columns)
    assert Z.index.equals(X.index)
    np.testing.assert_array_equal(scaler.get_feature_names_out(), X.columns)
    pd.testing.assert_frame_equal(scaler.inverse_transform(Z).iloc[:, :1],
                                  X.clip(bounds[0], bounds[1], axis=1).iloc[:, :1])
    model = make_pipeline(PublicBoundsScaler(bounds=bounds),
                          PrivateProperClassifier(hypotheses="stumps", bounds=(0, 1),
                                                  classes=[0, 1])).fit(X, y)
    description = model[-1].hypothesis_.description
    assert "x[" not in description
    assert any(name in description for name in X.columns)


def test_set_output_still_decides_the_container():
    pytest.importorskip("pandas", reason="pandas not installed")
    X = np.array([[1.0, 50.0], [3.0, 150.0]])
    out = PublicBoundsScaler(bounds=(0, 200)).set_output(transform="pandas").fit_transform(X)
    assert list(out.columns) == ["x0", "x1"]
    assert isinstance(PublicBoundsScaler(bounds=(0, 200)).fit_transform(X), np.ndarray)


def test_float32_stays_float32_as_in_scikit_learns_scalers():
    pd = pytest.importorskip("pandas")
    X = np.random.default_rng(0).uniform(-1, 1, (20, 2))
    scaler = PublicBoundsScaler(bounds=(-1, 1))
    assert scaler.fit_transform(X.astype(np.float32)).dtype == np.float32
    assert scaler.inverse_transform(X.astype(np.float32)).dtype == np.float32
    frame = pd.DataFrame(X, columns=["a", "b"]).astype({"a": np.float32})
    assert scaler.fit_transform(frame).dtypes.tolist() == [np.float64, np.float64]  # mixed
    assert scaler.fit_transform(frame.astype(np.float32)).dtypes.tolist() == [np.float32] * 2
