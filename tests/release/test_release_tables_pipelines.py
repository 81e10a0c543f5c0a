"""Tables in, tables out; pipeline safety; the model protocol (SPEC §7)."""

import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from sksmooth.exceptions import PrivacyLeakWarning
from sksmooth.release import (
    AdaptiveMarginalSynthesizer,
    GaussianPerQuery,
    LaplacePerQuery,
    MWEM,
    SmoothMWEM,
    SubsampledNetMechanism,
    SyntheticSampler,
    TableRounds,
    Workload,
)
from sksmooth.release._dense_model import DenseModel
from sksmooth.release._model import ReleaseModel

pd = pytest.importorskip("pandas")


def _frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.uniform(18, 90, n),
        "visits": rng.integers(0, 10, n).astype(np.int64),
        "smoker": pd.array(rng.random(n) < 0.3, dtype="boolean"),  # levels declared below
        "city": rng.choice(["paris", "lyon", "nice"], n),
        "grade": pd.Categorical(rng.choice(["a", "b", "c"], n), categories=["a", "b", "c"]),
    })


_FRAME_PARAMS = dict(
    levels={"smoker": [False, True], "city": ["lyon", "nice", "paris"]},  # grade: its dtype
    # 'boolean' is what convert_dtypes() picks for booleans (with one text: 'string'),
    # so it is not public: the levels are declared
    bounds=([18, 0, 0, 0, 0], [90, 9, 1, 1, 1]),
    n_bins=4,
)
_FRAME_ESTIMATORS = [
    lambda: MWEM(**_FRAME_PARAMS),
    lambda: SubsampledNetMechanism(n_universe=60, n_candidates=100, synthetic_size=10,
                                   **_FRAME_PARAMS, queries=Workload(n_queries=30)),
]


@pytest.mark.parametrize("make", _FRAME_ESTIMATORS)
def test_synthetic_dtypes_do_not_reveal_a_missing_value(make):
    # a neighbour with one missing value in an int64 column arrives as float64
    # (pandas' inference); the synthetic dtypes echoed it in a certified release
    df = _frame()
    neighbour = df.copy()
    neighbour["visits"] = neighbour["visits"].astype(float)
    neighbour.loc[0, "visits"] = np.nan
    assert neighbour.dtypes["visits"] != df.dtypes["visits"]
    a, b = make().fit(df).sample(5), make().fit(neighbour).sample(5)
    assert (a.dtypes == b.dtypes).all(), (a.dtypes, b.dtypes)


@pytest.mark.parametrize("make", _FRAME_ESTIMATORS)
def test_dataframe_round_trip_every_dtype(make):
    df = _frame()
    est = make().fit(df)
    out = est.sample(50)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == list(df.columns)
    # dtypes from public inputs: the continuous int column comes out float64, the
    # boolean one in its declared levels' dtype
    expected = df.dtypes.copy()
    expected["visits"] = np.dtype(float)
    expected["smoker"] = np.dtype(bool)
    assert (out.dtypes == expected).all(), (out.dtypes, expected)
    assert set(out["city"]) <= {"lyon", "nice", "paris"}
    assert set(out["grade"].cat.categories) == {"a", "b", "c"}
    assert out["age"].between(18, 90).all()
    if est._universe.kind == "grid":  # continuous values drawn inside their bin, not at centres
        assert out["age"].nunique() > 4
    else:  # a sampled universe (SubsampledNet's default): rows are its continuous points
        assert set(out["age"]) <= set(est._universe.points()[0][:, 0])
    np.testing.assert_array_equal(est.get_feature_names_out(), df.columns.astype(str))
    assert isinstance(est.transform(df.iloc[:7]), pd.DataFrame)
    # ndarray in -> ndarray out
    arr = make().set_params(levels=None, bounds=(0, 1)).fit(
        np.random.default_rng(0).random((80, 2)))
    assert isinstance(arr.sample(3), np.ndarray)


