"""The one column codec of the release estimators (sksmooth.release._columns).

Both families — the MWEM family (through TableSchema) and
AdaptiveMarginalSynthesizer — read a table through the same column
strategies, so the rules below are tested once over both: where levels come
from, how bad values map, which dtype a synthetic column gets.
"""

import contextlib
import warnings

import numpy as np
import pytest

import sksmooth.release._columns as columns_module
import sksmooth.release._schema as tables_module
from sksmooth import PrivateProperClassifier
from sksmooth.exceptions import PrivacyLeakWarning, PrivacyWarning
from sksmooth.release import MWEM
from sksmooth.release._aim import AdaptiveMarginalSynthesizer
from sksmooth.release._columns import (
    BinnedColumn,
    LevelColumn,
    NumberColumn,
    TableCodec,
    public_levels,
    resolve_labels,
)

pd = pytest.importorskip("pandas")

_N = 120


def _column(kind, rng):
    """One column of each input dtype, with its public declaration per family."""
    if kind == "float":
        return rng.uniform(0, 4, _N), {"mwem": None, "aim": ("bounds", (0.0, 4.0))}
    if kind == "int":
        return rng.integers(0, 4, _N), {"mwem": [0, 1, 2, 3], "aim": ("levels", 4)}
    if kind == "Int64":
        return pd.array(rng.integers(0, 4, _N), dtype="Int64"), {
            "mwem": [0, 1, 2, 3], "aim": ("levels", [0, 1, 2, 3])}
    if kind == "bool":  # declared: a missing value makes a numpy bool column object
        return rng.random(_N) < 0.4, {"mwem": [False, True], "aim": ("levels", [False, True])}
    if kind == "object":
        return rng.choice(["oslo", "lima"], _N).astype(object), {
            "mwem": ["lima", "oslo"], "aim": ("levels", ["lima", "oslo"])}
    assert kind == "category"
    return pd.Categorical(rng.choice(["a", "b"], _N), categories=["a", "b", "c"]), {
        "mwem": "dtype", "aim": ("dtype", None)}


_KINDS = ["float", "int", "Int64", "bool", "object", "category"]
_EXPECTED_DTYPE = {  # public dtypes: the input's numpy dtype is never echoed
    "float": np.dtype(float), "int": np.dtype(np.int64), "Int64": np.dtype(np.int64),
    "bool": np.dtype(bool), "object": None, "category": None}


def _fit(family, kind, df_or_array):
    rng = np.random.default_rng(0)
    _, declaration = _column(kind, rng)
    name = "c" if hasattr(df_or_array, "columns") else 0
    # everything is declared (nothing read from the data), but a Categorical's levels
    # are not certified public: a PrivacyWarning says so
    said = pytest.warns(PrivacyWarning, match="not certified") if kind == "category" \
        else contextlib.nullcontext()
    with said, warnings.catch_warnings():
        warnings.simplefilter("error")
        if kind == "category":
            warnings.simplefilter("always", PrivacyWarning)
        if family == "mwem":
            spec = declaration["mwem"]
            levels = {"other" if name == "c" else 1: int}  # the integers in its bounds
            if isinstance(spec, list):
                levels[name] = spec
            est = MWEM(epsilon=1.0, levels=levels, bounds=([0, 0], [4, 1]), n_bins=4)
            return est.fit(df_or_array)
        where, value = declaration["aim"]
        params = {"levels": {"other" if name == "c" else 1: 2}}
        if where == "bounds":
            params["bounds"] = {name: value}
        elif where == "levels":
            params["levels"][name] = value
        return AdaptiveMarginalSynthesizer(epsilon=1.0, n_bins=4, **params).fit(df_or_array)


