"""AdaptiveMarginalSynthesizer under attack: what the release shows beyond its noisy tables.

Neighbouring tables differ by one row. A row with a missing value changes
how pandas stores its column (int64 -> float64, bool -> object); nothing the
release shows (synthetic dtypes, errors on a later chunk) may depend on that.
"""

import io
import warnings

import numpy as np
import pandas as pd
import pytest

import sksmooth.release._columns as columns
from sksmooth.accounting import BudgetAccountant
from sksmooth.exceptions import PrivacyLeakWarning, PrivacyWarning
from sksmooth.release import MWEM
from sksmooth.release._aim import AdaptiveMarginalSynthesizer

_PARAMS = dict(epsilon=1.0, levels={"size": 3, "flag": [False, True]},
               bounds={"age": (18, 90)}, n_bins=4)


def _table(n=200, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"size": rng.integers(0, 3, n), "flag": rng.random(n) < 0.4,
                         "age": rng.integers(18, 90, n)})


def _with_a_missing_row(df):
    """The neighbour: one more row, missing in every column (pandas upcasts the dtypes)."""
    return pd.concat([df, pd.DataFrame({c: [np.nan] for c in df.columns})], ignore_index=True)


def _synthetic_dtypes(df):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # declared levels and bounds: nothing read from the data
        synth = AdaptiveMarginalSynthesizer(**_PARAMS).fit(df)
    assert synth.guarantee_.certified
    return synth.sample(20).dtypes.to_dict()


def test_neighbour_with_a_missing_value_changes_the_input_dtypes():
    # the premise of the attack: the neighbour's dtypes differ from the table's
    df = _table()
    assert (df.dtypes != _with_a_missing_row(df).dtypes).all()


def test_synthetic_dtypes_do_not_reveal_a_missing_value():
    df = _table()
    assert _synthetic_dtypes(df) == _synthetic_dtypes(_with_a_missing_row(df))


def test_a_release_that_echoes_the_input_dtypes_is_caught(monkeypatch):
    # the deliberately broken variant: the fitted column's own dtype, kept and echoed
    monkeypatch.setattr(columns, "public_dtype", lambda dtype: dtype)
    monkeypatch.setattr(columns, "public_output_dtype", lambda column: column.dtype)
    df = _table()
    assert _synthetic_dtypes(df) != _synthetic_dtypes(_with_a_missing_row(df))


def test_only_a_categorical_dtype_is_kept():
    df = _table()
    df["code"] = pd.Categorical(df["size"].map({0: "a", 1: "b", 2: "c"}), categories=list("abcd"))
    df["age"] = df["age"].astype("Int64")  # convert_dtypes() picks Int64 by the values
    out = AdaptiveMarginalSynthesizer(**_PARAMS).fit(df).sample(50)
    assert out["size"].dtype == np.int64 and out["flag"].dtype == bool  # the levels' dtypes
    assert isinstance(out["code"].dtype, pd.CategoricalDtype)
    assert out["age"].dtype == float and out["age"].between(18, 90).all()
    # a numpy int column may be float64 because of a missing value: floats
    assert AdaptiveMarginalSynthesizer(**_PARAMS).fit(_table()).sample(5)["age"].dtype == float


def _loaded(df, loader):
    """``df`` as a user's loader gives it back: pandas picks the dtypes by the values."""
    if loader == "convert_dtypes":
        return df.convert_dtypes()
    if loader == "pyarrow":
        pytest.importorskip("pyarrow")
    return pd.read_csv(io.StringIO(df.to_csv(index=False)), dtype_backend=loader)


def _whole_and_one_fraction():
    df = _table()
    neighbour = df.astype({"age": float})
    neighbour.loc[5, "age"] = 41.5  # one record: Int64 -> Float64, int64[pyarrow] -> double
    return df, neighbour


_RELEASES = [lambda: AdaptiveMarginalSynthesizer(**_PARAMS),
             lambda: MWEM(epsilon=1.0, bounds=(0, 90),
                          levels={"size": [0, 1, 2], "flag": [False, True]})]


def _synthetic(make, frame):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # declared levels and bounds: nothing read from the data
        synth = make().fit(frame)
    assert synth.guarantee_.certified
    out = synth.sample(50, random_state=0)
    return out.dtypes.to_dict(), bool((out["age"] == np.round(out["age"])).all())