def test_levels_are_public_never_read_from_data():
    df = _frame()
    # a text column without declared levels is read as numbers (its texts mapped
    # like missing values), never refused: its 'str' dtype follows the values (one
    # number among the texts makes it object), so a refusal would depend on a row
    for levels in ({"city": int}, None):
        out = MWEM(levels=levels, bounds=(0, 100)).fit(
            df[["city", "age"]]).sample(50)
        assert out["city"].dtype.kind in "if" and not set(out["city"]) & set(df["city"])
    # a value outside the declared levels is mapped to the first level, never refused
    # and never echoed
    est = MWEM(levels={"city": ["lyon", "paris"]}, bounds=([0, 18], [1, 90])).fit(
        df[["city", "age"]])
    assert set(est.sample(200)["city"]) <= {"lyon", "paris"}


@pytest.mark.parametrize("make", [
    lambda: AdaptiveMarginalSynthesizer(bounds={0: (0, 1), 1: (0, 1)}),
    lambda: MWEM(bounds=(0, 1)),
])
def test_duplicate_column_names_are_refused_naming_them(make):
    # AIM emitted the last column twice (its first column lost); SmoothMWEM's refusal
    # did not say why (found by a review). Column names are public.
    X = pd.DataFrame(np.random.default_rng(0).random((50, 2)), columns=["a", "a"])
    with pytest.raises(ValueError, match=r"duplicate column names \['a'\]"):
        make().fit(X)


@pytest.mark.parametrize("make", [
    lambda: AdaptiveMarginalSynthesizer(levels={"m": [1, "a"], "k": 2}),
    lambda: MWEM(levels={"m": [1, "a"], "k": int}, bounds=(0, 1)),
])
def test_declared_levels_of_mixed_types_keep_their_types(make):
    # numpy turned [1, "a"] into text: the level 1 came back as "1" (found by a review)
    X = pd.DataFrame({"m": pd.Series([1, "a"] * 50, dtype=object), "k": [0, 1] * 50})
    out = make().fit(X).sample(40, random_state=0)["m"]
    assert set(out) == {1, "a"}
    with pytest.raises(TypeError, match="is a set"):
        AdaptiveMarginalSynthesizer(levels={"m": {1, "a"}, "k": 2}).fit(X)


@pytest.mark.parametrize("column, declared", [
    (pd.array([0, 1, 2] * 40, dtype="Int64"), ["a", "b"]),
    (pd.array([0, 1, 2] * 40, dtype="Int64"), [0.5, 1.5]),
    (pd.array([True, False, True] * 40, dtype="boolean"), ["no", "yes"]),
])
@pytest.mark.parametrize("estimator", ["aim", "mwem"])
def test_declared_levels_win_over_a_dtype_picked_by_the_values(column, declared, estimator):
    # a nullable dtype is what convert_dtypes() picks by the values, so it never refuses
    # declared levels (a refusal would depend on the rows): values outside the levels
    # take level 0, and the synthetic column holds the declared levels
    X = pd.DataFrame({"c": column, "k": [0, 1, 0] * 40})
    make = {"aim": lambda: AdaptiveMarginalSynthesizer(levels={"c": declared, "k": 2}),
            "mwem": lambda: MWEM(levels={"c": declared, "k": int},
                                 bounds=(0, 1))}[estimator]
    synth = make().fit(X)
    assert synth.guarantee_.certified
    assert set(synth.sample(30, random_state=0)["c"]) <= set(declared)


@pytest.mark.parametrize("estimator", ["aim", "mwem"])
def test_declared_levels_beyond_a_categoricals_categories_come_out_as_declared(estimator):
    # a Categorical's categories may come from the rows, so they never refuse declared
    # levels (see the attacks tests); the synthetic column holds declared levels, no NaN
    X = pd.DataFrame({"c": pd.Categorical(["x", "y", "x"] * 40), "k": [0, 1, 0] * 40})
    make = {"aim": lambda: AdaptiveMarginalSynthesizer(levels={"c": [0, 1, 2], "k": 2}),
            "mwem": lambda: MWEM(levels={"c": [0, 1, 2], "k": int},
                                 bounds=(0, 1))}[estimator]
    out = make().fit(X).sample(30, random_state=0)["c"]
    assert list(out.cat.categories) == [0, 1, 2] and not out.isna().any()