@pytest.mark.parametrize("as_series", [True, False])
@pytest.mark.parametrize("family", ["mwem", "aim"])
def test_synthetic_labels_come_back_as_fitted_and_n_samples_is_checked_alike(family, as_series):
    # before: AdaptiveMarginalSynthesizer returned an ndarray for a Series y,
    # and refused sample(2.0) with ValueError where SmoothMWEM raised TypeError
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.integers(0, 3, 300), "b": rng.integers(0, 3, 300)})
    y = pd.Series(rng.integers(0, 2, 300), name="label") if as_series else \
        rng.integers(0, 2, 300)
    est = (MWEM(levels=int, bounds=(0, 2), classes=[0, 1])
           if family == "mwem" else AdaptiveMarginalSynthesizer(levels=3, classes=[0, 1]))
    _, y_syn = est.fit(X, y).sample(20, random_state=0)
    if as_series:
        assert isinstance(y_syn, pd.Series) and y_syn.name == "label" and len(y_syn) == 20
    else:
        assert isinstance(y_syn, np.ndarray) and y_syn.shape == (20,)
    assert set(np.asarray(y_syn)) <= {0, 1}
    for bad, error in ((2.0, TypeError), (-1, ValueError), (10**9, ValueError)):
        with pytest.raises(error, match="n_samples"):
            est.sample(bad)


@pytest.mark.parametrize("family", ["mwem", "aim"])
def test_get_feature_names_out_checks_input_features_both_families(family):
    # before: input_features was ignored, even of the wrong length
    rng = np.random.default_rng(0)
    values, _ = _column("int", rng)
    other = rng.integers(0, 2, _N)
    named = _fit(family, "int", pd.DataFrame({"c": values, "other": other}))
    assert list(named.get_feature_names_out(["c", "other"])) == ["c", "other"]
    for wrong in (["c"], ["c", "x"]):
        with pytest.raises(ValueError, match="input_features"):
            named.get_feature_names_out(wrong)
    plain = _fit(family, "int", np.column_stack([values, other]))
    assert list(plain.get_feature_names_out()) == ["x0", "x1"]
    assert list(plain.get_feature_names_out(["p", "q"])) == ["p", "q"]  # scikit-learn's rule
    with pytest.raises(ValueError, match="input_features"):
        plain.get_feature_names_out(["p"])


@pytest.mark.parametrize("family", ["mwem", "aim"])
@pytest.mark.parametrize("kind", _KINDS)
def test_dataframe_round_trip_every_dtype_both_families(family, kind):
    rng = np.random.default_rng(0)
    values, _ = _column(kind, rng)
    df = pd.DataFrame({"c": values, "other": rng.integers(0, 2, _N)})
    est = _fit(family, kind, df)
    out = est.sample(60, random_state=0)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["c", "other"]
    np.testing.assert_array_equal(est.get_feature_names_out(), ["c", "other"])
    expected = _EXPECTED_DTYPE[kind]
    if kind == "category":
        assert out["c"].dtype == df["c"].dtype  # the declared categories, kept
        assert set(out["c"]) <= {"a", "b", "c"}
    elif kind == "object":
        assert set(out["c"]) <= {"lima", "oslo"}
    else:
        assert out["c"].dtype == expected, (out["c"].dtype, expected)
        assert out["c"].between(0, 4).all()
    # the same table with one missing value: the synthetic dtypes do not change
    neighbour = df.reindex(range(_N + 1))  # pandas upcasts: int64 -> float64, bool -> object
    again = _fit(family, kind, neighbour).sample(5, random_state=0)
    assert (again.dtypes == out.dtypes).all(), (again.dtypes, out.dtypes)
    # pickling keeps the codec
    import pickle

    restored = pickle.loads(pickle.dumps(est))
    assert (restored.sample(5).dtypes == out.dtypes).all()


@pytest.mark.parametrize("family", ["mwem", "aim"])
@pytest.mark.parametrize("kind", ["float", "int", "object"])
def test_ndarray_in_ndarray_out_both_families(family, kind):
    rng = np.random.default_rng(0)
    values, _ = _column(kind, rng)
    other = rng.integers(0, 2, _N)
    X = np.column_stack([values, other]).astype(object if kind == "object" else float)
    out = _fit(family, kind, X).sample(30, random_state=0)
    assert isinstance(out, np.ndarray) and out.shape == (30, 2)
    if kind == "object":
        assert out.dtype == object and set(out[:, 0]) <= {"lima", "oslo"}
    else:  # the columns' common public dtype: float with a continuous column, else int
        assert out.dtype == (np.dtype(float) if kind == "float" else np.dtype(np.int64))


