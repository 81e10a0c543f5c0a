"""One reading of ``bounds`` across the release estimators (release/_schema.py)."""

import warnings

import numpy as np
import pandas as pd
import pytest

from sksmooth.release import (
    AdaptiveMarginalSynthesizer,
    GaussianPerQuery,
    LaplacePerQuery,
    SmoothMWEM,
    SubsampledNetMechanism,
)
from sksmooth.release._schema import bounds_by_column

GRID_FAMILY = [SmoothMWEM, SubsampledNetMechanism, LaplacePerQuery, GaussianPerQuery]


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
    common = dict(categorical_features=["kind"], categories={"kind": [0, 1, 2]},
                  random_state=0)
    by_name = _fit(cls(bounds={"age": (20, 60), "score": (0, 1)}, **common), X)
    as_pair = _fit(cls(bounds=([20, 0, 0], [60, 2, 1]), **common), X)
    by_index = _fit(cls(bounds={0: (20, 60), 2: (0, 1)}, categorical_features=[1],
                        categories={1: [0, 1, 2]}, random_state=0), X.to_numpy())
    np.testing.assert_array_equal(_released(by_name), _released(as_pair))
    np.testing.assert_array_equal(_released(by_index), _released(as_pair))


def _released(est):
    if hasattr(est, "answers_"):
        return est.answers_
    return np.asarray(est.sample(30, random_state=1), dtype=float)


def test_a_column_without_range_or_levels_is_named():
    with pytest.raises(ValueError, match="no range for column 'score'"):
        _fit(SmoothMWEM(bounds={"age": (20, 60)}, categorical_features=["kind"],
                        categories={"kind": [0, 1, 2]}), _table())


@pytest.mark.parametrize("bounds", [{"age": (60, 20)}, {"age": (0, np.inf)}, {"age": "0-1"}])
def test_a_bad_range_is_refused_before_the_data(bounds):
    with pytest.raises(ValueError, match=r"bounds\['age'\]"):
        SmoothMWEM(bounds=bounds).fit(_table())


def test_adaptive_marginal_synthesizer_takes_a_pair_for_its_columns_without_levels():
    X = _table()[["age", "kind"]]
    kw = dict(levels={"kind": 3}, random_state=0, method="mst")
    as_pair = _fit(AdaptiveMarginalSynthesizer(bounds=(20, 60), **kw), X)
    by_name = _fit(AdaptiveMarginalSynthesizer(bounds={"age": (20, 60)}, **kw), X)
    np.testing.assert_array_equal(as_pair.sample(50, random_state=1),
                                  by_name.sample(50, random_state=1))
    with pytest.raises(ValueError, match="empty range"):
        _fit(AdaptiveMarginalSynthesizer(bounds=(20, 20), **kw), X)


def test_bounds_by_column_reads_every_form():
    assert bounds_by_column(None, 2, None) == [None, None]
    assert bounds_by_column((0, 1), 2, None) == [(0.0, 1.0), (0.0, 1.0)]
    assert bounds_by_column({"b": (2, 3)}, 2, ["a", "b"]) == [None, (2.0, 3.0)]