def test_a_missing_value_declared_as_a_level_of_a_categorical_column_works():
    # pandas' raw "Categorical categories cannot be null" came out of the codec (found by
    # a review); such a column comes out as the same levels on an object column do
    X = pd.DataFrame({"c": pd.Series(["p", "q"] * 20, dtype=object), "a": [0, 1] * 20})
    outs = [AdaptiveMarginalSynthesizer(levels={"c": ["p", None], "a": 2}, random_state=0)
            .fit(table).sample(8, random_state=0)
            for table in (X, X.astype({"c": "category"}))]
    pd.testing.assert_frame_equal(outs[0], outs[1])


def test_levels_from_the_dtypes_only_the_categorical():
    # 'boolean' is picked by the values, so it is binned as a number
    df = _frame()[["age", "smoker", "grade"]]
    bounds = ([18, 0, 0], [90, 1, 2])
    est = MWEM(bounds=bounds, n_bins=4).fit(df)
    assert est._universe.shape[:3] == (4, 4, 3)


def test_y_series_round_trip_and_fit_resample():
    df = _frame()
    y = pd.Series(np.where(df["smoker"], "yes", "no"), name="target")
    est = MWEM(classes=["no", "yes"], **_FRAME_PARAMS)
    Xs, ys = est.fit_resample(df, y)
    assert isinstance(Xs, pd.DataFrame) and isinstance(ys, pd.Series)
    assert ys.name == "target" and len(Xs) == len(df) and set(ys) <= {"no", "yes"}



@pytest.mark.parametrize("make", [
    lambda **kw: MWEM(**_FRAME_PARAMS, **kw),
    lambda **kw: AdaptiveMarginalSynthesizer(levels={"city": ["lyon", "nice", "paris"],
                                                     "smoker": [False, True]},
                                             bounds={"age": (18, 90), "visits": (0, 9)}, **kw),
])
@pytest.mark.parametrize("y_dtype, classes, expected", [
    (pd.CategoricalDtype(["no", "yes", "unsure"]), None, pd.CategoricalDtype(["no", "yes",
                                                                              "unsure"])),
    ("boolean", [False, True], np.dtype(bool)),
    ("Int64", [0, 1], np.dtype(np.int64)),
])
def test_synthetic_y_keeps_a_public_label_dtype(make, y_dtype, classes, expected):
    # a Categorical y came back as plain strings: its dtype is public structure (asked
    # for by name, whatever the values), as for X's columns; a nullable dtype is
    # picked by the values (convert_dtypes()), so the labels come in the classes' dtype
    df = _frame()
    smoker = df["smoker"].to_numpy(dtype=bool)
    values = {"boolean": smoker, "Int64": smoker.astype(int)}.get(
        y_dtype, np.where(smoker, "yes", "no"))
    y = pd.Series(values, name="target").astype(y_dtype)
    _, ys = make(classes=classes).fit_resample(df, y)
    assert ys.name == "target" and ys.dtype == expected, (ys.dtype, expected)
    # ndarray y -> ndarray labels
    _, ys = make(classes=[0, 1]).fit_resample(df, smoker.astype(int))
    assert isinstance(ys, np.ndarray)

def test_set_output_does_not_raise_oddly():
    df = _frame()[["age", "visits"]]
    est = MWEM(bounds=([18, 0], [90, 9]), n_bins=4).set_output(transform="pandas")
    out = est.fit_transform(df)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["age", "visits"]


def test_pandas_output_of_synthetic_rows_never_takes_the_real_rows_index():
    # a release fitted on an ndarray, set_output(transform='pandas'), gave its synthetic
    # rows the index of the DataFrame passed to transform: a later join with the real y
    # would pair synthetic X with real labels (found by a review)
    df = _frame()[["age", "visits"]]
    df.index = [f"patient_{i}" for i in range(len(df))]
    est = MWEM(bounds=([18, 0], [90, 9]), n_bins=4).set_output(transform="pandas")
    for out in (est.fit(df.to_numpy()).transform(df), est.fit_transform(df)):
        assert isinstance(out, pd.DataFrame) and len(out) == len(df)
        assert list(out.index) == list(range(len(df)))