# ------------------------------------------------------------- the one rule
def test_levels_come_from_declarations_or_dtype_categories_only():
    assert list(public_levels(3, None, "a", "levels")) == [0, 1, 2]
    assert list(public_levels(["x", "y"], None, "a", "levels")) == ["x", "y"]
    assert list(public_levels(None, pd.CategoricalDtype(["p", "q"]), "a", "levels")) == ["p", "q"]
    # a dtype that follows the values (one missing value makes numpy bool object;
    # convert_dtypes() makes booleans 'boolean', with one text 'string'): no levels
    for dtype in (np.dtype(np.int64), np.dtype(float), np.dtype(object), np.dtype(bool), None,
                  pd.BooleanDtype(), pd.Int64Dtype(), pd.StringDtype()):
        assert public_levels(None, dtype, "a", "levels") is None
    with pytest.raises(ValueError, match="distinct"):
        public_levels(["x", "x"], None, "a", "categories")
    with pytest.raises(ValueError, match=">= 1"):
        public_levels(0, None, "a", "levels")


def test_bad_values_map_to_fixed_codes_never_refused():
    levels = LevelColumn(np.array([1, 2, 3]))
    codes = levels.encode(np.array([3, 1.0, True, "2", "x", None, np.nan, 17], dtype=object))
    np.testing.assert_array_equal(codes, [2, 0, 0, 1, 0, 0, 0, 0])
    text = LevelColumn(np.array(["a", "b"]))
    np.testing.assert_array_equal(text.encode(np.array(["b", None, 3, "a"], dtype=object)),
                                  [1, 0, 0, 0])
    binned = BinnedColumn(0, 10, 5)
    np.testing.assert_array_equal(
        binned.encode(np.array([-1e300, 0, 9.99, 1e300, np.nan, "x"], dtype=object)),
        [0, 0, 4, 4, 2, 2])


@pytest.mark.parametrize("levels", [["1", "2", "3"], [1, 2, "other"], ["1.0", "2", "3"]])
def test_one_missing_value_keeps_the_other_rows_codes_under_text_levels(levels):
    # one NaN turns a pandas int column into float64; integers were then matched to
    # the text levels as "1.0" and every row got code 0 (found by an attack review)
    from sksmooth._untrusted import level_codes
    column = pd.Series(np.random.default_rng(0).integers(1, 4, size=400))
    with_missing = pd.concat([column, pd.Series([np.nan])], ignore_index=True)
    assert with_missing.dtype == float
    codes = level_codes(column, np.asarray(levels))
    assert (codes[column == 2] == 1).all()  # "2" is the second level of every list
    np.testing.assert_array_equal(level_codes(with_missing, np.asarray(levels))[:-1], codes)
    np.testing.assert_array_equal(level_codes(column.to_numpy(float), np.asarray(levels)),
                                  codes)


def test_one_missing_label_keeps_the_other_labels_codes():
    from sksmooth._untrusted import encode_private_labels
    y = np.random.default_rng(1).integers(0, 2, size=50)
    codes = encode_private_labels(y, np.array(["0", "1"]))
    assert set(codes) == {0, 1}
    np.testing.assert_array_equal(
        encode_private_labels(np.append(y.astype(float), np.nan), np.array(["0", "1"]))[:-1],
        codes)


def test_level_codes_are_vectorised_over_distinct_values():
    rng = np.random.default_rng(0)
    values = rng.choice(np.array(["a", "b", "c", "zz"], dtype=object), 200_000)
    expected = np.select([values == "b", values == "c"], [1, 2], 0)
    column = LevelColumn(np.array(["a", "b", "c"]))
    np.testing.assert_array_equal(column.encode(values), expected)
    series = pd.Series(values, dtype=object)
    series[:3] = [None, np.nan, 2]  # missing values and a number: code 0, by hashing
    expected[:3] = 0
    np.testing.assert_array_equal(column.encode(series), expected)
    categorical = pd.Series(pd.Categorical(values, categories=["a", "b", "c", "zz"]))
    np.testing.assert_array_equal(
        LevelColumn(np.asarray(categorical.dtype.categories)).encode(categorical),
        np.select([values == "b", values == "c", values == "zz"], [1, 2, 3], 0))


