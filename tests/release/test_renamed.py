"""The release estimators' pre-1.0 parameter names: accepted one release, warned."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone

from sksmooth.exceptions import PrivacyLeakWarning, RemovalWarning
from sksmooth.release import (
    MWEM,
    LaplacePerQuery,
    ProjectedSmoothMWEM,
    QueryRounds,
    SmoothMWEM,
    SubsampledNetMechanism,
    TableRounds,
    Workload,
)

_BIN = dict(levels=2, bounds=(0, 1), random_state=0)


def _data():
    return (np.random.default_rng(0).random((200, 3)) < [0.2, 0.5, 0.8]).astype(float)


def _fit(estimator):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded: not certified
        return estimator.fit(_data())


def test_old_names_fold_into_the_parameter_objects_and_release_the_same():
    with pytest.warns(RemovalWarning, match=r"pass queries=Workload\(.*marginal_width=1.*"
                                            r"rounds=QueryRounds\(.*n_iter=4"):
        old = MWEM(marginal_width=1, measurement="query", n_iter=4, learning_rate="auto",
                   **_BIN)
    new = MWEM(queries=Workload(marginal_width=1), rounds=QueryRounds(n_iter=4), **_BIN)
    assert repr(old.get_params()) == repr(new.get_params())
    np.testing.assert_array_equal(_fit(old).distribution_, _fit(new).distribution_)
    assert old.measurement_ == "query" and old.n_iter_ == 4


def test_old_names_in_set_params_and_other_release_estimators():
    with pytest.warns(RemovalWarning, match=r"rounds=TableRounds\(n_iter=3\)"):
        est = MWEM(**_BIN).set_params(n_iter=3)
    assert est.rounds.get_params() == TableRounds(n_iter=3).get_params()
    with pytest.warns(RemovalWarning, match="n_queries"):
        net = SubsampledNetMechanism(n_queries=7)
    assert net.queries.n_queries == 7 and "n_queries" not in net.get_params(deep=False)
    with pytest.warns(RemovalWarning, match="marginal_width"):
        base = LaplacePerQuery(queries="ranges").set_params(marginal_width=1)
    assert base.queries.get_params() == Workload(kind="ranges", marginal_width=1).get_params()



def test_removed_level_names_set_one_at_a_time_combine():
    X = np.c_[np.arange(30) % 3, np.linspace(0, 1, 30)]
    with pytest.warns(RemovalWarning):
        est = SmoothMWEM(sigma=0.1, bounds=(0, 2), random_state=0).set_params(
            categorical_features=[0])
        est.set_params(categories={0: [0, 1, 2]})
        together = SmoothMWEM(categorical_features=[0], categories={0: [0, 1, 2]})
    assert repr(est.levels) == repr(together.levels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # seeded
        assert est.fit(X).n_features_in_ == 2

def test_the_variant_switches_are_now_classes():
    with pytest.warns(RemovalWarning, match=r"use MWEM\(\.\.\.\)"):
        plain = SmoothMWEM(**_BIN)
    assert type(plain) is MWEM
    with pytest.warns(RemovalWarning) as record:  # said "SmoothMWEM(sigma=None)", unwritten
        SmoothMWEM(epsilon=1.0)
    assert str(record[0].message).startswith("SmoothMWEM() ") and "sigma=..." in str(
        record[0].message)
    with pytest.warns(RemovalWarning, match=r"use ProjectedSmoothMWEM"):
        projected = SmoothMWEM(sigma=0.5, projection=True, n_bins=4, bounds=(0, 1))
    assert type(projected) is ProjectedSmoothMWEM and projected.sigma == 0.5
    assert "projection" not in projected.get_params()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # neither a clone nor a pickle goes through the shim
        smooth = SmoothMWEM(sigma=0.5, n_bins=4, bounds=(0, 1))
        assert type(clone(smooth)) is SmoothMWEM
        assert type(pickle.loads(pickle.dumps(smooth))) is SmoothMWEM
        assert type(clone(projected)) is ProjectedSmoothMWEM


def test_an_unknown_keyword_is_refused_at_fit_naming_it():
    est = MWEM(itérations=3, **_BIN)  # __init__ never raises (scikit-learn's rule)
    with pytest.raises(TypeError, match="unexpected keyword argument 'itérations'"):
        est.fit(_data())
    with pytest.raises(TypeError, match="unexpected keyword argument 'n_iter'"):
        LaplacePerQuery(n_iter=3).fit(_data())  # a rounds parameter of MWEM only


def test_n_universe_becomes_the_size_of_a_sampled_universe():
    with pytest.warns(RemovalWarning, match="universe=150"):
        old = MWEM(universe="sample", n_universe=150, bounds=(0, 1), random_state=0)
    assert old.universe == 150 and "n_universe" not in old.get_params()
    X = np.random.default_rng(0).uniform(size=(40, 2))
    with pytest.warns(PrivacyLeakWarning):
        assert old.fit(X).distribution_.shape == (150,)
    grid = MWEM(bounds=(0, 1))
    with pytest.warns(RemovalWarning):
        grid.set_params(n_universe=99)  # a grid ignores it, as before
    assert grid.universe == "grid"
