"""sksmooth estimators the way users use them (SPEC §9): pipelines, grid
search over privacy parameters with one shared ledger, cross-validation,
clone, joblib persistence and joblib backends."""

import warnings

import joblib
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline

from sksmooth import MWEM, BudgetAccountant, BudgetError, PrivacyWarning
from sksmooth.release import Workload
from sksmooth.datasets import load_breast_cancer_public
from sksmooth.preprocessing import PublicBoundsScaler


def _perturbed_erm(accountant=None, **params):
    from sksmooth.perturbed import PerturbedERMClassifier, StumpERMClassifier

    return PerturbedERMClassifier(
        StumpERMClassifier(n_thresholds=8), epsilon=0.5, delta=1e-5, bounds=(0, 1),
        classes=[0, 1], separating_points="oracle", accountant=accountant,
        random_state=0, **params,
    )


def _private_proper(accountant=None, **params):
    from sksmooth import PrivateProperClassifier

    return PrivateProperClassifier(
        hypotheses="stumps", epsilon=0.5, bounds=(0, 1), classes=[0, 1],
        accountant=accountant, random_state=0, **params,
    )


# name -> factory(accountant=None, **params)
PRIVATE_CLASSIFIERS = {
    "PerturbedERMClassifier": _perturbed_erm,
    "PrivateProperClassifier": _private_proper,
}


@pytest.fixture(scope="module")
def data():
    X, y, _ = load_breast_cancer_public()
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(y))[:300]
    return X[idx], y[idx]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        yield


@pytest.mark.parametrize("name", sorted(PRIVATE_CLASSIFIERS))
def test_pipeline_with_public_bounds_scaler(name, data):
    X, y = data
    # raw-scale inputs: the scaler maps the public box onto [0, 1]
    X_raw = X * 50.0 - 10.0
    pipe = make_pipeline(
        PublicBoundsScaler(bounds=(-10.0, 40.0)), PRIVATE_CLASSIFIERS[name]()
    )
    pipe.fit(X_raw, y)
    pred = pipe.predict(X_raw)
    assert pred.shape == y.shape and set(np.unique(pred)) <= {0, 1}
    direct = PRIVATE_CLASSIFIERS[name]().fit(X, y).predict(X)
    np.testing.assert_array_equal(pred, direct)  # same seed, same scaled data


@pytest.mark.parametrize("name", sorted(PRIVATE_CLASSIFIERS))
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_grid_search_records_every_fit_in_shared_ledger(name, n_jobs, data, tmp_path):
    X, y = data
    acc = BudgetAccountant(100.0, path=tmp_path / "ledger.sqlite")
    grid = {"epsilon": [0.25, 0.5, 1.0]}
    search = GridSearchCV(PRIVATE_CLASSIFIERS[name](accountant=acc), grid, cv=3, n_jobs=n_jobs)
    search.fit(X, y)
    n_fits = len(grid["epsilon"]) * 3 + 1  # every candidate on every fold, plus the refit
    assert len(acc) == n_fits
    assert {r.label for r in acc.ledger} == {name}
    # each fit is recorded at its own candidate's epsilon: 3 folds per
    # candidate, plus the refit at the best candidate's epsilon
    expected = [e for e in grid["epsilon"] for _ in range(3)] + [search.best_params_["epsilon"]]
    assert sorted(r.epsilon for r in acc.ledger) == pytest.approx(sorted(expected))
    assert search.best_estimator_.accountant is acc
    assert search.best_estimator_.privacy_spent_.epsilon == search.best_params_["epsilon"]


@pytest.mark.parametrize("name", sorted(PRIVATE_CLASSIFIERS))
def test_grid_search_stops_at_the_budget(name, data):
    X, y = data
    # room for exactly 4 fits of epsilon 0.5: the fifth is refused
    acc = BudgetAccountant(epsilon=2.0)
    search = GridSearchCV(
        PRIVATE_CLASSIFIERS[name](accountant=acc), {"epsilon": [0.5]}, cv=5,
        error_score="raise",
    )
    with pytest.raises(BudgetError):
        search.fit(X, y)
    assert len(acc) == 4 and acc.spent.epsilon == pytest.approx(2.0)