@pytest.mark.parametrize("make", _RELEASES)
@pytest.mark.parametrize("loader", ["convert_dtypes", "numpy_nullable", "pyarrow"])
def test_dtypes_pandas_picks_by_the_values_are_not_echoed(make, loader):
    # found by an attack review: pandas' nullable and Arrow dtypes were kept as
    # structure, but convert_dtypes() and read_csv(dtype_backend=...) pick them by the
    # values: whole ages gave Int64 and integer synthetic ages, one 41.5 Float64 and
    # fractions, both certified (and a later Float64 chunk was refused)
    df, neighbour = (_loaded(d, loader) for d in _whole_and_one_fraction())
    assert str(df["age"].dtype) != str(neighbour["age"].dtype)  # the premise
    assert _synthetic(make, df) == _synthetic(make, neighbour)
    if isinstance(make(), AdaptiveMarginalSynthesizer):
        synth = make().partial_fit(df.iloc[:150])
        synth.partial_fit(neighbour.iloc[150:])  # another dtype family: mapped, not refused
        assert synth.release().guarantee_.certified


def test_dtypes_picked_by_the_values_kept_as_structure_are_caught(monkeypatch):
    # the deliberately broken variant: the old rule (nullable numbers and booleans
    # are structure)
    monkeypatch.setattr(columns, "dtype_follows_values", lambda dtype: dtype is None or (
        getattr(dtype, "categories", None) is None and not (
            getattr(dtype, "kind", "O") in "iufb" and hasattr(dtype, "numpy_dtype"))))
    import pickle

    df, neighbour = (d.convert_dtypes() for d in _whole_and_one_fraction())
    # the codec a pickled release carries (what its synthetic dtypes are made from)
    codecs = [pickle.dumps(_RELEASES[0]().fit(frame)._codec) for frame in (df, neighbour)]
    assert codecs[0] != codecs[1]
    monkeypatch.undo()
    codecs = [pickle.dumps(_RELEASES[0]().fit(frame)._codec) for frame in (df, neighbour)]
    assert codecs[0] == codecs[1]


def test_a_boolean_column_needs_its_levels_declared():
    # convert_dtypes() makes a column of booleans 'boolean' and, with one text,
    # 'string': the dtype is not public, so [False, True] is never taken from it
    df = _table().convert_dtypes()
    params = dict(_PARAMS, levels={"size": 3})
    with pytest.raises(ValueError, match=r"'flag' has no public levels.*levels=\{'flag'"):
        AdaptiveMarginalSynthesizer(**params).fit(df)


@pytest.mark.parametrize("make_chunk", [_with_a_missing_row, lambda df: df.astype(object)])
def test_a_chunk_whose_dtypes_follow_its_values_is_mapped_not_refused(make_chunk):
    df = _table()
    synth = AdaptiveMarginalSynthesizer(**_PARAMS)
    synth.partial_fit(df.iloc[:100])
    synth.partial_fit(make_chunk(df.iloc[100:]))  # raised 'same schema' for the bool column
    out = synth.release().sample(10)
    assert out.dtypes.to_dict() == _synthetic_dtypes(df)


def test_a_chunk_whose_text_is_all_missing_is_mapped_not_refused():
    # pandas >= 3 stores text as 'str', and a column of missing values as float64
    df = _table().assign(city=lambda d: np.where(d["size"] == 0, "Oslo", "Lima"))
    params = dict(_PARAMS, levels={**_PARAMS["levels"], "city": ["Oslo", "Lima"]})
    synth = AdaptiveMarginalSynthesizer(**params)
    synth.partial_fit(df.iloc[:100])
    synth.partial_fit(df.iloc[100:].assign(city=np.nan))  # raised 'same schema'
    assert set(synth.release().sample(10)["city"]) <= {"Oslo", "Lima"}


def _with_a_text_entry(X, j, text="secret-Jane-Doe-1970"):
    X = X.copy()
    if hasattr(X, "columns"):
        X[X.columns[j]] = X[X.columns[j]].astype(object)
        X.iloc[3, j] = text
    else:
        X = X.astype(object)
        X[3, j] = text
    return X


