"""One table schema across the release estimators (release/_schema.py): ``levels``,
``bounds`` and ``n_bins`` read alike, and integer columns coming back as integers."""

import warnings

import numpy as np
import pandas as pd
import pytest

from sksmooth.release import (
    AdaptiveMarginalSynthesizer,
    GaussianPerQuery,
    LaplacePerQuery,
    MWEM,
    ProjectedSmoothMWEM,
    SmoothMWEM,
    SubsampledNetMechanism,
)

GRID_FAMILY = [MWEM, SubsampledNetMechanism, LaplacePerQuery, GaussianPerQuery]


def _table(n=200, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.uniform(20, 60, n), "kind": rng.integers(0, 3, n),
                         "score": rng.uniform(0, 1, n)})


def _fit(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded: not certified
        return est.fit(X)


@pytest.mark.parametrize("cls", GRID_FAMILY)
def test_grid_family_takes_bounds_per_column_as_the_pair_it_means(cls):
    X = _table()
    common = dict(levels={"kind": [0, 1, 2]}, random_state=0)
    by_name = _fit(cls(bounds={"age": (20, 60), "score": (0, 1)}, **common), X)
    as_pair = _fit(cls(bounds=([20, 0, 0], [60, 2, 1]), **common), X)
    by_index = _fit(cls(bounds={0: (20, 60), 2: (0, 1)}, levels={1: 3}, random_state=0),
                    X.to_numpy())
    np.testing.assert_array_equal(_released(by_name), _released(as_pair))
    np.testing.assert_array_equal(_released(by_index), _released(as_pair))


def _released(est):
    if hasattr(est, "answers_"):
        return est.answers_
    return np.asarray(est.sample(30, random_state=1), dtype=float)


def test_a_column_without_range_or_levels_is_named():
    with pytest.raises(ValueError, match="no range for column 'score'"):
        _fit(MWEM(bounds={"age": (20, 60)}, levels={"kind": 3}), _table())


@pytest.mark.parametrize("bounds", [{"age": (60, 20)}, {"age": (0, np.inf)}, {"age": "0-1"}])
def test_a_bad_range_is_refused_before_the_data(bounds):
    with pytest.raises(ValueError, match=r"bounds\['age'\]"):
        MWEM(bounds=bounds).fit(_table())


def test_adaptive_marginal_synthesizer_takes_a_pair_for_its_columns_without_levels():
    X = _table()[["age", "kind"]]
    kw = dict(levels={"kind": 3}, random_state=0, method="mst")
    as_pair = _fit(AdaptiveMarginalSynthesizer(bounds=(20, 60), **kw), X)
    by_name = _fit(AdaptiveMarginalSynthesizer(bounds={"age": (20, 60)}, **kw), X)
    np.testing.assert_array_equal(as_pair.sample(50, random_state=1),
                                  by_name.sample(50, random_state=1))
    with pytest.raises(ValueError, match="empty range"):
        _fit(AdaptiveMarginalSynthesizer(bounds=(20, 20), **kw), X)


def _integer_table(n=300, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(17, 91, n), "kind": rng.integers(0, 3, n),
                         "score": rng.uniform(0, 1, n)})


_INTEGER_SCHEMA = dict(levels={"age": int, "kind": 3}, bounds={"age": (17, 90), "score": (0, 1)})
# one per synthesizer family (the per-query baselines release answers, not rows)
_INTEGER_SYNTHESIZERS = [
    lambda: AdaptiveMarginalSynthesizer(method="mst", **_INTEGER_SCHEMA),
    lambda: AdaptiveMarginalSynthesizer(method="aim", **_INTEGER_SCHEMA),
    lambda: MWEM(**_INTEGER_SCHEMA),
    lambda: SmoothMWEM(sigma=0.5, n_bins=8, **_INTEGER_SCHEMA),
    lambda: ProjectedSmoothMWEM(sigma=0.5, n_bins=8, **_INTEGER_SCHEMA),
    lambda: SubsampledNetMechanism(**_INTEGER_SCHEMA),
]


@pytest.mark.parametrize("make", _INTEGER_SYNTHESIZERS)
def test_columns_declared_integer_come_back_as_integers(make):
    # issue 36: the synthesizers returned float64 for integer input columns
    df = _integer_table()
    out = make().fit(df).sample(200)
    assert out.dtypes.to_dict() == {"age": np.dtype(np.int64), "kind": np.dtype(np.int64),
                                    "score": np.dtype(float)}
    assert out["age"].between(17, 90).all() and set(out["kind"]) <= {0, 1, 2}
    # the input dtype is not what decides: it follows the values (a missing age: float64)
    neighbour = df.astype({"age": float})
    neighbour.loc[0, "age"] = np.nan
    assert make().fit(neighbour).sample(5).dtypes.to_dict() == out.dtypes.to_dict()
    # an undeclared integer column is continuous: floats, whatever its input dtype
    plain = AdaptiveMarginalSynthesizer(levels={"kind": 3}, method="mst",
                                        bounds={"age": (17, 90), "score": (0, 1)})
    assert plain.fit(df).sample(5)["age"].dtype == np.dtype(float)


@pytest.mark.parametrize("make", _INTEGER_SYNTHESIZERS)
def test_declared_integers_come_back_as_integers_from_streams_and_arrays(make):
    df = _integer_table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stream = make()
        for chunk in (df.iloc[:150], df.iloc[150:]):
            stream.partial_fit(chunk)
        rows = getattr(stream, "release", lambda: stream)().sample(100)
        # an ndarray holds one dtype: a declared-integer column holds whole numbers
        array = make().set_params(levels={0: int, 1: 3}, bounds=((17, 0, 0), (90, 2, 1)))
        values = array.fit(df.to_numpy(dtype=float)).sample(100)
    assert rows.dtypes["age"] == rows.dtypes["kind"] == np.dtype(np.int64)
    assert np.array_equal(values[:, :2], np.rint(values[:, :2]))


def test_integer_levels_need_a_range_holding_an_integer():
    df = _integer_table()[["age"]]
    with pytest.raises(ValueError, match=r"integers between its bounds.*bounds=\{'age'"):
        AdaptiveMarginalSynthesizer(levels={"age": int}).fit(df)
    with pytest.raises(ValueError, match="hold no integer"):
        AdaptiveMarginalSynthesizer(levels=int, bounds=(0.2, 0.8)).fit(df)
    with pytest.raises(TypeError, match=r"levels must be .*a dict \{column: levels\}"):
        AdaptiveMarginalSynthesizer(levels={"age": "int"}).fit(df)