@pytest.mark.parametrize("name", sorted(PRIVATE_CLASSIFIERS))
def test_cross_val_score_and_clone(name, data):
    X, y = data
    acc = BudgetAccountant()
    est = PRIVATE_CLASSIFIERS[name](accountant=acc)
    scores = cross_val_score(est, X, y, cv=3)
    # accuracies on three held-out folds of 100 rows: multiples of 1/100
    assert scores.shape == (3,)
    np.testing.assert_allclose(scores * 100, np.round(scores * 100), atol=1e-9)
    assert [r.epsilon for r in acc.ledger] == [0.5, 0.5, 0.5]
    twin = clone(est)
    assert twin.get_params()["accountant"] is acc
    assert not hasattr(twin, "classes_")


@pytest.mark.parametrize("name", sorted(PRIVATE_CLASSIFIERS))
def test_joblib_round_trip(name, data, tmp_path):
    X, y = data
    est = PRIVATE_CLASSIFIERS[name]().fit(X, y)
    path = tmp_path / "model.joblib"
    joblib.dump(est, path)
    loaded = joblib.load(path)
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
    assert loaded.privacy_spent_ == est.privacy_spent_


def test_dask_backend_gives_the_same_search(data, tmp_path):
    pytest.importorskip("dask.distributed", reason="dask not installed")
    from dask.distributed import Client

    X, y = data
    grid = {"epsilon": [0.25, 1.0]}
    reference = GridSearchCV(_perturbed_erm(), grid, cv=3).fit(X, y)
    acc = BudgetAccountant(100.0, path=tmp_path / "ledger.sqlite")
    with Client(processes=False, n_workers=1, threads_per_worker=2):
        with joblib.parallel_config(backend="dask"):
            search = GridSearchCV(_perturbed_erm(accountant=acc), grid, cv=3, n_jobs=2).fit(X, y)
    np.testing.assert_allclose(search.cv_results_["mean_test_score"],
                               reference.cv_results_["mean_test_score"])
    assert len(acc) == 2 * 3 + 1


# ------------------------------------------------------------ online learners
def _smooth_hedge():
    from sksmooth import SmoothHedgeClassifier

    return SmoothHedgeClassifier(hypotheses="stumps", sigma=0.1, horizon=400, bounds=(0, 1),
                                 random_state=0)


ONLINE_CLASSIFIERS = {"SmoothHedgeClassifier": _smooth_hedge}


@pytest.mark.parametrize("name", sorted(ONLINE_CLASSIFIERS))
def test_online_pipeline_cross_val_and_grid_search(name, data):
    X, y = data
    pipe = make_pipeline(PublicBoundsScaler(bounds=(0, 1)), ONLINE_CLASSIFIERS[name]())
    scores = cross_val_score(pipe, X, y, cv=3)
    assert np.all(scores > 0.6)  # stumps on breast cancer are far above chance
    search = GridSearchCV(ONLINE_CLASSIFIERS[name](), {"sigma": [0.05, 0.2]}, cv=3, n_jobs=2)
    search.fit(X, y)
    # the winner is the candidate with the best mean score, and the refit is
    # that candidate fitted on all rows (SmoothHedge is not private: exact
    # scores are fine here)
    best = int(np.argmax(search.cv_results_["mean_test_score"]))
    assert search.best_params_ == search.cv_results_["params"][best]
    refit = ONLINE_CLASSIFIERS[name]().set_params(**search.best_params_).fit(X, y)
    np.testing.assert_array_equal(search.predict(X), refit.predict(X))


@pytest.mark.parametrize("name", sorted(ONLINE_CLASSIFIERS))
def test_online_joblib_round_trip_continues_partial_fit(name, data, tmp_path):
    X, y = data
    first, second = slice(0, 150), slice(150, 300)
    uninterrupted = ONLINE_CLASSIFIERS[name]()
    uninterrupted.partial_fit(X[first], y[first], classes=[0, 1])
    uninterrupted.partial_fit(X[second], y[second])
    est = ONLINE_CLASSIFIERS[name]().partial_fit(X[first], y[first], classes=[0, 1])
    joblib.dump(est, tmp_path / "model.joblib")
    loaded = joblib.load(tmp_path / "model.joblib")
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
    loaded.partial_fit(X[second], y[second])
    np.testing.assert_array_equal(loaded.predict(X), uninterrupted.predict(X))
    assert loaded.n_rounds_ == uninterrupted.n_rounds_ == 300
    np.testing.assert_allclose(loaded.cumulative_loss_, uninterrupted.cumulative_loss_)