def test_number_column_output_dtype_is_public():
    assert NumberColumn(np.dtype(np.int64)).output_dtype() == np.dtype(float)
    assert NumberColumn(np.dtype(float), integer=True).output_dtype() == np.dtype(np.int64)
    assert NumberColumn(pd.Int64Dtype()).output_dtype() == np.dtype(float)  # picked by values
    codec = TableCodec(["a"], [NumberColumn(None, integer=True)], frame=False)
    np.testing.assert_array_equal(codec.decode(np.array([[0.4], [1.6]])), [[0], [2]])


# ---------------------------------------------------------------- attacks
def _observable(X):
    """What AdaptiveMarginalSynthesizer shows for X before any noise: the model's
    shape (public domain) or the refusal (its type and message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return AdaptiveMarginalSynthesizer(method="mst", random_state=0).fit(X).model_.shape
    except ValueError as exc:
        return type(exc).__name__, str(exc)


def _neighbours():
    X = np.random.default_rng(0).integers(0, 3, size=(100, 2))
    Y = X.copy()
    Y[0, 0] = 40  # one row's value: the old code allocated arange(max + 1) for it
    return X, Y


def test_undeclared_levels_do_not_depend_on_a_private_maximum():
    # before: levels were read from the data, model_.shape was (3, 3) vs (41, 3)
    # (and a row holding 10**9 made fit allocate ~8 GB and get killed)
    X, Y = _neighbours()
    assert _observable(X) == _observable(Y)
    assert "levels" in _observable(X)[1]


def test_a_codec_reading_levels_from_the_data_is_caught(monkeypatch):
    # the deliberately broken variant: the old rule, levels 0 .. max of the column
    columns = AdaptiveMarginalSynthesizer._columns

    def old_rule(self, X, y, **kwargs):
        values, names, dtypes, frame = columns(self, X, y, **kwargs)
        self.levels = [int(np.max(v)) + 1 for v in values]
        return values, names, dtypes, frame

    monkeypatch.setattr(AdaptiveMarginalSynthesizer, "_columns", old_rule)
    X, Y = _neighbours()
    assert _observable(X) != _observable(Y)


def test_declared_levels_of_a_numpy_column_do_not_echo_a_missing_value():
    # found while unifying the codecs: SmoothMWEM gave a declared-level int64
    # column the input's dtype, float64 when some private row was missing
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"size": rng.integers(0, 4, 80), "x": rng.random(80)})
    neighbour = pd.concat([df, pd.DataFrame({"size": [np.nan], "x": [0.5]})],
                          ignore_index=True)
    assert df.dtypes["size"] != neighbour.dtypes["size"]
    make = lambda: MWEM(levels={"size": [0, 1, 2, 3]}, bounds=(0, 3))  # noqa: E731
    a, b = make().fit(df).sample(5), make().fit(neighbour).sample(5)
    assert a.dtypes["size"] == b.dtypes["size"] == np.dtype(np.int64)


def test_a_later_chunk_whose_dtype_follows_its_values_is_mapped_not_refused():
    # found while unifying the codecs: SmoothMWEM's chunk check compared dtype
    # names, so a chunk with one missing value (int64 -> float64) was refused
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"size": rng.integers(0, 4, 80), "x": rng.random(80)})
    chunk = df.iloc[:10].copy()
    chunk["size"] = chunk["size"].astype(float)
    chunk.loc[chunk.index[0], "size"] = np.nan
    est = MWEM(levels={"size": [0, 1, 2, 3]}, bounds=(0, 3)).partial_fit(df)
    est.partial_fit(chunk)
    assert est.release().sample(5)["size"].dtype == np.int64


@pytest.mark.parametrize("family", ["mwem", "aim"])
def test_a_stray_text_in_a_numeric_column_is_mapped_in_both_families(family):
    # found while unifying the codecs: SmoothMWEM refused the object column
    # ("not numeric") that one text entry makes of a numeric column, so the
    # refusal told that some private row held text; AIM already mapped it
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.uniform(0, 4, _N), "size": rng.integers(0, 4, _N)})
    for column in ("x", "size"):
        bad = df.copy()
        bad[column] = bad[column].astype(object)
        bad.loc[3, column] = "n/a"
        if family == "mwem":
            est = MWEM(levels={"size": int}, bounds=(0, 4), n_bins=4)
        else:
            est = AdaptiveMarginalSynthesizer(levels={"size": 4}, bounds={"x": (0, 4)},
                                              n_bins=4)
        out = est.fit(bad).sample(20)
        assert est.guarantee_.certified
        assert out.dtypes.to_dict() == est.fit(df).sample(20).dtypes.to_dict()


# ------------------------------------- the deliberately broken variants are caught
def _trust_input_dtypes(monkeypatch):
    """The broken rule behind the variants below: the input dtype taken as structure."""
    for module in (columns_module, tables_module):
        monkeypatch.setattr(module, "public_dtype", lambda dtype: dtype)


def test_a_codec_echoing_the_input_dtype_is_caught(monkeypatch):
    _trust_input_dtypes(monkeypatch)
    monkeypatch.setattr(columns_module, "public_output_dtype", lambda column: column.dtype)
    with pytest.raises(AssertionError):
        test_declared_levels_of_a_numpy_column_do_not_echo_a_missing_value()


def test_a_chunk_check_on_dtype_names_is_caught(monkeypatch):
    _trust_input_dtypes(monkeypatch)
    monkeypatch.setattr(columns_module, "structure_family", str)
    with pytest.raises(ValueError, match="differs from the first chunk"):
        test_a_later_chunk_whose_dtype_follows_its_values_is_mapped_not_refused()


def test_a_schema_refusing_object_columns_is_caught(monkeypatch):
    _trust_input_dtypes(monkeypatch)
    monkeypatch.setattr(tables_module, "_reads_as_numbers",
                        lambda dtype: dtype is None or columns_module.is_numeric_dtype(dtype))
    with pytest.raises(ValueError, match="not numeric"):
        test_a_stray_text_in_a_numeric_column_is_mapped_in_both_families("mwem")


@pytest.mark.parametrize("make", [
    lambda: AdaptiveMarginalSynthesizer(levels={"a": ["007", "7"]}).fit(
        pd.DataFrame({"a": ["007", "7"] * 20})),
    lambda: MWEM(bounds=(0, 1), classes=["1", "1.0"]).fit(
        np.random.default_rng(0).random((20, 2)), ["1", "1.0"] * 10),
    lambda: PrivateProperClassifier(classes=["01", "1"], bounds=(0, 1)).fit(
        np.random.default_rng(0).random((20, 2)), ["01", "1"] * 10),
])
def test_text_levels_that_are_the_same_number_are_refused(make):
    # numbers are matched by value: of '007' and '7' only the first could be taken, so
    # classes=['01', '1'] trained on one class silently (found by a review)
    with pytest.raises(ValueError, match="the same number"):
        make()


def test_resolve_labels_declared_refused_or_read_with_the_opt_in():
    labels, inferred, from_dtype = resolve_labels([0, 0], [1, 0], None)
    assert labels.tolist() == [0, 1] and not inferred and not from_dtype
    with pytest.raises(ValueError, match="classes=None.*classes=\\[0, 1\\].*classes='data'"):
        resolve_labels(["b", "a"], None, None)
    with pytest.warns(PrivacyLeakWarning, match="classes='data'"):
        labels, inferred, _ = resolve_labels(["b", "a"], "data", None)
    assert inferred and labels.tolist() == ["a", "b"]
    assert resolve_labels([0], [0], None)[0].tolist() == [0]  # a release's labels: any number
    with pytest.raises(ValueError, match="duplicate"):
        resolve_labels([0], [0, 0], None)