# ------------------------------------------------------------------ pipelines
def _supervised(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 4)).astype(float)
    y = (X[:, 0] + X[:, 1] >= 1).astype(int)
    return X, y


_BIN = dict(levels={0: int, 1: int, 2: int, 3: int}, bounds=(0, 1), classes=[0, 1])


def test_supervised_sklearn_pipeline_misuse_raises():
    X, y = _supervised()
    pipe = make_pipeline(MWEM(**_BIN), LogisticRegression())
    with pytest.raises(ValueError, match="fit_resample"):
        pipe.fit(X, y)
    ct = ColumnTransformer([("release", MWEM(**_BIN), [0, 1, 2, 3])])
    with pytest.raises(ValueError, match="fit_resample"):
        ct.fit_transform(X, y)
    with pytest.raises(ValueError, match="fit_resample"):
        MWEM(**_BIN).fit_transform(X, y)


def test_unsupervised_pipeline_emits_synthetic_rows():
    X, _ = _supervised()
    pipe = Pipeline([("release", MWEM(levels=int, bounds=(0, 1))),
                     ("scale", StandardScaler())])
    assert pipe.fit_transform(X).shape == X.shape


def test_imblearn_pipeline_trains_on_synthetic_pairs():
    imblearn_pipeline = pytest.importorskip("imblearn.pipeline")
    X, y = _supervised(n=2000)
    with pytest.raises((TypeError, ValueError)):  # imblearn refuses transform + fit_resample
        imblearn_pipeline.Pipeline([("release", MWEM(**_BIN)),
                                    ("clf", LogisticRegression())]).fit(X, y)
    pipe = imblearn_pipeline.Pipeline([("release", MWEM(epsilon=2.0, **_BIN).as_sampler()),
                                       ("clf", LogisticRegression())])
    pipe.fit(X, y)
    assert pipe.predict(X).shape == y.shape
    # y is the OR of two attributes: synthetic (X, y) drawn together keep it learnable
    assert pipe.score(X, y) > 0.85
    assert isinstance(pipe.named_steps["release"], SyntheticSampler)
    assert pipe.named_steps["release"].estimator_.guarantee_.certified
    assert not hasattr(pipe.named_steps["release"], "transform")


# ------------------------------------------------------------- model protocol
def test_dense_model_implements_the_protocol():
    rng = np.random.default_rng(0)
    shape = (2, 3, 4)
    p = rng.random(shape)
    p /= p.sum()
    model = DenseModel.from_probabilities(p, shape)
    assert isinstance(model, ReleaseModel) and model.size == 24
    np.testing.assert_allclose(model.marginal((0, 2)), p.sum(axis=1))
    factor = rng.normal(size=(2, 4))
    new = model.multiply((0, 2), factor)
    expected = p * np.exp(factor)[:, None, :]
    np.testing.assert_allclose(new.marginal((0, 1, 2)), expected / expected.sum())
    codes = new.sample(20000, rng)
    freq = np.bincount(np.ravel_multi_index(codes.T, shape), minlength=24) / 20000
    assert np.abs(freq - new.probabilities).max() < 0.02


# ------------------------------------------------------------ parameter caps
@pytest.mark.parametrize("make, name", [
    (lambda: MWEM(rounds=TableRounds(n_passes=10**12)), "n_passes"),
    (lambda: MWEM(rounds=TableRounds(n_iter=10**12)), "n_iter"),
    (lambda: MWEM(queries=Workload(n_queries=10**12)), "n_queries"),
    (lambda: SubsampledNetMechanism(synthetic_size=10**12), "synthetic_size"),
    (lambda: SubsampledNetMechanism(n_candidates=10**12), "n_candidates"),
    (lambda: LaplacePerQuery(queries=Workload(n_queries=10**12)), "n_queries"),
    (lambda: GaussianPerQuery(queries=Workload(marginal_width=10**12)), "marginal_width"),
    (lambda: MWEM(epsilon=np.array([1.0])), "epsilon"),
    (lambda: SmoothMWEM(sigma=float("nan")), "sigma"),
])
def test_resource_caps_refuse_before_data(make, name):
    X = np.zeros((5, 2))
    with pytest.raises((TypeError, ValueError), match=name):
        make().set_params(bounds=(0, 1)).fit(X)