# ----------------------------------------------------- query release transformers
def _smooth_mwem(accountant=None, **params):
    from sksmooth import MWEM

    return MWEM(epsilon=1.0, n_bins=4, bounds=(0, 1), accountant=accountant,
                random_state=0, **params)


def _subsampled_net(accountant=None, **params):
    from sksmooth import SubsampledNetMechanism

    return SubsampledNetMechanism(epsilon=1.0, n_universe=50, synthetic_size=20,
                                  n_candidates=200, bounds=(0, 1),
                                  accountant=accountant, random_state=0, **params, queries=Workload(n_queries=50))


RELEASES = {"SmoothMWEM": _smooth_mwem, "SubsampledNetMechanism": _subsampled_net}


def _fit_release(make, accountant, epsilon, X):
    return make(accountant=accountant).set_params(epsilon=epsilon).fit(X).privacy_spent_


@pytest.mark.parametrize("name", sorted(RELEASES))
def test_release_parallel_fits_share_one_ledger(name, data, tmp_path):
    X = data[0][:, :3]
    acc = BudgetAccountant(100.0, path=tmp_path / "ledger.sqlite")
    epsilons = [0.25, 0.5, 1.0, 2.0]
    spent = joblib.Parallel(n_jobs=2)(
        joblib.delayed(_fit_release)(RELEASES[name], acc, e, X) for e in epsilons
    )
    assert len(acc) == len(epsilons)
    assert acc.spent.epsilon == pytest.approx(sum(s.epsilon for s in spent))


@pytest.mark.parametrize("name", sorted(RELEASES))
def test_release_clone_and_joblib_round_trip(name, data, tmp_path):
    X = data[0][:, :3]
    est = RELEASES[name]().fit(X)
    twin = clone(est)
    assert not hasattr(twin, "distribution_")
    joblib.dump(est, tmp_path / "release.joblib")
    loaded = joblib.load(tmp_path / "release.joblib")
    np.testing.assert_array_equal(loaded.distribution_, est.distribution_)
    np.testing.assert_array_equal(loaded.sample(30, random_state=1), est.sample(30, random_state=1))
    np.testing.assert_allclose(loaded.answer(), est.answer())
    # refitting the clone with the same seed releases the same distribution
    np.testing.assert_array_equal(twin.fit(X).distribution_, est.distribution_)


# ------------------------------------------------------------ private search
@pytest.mark.parametrize("name", sorted(PRIVATE_CLASSIFIERS))
def test_private_search_charges_each_fold_fit_at_its_candidate_epsilon(name, data, tmp_path):
    from sksmooth.model_selection import PrivateSearchCV

    X, y = data
    acc = BudgetAccountant(100.0, path=tmp_path / "ledger.sqlite")
    grid = {"epsilon": [0.25, 1.0]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the factories seed their fits (reproducible tests)
        search = PrivateSearchCV(PRIVATE_CLASSIFIERS[name](), grid, epsilon_selection=0.5,
                                 cv=3, n_jobs=2, accountant=acc).fit(X, y)
    fits = sorted(r.epsilon for r in acc.ledger if r.label == name)
    assert fits == pytest.approx(sorted([0.25] * 3 + [1.0] * 3 + [search.best_params_["epsilon"]]))
    assert [r.epsilon for r in acc.ledger if r.label == "PrivateSearchCV selection"] == [0.5]
    # the whole search costs the documented formula whatever was selected
    assert acc.spent.epsilon == pytest.approx(3 * 1.25 + 0.5 + 1.0)
    assert search.privacy_spent_.epsilon == pytest.approx(acc.spent.epsilon)
    assert not hasattr(search, "best_score_")


def test_every_module_level_import_is_a_declared_dependency():
    # threadpoolctl was imported at module level but came only through scikit-learn
    import ast
    import pathlib
    import re
    import sys

    import sksmooth

    package = pathlib.Path(sksmooth.__file__).parent
    block = re.search(r"\ndependencies = \[(.*?)\]",
                      (package.parent / "pyproject.toml").read_text(), re.S).group(1)
    declared = {re.match(r"[\w-]+", name.replace("scikit-learn", "sklearn")).group()
                for name in re.findall(r'"([^"]+)"', block)}
    imported = set()
    for path in package.rglob("*.py"):
        for node in ast.parse(path.read_text()).body:  # module level: not a guarded import
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level:
                imported.add(node.module.split(".")[0])
    assert imported - set(sys.stdlib_module_names) - {"sksmooth"} <= declared