@pytest.mark.parametrize("frame", [True, False])
def test_a_text_value_in_a_continuous_column_is_mapped_never_quoted(frame):
    # a stray string in a bounded column used to abort fit with
    # "could not convert string to float: '<the private value>'"
    df = _table()
    X = df if frame else df.to_numpy(dtype=float)
    params = _PARAMS if frame else dict(_PARAMS, levels={0: 3, 1: 2}, bounds={2: (18, 90)})
    bad = _with_a_text_entry(X, 2)
    synth = AdaptiveMarginalSynthesizer(**params).fit(bad)
    assert synth.guarantee_.certified and synth.model_.shape == (3, 2, 4)
    rows = (lambda T, s: T.iloc[s]) if frame else (lambda T, s: T[s])
    chunked = AdaptiveMarginalSynthesizer(**params).partial_fit(rows(X, slice(100, None)))
    chunked.partial_fit(rows(bad, slice(0, 100))).release()  # a later chunk carries the text


def test_nullable_missing_values_in_a_continuous_column_are_mapped():
    df = _table()
    df["age"] = df["age"].astype("Int64")
    df.loc[3, "age"] = pd.NA
    assert AdaptiveMarginalSynthesizer(**_PARAMS).fit(df).guarantee_.certified


def _resampled_rows(n, neighbouring, **kw):
    rng = np.random.default_rng(n)
    X, y = rng.integers(0, 3, size=(n, 2)), rng.integers(0, 2, n)
    synth = AdaptiveMarginalSynthesizer(epsilon=0.1, levels=3, classes=[0, 1],
                                        neighbouring=neighbouring, random_state=0, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded: reproducible noise, not certified
        X_syn, y_syn = synth.fit_resample(X, y)
    assert len(X_syn) == len(y_syn)
    return len(y_syn), synth


def test_fit_resample_row_count_is_the_released_count_not_the_private_one():
    # under add/remove the record count is private: rows of exactly len(X)
    # would tell neighbours n and n + 1 apart with certainty
    counts = [_resampled_rows(n, "add_remove") for n in (300, 301)]
    for n, (rows, synth) in zip((300, 301), counts):
        assert rows == max(int(round(synth.n_records_)), 1)
    assert [rows for rows, _ in counts] != [300, 301]
    # under substitution the count is public and released as is
    assert [_resampled_rows(n, "substitution")[0] for n in (300, 301)] == [300, 301]


def test_a_resample_of_the_private_row_count_is_caught(monkeypatch):
    # the deliberately broken variant: fit_resample draws len(y) rows again
    def leaky(self, X, y):
        return self.fit(X, y).sample(len(y))

    monkeypatch.setattr(AdaptiveMarginalSynthesizer, "fit_resample", leaky)
    with pytest.raises(AssertionError):
        test_fit_resample_row_count_is_the_released_count_not_the_private_one()


def test_an_ndarray_chunk_of_text_is_mapped_not_refused():
    # object/str arrays get their dtype from the values: a chunk holding text in
    # numeric-level columns maps it (code 0) instead of telling that it does
    X = np.random.default_rng(0).integers(0, 2, size=(50, 2))
    synth = AdaptiveMarginalSynthesizer(levels=[[0, 1], [0, 1]]).partial_fit(X)
    synth.partial_fit(np.array([["a", "b"]] * 5, dtype=object))
    assert synth.release().sample(5).shape == (5, 2)


# ------------------------- one row's value may not decide a refusal or a warning
# (found by an attack review; each neighbour pair differs by one row)
def _outcome(X, y=None, **params):
    """Refusal (type, message) or the warnings of a fit: all a user sees but the noise."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            AdaptiveMarginalSynthesizer(**params).fit(X, y)
    except (ArithmeticError, TypeError, ValueError) as exc:
        return type(exc).__name__, str(exc)
    return sorted({str(w.message) for w in caught})


def test_a_complex_entry_in_an_ndarray_is_mapped_not_refused():
    rows = [[0, 1], [2, 1], [1, 0]] * 20
    assert _outcome(np.array(rows), levels=3) == _outcome(np.array(rows + [[1 + 0j, 2]]), levels=3)


def test_a_value_beyond_the_float_range_warns_nothing():
    X = np.random.default_rng(0).random((100, 2)).astype(np.longdouble)
    Y = X.copy()
    Y[0, 0] = np.longdouble("1e4000")
    if not np.isinf(Y[0, 0].astype(float)):  # a platform whose long double is a double
        pytest.skip("np.longdouble has no range beyond float64 here")
    bounds = {0: (0, 1), 1: (0, 1)}
    assert _outcome(X, bounds=bounds) == _outcome(Y, bounds=bounds) == []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the grid estimators read it the same way
        MWEM(bounds=(0, 1)).fit(Y)


def test_a_signalling_decimal_nan_is_a_missing_value():
    from decimal import Decimal

    X = pd.DataFrame({"a": [Decimal("1"), Decimal("2")] * 30})
    Y = X.copy()
    Y.at[0, "a"] = Decimal("sNaN")
    levels = {"a": ["1", "2", "other"]}
    assert _outcome(X, levels=levels) == _outcome(Y, levels=levels) == []


def test_a_label_count_mismatch_does_not_print_the_record_count():
    # the record count is private under add/remove (AIM's default)
    X = np.random.default_rng(0).integers(0, 3, size=(1234, 2))
    outcome = _outcome(X, [0, 1], levels=3, classes=[0, 1])
    assert outcome[0] == "ValueError" and "1234" not in outcome[1]


@pytest.mark.parametrize("make, parameter", [
    (lambda **kw: AdaptiveMarginalSynthesizer(bounds={"x": (0, 1)}, **kw), "levels"),
    (lambda **kw: MWEM(bounds=(0, 1), **kw), "levels"),
])
def test_levels_taken_from_a_categorical_dtype_are_not_certified(make, parameter):
    # astype('category') reads the levels from the private column: one added row with
    # a new value changes the model's shape (found by an attack review). The code
    # cannot tell such a dtype from one declared publicly, so the release says so.
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"d": rng.choice(["flu", "cold"], 200), "x": rng.random(200)})
    neighbour = pd.concat([df, pd.DataFrame({"d": ["HIV"], "x": [0.5]})], ignore_index=True)
    for table in (df, neighbour):
        ledger = BudgetAccountant()
        synth = make(accountant=ledger).fit(table.astype({"d": "category"}))
        assert not synth.guarantee_.certified and ledger.spent_not_certified.epsilon > 0
        (note,) = synth.guarantee_.assumptions_not_certified
        assert "['d']" in note and f"{parameter}=" in note
    declared = {"d": ["cold", "flu", "HIV"]}
    synth = make(**{parameter: declared}).fit(neighbour.astype({"d": "category"}))
    assert synth.guarantee_.certified


@pytest.mark.parametrize("make", [
    lambda: AdaptiveMarginalSynthesizer(levels={"d": 3}),
    lambda: MWEM(bounds=(0, 2), levels={"d": int}),
])
def test_a_categorical_y_gives_its_categories_not_the_labels_seen(make):
    # classes=None read the label set from y even when y's dtype declares it: the
    # absence of 'unk' was released, with a PrivacyLeakWarning (found by a review)
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"d": rng.integers(0, 3, 200)})
    dtype = pd.CategoricalDtype(["neg", "pos", "unk"])
    y = pd.Series(rng.choice(["neg", "pos"], 200), name="lab").astype(dtype)
    X_more = pd.concat([X, pd.DataFrame({"d": [0]})], ignore_index=True)
    y_more = pd.concat([y, pd.Series(["unk"], name="lab").astype(dtype)], ignore_index=True)
    shapes = []
    for features, labels in ((X, y), (X_more, y_more)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            synth = make().fit(features, labels)
        # no PrivacyLeakWarning (nothing read from y); the dtype's levels: PrivacyWarning
        assert [w.category for w in caught] == [PrivacyWarning]
        shapes.append(synth.model_.shape if isinstance(synth, AdaptiveMarginalSynthesizer)
                      else synth.distribution_.shape)
        (note,) = synth.guarantee_.assumptions_not_certified
        assert "['y']" in note and "classes=" in note
    assert shapes[0] == shapes[1]


@pytest.mark.parametrize("make", [
    lambda **kw: AdaptiveMarginalSynthesizer(levels=3, **kw),
    lambda **kw: MWEM(bounds=(0, 2), **kw),
])
def test_a_boolean_y_is_read_as_a_numpy_bool_y_is(make):
    # 'boolean' is what convert_dtypes() picks for booleans (with one text: 'string'), so
    # its [False, True] is not public: without classes the fit is refused as for a numpy
    # bool y, and the labels are read only with the opt-in (warned, not certified); with
    # them the release is certified, its labels in the classes' dtype
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (60, 2))
    y = pd.Series(rng.random(60) < 0.2, dtype="boolean")
    with pytest.raises(ValueError, match="classes=None"):
        make().fit(X, y)
    with pytest.warns(PrivacyLeakWarning, match="classes='data'"):
        assert not make(classes="data").fit(X, y).guarantee_.certified
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        synth = make(classes=[False, True]).fit(X, y)
    assert synth.guarantee_.certified
    _, labels = synth.sample(300, random_state=0)  # the noise is fresh: labels may be one
    assert labels.dtype == bool and set(labels) <= {False, True}


@pytest.mark.parametrize("make", [
    lambda: AdaptiveMarginalSynthesizer(levels={"c": ["p", "q", "r"], "a": 3},
                                        classes=[0, 1, 2], random_state=0),
    lambda: MWEM(bounds=(0, 2), levels={"c": ["p", "q", "r"]}, classes=[0, 1, 2],
                 random_state=0),
])
def test_declared_levels_never_consult_a_categorical_dtypes_categories(make):
    """Attack found in review: astype('category') takes its categories from the rows, and
    declared levels or classes that the dtype could not hold were refused, so one row
    holding a rare value decided between a certified release and an error. Declared
    levels now make the outcome, the output dtypes and the guarantee independent of the
    categories; a value outside the declared levels takes the fixed code."""
    rng = np.random.default_rng(1)
    raw = pd.DataFrame({"c": rng.choice(["p", "q"], 80).astype(object),
                        "a": rng.integers(0, 3, 80)})
    y = pd.Series(rng.choice([0, 1], 80), name="t")
    rare, y_rare = raw.copy(), y.copy()
    rare.loc[0, "c"], y_rare[0] = "r", 2  # the neighbour: row 0 substituted
    outcomes = []
    for X, labels in ((raw, y), (rare, y_rare)):
        est = make()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)  # the seed only
            est.fit(X.astype({"c": "category"}), labels.astype("category"))
        Xs, ys = est.sample(20, random_state=0)
        outcomes.append((list(Xs["c"].cat.categories), list(ys.cat.categories),
                         est.guarantee_.assumptions_not_certified))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][:2] == (["p", "q", "r"], [0, 1, 2])


@pytest.mark.parametrize("make", [
    lambda: AdaptiveMarginalSynthesizer(levels=2, classes=["low", "mid", "high"]),
    lambda: MWEM(bounds=(0, 1), classes=["low", "mid", "high"]),
])
def test_declared_classes_keep_their_order_on_an_ordered_categorical_y(make):
    # the output Categorical was built from the sorted label set, ['high', 'low', 'mid'],
    # still ordered=True, so y_syn < 'mid' answered wrongly (found by a review)
    order = pd.CategoricalDtype(["low", "mid", "high"], ordered=True)
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (90, 2))
    y = pd.Series(rng.choice(["low", "mid", "high"], 90), name="grade").astype(order)
    _, y_syn = make().fit_resample(X, y)
    assert y_syn.dtype == order
    pd.testing.assert_series_equal(y_syn < "mid", y_syn.astype(str) == "low",
                                   check_names=False)


def test_a_synthetic_column_never_publishes_categories_beyond_the_declared_levels():
    # the output kept the input's Categorical dtype: with levels ['p', 'q'] declared, a
    # neighbour whose one row holds 'r' (astype('category')) came back with categories
    # ['p', 'q', 'r'] in a certified release
    X = pd.DataFrame({"c": ["p", "q"] * 20, "a": [0, 1, 2, 0] * 10})
    rare = X.copy()
    rare.loc[0, "c"] = "r"
    for table in (X, rare):
        est = AdaptiveMarginalSynthesizer(levels={"c": ["p", "q"], "a": 3})
        out = est.fit(table.astype({"c": "category"})).sample(5)
        assert list(out["c"].cat.categories) == ["p", "q"]
        assert est.guarantee_.certified


@pytest.mark.parametrize("make", [
    lambda: AdaptiveMarginalSynthesizer(levels=3, classes="data"),
    lambda: MWEM(bounds=(0, 2), classes="data"),
])
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_a_label_set_read_from_y_warns_at_the_users_line(make, method):
    X = np.random.default_rng(0).integers(0, 3, (60, 2))
    with pytest.warns(PrivacyLeakWarning) as caught:
        getattr(make(), method)(X, X[:, 0] % 2)
    assert {w.filename for w in caught if w.category is PrivacyLeakWarning} == {__file__}