def test_constructor_is_keyword_only():
    for cls in (MWEM, SubsampledNetMechanism, LaplacePerQuery, GaussianPerQuery):
        with pytest.raises(TypeError):
            cls(1.0)


def test_clone_keeps_parameters():
    est = MWEM(epsilon=0.5, **_BIN)
    assert clone(est).get_params() == est.get_params()


def test_per_query_baselines_do_not_build_a_grid():
    # 30 ten-level attributes: the grid would have 1e30 points; the 1- and 2-way
    # marginals are 30 tables of 10 cells and 435 of 100, counted straight from the rows
    rng = np.random.default_rng(0)
    X = rng.integers(0, 10, size=(200, 30)).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)  # nothing data-dependent
        est = LaplacePerQuery(sensitivity="structured", levels=int,
                              bounds=(0, 9)).fit(X)
    assert est.n_queries_ == 30 * 10 + 435 * 100
    # (SmoothMWEM keeps such a grid factored: tests/release/test_release_factored_mwem.py)


def test_the_fix_an_error_suggests_for_an_integer_labelled_column_works():
    # the message said levels={10: [...]}, which is then refused (an integer key is a
    # position, as in scikit-learn): found by a new-user review
    rng = np.random.default_rng(0)
    X = pd.DataFrame({10: pd.Series(rng.choice(["u", "v"], 30), dtype=object),
                      "b": rng.integers(0, 5, 30)})
    with pytest.raises(ValueError, match=r"column 0 has no public levels: declare them with "
                       r"levels=\{0: \[\.\.\.\]\}.* bounds=\{0: \(lower, upper\)\}"):
        AdaptiveMarginalSynthesizer(levels={"b": 5}).fit(X)
    AdaptiveMarginalSynthesizer(levels={"b": 5, 0: ["u", "v"]}).fit(X)
    # when the position is another column's label no key names the column: rename first
    X = X.set_axis([5, 0], axis=1)
    with pytest.raises(ValueError, match=r"levels=\{'5': \[\.\.\.\]\}.*first give the "
                       r"columns string labels"):
        AdaptiveMarginalSynthesizer(levels=[None, 5]).fit(X)
    X.columns = X.columns.astype(str)
    AdaptiveMarginalSynthesizer(levels={"0": 5, "5": ["u", "v"]}).fit(X)


@pytest.mark.parametrize("missing", [None, np.nan, np.float32("nan"), pd.NA, pd.NaT])
@pytest.mark.parametrize("make", [
    lambda missing: AdaptiveMarginalSynthesizer(levels=2, classes=["a", missing]),
    lambda missing: MWEM(bounds=(0, 1), classes=["a", missing])])
def test_a_missing_value_among_declared_classes_is_refused_naming_it(make, missing):
    # numpy's raw "'<' not supported between 'NoneType' and 'str'" came out (found by a
    # review); a parameter error, before any data is read
    X = np.zeros((10, 2), dtype=int)
    with pytest.raises(ValueError, match=r"classes must not contain a missing value"):
        make(missing).fit(X, np.array(["a"] * 10, dtype=object))


def test_set_output_follows_clone_the_global_config_and_refuses_unknown_containers():
    # the release wraps its own rows (scikit-learn's wrapper would take X's index)
    df = _frame()[["age", "visits"]]
    est = MWEM(bounds=([18, 0], [90, 9]), n_bins=4).set_output(transform="pandas")
    assert isinstance(clone(est).fit_transform(df.to_numpy()), pd.DataFrame)
    with sklearn.config_context(transform_output="pandas"):
        assert isinstance(MWEM(bounds=([18, 0], [90, 9]), n_bins=4).fit_transform(df),
                          pd.DataFrame)
        chosen = MWEM(bounds=([18, 0], [90, 9]), n_bins=4).set_output(transform="default")
        assert isinstance(chosen.fit_transform(df.to_numpy()), np.ndarray)
    with pytest.raises(ValueError, match="transform must be 'default', 'pandas' or None"):
        MWEM().set_output(transform="polars")
